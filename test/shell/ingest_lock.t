#!/usr/bin/env bash
# clarify.audit_ingest() serialises the batches of one origin with a lock no agent can take: an
# agent holding the advisory key the 1.1 ingest locked (computable from the origin's name, and
# shown in pg_locks) does not stall the ingest, and none of the obvious handles on the origin's
# row are open to it. A batch sent again while its first sending is being written still waits
# for it and is written once (src/pg/replica/ingest.cpp).
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
plan 9

start_replica_primary ingest_lock 55493 "regress_il_forwarder"
db=$(pq "SELECT oid FROM pg_database WHERE datname = 'postgres'")
origin=regress_il_standby
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
on_exit "rm -rf $tmp"

# batch SEQ: the call a standby's writer makes with one decision (seq) of the origin.
batch() {
    python3 - "$here" "$origin" "$db" "$1" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import forward_frames as ff
origin, db, seq = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
print(ff.ingest_sql(origin, [ff.Entry(seq, origin, db, statement="SELECT %d" % seq)]))
PY
}
# forward SQL: as the forwarder, with a bound on lock waits: a stalled ingest fails, not hangs.
forward() {
    PGOPTIONS="-c lock_timeout=10s" psql_as regress_il_forwarder -c "$1"
}
held() { pq "SELECT count(*) FROM clarify.audit WHERE origin = '$origin' AND decision_id >> 8 = $1"; }
# until_waiting APP: until the session named APP waits for a lock (or 30 s have passed).
until_waiting() {
    for _ in $(seq 1 300); do
        [[ $(pq "SELECT count(*) FROM pg_stat_activity WHERE application_name = '$1' AND wait_event_type = 'Lock'") == 1 ]] &&
            return 0
        sleep 0.1
    done
    return 1
}

equals "the origin's first batch is written" "$(forward "$(batch 1)")" "1"

# The key the 1.1 ingest took: pg_advisory_xact_lock(0x434c4152, node | std::hash(origin) << 8),
# std::hash being libstdc++'s _Hash_bytes (64-bit murmur, seed 0xc70f6907), truncated to 32 bits.
key=$(python3 - "$here" "$origin" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import forward_frames as ff
M = (1 << 64) - 1
mul = (0xC6A4A793 << 32) + 0x5BD1E995
def mix(v):
    return v ^ (v >> 47)
b = sys.argv[2].encode()
n, aligned = len(b), len(b) & ~7
h = (0xC70F6907 ^ (n * mul)) & M
for p in range(0, aligned, 8):
    h = ((h ^ ((mix((int.from_bytes(b[p:p + 8], "little") * mul) & M) * mul) & M)) * mul) & M
if n & 7:
    h = ((h ^ int.from_bytes(b[aligned:], "little")) * mul) & M
h = mix((mix(h) * mul) & M)
key = (ff.origin_node(sys.argv[2]) | ((h & 0xFFFFFFFF) << 8)) & 0xFFFFFFFF
print(key - (1 << 32) if key >= 1 << 31 else key)
PY
)
# The agent holds that key, session-level, in the background until it is terminated.
PGAPPNAME=il_agent psql_as regress_replica_agent -c "SELECT pg_advisory_lock(1129070930, $key)" \
    -c "SELECT pg_sleep(300)" >/dev/null &
for _ in $(seq 1 300); do
    [[ $(pq "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
             WHERE a.application_name = 'il_agent' AND l.locktype = 'advisory' AND l.granted") == 1 ]] && break
    sleep 0.1
done
equals "an agent holds the old ingest's advisory key" \
    "$(pq "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
           WHERE a.application_name = 'il_agent' AND l.locktype = 'advisory' AND l.classid = 1129070930
             AND l.objid = ($key)::int8 & 4294967295 AND l.objsubid = 2 AND l.granted")" "1"
equals "the ingest is not stalled by it" "$(forward "$(batch 2)")|$(held 2)" "1|1"
pq "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'il_agent'" >/dev/null
wait

# The new lock's obvious handles: the origin's row and its table are closed to an agent.
agent_tries() { psql_as regress_replica_agent -c "$1"; }
contains "an agent cannot lock the origin's row (FOR UPDATE)" \
    "$(agent_tries "SELECT 1 FROM clarify.audit_origins WHERE origin = '$origin' FOR UPDATE")" "permission denied"
contains "nor share-lock it (FOR KEY SHARE)" \
    "$(agent_tries "SELECT 1 FROM clarify.audit_origins FOR KEY SHARE")" "permission denied"
contains "nor lock the table" \
    "$(agent_tries "BEGIN; LOCK TABLE clarify.audit_origins IN ACCESS SHARE MODE")" "permission denied"
# A foreign key's check would share-lock the row: it needs REFERENCES (and a table outside
# pg_temp, where the agent creates nothing); a row lock needs UPDATE, LOCK TABLE a privilege.
equals "the agent holds no privilege on the table" \
    "$(pq "SELECT bool_or(has_table_privilege('regress_replica_agent', 'clarify.audit_origins', p))
           FROM unnest('{SELECT,INSERT,UPDATE,DELETE,TRUNCATE,REFERENCES,TRIGGER}'::text[]) p")" "f"

# One origin's batches are still written one at a time: the same batch sent while its first
# sending is uncommitted waits for it, then finds it held.
mkfifo "$tmp/first"
PGAPPNAME=il_first psql_as regress_il_forwarder <"$tmp/first" >"$tmp/first.out" &
first=$!
exec 7>"$tmp/first"
echo "BEGIN; $(batch 3)" >&7
for _ in $(seq 1 300); do
    [[ $(cat "$tmp/first.out") == 1 ]] && break
    sleep 0.1
done
PGAPPNAME=il_second forward "$(batch 3)" >"$tmp/second.out" &
second=$!
check "a second sending of the batch waits for the first" until_waiting il_second
echo "COMMIT;" >&7
exec 7>&-
wait "$first" "$second"
equals "the first sending wrote it, the second found it held: written once" \
    "$(cat "$tmp/first.out")|$(cat "$tmp/second.out")|$(held 3)" "1|0|1"
finish
