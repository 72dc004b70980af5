#!/usr/bin/env bash
# Fault harness: agent load in sync mode, the audit writer killed with SIGKILL mid-run. The server
# recovers (crash restart), and every decision whose answer a client received -- a result or a
# QC001..QC004 rejection -- has its row in clarify.audit. On a cluster of its own, as it crashes it.
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
here=$(cd "$(dirname "$0")" && pwd)
plan 8

db=clarify_fault
export PGDATABASE=$db FAULT_AGENT=regress_fault_agent
PYTHON=${PYTHON:-/usr/bin/python3}
q() { "$PG_BINDIR/psql" -X -qAt -v ON_ERROR_STOP=1 -d "${2:-$db}" -c "$1"; }
out=$(mktemp /tmp/pg_clarify_fault.XXXXXX)
cleanup() { "$PG_BINDIR/dropdb" --force --if-exists "$db" >/dev/null 2>&1; rm -f "$out"; }
crashes_expected=1 # the writer's SIGKILL restarts the server
start_own_cluster fault_kill_writer 55453
on_exit cleanup
cleanup
"$PG_BINDIR/createdb" "$db"
q "$(fault_schema_sql)" >/dev/null

"$PYTHON" "$here/../fault/agent_load.py" 8 4 "$out" >"$out.log" 2>&1 &
load=$!
sleep 3
writer=$(q "SELECT pid FROM pg_stat_activity WHERE backend_type = 'pg_clarify audit writer' AND datname = '$db'" postgres)
if [[ -n $writer ]]; then
    if [[ $(id -u) -eq 0 ]]; then kill -KILL "$writer"; else as_cluster_owner kill -KILL "$writer"; fi
    pass "the audit writer (pid $writer) was killed with SIGKILL under load"
else
    fail "the audit writer was running under load"
fi
wait "$load"
load_rc=$?
cat "$out.log" | sed 's/^/# /'
check "the load ran to its end" test "$load_rc" -eq 0

for _ in $(seq 1 60); do "$PG_BINDIR/pg_isready" -q && break; sleep 0.5; done
check "the server recovered and accepts connections" "$PG_BINDIR/pg_isready" -q
answered=$(wc -l <"$out")
# Sync decisions are durable before their answer; their rows follow (replayed after the restart).
check "the audit catches up after the restart" test "$(q "SELECT clarify.audit_wait('60 s')")" = t
after_restart=$(q "SELECT count(*) FROM clarify.audit_log" 2>/dev/null || echo 0)
if ((answered > 100)); then pass "clients received $answered answers"; else fail "clients received answers" "only $answered"; fi

# Every answered question id must have its decision row.
q "CREATE TEMP TABLE answered (qid text, outcome text)" >/dev/null 2>&1
missing=$( (echo "CREATE TEMP TABLE answered (qid text, outcome text);"
            echo "COPY answered FROM STDIN;"; cat "$out"; echo '\.'
            echo "SELECT count(*) FROM answered a WHERE NOT EXISTS (SELECT 1 FROM clarify.audit_log l WHERE l.question_id = a.qid);") |
          "$PG_BINDIR/psql" -X -qAt -d "$db" 2>&1 | tail -n 1)
equals "every answered decision has its audit row ($after_restart rows)" "$missing" "0"
mismatched=$( (echo "CREATE TEMP TABLE answered (qid text, outcome text);"
               echo "COPY answered FROM STDIN;"; cat "$out"; echo '\.'
               echo "SELECT count(*) FROM answered a JOIN clarify.audit u ON u.question_id = a.qid WHERE (a.outcome = 'ok') <> (u.decision = 'allowed');") |
             "$PG_BINDIR/psql" -X -qAt -d "$db" 2>&1 | tail -n 1)
equals "and the row says what the client was told" "$mismatched" "0"
# Backends take decision ids in blocks: concurrent sessions and the restart never share one.
equals "decision ids are unique across the 4 sessions and the restart" \
    "$(q "SELECT count(*) - count(DISTINCT decision_id) FROM clarify.audit_log")" "0"
finish
