-- Defaults: one approved meaning per term and scope, always a candidate of the term, always
-- signed by someone. Each refusal carries our message; the constraints underneath still hold.
BEGIN;
SELECT plan(30);

CREATE ROLE regress_analysts;
CREATE ROLE regress_finance;
INSERT INTO clarify.concepts (id, kind, label, status) VALUES
    ('metric.regress_booked', 'metric', 'Booked revenue', 'approved'),
    ('metric.regress_recognized', 'metric', 'Recognized revenue', 'approved'),
    ('metric.regress_margin', 'metric', 'Gross margin', 'approved');
INSERT INTO clarify.terms VALUES
    ('regress_revenue', 'metric.regress_booked'),
    ('regress_revenue', 'metric.regress_recognized'),
    ('regress_margin', 'metric.regress_margin');

-- Accepted.
SELECT lives_ok(
    $$INSERT INTO clarify.defaults (term, concept_id, approved_by)
      VALUES ('regress_revenue', 'metric.regress_booked', 'Head of Sales')$$,
    'a default for everyone');
SELECT is((SELECT approved_at FROM clarify.defaults WHERE term = 'regress_revenue' AND applies_to IS NULL),
          now(), 'approved_at defaults to now');
SELECT lives_ok(
    $$INSERT INTO clarify.defaults (term, concept_id, applies_to, approved_by)
      VALUES ('regress_revenue', 'metric.regress_recognized', 'regress_finance', 'CFO')$$,
    'a role-specific default next to the one for everyone');
SELECT lives_ok(
    $$INSERT INTO clarify.defaults (term, concept_id, applies_to, approved_by)
      VALUES ('regress_revenue', 'metric.regress_booked', 'regress_analysts', 'Head of Sales')$$,
    'a default for another role');
SELECT lives_ok(
    $$INSERT INTO clarify.defaults (term, concept_id, approved_by, valid_until)
      VALUES ('regress_margin', 'metric.regress_margin', 'Controller', now() + interval '30 days')$$,
    'a default with an end date');

-- approved_by.
SELECT throws_ok(
    $$INSERT INTO clarify.defaults (term, concept_id, approved_by)
      VALUES ('regress_margin', 'metric.regress_margin', '')$$,
    '23514', 'default for term "regress_margin" must name who approved it (approved_by is empty)',
    'an empty approved_by is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.defaults (term, concept_id, applies_to, approved_by)
      VALUES ('regress_margin', 'metric.regress_margin', 'regress_analysts', E' \t ')$$,
    '23514', 'default for term "regress_margin" must name who approved it (approved_by is empty)',
    'a blank approved_by is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.defaults (term, concept_id, applies_to, approved_by)
      VALUES ('regress_margin', 'metric.regress_margin', 'regress_analysts', NULL)$$,
    '23502', 'null value in column "approved_by" of relation "defaults" violates not-null constraint',
    'a missing approved_by is refused');
SELECT throws_ok(
    $$UPDATE clarify.defaults SET approved_by = '' WHERE term = 'regress_margin'$$,
    '23514', 'default for term "regress_margin" must name who approved it (approved_by is empty)',
    'approved_by cannot be blanked later');

-- Unknown concepts and concepts the term cannot mean.
SELECT throws_ok(
    $$INSERT INTO clarify.defaults (term, concept_id, applies_to, approved_by)
      VALUES ('regress_revenue', 'metric.regress_nope', 'regress_analysts', 'CFO')$$,
    '23503', 'concept "metric.regress_nope" does not exist (clarify.defaults)',
    'a default naming an unknown concept is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.defaults (term, concept_id, applies_to, approved_by)
      VALUES ('regress_margin', 'metric.regress_booked', 'regress_analysts', 'CFO')$$,
    '23503', 'concept "metric.regress_booked" is not a candidate of term "regress_margin"',
    'a default naming a concept that is not a candidate of the term is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.defaults (term, concept_id, applies_to, approved_by)
      VALUES ('Regress_Margin ', 'metric.regress_booked', 'regress_analysts', 'CFO')$$,
    '23503', 'concept "metric.regress_booked" is not a candidate of term "regress_margin"',
    'the message names the term as the catalog spells it');
SELECT throws_ok(
    $$INSERT INTO clarify.defaults (term, concept_id, approved_by)
      VALUES ('regress_unknown_term', 'metric.regress_margin', 'CFO')$$,
    '23503', 'term "regress_unknown_term" does not exist in clarify.terms',
    'a default for a term without candidates is refused');
SELECT throws_ok(
    $$UPDATE clarify.defaults SET concept_id = 'metric.regress_margin'
       WHERE term = 'regress_revenue' AND applies_to = 'regress_analysts'$$,
    '23503', 'concept "metric.regress_margin" is not a candidate of term "regress_revenue"',
    'a default cannot be switched to a non-candidate');

-- One default per term and scope.
SELECT throws_ok(
    $$INSERT INTO clarify.defaults (term, concept_id, approved_by)
      VALUES ('regress_revenue', 'metric.regress_recognized', 'CFO')$$,
    '23505', 'term "regress_revenue" already has a default for everyone',
    'a second default for everyone is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.defaults (term, concept_id, approved_by)
      VALUES ('REGRESS_REVENUE', 'metric.regress_booked', 'CFO')$$,
    '23505', 'term "regress_revenue" already has a default for everyone',
    'also when spelled differently, and also for the same concept');
