-- The clarification budget (docs/dba-guide.md, "Clarification budget"): pg_clarify.max_rounds,
-- a question's rounds counted from the audit by question_id, "round" / "max_rounds" /
-- "budget_exhausted" in the payload, low-impact meanings assumed once the budget is spent, and
-- high-impact ones still refused. test/shell/budget.t covers concurrent sessions and decisions
-- not yet materialised.
SHOW pg_clarify.max_rounds;

-- A low-impact term with two meanings ("channel"), beside the fixture's high-impact "revenue".
CREATE TABLE sales.budget_orders (id int PRIMARY KEY, channel text, booked numeric);
INSERT INTO sales.budget_orders SELECT g, CASE WHEN g % 2 = 0 THEN 'web' ELSE 'store' END, g
FROM generate_series(1, 4) g;
GRANT SELECT ON sales.budget_orders TO PUBLIC;
INSERT INTO clarify.concepts (id, kind, label, description, owner, status, aliases) VALUES
  ('dim.budget_sales_channel', 'dimension', 'Sales channel', 'Where the order was taken', 'Sales', 'approved', '{}'),
  ('dim.budget_delivery_channel', 'dimension', 'Delivery channel', 'How the order reached the customer', 'Logistics', 'approved', '{}');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES
  ('dim.budget_sales_channel', 'sales.budget_orders', 'channel'),
  ('dim.budget_delivery_channel', 'sales.budget_orders', 'channel');
INSERT INTO clarify.terms (term, concept_id, impact) VALUES
  ('channel', 'dim.budget_sales_channel', 'low'), ('channel', 'dim.budget_delivery_channel', 'low');

-- What a rejection says about its rounds.
CREATE FUNCTION public.budget_of(sql text) RETURNS TABLE (sqlstate text, state text, round text,
    max_rounds text, exhausted text, slots text) LANGUAGE sql AS $$
  SELECT g->>'sqlstate', g->'detail'->>'state', g->'detail'->>'round',
         g->'detail'->>'max_rounds', g->'detail'->>'budget_exhausted',
         (SELECT string_agg(s->>'term', ',') FROM jsonb_array_elements(g->'detail'->'slots') s)
  FROM public.gate(sql) g $$;
GRANT EXECUTE ON FUNCTION public.budget_of(text) TO PUBLIC;

-- No budget: every AMBIGUOUS payload with a question_id still says its round; identical
-- retries count; no max_rounds.
SET ROLE regress_agent;
SET pg_clarify.resolution = '{"question_id": "q_budget_none", "question": "Show revenue"}';
SELECT * FROM public.budget_of('SELECT sum(booked_amount) FROM sales.orders');
SELECT * FROM public.budget_of('SELECT sum(booked_amount) FROM sales.orders');
-- Without a question_id there is no budget and no round.
SET pg_clarify.resolution = '{"question": "Show revenue"}';
SELECT * FROM public.budget_of('SELECT sum(booked_amount) FROM sales.orders');
RESET ROLE;

-- A budget of 2 rounds for the agent, by a superuser.
ALTER ROLE regress_agent SET pg_clarify.max_rounds = 2;
\c - regress_agent
SHOW pg_clarify.max_rounds;
SET pg_clarify.resolution = '{"question_id": "q_budget_high", "question": "Show revenue"}';
SELECT * FROM public.budget_of('SELECT sum(booked_amount) FROM sales.orders');
-- check() shows the round the statement would be, and counts nothing.
SELECT c->>'round' AS round, c->>'max_rounds' AS max_rounds FROM
  clarify.check('SELECT sum(booked_amount) FROM sales.orders') c;
SELECT c->>'round' AS round FROM clarify.check('SELECT sum(booked_amount) FROM sales.orders') c;
-- Another session of the same question: round 2.
\c - regress_agent
SET pg_clarify.resolution = '{"question_id": "q_budget_high", "question": "Show revenue"}';
SELECT * FROM public.budget_of('SELECT sum(booked_amount) FROM sales.orders');
-- Spent: "revenue" is high impact, so it is still refused, with budget_exhausted and a HINT
-- saying the user must choose. check() says so too.
SELECT c->>'round' AS round, c->>'budget_exhausted' AS exhausted FROM
  clarify.check('SELECT sum(booked_amount) FROM sales.orders') c;
