#!/usr/bin/env bash
# Agents on a hot standby: the standby decides, and its decisions are audited on the primary
# through pg_clarify.audit_conninfo (clarify.audit_ingest), with the standby's origin. Without the
# setting a standby refuses governed reads at once; sync waits for the primary's acknowledgement
# and fails closed with QC005 naming the primary when it is down; service resumes when it is back;
# a role without the ingest grant is refused (logged once); a promoted standby audits locally.
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
plan 34

start_replica_primary replica_primary 55471 "regress_forwarder" "regress_not_granted"

start_test_standby 55472 "cluster_name = 'regress_standby'" "pg_clarify.audit_timeout = 2000"
wait_for_replay || echo "# the standby did not catch up" >&2

# agent_read PSQL-FUNCTION QUESTION: an agent's governed read under that question id; prints
# the result or the error (verbose: SQLSTATE and DETAIL).
agent_read() {
    "$1" regress_replica_agent -v VERBOSITY=verbose \
        -c "SET pg_clarify.resolution = '{\"question_id\": \"$2\"}'" \
        -c "SELECT booked_amount FROM shop.orders WHERE id = 7"
}
ms_now() { date +%s%3N; }
set_standby() { sq "ALTER SYSTEM SET $1" >/dev/null && sq "SELECT pg_reload_conf()" >/dev/null; sleep 0.3; }
primary_row() { pq "SELECT origin, decision FROM clarify.audit WHERE question_id = '$1'"; }
# until_primary_has QUESTION: waits up to 10 s for the row on the primary; prints it.
until_primary_has() {
    local row
    for _ in $(seq 1 100); do
        row=$(primary_row "$1")
        [[ -n $row ]] && break
        sleep 0.1
    done
    echo "$row"
}

# No pg_clarify.audit_conninfo: refused at once, naming the setting; "at once" is told from
# "after audit_timeout" with a timeout of 30 s, so a loaded machine cannot blur the two.
set_standby "pg_clarify.audit_timeout = 30000"
t0=$(ms_now)
out=$(agent_read standby_psql_as q_noconn)
elapsed=$(($(ms_now) - t0))
sq "ALTER SYSTEM RESET pg_clarify.audit_timeout" >/dev/null && sq "SELECT pg_reload_conf()" >/dev/null
sleep 0.3
contains "no conninfo: QC005" "$out" "QC005"
contains "no conninfo: the reason names pg_clarify.audit_conninfo" "$out" "pg_clarify.audit_conninfo is not set"
if ((elapsed < 15000)); then pass "no conninfo: refused without waiting (${elapsed} ms, audit_timeout 30000 ms)"; else
    fail "no conninfo: refused without waiting" "took ${elapsed} ms of audit_timeout 30000"; fi

# Sync: the row is on the primary, with the standby's origin, when the statement returns.
set_standby "pg_clarify.audit_conninfo = 'host=$dir port=$port user=regress_forwarder'"
out=$(agent_read standby_psql_as q_sync)
equals "sync: the governed read runs on the standby" "$out" "10.5"
equals "sync: durable on the primary when the statement returned, with the standby's origin" \
    "$(primary_row q_sync)" "regress_standby|allowed"
standby_id=$(standby_psql_as regress_replica_agent -c "SET pg_clarify.resolution = '{\"question_id\": \"q_last\"}'" \
    -c "SELECT booked_amount FROM shop.orders WHERE id = 7" -c "SELECT clarify.last_decision() ->> 'decision_id'" | tail -n 1)
equals "last_decision() on the standby names the row the primary holds" \
    "$(pq "SELECT decision_id FROM clarify.audit WHERE question_id = 'q_last'")" "$standby_id"
contains "the forwarder connected, logged once" "$(grep -c 'forwarding to the primary.*: connected' "$sdir/server.log")" "1"
contains "audit_queue() on the standby shows the forwarding state" \
    "$(sq "SELECT last_error FROM clarify.audit_queue() WHERE database = 'postgres'")" "connected; last acknowledged"

# A sync decision queued while the writer waits for the primary's answer to another batch goes
# right after that answer (its wake-up is kept), not at the writer's next look 200 ms later.
done_at() { agent_read standby_psql_as "$1" >/dev/null; ms_now >"$2"; }
marks=$(mktemp -d)
psql_as postgres -c "BEGIN" -c "LOCK clarify.audit_texts IN EXCLUSIVE MODE" -c "SELECT pg_sleep(1.2)" \
    -c "COMMIT" >/dev/null &
sleep 0.2
done_at q_held_a "$marks/a" &
sleep 0.5
done_at q_held_b "$marks/b" &
wait
gap=$(($(cat "$marks/b") - $(cat "$marks/a")))
rm -rf "$marks"
if ((gap < 150)); then
    pass "sync: a decision queued during another's forward goes right after it (${gap} ms later)"
else
    fail "sync: a decision queued during another's forward goes right after it" "${gap} ms later"
