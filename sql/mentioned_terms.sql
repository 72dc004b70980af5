-- The question's terms decide (docs/reference.md, "Which terms decide a column"): the governed
-- terms the record's question mentions, a one-meaning synonym beside an ambiguous term, mentioned
-- periods, pg_clarify.require_question and clarify.mentioned_terms().
SET client_min_messages = warning;
-- A one-meaning synonym of booked revenue, beside the three meanings of "revenue".
INSERT INTO clarify.terms (term, concept_id) VALUES ('Bookings', 'metric.booked_revenue');
INSERT INTO clarify.terms (term, concept_id) VALUES ('net revenue retention', 'metric.recognized_revenue'),
  ('ledger value', 'metric.recognized_revenue');

-- clarify.mentioned_terms(): whole words, case-folded, hyphens and line breaks between words.
SELECT clarify.mentioned_terms('What is our REVENUE from bookings?');
SELECT clarify.mentioned_terms(E'net-revenue\nretention by country');
SELECT count(*) FROM clarify.mentioned_terms('revenues, prebookings, countryside');
SELECT clarify.mentioned_terms(NULL) IS NULL AS null_in_null_out;

SET ROLE regress_agent;
SELECT clarify.mentioned_terms('margin per country');

-- The question says "revenue": the synonym does not cover, and the slot asks about "revenue".
SET pg_clarify.resolution = '{"question_id": "q1", "question": "What is our revenue?"}';
SELECT g->>'sqlstate' AS sqlstate, g->>'hint' AS hint, g->'detail'->'slots'->0->>'term' AS term
  FROM gate('SELECT sum(booked_amount) FROM sales.orders') g;
-- It says "bookings" (any case): it runs, through that term.
SET pg_clarify.resolution = '{"question_id": "q2", "question": "What are our BOOKINGS?"}';
SELECT sum(booked_amount) FROM sales.orders;
SELECT b->>'term' AS term, b->>'source' AS source
  FROM jsonb_array_elements(clarify.last_decision()->'bindings') b;
-- Whole words only: "bookingss" mentions nothing, so every term decides.
SET pg_clarify.resolution = '{"question_id": "q3", "question": "What are our bookingss?"}';
SELECT gate_state('SELECT sum(booked_amount) FROM sales.orders');
-- No question: every term decides, "revenue" among them.
RESET pg_clarify.resolution;
SELECT g->'detail'->'slots'->0->>'term' AS term, g->'detail'->>'state' AS state
  FROM gate('SELECT sum(booked_amount) FROM sales.orders') g;
-- A multi-word term matched across a hyphen and a line break decides alone; one holding
-- "revenue" mentions "revenue" too, which still decides.
SET pg_clarify.resolution = E'{"question_id": "q4", "question": "Our Ledger-\\nvalue"}';
SELECT gate_state('SELECT sum(recognized_amount) FROM sales.revenue_ledger');
SET pg_clarify.resolution = E'{"question_id": "q4", "question": "Our Net-Revenue\\nretention"}';
SELECT gate_state('SELECT sum(recognized_amount) FROM sales.revenue_ledger');
-- check() and resolve() follow the same rules.
SET pg_clarify.resolution = '{"question_id": "q5", "question": "What is our revenue?"}';
SELECT clarify.check('SELECT sum(booked_amount) FROM sales.orders')->>'state' AS check_state;
SELECT r->>'decision' AS decision, r->>'ask' AS ask FROM clarify.resolve('bookings') r;
SET pg_clarify.resolution = '{"question_id": "q6", "question": "bookings this year"}';
SELECT clarify.check('SELECT sum(booked_amount) FROM sales.orders')->>'state' AS check_state;
SELECT r->>'decision' AS decision, r->>'selected' AS selected FROM clarify.resolve('bookings') r;
RESET ROLE;

-- A catalog change re-matches the record already set: "bookings" stops being a term.
SET ROLE regress_agent;
SET pg_clarify.resolution = '{"question_id": "q7", "question": "What are our bookings?"}';
SELECT gate_state('SELECT sum(booked_amount) FROM sales.orders');
RESET ROLE;
DELETE FROM clarify.terms WHERE term = 'bookings';
SET ROLE regress_agent;
SELECT gate_state('SELECT sum(booked_amount) FROM sales.orders');
RESET ROLE;
INSERT INTO clarify.terms (term, concept_id) VALUES ('Bookings', 'metric.booked_revenue');

-- A mentioned period is asked whenever a dated measure is read, bounded SQL or not.
CREATE SCHEMA mt;
GRANT USAGE ON SCHEMA mt TO PUBLIC;
CREATE TABLE mt.deals (id int PRIMARY KEY, closed_on date, amount numeric);
INSERT INTO mt.deals SELECT g, date '2026-01-01' + g, g FROM generate_series(1, 150) g;
GRANT SELECT ON mt.deals TO PUBLIC;
INSERT INTO clarify.concepts (id, kind, label, description, owner, status, window_start, window_end) VALUES
  ('metric.deal_value', 'metric', 'Deal value', 'Value of closed deals', 'Sales', 'approved', NULL, NULL),
  ('window.cal_q1', 'time_window', 'Calendar Q1', 'January to March', 'Finance', 'approved', $$date '2026-01-01'$$, $$date '2026-04-01'$$),
  ('window.fis_q1', 'time_window', 'Fiscal Q1', 'February to April', 'Finance', 'approved', $$date '2026-02-01'$$, $$date '2026-05-01'$$);
