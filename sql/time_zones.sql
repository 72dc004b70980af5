-- Time zones (docs/reference.md, "Units and time zones"): a time window with window_time_zone has
-- its bounds evaluated in that zone; the statement's range is still read in the session's zone;
-- both compare as instants, across a DST change too.
SET client_min_messages = warning;
CREATE SCHEMA tz;
GRANT USAGE ON SCHEMA tz TO PUBLIC;
CREATE TABLE tz.sales (id int PRIMARY KEY, sold_at timestamptz, amount numeric);
INSERT INTO tz.sales SELECT g, timestamptz '2026-01-01 00:00+00' + g * interval '1 day', g
FROM generate_series(1, 300) g;
GRANT SELECT ON tz.sales TO PUBLIC;
INSERT INTO clarify.concepts (id, kind, label, description, owner, status, window_start, window_end, window_time_zone) VALUES
  ('metric.tz_sales', 'metric', 'Store sales', 'Till receipts', 'Retail', 'approved', NULL, NULL, NULL),
  ('window.tz_q3_tokyo', 'time_window', 'Q3 2026 in Tokyo', 'July to September 2026, Tokyo time', 'Finance', 'approved',
   $$date '2026-07-01'$$, $$date '2026-10-01'$$, 'Asia/Tokyo'),
  ('window.tz_march_ny', 'time_window', 'March 2026 in New York', 'March 2026, New York time', 'Finance', 'approved',
   $$date '2026-03-01'$$, $$date '2026-04-01'$$, 'America/New_York'),
  ('window.tz_july_month', 'time_window', 'The month of 15 July 2026 in Tokyo', 'Its calendar month, Tokyo time', 'Finance', 'approved',
   $$date_trunc('month', timestamptz '2026-07-15 12:00+00')$$, $$date_trunc('month', timestamptz '2026-07-15 12:00+00') + interval '1 month'$$, 'Asia/Tokyo');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name, time_column) VALUES
  ('metric.tz_sales', 'tz.sales', 'amount', 'sold_at');
INSERT INTO clarify.terms (term, concept_id) VALUES
  ('store sales', 'metric.tz_sales'), ('tokyo q3', 'window.tz_q3_tokyo'),
  ('ny march', 'window.tz_march_ny'), ('tokyo july', 'window.tz_july_month');

-- A date column, and a window without a zone whose bounds are Tokyo's midnights (its days are
-- read in the session's zone).
CREATE TABLE tz.visits (id int PRIMARY KEY, visited_on date, spend numeric);
INSERT INTO tz.visits SELECT g, date '2026-01-01' + g, g FROM generate_series(1, 300) g;
GRANT SELECT ON tz.visits TO PUBLIC;
INSERT INTO clarify.concepts (id, kind, label, description, owner, status, window_start, window_end, window_time_zone) VALUES
  ('metric.tz_spend', 'metric', 'Visit spend', 'Spend per visit day', 'Retail', 'approved', NULL, NULL, NULL),
  ('window.tz_q3_tokyo_clock', 'time_window', 'Q3 2026 on Tokyo''s clock', '', 'Finance', 'approved',
   $$timestamptz '2026-07-01 00:00+09'$$, $$timestamptz '2026-10-01 00:00+09'$$, NULL);
INSERT INTO clarify.concept_columns (concept_id, relation, column_name, time_column) VALUES
  ('metric.tz_spend', 'tz.visits', 'spend', 'visited_on');
INSERT INTO clarify.terms (term, concept_id) VALUES
  ('visit spend', 'metric.tz_spend'), ('q3', 'window.tz_q3_tokyo'), ('q3', 'window.tz_q3_tokyo_clock');

CREATE FUNCTION public.zoned(sql text) RETURNS text LANGUAGE sql AS $$
  SELECT CASE WHEN g ? 'ok' THEN 'ok'
         ELSE concat_ws(' ', g->>'sqlstate', g->'detail'->'slots'->0->>'kind',
                        'actual=' || (g->'detail'->'slots'->0->'actual')::text,
                        'expected=' || (g->'detail'->'slots'->0->'expected')::text) END
  FROM public.gate(sql) g $$;
