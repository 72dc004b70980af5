#!/usr/bin/env bash
# Decisions whose texts the audit already held cross the queue without them (short entries). If
# the audit's tables are dropped and created again (DROP and CREATE EXTENSION) while such
# decisions wait in the queue, the new tables do not hold what they name: the writer finds that
# out and stores those decisions with a stand-in statement and record that say so, never a row
# whose statement or record is missing. Refilling the new catalog empties the set of stored
# texts the backends go by, so decisions made after that carry their texts.
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
plan 6

writer=
before_cluster_stop() { [[ -n $writer ]] && kill -CONT "$writer" 2>/dev/null; }
start_test_cluster recreated 55442 "shared_preload_libraries = 'pg_clarify'" "fsync = off"

create_extension() {
    psql_as postgres -v ON_ERROR_STOP=1 >/dev/null <<SQL
CREATE EXTENSION pg_clarify;
$(booked_catalog_sql)
SELECT clarify.govern_role('agent');
SQL
}
psql_as postgres -v ON_ERROR_STOP=1 >/dev/null <<SQL
$(booked_orders_sql)
CREATE ROLE agent LOGIN;
GRANT SELECT ON orders TO agent;
ALTER ROLE agent SET pg_clarify.audit_mode = 'async';
ALTER ROLE agent SET pg_clarify.resolution = '{"question_id": "q_recreated"}';
SQL
create_extension
query='SELECT booked_amount FROM orders'
pending() { psql_as postgres -c "SELECT coalesce(sum(pending_bytes), 0) FROM clarify.audit_queue()"; }
written() { # waits until the queue is empty
    for _ in $(seq 100); do
        [[ $(pending) == 0 ]] && return
        sleep 0.1
    done
}

# Stored by one batch, met again by the next: from then on its decisions go short. The writer
# is then stopped while idle (and checked to be the one serving the queue: an idle writer leaves
# after 2 s).
for _ in 1 2 3; do
    for _ in 1 2; do
        psql_as agent -c "$query" >/dev/null
        written
    done
    writer=$(psql_as postgres -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'pg_clarify audit writer' AND state = 'idle' AND wait_event = 'Extension'")
    [[ -n $writer ]] && kill -STOP "$writer" 2>/dev/null &&
        [[ $(psql_as postgres -c "SELECT writer_pid FROM clarify.audit_queue()") == "$writer" ]] &&
        break
    [[ -n $writer ]] && kill -CONT "$writer" 2>/dev/null
    writer=
done
psql_as agent -c "$query" >/dev/null
first=$(pending)
check "a decision whose texts are stored is queued short (${first} bytes)" \
    test -n "$writer" -a "$first" -gt 0 -a "$first" -lt 150

psql_as postgres -c 'DROP EXTENSION pg_clarify CASCADE' >/dev/null
create_extension
psql_as agent -c "$query" >/dev/null
second=$(($(pending) - first))
check "after the extension is created again, the next decision carries its texts (${second} bytes)" \
    test "$second" -gt 150

kill -CONT "$writer"
writer=
written
out=$(psql_as postgres -c "SELECT count(*) FILTER (WHERE statement IS NULL OR record IS NULL), count(*) FILTER (WHERE statement LIKE '(not available: the audit''s tables were recreated%' AND record ? 'not_available'), count(*) FILTER (WHERE statement = '$query' AND record ->> 'question_id' = 'q_recreated'), count(*) FROM clarify.audit")
equals "the queued one is stored with stand-ins, the later one with its texts" "$out" "0|1|1|2"
out=$(psql_as postgres -c "SELECT count(*) FROM clarify.audit WHERE decision = 'allowed' AND state = 'RESOLVED'")
equals "both keep their outcome" "$out" "2"

psql_as agent -c "$query" >/dev/null
written
out=$(psql_as postgres -c "SELECT statement FROM clarify.audit ORDER BY decision_id DESC LIMIT 1")
equals "decisions after that are stored with their statement" "$out" "$query"
check "nothing is left queued" test "$(pending)" -eq 0
finish
