#!/usr/bin/env bash
# Populated 1.0 and 1.1 databases upgrade in place: ALTER EXTENSION pg_clarify UPDATE keeps every row,
# ends with the same schema as a fresh install of the default version, and the gate works at once.
# On a cluster of its own (the example creates roles).
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
repo=$(cd "$(dirname "$0")/../.." && pwd)
plan 32

old=clarify_upgrade_old new=clarify_upgrade_new mid=clarify_upgrade_1_1
q() { "$PG_BINDIR/psql" -X -v ON_ERROR_STOP=1 -qAt -d "$1" -c "$2"; }
# as_agent DB RECORD SQL: SQL's output (or error) in an agent session under that resolution record.
as_agent() {
    "$PG_BINDIR/psql" -X -qAt -v VERBOSITY=verbose -d "$1" -U agent \
        -c "SET pg_clarify.resolution = '$2'" -c "$3" 2>&1
}
cleanup() {
    "$PG_BINDIR/dropdb" --if-exists "$old" 2>/dev/null
    "$PG_BINDIR/dropdb" --if-exists "$new" 2>/dev/null
    "$PG_BINDIR/dropdb" --if-exists "$mid" 2>/dev/null
}
start_own_cluster upgrade 55458
on_exit cleanup
cleanup

# Everything in schemas clarify and clarify_internal that a DBA or the gate can tell apart, one
# line per property, in a fixed order: the schemas (privileges, comments), tables and their
# columns, constraints, indexes, views, functions (schema-qualified) with their bodies, triggers,
# event triggers, sequences, privileges, comments (tables, columns, functions), and what pg_dump
# keeps.
schema_sql="
WITH s AS (SELECT oid FROM pg_namespace WHERE nspname IN ('clarify', 'clarify_internal')),
rels AS (SELECT c.* FROM pg_class c, s WHERE c.relnamespace = s.oid)
SELECT line FROM (
  SELECT 'schema ' || n.nspname || ' acl=' || coalesce(n.nspacl::text, '') || ' comment='
         || coalesce(obj_description(n.oid, 'pg_namespace'), '') AS line
  FROM pg_namespace n JOIN s ON s.oid = n.oid
  UNION ALL
  SELECT 'event trigger ' || e.evtname || ' ' || e.evtevent || ' ' || e.evtfoid::regprocedure::text
         || ' ' || e.evtenabled::text || ' ' || coalesce(e.evttags::text, '')
  FROM pg_event_trigger e JOIN pg_proc p ON p.oid = e.evtfoid JOIN s ON s.oid = p.pronamespace
  UNION ALL
  SELECT 'relation ' || relname || ' ' || relkind::text || ' acl=' || coalesce(relacl::text, '')
         || ' options=' || coalesce(reloptions::text, '') AS line FROM rels
  UNION ALL
  SELECT 'column ' || r.relname || '.' || a.attname || ' #' || a.attnum || ' '
         || format_type(a.atttypid, a.atttypmod) || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
         || ' compression=' || a.attcompression::text || ' default=' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
  FROM rels r JOIN pg_attribute a ON a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped
  LEFT JOIN pg_attrdef d ON d.adrelid = r.oid AND d.adnum = a.attnum
  WHERE r.relkind IN ('r', 'p', 'v', 'S')
  UNION ALL
  SELECT 'constraint ' || r.relname || '.' || c.conname || ' ' || pg_get_constraintdef(c.oid)
  FROM pg_constraint c JOIN rels r ON r.oid = c.conrelid
  UNION ALL
  SELECT 'index ' || pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN rels r ON r.oid = i.indrelid
  UNION ALL
  SELECT 'view ' || relname || ' ' || pg_get_viewdef(oid) FROM rels WHERE relkind = 'v'
  UNION ALL
  SELECT 'trigger ' || pg_get_triggerdef(t.oid) FROM pg_trigger t JOIN rels r ON r.oid = t.tgrelid
  WHERE NOT t.tgisinternal
  UNION ALL
  SELECT 'function ' || p.oid::regprocedure::text || ' acl=' || coalesce(p.proacl::text, '')
         || ' ' || CASE WHEN p.prokind IN ('f', 'p', 'w') THEN pg_get_functiondef(p.oid) ELSE p.prokind::text END
  FROM pg_proc p, s WHERE p.pronamespace = s.oid
  UNION ALL
  SELECT 'comment ' || d.classoid::regclass || ' ' || coalesce(
           (SELECT relname FROM rels WHERE oid = d.objoid),
           (SELECT p.oid::regprocedure::text FROM pg_proc p WHERE p.oid = d.objoid), d.objoid::text)
         || ' ' || d.objsubid || ' ' || d.description
  FROM pg_description d
  WHERE d.objoid IN (SELECT oid FROM rels UNION ALL SELECT p.oid FROM pg_proc p, s WHERE p.pronamespace = s.oid)
  UNION ALL
  -- Initial privileges: what pg_dump takes for the extension's own, and does not repeat.
  SELECT 'initprivs ' || ip.classoid::regclass || ' ' || coalesce(
           (SELECT relname FROM rels WHERE oid = ip.objoid AND ip.classoid = 'pg_class'::regclass),
           (SELECT p.oid::regprocedure::text FROM pg_proc p
             WHERE p.oid = ip.objoid AND ip.classoid = 'pg_proc'::regclass),
           (SELECT nspname FROM pg_namespace n
             WHERE n.oid = ip.objoid AND ip.classoid = 'pg_namespace'::regclass), ip.objoid::text)
         || ' ' || ip.objsubid || ' ' || ip.initprivs::text
  FROM pg_init_privs ip
  WHERE (ip.classoid = 'pg_class'::regclass AND ip.objoid IN (SELECT oid FROM rels))
     OR (ip.classoid = 'pg_proc'::regclass AND ip.objoid IN (SELECT p.oid FROM pg_proc p, s WHERE p.pronamespace = s.oid))
     OR (ip.classoid = 'pg_namespace'::regclass AND ip.objoid IN (SELECT oid FROM s))
  UNION ALL
  SELECT 'dumped ' || x::regclass::text || ' ' || coalesce(e.extcondition[i], '')
  FROM pg_extension e, unnest(e.extconfig) WITH ORDINALITY AS u(x, i) WHERE e.extname = 'pg_clarify'
  UNION ALL
  SELECT 'version ' || extversion FROM pg_extension WHERE extname = 'pg_clarify'
) lines ORDER BY line"

