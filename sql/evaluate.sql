-- clarify.evaluate() and clarify.evaluate_cases() (docs/dba-guide.md, "Evaluating the gate"):
-- labelled cases decided as check() decides, as their agent; rows compared as a multiset.
SELECT clarify.audit_wait() AS caught_up \gset
SELECT count(*) AS audited_before FROM clarify.audit_log \gset

-- No case: every metric has a denominator of 0 and no value.
SELECT * FROM clarify.evaluate();

-- Hand-computable cases (sum of booked_amount is 100 + 200 + ... + 1000 = 5500).
INSERT INTO clarify.eval_cases (id, question, sql, record, agent, expected, expected_rows) VALUES
  ('r1_bound', 'Show booked revenue', 'SELECT sum(booked_amount) AS total FROM sales.orders',
   '{"bindings": [{"concept": "metric.booked_revenue", "source": "explicit"}]}', 'regress_agent',
   'RESOLVED', '[{"total": 5500}]'),
  ('r2_wrong_rows', 'Show booked revenue', 'SELECT sum(booked_amount) AS total FROM sales.orders',
   '{"bindings": [{"concept": "metric.booked_revenue", "source": "explicit"}]}', 'regress_agent',
   'RESOLVED', '[{"total": 1}]'),
  ('r3_asked', 'Show revenue', 'SELECT sum(booked_amount) AS total FROM sales.orders', NULL,
   'regress_agent', 'RESOLVED', NULL),
  ('r4_countries', 'Orders per country',
   'SELECT customer_country, count(*) AS n FROM sales.orders GROUP BY 1', NULL, 'regress_agent',
   'RESOLVED', '[{"customer_country": "Germany", "n": 5.0}, {"n": 5, "customer_country": "France"}]'),
  ('a1_asked', 'Show revenue', 'SELECT sum(booked_amount) AS total FROM sales.orders', NULL,
   'regress_agent', 'AMBIGUOUS', NULL),
  ('a2_answered', 'How many orders?', 'SELECT count(*) FROM sales.orders', NULL,
   'regress_agent', 'AMBIGUOUS', NULL),
  ('u1_refused', 'Show margin', 'SELECT sum(margin) FROM sales.costs', NULL, 'regress_agent',
   'UNSUPPORTED', NULL),
  ('u2_answered', 'Show margin', 'SELECT 1 AS one', NULL, 'regress_agent', 'UNSUPPORTED', NULL);

SELECT id, expected, decision, state, correct, detail->>'rows_match' AS rows_match,
       jsonb_array_length(detail->'rows') AS rows_read
FROM clarify.evaluate_cases();
-- recall 1/2 (a1), false clarification 1/4 (r3), unjustified assumption 1/2 (a2),
-- unsupported answer 1/2 (u2), business-correct 2/3 (r1, r4 of r1, r2, r4).
SELECT * FROM clarify.evaluate();

-- The case's question replaces the record's; the agent's pg_clarify settings apply (here: a
-- governed read needs the user's question).
ALTER ROLE regress_agent SET pg_clarify.require_question = on;
INSERT INTO clarify.eval_cases (id, question, sql, record, agent, expected) VALUES
  ('q1_question', 'Orders per country', 'SELECT customer_country FROM sales.orders',
   '{"question": null}', 'regress_agent', 'RESOLVED'),
  ('q2_no_question', NULL, 'SELECT customer_country FROM sales.orders', NULL, 'regress_agent',
   'RESOLVED');
SELECT id, decision, state FROM clarify.evaluate_cases() WHERE id LIKE 'q%';
ALTER ROLE regress_agent RESET pg_clarify.require_question;
SELECT id, decision, state FROM clarify.evaluate_cases() WHERE id LIKE 'q%';
DELETE FROM clarify.eval_cases WHERE id LIKE 'q%';

-- Decided and read as the agent with its role settings: its search_path finds orders.
ALTER ROLE regress_agent SET search_path = sales, public;
INSERT INTO clarify.eval_cases (id, question, sql, record, agent, expected, expected_rows) VALUES
  ('r5_search_path', 'Show booked revenue', 'SELECT sum(booked_amount) AS total FROM orders',
   '{"bindings": [{"concept": "metric.booked_revenue", "source": "explicit"}]}', 'regress_agent',
   'RESOLVED', '[{"total": "5500"}]');
