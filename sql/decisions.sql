-- The decision per gated statement (docs/reference.md, "SQLSTATEs" and "The read set"): every
-- state, every binding source and its forgery, the payload, and last_decision() for allowed
-- statements.
SET ROLE regress_agent;

-- The example's first question: three meanings, no default, no binding -> QC001 with the options.
SET pg_clarify.resolution = '{"question_id": "q_1042", "question": "Show revenue for Germany last quarter"}';
SELECT jsonb_pretty(public.gate($$SELECT sum(booked_amount) FROM sales.orders WHERE customer_country = 'Germany'$$));
-- The same, as the client sees it (the decision id differs per run, so only its shape is shown).
\set VERBOSITY terse
SELECT sum(booked_amount) FROM sales.orders WHERE customer_country = 'Germany';
\set VERBOSITY default

-- The example's second question names the meaning: an explicit binding verifies and it runs.
SET pg_clarify.resolution = '{"question_id": "q_1043", "question": "Show recognized revenue for Germany last quarter", "bindings": [{"term": "revenue", "concept": "metric.recognized_revenue", "source": "explicit"}]}';
SELECT sum(recognized_amount) FROM sales.revenue_ledger WHERE customer_country = 'Germany';
SELECT d->>'decision' AS decision, d->>'state' AS state, d->>'question_id' AS question_id, d->'columns' AS columns,
       jsonb_pretty(d->'bindings') AS bindings, d->>'statement' AS statement, (d->>'decision_id') IS NOT NULL AS has_id
FROM clarify.last_decision() d;
-- An alias counts as naming it; a label only inside another word does not.
SET pg_clarify.resolution = '{"question": "Total recognised revenue please", "bindings": [{"concept": "metric.recognized_revenue", "source": "explicit"}]}';
SELECT public.gate_state('SELECT sum(recognized_amount) FROM sales.revenue_ledger') AS alias;
SET pg_clarify.resolution = '{"question": "Show unrecognized revenues", "bindings": [{"concept": "metric.recognized_revenue", "source": "explicit"}]}';
SELECT public.gate('SELECT sum(recognized_amount) FROM sales.revenue_ledger')->'detail'->'slots'->0->>'reason' AS label_inside_word;
-- Labels and aliases in any script compare under Unicode simple case folding (the aliases are
-- added for one transaction only).
RESET ROLE;
BEGIN;
UPDATE clarify.concepts SET aliases = '{recognised revenue, przychód łódź, λογιστικά έσοδα}' WHERE id = 'metric.recognized_revenue';
SET ROLE regress_agent;
SET LOCAL pg_clarify.resolution = '{"question": "Pokaż PRZYCHÓD ŁÓDŹ za kwartał", "bindings": [{"concept": "metric.recognized_revenue", "source": "explicit"}]}';
SELECT public.gate_state('SELECT sum(recognized_amount) FROM sales.revenue_ledger') AS polish_alias;
SET LOCAL pg_clarify.resolution = '{"question": "ΛΟΓΙΣΤΙΚΆ ΈΣΟΔΑ ανά χώρα", "bindings": [{"concept": "metric.recognized_revenue", "source": "explicit"}]}';
SELECT public.gate_state('SELECT sum(recognized_amount) FROM sales.revenue_ledger') AS greek_alias;
-- Neighbouring letters are not one letter: Ń is not ł.
SET LOCAL pg_clarify.resolution = '{"question": "przychód Ńódź", "bindings": [{"concept": "metric.recognized_revenue", "source": "explicit"}]}';
SELECT public.gate('SELECT sum(recognized_amount) FROM sales.revenue_ledger')->'detail'->'slots'->0->>'reason' AS other_letter;
ROLLBACK;
SET ROLE regress_agent;

