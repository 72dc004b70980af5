#!/usr/bin/env bash
# Sync decisions are durable in the write-ahead log before the statement goes on, and the writer
# materialises them later: after an immediate shutdown, or the SIGKILL of one backend, under sync
# load of several clients, every decision a client was answered for is in clarify.audit once the
# server is back, and none twice. A writer held down past pg_clarify.audit_retained_wal makes
# sync decisions fail closed with QC005; once it writes again, they pass and nothing is lost.
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
here=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-/usr/bin/python3}
plan 17

locker_pid=
load_pid=
out=$(mktemp /tmp/pg_clarify_durable.XXXXXX)
before_cluster_stop() {
    [[ -n $locker_pid ]] && kill "$locker_pid" 2>/dev/null
    [[ -n $load_pid ]] && kill "$load_pid" 2>/dev/null
    rm -f "$out" "$out.log"
}
crashes_expected=1 # a backend's SIGKILL restarts the server
start_test_cluster sync_durable 55448 "shared_preload_libraries = 'pg_clarify'" \
    "pg_clarify.audit_retained_wal = '1MB'" "wal_keep_size = 0" "max_wal_size = '1GB'"
export PGHOST=$dir PGPORT=$port PGUSER=postgres PGDATABASE=postgres FAULT_AGENT=regress_fault_agent
q() { "$PG_BINDIR/psql" -X -qAt -v ON_ERROR_STOP=1 -c "$1" 2>&1; }

q "$(fault_schema_sql)" >/dev/null

# Every answered question id has exactly one row; no decision id is there twice.
check_answered() {
    local what=$1 answered missing twice
    answered=$(wc -l <"$out")
    if ((answered > 50)); then pass "$what: clients were answered $answered times"; else
        fail "$what: clients were answered" "only $answered"; fi
    equals "$what: the audit caught up (audit_wait)" "$(q "SELECT clarify.audit_wait('60 s')")" "t"
    missing=$( (echo "CREATE TEMP TABLE answered (qid text, outcome text);"
                echo "COPY answered FROM STDIN;"; cat "$out"; echo '\.'
                echo "SELECT count(*) FROM answered a LEFT JOIN (SELECT question_id, count(*) AS n, bool_and(decision = 'allowed') AS allowed FROM clarify.audit GROUP BY 1) u ON u.question_id = a.qid WHERE u.n IS DISTINCT FROM 1 OR (a.outcome = 'ok') <> u.allowed;") |
              "$PG_BINDIR/psql" -X -qAt 2>&1 | tail -n 1)
    equals "$what: every answered decision is in the audit once, as answered" "$missing" "0"
    twice=$(q "SELECT count(*) - count(DISTINCT decision_id) FROM clarify.audit_log")
    equals "$what: no decision is there twice" "$twice" "0"
}

wait_ready() { for _ in $(seq 1 120); do "$PG_BINDIR/pg_isready" -q && return 0; sleep 0.25; done; return 1; }

# 1. Immediate shutdown under sync load of 4 clients, then a restart.
"$PYTHON" "$here/../fault/agent_load.py" 5 4 "$out" >"$out.log" 2>&1 &
load_pid=$!
sleep 2
# The writer held off for the last second: the stop surely finds decisions not yet rows.
"$PG_BINDIR/psql" -X -qAt -c "BEGIN" -c "LOCK TABLE clarify.audit_batches IN ACCESS EXCLUSIVE MODE" \
    -c "SELECT pg_sleep(60)" >/dev/null 2>&1 &
locker_pid=$!
sleep 1
as_cluster_owner "$PG_BINDIR/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1
kill "$locker_pid" 2>/dev/null
wait "$locker_pid" 2>/dev/null
locker_pid=
as_cluster_owner "$PG_BINDIR/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w start >/dev/null 2>&1
check "the server is back after an immediate shutdown under load" wait_ready
wait "$load_pid"
load_pid=
sed 's/^/# /' "$out.log"
check_answered "immediate shutdown"
replayed=$(grep -c "replaying [1-9][0-9]* decisions" "$dir/server.log")
check "the restarted writer replayed decisions only the WAL held" test "$replayed" -ge 1

# 2. SIGKILL of one agent backend under load (the postmaster restarts every process).
: >"$out"
FAULT_PREFIX=killed "$PYTHON" "$here/../fault/agent_load.py" 5 4 "$out" >"$out.log" 2>&1 &
load_pid=$!
sleep 3
victim=$(q "SELECT pid FROM pg_stat_activity WHERE usename = 'regress_fault_agent' LIMIT 1")
if [[ -n $victim ]]; then
    as_cluster_owner kill -KILL "$victim"
    pass "an agent backend (pid $victim) was killed with SIGKILL under load"
else
    fail "an agent backend was running under load"
fi
wait "$load_pid"
load_pid=
sed 's/^/# /' "$out.log"
wait_ready
check_answered "SIGKILL of a backend"

# 3. The writer held down (its table locked) while WAL grows past the retention bound.
"$PG_BINDIR/psql" -X -qAt -c "BEGIN" -c "LOCK TABLE clarify.audit_batches IN ACCESS EXCLUSIVE MODE" \
    -c "SELECT pg_sleep(120)" >/dev/null 2>&1 &
locker_pid=$!
sleep 0.5
agent() {
    "$PG_BINDIR/psql" -X -qAt -U regress_fault_agent -v VERBOSITY=verbose \
        -c "SET pg_clarify.resolution = '{\"question_id\": \"$1\"}'" \
        -c "SELECT booked_amount FROM fault.orders WHERE id = 1" 2>&1
}
equals "with the writer held down, a sync decision is durable and runs" "$(agent held_1)" "1.5"
q "CREATE TABLE wal_filler AS SELECT g, repeat('x', 200) AS pad FROM generate_series(1, 20000) g" >/dev/null
sleep 0.5
refused=$(agent held_2)
contains "past pg_clarify.audit_retained_wal, a sync decision fails closed with QC005" "$refused" "QC005"
contains "and says why" "$refused" "audit_retained_wal"
kill "$locker_pid" 2>/dev/null
wait "$locker_pid" 2>/dev/null
locker_pid=
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(120)%'" >/dev/null
served=
for _ in $(seq 1 40); do
    served=$(agent held_3)
    [[ $served == "1.5" ]] && break
    sleep 0.25
done
equals "once the writer writes again, sync decisions pass" "$served" "1.5"
equals "the decision made while it was held down is in the audit" \
    "$(q "SELECT clarify.audit_wait('30 s'); SELECT count(*) FROM clarify.audit WHERE question_id = 'held_1' AND decision = 'allowed'" | tail -n 1)" "1"

# clarify.audit_wait() is for those who may read the audit.
contains "an agent may not call clarify.audit_wait()" \
    "$("$PG_BINDIR/psql" -X -qAt -U regress_fault_agent -c "SELECT clarify.audit_wait('1 s')" 2>&1)" "permission denied"
finish
