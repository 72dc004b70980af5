-- Concepts: what a bad row is refused with, when the version moves, and what "eligible" means.
BEGIN;
SELECT plan(51);

-- Defaults of a minimal concept.
SELECT lives_ok(
    $$INSERT INTO clarify.concepts (id, kind, label) VALUES ('metric.regress_minimal', 'metric', 'Minimal')$$,
    'a concept needs only id, kind and label');
SELECT results_eq(
    $$SELECT description, owner, status, available, version, aliases, valid_from, valid_until
        FROM clarify.concepts WHERE id = 'metric.regress_minimal'$$,
    $$VALUES ('', '', 'draft', true, 1, '{}'::text[], NULL::timestamptz, NULL::timestamptz)$$,
    'a new concept is a draft, available, version 1, without aliases or validity bounds');

-- Refusals.
SELECT throws_ok(
    $$INSERT INTO clarify.concepts (id, kind, label) VALUES ('', 'metric', 'Empty id')$$,
    '23514', 'new row for relation "concepts" violates check constraint "concepts_id_check"',
    'an empty id is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.concepts (id, kind, label) VALUES (' metric.regress_padded', 'metric', 'Padded')$$,
    '23514', 'new row for relation "concepts" violates check constraint "concepts_id_check"',
    'an id with surrounding blanks is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.concepts (id, kind, label) VALUES (E'metric.regress_tab\t', 'metric', 'Tab')$$,
    '23514', 'new row for relation "concepts" violates check constraint "concepts_id_check"',
    'an id with trailing white space is refused');
SELECT lives_ok(
    $$INSERT INTO clarify.concepts (id, kind, label) VALUES ('m', 'metric', 'One letter')$$,
    'a one-character id is fine');
DELETE FROM clarify.concepts WHERE id = 'm';
SELECT throws_ok(
    $$INSERT INTO clarify.concepts (id, kind, label) VALUES (NULL, 'metric', 'No id')$$,
    '23502', NULL, 'a NULL id is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.concepts (id, kind, label) VALUES ('metric.regress_minimal', 'metric', 'Again')$$,
    '23505', 'duplicate key value violates unique constraint "concepts_pkey"',
    'a duplicate id is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.concepts (id, kind, label) VALUES ('metric.regress_kpi', 'kpi', 'KPI')$$,
    '23514', 'concept "metric.regress_kpi": kind "kpi" is not one of metric, dimension, time_window, segment',
    'kind must be metric, dimension, time_window or segment (the message lists them)');
SELECT throws_ok(
    $$INSERT INTO clarify.concepts (id, kind, label) VALUES ('metric.regress_nokind', NULL, 'No kind')$$,
    '23502', 'null value in column "kind" of relation "concepts" violates not-null constraint',
    'kind is required');
SELECT throws_ok(
    $$INSERT INTO clarify.concepts (id, kind, label) VALUES ('metric.regress_nolabel', 'metric', '')$$,
    '23514', 'new row for relation "concepts" violates check constraint "concepts_label_check"',
    'an empty label is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.concepts (id, kind, label) VALUES ('metric.regress_blanklabel', 'metric', E' \t\n')$$,
    '23514', 'new row for relation "concepts" violates check constraint "concepts_label_check"',
    'a blank label is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.concepts (id, kind, label, status) VALUES ('metric.regress_live', 'metric', 'Live', 'live')$$,
    '23514', 'concept "metric.regress_live": status "live" is not one of draft, approved, deprecated',
    'status must be draft, approved or deprecated');
SELECT throws_ok(
    $$INSERT INTO clarify.concepts (id, kind, label, version) VALUES ('metric.regress_v0', 'metric', 'V0', 0)$$,
    '23514', 'new row for relation "concepts" violates check constraint "concepts_version_check"',
    'version starts at 1');
SELECT throws_ok(
    $$INSERT INTO clarify.concepts (id, kind, label, valid_from, valid_until)
      VALUES ('metric.regress_backwards', 'metric', 'Backwards', '2024-02-01', '2024-01-01')$$,
    '23514', 'new row for relation "concepts" violates check constraint "concepts_validity_check"',
    'a validity period that ends before it starts is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.concepts (id, kind, label, valid_from, valid_until)
      VALUES ('metric.regress_instant', 'metric', 'Instant', '2024-01-01', '2024-01-01')$$,
    '23514', 'new row for relation "concepts" violates check constraint "concepts_validity_check"',
    'an empty validity period is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.concepts (id, kind, label, aliases)
      VALUES ('metric.regress_nullalias', 'metric', 'Null alias', ARRAY['ok', NULL])$$,
    '23514', 'new row for relation "concepts" violates check constraint "concepts_aliases_check"',
    'a NULL alias is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.concepts (id, kind, label, aliases)
      VALUES ('metric.regress_emptyalias', 'metric', 'Empty alias', ARRAY['ok', ''])$$,
    '23514', 'new row for relation "concepts" violates check constraint "concepts_aliases_check"',
    'an empty alias is refused');