rows_sql="SELECT string_agg(n || '=' || c, ' ' ORDER BY n) FROM (
  SELECT 'concepts' n, count(*) c FROM clarify.concepts UNION ALL
  SELECT 'concept_columns', count(*) FROM clarify.concept_columns UNION ALL
  SELECT 'terms', count(*) FROM clarify.terms UNION ALL
  SELECT 'defaults', count(*) FROM clarify.defaults UNION ALL
  SELECT 'approvals', count(*) FROM clarify.approvals UNION ALL
  SELECT 'agent_roles', count(*) FROM clarify.agent_roles UNION ALL
  SELECT 'audit', count(*) FROM clarify.audit) t"

"$PG_BINDIR/createdb" "$old"
"$PG_BINDIR/createdb" "$new"
q "$old" "CREATE EXTENSION pg_clarify VERSION '1.0'" &&
    "$PG_BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -d "$old" -f "$repo/examples/revenue.sql" >/dev/null &&
    q "$old" "
        INSERT INTO clarify.defaults (term, concept_id, approved_by)
            VALUES ('revenue', 'metric.recognized_revenue', 'Finance controller');
        SELECT clarify.confirm('q_upgrade', 'revenue', 'metric.invoiced_revenue', 'agent',
                               'user:alice', '1 day');" >/dev/null
# A few decisions in the 1.0 audit: one allowed through the default, one rejected.
"$PG_BINDIR/psql" -X -q -d "$old" -U agent >/dev/null 2>&1 <<'SQL'
SELECT sum(recognized_amount) FROM sales.revenue_ledger;
SELECT sum(booked_amount) FROM sales.orders;
SQL
equals "it runs catalog version 1.0" "$(q "$old" "SELECT extversion FROM pg_extension WHERE extname = 'pg_clarify'")" "1.0"

# The library works against a catalog not yet updated (approvals without a question text): a
# confirmation verifies, and resolve() does not tell the agent who confirmed.
confirmed_record='{"question_id":"q_upgrade","question":"Show revenue","bindings":[{"term":"revenue","concept":"metric.invoiced_revenue","source":"user_confirmation"}]}'
out=$(as_agent "$old" "$confirmed_record" 'SELECT count(invoiced_amount) > 0 FROM sales.invoices')
equals "on the 1.0 catalog a confirmation verifies" "$out" "t"
out=$(as_agent "$old" "$confirmed_record" \
    "SELECT r ->> 'decision', r ->> 'source', r -> 'confirmed_by' FROM clarify.resolve('revenue') r")
equals "on the 1.0 catalog resolve() resolves it without naming who confirmed" "$out" "RESOLVED|user_confirmation|null"
# Grain works without the 1.1 columns: every metric additive, no declared keys, fan-outs refused.
# check() plans as the role the 1.1 scripts create; a fresh cluster that only ran 1.0 has none.
q "$old" "DO \$\$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'clarify_check') THEN
          CREATE ROLE clarify_check NOLOGIN NOINHERIT; END IF; END \$\$" >/dev/null
