#!/usr/bin/env bash
# A sync decision that finds the audit queue full waits up to pg_clarify.audit_timeout, then fails
# closed with QC005 saying so; it was never queued, so the audit gets neither its row nor a
# "refused" note about it, and the server log names it. Async decisions meanwhile are dropped and
# counted. Once the writer can write again, service resumes.
set -uo pipefail
source "$(dirname "$0")/tap.sh"
plan 7

locker_pid=
before_cluster_stop() { [[ -n $locker_pid ]] && kill "$locker_pid" 2>/dev/null; }
# The smallest queue: 256 kB for each database (600 full decisions, or 3,000 short ones).
start_test_cluster queue_full 55441 "shared_preload_libraries = 'pg_clarify'" \
    "pg_clarify.audit_queue_size = '256kB'" "fsync = off"

psql_as postgres -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
CREATE TABLE orders (id int, booked_amount numeric);
INSERT INTO orders VALUES (1, 10);
CREATE EXTENSION pg_clarify;
INSERT INTO clarify.concepts (id, kind, label, status) VALUES ('metric.booked', 'metric', 'Booked revenue', 'approved');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES ('metric.booked', 'orders', 'booked_amount');
INSERT INTO clarify.terms (term, concept_id) VALUES ('revenue', 'metric.booked');
CREATE ROLE agent_sync LOGIN;
CREATE ROLE agent_async LOGIN;
GRANT SELECT ON orders TO agent_sync, agent_async;
SELECT clarify.govern_role('agent_sync');
SELECT clarify.govern_role('agent_async');
ALTER ROLE agent_async SET pg_clarify.audit_mode = 'async';
ALTER ROLE agent_sync SET pg_clarify.audit_timeout = 300;
SQL
out=$(psql_as agent_sync -c 'SELECT booked_amount FROM orders')
equals "a sync decision is written while the writer can write" "$out" "10"

# Hold the audit's tables so the writer cannot write, then fill the queue with async decisions.
"$PG_BINDIR/psql" -X -q -h "$dir" -p "$port" -U postgres -d postgres \
    -c 'BEGIN' -c 'LOCK TABLE clarify.audit_log IN ACCESS EXCLUSIVE MODE' -c 'SELECT pg_sleep(60)' \
    >/dev/null 2>&1 &
locker_pid=$!
for _ in $(seq 50); do
    [[ $(psql_as postgres -c "SELECT count(*) FROM pg_locks WHERE mode = 'AccessExclusiveLock' AND granted AND relation = 'clarify.audit_batches'::regclass") == 1 ]] && break
    sleep 0.1
done
psql_as agent_async -c 'DO $$ BEGIN FOR i IN 1..5000 LOOP PERFORM booked_amount FROM orders; END LOOP; END $$' >/dev/null
out=$(psql_as postgres -c "SELECT dropped > 0 FROM clarify.audit_queue() WHERE database = current_database()")
equals "async decisions beyond a full queue are dropped and counted" "$out" "t"

out=$(psql_as agent_sync -v VERBOSITY=verbose -c 'SELECT booked_amount FROM orders' -c "SELECT clarify.last_decision()->>'decision_id'")
contains "a sync decision facing a full queue fails closed with QC005" "$out" "ERROR:  QC005"
contains "its reason says the queue had no room" "$out" "the audit queue had no room within pg_clarify.audit_timeout"
id=$(grep -o '"decision_id":"[0-9]*"' <<<"$out" | head -n 1 | grep -o '[0-9]*')

kill "$locker_pid" 2>/dev/null
wait "$locker_pid" 2>/dev/null
locker_pid=
for _ in $(seq 100); do
    [[ $(psql_as postgres -c "SELECT pending_bytes FROM clarify.audit_queue() WHERE database = current_database()") == 0 ]] && break
    sleep 0.1
done
out=$(psql_as postgres -c "SELECT (SELECT count(*) FROM clarify.audit WHERE decision_id = ${id:-0}) + (SELECT count(*) FROM clarify.audit_notes WHERE decision_id = ${id:-0})")
equals "the refused decision has neither a row nor a note (it was never queued)" "${id:+found }$out" "found 0"
contains "the server log names the unaudited refusal" "$(cat "$dir/server.log")" \
    "pg_clarify refused decision ${id:-?} unaudited: the audit queue had no room"
out=$(psql_as agent_sync -c 'SELECT booked_amount FROM orders')
equals "service resumes once the writer can write" "$out" "10"
finish
