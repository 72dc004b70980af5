-- Who is an agent: govern_role / release_role, and clarify.gated() as seen by the session
-- (session user or outer role is a member of a governed role; superuser status is not membership;
-- SECURITY DEFINER does not launder an agent).
BEGIN;
SELECT plan(31);

CREATE ROLE regress_agents;                                   -- the governed group
CREATE ROLE regress_agent LOGIN IN ROLE regress_agents;       -- a login in it
CREATE ROLE regress_human LOGIN;
CREATE ROLE regress_nested IN ROLE regress_agent;             -- member of a member
CREATE ROLE regress_super SUPERUSER;

-- A definer function owned by a superuser, to see through SECURITY DEFINER.
CREATE FUNCTION pg_temp.regress_definer_gated() RETURNS boolean
    LANGUAGE sql SECURITY DEFINER AS $$SELECT clarify.gated()$$;

SELECT ok(NOT clarify.gated(), 'nobody is gated before a role is governed');

SELECT lives_ok($$SELECT clarify.govern_role('regress_agents')$$, 'a role can be governed');
SELECT is((SELECT added_at FROM clarify.agent_roles WHERE agent_role = 'regress_agents'),
          now(), 'and is recorded as governed from now on');
SELECT lives_ok($$SELECT clarify.govern_role('regress_agents')$$, 'governing it again is harmless');
SELECT is((SELECT count(*)::int FROM clarify.agent_roles WHERE agent_role = 'regress_agents'), 1,
          'and records it once');
SELECT throws_ok($$SELECT clarify.govern_role(NULL)$$, '22004', 'role must not be NULL',
                 'a missing role is refused');
SELECT throws_ok($$SELECT clarify.govern_role('regress_nobody')$$, '42704', 'role "regress_nobody" does not exist',
                 'an unknown role is refused');

-- gated() from the session's point of view.
SELECT ok(NOT clarify.gated(), 'a superuser session is not gated by superuser status alone');
SET ROLE regress_agents;
SELECT ok(clarify.gated(), 'the governed role itself is gated');
RESET ROLE;
SET ROLE regress_agent;
SELECT ok(clarify.gated(), 'a member of the governed role is gated');
SELECT ok(pg_temp.regress_definer_gated(), 'and stays gated inside a SECURITY DEFINER function');
RESET ROLE;
SET ROLE regress_nested;
SELECT ok(clarify.gated(), 'membership counts through several levels');
RESET ROLE;
SET ROLE regress_human;
SELECT ok(NOT clarify.gated(), 'a role outside the governed group is not gated');
RESET ROLE;

GRANT regress_human TO regress_agent;
SET SESSION AUTHORIZATION regress_agent;
SET ROLE regress_human;
SELECT ok(clarify.gated(), 'an agent login that switches to an ungoverned role is still gated');
RESET ROLE;
RESET SESSION AUTHORIZATION;

GRANT regress_agents TO regress_human;
SET SESSION AUTHORIZATION regress_human;
SELECT ok(clarify.gated(), 'a session user that is a member of a governed role is gated');
RESET SESSION AUTHORIZATION;
REVOKE regress_agents FROM regress_human;

SET LOCAL client_min_messages = error;  -- governing a superuser warns; expected here
SELECT clarify.govern_role('regress_super');
RESET client_min_messages;
SET ROLE regress_super;
SELECT ok(clarify.gated(), 'a governed superuser role is gated (it is a member of itself)');
RESET ROLE;
SELECT clarify.release_role('regress_super');

-- Releasing.
SELECT lives_ok($$SELECT clarify.release_role('regress_agents')$$, 'a governed role can be released');
SELECT is((SELECT count(*)::int FROM clarify.agent_roles WHERE agent_role = 'regress_agents'), 0,
          'and is no longer governed');
SET ROLE regress_agent;
SELECT ok(NOT clarify.gated(), 'its members are no longer gated');
RESET ROLE;
SELECT throws_ok($$SELECT clarify.release_role('regress_agents')$$, '42704',
                 'role "regress_agents" is not governed by pg_clarify',
                 'releasing a role that is not governed is an error');
