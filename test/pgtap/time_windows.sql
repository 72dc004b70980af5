-- Time windows, dated measures and impacts: what a bad row is refused with, and what is kept.
BEGIN;
SELECT plan(22);

CREATE SCHEMA regress_tw;
CREATE TABLE regress_tw.sales (id int, sold_on date, sold_at timestamptz, sold_local timestamp,
                               note text, amount numeric);
INSERT INTO clarify.concepts (id, kind, label, status) VALUES
    ('metric.regress_tw_amount', 'metric', 'Amount sold', 'approved');

-- Time windows.
SELECT lives_ok(
    $$INSERT INTO clarify.concepts (id, kind, label, window_start, window_end)
      VALUES ('window.regress_last_quarter', 'time_window', 'Last quarter',
              $w$date_trunc('quarter', now()) - interval '3 months'$w$, $w$date_trunc('quarter', now())$w$)$$,
    'a time window with timestamptz bounds is accepted');
SELECT lives_ok(
    $$INSERT INTO clarify.concepts (id, kind, label, window_start, window_end)
      VALUES ('window.regress_last_30', 'time_window', 'Last 30 days', 'current_date - 30', 'current_date')$$,
    'a time window with date bounds is accepted');
SELECT throws_ok(
    $$INSERT INTO clarify.concepts (id, kind, label) VALUES ('window.regress_none', 'time_window', 'No bounds')$$,
    '23502', 'time window "window.regress_none" needs both window_start and window_end',
    'a time window without bounds is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.concepts (id, kind, label, window_start) VALUES ('window.regress_half', 'time_window', 'Half', 'now()')$$,
    '23502', 'time window "window.regress_half" needs both window_start and window_end',
    'a time window with one bound is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.concepts (id, kind, label, window_start, window_end)
      VALUES ('window.regress_volatile', 'time_window', 'Volatile', 'clock_timestamp()', 'now()')$$,
    '22023', 'window_start calls a volatile function: a period must mean the same all statement long',
    'a bound calling a volatile function is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.concepts (id, kind, label, window_start, window_end)
      VALUES ('window.regress_fails', 'time_window', 'Fails', 'now()', $w$'not a date'::date$w$)$$,
    '22007', NULL, 'a bound that fails to evaluate is refused with its error');
SELECT throws_ok(
    $$INSERT INTO clarify.concepts (id, kind, label, window_start, window_end)
      VALUES ('window.regress_text', 'time_window', 'Text', $w$'2026-01-01'$w$, 'now()')$$,
    '42804', 'window_start must be of type date or timestamp with time zone, not text',
    'a bound of another type is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.concepts (id, kind, label, window_start, window_end)
      VALUES ('window.regress_sql', 'time_window', 'Injected', 'now()) FROM pg_class WHERE (true', 'now()')$$,
    '22023', 'window_start is not a single SQL expression',
    'a bound that is not one expression is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.concepts (id, kind, label, window_start, window_end)
      VALUES ('window.regress_sub', 'time_window', 'Subquery', '(SELECT now())', 'now()')$$,
    '22023', 'window_start must not contain a subquery, an aggregate or a set-returning function',
    'a bound with a subquery is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.concepts (id, kind, label, window_start, window_end)
      VALUES ('window.regress_null', 'time_window', 'Null', 'NULL::date', 'now()')$$,
    '22023', 'window_start of time window "window.regress_null" evaluates to NULL or infinity',
    'a bound that evaluates to NULL is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.concepts (id, kind, label, window_start) VALUES ('metric.regress_bounded', 'metric', 'Bounded', 'now()')$$,
    '22023', 'concept "metric.regress_bounded" is a metric, not a time window: window_start and window_end must be NULL',
    'only time windows have bounds');
SELECT throws_ok(
    $$UPDATE clarify.concepts SET window_end = 'random()::int + current_date' WHERE id = 'window.regress_last_30'$$,
    '22023', 'window_end calls a volatile function: a period must mean the same all statement long',
    'an update is checked too');
UPDATE clarify.concepts SET window_end = 'current_date + 1' WHERE id = 'window.regress_last_30';
SELECT is((SELECT version FROM clarify.concepts WHERE id = 'window.regress_last_30'), 2,
          'changing a bound gives the window a new version');

-- Dated measures.
SELECT lives_ok(
    $$INSERT INTO clarify.concept_columns (concept_id, relation, column_name, time_column, requires_time_range)
      VALUES ('metric.regress_tw_amount', 'regress_tw.sales', 'amount', 'sold_on', true)$$,
    'a date time column is accepted');
SELECT lives_ok(
    $$UPDATE clarify.concept_columns SET time_column = 'sold_local' WHERE concept_id = 'metric.regress_tw_amount'$$,
    'a timestamp time column is accepted');
SELECT throws_ok(
    $$UPDATE clarify.concept_columns SET time_column = 'missing' WHERE concept_id = 'metric.regress_tw_amount'$$,
    '42703', 'time column "missing" does not exist in relation "regress_tw.sales"',
    'a time column that does not exist is refused');
SELECT throws_ok(
    $$UPDATE clarify.concept_columns SET time_column = 'note' WHERE concept_id = 'metric.regress_tw_amount'$$,
    '42804', 'time column "note" of relation "regress_tw.sales" is of type text, not date or timestamp',
    'a time column that is not a date or timestamp is refused');
SELECT throws_ok(
    $$UPDATE clarify.concept_columns SET time_column = NULL WHERE concept_id = 'metric.regress_tw_amount'$$,
    '22023', 'requires_time_range needs a time_column: the gate cannot tell which period amount of regress_tw.sales covers',
    'a required period without a time column is refused');
SELECT is((SELECT requires_time_range FROM clarify.concept_columns
            WHERE concept_id = 'metric.regress_tw_amount'), true, 'the refused updates changed nothing');

-- Impact.
SELECT is((SELECT impact FROM clarify.terms WHERE term = 'regress_tw'), NULL,
          'no term yet');
INSERT INTO clarify.terms (term, concept_id) VALUES ('regress_tw', 'metric.regress_tw_amount');
SELECT is((SELECT impact FROM clarify.terms WHERE term = 'regress_tw'), 'high', 'a term has high impact by default');
SELECT throws_ok(
    $$UPDATE clarify.terms SET impact = 'huge' WHERE term = 'regress_tw'$$,
    '23514', 'impact of term "regress_tw" must be low, medium or high, not "huge"',
    'an impact outside low, medium and high is refused');

SELECT * FROM finish();
ROLLBACK;
