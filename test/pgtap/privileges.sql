-- Who may do what (docs/dba-guide.md, "Let agents in"). Agents read the vocabulary and ask the
-- gate; they never write, never see who confirmed what, who is governed or which columns are
-- watched, and cannot record confirmations. The confirmer needs nothing but EXECUTE on confirm and
-- revoke.
BEGIN;
SELECT plan(73);

CREATE ROLE regress_agent;
CREATE ROLE regress_confirmer;
GRANT EXECUTE ON FUNCTION clarify.confirm(text, text, text, regrole, text, interval, text),
                          clarify.revoke(bigint) TO regress_confirmer;
SELECT clarify.govern_role('regress_agent');

INSERT INTO clarify.concepts (id, kind, label, status) VALUES
    ('metric.regress_booked', 'metric', 'Booked revenue', 'approved');
INSERT INTO clarify.terms VALUES ('regress_revenue', 'metric.regress_booked');
INSERT INTO clarify.defaults (term, concept_id, approved_by)
VALUES ('regress_revenue', 'metric.regress_booked', 'Head of Sales');

-- Declared privileges, as the catalog records them.
SELECT schema_privs_are('clarify', 'public', ARRAY['USAGE'],
                        'anyone may look up objects in the clarify schema, nobody may create there');
SELECT table_privs_are('clarify', 'concepts', 'public', ARRAY['SELECT'], 'everyone may only read concepts');
SELECT table_privs_are('clarify', 'terms', 'public', ARRAY['SELECT'], 'everyone may only read terms');
SELECT table_privs_are('clarify', 'defaults', 'public', ARRAY['SELECT'], 'everyone may only read defaults');
SELECT table_privs_are('clarify', 'approvals', 'public', ARRAY[]::text[], 'nobody else may touch approvals');
SELECT table_privs_are('clarify', 'agent_roles', 'public', ARRAY[]::text[], 'nobody else may touch agent_roles');
SELECT table_privs_are('clarify', 'concept_columns', 'public', ARRAY[]::text[], 'nobody else may touch concept_columns');
SELECT table_privs_are('clarify', 'concepts', 'regress_agent', ARRAY['SELECT'], 'an agent may only read concepts');
SELECT table_privs_are('clarify', 'approvals', 'regress_agent', ARRAY[]::text[], 'an agent has no right on approvals');
SELECT ok(NOT has_any_column_privilege('regress_agent', 'clarify.concepts', 'INSERT, UPDATE, REFERENCES'),
          'no column-level write right either');
SELECT sequence_privs_are('clarify', 'defaults_id_seq', 'public', ARRAY[]::text[], 'nobody else may use defaults_id_seq');
SELECT sequence_privs_are('clarify', 'approvals_id_seq', 'public', ARRAY[]::text[], 'nobody else may use approvals_id_seq');

SELECT function_privs_are('clarify', 'resolve', ARRAY['text', 'text'], 'public', ARRAY['EXECUTE'],
                          'anyone may call resolve');
SELECT function_privs_are('clarify', 'check', ARRAY['text'], 'public', ARRAY['EXECUTE'],
                          'anyone may call check');
SELECT function_privs_are('clarify', 'last_decision', ARRAY[]::text[], 'public', ARRAY['EXECUTE'],
                          'anyone may call last_decision');
SELECT function_privs_are('clarify', 'gated', ARRAY[]::text[], 'public', ARRAY['EXECUTE'],
                          'anyone may call gated');
SELECT function_privs_are('clarify', 'eligible', ARRAY['clarify.concepts'], 'public', ARRAY['EXECUTE'],
                          'anyone may call eligible');
SELECT function_privs_are('clarify', 'confirm', ARRAY['text', 'text', 'text', 'regrole', 'text', 'interval', 'text'],
                          'public', ARRAY[]::text[], 'confirm is not for everyone');