SELECT throws_ok(
    $$UPDATE clarify.concepts SET status = 'retired' WHERE id = 'metric.regress_minimal'$$,
    '23514', 'concept "metric.regress_minimal": status "retired" is not one of draft, approved, deprecated',
    'updates are checked too');
SELECT is((SELECT count(*)::int FROM clarify.concepts WHERE id LIKE '%regress%'), 1,
          'no refused row was stored');
SELECT lives_ok(
    $$INSERT INTO clarify.concepts (id, kind, label, valid_from) VALUES ('dim.regress_open_end', 'dimension', 'Open end', '2024-01-01')$$,
    'one validity bound alone is fine');

-- Version: every change of meaning makes a new version (contract §18; sql/versions.sql has the
-- whole list); status, availability, validity, aliases, owner and kind are not meaning.
INSERT INTO clarify.concepts (id, kind, label) VALUES ('metric.regress_v', 'metric', 'Versioned');
UPDATE clarify.concepts SET kind = 'dimension' WHERE id = 'metric.regress_v';
SELECT is((SELECT version FROM clarify.concepts WHERE id = 'metric.regress_v'), 1,
          'changing kind keeps the version');
UPDATE clarify.concepts SET label = 'Versioned, renamed' WHERE id = 'metric.regress_v';
SELECT is((SELECT version FROM clarify.concepts WHERE id = 'metric.regress_v'), 2,
          'changing label bumps the version');
UPDATE clarify.concepts SET description = 'Now described' WHERE id = 'metric.regress_v';
SELECT is((SELECT version FROM clarify.concepts WHERE id = 'metric.regress_v'), 3,
          'changing description bumps the version');
UPDATE clarify.concepts SET owner = 'Finance' WHERE id = 'metric.regress_v';
SELECT is((SELECT version FROM clarify.concepts WHERE id = 'metric.regress_v'), 3,
          'changing owner keeps the version');
UPDATE clarify.concepts SET status = 'approved' WHERE id = 'metric.regress_v';
SELECT is((SELECT version FROM clarify.concepts WHERE id = 'metric.regress_v'), 3,
          'changing status keeps the version');
UPDATE clarify.concepts SET available = false WHERE id = 'metric.regress_v';
SELECT is((SELECT version FROM clarify.concepts WHERE id = 'metric.regress_v'), 3,
          'changing available keeps the version');
UPDATE clarify.concepts SET aliases = ARRAY['versioned thing'] WHERE id = 'metric.regress_v';
SELECT is((SELECT version FROM clarify.concepts WHERE id = 'metric.regress_v'), 3,
          'changing aliases keeps the version');
UPDATE clarify.concepts SET valid_from = '2020-01-01' WHERE id = 'metric.regress_v';
SELECT is((SELECT version FROM clarify.concepts WHERE id = 'metric.regress_v'), 3,
          'changing valid_from keeps the version');
UPDATE clarify.concepts SET valid_until = '2999-01-01' WHERE id = 'metric.regress_v';
SELECT is((SELECT version FROM clarify.concepts WHERE id = 'metric.regress_v'), 3,
          'changing valid_until keeps the version');

UPDATE clarify.concepts SET label = label, description = description WHERE id = 'metric.regress_v';
SELECT is((SELECT version FROM clarify.concepts WHERE id = 'metric.regress_v'), 3,
          'an update that changes nothing keeps the version');
UPDATE clarify.concepts SET available = true, version = 42 WHERE id = 'metric.regress_v';
SELECT is((SELECT version FROM clarify.concepts WHERE id = 'metric.regress_v'), 42,
          'an update that raises the version itself is obeyed');
SELECT throws_ok(
    $$UPDATE clarify.concepts SET version = 7 WHERE id = 'metric.regress_v'$$,
    '23514', 'the version of concept "metric.regress_v" cannot be lowered (from 42 to 7)',
    'the version is never lowered');
UPDATE clarify.concepts SET id = 'metric.regress_v2' WHERE id = 'metric.regress_v';
SELECT is((SELECT version FROM clarify.concepts WHERE id = 'metric.regress_v2'), 42,
          'renaming the id is not a change of meaning');