SELECT id, decision, state, correct FROM clarify.evaluate_cases() WHERE id = 'r5_search_path';
ALTER ROLE regress_agent RESET search_path;
SELECT id, decision, detail->>'reason' AS reason FROM clarify.evaluate_cases() WHERE id = 'r5_search_path';
SHOW search_path;

-- Rows are read within a timeout (the agent's statement_timeout, else 30 s).
ALTER ROLE regress_agent SET statement_timeout = '100ms';
INSERT INTO clarify.eval_cases (id, question, sql, agent, expected, expected_rows) VALUES
  ('r6_slow', 'How many orders?', 'SELECT count(*) AS n FROM sales.orders, pg_sleep(5)', 'regress_agent',
   'RESOLVED', '[{"n": 10}]');
SELECT id, decision, correct, detail->>'rows_error' AS rows_error FROM clarify.evaluate_cases() WHERE id = 'r6_slow';
ALTER ROLE regress_agent RESET statement_timeout;
SHOW statement_timeout;

-- Nothing with side effects runs: no sequence advances, no row is written, nothing is audited.
DELETE FROM clarify.eval_cases;
CREATE SEQUENCE public.eval_seq;
CREATE TABLE public.eval_log (n int);
CREATE FUNCTION public.eval_write() RETURNS int LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO public.eval_log VALUES (1); RETURN 1; END $$;
GRANT USAGE ON SEQUENCE public.eval_seq TO regress_agent;
GRANT SELECT, INSERT ON public.eval_log TO regress_agent;
INSERT INTO clarify.eval_cases (id, sql, agent, expected, expected_rows) VALUES
  ('s1_nextval', 'SELECT nextval(''public.eval_seq'') AS n', 'regress_agent', 'RESOLVED', '[{"n": 1}]'),
  ('s2_write', 'SELECT public.eval_write() AS n', 'regress_agent', 'RESOLVED', '[{"n": 1}]'),
  ('s3_insert', 'INSERT INTO public.eval_log VALUES (2) RETURNING n', 'regress_agent', 'RESOLVED', '[{"n": 2}]'),
  ('s4_cte', 'WITH w AS (INSERT INTO public.eval_log VALUES (3) RETURNING n) SELECT n FROM w',
   'regress_agent', 'RESOLVED', '[{"n": 3}]');
SELECT id, decision, correct, detail->>'rows_error' AS rows_error FROM clarify.evaluate_cases();
SELECT last_value, is_called FROM public.eval_seq;
SELECT count(*) AS rows_written FROM public.eval_log;
SELECT clarify.audit_wait() AS caught_up \gset
SELECT count(*) - :audited_before AS new_audit_rows FROM clarify.audit_log;
DROP FUNCTION public.eval_write();
DROP TABLE public.eval_log;
DROP SEQUENCE public.eval_seq;

-- The agent is a role name that follows ALTER ROLE ... RENAME; an unknown role is reported.
CREATE ROLE regress_eval_agent;
INSERT INTO clarify.eval_cases (id, sql, agent, expected) VALUES
  ('n1_renamed', 'SELECT 1', 'regress_eval_agent', 'RESOLVED');
ALTER ROLE regress_eval_agent RENAME TO regress_eval_agent2;
SELECT id, agent FROM clarify.eval_cases WHERE id = 'n1_renamed';
DELETE FROM clarify.eval_cases;
DROP ROLE regress_eval_agent2;
INSERT INTO clarify.eval_cases (id, sql, agent, expected) VALUES
  ('n2_nobody', 'SELECT 1', 'regress_no_such_role', 'RESOLVED');
SELECT id, decision, state, correct, detail->>'reason' AS reason FROM clarify.evaluate_cases();
DELETE FROM clarify.eval_cases;
\set VERBOSITY terse
INSERT INTO clarify.eval_cases (id, sql, agent, expected) VALUES ('bad', 'SELECT 1', 'regress_agent', 'MAYBE');
\set VERBOSITY default

-- Owner only (the refusal's CONTEXT line differs between versions).
\set SHOW_CONTEXT never
SET ROLE regress_agent;
SELECT * FROM clarify.evaluate();
SELECT * FROM clarify.evaluate_cases();
SELECT * FROM clarify.eval_cases;
SET ROLE regress_analyst;
SELECT * FROM clarify.evaluate();
SELECT * FROM clarify_internal.evaluate_case('SELECT 1', 0, NULL, false);
\set SHOW_CONTEXT errors
RESET ROLE;
