#!/usr/bin/env bash
# pg_clarify.enforcement (docs/dba-guide.md, "Rolling out"): in warn a would-be rejection runs
# and the client gets a WARNING with the rejection's SQLSTATE, MESSAGE, DETAIL and HINT; in
# audit it runs silently. QC005 is never relaxed: when the decision cannot be made durable the
# statement is refused in every mode. An agent cannot pick the mode with PGOPTIONS.
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
plan 9

start_test_cluster enforcement_qc005 55529 "shared_preload_libraries = 'pg_clarify'" "fsync = off"

psql_as postgres -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
CREATE TABLE orders (id int, booked_amount numeric, invoiced_amount numeric);
INSERT INTO orders VALUES (1, 10, 9);
CREATE EXTENSION pg_clarify;
INSERT INTO clarify.concepts (id, kind, label, description, status) VALUES
  ('metric.booked', 'metric', 'Booked revenue', 'Value of accepted orders', 'approved'),
  ('metric.invoiced', 'metric', 'Invoiced revenue', 'Amounts billed', 'approved');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES
  ('metric.booked', 'orders', 'booked_amount'), ('metric.invoiced', 'orders', 'invoiced_amount');
INSERT INTO clarify.terms (term, concept_id) VALUES ('revenue', 'metric.booked'), ('revenue', 'metric.invoiced');
CREATE ROLE agent_warn LOGIN;
CREATE ROLE agent_audit LOGIN;
GRANT SELECT ON orders TO agent_warn, agent_audit;
SELECT clarify.govern_role('agent_warn');
SELECT clarify.govern_role('agent_audit');
ALTER ROLE agent_warn SET pg_clarify.enforcement = warn;
ALTER ROLE agent_audit SET pg_clarify.enforcement = audit;
ALTER ROLE agent_warn SET pg_clarify.audit_timeout = 300;
ALTER ROLE agent_audit SET pg_clarify.audit_timeout = 300;
SQL

# warn: the statement runs; the WARNING has QC001, the message, the DETAIL JSON and the HINT.
out=$(psql_as agent_warn -v VERBOSITY=verbose -c '\set VERBOSITY verbose' -c 'SELECT booked_amount FROM orders')
contains "warn: the would-be rejection runs" "$out" $'\n10'
contains "warn: the WARNING has the rejection's SQLSTATE and MESSAGE" "$out" \
    'WARNING:  QC001: the meaning of "revenue" is ambiguous'
detail=$(sed -n 's/^DETAIL:  //p' <<<"$out")
state=$(psql_as postgres -c "SELECT (\$j\$$detail\$j\$::jsonb)->>'state' || ' ' || ((\$j\$$detail\$j\$::jsonb)->>'decision_id' <> '')::text")
equals "warn: the DETAIL is the rejection's JSON with its decision id" "$state" "AMBIGUOUS true"
contains "warn: the HINT asks the clarification question" "$out" 'HINT:  When you say "revenue", do you mean:'

# audit: it runs, nothing is sent.
out=$(psql_as agent_audit -c 'SELECT booked_amount FROM orders')
equals "audit: the would-be rejection runs silently" "$out" "10"

# PGOPTIONS: an agent cannot start its session in another mode.
out=$(PGOPTIONS='-c pg_clarify.enforcement=audit' psql_as agent_warn -c 'SHOW pg_clarify.enforcement')
contains "PGOPTIONS cannot set the mode for an agent" "$out" 'permission denied to set parameter "pg_clarify.enforcement"'

# QC005 stays fail-closed: with a synchronous standby that never confirms, no sync decision
# becomes durable within audit_timeout.
psql_as postgres -c "ALTER SYSTEM SET synchronous_standby_names = 'ghost_standby'" -c 'SELECT pg_reload_conf()' >/dev/null
sleep 1
out=$(psql_as agent_warn -c 'SELECT booked_amount FROM orders')
contains "warn: QC005 still refuses when the decision cannot be made durable" "$out" \
    'ERROR:  the decision could not be written to the audit: no synchronous standby confirmed it'
contains "warn: the QC005 DETAIL says the gate would have rejected it" "$out" \
    '"gate_decision":"rejected","gate_state":"AMBIGUOUS"'
out=$(psql_as agent_audit -c 'SELECT booked_amount FROM orders')
contains "audit: QC005 still refuses when the decision cannot be made durable" "$out" \
    'ERROR:  the decision could not be written to the audit: no synchronous standby confirmed it'
psql_as postgres -c 'ALTER SYSTEM RESET synchronous_standby_names' -c 'SELECT pg_reload_conf()' >/dev/null
finish
