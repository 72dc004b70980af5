-- The plans sql/read_set.sql's order and parallel cases are decided over: under the same planner
-- settings as each group there, the index order reaches the client, DISTINCT, the window, the hashed
-- aggregate and the hash join, and a governed sum runs in parallel workers, so those cases cannot
-- pass vacuously. Plan shapes differ between server versions (expected/read_set_plans_1.out holds
-- the other one); the decisions in read_set.out do not.
SET client_min_messages = warning;

-- Ordering through an index on the governed column.
CREATE INDEX orders_booked_amount_idx ON sales.orders (booked_amount);
SET enable_seqscan = off;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT id FROM sales.orders ORDER BY booked_amount DESC LIMIT 3;
RESET enable_seqscan;
RESET enable_sort;
DROP INDEX sales.orders_booked_amount_idx;

-- An index whose order reaches DISTINCT, a window, a hashed aggregate and a hash join.
CREATE INDEX orders_date_amount_idx ON sales.orders (order_date, booked_amount);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_sort = off;
SET enable_hashagg = off;
SET ROLE regress_agent;
EXPLAIN (COSTS OFF) SELECT DISTINCT order_date FROM sales.orders ORDER BY order_date;
EXPLAIN (COSTS OFF) SELECT n, count(*) FROM (SELECT count(*) OVER (PARTITION BY order_date) AS n FROM sales.orders) w GROUP BY n;
RESET enable_hashagg;
SET enable_nestloop = off;
SET enable_mergejoin = off;
EXPLAIN (COSTS OFF) SELECT extract(quarter FROM order_date) AS q, array_agg(id) FROM sales.orders WHERE order_date > '2026-01-01' GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT i.id, o.id FROM sales.invoices i JOIN sales.orders o ON extract(dow FROM o.order_date) = i.order_id % 7 WHERE o.order_date > '2026-01-01';
RESET enable_sort;
RESET enable_nestloop;
RESET enable_mergejoin;
RESET ROLE;
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP INDEX sales.orders_date_amount_idx;

-- A parallel plan, its workers forced.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
-- The setting that forces parallel plans (force_parallel_mode until 15).
SELECT CASE WHEN current_setting('server_version_num')::int >= 160000 THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END AS parallel_debug \gset
SET :parallel_debug = on;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT sum(booked_amount) FROM sales.orders;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET :parallel_debug;
RESET parallel_leader_participation;
RESET client_min_messages;
