-- clarify.confirm: recording a user's choice, and every reason to refuse one.
BEGIN;
SELECT plan(47);

CREATE ROLE regress_agent;
CREATE ROLE regress_agent_login LOGIN IN ROLE regress_agent;
CREATE ROLE regress_confirmer;
GRANT EXECUTE ON FUNCTION clarify.confirm(text, text, text, regrole, text, interval, text) TO regress_confirmer;

INSERT INTO clarify.concepts (id, kind, label, status, available, valid_from, valid_until) VALUES
    ('metric.regress_booked',      'metric', 'Booked revenue',     'approved',   true,  NULL, NULL),
    ('metric.regress_recognized',  'metric', 'Recognized revenue', 'approved',   true,  NULL, NULL),
    ('metric.regress_draft',       'metric', 'Draft revenue',      'draft',      true,  NULL, NULL),
    ('metric.regress_deprecated',  'metric', 'Old revenue',        'deprecated', true,  NULL, NULL),
    ('metric.regress_unavailable', 'metric', 'Paused revenue',     'approved',   false, NULL, NULL),
    ('metric.regress_future',      'metric', 'Future revenue',     'approved',   true,  now() + interval '1 day', NULL),
    ('metric.regress_expired',     'metric', 'Expired revenue',    'approved',   true,  NULL, now() - interval '1 day'),
    ('metric.regress_margin',      'metric', 'Gross margin',       'approved',   true,  NULL, NULL);
INSERT INTO clarify.terms
SELECT 'regress_revenue', id FROM clarify.concepts WHERE id LIKE 'metric.regress%' AND id <> 'metric.regress_margin';
INSERT INTO clarify.terms VALUES ('regress_margin', 'metric.regress_margin');

-- Happy paths.
SELECT set_config('regress.first_id',
    clarify.confirm('q_regress_1', 'regress_revenue', 'metric.regress_booked', 'regress_agent', 'alice')::text,
    true) IS NOT NULL AS recorded;
SELECT results_eq(
    $$SELECT question_id, term, concept_id, granted_to::text, confirmed_by, created_at, expires_at, revoked_at
        FROM clarify.approvals WHERE id = current_setting('regress.first_id')::bigint$$,
    $$VALUES ('q_regress_1', 'regress_revenue', 'metric.regress_booked', 'regress_agent', 'alice',
              now(), now() + interval '1 hour', NULL::timestamptz)$$,
    'confirm records the choice, for one hour by default, and returns its id');
SELECT is(
    clarify.confirm('q_regress_2', ' REGRESS_Revenue ', 'metric.regress_recognized', 'regress_agent',
                    'bob', interval '10 minutes'),
    (SELECT last_value FROM clarify.approvals_id_seq),
    'each confirmation gets a new id');
SELECT results_eq(
    $$SELECT term, expires_at FROM clarify.approvals WHERE question_id = 'q_regress_2'$$,
    $$VALUES ('regress_revenue', now() + interval '10 minutes')$$,
    'the term is stored in its catalog spelling, and the expiry is the one asked for');
SELECT lives_ok(
    $$SELECT clarify.confirm('q_regress_3', NULL, 'metric.regress_margin', 'regress_agent', 'carol')$$,
    'a confirmation may name only the meaning, without a term');
SELECT is((SELECT term FROM clarify.approvals WHERE question_id = 'q_regress_3'), NULL,
          'and then records no term');
SELECT lives_ok(
    $$SELECT clarify.confirm(question_id => 'q_regress_4', term => 'regress_margin',
                             concept => 'metric.regress_margin', granted_to => 'regress_agent',
                             confirmed_by => 'dave', expires_in => interval '1 day')$$,
    'confirm can be called with named arguments');
SELECT lives_ok(
    $$SELECT clarify.confirm('q_regress_1', 'regress_revenue', 'metric.regress_booked', 'regress_agent', 'alice')$$,
    'confirming the same choice again is harmless');

SET ROLE regress_confirmer;
SELECT lives_ok(
    $$SELECT clarify.confirm('q_regress_5', 'regress_revenue', 'metric.regress_booked', 'regress_agent_login', 'erin')$$,
    'the confirmer role records confirmations');
RESET ROLE;
SELECT is((SELECT count(*)::int FROM clarify.approvals WHERE question_id LIKE 'q_regress_%'), 6,
          'six confirmations were recorded');

-- Refusals: the concept.
SELECT throws_ok(
    $$SELECT clarify.confirm('q_regress_x', 'regress_revenue', 'metric.regress_nope', 'regress_agent', 'alice')$$,
    '42704', 'concept "metric.regress_nope" does not exist',
    'an unknown concept is refused');
SELECT throws_ok(
    $$SELECT clarify.confirm('q_regress_x', 'regress_revenue', 'metric.regress_draft', 'regress_agent', 'alice')$$,
    '55000', 'concept "metric.regress_draft" cannot be confirmed: its status is draft, not approved',
    'a draft concept is refused');
