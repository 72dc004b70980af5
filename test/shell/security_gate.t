#!/usr/bin/env bash
# Side doors around the gate (red-team findings): statements run inside parallel workers, code
# that runs with an agent's identity whoever started it, a revocation inside an open
# transaction, and governed values shown to agent code while a statement is planned. Each check
# is an attack an agent role with default privileges (plus CREATE on schema public) can run.
# On a cluster of its own (the example creates roles).
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
repo=$(cd "$(dirname "$0")/../.." && pwd)
plan 15

db=clarify_security
psql_db() { "$PG_BINDIR/psql" -X -qAt -v VERBOSITY=verbose -d "$db" "$@" 2>&1; }
as_dba() { psql_db -c "$1"; }
as_agent() { psql_db -U agent "$@"; }
audit_count() { # decisions whose statement contains $1
    as_dba "SELECT clarify.audit_wait_for_test();" >/dev/null
    as_dba "SELECT count(*) FROM clarify.audit WHERE statement LIKE '%' || \$\$$1\$\$ || '%'"
}
cleanup() { "$PG_BINDIR/dropdb" --if-exists "$db" 2>/dev/null; }
start_own_cluster security_gate 55457
on_exit cleanup
cleanup
"$PG_BINDIR/createdb" "$db"
as_dba 'CREATE EXTENSION pg_clarify' >/dev/null
"$PG_BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" -f "$repo/examples/revenue.sql" >/dev/null
as_dba "GRANT CREATE ON SCHEMA public TO agent;
        ANALYZE sales.orders;
        -- Polls until the writer has caught up (the audit is written shortly after a decision).
        CREATE FUNCTION clarify.audit_wait_for_test() RETURNS void LANGUAGE plpgsql AS \$\$
        DECLARE n bigint; m bigint; BEGIN
          LOOP SELECT count(*) INTO n FROM clarify.audit; PERFORM pg_sleep(0.2);
               SELECT count(*) INTO m FROM clarify.audit; EXIT WHEN n = m; END LOOP; END \$\$;" \
    >/dev/null
truth=$(as_dba 'SELECT sum(booked_amount)::text FROM sales.orders')

# 1. A nested statement inside a parallel worker is decided like any other.
out=$(as_agent -v parallel_debug="$PARALLEL_DEBUG" <<'SQL'
CREATE FUNCTION pg_temp.leak(q text) RETURNS text LANGUAGE plpgsql PARALLEL SAFE
  AS $$DECLARE r text; BEGIN EXECUTE q INTO r; RETURN r; END$$;
SET :parallel_debug = on;
SELECT pg_temp.leak('SELECT sum(booked_amount)::text /* worker dynamic */ FROM sales.orders');
SQL
)
contains "dynamic SQL in a forced parallel worker is refused (QC001)" "$out" "QC001"
[[ $out != *"$truth"* ]] && pass "and the worker returned no governed value" ||
    fail "and the worker returned no governed value" "$out"
equals "the worker's decision is audited" "$(audit_count 'worker dynamic')" 1

out=$(as_agent <<'SQL'
CREATE FUNCTION pg_temp.leak_static(i int) RETURNS numeric LANGUAGE plpgsql PARALLEL SAFE
  AS $$DECLARE r numeric; BEGIN SELECT sum(booked_amount) /* worker static */ INTO r FROM sales.orders; RETURN r; END$$;
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2; SET parallel_leader_participation = off;
CREATE TABLE public.many AS SELECT generate_series(1, 20000) AS id;
ANALYZE public.many;
EXPLAIN (COSTS OFF) SELECT max(pg_temp.leak_static(id)) FROM public.many WHERE id < 3;
SELECT max(pg_temp.leak_static(id)) FROM public.many WHERE id < 3;
SQL
)
contains "the planner chose a parallel plan by costs" "$out" "Parallel Seq Scan"
contains "static SQL in a parallel plan chosen by costs is refused (QC001)" "$out" "QC001"

# 2. Code that runs with an agent's identity is gated whoever starts it.
as_agent <<'SQL' >/dev/null
CREATE FUNCTION public.definer_sum() RETURNS numeric LANGUAGE sql SECURITY DEFINER
  AS $$SELECT sum(booked_amount) /* definer */ FROM sales.orders$$;
