#!/usr/bin/env bash
# pg_dump keeps every DBA-entered catalog row (pg_extension_config_dump): dump a database with
# the revenue example, defaults, approvals and governed roles, restore it elsewhere, compare.
# On a cluster of its own (the example creates roles).
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
repo=$(cd "$(dirname "$0")/../.." && pwd)
plan 11

src=clarify_dump_src dst=clarify_dump_dst
q() { "$PG_BINDIR/psql" -X -v ON_ERROR_STOP=1 -qAt -d "$1" -c "$2"; }
work=$(mktemp -d /tmp/pg_clarify_dump.XXXXXX)
cleanup() {
    "$PG_BINDIR/dropdb" --if-exists "$src" 2>/dev/null
    "$PG_BINDIR/dropdb" --if-exists "$dst" 2>/dev/null
    rm -rf "$work"
}
start_own_cluster dump_restore 55452
on_exit cleanup
cleanup
mkdir -p "$work"

"$PG_BINDIR/createdb" "$src"
q "$src" 'CREATE EXTENSION pg_clarify' &&
    "$PG_BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -d "$src" -f "$repo/examples/revenue.sql" >/dev/null &&
    q "$src" "
        DO \$\$ BEGIN
          IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'regress_dump_team') THEN
            CREATE ROLE regress_dump_team;
          END IF;
        END \$\$;
        INSERT INTO clarify.defaults (term, concept_id, approved_by) VALUES ('revenue', 'metric.recognized_revenue', 'Finance controller');
        INSERT INTO clarify.defaults (term, concept_id, applies_to, approved_by) VALUES ('revenue', 'metric.booked_revenue', 'regress_dump_team', 'Sales ops');
        SELECT clarify.govern_role('regress_dump_team');
        SELECT clarify.confirm('q_dump', 'revenue', 'metric.invoiced_revenue', 'regress_dump_team', 'user:alice', '1 day');
        UPDATE clarify.concepts SET description = description || ' (edited)' WHERE id = 'metric.booked_revenue';
        UPDATE clarify.concepts SET allowed_aggregates = '{sum,avg}' WHERE id = 'metric.invoiced_revenue';
        INSERT INTO clarify.unique_keys (relation, columns, approved_by, note)
            VALUES ('sales.invoices', '{order_id}', 'Billing', 'one invoice per order');" >/dev/null
check "the source database is populated" test "$(q "$src" 'SELECT count(*) FROM clarify.defaults')" = 2

check "pg_dump succeeds" "$PG_BINDIR/pg_dump" -Fc -f "$work/dump" "$src"
"$PG_BINDIR/createdb" "$dst"
check "pg_restore succeeds" "$PG_BINDIR/pg_restore" --exit-on-error -d "$dst" "$work/dump"

for table in concepts concept_columns terms defaults approvals agent_roles unique_keys; do
    sql="SELECT coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '') FROM clarify.$table t"
    a=$(q "$src" "$sql") b=$(q "$dst" "$sql")
    if [[ -n $a && $a == "$b" ]]; then pass "clarify.$table survives the round trip"; else
        fail "clarify.$table survives the round trip" "source: $a"$'\n'"restored: $b"; fi
done
seq="SELECT last_value FROM clarify.defaults_id_seq UNION ALL SELECT last_value FROM clarify.approvals_id_seq"
equals "sequences continue where they were" "$(q "$dst" "$seq")" "$(q "$src" "$seq")"
finish
