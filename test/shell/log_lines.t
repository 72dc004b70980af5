#!/usr/bin/env bash
# What an idle server logs: after a burst of decisions the writer leaves idle without a line of
# its own (its counters are logged only when a note was dropped or a wait timed out, by database
# name). Counted over the idle seconds after the writer left. Then what one rejection logs: the
# client gets the whole error, the server log one line naming role, database and columns (no OID).
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
plan 12

start_test_cluster log_lines 55449 "shared_preload_libraries = 'pg_clarify'" "fsync = off"
psql_as postgres -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
CREATE ROLE agent LOGIN;
CREATE TABLE orders (id int, booked_amount numeric);
INSERT INTO orders VALUES (1, 10);
GRANT SELECT ON orders TO agent;
CREATE EXTENSION pg_clarify;
INSERT INTO clarify.concepts (id, kind, label, status) VALUES ('metric.booked', 'metric', 'Booked revenue', 'approved');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES ('metric.booked', 'orders', 'booked_amount');
SELECT clarify.govern_role('agent');
SQL
for _ in 1 2 3; do psql_as agent -c 'SELECT booked_amount FROM orders' >/dev/null; done
equals "the decisions were audited" \
    "$(psql_as postgres -c "SELECT clarify.audit_wait('30 s')" -c 'SELECT count(*) FROM clarify.audit' | tail -n 1)" "3"
for _ in $(seq 300); do # an idle writer leaves after 2 s; a loaded machine may take longer
    [[ -z $(psql_as postgres -c "SELECT writer_pid FROM clarify.audit_queue() WHERE database = current_database() AND writer_pid <> 0") ]] && break
    sleep 0.1
done
equals "the writer left idle" \
    "$(psql_as postgres -c "SELECT count(*) FROM clarify.audit_queue() WHERE database = current_database() AND writer_pid <> 0")" "0"
sleep 3
equals "its idle leave logged no line of pg_clarify's" "$(grep -c 'audit writer for database' "$dir/server.log")" "0"

# One rejection. The agent's backend pid picks its lines out of the log (every line carries it).
psql_as postgres -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
INSERT INTO clarify.concepts (id, kind, label, status) VALUES ('metric.net', 'metric', 'Net revenue', 'approved');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES ('metric.net', 'orders', 'booked_amount');
INSERT INTO clarify.terms (term, concept_id) VALUES ('revenue', 'metric.booked'), ('revenue', 'metric.net');
SQL
client=$("$PG_BINDIR/psql" -X -q -At -v VERBOSITY=verbose -h "$dir" -p "$port" -U agent -d postgres \
    -c 'SELECT pg_backend_pid()' -c 'SELECT booked_amount FROM orders' 2>&1)
pid=$(head -n 1 <<<"$client")
contains "the client gets the rejection's SQLSTATE and message" "$client" 'ERROR:  QC001: the meaning of "revenue" is ambiguous'
contains "and its DETAIL payload" "$client" 'DETAIL:  {"decision_id":'
contains "and its HINT" "$client" 'HINT:  When you say "revenue", do you mean:'
decision=$(grep -o '"decision_id":"[0-9]*"' <<<"$client" | grep -o '[0-9][0-9]*')
sleep 1 # the log is written by the backend before it answers; a margin for the file system
logged=$(grep -F "[$pid]" "$dir/server.log")
equals "the rejection is one line in the server log" "$(grep -c . <<<"$logged")" "1"
contains "it names the decision, its state and SQLSTATE" "$logged" "decision $decision: AMBIGUOUS (QC001)"
contains "it names the role and the database" "$logged" 'for role "agent" in database "postgres"'
contains "and the columns read, by schema.table.column" "$logged" "public.orders.booked_amount"
oids=$(psql_as postgres -c "SELECT string_agg(o::text, '|') FROM (VALUES ((SELECT oid FROM pg_database WHERE datname = 'postgres')), ('agent'::regrole::oid), ('orders'::regclass::oid)) v(o)")
equals "no OID names anything in it" "$(grep -cwE "$oids" <<<"$logged")" "0"

# A writer serving a 1.0 catalog says so once, naming the database.
psql_as postgres -v ON_ERROR_STOP=1 -c 'CREATE DATABASE log_lines_old' >/dev/null
"$PG_BINDIR/psql" -X -q -At -h "$dir" -p "$port" -U postgres -d log_lines_old -v ON_ERROR_STOP=1 >/dev/null 2>&1 <<'SQL'
CREATE TABLE orders (id int, booked_amount numeric);
GRANT SELECT ON orders TO agent;
CREATE EXTENSION pg_clarify VERSION '1.0';
INSERT INTO clarify.concepts (id, kind, label, status) VALUES ('metric.booked', 'metric', 'Booked revenue', 'approved');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES ('metric.booked', 'orders', 'booked_amount');
SELECT clarify.govern_role('agent');
SQL
"$PG_BINDIR/psql" -X -q -At -h "$dir" -p "$port" -U agent -d log_lines_old -c 'SELECT count(booked_amount) FROM orders' >/dev/null 2>&1
for _ in $(seq 300); do
    grep -q 'is at catalog 1.0' "$dir/server.log" && break
    sleep 0.1
done
contains "the 1.0 catalog's writer names its database" "$(grep 'is at catalog 1.0' "$dir/server.log")" \
    'the audit of database "log_lines_old" is at catalog 1.0'
finish
