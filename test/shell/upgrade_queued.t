#!/usr/bin/env bash
# A database still at catalog 1.0 keys its audit's texts by 64-bit identities. Until it is
# updated, the library queues its decisions with their texts (no short entries), so that
# decisions still queued when ALTER EXTENSION pg_clarify UPDATE rekeys the audit keep their
# statement and record; after the update, decisions whose texts are stored go short again.
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
plan 5

writer=
before_cluster_stop() { [[ -n $writer ]] && kill -CONT "$writer" 2>/dev/null; }
start_test_cluster upgrade_queued 55446 "shared_preload_libraries = 'pg_clarify'" "fsync = off"

psql_as postgres -v ON_ERROR_STOP=1 >/dev/null <<SQL
$(booked_orders_sql)
CREATE ROLE agent LOGIN;
GRANT SELECT ON orders TO agent;
ALTER ROLE agent SET pg_clarify.audit_mode = 'async';
ALTER ROLE agent SET pg_clarify.resolution = '{"question_id": "q_upgrade_queued"}';
CREATE EXTENSION pg_clarify VERSION '1.0';
$(booked_catalog_sql)
SELECT clarify.govern_role('agent');
SQL
query='SELECT booked_amount FROM orders'
pending() { psql_as postgres -c "SELECT coalesce(sum(pending_bytes), 0) FROM clarify.audit_queue()"; }
written() { # waits until the queue is empty
    for _ in $(seq 100); do
        [[ $(pending) == 0 ]] && return
        sleep 0.1
    done
}
# Runs the query until its texts are stored and met again, then stops the writer while idle
# (checked to be the one serving the queue: an idle writer leaves after 2 s).
stop_writer_after_repeats() {
    for _ in 1 2 3; do
        for _ in 1 2 3; do
            psql_as agent -c "$query" >/dev/null
            written
        done
        writer=$(psql_as postgres -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'pg_clarify audit writer' AND state = 'idle' AND wait_event = 'Extension'")
        [[ -n $writer ]] && kill -STOP "$writer" 2>/dev/null &&
            [[ $(psql_as postgres -c "SELECT writer_pid FROM clarify.audit_queue()") == "$writer" ]] &&
            return
        [[ -n $writer ]] && kill -CONT "$writer" 2>/dev/null
        writer=
    done
}

stop_writer_after_repeats
before=$(pending)
for _ in 1 2 3; do psql_as agent -c "$query" >/dev/null; done
each=$((($(pending) - before) / 3))
check "at catalog 1.0, decisions met again still carry their texts (${each} bytes each)" \
    test -n "$writer" -a "$each" -gt 150

check "ALTER EXTENSION pg_clarify UPDATE succeeds with decisions queued" \
    psql_as postgres -v ON_ERROR_STOP=1 -c 'ALTER EXTENSION pg_clarify UPDATE'
kill -CONT "$writer"
writer=
written
out=$(psql_as postgres -c "SELECT count(*) FILTER (WHERE statement = '$query' AND record ->> 'question_id' = 'q_upgrade_queued' AND decision = 'allowed') = count(*) AND count(*) >= 6 FROM clarify.audit")
equals "every decision, those queued across the update included, shows its texts" "$out" "t"

stop_writer_after_repeats
before=$(pending)
psql_as agent -c "$query" >/dev/null
short=$(($(pending) - before))
check "after the update, a decision whose texts are stored is queued short (${short} bytes)" \
    test -n "$writer" -a "$short" -gt 0 -a "$short" -lt 150
kill -CONT "$writer"
writer=
written
out=$(psql_as postgres -c "SELECT statement FROM clarify.audit ORDER BY decision_id DESC LIMIT 1")
equals "and is stored with its statement" "$out" "$query"
finish
