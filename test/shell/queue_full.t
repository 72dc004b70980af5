#!/usr/bin/env bash
# A decision that finds the audit queue full waits up to pg_clarify.audit_timeout for room, in
# async mode as in sync, then fails closed with QC005 saying so: load never lets a statement run
# unaudited. A refused decision was never queued, so the audit gets neither its row nor a
# "refused" note about it, and the server log names it. Once the writer can write again,
# service resumes.
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
plan 15

locker_pid=
flooders=()
before_cluster_stop() {
    [[ -n $locker_pid ]] && kill "$locker_pid" 2>/dev/null
    ((${#flooders[@]})) && kill "${flooders[@]}" 2>/dev/null
}
# The smallest queue: 256 kB for each database (three decisions on 60 kB statements).
start_test_cluster queue_full 55441 "shared_preload_libraries = 'pg_clarify'" \
    "pg_clarify.audit_queue_size = '256kB'" "fsync = off"

psql_as postgres -v ON_ERROR_STOP=1 >/dev/null <<SQL
$(booked_orders_sql)
CREATE EXTENSION pg_clarify;
$(booked_catalog_sql)
CREATE ROLE agent_sync LOGIN;
CREATE ROLE agent_async LOGIN;
CREATE ROLE agent_patient LOGIN;
GRANT SELECT ON orders TO agent_sync, agent_async, agent_patient;
SELECT clarify.govern_role('agent_sync');
SELECT clarify.govern_role('agent_async');
SELECT clarify.govern_role('agent_patient');
ALTER ROLE agent_async SET pg_clarify.audit_mode = 'async';
ALTER ROLE agent_async SET pg_clarify.audit_timeout = 300;
ALTER ROLE agent_patient SET pg_clarify.audit_mode = 'async';
ALTER ROLE agent_patient SET pg_clarify.audit_timeout = 60000;
ALTER ROLE agent_sync SET pg_clarify.audit_timeout = 300;
SQL
out=$(psql_as agent_sync -c 'SELECT booked_amount FROM orders')
equals "a sync decision is written while the writer can write" "$out" "10"

# padded MARKER...: statements that print their marker when they run, each unique and 60 kB long.
pad=$(printf '%*s' 60000 '' | tr ' ' 'x')
padded() {
    local marker
    for marker in "$@"; do
        echo "SELECT '$marker' FROM orders WHERE booked_amount > 0 /* $marker $pad */;"
    done
}
tmp=$(mktemp -d /tmp/pg_clarify_queue_full.XXXXXX)
on_exit 'rm -rf "$tmp"'

# Hold the audit's tables so the writer cannot write.
"$PG_BINDIR/psql" -X -q -h "$dir" -p "$port" -U postgres -d postgres \
    -c 'BEGIN' -c 'LOCK TABLE clarify.audit_log IN ACCESS EXCLUSIVE MODE' -c 'SELECT pg_sleep(60)' \
    >/dev/null 2>&1 &
locker_pid=$!
for _ in $(seq 50); do
    [[ $(psql_as postgres -c "SELECT count(*) FROM pg_locks WHERE mode = 'AccessExclusiveLock' AND granted AND relation = 'clarify.audit_batches'::regclass") == 1 ]] && break
    sleep 0.1
done

# Three async sessions flood the queue with unique 60 kB statements at once.
for s in 1 2 3; do
    padded $(seq -f "flood_${s}_%g" 8) | psql_as agent_async >"$tmp/flood_$s.out" &
    flooders+=($!)
done
wait "${flooders[@]}"
flooders=()
flood=$(cat "$tmp"/flood_*.out)
ran=$(grep -c '^flood_' <<<"$flood")
refused=$(grep -c 'ERROR:  the decision could not be written to the audit: the audit queue had no room within pg_clarify.audit_timeout' <<<"$flood")
equals "every flooding statement either ran or failed closed ($ran ran, $refused refused)" \
    "$((ran + refused))" "24"
check "async decisions facing a full queue fail closed with QC005" test "$refused" -gt 0

# Small decisions fill what room is left, until one of them finds none.
out=$(psql_as agent_async -c 'DO $$ BEGIN FOR i IN 1..5000 LOOP PERFORM booked_amount FROM orders; END LOOP; END $$')
contains "async decisions fill the queue until one fails closed" "$out" "the audit queue had no room"

out=$(psql_as agent_sync -v VERBOSITY=verbose -c 'SELECT booked_amount FROM orders' -c "SELECT clarify.last_decision()->>'decision_id'")
contains "a sync decision facing a full queue fails closed with QC005" "$out" "ERROR:  QC005"
contains "its reason says the queue had no room" "$out" "the audit queue had no room within pg_clarify.audit_timeout"
id=$(grep -o '"decision_id":"[0-9]*"' <<<"$out" | head -n 1 | grep -o '[0-9]*')

# An async decision given time waits for room, and runs once the writer makes some.
padded patient | psql_as agent_patient >"$tmp/patient.out" &
patient=$!
waiting=
for _ in $(seq 50); do
    waiting=$(psql_as postgres -c "SELECT count(*) FROM pg_stat_activity WHERE usename = 'agent_patient' AND state = 'active' AND wait_event = 'Extension'")
    [[ $waiting == 1 ]] && break
    sleep 0.1
done
sleep 0.5
waiting=$(psql_as postgres -c "SELECT count(*) FROM pg_stat_activity WHERE usename = 'agent_patient' AND state = 'active' AND wait_event = 'Extension'")
equals "an async decision facing a full queue waits for room" "$waiting" "1"

# The wait serves interrupts: statement_timeout ends it while the queue is still full.
out=$( (echo 'SET statement_timeout = 500;'; padded impatient) | psql_as agent_patient)
contains "statement_timeout ends an async decision's wait for room" "$out" \
    "canceling statement due to statement timeout"
check "while the queue is still full" kill -0 "$patient"

kill "$locker_pid" 2>/dev/null
wait "$locker_pid" 2>/dev/null
locker_pid=
wait "$patient"
equals "and runs once the writer has made room" "$(cat "$tmp/patient.out")" "patient"

for _ in $(seq 100); do
    [[ $(psql_as postgres -c "SELECT pending_bytes FROM clarify.audit_queue() WHERE database = current_database()") == 0 ]] && break
    sleep 0.1
done
markers=$(cat "$tmp"/flood_*.out "$tmp/patient.out" | grep -E '^(flood_|patient)' | LC_ALL=C sort | tr '\n' ' ')
rows=$(psql_as postgres -c "SELECT split_part(statement, '''', 2) FROM clarify.audit WHERE statement LIKE 'SELECT ''%'" | LC_ALL=C sort | tr '\n' ' ')
equals "every statement that ran has its row, and no other does" "$rows" "$markers"
out=$(psql_as postgres -c "SELECT dropped FROM clarify.audit_queue() WHERE database = current_database()")
equals "no decision was dropped" "$out" "0"

out=$(psql_as postgres -c "SELECT (SELECT count(*) FROM clarify.audit WHERE decision_id = ${id:-0}) + (SELECT count(*) FROM clarify.audit_notes WHERE decision_id = ${id:-0})")
equals "the refused decision has neither a row nor a note (it was never queued)" "${id:+found }$out" "found 0"
contains "the server log names the unaudited refusal" "$(cat "$dir/server.log")" \
    "pg_clarify refused decision ${id:-?} unaudited: the audit queue had no room"
out=$(psql_as agent_sync -c 'SELECT booked_amount FROM orders')
equals "service resumes once the writer can write" "$out" "10"
finish
