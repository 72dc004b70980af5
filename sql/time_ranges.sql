-- Time ranges and impact (docs/reference.md, "Time ranges and impact"): a dated measure's period
-- read from the conditions on its scans, bound windows, required periods, impact order and
-- assumptions below pg_clarify.assume_below.
SET client_min_messages = warning;
CREATE SCHEMA ledger;
GRANT USAGE ON SCHEMA ledger TO PUBLIC;
-- Never analysed (autovacuum off), so the EXPLAINs below keep their plans whenever they run.
CREATE TABLE ledger.bookings (id int PRIMARY KEY, booked_on date, booked_at timestamptz,
                             region text, amount numeric, fee numeric)
  WITH (autovacuum_enabled = off);
INSERT INTO ledger.bookings
  SELECT g, date '2025-12-01' + g, timestamptz '2025-12-01 00:00' + g * interval '1 day',
         CASE WHEN g % 2 = 0 THEN 'North' ELSE 'South' END, g, g / 10.0
  FROM generate_series(1, 200) g;
CREATE INDEX ON ledger.bookings (booked_on);
GRANT SELECT ON ledger.bookings TO PUBLIC;
INSERT INTO clarify.concepts (id, kind, label, description, owner, status, window_start, window_end) VALUES
  ('metric.net_bookings', 'metric', 'Net bookings', 'Accepted orders less cancellations', 'Sales', 'approved', NULL, NULL),
  ('metric.booking_fees', 'metric', 'Booking fees', 'Fees charged per booking', 'Sales', 'approved', NULL, NULL),
  ('dim.sales_region', 'dimension', 'Sales region', 'Region of the selling office', 'Sales', 'approved', NULL, NULL),
  ('dim.delivery_region', 'dimension', 'Delivery region', 'Region the order ships to', 'Logistics', 'approved', NULL, NULL),
  ('window.q1_2026', 'time_window', 'Calendar Q1 2026', 'January to March 2026', 'Finance', 'approved', $$date '2026-01-01'$$, $$date '2026-04-01'$$),
  ('window.fiscal_q1_2026', 'time_window', 'Fiscal Q1 2026', 'February to April 2026', 'Finance', 'approved', $$date '2026-02-01'$$, $$date '2026-05-01'$$),
  ('window.last_30_days', 'time_window', 'Last 30 days', 'The 30 days before today', 'Finance', 'approved', 'current_date - 30', 'current_date');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name, time_column, requires_time_range) VALUES
  ('metric.net_bookings', 'ledger.bookings', 'amount', 'booked_on', true),
  ('metric.booking_fees', 'ledger.bookings', 'fee', 'booked_at', true),
  ('dim.sales_region', 'ledger.bookings', 'region', NULL, false),
  ('dim.delivery_region', 'ledger.bookings', 'region', NULL, false);
INSERT INTO clarify.terms (term, concept_id, impact) VALUES
  ('quarter', 'window.q1_2026', 'high'), ('quarter', 'window.fiscal_q1_2026', 'high'),
  ('recent', 'window.last_30_days', 'high'),
  ('region', 'dim.sales_region', 'low'), ('region', 'dim.delivery_region', 'low');

-- What the gate said about a statement's period: SQLSTATE, and the first slot's state and ranges.
CREATE FUNCTION public.period(sql text) RETURNS text LANGUAGE sql AS $$
  SELECT CASE WHEN g ? 'ok' THEN 'ok'
         ELSE concat_ws(' ', g->>'sqlstate', g->'detail'->'slots'->0->>'kind',
                        g->'detail'->'slots'->0->>'state',
                        'actual=' || (g->'detail'->'slots'->0->'actual')::text,
                        'expected=' || (g->'detail'->'slots'->0->'expected')::text) END
  FROM public.gate(sql) g $$;
RESET client_min_messages;
-- Errors show no DETAIL: it holds the decision id, which differs on every run.
\set VERBOSITY terse

SET ROLE regress_agent;
-- No period at all: asked, with the time windows as options and a business-language question.
SELECT gate('SELECT sum(amount) FROM ledger.bookings') - 'detail';
SELECT jsonb_path_query_array(gate('SELECT sum(amount) FROM ledger.bookings'),
                              '$.detail.slots[0].options[*].value');

