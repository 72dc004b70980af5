#!/usr/bin/env bash
# A decision's entity bindings (the key a name resolved to) are part of its queue entry, so a
# sync decision only the write-ahead log held when the server stopped is materialised after the
# restart with its own key, and decisions naming two customers share one shape.
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
plan 5

locker_pid=
before_cluster_stop() { [[ -n $locker_pid ]] && kill "$locker_pid" 2>/dev/null; }
start_test_cluster entity_crash 55484 "shared_preload_libraries = 'pg_clarify'"
export PGHOST=$dir PGPORT=$port PGUSER=postgres PGDATABASE=postgres

psql_as postgres -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
CREATE EXTENSION pg_clarify;
CREATE SCHEMA ec;
CREATE TABLE ec.clients (id int PRIMARY KEY, name text NOT NULL, mrr numeric);
INSERT INTO ec.clients VALUES (1, 'Alpha', 100), (2, 'Beta', 200);
CREATE ROLE agent LOGIN;
GRANT USAGE ON SCHEMA ec TO agent;
GRANT SELECT ON ec.clients TO agent;
SELECT clarify.govern_role('agent');
INSERT INTO clarify.entities (relation, name_column, key_column, label, approved_by)
  VALUES ('ec.clients', 'name', 'id', 'Client', 'ops');
SQL

# The writer held off: the decisions are durable in the WAL only when the server stops.
"$PG_BINDIR/psql" -X -qAt -c "BEGIN" -c "LOCK TABLE clarify.audit_batches IN ACCESS EXCLUSIVE MODE" \
    -c "SELECT pg_sleep(60)" >/dev/null 2>&1 &
locker_pid=$!
sleep 1
ran=$(psql_as agent -v ON_ERROR_STOP=1 2>&1 <<'SQL'
SHOW pg_clarify.audit_mode;
PREPARE by_name(text) AS SELECT id FROM ec.clients WHERE name = $1;
EXECUTE by_name('Alpha');
EXECUTE by_name('Beta');
EXECUTE by_name('Alpha');
SQL
)
equals "three sync decisions naming two clients ran" "$(echo $ran)" "sync 1 2 1"
as_cluster_owner "$PG_BINDIR/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1
kill "$locker_pid" 2>/dev/null
wait "$locker_pid" 2>/dev/null
locker_pid=
as_cluster_owner "$PG_BINDIR/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w start >/dev/null 2>&1
equals "the audit caught up after the restart" "$(psql_as postgres -c "SELECT clarify.audit_wait('60 s')")" "t"
check "the restarted writer replayed decisions only the WAL held" \
    grep -q "replaying [1-9][0-9]* decisions" "$dir/server.log"
equals "each replayed decision binds its own key" \
    "$(psql_as postgres -c "SELECT string_agg(b->>'key', ' ' ORDER BY decision_id) FROM clarify.audit a, jsonb_array_elements(a.bindings) b WHERE a.statement LIKE 'PREPARE by_name%' AND b->>'kind' = 'entity'")" \
    "1 2 1"
equals "the three decisions share one shape" \
    "$(psql_as postgres -c "SELECT count(*) || ' ' || count(DISTINCT l.shape_hash) FROM clarify.audit_log l JOIN clarify.audit_texts t ON t.hash = l.statement_hash WHERE t.body LIKE 'PREPARE by_name%'")" \
    "3 1"
finish
