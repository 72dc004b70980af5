-- The approvals table itself: rows written by hand (by the DBA) obey the same rules as
-- clarify.confirm, through constraints.
BEGIN;
SELECT plan(8);

CREATE ROLE regress_agent;
INSERT INTO clarify.concepts (id, kind, label, status) VALUES
    ('metric.regress_booked', 'metric', 'Booked revenue', 'approved');

SELECT lives_ok(
    $$INSERT INTO clarify.approvals (question_id, term, concept_id, granted_to, confirmed_by, expires_at)
      VALUES ('q_regress_1', 'regress_revenue', 'metric.regress_booked', 'regress_agent', 'alice', now() + interval '1 hour')$$,
    'a complete confirmation is accepted');
SELECT is((SELECT created_at FROM clarify.approvals WHERE question_id = 'q_regress_1'), now(),
          'created_at defaults to now');
SELECT throws_ok(
    $$INSERT INTO clarify.approvals (question_id, concept_id, granted_to, confirmed_by, expires_at)
      VALUES (E' \n', 'metric.regress_booked', 'regress_agent', 'alice', now() + interval '1 hour')$$,
    '23514', 'new row for relation "approvals" violates check constraint "approvals_question_id_check"',
    'a blank question_id is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.approvals (question_id, concept_id, granted_to, confirmed_by, expires_at)
      VALUES ('q_regress_2', 'metric.regress_booked', 'regress_agent', '', now() + interval '1 hour')$$,
    '23514', 'new row for relation "approvals" violates check constraint "approvals_confirmed_by_check"',
    'an empty confirmed_by is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.approvals (question_id, concept_id, granted_to, confirmed_by, expires_at)
      VALUES ('q_regress_2', 'metric.regress_booked', 'regress_agent', 'alice', now())$$,
    '23514', 'new row for relation "approvals" violates check constraint "approvals_expiry_check"',
    'a confirmation must expire after it was made');
SELECT throws_ok(
    $$INSERT INTO clarify.approvals (question_id, concept_id, granted_to, confirmed_by)
      VALUES ('q_regress_2', 'metric.regress_booked', 'regress_agent', 'alice')$$,
    '23502', 'null value in column "expires_at" of relation "approvals" violates not-null constraint',
    'a confirmation must expire');
SELECT throws_ok(
    $$INSERT INTO clarify.approvals (question_id, concept_id, granted_to, confirmed_by, expires_at)
      VALUES ('q_regress_2', 'metric.regress_nope', 'regress_agent', 'alice', now() + interval '1 hour')$$,
    '23503', 'insert or update on table "approvals" violates foreign key constraint "approvals_concept_id_fkey"',
    'a confirmation of an unknown concept is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.approvals (question_id, concept_id, granted_to, confirmed_by, expires_at)
      VALUES ('q_regress_2', 'metric.regress_booked', NULL, 'alice', now() + interval '1 hour')$$,
    '23502', 'null value in column "granted_to" of relation "approvals" violates not-null constraint',
    'a confirmation is always for some role');

SELECT * FROM finish();
ROLLBACK;
