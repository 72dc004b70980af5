-- clarify.revoke: withdrawing a confirmation keeps its row and stamps when it stopped counting.
BEGIN;
SELECT plan(12);
SET LOCAL client_min_messages = warning;  -- revoking twice says so in a NOTICE

CREATE ROLE regress_agent;
CREATE ROLE regress_confirmer;
GRANT EXECUTE ON FUNCTION clarify.revoke(bigint) TO regress_confirmer;

INSERT INTO clarify.concepts (id, kind, label, status) VALUES
    ('metric.regress_booked', 'metric', 'Booked revenue', 'approved');
INSERT INTO clarify.terms VALUES ('regress_revenue', 'metric.regress_booked');
SELECT set_config('regress.a1',
    clarify.confirm('q_regress_1', 'regress_revenue', 'metric.regress_booked', 'regress_agent', 'alice')::text, true)
    IS NOT NULL AS recorded;
SELECT set_config('regress.a2',
    clarify.confirm('q_regress_2', 'regress_revenue', 'metric.regress_booked', 'regress_agent', 'bob')::text, true)
    IS NOT NULL AS recorded;

SELECT lives_ok($$SELECT clarify.revoke(current_setting('regress.a1')::bigint)$$,
                'a confirmation can be revoked');
SELECT is((SELECT revoked_at FROM clarify.approvals WHERE id = current_setting('regress.a1')::bigint),
          now(), 'it is stamped as revoked now');
SELECT is((SELECT revoked_at FROM clarify.approvals WHERE id = current_setting('regress.a2')::bigint),
          NULL, 'other confirmations are untouched');

-- Revoking twice keeps the first moment.
UPDATE clarify.approvals SET revoked_at = now() - interval '1 hour'
 WHERE id = current_setting('regress.a1')::bigint;
SELECT lives_ok($$SELECT clarify.revoke(current_setting('regress.a1')::bigint)$$,
                'revoking again is harmless');
SELECT is((SELECT revoked_at FROM clarify.approvals WHERE id = current_setting('regress.a1')::bigint),
          now() - interval '1 hour', 'and keeps the moment of the first revocation');

SELECT throws_ok($$SELECT clarify.revoke(-1)$$, '42704', 'confirmation -1 does not exist',
                 'an unknown confirmation is refused');
SELECT throws_ok($$SELECT clarify.revoke(NULL)$$, '22004', 'approval_id must not be NULL',
                 'a missing id is refused');

SET ROLE regress_confirmer;
SELECT lives_ok($$SELECT clarify.revoke(current_setting('regress.a2')::bigint)$$,
                'the confirmer role revokes confirmations');
RESET ROLE;
SELECT isnt((SELECT revoked_at FROM clarify.approvals WHERE id = current_setting('regress.a2')::bigint),
            NULL, 'and the revocation is recorded');

-- An agent cannot revoke either, even with EXECUTE granted.
SELECT set_config('regress.a3',
    clarify.confirm('q_regress_3', 'regress_revenue', 'metric.regress_booked', 'regress_agent', 'carol')::text, true)
    IS NOT NULL AS recorded;
SELECT clarify.govern_role('regress_agent');
GRANT EXECUTE ON FUNCTION clarify.revoke(bigint) TO regress_agent;
SET ROLE regress_agent;
SELECT throws_ok($$SELECT clarify.revoke(current_setting('regress.a3')::bigint)$$,
                 '42501', 'agents cannot revoke confirmations', 'a governed role cannot revoke');
SELECT throws_ok($$SELECT clarify.revoke(-1)$$,
                 '42501', 'agents cannot revoke confirmations',
                 'the caller is refused before the id is looked at');
RESET ROLE;
SELECT is((SELECT revoked_at FROM clarify.approvals WHERE id = current_setting('regress.a3')::bigint),
          NULL, 'the agent''s attempt changed nothing');

SELECT * FROM finish();
ROLLBACK;