-- Forms that bound the period on both sides (a required period is satisfied).
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE booked_on >= '2026-01-01' AND booked_on < '2026-04-01'$$);
SELECT clarify.last_decision()->'bindings'->0->'range';
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE booked_on BETWEEN '2026-01-01' AND '2026-03-31'$$);
SELECT clarify.last_decision()->'bindings'->0->'range';  -- d <= x counts as d < x + 1
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE booked_on > '2025-12-31' AND booked_on <= '2026-03-31'$$);
SELECT clarify.last_decision()->'bindings'->0->'range';
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE booked_on = '2026-02-14'$$);
SELECT clarify.last_decision()->'bindings'->0->'range';
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE '2026-01-01' <= booked_on AND '2026-04-01' > booked_on$$);
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE date_trunc('quarter', booked_on) = '2026-01-01'$$);
SELECT clarify.last_decision()->'bindings'->0->'range';
SELECT period($$SELECT sum(fee) FROM ledger.bookings WHERE date_trunc('month', booked_at) = '2026-02-01'$$);
SELECT clarify.last_decision()->'bindings'->0->'range';
-- A cast of the column counts as the column; on a date, <= x counts as < x + 1.
SELECT period($$SELECT sum(fee) FROM ledger.bookings WHERE booked_at::date BETWEEN '2026-01-01' AND '2026-03-31'$$);
SELECT clarify.last_decision()->'bindings'->0->'range';
-- A date compares with a timestamptz column as its midnight.
SELECT period($$SELECT sum(fee) FROM ledger.bookings WHERE booked_at >= date '2026-01-01' AND booked_at < date '2026-04-01'$$);
SELECT clarify.last_decision()->'bindings'->0->'range';
-- Stable expressions, evaluated once per execution.
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE booked_on >= current_date - 30 AND booked_on < current_date$$);
SELECT (clarify.last_decision()->'bindings'->0->'range'->>'end')::timestamptz = current_date::timestamptz;
-- Index conditions count like any other.
RESET ROLE;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET ROLE regress_agent;
EXPLAIN (COSTS OFF) SELECT sum(amount) FROM ledger.bookings WHERE booked_on >= '2026-01-01' AND booked_on < '2026-04-01';
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE booked_on >= '2026-01-01' AND booked_on < '2026-04-01'$$);
SELECT clarify.last_decision()->'bindings'->0->'range';
RESET ROLE;
RESET enable_seqscan;
SET enable_indexscan = off;
SET ROLE regress_agent;
EXPLAIN (COSTS OFF) SELECT sum(amount) FROM ledger.bookings WHERE booked_on >= '2026-01-01' AND booked_on < '2026-04-01';
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE booked_on >= '2026-01-01' AND booked_on < '2026-04-01'$$);
-- A partial index's predicate bounds the rows it returns: the planner leaves out the conditions
-- it implies, and they still count.
RESET ROLE;
RESET enable_indexscan;
CREATE INDEX bookings_q1_idx ON ledger.bookings (id) WHERE booked_on >= '2026-01-01' AND booked_on < '2026-04-01';
SET enable_seqscan = off;
SET ROLE regress_agent;
EXPLAIN (COSTS OFF) SELECT sum(amount) FROM ledger.bookings WHERE id > 40 AND booked_on >= '2026-01-01' AND booked_on < '2026-04-01';
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE id > 40 AND booked_on >= '2026-01-01' AND booked_on < '2026-04-01'$$);
SELECT clarify.last_decision()->'bindings'->0->'range';
RESET ROLE;
DROP INDEX ledger.bookings_q1_idx;
RESET enable_seqscan;
RESET enable_bitmapscan;
SET ROLE regress_agent;

-- Escapes that do not bound the period: each is asked about.
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE booked_on >= '2026-01-01'$$);
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE booked_on < '2026-04-01'$$);
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE booked_on <> '2000-01-01'$$);
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE 1 = 1$$);
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE booked_on IS NOT NULL$$);
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE booked_on >= '2026-01-01' OR booked_on < '2026-04-01'$$);
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE booked_on BETWEEN SYMMETRIC '2026-04-01' AND '2026-01-01'$$);
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE extract(year FROM booked_on) = 2026$$);
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE date_trunc('quarter', booked_on) >= '2026-01-01' AND date_trunc('quarter', booked_on) < '2026-04-01'$$);
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE booked_at >= '2026-01-01' AND booked_at < '2026-04-01'$$);  -- another column
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE booked_on >= random()::int + date '2026-01-01' AND booked_on < '2026-04-01'$$);  -- volatile
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE booked_on >= (SELECT min(order_date) FROM sales.orders) AND booked_on < '2026-04-01'$$);
-- A bound the executor could compute otherwise than the gate did restricts nothing: the agent's
-- own "stable" function (it answers the gate, then lies to the scan), text read as a date
-- (DateStyle may change while the statement runs) and a setting's value.
CREATE FUNCTION pg_temp.q1_start() RETURNS date LANGUAGE plpgsql STABLE AS $f$
BEGIN
  PERFORM set_config('regress.calls', (coalesce(nullif(current_setting('regress.calls', true), ''), '0')::int + 1)::text, false);
  RETURN CASE WHEN current_setting('regress.calls')::int <= 2 THEN date '2026-01-01' ELSE date '2000-01-01' END;