SELECT throws_ok(
    $$INSERT INTO clarify.defaults (term, concept_id, applies_to, approved_by)
      VALUES ('regress_revenue', 'metric.regress_booked', 'regress_finance', 'CFO')$$,
    '23505', 'term "regress_revenue" already has a default for role "regress_finance"',
    'a second default for the same role is refused');
SELECT throws_ok(
    $$UPDATE clarify.defaults SET applies_to = NULL
       WHERE term = 'regress_revenue' AND applies_to = 'regress_analysts'$$,
    '23505', 'term "regress_revenue" already has a default for everyone',
    'moving a default into an occupied scope is refused');
SELECT lives_ok(
    $$UPDATE clarify.defaults SET concept_id = 'metric.regress_recognized', approved_by = 'CFO'
       WHERE term = 'regress_revenue' AND applies_to IS NULL$$,
    'a default can be changed in place');

-- Other refusals.
SELECT throws_ok(
    $$INSERT INTO clarify.defaults (term, concept_id, applies_to, approved_by)
      VALUES ('  ', 'metric.regress_margin', 'regress_analysts', 'CFO')$$,
    '23514', 'the term of a default cannot be empty',
    'an empty term is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.defaults (term, concept_id, applies_to, approved_by, approved_at, valid_until)
      VALUES ('regress_margin', 'metric.regress_margin', 'regress_analysts', 'CFO', now(), now() - interval '1 day')$$,
    '23514', 'new row for relation "defaults" violates check constraint "defaults_validity_check"',
    'a default that ends before it was approved is refused');

SELECT set_eq(
    $$SELECT term, concept_id, COALESCE(applies_to::text, '(everyone)'), approved_by
        FROM clarify.defaults WHERE term LIKE 'regress%'$$,
    $$VALUES ('regress_revenue', 'metric.regress_recognized', '(everyone)', 'CFO'),
             ('regress_revenue', 'metric.regress_recognized', 'regress_finance', 'CFO'),
             ('regress_revenue', 'metric.regress_booked', 'regress_analysts', 'Head of Sales'),
             ('regress_margin', 'metric.regress_margin', '(everyone)', 'Controller')$$,
    'refused statements changed nothing');

-- A default holds on to what it relies on.
SELECT throws_ok(
    $$DELETE FROM clarify.terms WHERE term = 'regress_margin'$$,
    '23503', 'update or delete on table "terms" violates foreign key constraint "defaults_term_concept_fkey" on table "defaults"',
    'a candidate cannot be removed from a term while a default names it');
SELECT throws_ok(
    $$DELETE FROM clarify.concepts WHERE id = 'metric.regress_margin'$$,
    '23503', NULL,
    'a concept cannot be deleted while a default names it');
SELECT lives_ok(
    $$DELETE FROM clarify.defaults WHERE term = 'regress_margin'$$,
    'once the default is gone');
SELECT lives_ok(
    $$DELETE FROM clarify.terms WHERE term = 'regress_margin'$$,
    'the candidate can be removed');

-- Backstops: with our triggers out of the way, the constraints still refuse.
ALTER TABLE clarify.defaults DISABLE TRIGGER defaults_check;
ALTER TABLE clarify.defaults DISABLE TRIGGER defaults_a_known_term;
ALTER TABLE clarify.defaults DISABLE TRIGGER defaults_a_known_concept;
SELECT throws_ok(
    $$INSERT INTO clarify.defaults (term, concept_id, approved_by)
      VALUES ('regress_revenue', 'metric.regress_booked', 'CFO')$$,
    '23505', 'duplicate key value violates unique constraint "defaults_term_scope_key"',
    'backstop: one default per term and scope');
SELECT throws_ok(
    $$INSERT INTO clarify.defaults (term, concept_id, approved_by)
      VALUES ('regress_margin', 'metric.regress_booked', 'CFO')$$,
    '23503', 'insert or update on table "defaults" violates foreign key constraint "defaults_term_concept_fkey"',
    'backstop: only a candidate of the term');
SELECT throws_ok(
    $$INSERT INTO clarify.defaults (term, concept_id, approved_by)
      VALUES ('regress_margin', 'metric.regress_margin', ' ')$$,
    '23514', 'new row for relation "defaults" violates check constraint "defaults_approved_by_check"',
    'backstop: approved_by is not blank');
SELECT throws_ok(
    $$INSERT INTO clarify.defaults (term, concept_id, approved_by)
      VALUES ('Regress_Revenue', 'metric.regress_booked', 'CFO')$$,
    '23514', 'new row for relation "defaults" violates check constraint "defaults_term_check"',
    'backstop: the term is stored normalized');
ALTER TABLE clarify.defaults ENABLE TRIGGER defaults_check;
ALTER TABLE clarify.defaults ENABLE TRIGGER defaults_a_known_term;
ALTER TABLE clarify.defaults ENABLE TRIGGER defaults_a_known_concept;

SELECT * FROM finish();
ROLLBACK;