fi

# Async: queued and forwarded shortly after.
set_standby "pg_clarify.audit_mode = 'async'"
out=$(agent_read standby_psql_as q_async)
equals "async: the governed read runs on the standby" "$out" "10.5"
equals "async: forwarded to the primary shortly after, with the standby's origin" \
    "$(until_primary_has q_async)" "regress_standby|allowed"
out=$(agent_read standby_psql_as q_async_wait)
equals "async: audit_wait() on the standby returns once the primary holds the decision" \
    "$(sq "SELECT clarify.audit_wait('10 s')")|$(primary_row q_async_wait)" "t|regress_standby|allowed"

# One forwarded batch carries each text once (later decisions with the same texts go short):
# the primary gives every row its statement, record and shape all the same.
standby_psql_as regress_replica_agent -c "SET pg_clarify.resolution = '{\"question_id\": \"q_batch\"}'" \
    -c "SELECT booked_amount FROM shop.orders WHERE id = 7" -c "SELECT booked_amount FROM shop.orders WHERE id = 7" \
    -c "SELECT booked_amount FROM shop.orders WHERE id = 8" -c "SELECT booked_amount FROM shop.orders WHERE id = 7" >/dev/null 2>&1
sq "SELECT clarify.audit_wait('10 s')" >/dev/null
equals "a batch with repeated texts: every row on the primary has its own texts" \
    "$(pq "SELECT string_agg(concat_ws('|', substr(statement, 39), decision, record ->> 'question_id', reason <> ''), ',' ORDER BY decided_at)
           FROM clarify.audit WHERE question_id = 'q_batch'")" \
    "WHERE id = 7|allowed|q_batch|t,WHERE id = 7|allowed|q_batch|t,WHERE id = 8|allowed|q_batch|t,WHERE id = 7|allowed|q_batch|t"

# The primary's own decisions carry its origin; ids of both are distinct by their node byte.
out=$(agent_read psql_as q_local)
equals "a decision on the primary runs" "$out" "10.5"
pq "SELECT clarify.audit_wait('10 s')" >/dev/null
equals "a decision on the primary carries the primary's origin" "$(primary_row q_local)" "regress_primary|allowed"
equals "the standby's and the primary's ids differ in their node byte" \
    "$(pq "SELECT count(DISTINCT decision_id & 255) FROM clarify.audit WHERE question_id IN ('q_local', 'q_sync')")" "2"

# Ingest: only the granted role; only well-formed batches from another origin.
out=$("$PG_BINDIR/psql" -X -qAt -h "$dir" -p "$port" -U regress_not_granted -d postgres \
    -c "SELECT clarify.audit_ingest('regress_standby', '\\x'::bytea)" 2>&1)
contains "ingest: refused to a role without the grant" "$out" "permission denied for function audit_ingest"
out=$("$PG_BINDIR/psql" -X -qAt -h "$dir" -p "$port" -U regress_forwarder -d postgres \
    -c "SELECT clarify.audit_ingest('regress_standby', '\\x0000000adeadbeef'::bytea)" 2>&1)
contains "ingest: a malformed batch is refused" "$out" "refuses the forwarded audit batch: entry 1 is cut short"
out=$("$PG_BINDIR/psql" -X -qAt -h "$dir" -p "$port" -U regress_forwarder -d postgres \
    -c "SELECT clarify.audit_ingest('regress_primary', '\\x'::bytea)" 2>&1)
contains "ingest: the primary's own origin is refused" "$out" "is this server's own"

# The primary stopped: sync fails closed within audit_timeout, naming the primary.
set_standby "pg_clarify.audit_mode = 'sync'"
as_owner "$PG_BINDIR/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1
t0=$(ms_now)
out=$(agent_read standby_psql_as q_down)
elapsed=$(($(ms_now) - t0))
contains "primary down: QC005" "$out" "QC005"
contains "primary down: the reason names the primary" "$out" "the primary (host=$dir port=$port) did not acknowledge it within pg_clarify.audit_timeout"
if ((elapsed < 4000)); then pass "primary down: within audit_timeout (${elapsed} ms of 2000)"; else
    fail "primary down: within audit_timeout" "took ${elapsed} ms"; fi

# The primary back: service resumes without touching the standby.
as_owner "$PG_BINDIR/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w start >/dev/null 2>&1
out=
for i in $(seq 1 20); do
    out=$(agent_read standby_psql_as "q_back_$i")
    [[ $out == 10.5 ]] && break
    sleep 0.5
done
equals "primary back: governed reads on the standby run again" "$out" "10.5"
equals "primary back: the decision is on the primary" "$(primary_row "q_back_$i")" "regress_standby|allowed"
contains "the loss was logged once" "$(grep -c 'forwarding to the primary.*: lost' "$sdir/server.log")" "1"