END $f$;
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE booked_on >= pg_temp.q1_start() AND booked_on < '2026-04-01'$$);
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE set_config('datestyle', 'ISO, DMY', true) IS NOT NULL AND booked_on >= ('01/01/2026'::text)::date AND booked_on < ('04/01/2026'::text)::date$$);
SET regress.start = '2026-01-01';
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE booked_on >= current_setting('regress.start')::date AND booked_on < '2026-04-01'$$);
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE booked_on >= to_date('01 2026', 'MM YYYY') AND booked_on < '2026-04-01'$$);
-- The statement's start moves when a cursor's FETCH runs the scan later.
SELECT period($$SELECT sum(fee) FROM ledger.bookings WHERE booked_at >= statement_timestamp() - interval '90 days' AND booked_at < statement_timestamp()$$);
-- A domain's check is code of the agent's too: check() must not run it, nor must the gate.
CREATE FUNCTION pg_temp.noisy(d date) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $f$
BEGIN RAISE NOTICE 'agent code ran on %', d; RETURN true; END $f$;
CREATE DOMAIN pg_temp.checked_date AS date CHECK (pg_temp.noisy(VALUE));
SELECT clarify.check($$SELECT sum(amount) FROM ledger.bookings WHERE booked_on >= '2026-01-01'::pg_temp.checked_date AND booked_on < '2026-04-01'$$)->>'state';
-- TimeZone cannot change while a statement whose period the gate read in it runs: not from
-- inside the statement, nor between a cursor's DECLARE and FETCH; once it is closed, it can.
SET timezone = 'UTC';
SELECT sum(fee) FROM ledger.bookings WHERE set_config('timezone', 'America/Anchorage', true) IS NOT NULL AND booked_at >= date '2026-01-01' AND booked_at < date '2026-04-01';
BEGIN;
DECLARE bookings_q1 CURSOR FOR SELECT sum(fee) FROM ledger.bookings WHERE booked_at >= date '2026-01-01' AND booked_at < date '2026-04-01';
SET LOCAL timezone = 'America/Anchorage';
ROLLBACK;
BEGIN;
DECLARE bookings_q1 CURSOR FOR SELECT sum(fee) FROM ledger.bookings WHERE booked_at >= date '2026-01-01' AND booked_at < date '2026-04-01';
FETCH ALL bookings_q1;
CLOSE bookings_q1;
SET LOCAL timezone = 'America/Anchorage';
SHOW timezone;
COMMIT;
-- An aborted cursor holds nothing.
BEGIN;
DECLARE bookings_q1 CURSOR FOR SELECT sum(fee) FROM ledger.bookings WHERE booked_at >= date '2026-01-01' AND booked_at < date '2026-04-01';
ROLLBACK;
SET timezone = 'America/Anchorage';
RESET timezone;
-- RESET and set_config(name, NULL) reach the session's default without the usual check: they
-- are refused too.
SET timezone = 'America/Anchorage';
BEGIN;
DECLARE bookings_q1 CURSOR FOR SELECT sum(fee) FROM ledger.bookings WHERE booked_at >= date '2026-01-01' AND booked_at < date '2026-04-01';
RESET timezone;
ROLLBACK;
SELECT sum(fee) FROM ledger.bookings WHERE coalesce(set_config('timezone', NULL, true), '') IS NOT NULL AND booked_at >= date '2026-01-01' AND booked_at < date '2026-04-01';
RESET timezone;
-- Two scans of the relation: both must be bounded.
SELECT period($$SELECT (SELECT sum(amount) FROM ledger.bookings WHERE booked_on >= '2026-01-01' AND booked_on < '2026-04-01'), (SELECT sum(amount) FROM ledger.bookings)$$);
-- Listing rows of a dated measure is still reading it.
SELECT period($$SELECT amount FROM ledger.bookings$$);

-- Prepared statements: the range is evaluated at each execution with the parameters bound,
-- under a custom and a generic plan.
PREPARE bounded(date, date) AS
  SELECT sum(amount) FROM ledger.bookings WHERE booked_on >= $1 AND booked_on < $2;
EXECUTE bounded('2026-01-01', '2026-04-01');
SELECT clarify.last_decision()->'bindings'->0->'range';
SET plan_cache_mode = force_generic_plan;
EXECUTE bounded('2026-02-01', '2026-05-01');
SELECT clarify.last_decision()->'bindings'->0->'range';
EXECUTE bounded('2026-02-01', NULL);
RESET plan_cache_mode;
PREPARE open_ended(date) AS SELECT sum(amount) FROM ledger.bookings WHERE booked_on >= $1;
EXECUTE open_ended('2026-01-01');

