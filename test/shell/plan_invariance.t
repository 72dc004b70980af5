#!/usr/bin/env bash
# A decision depends on the statement, never on the plan: 46 analytical statements on a
# TPC-H-shaped schema are checked by a governed agent under 11 planner settings the agent may set
# itself, on empty never-analysed tables, filled and analysed tables, and filled tables with
# secondary indexes (composite ones with a governed trailing column) after VACUUM ANALYZE. Each
# statement's (state, columns) must be the same under all 33 combinations and name exactly the
# governed columns the statement reads; the plans must vary, so that the test cannot pass
# vacuously. The one case where the plan decides by design (rows in an order the statement does
# not fix, produced through an index ending in a governed column) is checked separately, at the
# end. On failure it prints each odd combination with its plan; KEEP_DB=1 keeps the database
# (and its cluster, running). On a cluster of its own (it creates a role).
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"

db=clarify_plan_invariance
agent=regress_plan_agent
psql_db() { "$PG_BINDIR/psql" -X -qAt -v ON_ERROR_STOP=1 -d "$db" "$@" 2>&1; }
as_dba() { psql_db -c "$1"; }
# The agent is a NOLOGIN role: the session switches to it, which makes it gated.
as_agent() { psql_db -c "SET ROLE $agent" -c "$1"; }
drop_db() { "$PG_BINDIR/dropdb" --if-exists "$db" 2>/dev/null; }
# KEEP_DB=1 keeps the database (harness.results holds every decision and plan) for inspection.
[[ -n ${KEEP_DB:-} ]] && keep_cluster=1
start_own_cluster plan_invariance 55454
on_exit '[[ -n ${KEEP_DB:-} ]] || drop_db'
drop_db
"$PG_BINDIR/createdb" "$db" || { echo "Bail out! createdb $db failed"; exit 1; }

# --- schema, governance, agent ------------------------------------------------------------------
out=$(psql_db -v parallel_debug="$PARALLEL_DEBUG" <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION pg_clarify;
CREATE SCHEMA tpch;
CREATE TABLE tpch.region (r_regionkey int PRIMARY KEY, r_name text NOT NULL, r_comment text);
CREATE TABLE tpch.nation (n_nationkey int PRIMARY KEY, n_name text NOT NULL,
    n_regionkey int NOT NULL, n_comment text);
CREATE TABLE tpch.supplier (s_suppkey int PRIMARY KEY, s_name text NOT NULL, s_address text,
    s_nationkey int NOT NULL, s_phone text, s_acctbal numeric(12, 2), s_comment text);
CREATE TABLE tpch.customer (c_custkey int PRIMARY KEY, c_name text NOT NULL, c_address text,
    c_nationkey int NOT NULL, c_phone text, c_acctbal numeric(12, 2), c_mktsegment text,
    c_comment text);
CREATE TABLE tpch.part (p_partkey int PRIMARY KEY, p_name text, p_mfgr text, p_brand text,
    p_type text, p_size int, p_container text, p_retailprice numeric(12, 2), p_comment text);
CREATE TABLE tpch.partsupp (ps_partkey int, ps_suppkey int, ps_availqty int,
    ps_supplycost numeric(12, 2), ps_comment text, PRIMARY KEY (ps_partkey, ps_suppkey));
CREATE TABLE tpch.orders (o_orderkey int PRIMARY KEY, o_custkey int NOT NULL, o_orderstatus char(1),
    o_totalprice numeric(12, 2), o_orderdate date NOT NULL, o_orderpriority text, o_clerk text,
    o_shippriority int, o_comment text);
CREATE TABLE tpch.lineitem (l_orderkey int, l_partkey int, l_suppkey int, l_linenumber int,
    l_quantity numeric(12, 2), l_extendedprice numeric(12, 2), l_discount numeric(12, 2),
    l_tax numeric(12, 2), l_returnflag char(1), l_linestatus char(1), l_shipdate date,
    l_commitdate date, l_receiptdate date, l_shipinstruct text, l_shipmode text, l_comment text,
    PRIMARY KEY (l_orderkey, l_linenumber));

-- "revenue" has two approved meanings (reading either is AMBIGUOUS); discount and balance one.
INSERT INTO clarify.concepts (id, kind, label, description, owner, status) VALUES
  ('metric.line_revenue', 'metric', 'Line revenue', 'Extended price of order lines', 'Sales', 'approved'),
  ('metric.order_revenue', 'metric', 'Order revenue', 'Total price of orders', 'Billing', 'approved'),
  ('metric.line_discount', 'metric', 'Line discount', 'Discount granted on a line', 'Sales', 'approved'),
  ('metric.account_balance', 'metric', 'Account balance', 'Customer account balance', 'Finance', 'approved');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES
  ('metric.line_revenue', 'tpch.lineitem', 'l_extendedprice'),
  ('metric.order_revenue', 'tpch.orders', 'o_totalprice'),
  ('metric.line_discount', 'tpch.lineitem', 'l_discount'),
  ('metric.account_balance', 'tpch.customer', 'c_acctbal');
INSERT INTO clarify.terms (term, concept_id) VALUES
  ('revenue', 'metric.line_revenue'), ('revenue', 'metric.order_revenue'),
  ('discount', 'metric.line_discount'), ('balance', 'metric.account_balance');

DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'regress_plan_agent') THEN
    CREATE ROLE regress_plan_agent;
  END IF;
