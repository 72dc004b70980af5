-- What happens to the rest of the catalog when a concept or a term is renamed or removed:
-- renames follow everywhere; deletions take mappings and candidacies along, but never a
-- business decision (a default) or a user's confirmation.
BEGIN;
SELECT plan(19);

CREATE ROLE regress_agent;
CREATE SCHEMA regress_sales;
CREATE TABLE regress_sales.orders (id int, booked_amount numeric, recognized_amount numeric);

INSERT INTO clarify.concepts (id, kind, label, status) VALUES
    ('metric.regress_booked', 'metric', 'Booked revenue', 'approved'),
    ('metric.regress_recognized', 'metric', 'Recognized revenue', 'approved');
INSERT INTO clarify.concept_columns VALUES
    ('metric.regress_booked', 'regress_sales.orders', 'booked_amount'),
    ('metric.regress_recognized', 'regress_sales.orders', 'recognized_amount');
INSERT INTO clarify.terms VALUES
    ('regress_revenue', 'metric.regress_booked'),
    ('regress_revenue', 'metric.regress_recognized'),
    ('regress_bookings', 'metric.regress_booked');
INSERT INTO clarify.defaults (term, concept_id, approved_by)
VALUES ('regress_revenue', 'metric.regress_booked', 'Head of Sales');
INSERT INTO clarify.approvals (question_id, term, concept_id, granted_to, confirmed_by, expires_at)
VALUES ('q_regress_1', 'regress_revenue', 'metric.regress_booked', 'regress_agent', 'alice',
        now() + interval '1 hour');

-- Renaming a concept.
SELECT lives_ok(
    $$UPDATE clarify.concepts SET id = 'metric.regress_bookings' WHERE id = 'metric.regress_booked'$$,
    'a concept named by mappings, terms, a default and an approval can be renamed');
SELECT is((SELECT count(*)::int FROM clarify.concept_columns WHERE concept_id = 'metric.regress_bookings'),
          1, 'its column mapping follows');
SELECT set_eq($$SELECT term FROM clarify.terms WHERE concept_id = 'metric.regress_bookings'$$,
              ARRAY['regress_revenue', 'regress_bookings'], 'its candidacies follow');
SELECT is((SELECT concept_id FROM clarify.defaults WHERE term = 'regress_revenue'),
          'metric.regress_bookings', 'the default follows');
SELECT is((SELECT concept_id FROM clarify.approvals WHERE question_id = 'q_regress_1'),
          'metric.regress_bookings', 'the approval follows');
SELECT is((SELECT count(*)::int FROM clarify.concepts c
            WHERE c.id IN ('metric.regress_booked', 'metric.regress_bookings')),
          1, 'no trace of the old id is left');
SELECT is((SELECT version FROM clarify.concepts WHERE id = 'metric.regress_bookings'), 2,
          'a rename is not a change of meaning (version 2 since its mapping was added)');
SELECT is((SELECT array_agg(v ORDER BY v) FROM (
             SELECT concept_version FROM clarify.defaults WHERE concept_id = 'metric.regress_bookings'
             UNION ALL
             SELECT concept_version FROM clarify.approvals WHERE concept_id = 'metric.regress_bookings') t(v)),
          ARRAY[2, 2], 'the default and the approval keep the version they were given for');

-- Renaming a term that a default relies on.
SELECT lives_ok(
    $$UPDATE clarify.terms SET term = 'Regress_Sales' WHERE term = 'regress_revenue'$$,
    'a term with a default can be renamed');
SELECT is((SELECT term FROM clarify.defaults WHERE concept_id = 'metric.regress_bookings'),
          'regress_sales', 'the default follows the term');
SELECT is((SELECT term FROM clarify.approvals WHERE question_id = 'q_regress_1'),
          'regress_revenue', 'a confirmation keeps the words the user was asked about');

-- Removing things.
SELECT throws_ok(
    $$DELETE FROM clarify.concepts WHERE id = 'metric.regress_bookings'$$,
    '23503', NULL, 'a concept with a default cannot be deleted');
DELETE FROM clarify.defaults WHERE concept_id = 'metric.regress_bookings';
SELECT throws_ok(
    $$DELETE FROM clarify.concepts WHERE id = 'metric.regress_bookings'$$,
    '23503', 'update or delete on table "concepts" violates foreign key constraint "approvals_concept_id_fkey" on table "approvals"',
    'a concept a user confirmed cannot be deleted (deprecate it instead)');
SELECT lives_ok(
    $$DELETE FROM clarify.concepts WHERE id = 'metric.regress_recognized'$$,
    'a concept without defaults or confirmations can be deleted');
SELECT is((SELECT count(*)::int FROM clarify.concept_columns WHERE concept_id = 'metric.regress_recognized'),
          0, 'its column mappings go with it');
SELECT is((SELECT count(*)::int FROM clarify.terms WHERE concept_id = 'metric.regress_recognized'),
          0, 'and so do its candidacies');
SELECT lives_ok(
    $$DELETE FROM clarify.terms WHERE term = 'regress_bookings'$$,
    'a candidacy without a default can be removed');

DELETE FROM clarify.approvals WHERE question_id = 'q_regress_1';
SELECT lives_ok(
    $$DELETE FROM clarify.concepts WHERE id = 'metric.regress_bookings'$$,
    'once nothing relies on it, the concept can be deleted');
SELECT is((SELECT count(*)::int FROM clarify.concept_columns c
            WHERE c.relation = 'regress_sales.orders'::regclass),
          0, 'and the governed columns are free again');

SELECT * FROM finish();
ROLLBACK;