-- A bound window: the range must equal it.
SET pg_clarify.resolution = '{"question_id": "q_t1", "question": "Net bookings in Calendar Q1 2026", "bindings": [{"term": "quarter", "concept": "window.q1_2026", "source": "explicit"}]}';
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE booked_on >= '2026-01-01' AND booked_on < '2026-04-01'$$);
SELECT clarify.last_decision()->'bindings'->0;
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE booked_on >= '2026-02-01' AND booked_on < '2026-05-01'$$);
SELECT gate($$SELECT sum(amount) FROM ledger.bookings WHERE booked_on >= '2026-02-01' AND booked_on < '2026-05-01'$$) - 'detail';
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE booked_on >= '2026-01-01'$$);
EXECUTE bounded('2026-01-01', '2026-04-01');
EXECUTE bounded('2026-01-01', '2026-04-02');
-- The binding applies to any dated measure, required or not.
SELECT period($$SELECT sum(fee) FROM ledger.bookings WHERE booked_at >= '2026-01-01' AND booked_at < '2026-04-01'$$);
-- A relative window, evaluated now.
SET pg_clarify.resolution = '{"question_id": "q_t2", "question": "recent net bookings, Last 30 days", "bindings": [{"term": "recent", "concept": "window.last_30_days", "source": "explicit"}]}';
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE booked_on >= current_date - 30 AND booked_on < current_date$$);
SELECT split_part(period($$SELECT sum(amount) FROM ledger.bookings WHERE booked_on >= current_date - 31 AND booked_on < current_date$$), ' actual', 1);
-- An unverified claim about the period is UNVERIFIED.
SET pg_clarify.resolution = '{"question_id": "q_t3", "bindings": [{"term": "quarter", "concept": "window.fiscal_q1_2026", "source": "user_confirmation"}]}';
SELECT period($$SELECT sum(amount) FROM ledger.bookings WHERE booked_on >= '2026-02-01' AND booked_on < '2026-05-01'$$);
RESET pg_clarify.resolution;
-- check() decides the period the same way, without running the statement.
SELECT clarify.check($$SELECT sum(amount) FROM ledger.bookings WHERE booked_on >= '2026-01-01' AND booked_on < '2026-04-01'$$)->>'decision',
       clarify.check($$SELECT sum(amount) FROM ledger.bookings WHERE booked_on >= '2026-01-01'$$)->>'state';

-- Impact: the region (low) and the period (high) are both open; the period is asked first and
-- the HINT asks only that question.
SELECT g->'detail'->'slots' @? '$[0] ? (@.kind == "time_range" && @.impact == "high")' AS period_first,
       g->'detail'->'slots' @? '$[1] ? (@.kind == "dimension" && @.impact == "low")' AS region_second,
       g->>'hint'
  FROM gate($$SELECT region, sum(amount) FROM ledger.bookings GROUP BY region$$) g;
SELECT gate($$SELECT region FROM ledger.bookings$$)->>'hint';

-- assume_below: only a superuser sets it (or ALTER ROLE ... SET by one).
SET pg_clarify.assume_below = medium;
RESET ROLE;
ALTER ROLE regress_agent SET pg_clarify.assume_below = medium;
\c - regress_agent
SHOW pg_clarify.assume_below;
-- The low-impact region is assumed, with a WARNING; the high-impact period is still asked.
SET pg_clarify.resolution = '{"question_id": "q_t_assume", "bindings": []}';
SELECT count(DISTINCT region) FROM ledger.bookings;
SELECT clarify.last_decision()->'bindings';
RESET pg_clarify.resolution;
SELECT gate($$SELECT region, sum(amount) FROM ledger.bookings GROUP BY region$$)->'detail'->'slots';
SELECT region, sum(amount) FROM ledger.bookings WHERE booked_on BETWEEN '2026-01-01' AND '2026-01-05' GROUP BY region ORDER BY region;
-- Never where a default applies: a default for another meaning makes the read a MISMATCH.
\c - postgres
DELETE FROM clarify.concept_columns WHERE concept_id = 'dim.delivery_region';
ALTER TABLE ledger.bookings ADD COLUMN ship_region text;
INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES ('dim.delivery_region', 'ledger.bookings', 'ship_region');
-- (approved for the definition it has now: a remapping after it would make it stale, QC002)
INSERT INTO clarify.defaults (term, concept_id, approved_by) VALUES ('region', 'dim.delivery_region', 'Head of Sales');
\c - regress_agent
SELECT period($$SELECT region FROM ledger.bookings$$);
\c - postgres
DELETE FROM clarify.defaults WHERE term = 'region';
ALTER ROLE regress_agent RESET pg_clarify.assume_below;
SELECT clarify.audit_wait() AS caught_up \gset
SELECT decision, state, bindings->0->>'concept' AS concept, bindings->0->>'source' AS source,
       bindings->0->>'impact' AS impact
  FROM clarify.audit WHERE question_id = 'q_t_assume';