SELECT function_privs_are('clarify', 'revoke', ARRAY['bigint'], 'public', ARRAY[]::text[],
                          'revoke is not for everyone');
SELECT function_privs_are('clarify', 'govern_role', ARRAY['regrole'], 'public', ARRAY[]::text[],
                          'govern_role is not for everyone');
SELECT function_privs_are('clarify', 'release_role', ARRAY['regrole'], 'public', ARRAY[]::text[],
                          'release_role is not for everyone');
SELECT function_privs_are('clarify', 'code_privileges', ARRAY['regrole'], 'public', ARRAY[]::text[],
                          'code_privileges is not for everyone');
SELECT function_privs_are('clarify_internal', 'catalog_changed', ARRAY[]::text[], 'public', ARRAY[]::text[],
                          'catalog_changed is not for everyone');

-- What an agent can actually do.
SET ROLE regress_agent;
SELECT lives_ok($$SELECT * FROM clarify.concepts$$, 'agent reads concepts');
SELECT lives_ok($$SELECT * FROM clarify.terms$$, 'agent reads terms');
SELECT lives_ok($$SELECT * FROM clarify.defaults$$, 'agent reads defaults');
SELECT lives_ok($$SELECT c.id FROM clarify.concepts c WHERE clarify.eligible(c)$$, 'agent asks which concepts are eligible');
SELECT throws_ok($$SELECT * FROM clarify.approvals$$, '42501',
                 'permission denied for table approvals', 'agent cannot read approvals');
SELECT throws_ok($$SELECT * FROM clarify.agent_roles$$, '42501',
                 'permission denied for table agent_roles', 'agent cannot read agent_roles');
SELECT throws_ok($$SELECT * FROM clarify.concept_columns$$, '42501',
                 'permission denied for table concept_columns', 'agent cannot read concept_columns');

SELECT throws_ok($$INSERT INTO clarify.concepts (id, kind, label) VALUES ('metric.regress_mine', 'metric', 'Mine')$$,
                 '42501', 'permission denied for table concepts', 'agent cannot insert concepts');
SELECT throws_ok($$UPDATE clarify.concepts SET status = 'approved'$$,
                 '42501', 'permission denied for table concepts', 'agent cannot update concepts');
SELECT throws_ok($$DELETE FROM clarify.concepts$$,
                 '42501', 'permission denied for table concepts', 'agent cannot delete concepts');
SELECT throws_ok($$TRUNCATE clarify.concepts CASCADE$$,
                 '42501', 'permission denied for table concepts', 'agent cannot truncate concepts');

SELECT throws_ok($$INSERT INTO clarify.terms VALUES ('regress_x', 'metric.regress_booked')$$,
                 '42501', 'permission denied for table terms', 'agent cannot insert terms');
SELECT throws_ok($$UPDATE clarify.terms SET term = 'regress_x'$$,
                 '42501', 'permission denied for table terms', 'agent cannot update terms');
SELECT throws_ok($$DELETE FROM clarify.terms$$,
                 '42501', 'permission denied for table terms', 'agent cannot delete terms');
SELECT throws_ok($$TRUNCATE clarify.terms CASCADE$$,
                 '42501', 'permission denied for table terms', 'agent cannot truncate terms');

SELECT throws_ok($$INSERT INTO clarify.defaults (term, concept_id, applies_to, approved_by)
                   VALUES ('regress_revenue', 'metric.regress_booked', 'regress_agent', 'me')$$,
                 '42501', 'permission denied for table defaults', 'agent cannot insert defaults');
SELECT throws_ok($$UPDATE clarify.defaults SET approved_by = 'me'$$,
                 '42501', 'permission denied for table defaults', 'agent cannot update defaults');
SELECT throws_ok($$DELETE FROM clarify.defaults$$,
                 '42501', 'permission denied for table defaults', 'agent cannot delete defaults');
