-- Terms are case-insensitive: every table that names a term stores one spelling of it.
BEGIN;
SELECT plan(22);

CREATE ROLE regress_agent;

INSERT INTO clarify.concepts (id, kind, label, status) VALUES
    ('metric.regress_booked', 'metric', 'Booked revenue', 'approved'),
    ('metric.regress_recognized', 'metric', 'Recognized revenue', 'approved');

-- The terms table.
SELECT lives_ok(
    $$INSERT INTO clarify.terms VALUES (E' Regress_Revenue\t', 'metric.regress_booked')$$,
    'a term is accepted in any case and with surrounding white space');
SELECT is((SELECT term FROM clarify.terms WHERE concept_id = 'metric.regress_booked'),
          'regress_revenue', 'and stored trimmed and lower-cased');
SELECT throws_ok(
    $$INSERT INTO clarify.terms VALUES ('REGRESS_REVENUE', 'metric.regress_booked')$$,
    '23505', 'duplicate key value violates unique constraint "terms_pkey"',
    'the same term in another case is the same term');
SELECT lives_ok(
    $$INSERT INTO clarify.terms VALUES ('regress_REVENUE', 'metric.regress_recognized')$$,
    'a term may have several candidate meanings');
SELECT set_eq(
    $$SELECT concept_id FROM clarify.terms WHERE term = 'regress_revenue'$$,
    ARRAY['metric.regress_booked', 'metric.regress_recognized'],
    'both spellings landed on one term');
SELECT lives_ok(
    $$INSERT INTO clarify.terms VALUES ('Regress Net Revenue', 'metric.regress_booked')$$,
    'a term may contain inner spaces');
SELECT is((SELECT count(*)::int FROM clarify.terms WHERE term = 'regress net revenue'), 1,
          'inner spaces are kept');
SELECT throws_ok(
    $$INSERT INTO clarify.terms VALUES ('', 'metric.regress_booked')$$,
    '23514', 'a term cannot be empty', 'an empty term is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.terms VALUES (E'  \t ', 'metric.regress_booked')$$,
    '23514', 'a term cannot be empty', 'a blank term is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.terms VALUES (NULL, 'metric.regress_booked')$$,
    '23502', NULL, 'a NULL term is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.terms VALUES ('regress_sales', 'metric.regress_nope')$$,
    '23503', 'concept "metric.regress_nope" does not exist (clarify.terms)',
    'a term cannot point at an unknown concept (the message names it)');
SELECT lives_ok(
    $$UPDATE clarify.terms SET term = ' Regress_Turnover ' WHERE term = 'regress net revenue'$$,
    'a term can be renamed');
SELECT is((SELECT count(*)::int FROM clarify.terms WHERE term = 'regress_turnover'), 1,
          'and the new name is normalized too');
SELECT throws_ok(
    $$UPDATE clarify.terms SET term = ' ' WHERE term = 'regress_turnover'$$,
    '23514', 'a term cannot be empty', 'a term cannot be renamed to nothing');

-- Defaults and approvals name terms the same way.
INSERT INTO clarify.defaults (term, concept_id, approved_by)
VALUES ('  REGRESS_Revenue', 'metric.regress_booked', 'Head of Sales');
SELECT is((SELECT term FROM clarify.defaults WHERE concept_id = 'metric.regress_booked'),
          'regress_revenue', 'a default''s term is normalized');

INSERT INTO clarify.approvals (question_id, term, concept_id, granted_to, confirmed_by, expires_at)
VALUES ('q_regress_1', 'Regress_Revenue ', 'metric.regress_booked', 'regress_agent', 'alice',
        now() + interval '1 hour');
SELECT is((SELECT term FROM clarify.approvals WHERE question_id = 'q_regress_1'),
          'regress_revenue', 'an approval''s term is normalized');
SELECT lives_ok(
    $$INSERT INTO clarify.approvals (question_id, term, concept_id, granted_to, confirmed_by, expires_at)
      VALUES ('q_regress_2', NULL, 'metric.regress_booked', 'regress_agent', 'alice', now() + interval '1 hour')$$,
    'an approval may name no term');
SELECT throws_ok(
    $$INSERT INTO clarify.approvals (question_id, term, concept_id, granted_to, confirmed_by, expires_at)
      VALUES ('q_regress_3', '  ', 'metric.regress_booked', 'regress_agent', 'alice', now() + interval '1 hour')$$,
    '23514', 'the term of a confirmation cannot be blank; use NULL for none',
    'but not a blank one');

-- The constraint underneath holds even when the normalizing trigger is bypassed.
ALTER TABLE clarify.terms DISABLE TRIGGER terms_normalize;
SELECT throws_ok(
    $$INSERT INTO clarify.terms VALUES ('Regress_Upper', 'metric.regress_booked')$$,
    '23514', 'new row for relation "terms" violates check constraint "terms_term_check"',
    'backstop: a term not in its normalized spelling cannot be stored');
ALTER TABLE clarify.terms ENABLE TRIGGER terms_normalize;

SELECT is(clarify.normalize_term('Rev'), 'rev', 'a term that ends with v keeps it');
SELECT is(clarify.normalize_term(E'\x0BVat\t'), 'vat',
          'a vertical tab is white space, the letter v is not');
SELECT is(clarify.normalize_term(E'\n Umsatz  '), 'umsatz',
          'normalize_term is available to anyone who needs the catalog''s spelling');

SELECT * FROM finish();
ROLLBACK;