UPDATE clarify.concepts SET label = 'Versioned, again', description = 'Described again'
 WHERE id = 'metric.regress_v2';
SELECT is((SELECT version FROM clarify.concepts WHERE id = 'metric.regress_v2'), 43,
          'several changes in one update make one new version');
SELECT is((SELECT version FROM clarify.concepts WHERE id = 'metric.regress_v2'), 43,
          'the version moved only forward');
SELECT throws_ok(
    $$UPDATE clarify.concepts SET version = 0 WHERE id = 'metric.regress_v2'$$,
    '23514', 'the version of concept "metric.regress_v2" cannot be lowered (from 43 to 0)',
    'the version cannot be set below 1');

-- Eligibility: approved, available, and now() inside [valid_from, valid_until).
INSERT INTO clarify.concepts (id, kind, label, status, available, valid_from, valid_until) VALUES
    ('metric.regress_ok',          'metric', 'Ok',          'approved',   true,  NULL, NULL),
    ('metric.regress_draft',       'metric', 'Draft',       'draft',      true,  NULL, NULL),
    ('metric.regress_deprecated',  'metric', 'Deprecated',  'deprecated', true,  NULL, NULL),
    ('metric.regress_unavailable', 'metric', 'Unavailable', 'approved',   false, NULL, NULL),
    ('metric.regress_future',      'metric', 'Future',      'approved',   true,  now() + interval '1 day', NULL),
    ('metric.regress_expired',     'metric', 'Expired',     'approved',   true,  NULL, now() - interval '1 second'),
    ('metric.regress_ends_now',    'metric', 'Ends now',    'approved',   true,  NULL, now()),
    ('metric.regress_starts_now',  'metric', 'Starts now',  'approved',   true,  now(), NULL),
    ('metric.regress_window',      'metric', 'Window',      'approved',   true,  now() - interval '1 day', now() + interval '1 day');

SELECT is(clarify.eligible(c), true, 'an approved, available concept without bounds is eligible')
  FROM clarify.concepts c WHERE id = 'metric.regress_ok';
SELECT is(clarify.eligible(c), false, 'a draft is not eligible')
  FROM clarify.concepts c WHERE id = 'metric.regress_draft';
SELECT is(clarify.eligible(c), false, 'a deprecated concept is not eligible')
  FROM clarify.concepts c WHERE id = 'metric.regress_deprecated';
SELECT is(clarify.eligible(c), false, 'an unavailable concept is not eligible')
  FROM clarify.concepts c WHERE id = 'metric.regress_unavailable';
SELECT is(clarify.eligible(c), false, 'a concept not yet valid is not eligible')
  FROM clarify.concepts c WHERE id = 'metric.regress_future';
SELECT is(clarify.eligible(c), false, 'an expired concept is not eligible')
  FROM clarify.concepts c WHERE id = 'metric.regress_expired';
SELECT is(clarify.eligible(c), false, 'valid_until is exclusive')
  FROM clarify.concepts c WHERE id = 'metric.regress_ends_now';
SELECT is(clarify.eligible(c), true, 'valid_from is inclusive')
  FROM clarify.concepts c WHERE id = 'metric.regress_starts_now';
SELECT is(clarify.eligible(c), true, 'a concept inside its validity window is eligible')
  FROM clarify.concepts c WHERE id = 'metric.regress_window';
SELECT is(clarify.eligible(c), false, 'a draft inside no window is still not eligible')
  FROM clarify.concepts c WHERE id = 'metric.regress_minimal';

SET LOCAL search_path = clarify, public;
SELECT set_eq(
    $$SELECT c.id FROM clarify.concepts c WHERE c.eligible AND c.id LIKE 'metric.regress%'$$,
    ARRAY['metric.regress_ok', 'metric.regress_starts_now', 'metric.regress_window',
          'metric.regress_v2'],
    'c.eligible works as attribute notation with clarify on the search_path');
RESET search_path;

SELECT is(clarify.eligible(NULL::clarify.concepts), NULL, 'no concept, no answer');
SELECT ok(
    NOT EXISTS (SELECT 1 FROM pg_proc
                 WHERE oid = 'clarify.eligible(clarify.concepts)'::regprocedure
                   AND prosqlbody IS NULL),
    'eligible is bound at creation, not re-parsed under the caller''s search_path');

SELECT ok(has_function_privilege('public', 'clarify.eligible(clarify.concepts)', 'EXECUTE'),
          'anyone may ask whether a concept is eligible');

SELECT * FROM finish();
ROLLBACK;
