#!/usr/bin/env bash
# Roles and columns are governed by name (CONTRACT.md §18): a dump of a governed database restored
# into a cluster where its roles do not exist yet keeps every catalog row, and the agent created
# afterwards is gated at its first statement; a role dropped and created again, or renamed, stays
# governed; a governed column (or table) dropped warns and is governed again when added again;
# renames of column, table and schema are followed.
# The dump's source and the restore's target are two clusters of its own, one after the other.
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
repo=$(cd "$(dirname "$0")/../.." && pwd)
plan 25

src=clarify_restore_roles_src
q() { "$PG_BINDIR/psql" -X -v ON_ERROR_STOP=1 -qAt -d "$src" -c "$1"; }
work=$(mktemp -d /tmp/pg_clarify_restore_roles.XXXXXX)
on_exit "rm -rf '$work'"
start_own_cluster restore_roles_src 55455
"$PG_BINDIR/createdb" "$src"
q 'CREATE EXTENSION pg_clarify' &&
    "$PG_BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -d "$src" -f "$repo/examples/revenue.sql" >/dev/null &&
    q "
        DO \$\$ BEGIN
          IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'regress_rr_team') THEN
            CREATE ROLE regress_rr_team;
          END IF;
        END \$\$;
        INSERT INTO clarify.defaults (term, concept_id, applies_to, approved_by) VALUES ('revenue', 'metric.booked_revenue', 'regress_rr_team', 'Sales ops');
        SELECT clarify.confirm('q_rr', 'revenue', 'metric.invoiced_revenue', 'agent', 'user:alice', '1 day');
        SELECT clarify.confirm('q_rr_team', 'revenue', 'metric.invoiced_revenue', 'regress_rr_team', 'user:bob', '1 day');" >/dev/null
check "the source database is populated" test "$(q 'SELECT count(*) FROM clarify.approvals')" = 2
check "pg_dump -Fc succeeds" "$PG_BINDIR/pg_dump" -Fc -f "$work/dump" "$src"

rows() { # the catalog rows, names and all, without the cluster's OIDs
    case $1 in
        agent_roles) echo "SELECT agent_role::text FROM clarify.agent_roles ORDER BY 1" ;;
        defaults) echo "SELECT term || ' ' || concept_id || ' ' || coalesce(applies_to::text, '-') FROM clarify.defaults ORDER BY 1" ;;
        approvals) echo "SELECT question_id || ' ' || concept_id || ' ' || granted_to::text FROM clarify.approvals ORDER BY 1" ;;
        concept_columns) echo "SELECT concept_id || ' ' || relation::text || ' ' || column_name FROM clarify.concept_columns ORDER BY 1" ;;
    esac
}
declare -A source_rows
for table in agent_roles defaults approvals concept_columns; do
    source_rows[$table]=$(q "$(rows $table)")
done
_stop_test_cluster

# The fresh cluster has neither agent nor regress_rr_team.
start_test_cluster restore_roles 55476 "shared_preload_libraries = 'pg_clarify'" "fsync = off"
as() { "$PG_BINDIR/psql" -X -q -At -v VERBOSITY=verbose -h "$dir" -p "$port" -U "$1" -d postgres -c "$2" 2>&1; }
out=$("$PG_BINDIR/pg_restore" --no-owner --no-privileges -h "$dir" -p "$port" -U postgres -d postgres "$work/dump" 2>&1)
check "pg_restore succeeds before the roles exist" test $? = 0
[[ -n $out ]] && printf '%s\n' "$out" | sed 's/^/# /' >&2

for table in agent_roles defaults approvals concept_columns; do
    a=${source_rows[$table]} b=$(as postgres "$(rows $table)")
    if [[ -n $a && $a == "$b" ]]; then pass "every clarify.$table row is restored"; else
        fail "every clarify.$table row is restored" "source: $a"$'\n'"restored: $b"; fi
done

grant="GRANT USAGE ON SCHEMA sales TO agent; GRANT SELECT ON ALL TABLES IN SCHEMA sales TO agent;"
read='SELECT sum(booked_amount) FROM sales.orders'
as postgres "CREATE ROLE agent LOGIN; $grant" >/dev/null
contains "the agent created after the restore is gated at its first statement" "$(as agent "$read")" "QC00"
equals "clarify.gated() is true for it" "$(as agent 'SELECT clarify.gated()')" "t"
out=$(as agent "SET pg_clarify.resolution = '{\"question_id\": \"q_rr\", \"bindings\": [{\"term\": \"revenue\", \"concept\": \"metric.invoiced_revenue\", \"source\": \"user_confirmation\"}]}'; SELECT count(*) FROM (SELECT invoiced_amount FROM sales.invoices) s")
equals "its restored approval applies once the role exists" "$out" "$(as postgres 'SELECT count(*) FROM sales.invoices')"

