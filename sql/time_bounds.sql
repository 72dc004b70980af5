-- Bounds whose value may move while the statement runs (docs/reference.md, "Time ranges and
-- impact"): the gate evaluates a bound once, the scan per row or at a cursor's FETCH. Only a
-- bound built of immutable functions and the allow-listed stable ones counts; any other leaves
-- its side of the period open, which a bound window refuses (MISMATCH).
SET client_min_messages = warning;
CREATE SCHEMA freight;
GRANT USAGE ON SCHEMA freight TO PUBLIC;
CREATE TABLE freight.shipments (id int PRIMARY KEY, shipped_on date, shipped_at timestamptz,
                                weight numeric, freight_value numeric)
  WITH (autovacuum_enabled = off);
INSERT INTO freight.shipments
  SELECT g, date '2026-06-01' + g, timestamptz '2026-06-01 12:00' + g * interval '1 day', g, g * 2
  FROM generate_series(1, 200) g;
GRANT SELECT ON freight.shipments TO PUBLIC;
INSERT INTO clarify.concepts (id, kind, label, description, owner, status, window_start, window_end) VALUES
  ('metric.shipped_weight', 'metric', 'Shipped weight', 'Weight of the goods shipped', 'Logistics', 'approved', NULL, NULL),
  ('metric.freight_value', 'metric', 'Freight value', 'Declared value of the goods shipped', 'Logistics', 'approved', NULL, NULL),
  ('window.q3_2026', 'time_window', 'Calendar Q3 2026', 'July to September 2026', 'Logistics', 'approved', $$date '2026-07-01'$$, $$date '2026-10-01'$$),
  ('window.running_quarter', 'time_window', 'Running quarter', 'The calendar quarter of today', 'Logistics', 'approved', $$date_trunc('quarter', now())$$, $$date_trunc('quarter', now()) + interval '3 months'$$);
INSERT INTO clarify.concept_columns (concept_id, relation, column_name, time_column, requires_time_range) VALUES
  ('metric.shipped_weight', 'freight.shipments', 'weight', 'shipped_on', true),
  ('metric.freight_value', 'freight.shipments', 'freight_value', 'shipped_at', true);
INSERT INTO clarify.terms (term, concept_id, impact) VALUES
  ('shipping period', 'window.q3_2026', 'high'), ('shipping period', 'window.running_quarter', 'high');
RESET client_min_messages;
-- Errors show no DETAIL: it holds the decision id, which differs on every run.
\set VERBOSITY terse

SET ROLE regress_agent;
SET pg_clarify.resolution = '{"question_id": "q_b1", "question": "Shipped weight in Calendar Q3 2026", "bindings": [{"term": "shipping period", "concept": "window.q3_2026", "source": "explicit"}]}';
-- The period asked for, with fixed dates: it runs.
SELECT max(shipped_on), sum(weight) FROM freight.shipments WHERE shipped_on >= date '2026-07-01' AND shipped_on < date '2026-10-01';
-- A bound that moves once the transaction has an id, which the target list gives it at the
-- first row: the gate saw October 1st, the scan would read to January.
SELECT count(pg_current_xact_id()), max(shipped_on), sum(weight) FROM freight.shipments
  WHERE shipped_on >= date '2026-07-01'
    AND shipped_on < date '2026-10-01' + (pg_current_xact_id_if_assigned() IS NOT NULL)::int * 92;
SELECT count(txid_current()), max(shipped_on), sum(weight) FROM freight.shipments
  WHERE shipped_on >= date '2026-07-01'
    AND shipped_on < date '2026-10-01' + (txid_current_if_assigned() IS NOT NULL)::int * 92;
-- A cursor declared before the transaction has an id and fetched after.
BEGIN;
DECLARE moving CURSOR FOR SELECT max(shipped_on), sum(weight) FROM freight.shipments
  WHERE shipped_on >= date '2026-07-01'
    AND shipped_on < date '2026-10-01' + (pg_current_xact_id_if_assigned() IS NOT NULL)::int * 92;
SELECT pg_current_xact_id() IS NOT NULL AS has_id;
FETCH ALL moving;
ROLLBACK;
-- Statistics read afresh at every call (stats_fetch_consistency = none), and an ANALYZE
-- between DECLARE and FETCH.
SET stats_fetch_consistency = none;
BEGIN;
DECLARE analyzed CURSOR FOR SELECT max(shipped_on), sum(weight) FROM freight.shipments
  WHERE shipped_on >= date '2026-07-01'
    AND shipped_on < date '2026-10-01' + least(pg_stat_get_analyze_count('freight.shipments'::regclass), 1)::int * 92;
RESET ROLE;
ANALYZE freight.shipments;
SET ROLE regress_agent;
FETCH ALL analyzed;
ROLLBACK;
RESET stats_fetch_consistency;
-- Other functions whose value is not fixed for the statement: volatile, stable but not on the
-- allow list (the configuration's load time moves at a reload), and AT TIME ZONE of a computed
-- time (a zone abbreviation follows timezone_abbreviations, which may change meanwhile).
SELECT period($$SELECT sum(weight) FROM freight.shipments WHERE shipped_on >= date '2026-07-01' AND shipped_on < date '2026-10-01' + (clock_timestamp() < '2000-01-01')::int$$);
SELECT period($$SELECT sum(weight) FROM freight.shipments WHERE shipped_on >= date '2026-07-01' AND shipped_on < date '2026-10-01' + (pg_conf_load_time() > now())::int * 92$$);
SELECT period($$SELECT sum(freight_value) FROM freight.shipments WHERE shipped_at >= date '2026-07-01' AND shipped_at < timezone('IST', timestamp '2026-10-01' + (now() - now()))$$);

-- What keeps working: a cursor with fixed bounds, fetched after the transaction got an id and
-- after an ANALYZE.
BEGIN;
DECLARE fixed CURSOR FOR SELECT max(shipped_on), sum(weight) FROM freight.shipments
  WHERE shipped_on >= date '2026-07-01' AND shipped_on < date '2026-10-01';
SELECT pg_current_xact_id() IS NOT NULL AS has_id;
RESET ROLE;
ANALYZE freight.shipments;
SET ROLE regress_agent;
FETCH ALL fixed;
COMMIT;
-- Parameters of prepared statements, custom and generic plans.
PREPARE shipped(date, date) AS
  SELECT max(shipped_on), sum(weight) FROM freight.shipments WHERE shipped_on >= $1 AND shipped_on < $2;
EXECUTE shipped('2026-07-01', '2026-10-01');
SET plan_cache_mode = force_generic_plan;
EXECUTE shipped('2026-07-01', '2026-10-01');
EXECUTE shipped('2026-07-01', '2026-10-02');
RESET plan_cache_mode;
DEALLOCATE shipped;
-- PL/pgSQL variables are a statement's parameters: a loop or a cursor whose variable changes
-- after the statement started reads the period it was opened with (the portal keeps the values).
CREATE FUNCTION pg_temp.q3_loop() RETURNS text LANGUAGE plpgsql AS $f$
DECLARE stop date := '2026-10-01'; r record; n int := 0; last date;
BEGIN
  FOR r IN SELECT shipped_on, weight FROM freight.shipments WHERE shipped_on >= '2026-07-01' AND shipped_on < stop ORDER BY id LOOP
    stop := '2026-12-31'; n := n + 1; last := r.shipped_on;
  END LOOP;
  RETURN n || ' rows to ' || last;
END $f$;
SELECT pg_temp.q3_loop();
CREATE FUNCTION pg_temp.q3_cursor() RETURNS text LANGUAGE plpgsql AS $f$
DECLARE stop date := '2026-10-01'; c refcursor; r record; n int := 0; last date;
BEGIN
  OPEN c FOR SELECT shipped_on, weight FROM freight.shipments WHERE shipped_on >= '2026-07-01' AND shipped_on < stop ORDER BY id;
  stop := '2026-12-31';
  LOOP FETCH c INTO r; EXIT WHEN NOT FOUND; n := n + 1; last := r.shipped_on; END LOOP;
  RETURN n || ' rows to ' || last;
END $f$;
SELECT pg_temp.q3_cursor();
-- Bounds from the transaction's start: now(), CURRENT_TIMESTAMP, transaction_timestamp(),
-- CURRENT_DATE and LOCALTIMESTAMP, with date_trunc, intervals and casts (TimeZone is held).
SET pg_clarify.resolution = '{"question_id": "q_b2", "question": "Freight value in the Running quarter", "bindings": [{"term": "shipping period", "concept": "window.running_quarter", "source": "explicit"}]}';
SELECT period($$SELECT sum(freight_value) FROM freight.shipments WHERE shipped_at >= date_trunc('quarter', now()) AND shipped_at < date_trunc('quarter', now()) + interval '3 months'$$);
SELECT period($$SELECT sum(freight_value) FROM freight.shipments WHERE shipped_at >= date_trunc('quarter', CURRENT_TIMESTAMP) AND shipped_at < date_trunc('quarter', transaction_timestamp()) + interval '3 months'$$);
SELECT period($$SELECT sum(freight_value) FROM freight.shipments WHERE shipped_at >= date_trunc('quarter', LOCALTIMESTAMP) AND shipped_at < date_trunc('quarter', LOCALTIMESTAMP) + interval '3 months'$$);
SELECT period($$SELECT sum(weight) FROM freight.shipments WHERE shipped_on >= date_trunc('quarter', CURRENT_DATE)::date AND shipped_on < (date_trunc('quarter', CURRENT_DATE) + interval '3 months')::date$$);
SELECT period($$SELECT sum(freight_value) FROM freight.shipments WHERE date_trunc('quarter', shipped_at) = date_trunc('quarter', now())$$);
-- statement_timestamp() moves at a cursor's FETCH: it does not count.
SELECT g->>'sqlstate' AS sqlstate, g->'detail'->'slots'->0->'actual'->'start' AS actual_start
  FROM gate($$SELECT sum(freight_value) FROM freight.shipments WHERE shipped_at >= date_trunc('quarter', statement_timestamp()) AND shipped_at < date_trunc('quarter', now()) + interval '3 months'$$) g;
-- A cursor of the running quarter, fetched after the transaction got an id.
BEGIN;
DECLARE running CURSOR FOR SELECT coalesce(sum(freight_value), 0) >= 0 AS fetched FROM freight.shipments
  WHERE shipped_at >= date_trunc('quarter', now()) AND shipped_at < date_trunc('quarter', now()) + interval '3 months';
SELECT pg_current_xact_id() IS NOT NULL AS has_id;
FETCH ALL running;
COMMIT;
-- A cursor WITH HOLD runs to its end before its transaction commits: the same now().
DECLARE held CURSOR WITH HOLD FOR SELECT coalesce(sum(freight_value), 0) >= 0 AS fetched FROM freight.shipments
  WHERE shipped_at >= date_trunc('quarter', now()) AND shipped_at < date_trunc('quarter', now()) + interval '3 months';
FETCH ALL held;
CLOSE held;
-- Without a bound window: a period from now() bounds both sides.
RESET pg_clarify.resolution;
SELECT period($$SELECT sum(freight_value) FROM freight.shipments WHERE shipped_at >= now() - interval '90 days' AND shipped_at < now()$$);
SELECT period($$SELECT sum(weight) FROM freight.shipments WHERE shipped_on >= current_date - 30 AND shipped_on < current_date$$);
RESET ROLE;
-- The fixture goes: later tests see the catalog as before.
SET client_min_messages = warning;
DELETE FROM clarify.terms WHERE term = 'shipping period';
DELETE FROM clarify.concept_columns WHERE relation = 'freight.shipments'::regclass;
DELETE FROM clarify.concepts WHERE id IN ('metric.shipped_weight', 'metric.freight_value', 'window.q3_2026', 'window.running_quarter');
DROP SCHEMA freight CASCADE;
RESET client_min_messages;