# A role without the grant in the conninfo: refused, logged once, QC005.
set_standby "pg_clarify.audit_conninfo = 'host=$dir port=$port user=regress_not_granted'"
out=$(agent_read standby_psql_as q_refused_1)
contains "no grant: QC005" "$out" "QC005"
out=$(agent_read standby_psql_as q_refused_2)
contains "no grant: QC005 again" "$out" "QC005"
equals "no grant: the refusal is logged once" \
    "$(grep -c 'refused: ERROR:  permission denied for function audit_ingest' "$sdir/server.log")" "1"

# A batch sent again after its acknowledgement was lost is written once: the primary commits it
# and waits for a synchronous standby that never answers (a sync decision's batch; one of async
# decisions only is not waited for); that session is then terminated, and the standby's writer,
# having heard nothing, reconnects and sends the same batch again.
set_standby "pg_clarify.audit_conninfo = 'host=$dir port=$port user=regress_forwarder'"
# Async decisions only: their batch is committed without waiting for the synchronous standby
# (as the primary's own writer commits async decisions), so it arrives while that one is away.
set_standby "pg_clarify.audit_mode = 'async'"
until_primary_has q_refused_2 >/dev/null
pq "ALTER SYSTEM SET synchronous_standby_names = 'regress_nobody'" >/dev/null
pq "SELECT pg_reload_conf()" >/dev/null
sleep 0.3
out=$(agent_read standby_psql_as q_async_nowait)
equals "async: the batch is not held by a synchronous standby that never answers" \
    "$(until_primary_has q_async_nowait)" "regress_standby|allowed"
pq "ALTER SYSTEM RESET synchronous_standby_names" >/dev/null
pq "SELECT pg_reload_conf()" >/dev/null
set_standby "pg_clarify.audit_mode = 'sync'"
until_primary_has q_refused_2 >/dev/null
pq "ALTER SYSTEM SET synchronous_standby_names = 'regress_nobody'" >/dev/null
pq "SELECT pg_reload_conf()" >/dev/null
sleep 0.3
out=$(agent_read standby_psql_as q_resend)
ingest_pid=
for _ in $(seq 1 100); do
    ingest_pid=$(pq "SELECT pid FROM pg_stat_activity WHERE application_name = 'pg_clarify audit forwarder' AND wait_event = 'SyncRep'")
    [[ -n $ingest_pid ]] && break
    sleep 0.1
done
pq "ALTER SYSTEM RESET synchronous_standby_names" >/dev/null
[[ -n $ingest_pid ]] && pq "SELECT pg_terminate_backend($ingest_pid)" >/dev/null
pq "SELECT pg_reload_conf()" >/dev/null
check "resend: the primary had committed the batch and waited for its synchronous standby" test -n "$ingest_pid"
for _ in $(seq 1 100); do
    [[ $(sq "SELECT pending_bytes FROM clarify.audit_queue() WHERE database = 'postgres'") == 0 ]] && break
    sleep 0.1
done
equals "resend: the batch sent again is written once" \
    "$(pq "SELECT count(*) FROM clarify.audit WHERE question_id = 'q_resend'")" "1"

# A standby shut down (fast) with async decisions queued sends them before its writer leaves: the
# primary refuses them until a grant arrives, and the shutdown follows the grant at once.
set_standby "pg_clarify.audit_mode = 'async'"
# The origin is registered to regress_forwarder: its grant is taken away and given back.
pq "REVOKE EXECUTE ON FUNCTION clarify.audit_ingest(text, bytea) FROM regress_forwarder" >/dev/null
out=$(agent_read standby_psql_as q_shutdown)
sleep 3  # the writer's back-off is at its longest (2 s): its own retry is unlikely to come first
pq "GRANT EXECUTE ON FUNCTION clarify.audit_ingest(text, bytea) TO regress_forwarder" >/dev/null
as_owner "$PG_BINDIR/pg_ctl" -D "$sdir/data" -m fast -w stop >/dev/null 2>&1
equals "shutdown: the async decision queued on the standby reached the primary first" \
    "$(primary_row q_shutdown)" "regress_standby|allowed"
as_owner "$PG_BINDIR/pg_ctl" -D "$sdir/data" -l "$sdir/server.log" -w -t 60 start >/dev/null 2>&1
set_standby "pg_clarify.audit_conninfo = 'host=$dir port=$port user=regress_forwarder'"

# Promotion: the promoted standby audits locally, with its own origin.
as_owner "$PG_BINDIR/pg_ctl" -D "$sdir/data" -w promote >/dev/null 2>&1
out=
for i in $(seq 1 20); do
    out=$(agent_read standby_psql_as "q_promoted_$i")
    [[ $out == 10.5 ]] && break
    sleep 0.5
done
equals "promoted: governed reads run" "$out" "10.5"
sq "SELECT clarify.audit_wait('10 s')" >/dev/null
equals "promoted: audited locally, with its origin" \
    "$(sq "SELECT origin, decision FROM clarify.audit WHERE question_id = 'q_promoted_$i'")" "regress_standby|allowed"
finish
