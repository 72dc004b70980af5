#!/usr/bin/env bash
# What a standby's credential (a role granted clarify.audit_ingest) and an agent can do to the
# read-replica surfaces: each origin holds its decision id node alone and is bound to the role
# that first forwarded it; a standby whose cluster_name hashes to a held node is refused (QC005 on
# the standby, the reason in its log) until the DBA renames it or frees the node; a second
# granted role cannot write as another standby; an agent cannot read the conninfo.
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
plan 20

start_replica_primary replica_redteam 55477 "regress_forwarder regress_forwarder_2"

# regress_standby and regress_standby_177 share decision id node 245 (FNV-1a, folded to 8 bits).
start_test_standby 55478 "cluster_name = 'regress_standby'" "pg_clarify.audit_timeout = 2000" \
    "pg_clarify.audit_conninfo = 'host=$dir port=$port user=regress_forwarder'"
wait_for_replay || echo "# the standby did not catch up" >&2

agent_read() {
    standby_psql_as regress_replica_agent -v VERBOSITY=verbose \
        -c "SET pg_clarify.resolution = '{\"question_id\": \"$1\"}'" \
        -c "SELECT booked_amount FROM shop.orders WHERE id = 7"
}
ingest_as() {
    "$PG_BINDIR/psql" -X -qAt -h "$dir" -p "$port" -U "$1" -d postgres \
        -c "SELECT clarify.audit_ingest('$2', '\\x'::bytea)" 2>&1
}
restart_standby_as() {
    echo "cluster_name = '$1'" | as_owner tee -a "$sdir/data/postgresql.conf" >/dev/null
    as_owner "$PG_BINDIR/pg_ctl" -D "$sdir/data" -l "$sdir/server.log" -w -t 60 restart >/dev/null 2>&1
}

# An agent cannot read the conninfo (it may hold a password), by SHOW or by pg_settings (15 says
# "must be superuser ... to examine", 16+ "permission denied to examine").
contains "an agent cannot SHOW pg_clarify.audit_conninfo" \
    "$(standby_psql_as regress_replica_agent -c "SHOW pg_clarify.audit_conninfo")" "to examine"
equals "nor find it in pg_settings" \
    "$(standby_psql_as regress_replica_agent -c "SELECT count(*) FROM pg_settings WHERE name = 'pg_clarify.audit_conninfo'")" "0"

equals "sync on the standby: the governed read runs" "$(agent_read q_first)" "10.5"
equals "the origin is registered with its node and its role" \
    "$(pq "SELECT origin, node, forwarded_by FROM clarify.audit_origins")" "regress_standby|245|regress_forwarder"
equals "an agent cannot read the registry" \
    "$(psql_as regress_replica_agent -c "SELECT count(*) FROM clarify.audit_origins" | grep -c 'permission denied')" "1"

# A second granted role (another standby's credential) cannot write as regress_standby.
out=$(ingest_as regress_forwarder_2 regress_standby)
contains "another role cannot forward as a registered origin" "$out" "the origin \"regress_standby\" forwards as another role"
equals "the origin's own role still can" "$(ingest_as regress_forwarder regress_standby)" "0"

# An origin whose node is held: refused, however it calls.
out=$(ingest_as regress_forwarder_2 regress_standby_177)
contains "an origin sharing a held node is refused" "$out" "has decision id node 245, which the origin \"regress_standby\" holds"
equals "the refused origin is not registered" "$(pq "SELECT count(*) FROM clarify.audit_origins")" "1"

# What no standby sends: a control character (a forged log line, a lookalike origin), an origin of
# 100 MB, no origin at all. Refused or answered with NULL; the backend stays up.
fwd() {
    "$PG_BINDIR/psql" -X -qAt -h "$dir" -p "$port" -U regress_forwarder -d postgres -c "$1" 2>&1
}
contains "an origin with a control character is refused" \
    "$(fwd "SELECT clarify.audit_ingest(E'regress_x\\nLOG:  forged', '\\x'::bytea)")" "must be printable ASCII"
contains "an origin of 100 MB is refused" \
    "$(fwd "SELECT clarify.audit_ingest(repeat('x', 100000000), '\\x'::bytea)")" "the origin must be 1 to 200 bytes"
equals "no origin: NULL, and the registry holds only the real standby" \
    "$(fwd "SELECT clarify.audit_ingest(NULL, '\\x'::bytea) IS NULL, (SELECT 1)")|$(pq "SELECT string_agg(origin, ',') FROM clarify.audit_origins")" \
    "t|1|regress_standby"

# clarify.approval_wait keeps to its timeout while clarify.approvals is locked (by the owner here;
# on a standby by a replayed lock): a look that cannot take its lock is tried again later. The
# caller is a role that may read approvals, not gated (a gated session's statements wait for the
# catalog tables' locks as any query does).
approval=$(pq "INSERT INTO clarify.terms VALUES ('revenue', 'metric.booked');
  CREATE ROLE regress_reader LOGIN; GRANT SELECT ON clarify.approvals TO regress_reader;
  SELECT clarify.confirm('q_wait', 'revenue', 'metric.booked', 'regress_replica_agent', 'alice')" | tail -1)
psql_as postgres -c "BEGIN" -c "LOCK TABLE clarify.approvals IN ACCESS EXCLUSIVE MODE" \
    -c "SELECT pg_sleep(4)" -c "COMMIT" >/dev/null &
locker=$!
for _ in $(seq 1 50); do
    [[ $(pq "SELECT count(*) FROM pg_locks WHERE relation = 'clarify.approvals'::regclass AND mode = 'AccessExclusiveLock' AND granted") == 1 ]] && break
    sleep 0.05
done
out=$(psql_as regress_reader -c "SELECT w, round(extract(epoch FROM clock_timestamp() - statement_timestamp()) * 1000)
          FROM (SELECT clarify.approval_wait($approval, '0.5 s') AS w OFFSET 0) s")
wait "$locker"
equals "approval_wait under a lock: false, not the approval after the lock" "${out%%|*}" "f"
waited=${out##*|}
if [[ $waited =~ ^[0-9]+$ ]] && ((waited < 2500)); then
    pass "approval_wait under a lock: within its timeout (${waited} ms of 500)"
else
    fail "approval_wait under a lock: within its timeout" "took ${waited} ms"
fi
equals "approval_wait after the lock: true" \
    "$(psql_as regress_reader -c "SELECT clarify.approval_wait($approval, '0.5 s')")" "t"

# The standby renamed to a colliding cluster_name: its governed reads fail closed in sync mode,
# and its log says why.
restart_standby_as regress_standby_177
out=$(agent_read q_collide)
contains "a standby whose node is held: QC005" "$out" "QC005"
contains "its log names the holder and the remedy" "$(cat "$sdir/server.log")" "which the origin \"regress_standby\" holds"
equals "nothing of it reached the audit" "$(pq "SELECT count(*) FROM clarify.audit WHERE question_id = 'q_collide'")" "0"

# The DBA frees the node (the old server is gone): service resumes without touching the standby.
pq "DELETE FROM clarify.audit_origins WHERE origin = 'regress_standby'" >/dev/null
out=
for i in $(seq 1 20); do
    out=$(agent_read "q_freed_$i")
    [[ $out == 10.5 ]] && break
    sleep 0.5
done
equals "node freed: the renamed standby's reads run" "$out" "10.5"
equals "node freed: audited with the new origin" \
    "$(pq "SELECT origin, decision FROM clarify.audit WHERE question_id = 'q_freed_$i'")" "regress_standby_177|allowed"
finish