SELECT throws_ok(
    $$SELECT clarify.confirm('q_regress_x', 'regress_revenue', 'metric.regress_deprecated', 'regress_agent', 'alice')$$,
    '55000', 'concept "metric.regress_deprecated" cannot be confirmed: its status is deprecated, not approved',
    'a deprecated concept is refused');
SELECT throws_ok(
    $$SELECT clarify.confirm('q_regress_x', 'regress_revenue', 'metric.regress_unavailable', 'regress_agent', 'alice')$$,
    '55000', 'concept "metric.regress_unavailable" cannot be confirmed: it is currently unavailable',
    'an unavailable concept is refused');
SELECT throws_ok(
    $$SELECT clarify.confirm('q_regress_x', 'regress_revenue', 'metric.regress_future', 'regress_agent', 'alice')$$,
    '55000', 'concept "metric.regress_future" cannot be confirmed: it is outside its validity period',
    'a concept not yet valid is refused');
SELECT throws_ok(
    $$SELECT clarify.confirm('q_regress_x', 'regress_revenue', 'metric.regress_expired', 'regress_agent', 'alice')$$,
    '55000', 'concept "metric.regress_expired" cannot be confirmed: it is outside its validity period',
    'an expired concept is refused');
SELECT throws_ok(
    $$SELECT clarify.confirm('q_regress_x', 'regress_revenue', 'metric.regress_margin', 'regress_agent', 'alice')$$,
    '22023', 'concept "metric.regress_margin" is not a candidate of term "regress_revenue"',
    'a concept that is not a candidate of the term is refused');
SELECT throws_ok(
    $$SELECT clarify.confirm('q_regress_x', 'Regress_Margin', 'metric.regress_booked', 'regress_agent', 'alice')$$,
    '22023', 'concept "metric.regress_booked" is not a candidate of term "regress_margin"',
    'the message names the term as the catalog spells it');
SELECT throws_ok(
    $$SELECT clarify.confirm('q_regress_x', 'regress_unheard_of', 'metric.regress_booked', 'regress_agent', 'alice')$$,
    '22023', 'concept "metric.regress_booked" is not a candidate of term "regress_unheard_of"',
    'a term without candidates is refused');
SELECT throws_ok(
    $$SELECT clarify.confirm('q_regress_x', NULL, NULL, 'regress_agent', 'alice')$$,
    '22004', 'question_id, concept, granted_to, confirmed_by and expires_in must not be NULL',
    'a missing concept is refused');

-- Refusals: the other arguments.
SELECT throws_ok(
    $$SELECT clarify.confirm('q_regress_x', 'regress_revenue', 'metric.regress_booked', 'regress_agent', '')$$,
    '22023', 'confirmed_by must name the user who confirmed',
    'an empty confirmed_by is refused');
SELECT throws_ok(
    $$SELECT clarify.confirm('q_regress_x', 'regress_revenue', 'metric.regress_booked', 'regress_agent', E' \t')$$,
    '22023', 'confirmed_by must name the user who confirmed',
    'a blank confirmed_by is refused');
SELECT throws_ok(
    $$SELECT clarify.confirm('q_regress_x', 'regress_revenue', 'metric.regress_booked', 'regress_agent', NULL)$$,
    '22004', 'question_id, concept, granted_to, confirmed_by and expires_in must not be NULL',
    'a missing confirmed_by is refused');
SELECT throws_ok(
    $$SELECT clarify.confirm('', 'regress_revenue', 'metric.regress_booked', 'regress_agent', 'alice')$$,
    '22023', 'question_id must not be empty',
    'an empty question_id is refused');
SELECT throws_ok(
    $$SELECT clarify.confirm('   ', 'regress_revenue', 'metric.regress_booked', 'regress_agent', 'alice')$$,
    '22023', 'question_id must not be empty',
    'a blank question_id is refused');
SELECT throws_ok(
    $$SELECT clarify.confirm(NULL, 'regress_revenue', 'metric.regress_booked', 'regress_agent', 'alice')$$,
    '22004', 'question_id, concept, granted_to, confirmed_by and expires_in must not be NULL',
    'a missing question_id is refused');
SELECT throws_ok(
    $$SELECT clarify.confirm('q_regress_x', 'regress_revenue', 'metric.regress_booked', NULL, 'alice')$$,
    '22004', 'question_id, concept, granted_to, confirmed_by and expires_in must not be NULL',
    'a missing granted_to is refused');
SELECT throws_ok(
    $$SELECT clarify.confirm('q_regress_x', 'regress_revenue', 'metric.regress_booked', 'regress_agent', 'alice', interval '0')$$,
    '22023', 'expires_in must be a positive interval, not 00:00:00',
    'a confirmation that expires at once is refused');
SELECT throws_ok(
    $$SELECT clarify.confirm('q_regress_x', 'regress_revenue', 'metric.regress_booked', 'regress_agent', 'alice', interval '-5 minutes')$$,
    '22023', 'expires_in must be a positive interval, not -00:05:00',
    'a confirmation that expired before it was made is refused');
SELECT throws_ok(
    $$SELECT clarify.confirm('q_regress_x', 'regress_revenue', 'metric.regress_booked', 'regress_agent', 'alice', interval '1 month -40 days')$$,
    '22023', 'expires_in must be a positive interval, not 1 mon -40 days',
    'a mixed interval that adds up to the past is refused');