SELECT * FROM public.budget_of('SELECT sum(booked_amount) FROM sales.orders');
SELECT g->>'hint' AS hint FROM public.gate('SELECT sum(booked_amount) FROM sales.orders') g;
-- Another question starts at 1.
SET pg_clarify.resolution = '{"question_id": "q_budget_other", "question": "Show revenue"}';
SELECT * FROM public.budget_of('SELECT sum(booked_amount) FROM sales.orders');

-- A low-impact meaning: asked in rounds 1 and 2, then assumed with a WARNING naming the
-- meaning and the rounds; the statement runs.
SET pg_clarify.resolution = '{"question_id": "q_budget_low", "question": "orders by channel"}';
SELECT * FROM public.budget_of('SELECT channel, count(*) FROM sales.budget_orders GROUP BY 1');
SELECT * FROM public.budget_of('SELECT channel, count(*) FROM sales.budget_orders GROUP BY 1');
SELECT channel, count(*) FROM sales.budget_orders GROUP BY 1 ORDER BY 1;
SELECT clarify.last_decision()->>'decision' AS decision,
       clarify.last_decision()->'bindings'->0->>'source' AS source;
-- Low and high together once spent: the low one is assumed, the high one still asked.
SELECT * FROM public.budget_of('SELECT channel, sum(booked_amount) FROM sales.budget_orders b JOIN sales.orders o ON o.id = b.id GROUP BY 1');

-- Never UNSUPPORTED, MISMATCH or GRAIN, even when the question's budget is spent.
SELECT * FROM public.budget_of('SELECT sum(margin) FROM sales.costs');
SET pg_clarify.resolution = '{"question_id": "q_budget_low", "question": "booked revenue by channel", "bindings": [{"term": "revenue", "concept": "metric.booked_revenue", "source": "explicit"}]}';
SELECT * FROM public.budget_of('SELECT sum(invoiced_amount) FROM sales.invoices');
SELECT * FROM public.budget_of('SELECT sum(o.booked_amount) FROM sales.orders o JOIN sales.invoices i ON i.order_id > o.id');
SELECT * FROM public.budget_of('SELECT b.channel, sum(o.booked_amount) FROM sales.orders o JOIN sales.invoices i ON i.order_id > o.id JOIN sales.budget_orders b ON b.id = o.id GROUP BY 1');

-- Agents cannot change the budget: SET, SET LOCAL, set_config(), RESET, ALTER ROLE, a
-- function's SET clause (test/shell/budget.t: PGOPTIONS).
SET pg_clarify.max_rounds = 0;
BEGIN;
SET LOCAL pg_clarify.max_rounds = 0;
ROLLBACK;
SELECT set_config('pg_clarify.max_rounds', '0', false);
RESET pg_clarify.max_rounds;
RESET ALL;
SHOW pg_clarify.max_rounds;
ALTER ROLE regress_agent SET pg_clarify.max_rounds = 0;
CREATE FUNCTION pg_temp.unlimited() RETURNS text LANGUAGE sql
  SET pg_clarify.max_rounds = 0 AS $$ SELECT current_setting('pg_clarify.max_rounds') $$;
SHOW pg_clarify.max_rounds;
\c - postgres

-- The audit: every round is a rejected AMBIGUOUS row of its question; the assumption is allowed.
SELECT clarify.audit_wait() AS caught_up;
SELECT question_id, decision, state, payload->>'round' AS round,
       payload->>'budget_exhausted' AS exhausted
FROM clarify.audit WHERE question_id LIKE 'q_budget_%' ORDER BY decision_id;

ALTER ROLE regress_agent RESET pg_clarify.max_rounds;
DROP FUNCTION public.budget_of(text);
DELETE FROM clarify.terms WHERE concept_id LIKE 'dim.budget_%';
DELETE FROM clarify.concept_columns WHERE concept_id LIKE 'dim.budget_%';
DELETE FROM clarify.concepts WHERE id LIKE 'dim.budget_%';
DROP TABLE sales.budget_orders;
