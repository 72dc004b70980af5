#!/usr/bin/env bash
# The clarification budget (docs/dba-guide.md, "Clarification budget"): a question's rounds are
# counted across sessions and roles, as soon as each decision is durable, also while the writer
# has not materialised it yet (held off here by a lock that lets readers through); an agent
# cannot lift pg_clarify.max_rounds with PGOPTIONS. sql/budget.sql covers the payload and rules.
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
plan 11

locker_pid=
before_cluster_stop() { [[ -n $locker_pid ]] && kill "$locker_pid" 2>/dev/null; }
start_test_cluster budget 55573 "shared_preload_libraries = 'pg_clarify'" "fsync = off"

psql_as postgres -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
CREATE TABLE orders (id int, booked_amount numeric, invoiced_amount numeric, channel text);
INSERT INTO orders VALUES (1, 10, 9, 'web');
CREATE EXTENSION pg_clarify;
INSERT INTO clarify.concepts (id, kind, label, description, status) VALUES
  ('metric.booked', 'metric', 'Booked revenue', 'Value of accepted orders', 'approved'),
  ('metric.invoiced', 'metric', 'Invoiced revenue', 'Amounts billed', 'approved'),
  ('dim.sales_channel', 'dimension', 'Sales channel', 'Where the order was taken', 'approved'),
  ('dim.delivery_channel', 'dimension', 'Delivery channel', 'How it was delivered', 'approved');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES
  ('metric.booked', 'orders', 'booked_amount'), ('metric.invoiced', 'orders', 'booked_amount'),
  ('dim.sales_channel', 'orders', 'channel'), ('dim.delivery_channel', 'orders', 'channel');
INSERT INTO clarify.terms (term, concept_id, impact) VALUES
  ('revenue', 'metric.booked', 'high'), ('revenue', 'metric.invoiced', 'high'),
  ('channel', 'dim.sales_channel', 'low'), ('channel', 'dim.delivery_channel', 'low');
CREATE ROLE agent_one LOGIN;
CREATE ROLE agent_two LOGIN;
GRANT SELECT ON orders TO agent_one, agent_two;
SELECT clarify.govern_role('agent_one');
SELECT clarify.govern_role('agent_two');
ALTER ROLE agent_one SET pg_clarify.max_rounds = 3;
ALTER ROLE agent_two SET pg_clarify.max_rounds = 3;
SQL

# round ROLE QID SQL: the round in the DETAIL of the rejection ROLE gets for SQL under QID (a new
# session each time), "ran" when it runs.
round() {
    local out detail
    out=$(psql_as "$1" -c "SET pg_clarify.resolution = '{\"question_id\": \"$2\", \"question\": \"revenue by channel\"}'" \
        -c "$3" 2>&1)
    detail=$(sed -n 's/^DETAIL:  //p' <<<"$out" | head -n 1)
    if [[ -z $detail ]]; then echo ran; return; fi
    psql_as postgres -c "SELECT concat_ws(' ', j->>'round', j->>'max_rounds', j->>'budget_exhausted') FROM (SELECT \$j\$$detail\$j\$::jsonb AS j) d"
}
high='SELECT sum(booked_amount) FROM orders'
low='SELECT channel FROM orders'

# 1. Two sessions of two roles, one question: rounds 1, 2, 3, then the budget is spent.
equals "session 1 (agent_one): round 1 of 3" "$(round agent_one q_two "$high")" "1 3"
equals "session 2 (agent_two): round 2 of 3" "$(round agent_two q_two "$high")" "2 3"
equals "session 3 (agent_one again): round 3 of 3" "$(round agent_one q_two "$high")" "3 3"
equals "the high-impact meaning is still refused once spent" "$(round agent_two q_two "$high")" \
    "4 3 true"

# 2. The writer held off: rows are not materialised, yet every durable rejection counts.
PGAPPNAME=budget_locker psql_as postgres -c "BEGIN" -c "LOCK TABLE clarify.audit_batches IN EXCLUSIVE MODE" \
    -c "SELECT pg_sleep(60)" >/dev/null 2>&1 &
locker_pid=$!
for _ in $(seq 1 50); do
    [[ $(psql_as postgres -c "SELECT count(*) FROM pg_locks WHERE relation = 'clarify.audit_batches'::regclass AND mode = 'ExclusiveLock' AND granted") == 1 ]] && break
    sleep 0.1
done
equals "held off: round 1" "$(round agent_one q_held "$low")" "1 3"
equals "held off: round 2 (another role)" "$(round agent_two q_held "$low")" "2 3"
equals "held off: round 3" "$(round agent_one q_held "$low")" "3 3"
equals "none of them is materialised yet" \
    "$(psql_as postgres -c "SELECT count(*) FROM clarify.audit_log WHERE question_id = 'q_held'")" "0"
out=$(psql_as agent_two -c "SET pg_clarify.resolution = '{\"question_id\": \"q_held\", \"question\": \"orders by channel\"}'" -c "$low" 2>&1)
contains "spent while held off: the low-impact meaning is assumed with a WARNING naming the rounds" \
    "$out" 'after 3 clarification rounds'
# Its backend ends now (a killed client is noticed only after the sleep).
psql_as postgres -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'budget_locker'" >/dev/null
wait "$locker_pid" 2>/dev/null
locker_pid=
equals "once written, the audit holds the three rounds and the assumption" \
    "$(psql_as postgres -c "SELECT clarify.audit_wait('30 s')" -c "SELECT string_agg(decision, ',' ORDER BY decision_id) FROM clarify.audit WHERE question_id = 'q_held'" | tail -n 1)" \
    "rejected,rejected,rejected,allowed"

# 3. PGOPTIONS cannot lift the budget.
out=$(PGOPTIONS="-c pg_clarify.max_rounds=0" psql_as agent_one -c "SHOW pg_clarify.max_rounds" 2>&1)
contains "an agent cannot set pg_clarify.max_rounds with PGOPTIONS" "$out" \
    'permission denied to set parameter "pg_clarify.max_rounds"'

finish
