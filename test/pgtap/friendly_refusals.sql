-- A DBA's typo in the catalog is answered in the DBA's terms: the allowed values, the unknown
-- concept by name, a default for a term that has no candidates said as such. Nothing changes.
BEGIN;
SELECT plan(9);

INSERT INTO clarify.concepts (id, kind, label, status) VALUES
    ('metric.regress_booked', 'metric', 'Booked revenue', 'approved');
INSERT INTO clarify.terms (term, concept_id) VALUES ('regress_revenue', 'metric.regress_booked');

SELECT throws_ok(
    $$INSERT INTO clarify.concepts (id, kind, label, status) VALUES ('metric.regress_x', 'metrc', 'X', 'approved')$$,
    '23514', 'concept "metric.regress_x": kind "metrc" is not one of metric, dimension, time_window, segment',
    'a kind typo lists the kinds');
SELECT throws_ok(
    $$INSERT INTO clarify.concepts (id, kind, label, status) VALUES ('metric.regress_x', 'metric', 'X', 'aproved')$$,
    '23514', 'concept "metric.regress_x": status "aproved" is not one of draft, approved, deprecated',
    'a status typo lists the statuses');
SELECT throws_ok(
    $$UPDATE clarify.concepts SET additivity = 'semi' WHERE id = 'metric.regress_booked'$$,
    '23514', 'concept "metric.regress_booked": additivity "semi" is not one of additive, semi_additive, non_additive',
    'an additivity typo lists the additivities');
SELECT throws_ok(
    $$UPDATE clarify.terms SET impact = 'hi' WHERE term = 'regress_revenue'$$,
    '23514', 'impact of term "regress_revenue" must be low, medium or high, not "hi"',
    'an impact typo lists the impacts');
SELECT throws_ok(
    $$INSERT INTO clarify.terms (term, concept_id) VALUES ('regress_revenue', 'metric.regress_bokked')$$,
    '23503', 'concept "metric.regress_bokked" does not exist (clarify.terms)',
    'a term for an unknown concept names it');
SELECT throws_ok(
    $$INSERT INTO clarify.defaults (term, concept_id, approved_by) VALUES ('regress_revenu', 'metric.regress_booked', 'Finance')$$,
    '23503', 'term "regress_revenu" does not exist in clarify.terms',
    'a default for a term with no candidates says the term does not exist');
SELECT throws_ok(
    $$INSERT INTO clarify.defaults (term, concept_id, approved_by) VALUES ('regress_revenue', 'metric.regress_bokked', 'Finance')$$,
    '23503', 'concept "metric.regress_bokked" does not exist (clarify.defaults)',
    'a default for an unknown concept names it');
SELECT lives_ok(
    $$INSERT INTO clarify.defaults (term, concept_id, approved_by) VALUES ('Regress_Revenue ', 'metric.regress_booked', 'Finance')$$,
    'a default for a known term in another spelling is accepted');
SELECT is((SELECT count(*)::int FROM clarify.concepts WHERE id = 'metric.regress_x'), 0,
          'nothing refused was written');

SELECT * FROM finish();
ROLLBACK;