-- Forged confirmations: claimed, but no approval row exists -> QC004.
SET pg_clarify.resolution = '{"question_id": "q_2001", "metric": "metric.recognized_revenue", "user_confirmed": true}';
SELECT g->>'sqlstate' AS sqlstate, g->>'message' AS message, g->>'hint' AS hint FROM public.gate('SELECT sum(recognized_amount) FROM sales.revenue_ledger') g;
SET pg_clarify.resolution = '{"question_id": "q_2001", "bindings": [{"term": "revenue", "concept": "metric.recognized_revenue", "source": "user_confirmation"}]}';
SELECT public.gate_state('SELECT sum(recognized_amount) FROM sales.revenue_ledger') AS forged_binding;
-- The chat app records the user's real choice; now the same record verifies.
RESET ROLE;
SET ROLE regress_app;
SELECT clarify.confirm('q_2001', 'revenue', 'metric.recognized_revenue', 'regress_agent', 'user:alice') > 0 AS confirmed;
SET ROLE regress_agent;
SELECT public.gate_state('SELECT sum(recognized_amount) FROM sales.revenue_ledger') AS confirmed_binding;
SELECT sum(recognized_amount) FROM sales.revenue_ledger;
SELECT b->>'source' AS source, (b->>'approval_id') IS NOT NULL AS has_approval FROM clarify.last_decision() d, jsonb_array_elements(d->'bindings') b;
-- The confirmation was for this agent role; another governed role cannot use it.
RESET ROLE;
SET ROLE regress_finance_agent;
SELECT public.gate_state('SELECT sum(recognized_amount) FROM sales.revenue_ledger') AS other_role;
RESET ROLE;
-- Recorded with the question's text, a confirmation holds for that question only: a record that
-- keeps its question_id for another question is UNVERIFIED. Texts compare exactly, surrounding
-- white space aside.
SET ROLE regress_app;
SELECT clarify.confirm('q_2002', 'revenue', 'metric.invoiced_revenue', 'regress_agent', 'user:alice', question => 'Show revenue for Germany') > 0 AS confirmed_for_text;
SET ROLE regress_agent;
SET pg_clarify.resolution = '{"question_id": "q_2002", "question": "  Show revenue for Germany\n", "bindings": [{"term": "revenue", "concept": "metric.invoiced_revenue", "source": "user_confirmation"}]}';
SELECT public.gate_state('SELECT sum(invoiced_amount) FROM sales.invoices') AS same_question;
SELECT r->>'decision' AS decision, r->>'source' AS source, r->>'reason' AS reason, r->'confirmed_by' AS confirmed_by FROM clarify.resolve('revenue', 'q_2002') r;
SET pg_clarify.resolution = '{"question_id": "q_2002", "question": "Show revenue for France", "bindings": [{"term": "revenue", "concept": "metric.invoiced_revenue", "source": "user_confirmation"}]}';
SELECT g->>'sqlstate' AS sqlstate, g->'detail'->'slots'->0->>'reason' AS reason FROM public.gate('SELECT sum(invoiced_amount) FROM sales.invoices') g;
SELECT r->>'decision' AS decision FROM clarify.resolve('revenue', 'q_2002') r;
SET pg_clarify.resolution = '{"question_id": "q_2001", "bindings": [{"term": "revenue", "concept": "metric.recognized_revenue", "source": "user_confirmation"}]}';

-- MISMATCH: the record resolved "revenue" to recognized, the statement reads booked -> QC003.
SELECT g->>'sqlstate' AS sqlstate, g->'detail'->'slots'->0->>'expected' AS expected, g->'detail'->'slots'->0->>'actual' AS actual, g->>'hint' AS hint
FROM public.gate('SELECT sum(booked_amount) FROM sales.orders') g;

