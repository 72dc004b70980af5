#!/usr/bin/env bash
# Governed reads never depend on a free background-worker slot: the audit writers of the first
# pg_clarify.audit_writers databases are registered at server start and keep their slots. With
# every other slot held by parallel queries, a governed read is still decided and audited. A
# database beyond the reserved writers gets a dynamic one while a slot is free, and fails closed
# with QC005 when none is.
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
plan 13

holders=()
stopped= stopped_2=
before_cluster_stop() {
    [[ -n $stopped ]] && kill -CONT "$stopped" 2>/dev/null
    [[ -n $stopped_2 ]] && kill -CONT "$stopped_2" 2>/dev/null
    ((${#holders[@]})) && kill "${holders[@]}" 2>/dev/null
}
# One reserved writer, two queues: the second database audits through a dynamic writer.
start_test_cluster worker_slots 55443 "shared_preload_libraries = 'pg_clarify'" "fsync = off" \
    "max_worker_processes = 8" "pg_clarify.audit_writers = 1" "pg_clarify.audit_databases = 2"

setup="$(booked_orders_sql)
CREATE EXTENSION pg_clarify;
$(booked_catalog_sql)
GRANT SELECT ON orders TO agent;
SELECT clarify.govern_role('agent');"
psql_as postgres -v ON_ERROR_STOP=1 -c 'CREATE ROLE agent LOGIN' -c 'CREATE DATABASE second' \
    -c 'CREATE DATABASE third' >/dev/null
psql_as postgres -v ON_ERROR_STOP=1 <<<"$setup" >/dev/null
psql_as postgres -d second -v ON_ERROR_STOP=1 <<<"$setup" >/dev/null
psql_as postgres -d third -v ON_ERROR_STOP=1 <<<"$setup" >/dev/null

# Sessions whose parallel workers sleep (or who sleep themselves when they got none): seven of
# them take every free slot, as in the finding.
hold_worker_slots() {
    local i
    for i in $(seq 7); do
        "$PG_BINDIR/psql" -X -q -h "$dir" -p "$port" -U postgres -d postgres \
            -c "SET $PARALLEL_DEBUG = on" -c 'SELECT pg_sleep(120)' >/dev/null 2>&1 &
        holders+=($!)
    done
    for _ in $(seq 100); do
        [[ $(psql_as postgres -c "SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(120)' AND wait_event = 'PgSleep'") == 7 ]] && break
        sleep 0.1
    done
}
release_worker_slots() { # a backend in pg_sleep does not notice its client leave: cancel it
    psql_as postgres -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(120)' AND backend_type = 'client backend'" >/dev/null
    wait "${holders[@]}" 2>/dev/null
    holders=()
    for _ in $(seq 100); do
        [[ $(psql_as postgres -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'parallel worker'") == 0 ]] && break
        sleep 0.1
    done
}
no_free_slot() { # a new parallel query gets no worker
    psql_as postgres -c "SET $PARALLEL_DEBUG = on" \
        -c 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT 1' | grep -q 'Workers Launched: 0'
}
# hold_serving_writer [-d DB]: stops the writer serving DB's queue while it idles, so that the
# queue stays held; prints its pid (empty when it could not be caught idle).
hold_serving_writer() {
    local pid=
    for _ in $(seq 100); do
        psql_as agent "$@" -c 'SELECT booked_amount FROM orders' >/dev/null
        pid=$(serving_writer "$@")
        [[ -n $pid ]] && kill -STOP "$pid" && [[ $(serving_writer "$@") == "$pid" ]] && break
        [[ -n $pid ]] && kill -CONT "$pid"
        pid=
        sleep 0.1
    done
    echo "$pid"
}
# The writer serving this database's queue once it idles (an idle writer leaves after 2 s).
serving_writer() {
    psql_as postgres "$@" -c "SELECT a.pid FROM pg_stat_activity a JOIN clarify.audit_queue() q ON q.writer_pid = a.pid WHERE q.database = current_database() AND a.state = 'idle' AND a.wait_event = 'Extension'"
}
no_writer_left() { # an idle writer leaves after 2 s; a loaded machine may take longer to see it
    for _ in $(seq 300); do
        [[ -z $(psql_as postgres "$@" -c "SELECT writer_pid FROM clarify.audit_queue() WHERE database = current_database() AND writer_pid <> 0") ]] && return
        sleep 0.1
    done
}

hold_worker_slots
check "seven sessions hold every free worker slot" no_free_slot
out=$(psql_as agent -c 'SELECT booked_amount FROM orders' -c "SELECT clarify.last_decision()->>'audited'")
equals "a governed read is decided and audited meanwhile" "$out" $'10\ncommitted'
out=$(psql_as postgres -c "SELECT clarify.audit_wait('30 s')" \
    -c "SELECT count(*) FROM clarify.audit WHERE decision = 'allowed'" | tail -n 1)
equals "its row is in the audit" "$out" "1"

# The reserved writer leaves when idle and is back, still holding its slot, for the next read.
no_writer_left
out=$(psql_as agent -c 'SELECT booked_amount FROM orders' -c "SELECT clarify.last_decision()->>'audited'")
equals "after the writer left idle, the next read is audited again" "$out" $'10\ncommitted'
# Terminated (pg_terminate_backend), it is started again in its own slot.
writer=
for _ in $(seq 50); do
    writer=$(serving_writer)
    [[ -n $writer ]] && break
    psql_as agent -c 'SELECT booked_amount FROM orders' >/dev/null
    sleep 0.1
done
psql_as postgres -c "SELECT pg_terminate_backend(${writer:-0})" >/dev/null
out=$(psql_as agent -c 'SELECT booked_amount FROM orders' -c "SELECT clarify.last_decision()->>'audited'")
equals "after the reserved writer was terminated, the next read is audited again" "$out" \
    $'10\ncommitted'
release_worker_slots

# Keep the reserved writer serving the first database (stopped while idle), so that the second
# database needs a writer beyond the reserved one.
# The writer shows as idle only between its rounds: a loaded machine may need many looks.
for _ in $(seq 100); do
    psql_as agent -c 'SELECT booked_amount FROM orders' >/dev/null
    stopped=$(serving_writer)
    [[ -n $stopped ]] && kill -STOP "$stopped" && [[ $(serving_writer) == "$stopped" ]] && break
    [[ -n $stopped ]] && kill -CONT "$stopped"
    stopped=
    sleep 0.1
done
check "the reserved writer is held by the first database" test -n "$stopped"
out=$(psql_as agent -d second -c 'SELECT booked_amount FROM orders' -c "SELECT clarify.last_decision()->>'audited'")
equals "a second database is audited by a dynamic writer while a slot is free" "$out" $'10\ncommitted'
no_writer_left -d second

hold_worker_slots
check "the slots are held again" no_free_slot
out=$(psql_as agent -d second -v VERBOSITY=verbose -c 'SELECT booked_amount FROM orders')
contains "beyond the reserved writers and with no free slot, the read fails closed with QC005" \
    "$out" "ERROR:  QC005"
contains "its reason names the missing writer" "$out" "no audit writer could serve this database"
release_worker_slots
[[ -n $stopped ]] && kill -CONT "$stopped"
stopped=
out=$(psql_as agent -d second -c 'SELECT booked_amount FROM orders')
equals "once a slot is free, the second database is audited again" "$out" "10"

# Both queues held (each by a writer stopped while it idles): a third database has none, and the
# refusal names the setting to raise with its value.
stopped=$(hold_serving_writer)
stopped_2=$(hold_serving_writer -d second)
check "both queues are held by the first two databases" test -n "$stopped" -a -n "$stopped_2"
out=$(psql_as agent -d third -v VERBOSITY=verbose -c 'SELECT booked_amount FROM orders')
contains "a third database fails closed with QC005 naming pg_clarify.audit_databases and its value" \
    "$out" "all pg_clarify.audit_databases = 2 queues serve other databases"
kill -CONT "$stopped" "$stopped_2"
stopped= stopped_2=
finish