out=$(as_agent "$old" "$confirmed_record" \
    "SELECT clarify.check('SELECT sum(i.invoiced_amount) FROM sales.invoices i JOIN sales.invoices j ON j.order_id = i.order_id') ->> 'state'")
equals "on the 1.0 catalog a fan-out is GRAIN" "$out" "GRAIN"
for _ in $(seq 50); do
    [[ $(q "$old" 'SELECT count(*) FROM clarify.audit') -ge 3 ]] && break
    sleep 0.1
done
before=$(q "$old" "$rows_sql")
contains "the 1.0 database is populated, its audit included" "$before" "audit=3"
# Every field of every audit row, texts included: the update changes how texts are keyed.
audit_sql="SELECT string_agg(concat_ws(' | ', decision_id, statement, decision, state, reason, columns,
  bindings, payload, record), E'\n' ORDER BY decision_id) FROM clarify.audit"
audit_before=$(q "$old" "$audit_sql")
contains "the 1.0 audit shows its statements" "$audit_before" "SELECT sum(booked_amount) FROM sales.orders"
equals "it runs catalog version 1.0" "$(q "$old" "SELECT extversion FROM pg_extension WHERE extname = 'pg_clarify'")" "1.0"

check "ALTER EXTENSION pg_clarify UPDATE succeeds" q "$old" 'ALTER EXTENSION pg_clarify UPDATE'
equals "every row is kept" "$(q "$old" "$rows_sql")" "$before"
equals "every audit row shows the same texts" "$(q "$old" "$audit_sql")" "$audit_before"
equals "rows written at 1.0 have no origin (it was not recorded)" \
    "$(q "$old" 'SELECT count(*) FROM clarify.audit WHERE origin IS NOT NULL')" "0"

