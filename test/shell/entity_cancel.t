#!/usr/bin/env bash
# Entities (docs/reference.md, "Entities"): the lookup of a name runs before the statement, as
# the agent, and may be slow (a large table without an index on the name, a costly row-level
# security policy). A cancel or the statement's statement_timeout ends it like any statement:
# the statement is refused with the cancel's error, nothing is decided or audited for it, and
# the session goes on.
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
plan 6

start_test_cluster entity_cancel 55531 "shared_preload_libraries = 'pg_clarify'" "fsync = off"

psql_as postgres -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
CREATE EXTENSION pg_clarify;
CREATE TABLE big_customers (id int PRIMARY KEY, name text NOT NULL);
INSERT INTO big_customers SELECT g, 'Customer ' || g FROM generate_series(1, 200000) g;
-- No index on lower(name): the case-insensitive lookup reads every row, each through a policy
-- that takes a millisecond (minutes in all).
ALTER TABLE big_customers ENABLE ROW LEVEL SECURITY;
CREATE POLICY slow ON big_customers FOR SELECT USING (pg_sleep(0.001) IS NOT NULL);
CREATE ROLE agent LOGIN;
GRANT SELECT ON big_customers TO agent;
SELECT clarify.govern_role('agent');
INSERT INTO clarify.entities (relation, name_column, key_column, label, approved_by)
  VALUES ('big_customers', 'name', 'id', 'Customer', 'Sales ops');
SQL

# A cancel while the lookup sleeps in the policy: the statement's own scan has not started (the
# gate decides before it), so a sleeping backend on this statement is in the lookup.
psql_as agent -c "SELECT count(*) FROM big_customers WHERE name = 'Customer 7'" >/tmp/entity_cancel.$$ 2>&1 &
client=$!
pid=""
for _ in $(seq 1 300); do
    pid=$(psql_as postgres -c "SELECT pid FROM pg_stat_activity WHERE usename = 'agent' AND wait_event = 'PgSleep' AND query LIKE '%Customer 7%'")
    [[ -n $pid ]] && break
    sleep 0.1
done
check "the lookup is running (its policy sleeps)" test -n "$pid"
psql_as postgres -c "SELECT pg_cancel_backend($pid)" >/dev/null
wait "$client"
out=$(cat /tmp/entity_cancel.$$)
rm -f /tmp/entity_cancel.$$
contains "the cancel ends the statement during the lookup" "$out" "canceling statement due to user request"
audited=$(psql_as postgres -c "SELECT clarify.audit_wait(); SELECT count(*) FROM clarify.audit WHERE statement LIKE '%Customer 7%'" | tail -1)
equals "nothing is decided or audited for the cancelled statement" "$audited" "0"

# statement_timeout bounds the lookup too, and the session goes on afterwards.
out=$(psql_as agent -c "SET statement_timeout = '300ms'" \
    -c "SELECT count(*) FROM big_customers WHERE name = 'Customer 8'" -c "RESET statement_timeout" \
    -c "SELECT 'still here'")
contains "statement_timeout ends the lookup" "$out" "canceling statement due to statement timeout"
contains "the session goes on" "$out" "still here"
alive=$(psql_as postgres -c "SELECT count(*) FROM pg_stat_activity WHERE usename = 'agent'")
equals "no backend is left running the lookup" "$alive" "0"
finish