GRANT EXECUTE ON FUNCTION public.zoned(text) TO PUBLIC;
-- What people read: the HINT (up to its options when they are every window of the catalog: the
-- other files' too), and each option's period.
CREATE FUNCTION public.zoned_words(sql text) RETURNS TABLE (said text) LANGUAGE sql AS $$
  SELECT CASE WHEN g->>'sqlstate' = 'QC003' THEN substring(g->>'hint' FROM '^.*computed\?')
              ELSE g->>'hint' END
  FROM public.gate(sql) g
  UNION ALL
  SELECT o->>'value' || ': ' || (o->>'period') || ' ' || (o->'range')::text
  FROM public.gate(sql) g, jsonb_array_elements(g->'detail'->'slots'->0->'options') o
  WHERE o ? 'period' $$;
GRANT EXECUTE ON FUNCTION public.zoned_words(text) TO PUBLIC;
RESET client_min_messages;
\set VERBOSITY terse

SET ROLE regress_agent;
-- A window in Asia/Tokyo evaluated for a New York session: Tokyo's midnights, whatever the
-- session's zone; the statement's literals are read in New York.
SET TimeZone = 'America/New_York';
SET pg_clarify.resolution = '{"question_id": "q_tz1", "question": "Store sales in Q3 2026 in Tokyo", "bindings": [{"term": "tokyo q3", "concept": "window.tz_q3_tokyo", "source": "explicit"}]}';
SELECT zoned($$SELECT sum(amount) FROM tz.sales WHERE sold_at >= '2026-07-01 00:00+09' AND sold_at < '2026-10-01 00:00+09'$$) AS tokyo_offsets;
SELECT zoned($$SELECT sum(amount) FROM tz.sales WHERE sold_at >= '2026-06-30 11:00' AND sold_at < '2026-09-30 11:00'$$) AS new_york_clock;
SELECT zoned($$SELECT sum(amount) FROM tz.sales WHERE sold_at >= '2026-07-01' AND sold_at < '2026-10-01'$$) AS new_york_midnights;
-- People read the window's days in its zone; the statement's range beside it, on Tokyo's clock.
SELECT zoned_words($$SELECT sum(amount) FROM tz.sales WHERE sold_at >= '2026-07-01' AND sold_at < '2026-10-01'$$);

-- A date column compares as days in the window's zone (§16): Tokyo's Q3 is 1 Jul – 30 Sep
-- whatever the session's zone, and the statement's dates are those days.
SET pg_clarify.resolution = '{"question_id": "q_tz4", "question": "Visit spend in Q3 2026 in Tokyo", "bindings": [{"term": "tokyo q3", "concept": "window.tz_q3_tokyo", "source": "explicit"}]}';
SELECT zoned($$SELECT sum(spend) FROM tz.visits WHERE visited_on >= '2026-07-01' AND visited_on < '2026-10-01'$$) AS tokyo_days;
SELECT zoned($$SELECT sum(spend) FROM tz.visits WHERE visited_on BETWEEN '2026-07-01' AND '2026-09-30'$$) AS between_days;
SELECT zoned($$SELECT sum(spend) FROM tz.visits WHERE visited_on >= timestamptz '2026-07-01 00:00+09' AND visited_on < date '2026-10-01'$$) AS tokyo_instant_start;
SELECT zoned($$SELECT sum(spend) FROM tz.visits WHERE visited_on >= '2026-06-30' AND visited_on < '2026-10-01'$$) AS start_a_day_early;
SELECT zoned($$SELECT sum(spend) FROM tz.visits WHERE visited_on >= '2026-07-02' AND visited_on < '2026-10-01'$$) AS start_a_day_late;
SELECT zoned($$SELECT sum(spend) FROM tz.visits WHERE visited_on >= '2026-07-01' AND visited_on < '2026-09-30'$$) AS end_a_day_early;
SELECT zoned($$SELECT sum(spend) FROM tz.visits WHERE visited_on >= '2026-07-01' AND visited_on <= '2026-10-01'$$) AS end_a_day_late;
-- Its days, read in the session's zone, beside the window's.
SELECT zoned_words($$SELECT sum(spend) FROM tz.visits WHERE visited_on >= '2026-07-02' AND visited_on < '2026-10-01'$$);
-- Two windows of one term: each option's days in its own zone (the one without a zone in the
-- session's: Tokyo's midnights are 11:00 in New York).
SET pg_clarify.resolution = '{"question_id": "q_tz5", "question": "Visit spend in q3"}';
SELECT zoned_words($$SELECT sum(spend) FROM tz.visits$$);

-- A bound computed from now-like expressions is evaluated in the window's zone too.
SET pg_clarify.resolution = '{"question_id": "q_tz2", "question": "Store sales in The month of 15 July 2026 in Tokyo", "bindings": [{"term": "tokyo july", "concept": "window.tz_july_month", "source": "explicit"}]}';
SELECT zoned($$SELECT sum(amount) FROM tz.sales WHERE sold_at >= '2026-07-01 00:00+09' AND sold_at < '2026-08-01 00:00+09'$$) AS tokyo_month;

-- A window spanning a DST change (New York moves to summer time on 8 March 2026), for a UTC
-- session: its start is 05:00 UTC, its end 04:00 UTC.
SET TimeZone = 'UTC';
SET pg_clarify.resolution = '{"question_id": "q_tz3", "question": "Store sales in March 2026 in New York", "bindings": [{"term": "ny march", "concept": "window.tz_march_ny", "source": "explicit"}]}';
SELECT zoned($$SELECT sum(amount) FROM tz.sales WHERE sold_at >= '2026-03-01 05:00' AND sold_at < '2026-04-01 04:00'$$) AS across_dst;
SELECT zoned($$SELECT sum(amount) FROM tz.sales WHERE sold_at >= '2026-03-01 05:00' AND sold_at < '2026-04-01 05:00'$$) AS one_offset_all_month;
SET TimeZone = 'America/New_York';
SELECT zoned($$SELECT sum(amount) FROM tz.sales WHERE sold_at >= '2026-03-01' AND sold_at < '2026-04-01'$$) AS new_york_session;
RESET pg_clarify.resolution;
RESET TimeZone;
RESET ROLE;

-- Bad input refused: a zone that does not exist, a zone on a metric.
UPDATE clarify.concepts SET window_time_zone = 'Mars/Olympus_Mons' WHERE id = 'window.tz_q3_tokyo';
UPDATE clarify.concepts SET window_time_zone = 'Asia/Tokyo' WHERE id = 'metric.tz_sales';
-- A zone is part of what the window means: changing it raises the version.
SELECT version AS before FROM clarify.concepts WHERE id = 'window.tz_q3_tokyo' \gset
UPDATE clarify.concepts SET window_time_zone = 'Europe/Paris' WHERE id = 'window.tz_q3_tokyo';
SELECT version - :before AS raised_by_zone FROM clarify.concepts WHERE id = 'window.tz_q3_tokyo';

DROP FUNCTION public.zoned(text);
DROP FUNCTION public.zoned_words(text);
DELETE FROM clarify.terms WHERE concept_id LIKE '%.tz_%';
DELETE FROM clarify.concept_columns WHERE concept_id LIKE '%.tz_%';
DELETE FROM clarify.concepts WHERE id LIKE '%.tz_%';
DROP SCHEMA tz CASCADE;