SELECT throws_ok($$TRUNCATE clarify.defaults$$,
                 '42501', 'permission denied for table defaults', 'agent cannot truncate defaults');

SELECT throws_ok($$INSERT INTO clarify.approvals (question_id, concept_id, granted_to, confirmed_by, expires_at)
                   VALUES ('q_regress', 'metric.regress_booked', 'regress_agent', 'me', now() + interval '1 hour')$$,
                 '42501', 'permission denied for table approvals', 'agent cannot insert approvals');
SELECT throws_ok($$UPDATE clarify.approvals SET revoked_at = NULL$$,
                 '42501', 'permission denied for table approvals', 'agent cannot update approvals');
SELECT throws_ok($$DELETE FROM clarify.approvals$$,
                 '42501', 'permission denied for table approvals', 'agent cannot delete approvals');
SELECT throws_ok($$TRUNCATE clarify.approvals$$,
                 '42501', 'permission denied for table approvals', 'agent cannot truncate approvals');

SELECT throws_ok($$INSERT INTO clarify.concept_columns VALUES ('metric.regress_booked', 'clarify.concepts', 'id')$$,
                 '42501', 'permission denied for table concept_columns', 'agent cannot insert concept_columns');
SELECT throws_ok($$UPDATE clarify.concept_columns SET column_name = 'id'$$,
                 '42501', 'permission denied for table concept_columns', 'agent cannot update concept_columns');
SELECT throws_ok($$DELETE FROM clarify.concept_columns$$,
                 '42501', 'permission denied for table concept_columns', 'agent cannot delete concept_columns');
SELECT throws_ok($$TRUNCATE clarify.concept_columns$$,
                 '42501', 'permission denied for table concept_columns', 'agent cannot truncate concept_columns');

SELECT throws_ok($$INSERT INTO clarify.agent_roles VALUES ('regress_confirmer')$$,
                 '42501', 'permission denied for table agent_roles', 'agent cannot insert agent_roles');
SELECT throws_ok($$UPDATE clarify.agent_roles SET agent_role = 'regress_confirmer'$$,
                 '42501', 'permission denied for table agent_roles', 'agent cannot update agent_roles');
SELECT throws_ok($$DELETE FROM clarify.agent_roles$$,
                 '42501', 'permission denied for table agent_roles', 'agent cannot delete agent_roles (ungovern itself)');
SELECT throws_ok($$TRUNCATE clarify.agent_roles$$,
                 '42501', 'permission denied for table agent_roles', 'agent cannot truncate agent_roles');

SELECT throws_ok($$SELECT nextval('clarify.approvals_id_seq')$$,
                 '42501', 'permission denied for sequence approvals_id_seq', 'agent cannot use the approvals sequence');
SELECT throws_ok($$SELECT setval('clarify.defaults_id_seq', 1)$$,
                 '42501', 'permission denied for sequence defaults_id_seq', 'agent cannot reset the defaults sequence');

SELECT throws_ok($$SELECT clarify.confirm('q_regress', 'regress_revenue', 'metric.regress_booked', 'regress_agent', 'me')$$,
                 '42501', 'permission denied for function confirm', 'agent cannot execute confirm');
SELECT throws_ok($$SELECT clarify.revoke(1)$$,
                 '42501', 'permission denied for function revoke', 'agent cannot execute revoke');
SELECT throws_ok($$SELECT clarify.govern_role('regress_confirmer')$$,
                 '42501', 'permission denied for function govern_role', 'agent cannot execute govern_role');
SELECT throws_ok($$SELECT clarify.release_role('regress_agent')$$,
                 '42501', 'permission denied for function release_role', 'agent cannot execute release_role');
SELECT throws_ok($$CREATE TABLE clarify.regress_mine (x int)$$,
                 '42501', 'permission denied for schema clarify', 'agent cannot create objects in clarify');
RESET ROLE;