INSERT INTO clarify.concept_columns (concept_id, relation, column_name, time_column) VALUES
  ('metric.deal_value', 'mt.deals', 'amount', 'closed_on');
INSERT INTO clarify.terms (term, concept_id) VALUES
  ('deal value', 'metric.deal_value'), ('first quarter', 'window.cal_q1'), ('first quarter', 'window.fis_q1');
SET ROLE regress_agent;
SET pg_clarify.resolution = '{"question_id": "q8", "question": "Deal value in the first quarter"}';
SELECT g->>'sqlstate' AS sqlstate, s->>'kind' AS kind, s->>'term' AS term, s->>'state' AS state,
       jsonb_path_query_array(s->'options', '$[*].value') AS options,
       jsonb_path_query_array(s->'options', '$[*].range') AS ranges
  FROM gate($$SELECT sum(amount) FROM mt.deals WHERE closed_on >= '2026-01-01' AND closed_on < '2026-04-01'$$) g,
       LATERAL jsonb_array_elements(g->'detail'->'slots') s;
-- Not mentioned: no period is asked.
SET pg_clarify.resolution = '{"question_id": "q9", "question": "Deal value by month"}';
SELECT gate_state($$SELECT sum(amount) FROM mt.deals WHERE closed_on >= '2026-01-01' AND closed_on < '2026-04-01'$$);
RESET ROLE;
-- Resolved by a default: the statement's range must equal the window.
INSERT INTO clarify.defaults (term, concept_id, approved_by) VALUES ('first quarter', 'window.fis_q1', 'cfo@example.com');
SET ROLE regress_agent;
SET pg_clarify.resolution = '{"question_id": "q10", "question": "Deal value in the first quarter"}';
SELECT g->>'sqlstate' AS sqlstate, s->>'kind' AS kind, s->>'window' AS window, s->'expected' AS expected
  FROM gate($$SELECT sum(amount) FROM mt.deals WHERE closed_on >= '2026-01-01' AND closed_on < '2026-04-01'$$) g,
       LATERAL jsonb_array_elements(g->'detail'->'slots') s;
SELECT gate_state('SELECT sum(amount) FROM mt.deals');
SELECT sum(amount) FROM mt.deals WHERE closed_on >= '2026-02-01' AND closed_on < '2026-05-01';
RESET ROLE;

-- pg_clarify.require_question: only a superuser sets it; an agent cannot change it.
SET ROLE regress_agent;
SET pg_clarify.require_question = on;
SET LOCAL pg_clarify.require_question = on;
SELECT set_config('pg_clarify.require_question', 'on', false);
RESET pg_clarify.require_question;
RESET ROLE;
ALTER ROLE regress_agent SET pg_clarify.require_question = on;
\c - regress_agent
SHOW pg_clarify.require_question;
SET pg_clarify.require_question = off;
RESET pg_clarify.require_question;
RESET ALL;
SHOW pg_clarify.require_question;
SELECT g->>'sqlstate' AS sqlstate, g->'detail'->'slots'->0->>'kind' AS kind,
       g->'detail'->'slots'->0->>'state' AS state, g->>'hint' AS hint
  FROM gate('SELECT sum(booked_amount) FROM sales.orders') g;
SET pg_clarify.resolution = '{"question_id": "q11", "question": "   "}';
SELECT gate_state('SELECT sum(booked_amount) FROM sales.orders');
SET pg_clarify.resolution = '{"question_id": "q12", "question": "our bookings"}';
SELECT sum(booked_amount) FROM sales.orders;
-- Reading nothing governed needs no question.
RESET pg_clarify.resolution;
SELECT count(*) FROM sales.orders;
\c - postgres
ALTER ROLE regress_agent RESET pg_clarify.require_question;
-- Nor at connection time (PGOPTIONS): the agent's connection is refused.
CREATE EXTENSION IF NOT EXISTS dblink;
DO $$
DECLARE detail text;
BEGIN
  PERFORM dblink_connect('lax', public.conninfo(current_database(), 'regress_agent') ||
                         ' options=''-c pg_clarify.require_question=off''');
  RAISE WARNING 'connected with require_question off';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
  RAISE WARNING 'refused: %', detail LIKE '%permission denied to set parameter "pg_clarify.require_question"%';
END $$;
-- Nor in a function's SET clause an agent writes.
GRANT CREATE ON SCHEMA mt TO regress_agent;
SET ROLE regress_agent;
CREATE FUNCTION mt.lax() RETURNS int LANGUAGE sql SET pg_clarify.require_question = off AS 'SELECT 1';
RESET ROLE;

DELETE FROM clarify.defaults WHERE term = 'first quarter';
DELETE FROM clarify.terms WHERE term IN ('bookings', 'net revenue retention', 'ledger value', 'deal value', 'first quarter');
DELETE FROM clarify.concept_columns WHERE concept_id = 'metric.deal_value';
DELETE FROM clarify.concepts WHERE id IN ('metric.deal_value', 'window.cal_q1', 'window.fis_q1');
DROP SCHEMA mt CASCADE;