SELECT throws_ok($$SELECT clarify.release_role(NULL)$$, '22004', 'role must not be NULL',
                 'a missing role is refused');

-- Roles that can create code: code an agent owns runs with its identity when others use it, so
-- govern_role warns (it does not refuse). code_privileges says what allows it, and how to take it
-- away; the warning's text itself is in the regression test sql/gating.sql.
CREATE ROLE regress_coder;
CREATE ROLE regress_coders;
CREATE SCHEMA regress_scratch;
SELECT current_database() AS db \gset
SELECT ok(EXISTS (SELECT 1 FROM clarify.code_privileges('regress_coder')
                   WHERE privilege = format('TEMP on database %I, granted to PUBLIC', :'db')
                     AND revoke = format('REVOKE TEMP ON DATABASE %I FROM PUBLIC;', :'db')),
          'TEMP granted to PUBLIC, as in a stock database, lets a role create functions');
SET LOCAL client_min_messages = error;  -- the warning itself is checked in sql/gating.sql
SELECT lives_ok($$SELECT clarify.govern_role('regress_coder')$$,
                'governing such a role warns but is not refused');
RESET client_min_messages;
SELECT ok(EXISTS (SELECT 1 FROM clarify.agent_roles WHERE agent_role = 'regress_coder'),
          'and the role is governed');

REVOKE TEMP ON DATABASE :"db" FROM PUBLIC;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
SELECT is_empty($$SELECT * FROM clarify.code_privileges('regress_coder')$$,
                'once TEMP and CREATE are revoked from PUBLIC, nothing is left to warn about');

GRANT CREATE ON SCHEMA regress_scratch TO regress_coders;
GRANT regress_coders TO regress_coder;
SELECT results_eq(
    $$SELECT privilege, revoke FROM clarify.code_privileges('regress_coder')$$,
    $$VALUES ('CREATE on schema regress_scratch, granted to regress_coders',
              'REVOKE CREATE ON SCHEMA regress_scratch FROM regress_coders;')$$,
    'CREATE on a schema through a role it belongs to counts');
REVOKE CREATE ON SCHEMA regress_scratch FROM regress_coders;

GRANT TEMP ON DATABASE :"db" TO regress_coder;
SELECT results_eq(
    $$SELECT revoke FROM clarify.code_privileges('regress_coder')$$,
    ARRAY[format('REVOKE TEMP ON DATABASE %I FROM regress_coder;', :'db')],
    'TEMP granted to the role itself counts');
REVOKE TEMP ON DATABASE :"db" FROM regress_coder;

GRANT CREATE ON DATABASE :"db" TO regress_coders;
SELECT results_eq(
    $$SELECT revoke FROM clarify.code_privileges('regress_coder')$$,
    ARRAY[format('REVOKE CREATE ON DATABASE %I FROM regress_coders;', :'db')],
    'CREATE on the database (a schema of its own, then functions in it) counts');
REVOKE CREATE ON DATABASE :"db" FROM regress_coders;

ALTER SCHEMA regress_scratch OWNER TO regress_coders;
SELECT results_eq(
    $$SELECT privilege, revoke FROM clarify.code_privileges('regress_coder')$$,
    $$VALUES ('owns schema regress_scratch',
              'ALTER SCHEMA regress_scratch OWNER TO <another role>;')$$,
    'owning a schema counts, since an owner can always grant itself CREATE');
ALTER SCHEMA regress_scratch OWNER TO CURRENT_USER;

SELECT is_empty($$SELECT * FROM clarify.code_privileges('regress_human')$$,
                'a role without any of these can create no code');
SELECT results_eq($$SELECT privilege FROM clarify.code_privileges('regress_super')$$,
                  ARRAY['is a superuser'], 'a superuser can do anything: it is said once');

SELECT * FROM finish();
ROLLBACK;
