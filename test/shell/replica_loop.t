#!/usr/bin/env bash
# Agents on a hot standby, the chat app on the primary: catalog, default and approval changes
# apply on the standby at its next statement after replay (one session kept open across them,
# checked with clarify.check and clarify.resolve, which write no audit); clarify.approval_wait
# waits for replay, honours cancels and statement_timeout, answers only about the caller's
# confirmations; the Python client's confirm waits for the agent's standby before the re-run;
# and the whole ask -> confirm -> re-run loop runs with the agent on the standby, no sleeps.
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
here=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-/usr/bin/python3}
plan 26

start_test_cluster replica_loop 55475 "shared_preload_libraries = 'pg_clarify'"
psql_as postgres -v ON_ERROR_STOP=1 -c "
  SET client_min_messages = error;
  CREATE EXTENSION pg_clarify;
  CREATE ROLE regress_rl_agent LOGIN;
  CREATE ROLE regress_rl_other;
  CREATE ROLE regress_rl_app LOGIN;
  CREATE ROLE regress_rl_member LOGIN;
  GRANT EXECUTE ON FUNCTION clarify.confirm, clarify.revoke TO regress_rl_app;
  CREATE SCHEMA rl;
  CREATE TABLE rl.orders (id int PRIMARY KEY, booked_amount numeric, recognized_amount numeric);
  INSERT INTO rl.orders SELECT g, g * 10, g * 9 FROM generate_series(1, 100) g;
  GRANT USAGE ON SCHEMA rl TO regress_rl_agent;
  GRANT SELECT ON rl.orders TO regress_rl_agent;
  INSERT INTO clarify.concepts (id, kind, label, description, status) VALUES
    ('metric.rl_booked', 'metric', 'Booked revenue', 'Value of accepted orders', 'approved'),
    ('metric.rl_recognized', 'metric', 'Recognized revenue', 'Revenue recognized', 'approved');
  INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES
    ('metric.rl_booked', 'rl.orders', 'booked_amount'),
    ('metric.rl_recognized', 'rl.orders', 'recognized_amount');
  INSERT INTO clarify.terms VALUES ('rl revenue', 'metric.rl_booked'),
                                   ('rl revenue', 'metric.rl_recognized');
  SELECT clarify.govern_role('regress_rl_agent');
  SELECT clarify.govern_role('regress_rl_other');" >/dev/null ||
    { echo "Bail out! the fixture could not be created"; exit 1; }
# How the standby's decisions reach the primary's audit (pg_clarify.audit_conninfo).
start_test_standby 55476 "pg_clarify.audit_conninfo = 'host=$dir port=$port user=postgres'"
wait_for_replay || { echo "Bail out! the standby did not catch up"; exit 1; }

while IFS=$'\t' read -r status name detail; do
    case $status in
        ok) pass "$name" ;;
        skip) skip "$name" "$detail" ;;
        *) fail "$name" "$detail" ;;
    esac
done < <(PRIMARY_HOST=$dir PRIMARY_PORT=$port STANDBY_HOST=$sdir STANDBY_PORT=$sport \
    "$PYTHON" "$here/replica_loop.py" 2>&1)

# The MCP server's database layer against the same standby, when scripts/test built it.
mcp_checks=("MCP: replay paused, the wait says false at its timeout"
    "MCP: the wait returns true once the standby replays the confirmation"
    "MCP: the re-run's check on the standby verifies the confirmation")
if ! command -v node >/dev/null || [[ ! -f $here/../../clients/mcp/dist/src/database.js ]]; then
    for name in "${mcp_checks[@]}"; do skip "$name" "the MCP server is not built"; done
else
    while IFS=$'\t' read -r status name detail; do
        case $status in
            ok) pass "$name" ;;
            *) fail "$name" "$detail" ;;
        esac
    done < <(PRIMARY_HOST=$dir PRIMARY_PORT=$port STANDBY_HOST=$sdir STANDBY_PORT=$sport \
        node "$here/replica_loop_mcp.mjs" 2>&1)
fi
finish