END $$;
-- Agents own no code here (govern_role warns otherwise).
DO $$ BEGIN EXECUTE format('REVOKE TEMP ON DATABASE %I FROM PUBLIC', current_database()); END $$;
GRANT USAGE ON SCHEMA tpch TO regress_plan_agent;
GRANT SELECT ON ALL TABLES IN SCHEMA tpch TO regress_plan_agent;
SELECT clarify.govern_role('regress_plan_agent');

-- The harness: statements with the governed columns each reads, the settings, the results.
CREATE SCHEMA harness;
GRANT USAGE ON SCHEMA harness TO regress_plan_agent;
CREATE TABLE harness.statements (name text PRIMARY KEY, sql text NOT NULL, expected text[] NOT NULL);
CREATE TABLE harness.settings (name text PRIMARY KEY, ord int NOT NULL, gucs jsonb NOT NULL);
CREATE TABLE harness.results (data_state text, setting text, statement text, state text,
    columns text[], plan text, error text, plan_json jsonb);
GRANT SELECT ON harness.statements, harness.settings TO regress_plan_agent;
GRANT INSERT ON harness.results TO regress_plan_agent;

INSERT INTO harness.settings (name, ord, gucs) VALUES
  ('default', 1, '{}'),
  ('seqscan off', 2, '{"enable_seqscan": "off"}'),
  ('hashjoin off', 3, '{"enable_hashjoin": "off"}'),
  ('mergejoin+hashjoin off', 4, '{"enable_mergejoin": "off", "enable_hashjoin": "off"}'),
  ('nestloop off', 5, '{"enable_nestloop": "off"}'),
  ('index(only)scan off', 6, '{"enable_indexscan": "off", "enable_indexonlyscan": "off"}'),
  ('bitmapscan off', 7, '{"enable_bitmapscan": "off"}'),
  ('sort off', 8, '{"enable_sort": "off"}'),
  ('hashagg off', 9, '{"enable_hashagg": "off"}'),
  ('fixed join order', 10, '{"join_collapse_limit": "1", "from_collapse_limit": "1"}'),
  ('forced parallel', 11, '{"parallel_setup_cost": "0", "parallel_tuple_cost": "0", "min_parallel_table_scan_size": "0", "min_parallel_index_scan_size": "0"}'::jsonb
                          || jsonb_build_object(:'parallel_debug', 'on'));

-- Evaluates every statement under every setting as the calling role, in one transaction: each
-- setting starts from the session's values of all knobs any setting touches.
CREATE FUNCTION harness.run(data_state text) RETURNS SETOF harness.results
LANGUAGE plpgsql AS $$
DECLARE
  knobs text[];
  saved jsonb := '{}';
  k text;
  s record;
  q record;
  d jsonb;
  line text;
  p text;
  pj jsonb;
BEGIN
  SELECT array_agg(DISTINCT key) INTO knobs FROM harness.settings, jsonb_object_keys(gucs) AS key;
  FOREACH k IN ARRAY knobs LOOP saved := saved || jsonb_build_object(k, current_setting(k)); END LOOP;
  FOR s IN SELECT * FROM harness.settings ORDER BY ord LOOP
    FOREACH k IN ARRAY knobs LOOP PERFORM set_config(k, saved ->> k, true); END LOOP;
    FOR k IN SELECT jsonb_object_keys(s.gucs) LOOP PERFORM set_config(k, s.gucs ->> k, true); END LOOP;
    FOR q IN SELECT * FROM harness.statements ORDER BY name LOOP
      p := '';
      FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q.sql LOOP p := p || line || E'\n'; END LOOP;
      EXECUTE 'EXPLAIN (COSTS OFF, FORMAT JSON) ' || q.sql INTO pj;
      BEGIN
        d := clarify.check(q.sql);
        RETURN NEXT (data_state, s.name, q.name, d ->> 'state',
          ARRAY(SELECT c FROM jsonb_array_elements_text(d -> 'columns') AS c ORDER BY c), p, NULL::text, pj);
      EXCEPTION WHEN OTHERS THEN
        RETURN NEXT (data_state, s.name, q.name, NULL::text, NULL::text[], p, SQLERRM, pj);
      END;
    END LOOP;
  END LOOP;
END $$;
GRANT EXECUTE ON FUNCTION harness.run(text) TO regress_plan_agent;
SQL
)
[[ -z $out ]] || { echo "Bail out! setup failed"; printf '%s\n' "$out" | sed 's/^/# /' >&2; exit 1; }

