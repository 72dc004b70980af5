#!/usr/bin/env bash
# What an idle server logs: after a burst of decisions the writer leaves idle without a line of
# its own (its counters are logged only when a note was dropped or a wait timed out, by database
# name). Counted over the idle seconds after the writer left.
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
plan 3

start_test_cluster log_lines 55449 "shared_preload_libraries = 'pg_clarify'" "fsync = off"
psql_as postgres -v ON_ERROR_STOP=1 >/dev/null <<SQL
CREATE ROLE agent LOGIN;
$(booked_orders_sql)
GRANT SELECT ON orders TO agent;
CREATE EXTENSION pg_clarify;
$(booked_catalog_sql)
SELECT clarify.govern_role('agent');
SQL
for _ in 1 2 3; do psql_as agent -c 'SELECT booked_amount FROM orders' >/dev/null; done
equals "the decisions were audited" \
    "$(psql_as postgres -c "SELECT clarify.audit_wait('30 s')" -c 'SELECT count(*) FROM clarify.audit' | tail -n 1)" "3"
for _ in $(seq 300); do # an idle writer leaves after 2 s; a loaded machine may take longer
    [[ -z $(psql_as postgres -c "SELECT writer_pid FROM clarify.audit_queue() WHERE database = current_database() AND writer_pid <> 0") ]] && break
    sleep 0.1
done
equals "the writer left idle" \
    "$(psql_as postgres -c "SELECT count(*) FROM clarify.audit_queue() WHERE database = current_database() AND writer_pid <> 0")" "0"
sleep 3
equals "its idle leave logged no line of pg_clarify's" "$(grep -c 'audit writer for database' "$dir/server.log")" "0"
finish