-- The confirmer: confirm and revoke, nothing else.
SET ROLE regress_confirmer;
SELECT lives_ok(
    $$SELECT clarify.confirm('q_regress_priv', 'regress_revenue', 'metric.regress_booked', 'regress_agent', 'alice')$$,
    'the confirmer records a confirmation without any table right');
SELECT throws_ok($$SELECT * FROM clarify.approvals$$, '42501',
                 'permission denied for table approvals', 'but cannot read approvals directly');
SELECT throws_ok($$UPDATE clarify.approvals SET expires_at = 'infinity'$$, '42501',
                 'permission denied for table approvals', 'nor extend a confirmation behind the functions'' back');
SELECT throws_ok($$SELECT clarify.govern_role('regress_confirmer')$$,
                 '42501', 'permission denied for function govern_role', 'nor decide who is an agent');
RESET ROLE;
SELECT is((SELECT confirmed_by FROM clarify.approvals WHERE question_id = 'q_regress_priv'), 'alice',
          'the confirmation was recorded');
SELECT set_config('regress.approval_id', id::text, true)
  FROM clarify.approvals WHERE question_id = 'q_regress_priv';
-- Who confirmed is the business's record, not the agent's to read: resolve() leaves it out for
-- an agent, and for anyone else who may not read approvals.
SET ROLE regress_agent;
SELECT is(clarify.resolve('regress_revenue', 'q_regress_priv') - 'options',
          jsonb_build_object('decision', 'RESOLVED', 'term', 'regress_revenue',
                             'selected', 'metric.regress_booked', 'source', 'user_confirmation',
                             'reason', 'confirmed by the user for question "q_regress_priv"',
                             'default', 'metric.regress_booked', 'default_applied', false,
                             'approval_id', current_setting('regress.approval_id')::bigint,
                             'version', (SELECT version FROM clarify.concepts
                                          WHERE id = 'metric.regress_booked'),
                             'confirmed_by', NULL),
          'an agent resolving a confirmed term is not told who confirmed it');
RESET ROLE;
-- A confirmation granted to a role that is not an agent: whoever relies on it is told who
-- confirmed only if allowed to read approvals.
CREATE ROLE regress_reader IN ROLE regress_confirmer;
SELECT clarify.confirm('q_regress_seen', 'regress_revenue', 'metric.regress_booked',
                       'regress_confirmer', 'bob') > 0 AS confirmed;
SET ROLE regress_confirmer;
SELECT is(clarify.resolve('regress_revenue', 'q_regress_seen') -> 'confirmed_by', 'null'::jsonb,
          'a role that cannot read approvals is not told who confirmed');
RESET ROLE;
GRANT SELECT ON clarify.approvals TO regress_reader;
SET ROLE regress_reader;
SELECT is(clarify.resolve('regress_revenue', 'q_regress_seen') ->> 'confirmed_by', 'bob',
          'one that may read approvals is');
RESET ROLE;
SET ROLE regress_confirmer;
SELECT lives_ok(
    $$SELECT clarify.revoke(current_setting('regress.approval_id')::bigint)$$,
    'the confirmer revokes a confirmation');
RESET ROLE;
SELECT isnt((SELECT revoked_at FROM clarify.approvals WHERE question_id = 'q_regress_priv'), NULL,
            'the confirmation was revoked');

-- govern_role and release_role are the owner's, even if EXECUTE is handed out by mistake.
GRANT EXECUTE ON FUNCTION clarify.govern_role(regrole), clarify.release_role(regrole) TO regress_confirmer;
SET ROLE regress_confirmer;
SELECT throws_ok($$SELECT clarify.govern_role('regress_confirmer')$$,
                 '42501', 'permission denied for table agent_roles',
                 'govern_role runs with the caller''s rights, so the table still refuses');
SELECT throws_ok($$SELECT clarify.release_role('regress_agent')$$,
                 '42501', 'permission denied for table agent_roles',
                 'release_role likewise');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
