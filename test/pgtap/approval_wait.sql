-- clarify.approval_wait on a primary: every committed row is already here, so it answers at once;
-- it answers true only about approvals the caller may read or that are granted to its roles.
BEGIN;
SELECT plan(10);

CREATE ROLE regress_wait_agents;
CREATE ROLE regress_wait_agent LOGIN IN ROLE regress_wait_agents;
CREATE ROLE regress_wait_other;
CREATE ROLE regress_wait_confirmer;
SELECT clarify.govern_role('regress_wait_agents');
GRANT EXECUTE ON FUNCTION clarify.confirm(text, text, text, regrole, text, interval, text)
    TO regress_wait_confirmer;

INSERT INTO clarify.concepts (id, kind, label, status, available) VALUES
    ('metric.regress_wait_booked', 'metric', 'Booked revenue', 'approved', true);
INSERT INTO clarify.terms VALUES ('regress_wait_revenue', 'metric.regress_wait_booked');

SELECT set_config('regress.mine', clarify.confirm('q_regress_wait', 'regress_wait_revenue',
    'metric.regress_wait_booked', 'regress_wait_agents', 'alice')::text, true) IS NOT NULL AS ok;
SELECT set_config('regress.theirs', clarify.confirm('q_regress_wait', 'regress_wait_revenue',
    'metric.regress_wait_booked', 'regress_wait_other', 'bob')::text, true) IS NOT NULL AS ok;

SELECT function_privs_are('clarify', 'approval_wait', ARRAY['bigint', 'interval'], 'public',
                          ARRAY['EXECUTE'], 'everyone may wait for an approval');
SELECT is(clarify.approval_wait(current_setting('regress.mine')::bigint),
          true, 'the owner sees a committed approval at once');
SELECT is(clarify.approval_wait((SELECT max(id) + 1000 FROM clarify.approvals), '1 hour'),
          false, 'an approval that does not exist: false at once on a primary, whatever the timeout');
SELECT is(clarify.approval_wait(NULL), NULL, 'no id, no answer');

SET ROLE regress_wait_agent;
SELECT is(clarify.approval_wait(current_setting('regress.mine')::bigint, '0 s'),
          true, 'an agent sees an approval granted to a role it belongs to');
SELECT is(clarify.approval_wait(current_setting('regress.theirs')::bigint, '1 hour'),
          false, 'an approval granted to another role does not exist for the agent');
SELECT throws_ok($$SELECT * FROM clarify.approvals$$, '42501', NULL,
                 'and the agent still cannot read approvals');
RESET ROLE;

SET ROLE regress_wait_confirmer;
SELECT is(clarify.approval_wait(current_setting('regress.mine')::bigint, '0 s'),
          false, 'a confirmer that may not read approvals learns nothing about other roles''');
RESET ROLE;
GRANT SELECT ON clarify.approvals TO regress_wait_confirmer;
SET ROLE regress_wait_confirmer;
SELECT is(clarify.approval_wait(current_setting('regress.theirs')::bigint, '0 s'),
          true, 'a role that may read approvals sees them all');
RESET ROLE;

SELECT ok(clarify.approval_wait(current_setting('regress.mine')::bigint, '-1 s'),
          'a negative timeout looks once');

SELECT * FROM finish();
ROLLBACK;
