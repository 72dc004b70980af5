#!/usr/bin/env bash
# A writer that leaves with entries queued is replaced promptly, not at the next decision: the
# writer is stopped (pg_terminate_backend) while its batch cannot be written, with decisions that
# were already answered in its queue; no statement is decided after that, and their rows appear.
# Once with writers started on demand (only the audit keeper can replace one), once with a
# reserved writer.
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
plan 12

locker_pid=
before_cluster_stop() { [[ -n $locker_pid ]] && kill "$locker_pid" 2>/dev/null; }
start_test_cluster writer_replaced 55447 "shared_preload_libraries = 'pg_clarify'" \
    "pg_clarify.audit_writers = 0"
export PGHOST=$dir PGPORT=$port PGUSER=postgres PGDATABASE=postgres
q() { "$PG_BINDIR/psql" -X -qAt -v ON_ERROR_STOP=1 -c "$1" 2>&1; }
q "$(fault_schema_sql)" >/dev/null

writer_pid() {
    q "SELECT pid FROM pg_stat_activity WHERE backend_type = 'pg_clarify audit writer' AND datname = 'postgres'"
}
# poll SECONDS CONDITION-SQL: until the query returns t.
poll() {
    local i
    for ((i = 0; i < $1 * 10; i++)); do
        [[ $(q "$2") == t ]] && return 0
        sleep 0.1
    done
    return 1
}

# round NAME: decisions answered while the writer cannot write (its table locked), the writer
# stopped and its batch cancelled, the lock released; no statement is decided after that.
round() {
    local name=$1 writer replaced
    "$PG_BINDIR/psql" -X -qAt -c "BEGIN" -c "LOCK TABLE clarify.audit_batches IN ACCESS EXCLUSIVE MODE" \
        -c "SELECT pg_sleep(120)" >/dev/null 2>&1 &
    locker_pid=$!
    poll 10 "SELECT count(*) = 1 FROM pg_locks WHERE relation = 'clarify.audit_batches'::regclass AND mode = 'AccessExclusiveLock' AND granted"
    local answers
    answers=$("$PG_BINDIR/psql" -X -qAt -U regress_fault_agent \
        -c "SET pg_clarify.resolution = '{\"question_id\": \"${name}_1\"}'" \
        -c "SELECT booked_amount FROM fault.orders WHERE id = 1" \
        -c "SET pg_clarify.resolution = '{\"question_id\": \"${name}_2\"}'" \
        -c "SELECT booked_amount FROM fault.orders WHERE id = 2" \
        -c "SET pg_clarify.resolution = '{\"question_id\": \"${name}_3\"}'" \
        -c "SELECT booked_amount FROM fault.orders WHERE id = 3" 2>&1 | tr '\n' ' ')
    equals "$name: three decisions are answered while the writer cannot write" "$answers" "1.5 3.0 4.5 "
    poll 10 "SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'pg_clarify audit writer' AND datname = 'postgres'"
    writer=$(writer_pid)
    # Its batch waits for the lock: stopped, it would finish it; cancelled too, it leaves with it.
    q "SELECT pg_terminate_backend($writer); SELECT pg_cancel_backend($writer)" >/dev/null
    poll 10 "SELECT count(*) = 0 FROM pg_stat_activity WHERE pid = $writer"
    check "$name: the writer (pid $writer) left with the decisions queued" \
        poll 5 "SELECT pending_bytes > 0 FROM clarify.audit_queue() WHERE database = 'postgres'"
    poll 5 "SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'pg_clarify audit writer' AND datname = 'postgres' AND pid <> $writer"
    replaced=$?
    check "$name: another writer took over without a new decision" test "$replaced" -eq 0
    kill "$locker_pid" 2>/dev/null
    wait "$locker_pid" 2>/dev/null
    locker_pid=
    q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(120)%'" >/dev/null
    check "$name: the queued decisions become rows with no statement decided since" \
        poll 20 "SELECT count(*) = 3 FROM clarify.audit WHERE question_id LIKE '${name}\\_%' AND decision = 'allowed'"
    equals "$name: clarify.audit_wait() sees them" "$(q "SELECT clarify.audit_wait('10 s')")" "t"
    equals "$name: none was written twice" \
        "$(q "SELECT count(*) - count(DISTINCT decision_id) FROM clarify.audit_log")" "0"
}

round on_demand
as_cluster_owner "$PG_BINDIR/pg_ctl" -D "$dir/data" -o "-c pg_clarify.audit_writers=1" \
    -l "$dir/server.log" -w restart >/dev/null 2>&1
# The reserved writer registers itself once the server is up; a decision before that starts a
# writer on demand instead.
sleep 2
round reserved
finish
