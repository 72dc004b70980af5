#!/usr/bin/env bash
# The clarification budget on a hot standby (docs/dba-guide.md, "Clarification budget"): a
# standby counts the primary's rows it has replayed plus its own decisions still queued (here
# while the primary cannot be reached), so one question's rounds go on across both servers.
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
plan 7

start_replica_primary budget_primary 55574 "regress_budget_forwarder"
pq "INSERT INTO clarify.concepts (id, kind, label, status) VALUES ('metric.invoiced', 'metric', 'Invoiced revenue', 'approved');
    INSERT INTO clarify.concept_columns VALUES ('metric.invoiced', 'shop.orders', 'booked_amount');
    INSERT INTO clarify.terms (term, concept_id) VALUES ('revenue', 'metric.booked'), ('revenue', 'metric.invoiced');
    ALTER ROLE regress_replica_agent SET pg_clarify.max_rounds = 3;" >/dev/null ||
    { echo "Bail out! the fixture could not be created"; exit 1; }
start_test_standby 55575 "cluster_name = 'regress_budget_standby'" \
    "pg_clarify.audit_conninfo = 'host=$dir port=$port user=regress_budget_forwarder'"
wait_for_replay || echo "# the standby did not catch up" >&2

# round PSQL-FUNCTION QID: the round and budget of the agent's AMBIGUOUS rejection there.
round() {
    local out detail
    out=$("$1" regress_replica_agent -c "SET pg_clarify.resolution = '{\"question_id\": \"$2\"}'" \
        -c "SELECT booked_amount FROM shop.orders WHERE id = 7" 2>&1)
    detail=$(sed -n 's/^DETAIL:  //p' <<<"$out" | head -n 1)
    [[ -n $detail ]] || { echo "no rejection: $out"; return; }
    pq "SELECT concat_ws(' ', j->>'round', j->>'max_rounds', j->>'budget_exhausted') FROM (SELECT \$j\$$detail\$j\$::jsonb AS j) d"
}
set_standby() { sq "ALTER SYSTEM SET $1" >/dev/null && sq "SELECT pg_reload_conf()" >/dev/null; sleep 0.5; }

# 1. One question, primary then standby: the standby counts the primary's replayed rows.
equals "primary: round 1 of 3" "$(round psql_as q_both)" "1 3"
wait_for_replay
equals "standby: round 2 of 3 (the primary's row, replayed)" "$(round standby_psql_as q_both)" "2 3"
wait_for_replay
equals "primary again: round 3 of 3 (the standby's round, forwarded)" "$(round psql_as q_both)" "3 3"

# 2. The primary out of reach, decisions queued on the standby (async): they count there.
pq "ALTER ROLE regress_replica_agent SET pg_clarify.audit_mode = async" >/dev/null
wait_for_replay
set_standby "pg_clarify.audit_conninfo = 'host=$dir port=1 user=regress_budget_forwarder connect_timeout=1'"
equals "standby, unreachable primary: round 1" "$(round standby_psql_as q_queued)" "1 3"
equals "standby, unreachable primary: round 2 (its own queued decision)" \
    "$(round standby_psql_as q_queued)" "2 3"
round standby_psql_as q_queued >/dev/null
equals "standby, unreachable primary: spent after 3, still refused" \
    "$(round standby_psql_as q_queued)" "4 3 true"
set_standby "pg_clarify.audit_conninfo = 'host=$dir port=$port user=regress_budget_forwarder'"
rows=
for _ in $(seq 1 100); do
    rows=$(pq "SELECT count(*) FROM clarify.audit WHERE question_id = 'q_queued'")
    [[ $rows == 4 ]] && break
    sleep 0.2
done
equals "once the primary is back, it holds the four rejections" "$rows" "4"

finish