CREATE SEQUENCE public.loot;
CREATE FUNCTION public.steal(x int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF session_user <> 'agent' THEN
    PERFORM setval('public.loot', (SELECT sum(booked_amount) /* index expression */ FROM sales.orders)::bigint);
  END IF;
  RETURN x;
END$$;
CREATE TABLE public.bait (x int);
INSERT INTO public.bait SELECT generate_series(1, 10);
CREATE INDEX ON public.bait (public.steal(x));
CREATE MATERIALIZED VIEW public.mv AS SELECT sum(booked_amount) /* matview */ AS s FROM sales.orders WITH NO DATA;
SQL
out=$(as_dba 'SELECT public.definer_sum()')
contains "an agent-owned SECURITY DEFINER function called by a superuser is gated" "$out" "QC001"
out=$(as_dba 'ANALYZE public.bait')
loot=$(as_dba "SELECT CASE WHEN is_called THEN last_value END FROM public.loot")
[[ $loot != "${truth%.*}" ]] && pass "ANALYZE by a superuser does not run an agent's index expression ungated" ||
    fail "ANALYZE by a superuser does not run an agent's index expression ungated" "loot=$loot out=$out"
out=$(as_dba 'REFRESH MATERIALIZED VIEW public.mv')
contains "REFRESH of an agent's materialized view by a superuser is gated" "$out" "QC001"

# 3. A revocation committed inside the agent's open transaction applies to its next statement.
id=$(as_dba "SELECT clarify.confirm('q_revoke', 'revenue', 'metric.booked_revenue', 'agent', 'user:alice')")
record='{"question_id":"q_revoke","bindings":[{"term":"revenue","concept":"metric.booked_revenue","source":"user_confirmation"}]}'
# Separate statements (not one -c string, which would be one transaction): the revocation commits.
out=$(psql_db <<<"CREATE EXTENSION IF NOT EXISTS dblink;
  SELECT dblink_connect('a', 'dbname=$db user=agent host=$PGHOST port=$PGPORT');
  SELECT dblink_exec('a', 'BEGIN ISOLATION LEVEL REPEATABLE READ');
  SELECT dblink_exec('a', \$\$SET LOCAL pg_clarify.resolution = '$record'\$\$);
  SELECT dblink_exec('a', 'PREPARE p AS SELECT sum(booked_amount) FROM sales.orders');
  SELECT * FROM dblink('a', 'EXECUTE p') AS t(s numeric);
  SELECT clarify.revoke($id);
  SELECT * FROM dblink('a', 'EXECUTE p') AS t(s numeric);")
contains "the approval first allows the statement" "$out" "$truth"
contains "after the revocation the same transaction is refused (QC004)" "$out" "QC004"

# The same inside a parallel worker under REPEATABLE READ: the worker sees only the transaction's
# snapshot, from before the revocation, so it refuses rather than decide on it.
id=$(as_dba "SELECT clarify.confirm('q_rr', 'revenue', 'metric.booked_revenue', 'agent', 'user:alice')")
record='{"question_id":"q_rr","bindings":[{"term":"revenue","concept":"metric.booked_revenue","source":"user_confirmation"}]}'
out=$(psql_db <<<"SELECT dblink_connect('w', 'dbname=$db user=agent host=$PGHOST port=$PGPORT');
  SELECT dblink_exec('w', 'CREATE FUNCTION pg_temp.leak(q text) RETURNS text LANGUAGE plpgsql PARALLEL SAFE AS \$f\$DECLARE r text; BEGIN EXECUTE q INTO r; RETURN r; END\$f\$');
  SELECT dblink_exec('w', 'SET $PARALLEL_DEBUG = on');
  SELECT dblink_exec('w', 'BEGIN ISOLATION LEVEL REPEATABLE READ');
  SELECT dblink_exec('w', \$\$SET LOCAL pg_clarify.resolution = '$record'\$\$);
  SELECT * FROM dblink('w', 'SELECT sum(booked_amount) FROM sales.orders') AS t(s numeric);
  SELECT clarify.revoke($id);
  SELECT * FROM dblink('w', \$\$SELECT pg_temp.leak('SELECT sum(booked_amount)::text FROM sales.orders')\$\$) AS t(s text);")
contains "under REPEATABLE READ the approval first allows the statement" "$out" "$truth"
n=$(grep -c "$truth" <<<"$out")
equals "after the revocation a parallel worker does not return the value" "$n" 1

# 4. While an agent plans, governed columns have no statistics.
out=$(as_agent <<'SQL'
CREATE FUNCTION public.peek(numeric, numeric) RETURNS boolean LANGUAGE plpgsql IMMUTABLE
  AS $$BEGIN RAISE NOTICE 'peek %', $1; RETURN $1 < $2; END$$;
CREATE OPERATOR public.<<< (LEFTARG = numeric, RIGHTARG = numeric, FUNCTION = public.peek,
                            RESTRICT = scalarltsel);
EXPLAIN SELECT id FROM sales.orders WHERE booked_amount OPERATOR(public.<<<) 500;
SQL
)
[[ $out != *"peek "* ]] && pass "planning calls no agent-defined operator on governed statistics" ||
    fail "planning calls no agent-defined operator on governed statistics" "$(head -c 600 <<<"$out")"
rows() { as_agent -c "EXPLAIN SELECT id FROM sales.orders WHERE booked_amount > $1" | grep -o 'rows=[0-9]*' | head -1; }
low=$(rows 0) high=$(rows 1000000000)
equals "row estimates on a governed column do not depend on its values" "$low" "$high"
rows_dba() { as_dba "EXPLAIN SELECT id FROM sales.orders WHERE booked_amount > $1" | grep -o 'rows=[0-9]*' | head -1; }
[[ $(rows_dba 0) != "$(rows_dba 1000000000)" ]] && pass "a non-gated session keeps the statistics" ||
    fail "a non-gated session keeps the statistics"
finish