as postgres "DROP OWNED BY agent; DROP ROLE agent; CREATE ROLE agent LOGIN; $grant" >/dev/null
contains "a role dropped and created again with the same name is gated" "$(as agent "$read")" "QC00"

as postgres "ALTER ROLE agent RENAME TO agent_renamed" >/dev/null
equals "agent_roles follows ALTER ROLE ... RENAME" "$(as postgres 'SELECT agent_role FROM clarify.agent_roles')" "agent_renamed"
equals "approvals follow it" "$(as postgres "SELECT granted_to FROM clarify.approvals WHERE question_id = 'q_rr'")" "agent_renamed"
contains "the renamed role is gated" "$(as agent_renamed "$read")" "QC00"
as postgres "CREATE ROLE regress_rr_team; GRANT regress_rr_team TO agent_renamed" >/dev/null
contains "a default's role created after the restore has its default" \
    "$(as agent_renamed "SELECT clarify.resolve('revenue')")" "metric.booked_revenue"
as postgres "REVOKE regress_rr_team FROM agent_renamed" >/dev/null  # its default would resolve

# A session already open hears CREATE ROLE (the pg_authid invalidation): its cached roles reload.
as postgres "INSERT INTO clarify.agent_roles (agent_role) VALUES ('regress_rr_late');
    GRANT USAGE ON SCHEMA sales TO PUBLIC; GRANT SELECT ON sales.orders TO PUBLIC" >/dev/null
out=$("$PG_BINDIR/psql" -X -q -At -v VERBOSITY=verbose -h "$dir" -p "$port" -U postgres -d postgres 2>&1 <<SQL
SELECT clarify.gated();
$read;
CREATE ROLE regress_rr_late;
SET ROLE regress_rr_late;
$read;
SQL
)
as postgres "REVOKE USAGE ON SCHEMA sales FROM PUBLIC; REVOKE SELECT ON sales.orders FROM PUBLIC" >/dev/null
contains "a role created after an open session loaded the catalog is gated in it" "$out" "QC00"

# Columns by name: drop and add again, renames of column, table and schema.
out=$(as postgres "ALTER TABLE sales.orders DROP COLUMN booked_amount")
contains "dropping a governed column warns naming the concept" "$out" "is governed by metric.booked_revenue"
equals "its mapping keeps the names" \
    "$(as postgres "SELECT schema_name || '.' || table_name || '.' || column_name FROM clarify.concept_columns WHERE concept_id = 'metric.booked_revenue'")" \
    "sales.orders.booked_amount"
as postgres "ALTER TABLE sales.orders ADD COLUMN booked_amount numeric; GRANT SELECT ON sales.orders TO agent_renamed" >/dev/null
contains "a column of that name added again is governed again" "$(as agent_renamed "$read")" "QC00"
as postgres "ALTER TABLE sales.orders RENAME booked_amount TO booked" >/dev/null
contains "a renamed column stays governed" "$(as agent_renamed 'SELECT sum(booked) FROM sales.orders')" "QC00"
equals "the mapping follows the column's new name" \
    "$(as postgres "SELECT column_name FROM clarify.concept_columns WHERE concept_id = 'metric.booked_revenue'")" "booked"
as postgres "ALTER TABLE sales.orders RENAME TO orders_renamed; ALTER SCHEMA sales RENAME TO sales_renamed" >/dev/null
equals "the mapping follows table and schema renames" \
    "$(as postgres "SELECT schema_name || '.' || table_name || ' ' || relation::text FROM clarify.concept_columns WHERE concept_id = 'metric.booked_revenue'")" \
    "sales_renamed.orders_renamed sales_renamed.orders_renamed"
contains "the renamed table stays governed" "$(as agent_renamed 'SELECT sum(booked) FROM sales_renamed.orders_renamed')" "QC00"
out=$(as postgres "DROP TABLE sales_renamed.invoices")
contains "dropping a governed table warns naming its concepts" "$out" "is governed by metric.invoiced_revenue"
as postgres "CREATE TABLE sales_renamed.invoices (invoiced_amount numeric, customer_country text); GRANT SELECT ON sales_renamed.invoices TO agent_renamed" >/dev/null
contains "a table of that name created again is governed again" \
    "$(as agent_renamed 'SELECT sum(invoiced_amount) FROM sales_renamed.invoices')" "QC00"
finish