-- With an approved default for everyone naming recognized revenue:
RESET ROLE;
INSERT INTO clarify.defaults (term, concept_id, approved_by) VALUES ('revenue', 'metric.recognized_revenue', 'Finance controller');
SET ROLE regress_agent;
RESET pg_clarify.resolution;
SELECT sum(recognized_amount) FROM sales.revenue_ledger;
SELECT b->>'source' AS source, b->'default_applied' AS default_applied FROM clarify.last_decision() d, jsonb_array_elements(d->'bindings') b;
-- reading a non-default candidate with no binding is a MISMATCH;
SELECT g->>'sqlstate' AS sqlstate, g->'detail'->'slots'->0->>'default' AS "default", g->'detail'->'slots'->0->>'expected' AS expected FROM public.gate('SELECT sum(booked_amount) FROM sales.orders') g;
-- an approved_default claim verifies only against the default that applies.
SET pg_clarify.resolution = '{"bindings": [{"term": "revenue", "concept": "metric.recognized_revenue", "source": "approved_default"}]}';
SELECT public.gate_state('SELECT sum(recognized_amount) FROM sales.revenue_ledger') AS true_default_claim;
SET pg_clarify.resolution = '{"bindings": [{"term": "revenue", "concept": "metric.booked_revenue", "source": "approved_default"}]}';
SELECT public.gate_state('SELECT sum(booked_amount) FROM sales.orders') AS false_default_claim;
RESET pg_clarify.resolution;

-- The default's concept goes down: UNSUPPORTED naming the dead default -> QC002, with the
-- remaining eligible options, never a silent fall-through.
RESET ROLE;
UPDATE clarify.concepts SET available = false WHERE id = 'metric.recognized_revenue';
SET ROLE regress_agent;
SELECT g->>'sqlstate' AS sqlstate, g->>'message' AS message, g->'detail'->'slots'->0->>'default' AS "default", jsonb_array_length(g->'detail'->'slots'->0->'options') AS options, g->>'hint' AS hint
FROM public.gate('SELECT sum(booked_amount) FROM sales.orders') g;
SELECT public.gate_state('SELECT sum(recognized_amount) FROM sales.revenue_ledger') AS reading_the_dead_default;
RESET ROLE;
UPDATE clarify.concepts SET available = true WHERE id = 'metric.recognized_revenue';
DELETE FROM clarify.defaults;
SET ROLE regress_agent;

-- A draft concept read, or bound: UNSUPPORTED.
SELECT public.gate_state('SELECT sum(margin) FROM sales.costs') AS draft_read;
SET pg_clarify.resolution = '{"question": "Gross margin", "bindings": [{"term": "revenue", "concept": "metric.gross_margin", "source": "explicit"}]}';
SELECT public.gate_state('SELECT sum(booked_amount) FROM sales.orders') AS bound_to_draft;
RESET pg_clarify.resolution;

-- Several failing columns: the first state in order of precedence, every slot listed.
SELECT g->'detail'->>'state' AS state, jsonb_pretty(jsonb_path_query_array(g->'detail', '$.slots[*].state')) AS slot_states
FROM public.gate('SELECT o.booked_amount, c.margin FROM sales.orders o, sales.costs c') g;
-- Two meanings of one term read together: one slot per meaning read.
SELECT jsonb_array_length(g->'detail'->'slots') AS slots FROM public.gate('SELECT o.booked_amount, i.invoiced_amount FROM sales.orders o JOIN sales.invoices i ON i.order_id = o.id') g;

-- The only eligible meaning of a term is covered without asking.
SELECT count(*) FROM sales.orders WHERE customer_country = 'Germany';
SELECT b->>'source' AS source FROM clarify.last_decision() d, jsonb_array_elements(d->'bindings') b;
-- A statement reading no governed column is not a decision: last_decision() stays as it was.
SELECT count(*) FROM sales.orders WHERE id > 5;
SELECT d->>'statement' AS last_statement FROM clarify.last_decision() d;

-- check(): the same decision without running the statement.
SELECT c->>'decision' AS decision, c->>'state' AS state, c->'gated' AS gated, c->'columns' AS columns FROM clarify.check('SELECT sum(booked_amount) FROM sales.orders') c;
SELECT c->>'decision' AS decision, c->'governed' AS governed FROM clarify.check('SELECT count(*) FROM sales.orders') c;
RESET ROLE;