# --- the statements, each with the governed columns it reads -----------------------------------
# Statements return aggregates, or rows in an order their ORDER BY fixes completely: the order of
# rows that reach the client is the statement's own (see the last checks for the other case).
out=$(psql_db <<'SQL'
INSERT INTO harness.statements (name, expected, sql) VALUES
('q01_pricing_summary', '{tpch.lineitem.l_discount,tpch.lineitem.l_extendedprice}', $q$
SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, sum(l_extendedprice) AS sum_base,
       sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price, avg(l_quantity) AS avg_qty,
       avg(l_discount) AS avg_disc, count(*) AS count_order
FROM tpch.lineitem WHERE l_shipdate <= date '1998-12-01' - 90
GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus $q$),
('q03_shipping_priority', '{tpch.lineitem.l_discount,tpch.lineitem.l_extendedprice}', $q$
SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue, o_orderdate, o_shippriority
FROM tpch.customer, tpch.orders, tpch.lineitem
WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey AND l_orderkey = o_orderkey
  AND o_orderdate < date '1995-03-15' AND l_shipdate > date '1995-03-15'
GROUP BY l_orderkey, o_orderdate, o_shippriority ORDER BY revenue DESC, o_orderdate, l_orderkey
LIMIT 10 $q$),
('q03_line_count', '{}', $q$
SELECT l_orderkey, count(*) AS lines, o_orderdate, o_shippriority
FROM tpch.customer, tpch.orders, tpch.lineitem
WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey AND l_orderkey = o_orderkey
  AND o_orderdate < date '1995-03-15' AND l_shipdate > date '1995-03-15'
GROUP BY l_orderkey, o_orderdate, o_shippriority ORDER BY lines DESC, o_orderdate, l_orderkey
LIMIT 10 $q$),
('q04_order_priority_exists', '{}', $q$
SELECT o_orderpriority, count(*) AS order_count FROM tpch.orders
WHERE o_orderdate >= date '1993-07-01' AND o_orderdate < date '1993-10-01'
  AND EXISTS (SELECT * FROM tpch.lineitem WHERE l_orderkey = o_orderkey AND l_commitdate < l_receiptdate)
GROUP BY o_orderpriority ORDER BY o_orderpriority $q$),
('q05_local_supplier', '{tpch.lineitem.l_discount,tpch.lineitem.l_extendedprice}', $q$
SELECT n_name, sum(l_extendedprice * (1 - l_discount)) AS revenue
FROM tpch.customer, tpch.orders, tpch.lineitem, tpch.supplier, tpch.nation, tpch.region
WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND l_suppkey = s_suppkey
  AND c_nationkey = s_nationkey AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey
  AND r_name = 'ASIA' AND o_orderdate >= date '1994-01-01' AND o_orderdate < date '1995-01-01'
GROUP BY n_name ORDER BY revenue DESC, n_name $q$),
('q06_forecast_revenue', '{tpch.lineitem.l_discount,tpch.lineitem.l_extendedprice}', $q$
SELECT sum(l_extendedprice * l_discount) AS revenue FROM tpch.lineitem
WHERE l_shipdate >= date '1994-01-01' AND l_shipdate < date '1995-01-01'
  AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24 $q$),
('q10_returned_items', '{tpch.customer.c_acctbal,tpch.lineitem.l_discount,tpch.lineitem.l_extendedprice}', $q$
SELECT c_custkey, c_name, sum(l_extendedprice * (1 - l_discount)) AS revenue, c_acctbal, n_name,
       c_address, c_phone, c_comment
FROM tpch.customer, tpch.orders, tpch.lineitem, tpch.nation
WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND o_orderdate >= date '1993-10-01'
  AND o_orderdate < date '1994-01-01' AND l_returnflag = 'R' AND c_nationkey = n_nationkey
GROUP BY c_custkey, c_name, c_acctbal, c_phone, n_name, c_address, c_comment
ORDER BY revenue DESC, c_custkey LIMIT 20 $q$),
('q10_returned_lines', '{}', $q$
SELECT c_custkey, c_name, count(*) AS returned, n_name
FROM tpch.customer, tpch.orders, tpch.lineitem, tpch.nation
WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND o_orderdate >= date '1993-10-01'
  AND o_orderdate < date '1994-01-01' AND l_returnflag = 'R' AND c_nationkey = n_nationkey
GROUP BY c_custkey, c_name, n_name ORDER BY returned DESC, c_custkey LIMIT 20 $q$),
('q12_shipping_modes', '{}', $q$
SELECT l_shipmode,
       sum(CASE WHEN o_orderpriority IN ('1-URGENT', '2-HIGH') THEN 1 ELSE 0 END) AS high_line_count,
       sum(CASE WHEN o_orderpriority NOT IN ('1-URGENT', '2-HIGH') THEN 1 ELSE 0 END) AS low_line_count
FROM tpch.orders, tpch.lineitem
WHERE o_orderkey = l_orderkey AND l_shipmode IN ('MAIL', 'SHIP') AND l_commitdate < l_receiptdate
  AND l_shipdate < l_commitdate AND l_receiptdate >= date '1994-01-01'
  AND l_receiptdate < date '1995-01-01'
GROUP BY l_shipmode ORDER BY l_shipmode $q$),
('q13_customer_distribution', '{}', $q$
SELECT c_count, count(*) AS custdist
FROM (SELECT c_custkey, count(o_orderkey)
      FROM tpch.customer LEFT JOIN tpch.orders
        ON c_custkey = o_custkey AND o_comment NOT LIKE '%special%requests%'
      GROUP BY c_custkey) AS c_orders (c_custkey, c_count)
GROUP BY c_count ORDER BY custdist DESC, c_count DESC $q$),
('q17_small_quantity', '{tpch.lineitem.l_extendedprice}', $q$
SELECT sum(l_extendedprice) / 7.0 AS avg_yearly FROM tpch.lineitem, tpch.part
WHERE p_partkey = l_partkey AND p_brand = 'Brand#23' AND p_container = 'MED BOX'
  AND l_quantity < (SELECT 0.2 * avg(l_quantity) FROM tpch.lineitem WHERE l_partkey = p_partkey) $q$),
('q17_small_quantity_count', '{}', $q$
SELECT count(*) AS small_lines FROM tpch.lineitem, tpch.part
WHERE p_partkey = l_partkey AND p_brand = 'Brand#23'
  AND l_quantity < (SELECT 0.2 * avg(l_quantity) FROM tpch.lineitem WHERE l_partkey = p_partkey) $q$),
('q18_large_volume', '{tpch.orders.o_totalprice}', $q$
SELECT c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice, sum(l_quantity)
FROM tpch.customer, tpch.orders, tpch.lineitem
WHERE o_orderkey IN (SELECT l_orderkey FROM tpch.lineitem GROUP BY l_orderkey HAVING sum(l_quantity) > 150)
  AND c_custkey = o_custkey AND o_orderkey = l_orderkey
GROUP BY c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice
ORDER BY o_totalprice DESC, o_orderdate, o_orderkey LIMIT 100 $q$),
('q18_large_volume_dates', '{}', $q$
SELECT c_name, c_custkey, o_orderkey, o_orderdate, sum(l_quantity)
FROM tpch.customer, tpch.orders, tpch.lineitem
WHERE o_orderkey IN (SELECT l_orderkey FROM tpch.lineitem GROUP BY l_orderkey HAVING sum(l_quantity) > 150)
  AND c_custkey = o_custkey AND o_orderkey = l_orderkey
GROUP BY c_name, c_custkey, o_orderkey, o_orderdate ORDER BY o_orderdate, o_orderkey LIMIT 100 $q$),
('q19_discounted_revenue', '{tpch.lineitem.l_discount,tpch.lineitem.l_extendedprice}', $q$
SELECT sum(l_extendedprice * (1 - l_discount)) AS revenue FROM tpch.lineitem, tpch.part
WHERE (p_partkey = l_partkey AND p_brand = 'Brand#12' AND p_container IN ('SM CASE', 'SM BOX', 'SM PACK', 'SM PKG')
       AND l_quantity >= 1 AND l_quantity <= 11 AND p_size BETWEEN 1 AND 5
       AND l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON')
   OR (p_partkey = l_partkey AND p_brand = 'Brand#23' AND p_container IN ('MED BAG', 'MED BOX', 'MED PKG', 'MED PACK')
       AND l_quantity >= 10 AND l_quantity <= 20 AND p_size BETWEEN 1 AND 10
       AND l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON') $q$),
('count_lineitem', '{}', $q$ SELECT count(*) FROM tpch.lineitem $q$),
('count_orders_by_customer_range', '{}', $q$
SELECT count(*) FROM tpch.orders WHERE o_custkey BETWEEN 10 AND 40 $q$),
('exists_by_primary_key', '{}', $q$
SELECT EXISTS (SELECT 1 FROM tpch.orders WHERE o_orderkey = 42) AS found $q$),
('exists_line_of_order', '{}', $q$
SELECT o_orderkey, o_orderdate FROM tpch.orders o
WHERE o_custkey = 7 AND EXISTS (SELECT * FROM tpch.lineitem l WHERE l.l_orderkey = o.o_orderkey AND l.l_quantity > 40)
ORDER BY o_orderkey $q$),
('anti_join_customers_without_orders', '{}', $q$
SELECT c_nationkey, count(*) FROM tpch.customer c
WHERE NOT EXISTS (SELECT * FROM tpch.orders o WHERE o.o_custkey = c.c_custkey)
GROUP BY c_nationkey ORDER BY c_nationkey $q$),
('in_subquery_discount', '{tpch.lineitem.l_discount}', $q$
SELECT p_brand, count(*) FROM tpch.part
WHERE p_partkey IN (SELECT l_partkey FROM tpch.lineitem WHERE l_discount > 0.08)
GROUP BY p_brand ORDER BY p_brand $q$),
('composite_inner_join_aggregate', '{}', $q$
SELECT o_orderdate, count(*) AS lines, sum(l_quantity) AS quantity
FROM tpch.orders JOIN tpch.lineitem ON l_orderkey = o_orderkey
WHERE o_orderdate BETWEEN date '1995-01-01' AND date '1995-02-15'
GROUP BY o_orderdate ORDER BY o_orderdate $q$),
('composite_inner_join_customer_orders', '{}', $q$
SELECT c_custkey, c_name, count(o_orderkey) AS orders
FROM tpch.customer JOIN tpch.orders ON o_custkey = c_custkey
WHERE c_nationkey = 3 GROUP BY c_custkey, c_name ORDER BY c_custkey $q$),
('composite_inner_join_parts', '{}', $q$
SELECT p_brand, count(*) AS lines, sum(l_quantity) AS quantity
FROM tpch.part JOIN tpch.lineitem ON l_partkey = p_partkey
WHERE p_brand = 'Brand#23' AND p_container = 'MED BOX' GROUP BY p_brand ORDER BY p_brand $q$),
('merge_join_status_totals', '{}', $q$
SELECT o_orderstatus, count(*), sum(l_quantity)
FROM tpch.orders JOIN tpch.lineitem ON l_orderkey = o_orderkey
GROUP BY o_orderstatus ORDER BY o_orderstatus $q$),
('merge_join_first_orders', '{}', $q$
SELECT o_orderkey, o_orderdate, count(*) AS lines
FROM tpch.orders JOIN tpch.lineitem ON l_orderkey = o_orderkey
GROUP BY o_orderkey, o_orderdate ORDER BY o_orderkey LIMIT 20 $q$),
('window_rank_orders', '{}', $q$
SELECT o_custkey, o_orderkey, rank() OVER (PARTITION BY o_custkey ORDER BY o_orderdate, o_orderkey)
FROM tpch.orders WHERE o_custkey < 50 ORDER BY o_custkey, o_orderkey $q$),
('window_running_quantity', '{}', $q$
SELECT l_orderkey, l_linenumber, sum(l_quantity) OVER (PARTITION BY l_orderkey ORDER BY l_linenumber)
FROM tpch.lineitem WHERE l_orderkey < 200 ORDER BY l_orderkey, l_linenumber $q$),
('window_lines_per_order', '{}', $q$
SELECT l_orderkey, l_linenumber, count(*) OVER (PARTITION BY l_orderkey) AS lines
FROM tpch.lineitem WHERE l_orderkey < 300 ORDER BY l_orderkey, l_linenumber $q$),
('window_lines_per_part_distribution', '{}', $q$
SELECT lines, count(*) AS parts
FROM (SELECT DISTINCT l_partkey, count(*) OVER (PARTITION BY l_partkey) AS lines FROM tpch.lineitem) w
GROUP BY lines ORDER BY lines $q$),
('window_order_share', '{tpch.orders.o_totalprice}', $q$
SELECT o_custkey, o_orderkey, round(o_totalprice / sum(o_totalprice) OVER (PARTITION BY o_custkey), 4)
FROM tpch.orders WHERE o_custkey < 30 ORDER BY o_custkey, o_orderkey $q$),
('grouping_sets_balance', '{tpch.customer.c_acctbal}', $q$
SELECT n_name, c_mktsegment, count(*), sum(c_acctbal)
FROM tpch.customer JOIN tpch.nation ON n_nationkey = c_nationkey
GROUP BY GROUPING SETS ((n_name), (c_mktsegment), ()) ORDER BY n_name NULLS FIRST, c_mktsegment NULLS FIRST $q$),
('rollup_line_flags', '{}', $q$
SELECT l_returnflag, l_linestatus, count(*) FROM tpch.lineitem
GROUP BY ROLLUP (l_returnflag, l_linestatus) ORDER BY 1 NULLS FIRST, 2 NULLS FIRST $q$),
('lateral_latest_orders', '{}', $q$
SELECT c_custkey, c_name, t.o_orderkey, t.o_orderdate FROM tpch.customer c
CROSS JOIN LATERAL (SELECT o_orderkey, o_orderdate FROM tpch.orders o WHERE o.o_custkey = c.c_custkey
                    ORDER BY o_orderdate DESC, o_orderkey DESC LIMIT 3) t
WHERE c_nationkey = 7 ORDER BY c_custkey, t.o_orderkey $q$),
('recursive_calendar', '{}', $q$
WITH RECURSIVE days (d) AS (SELECT date '1995-01-01' UNION ALL SELECT d + 1 FROM days WHERE d < date '1995-01-31')
SELECT d, count(o_orderkey) FROM days LEFT JOIN tpch.orders ON o_orderdate = d GROUP BY d ORDER BY d $q$),
('union_nations', '{}', $q$
SELECT c_nationkey AS nationkey FROM tpch.customer UNION SELECT s_nationkey FROM tpch.supplier ORDER BY 1 $q$),
('intersect_building_buyers', '{}', $q$
SELECT o_custkey FROM tpch.orders WHERE o_orderdate < date '1994-01-01'
INTERSECT SELECT c_custkey FROM tpch.customer WHERE c_mktsegment = 'BUILDING' ORDER BY 1 $q$),
('except_idle_customers', '{}', $q$
SELECT c_custkey FROM tpch.customer EXCEPT SELECT o_custkey FROM tpch.orders ORDER BY 1 $q$),
('scalar_subqueries_per_nation', '{}', $q$
SELECT n_name, (SELECT count(*) FROM tpch.customer c WHERE c.c_nationkey = n.n_nationkey) AS customers,
       (SELECT max(o_orderdate) FROM tpch.orders o JOIN tpch.customer c ON c.c_custkey = o.o_custkey
        WHERE c.c_nationkey = n.n_nationkey) AS last_order
FROM tpch.nation n ORDER BY n_name $q$),
('scalar_subquery_balance', '{tpch.customer.c_acctbal}', $q$
SELECT n_name, (SELECT avg(c_acctbal) FROM tpch.customer c WHERE c.c_nationkey = n.n_nationkey) AS avg_balance
FROM tpch.nation n ORDER BY n_name $q$),
('filter_aggregates', '{tpch.lineitem.l_discount}', $q$
SELECT l_shipmode, count(*) FILTER (WHERE l_returnflag = 'R') AS returned,
       count(*) FILTER (WHERE l_discount > 0.05) AS discounted
FROM tpch.lineitem GROUP BY l_shipmode ORDER BY l_shipmode $q$),
('json_agg_ordered', '{}', $q$
SELECT o_custkey, json_agg(json_build_object('order', o_orderkey, 'date', o_orderdate) ORDER BY o_orderdate, o_orderkey)
FROM tpch.orders WHERE o_custkey < 20 GROUP BY o_custkey ORDER BY o_custkey $q$),
('cte_unused_column', '{}', $q$
WITH o AS MATERIALIZED (SELECT o_orderkey, o_custkey, o_totalprice FROM tpch.orders)
SELECT count(*) FROM o WHERE o_custkey < 100 $q$),
('derived_unused_column', '{}', $q$
SELECT count(*) FROM (SELECT l_orderkey, l_extendedprice FROM tpch.lineitem) d WHERE l_orderkey < 500 $q$),
('removed_left_join', '{}', $q$
SELECT o.o_orderkey, o.o_orderdate FROM tpch.orders o LEFT JOIN tpch.customer c ON c.c_custkey = o.o_custkey
ORDER BY o.o_orderkey LIMIT 5 $q$),
('distinct_orders_with_lines', '{}', $q$
SELECT DISTINCT l_orderkey FROM tpch.lineitem WHERE l_orderkey < 100 ORDER BY l_orderkey $q$);
SQL
)
[[ -z $out ]] || { echo "Bail out! loading the statements failed"; printf '%s\n' "$out" | sed 's/^/# /' >&2; exit 1; }
n_statements=$(as_dba 'SELECT count(*) FROM harness.statements')
plan $((n_statements + 13))

# has HAYSTACK NEEDLE...: every needle occurs in the haystack.
has() {
    local hay=$1 needle
    shift
    for needle; do [[ $hay == *"$needle"* ]] || return 1; done
}

run_state() { # DATA_STATE: every statement under every setting, as the agent
    local out
    out=$(as_agent "INSERT INTO harness.results SELECT * FROM harness.run('$1')")
    [[ -z $out ]] || printf '%s\n' "$out" | sed 's/^/# /' >&2
}

# --- data state 1: empty, never analysed, primary keys only -----------------------------------
run_state empty

# --- data state 2: filled (deterministic, a few thousand lines), analysed ---------------------
out=$(psql_db <<'SQL'
INSERT INTO tpch.region SELECT r, (ARRAY['AFRICA', 'AMERICA', 'ASIA', 'EUROPE', 'MIDDLE EAST'])[r + 1], 'region ' || r
FROM generate_series(0, 4) r;
INSERT INTO tpch.nation SELECT n, 'NATION ' || n, n % 5, 'nation ' || n FROM generate_series(0, 24) n;
INSERT INTO tpch.supplier SELECT s, 'Supplier#' || s, 'address ' || s, s % 25, '10-' || s,
    (s * 7919 % 10000) / 1.0 - 999, 'supplier ' || s FROM generate_series(1, 50) s;
INSERT INTO tpch.customer SELECT c, 'Customer#' || c, 'address ' || c, c % 25, '11-' || c,
    (c * 7919 % 11000) / 1.0 - 999,
    (ARRAY['AUTOMOBILE', 'BUILDING', 'FURNITURE', 'HOUSEHOLD', 'MACHINERY'])[c % 5 + 1], 'customer ' || c
FROM generate_series(1, 300) c;
INSERT INTO tpch.part SELECT p, 'part ' || p, 'Manufacturer#' || (p % 5 + 1),
    'Brand#' || (p % 5 + 1) || (p / 5 % 5 + 1), 'TYPE ' || (p % 7), p % 50 + 1,
    (ARRAY['SM CASE', 'SM BOX', 'SM PACK', 'SM PKG', 'MED BAG', 'MED BOX', 'MED PKG', 'MED PACK', 'LG BOX'])[p % 9 + 1],
    900 + p % 200, 'part ' || p
FROM generate_series(1, 400) p;
INSERT INTO tpch.partsupp SELECT p, (p + i * 12) % 50 + 1, (p * i * 37) % 9999 + 1, (p * 13 + i) % 1000 + 1, 'ps'
FROM generate_series(1, 400) p, generate_series(0, 3) i;
INSERT INTO tpch.orders SELECT k, 1 + (k * 7 % 100) * 3 + k % 2, (ARRAY['F', 'O', 'P'])[k % 3 + 1], 0,
    date '1992-01-01' + (k * 37 % 2400),
    (ARRAY['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW'])[k % 5 + 1], 'Clerk#' || (k % 40), 0,
    CASE WHEN k % 11 = 0 THEN 'special requests' ELSE 'order ' || k END
FROM generate_series(1, 1500) k;
INSERT INTO tpch.lineitem
SELECT o_orderkey, pk, (pk + n) % 50 + 1, n, q, q * (900 + pk % 200), (o_orderkey + n) % 11 / 100.0,
       (o_orderkey * n) % 9 / 100.0,
       CASE WHEN ship <= date '1995-06-17' THEN (ARRAY['R', 'A'])[o_orderkey % 2 + 1] ELSE 'N' END,
       CASE WHEN ship <= date '1995-06-17' THEN 'F' ELSE 'O' END,
       ship, o_orderdate + (o_orderkey + n) % 90 + 30, ship + o_orderkey % 30 + 1,
       (ARRAY['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'])[(o_orderkey + n) % 4 + 1],
       (ARRAY['AIR', 'AIR REG', 'MAIL', 'SHIP', 'TRUCK', 'RAIL', 'FOB'])[(o_orderkey * n) % 7 + 1], 'line'
FROM tpch.orders, generate_series(1, 7) n,
     LATERAL (SELECT (o_orderkey * 13 + n * 7) % 400 + 1 AS pk, (o_orderkey * n * 3) % 50 + 1 AS q,
                     o_orderdate + (o_orderkey * n) % 120 + 1 AS ship) x
WHERE n <= o_orderkey % 7 + 1;
UPDATE tpch.orders SET o_totalprice = t FROM (SELECT l_orderkey, sum(l_extendedprice) t FROM tpch.lineitem GROUP BY 1) s
WHERE l_orderkey = o_orderkey;
ANALYZE;
SQL
)
[[ -z $out ]] || { echo "Bail out! loading the data failed"; printf '%s\n' "$out" | sed 's/^/# /' >&2; exit 1; }
run_state filled

# --- data state 3: secondary indexes, composite ones ending in a governed column --------------
out=$(psql_db <<'SQL'
CREATE INDEX lineitem_orderkey_price ON tpch.lineitem (l_orderkey, l_extendedprice);
CREATE INDEX lineitem_partkey_discount ON tpch.lineitem (l_partkey, l_discount);
CREATE INDEX lineitem_suppkey ON tpch.lineitem (l_suppkey);
CREATE INDEX lineitem_shipdate ON tpch.lineitem (l_shipdate);
CREATE INDEX lineitem_discount ON tpch.lineitem (l_discount);
CREATE INDEX orders_custkey_price ON tpch.orders (o_custkey, o_totalprice);
CREATE INDEX orders_orderdate ON tpch.orders (o_orderdate);
CREATE INDEX customer_nation_balance ON tpch.customer (c_nationkey, c_acctbal);
CREATE INDEX customer_balance ON tpch.customer (c_acctbal);
CREATE INDEX customer_segment ON tpch.customer (c_mktsegment);
CREATE INDEX partsupp_suppkey ON tpch.partsupp (ps_suppkey);
CREATE INDEX part_brand_container ON tpch.part (p_brand, p_container);
CREATE INDEX supplier_nation ON tpch.supplier (s_nationkey);
CREATE INDEX nation_region ON tpch.nation (n_regionkey);
VACUUM ANALYZE;
SQL
)
[[ -z $out ]] || { echo "Bail out! indexing failed"; printf '%s\n' "$out" | sed 's/^/# /' >&2; exit 1; }
run_state indexed

# --- the invariance checks ---------------------------------------------------------------------
equals "every statement was decided under 3 data states x 11 settings" \
    "$(as_dba "SELECT count(*) FILTER (WHERE error IS NULL) || '/' || count(*) FROM harness.results")" \
    "$((n_statements * 33))/$((n_statements * 33))"
errors=$(as_dba "SELECT data_state || ' / ' || setting || ' / ' || statement || ': ' || error
                 FROM harness.results WHERE error IS NOT NULL LIMIT 5")
[[ -n $errors ]] && printf '%s\n' "$errors" | sed 's/^/# error: /' >&2

while IFS='|' read -r name expected; do
    # Combinations whose (state, columns) differ from the expected ones, with the odd plan.
    odd=$(as_dba "SELECT format(E'%s / %s: state %s, columns %s\n%s', r.data_state, r.setting,
                                coalesce(r.state, 'error'), coalesce(r.columns::text, r.error), r.plan)
                  FROM harness.results r JOIN harness.statements s ON s.name = r.statement
                  WHERE r.statement = '$name'
                    AND (r.state IS DISTINCT FROM CASE WHEN s.expected && '{tpch.lineitem.l_extendedprice,tpch.orders.o_totalprice}'
                                                       THEN 'AMBIGUOUS' ELSE 'RESOLVED' END
                         OR r.columns IS DISTINCT FROM s.expected)
                  ORDER BY r.data_state, r.setting")
    seen=$(as_dba "SELECT count(*) FROM harness.results WHERE statement = '$name'")
    if [[ -z $odd && $seen == 33 ]]; then
        pass "$name: one decision under all 33 plans, reads $expected"
    else
        fail "$name: one decision under all 33 plans, reads $expected" \
            "$(as_dba "SELECT count(*) FROM harness.results r JOIN harness.statements s ON s.name = r.statement
                       WHERE r.statement = '$name' AND r.columns IS DISTINCT FROM s.expected") of $seen combinations differ; first ones:
$(printf '%s\n' "$odd" | head -n 60)"
    fi
done < <(as_dba "SELECT name, expected FROM harness.statements ORDER BY name")

# --- the plans did vary -----------------------------------------------------------------------
shapes=$(as_dba "SELECT statement || ': ' || count(DISTINCT plan) FROM harness.results GROUP BY statement ORDER BY 1")
printf '%s\n' "$shapes" | sed 's/^/# distinct plans: /'
varied=$(as_dba "SELECT count(*) FROM (SELECT statement FROM harness.results GROUP BY statement
                                        HAVING count(DISTINCT plan) >= 3) s")
check "most statements got at least 3 different plans ($varied of $n_statements)" \
    test "$varied" -ge $((n_statements * 3 / 4))
plans_of() { as_dba "SELECT string_agg(DISTINCT plan, E'\n') FROM harness.results WHERE statement = '$1'"; }
p=$(plans_of count_lineitem)
check "count(*) over lineitem was planned as a seq scan, an index-only scan and in parallel" \
    has "$p" "Seq Scan on lineitem" "Index Only Scan using lineitem_" "Parallel"
# Statements (reading none of its governed columns) where an index ending in a governed column
# was scanned on the inner side of a join, and statements planned with a merge join.
inner=$(as_dba "SELECT string_agg(DISTINCT statement, ', ') FROM harness.results r JOIN harness.statements s ON s.name = r.statement
                WHERE jsonb_path_exists(plan_json, 'strict $.** ? (@.\"Parent Relationship\" == \"Inner\").** ? (@.\"Index Name\" like_regex \"^(lineitem_orderkey_price|lineitem_partkey_discount|orders_custkey_price|customer_nation_balance)$\")')
                  AND s.expected = '{}'")
echo "# composite governed index on a join's inner side: $inner"
check "an index scan ending in a governed column was a join's inner side in 3+ statements reading none" \
    test "$(tr ',' '\n' <<<"$inner" | grep -c .)" -ge 3
merge=$(as_dba "SELECT count(DISTINCT statement) FROM harness.results WHERE plan LIKE '%Merge%Join%'")
check "merge joins were among the plans of 5+ statements ($merge)" test "$merge" -ge 5
p=$(plans_of exists_line_of_order)
check "EXISTS by key was planned as a semi join over the composite orders index" \
    has "$p" "Semi Join" "orders_custkey_price"

# --- the documented plan-dependent case --------------------------------------------------------
# An unordered statement returning rows: scanned through the index on (o_custkey, o_totalprice),
# the rows of one customer come out in o_totalprice order, and that order reaches the client, so
# o_totalprice is read. Without the index scan nothing shows it. The gate decides by the plan.
sql="SELECT o_orderkey, o_orderdate FROM tpch.orders WHERE o_custkey = 7"
decide() { # SETTINGS SQL: the decision and the plan's scan, as the agent
    as_agent "$1 SELECT (clarify.check(\$q\$$2\$q\$) ->> 'state') || ' ' || (clarify.check(\$q\$$2\$q\$) -> 'columns')::text;
              EXPLAIN (COSTS OFF) $2"
}
out=$(decide "SET enable_seqscan = off; SET enable_bitmapscan = off;" "$sql")
check "unordered rows through the (o_custkey, o_totalprice) index scan: rejected, reads o_totalprice" \
    has "$out" 'AMBIGUOUS ["tpch.orders.o_totalprice"]' "Index Scan using orders_custkey_price"
printf '%s\n' "$out" | sed 's/^/#   /'
out=$(decide "SET enable_indexscan = off; SET enable_bitmapscan = off;" "$sql")
check "the same statement through a seq scan: allowed, reads nothing governed" \
    has "$out" "RESOLVED []" "Seq Scan on orders"
printf '%s\n' "$out" | sed 's/^/#   /'
out=$(decide "SET enable_seqscan = off; SET enable_bitmapscan = off;" "$sql ORDER BY o_orderkey")
check "with ORDER BY its own key, the index scan's order does not reach the client: allowed" \
    has "$out" "RESOLVED []" "orders_custkey_price"
printf '%s\n' "$out" | sed 's/^/#   /'
# An aggregate that follows its input's order takes each group's rows in index order too, hashed
# or sorted; the same aggregate with ORDER BY inside does not.
sql="SELECT o_orderstatus, array_agg(o_orderkey) FROM tpch.orders WHERE o_custkey < 20 GROUP BY o_orderstatus ORDER BY 1"
out=$(decide "SET enable_seqscan = off; SET enable_bitmapscan = off;" "$sql")
check "array_agg without ORDER BY, hashed over the (o_custkey, o_totalprice) index scan: reads o_totalprice" \
    has "$out" 'AMBIGUOUS ["tpch.orders.o_totalprice"]' "HashAggregate" "Index Scan using orders_custkey_price"
printf '%s\n' "$out" | sed 's/^/#   /'
out=$(decide "SET enable_indexscan = off; SET enable_bitmapscan = off;" "$sql")
check "the same aggregate over a seq scan: allowed" has "$out" "RESOLVED []"
out=$(decide "SET enable_seqscan = off; SET enable_bitmapscan = off;" "${sql/array_agg(o_orderkey)/array_agg(o_orderkey ORDER BY o_orderkey)}")
# From 16 the planner sorts an ordered aggregate's input below it (presorted aggregates) and no
# longer picks that index here; the decision is the same.
if (($(server_major) >= 16)); then
    check "array_agg with ORDER BY (its input sorted below it): allowed" has "$out" "RESOLVED []"
else
    check "array_agg with ORDER BY over the same index scan: allowed" \
        has "$out" "RESOLVED []" "orders_custkey_price"
fi
printf '%s\n' "$out" | sed 's/^/#   /'
# A hash join returns an outer row's matches in the reverse of the order they were hashed: with
# lineitem hashed through (l_orderkey, l_extendedprice), each order's lines come out by price.
sql="SELECT o_orderkey, l_linenumber FROM tpch.orders JOIN tpch.lineitem ON l_orderkey = o_orderkey AND l_orderkey IN (6, 13) WHERE o_custkey > 0"
out=$(decide "SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;
              SET enable_nestloop = off; SET enable_mergejoin = off;" "$sql")
printf '%s\n' "$out" | sed 's/^/#   /'
if [[ $out == *"Hash"*"Index Scan using lineitem_orderkey_price"* ]]; then
    check "unordered rows of a hash join over the hashed (l_orderkey, l_extendedprice) scan: read l_extendedprice" \
        has "$out" 'AMBIGUOUS ["tpch.lineitem.l_extendedprice"]'
else
    check "unordered rows of a hash join over another index: read nothing governed" \
        has "$out" "RESOLVED []" "Hash Join"
fi
finish