# The same example on a fresh install: its grants are part of what must match. (Its agent can
# create code here, which govern_role warns about: said only if loading fails.)
q "$new" 'CREATE EXTENSION pg_clarify' >/dev/null &&
    load=$("$PG_BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -d "$new" -f "$repo/examples/revenue.sql" 2>&1 >/dev/null) ||
    printf '%s\n' "$load" | sed 's/^/# /' >&2
a=$(q "$old" "$schema_sql") b=$(q "$new" "$schema_sql")
if [[ -n $a && $a == "$b" ]]; then pass "the updated schema equals a fresh install's"; else
    fail "the updated schema equals a fresh install's" "$(diff <(echo "$b") <(echo "$a") | head -40)"
fi

out=$("$PG_BINDIR/psql" -X -v VERBOSITY=verbose -d "$old" -U agent -c 'SELECT sum(booked_amount) FROM sales.orders' 2>&1)
contains "the gate refuses a non-default meaning at once" "$out" "QC003"
out=$(as_agent "$old" "$confirmed_record" 'SELECT count(invoiced_amount) > 0 FROM sales.invoices')
equals "a 1.0 approval still verifies" "$out" "t"

# confirm() took a parameter: the app's EXECUTE grant on the 1.0 function carried over, and a
# confirmation with the question's text holds for that text only.
out=$(q "$old" "SET ROLE app;
    SELECT clarify.confirm('q_upgrade_2', 'revenue', 'metric.invoiced_revenue', 'agent',
                           'user:bob', '1 day', 'Show invoiced revenue') > 0" 2>&1)
equals "the app confirms with the question text after the update" "$out" "t"
text_record() {
    echo "{\"question_id\": \"q_upgrade_2\", \"question\": \"$1\", \"bindings\": [{\"term\": \"revenue\", \"concept\": \"metric.invoiced_revenue\", \"source\": \"user_confirmation\"}]}"
}
out=$(as_agent "$old" "$(text_record 'Show invoiced revenue')" \
    'SELECT count(invoiced_amount) > 0 FROM sales.invoices')
equals "it verifies for the question it was given for" "$out" "t"
out=$(as_agent "$old" "$(text_record 'Show margin')" \
    'SELECT count(invoiced_amount) > 0 FROM sales.invoices')
contains "and not for another question under the same question_id" "$out" "QC004"
for _ in $(seq 50); do
    [[ $(q "$old" 'SELECT count(*) FROM clarify.audit') -ge 7 ]] && break
    sleep 0.1
done
equals "every decision, before and after the update, is audited with its statement" \
    "$(q "$old" "SELECT count(*) FROM clarify.audit WHERE statement LIKE 'SELECT %'")" "7"
equals "decisions after the update are audited" "$(q "$old" 'SELECT count(*) FROM clarify.audit')" "7"
equals "decisions after the update carry this server's origin" \
    "$(q "$old" "SELECT count(*) FROM clarify.audit WHERE origin IS NOT NULL AND origin <> ''")" \
    "$(q "$old" "SELECT count(*) FROM clarify.audit WHERE decided_at > (SELECT max(decided_at) FROM clarify.audit WHERE origin IS NULL)")"
# --- a populated 1.1 database ----------------------------------------------------------------
"$PG_BINDIR/createdb" "$mid"
q "$mid" "CREATE EXTENSION pg_clarify VERSION '1.1'" &&
    "$PG_BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -d "$mid" -f "$repo/examples/revenue.sql" >/dev/null &&
    q "$mid" "
        INSERT INTO clarify.defaults (term, concept_id, approved_by)
            VALUES ('revenue', 'metric.recognized_revenue', 'Finance controller');
        SELECT clarify.confirm('q_upgrade_11', 'revenue', 'metric.invoiced_revenue', 'agent',
                               'user:carol', '1 day', 'Show invoiced revenue');" >/dev/null
equals "it runs catalog version 1.1" \
    "$(q "$mid" "SELECT extversion FROM pg_extension WHERE extname = 'pg_clarify'")" "1.1"
"$PG_BINDIR/psql" -X -q -d "$mid" -U agent >/dev/null 2>&1 <<'SQL'
SELECT sum(recognized_amount) FROM sales.revenue_ledger;
SELECT sum(booked_amount) FROM sales.orders;
SQL
for _ in $(seq 50); do
    [[ $(q "$mid" 'SELECT count(*) FROM clarify.audit') -ge 2 ]] && break
    sleep 0.1
done
mid_before=$(q "$mid" "$rows_sql")
contains "the 1.1 database is populated, its audit included" "$mid_before" "audit=2"
mid_audit=$(q "$mid" "$audit_sql")
check "ALTER EXTENSION pg_clarify UPDATE from 1.1 succeeds" q "$mid" 'ALTER EXTENSION pg_clarify UPDATE'
equals "it runs the default version after the update" \
    "$(q "$mid" "SELECT extversion FROM pg_extension WHERE extname = 'pg_clarify'")" \
    "$(q "$new" "SELECT extversion FROM pg_extension WHERE extname = 'pg_clarify'")"
equals "every 1.1 row is kept" "$(q "$mid" "$rows_sql")" "$mid_before"
equals "every 1.1 audit row shows the same texts" "$(q "$mid" "$audit_sql")" "$mid_audit"
a=$(q "$mid" "$schema_sql")
if [[ -n $a && $a == "$b" ]]; then pass "the schema updated from 1.1 equals a fresh install's"; else
    fail "the schema updated from 1.1 equals a fresh install's" "$(diff <(echo "$b") <(echo "$a") | head -40)"
fi
out=$("$PG_BINDIR/psql" -X -v VERBOSITY=verbose -d "$mid" -U agent -c 'SELECT sum(booked_amount) FROM sales.orders' 2>&1)
contains "after the update from 1.1 the gate refuses a non-default meaning at once" "$out" "QC003"
out=$(as_agent "$mid" '{"question_id":"q_upgrade_11","question":"Show invoiced revenue","bindings":[{"term":"revenue","concept":"metric.invoiced_revenue","source":"user_confirmation"}]}' \
    'SELECT count(invoiced_amount) > 0 FROM sales.invoices')
equals "a 1.1 approval still verifies after the update" "$out" "t"
# Versions (catalog block "Definitions change; approvals notice"): what 1.1 approved was approved
# for the definition it has, so the update changes no decision.
equals "the update gives every 1.1 default and approval its concept's current version" \
    "$(q "$mid" "SELECT (SELECT count(*) FROM clarify.defaults d JOIN clarify.concepts c ON c.id = d.concept_id WHERE d.concept_version = c.version)
                 || ' ' || (SELECT count(*) FROM clarify.approvals a JOIN clarify.concepts c ON c.id = a.concept_id WHERE a.concept_version = c.version)
                 || ' ' || (SELECT count(*) FROM clarify.stale_approvals)")" "1 1 0"
out=$("$PG_BINDIR/psql" -X -qAt -d "$mid" -U agent -c 'SELECT sum(recognized_amount) > 0 FROM sales.revenue_ledger' 2>&1)
equals "the 1.1 default still applies after the update" "$out" "t"
q "$mid" "UPDATE clarify.concepts SET description = 'Recognized under IFRS 15, net of rebates' WHERE id = 'metric.recognized_revenue'"
out=$("$PG_BINDIR/psql" -X -v VERBOSITY=verbose -d "$mid" -U agent -c 'SELECT sum(recognized_amount) FROM sales.revenue_ledger' 2>&1)
contains "once its definition changes, the 1.1 default no longer applies" "$out" "QC002"
finish