SELECT throws_ok(
    $$SELECT clarify.confirm('q_regress_x', 'regress_revenue', 'metric.regress_booked', 'regress_agent', 'alice', NULL)$$,
    '22004', 'question_id, concept, granted_to, confirmed_by and expires_in must not be NULL',
    'a missing expiry is refused');
SELECT throws_ok(
    $$SELECT clarify.confirm('q_regress_x', '  ', 'metric.regress_booked', 'regress_agent', 'alice')$$,
    '22023', 'term must not be blank; pass NULL to confirm a meaning without a term',
    'a blank term is refused');
SELECT is((SELECT count(*)::int FROM clarify.approvals WHERE question_id LIKE 'q_regress_%'), 6,
          'refused confirmations recorded nothing');

-- Refusals: the caller. An agent must not vouch for itself, even with EXECUTE granted.
SELECT clarify.govern_role('regress_agent');
GRANT EXECUTE ON FUNCTION clarify.confirm(text, text, text, regrole, text, interval, text) TO regress_agent;
SET ROLE regress_agent;
SELECT throws_ok(
    $$SELECT clarify.confirm('q_regress_x', 'regress_revenue', 'metric.regress_booked', 'regress_agent', 'alice')$$,
    '42501', 'agents cannot confirm their own bindings',
    'a governed role cannot confirm');
SELECT throws_ok(
    $$SELECT clarify.confirm('q_regress_x', 'regress_revenue', 'metric.regress_booked', 'regress_confirmer', 'alice')$$,
    '42501', 'agents cannot confirm their own bindings',
    'not even for another role');
SELECT throws_ok(
    $$SELECT clarify.confirm('q_regress_x', 'regress_revenue', 'metric.regress_nope', 'regress_agent', '')$$,
    '42501', 'agents cannot confirm their own bindings',
    'the caller is refused before its arguments are looked at');
RESET ROLE;

SET ROLE regress_agent_login;
SELECT throws_ok(
    $$SELECT clarify.confirm('q_regress_x', 'regress_revenue', 'metric.regress_booked', 'regress_agent_login', 'alice')$$,
    '42501', 'agents cannot confirm their own bindings',
    'a member of a governed role cannot confirm');
RESET ROLE;

GRANT regress_confirmer TO regress_agent_login;
SET SESSION AUTHORIZATION regress_agent_login;
SET ROLE regress_confirmer;
SELECT is(current_user::text, 'regress_confirmer', 'an agent session switched to the confirmer role');
SELECT throws_ok(
    $$SELECT clarify.confirm('q_regress_x', 'regress_revenue', 'metric.regress_booked', 'regress_agent_login', 'alice')$$,
    '42501', 'agents cannot confirm their own bindings',
    'an agent that logs in and switches to the confirmer role is still refused');
RESET ROLE;
RESET SESSION AUTHORIZATION;

SET ROLE regress_confirmer;
SELECT lives_ok(
    $$SELECT clarify.confirm('q_regress_6', 'regress_revenue', 'metric.regress_booked', 'regress_agent', 'frank')$$,
    'the confirmer is not gated by the agent being governed');
RESET ROLE;
SELECT lives_ok(
    $$SELECT clarify.confirm('q_regress_7', 'regress_revenue', 'metric.regress_booked', 'regress_agent', 'grace')$$,
    'nor is a superuser: superuser status makes no one a member of a governed role');
SELECT is((SELECT count(*)::int FROM clarify.approvals WHERE question_id LIKE 'q_regress_%'), 8,
          'only the permitted callers recorded anything');

-- The question's text: recorded trimmed when given, and then the approval holds for it alone.
SELECT is((SELECT question FROM clarify.approvals WHERE question_id = 'q_regress_1' LIMIT 1), NULL,
          'without a question text, the confirmation holds for any text of its question');
SELECT lives_ok(
    $$SELECT clarify.confirm('q_regress_text_1', 'regress_revenue', 'metric.regress_booked', 'regress_agent',
                             'ivan', question => E'  Show revenue for Germany\n')$$,
    'confirm takes the question text by name');
SELECT is((SELECT question FROM clarify.approvals WHERE question_id = 'q_regress_text_1'),
          'Show revenue for Germany', 'and records it without surrounding white space');
SELECT lives_ok(
    $$SELECT clarify.confirm('q_regress_text_2', 'regress_revenue', 'metric.regress_booked', 'regress_agent',
                             'judy', interval '5 minutes', 'Show booked revenue')$$,
    'or as the seventh argument');
SELECT is((SELECT question FROM clarify.approvals WHERE question_id = 'q_regress_text_2'),
          'Show booked revenue', 'which is recorded too');
SELECT throws_ok(
    $$SELECT clarify.confirm('q_regress_text_x', 'regress_revenue', 'metric.regress_booked', 'regress_agent',
                             'alice', question => E' \t')$$,
    '22023', 'question must not be blank; pass NULL to confirm for any question text',
    'a blank question text is refused');

SELECT * FROM finish();
ROLLBACK;
