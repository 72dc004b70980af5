-- Who is an agent: govern_role / release_role, and clarify.gated() as seen by the session
-- (session user or outer role is a member of a governed role; superuser status is not membership;
-- SECURITY DEFINER does not launder an agent).
BEGIN;
SELECT plan(21);

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
SELECT is((SELECT added_at FROM clarify.agent_roles WHERE agent_role = 'regress_agents'::regrole),
          now(), 'and is recorded as governed from now on');
SELECT lives_ok($$SELECT clarify.govern_role('regress_agents')$$, 'governing it again is harmless');
SELECT is((SELECT count(*)::int FROM clarify.agent_roles WHERE agent_role = 'regress_agents'::regrole), 1,
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
SELECT is((SELECT count(*)::int FROM clarify.agent_roles WHERE agent_role = 'regress_agents'::regrole), 0,
          'and is no longer governed');
SET ROLE regress_agent;
SELECT ok(NOT clarify.gated(), 'its members are no longer gated');
RESET ROLE;
SELECT throws_ok($$SELECT clarify.release_role('regress_agents')$$, '42704',
                 'role "regress_agents" is not governed by pg_clarify',
                 'releasing a role that is not governed is an error');
SELECT throws_ok($$SELECT clarify.release_role(NULL)$$, '22004', 'role must not be NULL',
                 'a missing role is refused');

SELECT * FROM finish();
ROLLBACK;
