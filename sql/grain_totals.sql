-- Grain of totals (docs/reference.md, "Grain"): a total repeated on every row (a window
-- aggregate, a grouping-sets output) summed again; a snapshot grouped by the very scan summed;
-- foreign tables; and the shapes that must stay allowed (grouped or DISTINCT on the measure's
-- key above the join, grouping sets that all hold the snapshot column).
-- One table of shapes, each run by the agent and asked of clarify.check(): expected state, shape,
-- statement.
SET client_min_messages = warning;
CREATE SCHEMA gt;
CREATE TABLE gt.orders (id int PRIMARY KEY, customer_id int, booked_amount numeric);
CREATE TABLE gt.order_lines (id int PRIMARY KEY, order_id int REFERENCES gt.orders,
                             product text, line_amount numeric);
CREATE TABLE gt.balances (account_id int, balance_date date, balance numeric,
                          PRIMARY KEY (account_id, balance_date));
INSERT INTO gt.orders SELECT g, 1 + g % 3, 100 * g FROM generate_series(1, 6) g;
INSERT INTO gt.order_lines SELECT g, 1 + g % 6, 'p' || g % 2, 10 * g FROM generate_series(1, 15) g;
INSERT INTO gt.balances SELECT a, date '2026-01-01' + d, 1000 * a FROM generate_series(1, 3) a, generate_series(0, 2) d;
ANALYZE gt.orders, gt.order_lines, gt.balances;
-- A foreign table (file_fdw, contrib): rows of unknown origin, no constraint, no index.
CREATE EXTENSION IF NOT EXISTS file_fdw;
CREATE SERVER gt_files FOREIGN DATA WRAPPER file_fdw;
CREATE FOREIGN TABLE gt.remote_orders (id int, booked_amount numeric)
    SERVER gt_files OPTIONS (program 'printf "1,100\n2,200\n3,300\n"', format 'csv');
CREATE FOREIGN TABLE gt.remote_balances (account_id int, balance_date date, balance numeric)
    SERVER gt_files OPTIONS (program 'printf "1,2026-01-01,10\n1,2026-01-02,10\n"', format 'csv');
-- Foreign tables of postgres_fdw over this very database (as the superuser, whose statements are
-- not gated): the foreign server computes joins and aggregates itself (pushdown).
CREATE EXTENSION postgres_fdw;
DO $$ BEGIN
  EXECUTE format('CREATE SERVER gt_loopback FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host %L, port %L, dbname %L, fdw_startup_cost ''1000'', fdw_tuple_cost ''100'')',
                 split_part(current_setting('unix_socket_directories'), ',', 1), current_setting('port'), current_database());
  EXECUTE format('CREATE USER MAPPING FOR regress_agent SERVER gt_loopback OPTIONS (user %L, password_required ''false'')', current_user);
END $$;
CREATE FOREIGN TABLE gt.fdw_orders (id int, customer_id int, booked_amount numeric)
    SERVER gt_loopback OPTIONS (schema_name 'gt', table_name 'orders');
CREATE FOREIGN TABLE gt.fdw_lines (id int, order_id int, product text, line_amount numeric)
    SERVER gt_loopback OPTIONS (schema_name 'gt', table_name 'order_lines');
CREATE FOREIGN TABLE gt.fdw_balances (account_id int, balance_date date, balance numeric)
    SERVER gt_loopback OPTIONS (schema_name 'gt', table_name 'balances');
GRANT USAGE ON SCHEMA gt TO PUBLIC;
GRANT SELECT ON ALL TABLES IN SCHEMA gt TO PUBLIC;

INSERT INTO clarify.concepts (id, kind, label, description, owner, status, additivity) VALUES
  ('metric.gt_booked', 'metric', 'Totals booked revenue', 'Value of accepted orders', 'Sales', 'approved', 'additive'),
  ('metric.gt_balance', 'metric', 'Totals balance', 'Balance at the end of the day', 'Finance', 'approved', 'semi_additive'),
  ('metric.gt_remote', 'metric', 'Remote booked revenue', 'Value of accepted orders elsewhere', 'Sales', 'approved', 'additive'),
  ('metric.gt_remote_balance', 'metric', 'Remote balance', 'Balance kept elsewhere', 'Finance', 'approved', 'semi_additive'),
  ('metric.gt_fdw', 'metric', 'Loopback booked revenue', 'Value of accepted orders, read remotely', 'Sales', 'approved', 'additive'),
  ('metric.gt_fdw_balance', 'metric', 'Loopback balance', 'Balance, read remotely', 'Finance', 'approved', 'semi_additive');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name, snapshot_column) VALUES
  ('metric.gt_booked', 'gt.orders', 'booked_amount', NULL),
  ('metric.gt_balance', 'gt.balances', 'balance', 'balance_date'),
  ('metric.gt_remote', 'gt.remote_orders', 'booked_amount', NULL),
  ('metric.gt_remote_balance', 'gt.remote_balances', 'balance', 'balance_date'),
  ('metric.gt_fdw', 'gt.fdw_orders', 'booked_amount', NULL),
  ('metric.gt_fdw_balance', 'gt.fdw_balances', 'balance', 'balance_date');
INSERT INTO clarify.terms (term, concept_id) VALUES
  ('totals booked revenue', 'metric.gt_booked'), ('totals balance', 'metric.gt_balance'),
  ('remote booked revenue', 'metric.gt_remote'), ('remote balance', 'metric.gt_remote_balance'),
  ('loopback booked revenue', 'metric.gt_fdw'), ('loopback balance', 'metric.gt_fdw_balance');

CREATE TABLE public.grain_totals (n int PRIMARY KEY, expect text, shape text, sql text);
GRANT SELECT ON public.grain_totals TO PUBLIC;
INSERT INTO public.grain_totals VALUES
-- A total repeated on every row, summed again: refused.
 (1, 'GRAIN', 'sum of a window total', $$SELECT sum(t) FROM (SELECT id, sum(booked_amount) OVER () t FROM gt.orders) s$$),
 (2, 'GRAIN', 'sum of a partitioned window total', $$SELECT sum(t) FROM (SELECT id, sum(booked_amount) OVER (PARTITION BY customer_id) t FROM gt.orders) s$$),
 (3, 'GRAIN', 'sum of a running sum', $$SELECT sum(t) FROM (SELECT id, sum(booked_amount) OVER (ORDER BY id) t FROM gt.orders) s$$),
 (4, 'GRAIN', 'window total summed by another window', $$SELECT id, sum(t) OVER () FROM (SELECT id, sum(booked_amount) OVER () t FROM gt.orders) s$$),
 (5, 'GRAIN', 'first_value repeated on every row', $$SELECT sum(t) FROM (SELECT id, first_value(booked_amount) OVER (ORDER BY id) t FROM gt.orders) s$$),
 (6, 'GRAIN', 'sum over GROUPING SETS ((), ())', $$SELECT sum(t) FROM (SELECT sum(booked_amount) t FROM gt.orders GROUP BY GROUPING SETS ((), ())) s$$),
 (7, 'GRAIN', 'sum over ROLLUP', $$SELECT sum(t) FROM (SELECT customer_id, sum(booked_amount) t FROM gt.orders GROUP BY ROLLUP (customer_id)) s$$),
 (8, 'GRAIN', 'sum over CUBE', $$SELECT sum(t) FROM (SELECT customer_id, id, sum(booked_amount) t FROM gt.orders GROUP BY CUBE (customer_id, id)) s$$),
 (9, 'GRAIN', 'grouping-set column summed', $$SELECT sum(b) FROM (SELECT booked_amount b FROM gt.orders GROUP BY GROUPING SETS ((booked_amount), (booked_amount, customer_id))) s$$),
 (10, 'GRAIN', 'window total through a CTE', $$WITH w AS MATERIALIZED (SELECT sum(booked_amount) OVER () t FROM gt.orders) SELECT sum(t) FROM w$$),
-- A GROUP BY or DISTINCT on the key returns each row once, but not each row's own value when that
-- is a total repeated on every row: still refused.
 (11, 'GRAIN', 'DISTINCT ON the key over a window total', $$SELECT sum(t) FROM (SELECT DISTINCT ON (id) id, t FROM (SELECT id, sum(booked_amount) OVER () t FROM gt.orders) w ORDER BY id) s$$),
 (12, 'GRAIN', 'DISTINCT ON the key over ROLLUP', $$SELECT sum(t) FROM (SELECT DISTINCT ON (id) id, t FROM (SELECT id, sum(booked_amount) t FROM gt.orders GROUP BY ROLLUP (id)) r ORDER BY id) s$$),
 (13, 'GRAIN', 'GROUP BY the key over a window total', $$SELECT sum(t) FROM (SELECT id, t FROM (SELECT id, sum(booked_amount) OVER () t FROM gt.orders) w GROUP BY id, t) s$$),
 (14, 'GRAIN', 'GROUP BY the key and a column of the many side', $$SELECT sum(booked_amount) FROM (SELECT o.id, o.booked_amount, l.product FROM gt.orders o JOIN gt.order_lines l ON l.order_id = o.id GROUP BY o.id, l.product) s$$),
 (15, 'GRAIN', 'GROUP BY the key of the other side of a self-join', $$SELECT sum(a.booked_amount) FROM (SELECT b.id, a.booked_amount FROM gt.orders a JOIN gt.orders b ON b.customer_id = a.customer_id GROUP BY b.id, a.booked_amount) a$$),
-- The snapshot column grouped by must be the one of the scan summed: refused.
 (20, 'GRAIN', 'snapshot of another scan (the report)', $$SELECT b1.balance_date, sum(b2.balance) FROM gt.balances b2 CROSS JOIN (SELECT balance_date FROM gt.balances LIMIT 1) b1 GROUP BY b1.balance_date$$),
 (21, 'GRAIN', 'snapshot of another scan in a window', $$SELECT sum(b2.balance) OVER (PARTITION BY b1.balance_date) FROM gt.balances b2 CROSS JOIN (SELECT balance_date FROM gt.balances LIMIT 1) b1$$),
 (22, 'GRAIN', 'snapshot of another read of one CTE', $$WITH c AS MATERIALIZED (SELECT * FROM gt.balances) SELECT b1.balance_date, sum(b2.balance) FROM c b2 CROSS JOIN (SELECT balance_date FROM c LIMIT 1) b1 GROUP BY b1.balance_date$$),
-- Foreign tables: a foreign scan is a scan like any other.
 (30, 'GRAIN', 'foreign measure over a one-to-many join', $$SELECT sum(r.booked_amount) FROM gt.remote_orders r JOIN gt.order_lines l ON l.order_id = r.id$$),
 (31, 'GRAIN', 'join to a foreign table (no key proven)', $$SELECT sum(o.booked_amount) FROM gt.orders o JOIN gt.remote_orders r ON r.id = o.id$$),
 (32, 'GRAIN', 'foreign snapshot measure across snapshots', $$SELECT sum(balance) FROM gt.remote_balances$$),
 (33, 'GRAIN', 'aggregate the foreign server computes over its join', $$SELECT sum(r.booked_amount) FROM gt.fdw_orders r JOIN gt.fdw_lines l ON l.order_id = r.id$$),
 (34, 'GRAIN', 'foreign server sums a snapshot across snapshots', $$SELECT account_id, sum(balance) FROM gt.fdw_balances GROUP BY account_id$$),
 (35, 'GRAIN', 'window total over a join the foreign server may compute', $$SELECT sum(r.booked_amount) OVER () FROM gt.fdw_orders r JOIN gt.fdw_lines l ON l.order_id = r.id$$),
 (36, 'GRAIN', 'foreign server totals joined to the many side', $$SELECT sum(s.t) FROM (SELECT id, sum(booked_amount) t FROM gt.fdw_orders GROUP BY id) s JOIN gt.order_lines l ON l.order_id = s.id$$),
-- Safe shapes: they run.
 (101, 'ok', 'GROUP BY the key above the join', $$SELECT sum(booked_amount) FROM (SELECT o.id, o.booked_amount FROM gt.orders o JOIN gt.order_lines l ON l.order_id = o.id GROUP BY o.id) s$$),
 (102, 'ok', 'DISTINCT on the key above the join', $$SELECT sum(booked_amount) FROM (SELECT DISTINCT o.id, o.booked_amount FROM gt.orders o JOIN gt.order_lines l ON l.order_id = o.id) s$$),
 (103, 'ok', 'DISTINCT ON the key above the join', $$SELECT sum(booked_amount) FROM (SELECT DISTINCT ON (o.id) o.id, o.booked_amount FROM gt.orders o JOIN gt.order_lines l ON l.order_id = o.id ORDER BY o.id) s$$),
 (104, 'ok', 'GROUP BY the key, then joined to a key', $$SELECT sum(s.booked_amount) FROM (SELECT o.id, o.customer_id, o.booked_amount FROM gt.orders o JOIN gt.order_lines l ON l.order_id = o.id GROUP BY o.id) s JOIN gt.orders k ON k.id = s.customer_id$$),
 (105, 'ok', 'grouping sets that all hold the snapshot column', $$SELECT balance_date, account_id, sum(balance) FROM gt.balances GROUP BY GROUPING SETS ((balance_date), (balance_date, account_id))$$),
 (106, 'ok', 'ROLLUP under the snapshot column', $$SELECT balance_date, account_id, sum(balance) FROM gt.balances GROUP BY balance_date, ROLLUP (account_id)$$),
 (107, 'ok', 'ROLLUP of a measure, not summed again', $$SELECT customer_id, sum(booked_amount) FROM gt.orders GROUP BY ROLLUP (customer_id)$$),
 (108, 'ok', 'window total, not summed again', $$SELECT id, sum(booked_amount) OVER () FROM gt.orders$$),
 (109, 'ok', 'max of a window total', $$SELECT max(t) FROM (SELECT sum(booked_amount) OVER () t FROM gt.orders) s$$),
 (110, 'ok', 'snapshot of the scan summed', $$SELECT b.balance_date, sum(b.balance) FROM gt.balances b CROSS JOIN (SELECT 1 LIMIT 1) x GROUP BY b.balance_date$$),
 (111, 'ok', 'per-date totals summed again (grouped, not repeated)', $$SELECT sum(t) FROM (SELECT balance_date, sum(balance) t FROM gt.balances GROUP BY balance_date) s GROUP BY balance_date$$),
 (112, 'ok', 'foreign measure summed alone', $$SELECT sum(booked_amount) FROM gt.remote_orders$$),
 (113, 'ok', 'foreign snapshot measure per snapshot', $$SELECT balance_date, sum(balance) FROM gt.remote_balances GROUP BY balance_date$$),
 (114, 'ok', 'foreign measure joined to a primary key', $$SELECT sum(r.booked_amount) FROM gt.remote_orders r JOIN gt.orders o ON o.id = r.id$$),
 (115, 'ok', 'aggregate the foreign server computes alone', $$SELECT sum(booked_amount) FROM gt.fdw_orders$$),
 (116, 'ok', 'foreign server sums a snapshot per snapshot', $$SELECT balance_date, sum(balance) FROM gt.fdw_balances GROUP BY balance_date$$),
 (117, 'ok', 'foreign server totals summed again', $$SELECT sum(t) FROM (SELECT customer_id, sum(booked_amount) t FROM gt.fdw_orders GROUP BY customer_id) s$$);

SET ROLE regress_agent;
SELECT n, shape, expect, gate_state(sql) AS got,
       CASE WHEN c ->> 'decision' = 'allowed' THEN 'ok' ELSE c ->> 'state' END AS checked
FROM public.grain_totals, clarify.check(sql) c ORDER BY n;
SELECT count(*) AS shapes, count(*) FILTER (WHERE gate_state(sql) <> expect) AS wrong
FROM public.grain_totals;
RESET ROLE;

-- The same decisions under every join method, and in parallel plans.
SET ROLE regress_agent;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT 'nested loops' AS plans, count(*) FILTER (WHERE gate_state(sql) <> expect) AS wrong FROM public.grain_totals;
SET enable_nestloop = off;
SET enable_mergejoin = on;
SELECT 'merge joins' AS plans, count(*) FILTER (WHERE gate_state(sql) <> expect) AS wrong FROM public.grain_totals;
SET enable_mergejoin = off;
SET enable_hashjoin = on;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SET enable_hashagg = off;
SELECT 'hash joins, sorted aggregates' AS plans, count(*) FILTER (WHERE gate_state(sql) <> expect) AS wrong FROM public.grain_totals;
RESET ALL;
RESET ROLE;
ALTER TABLE gt.orders SET (parallel_workers = 2);
ALTER TABLE gt.order_lines SET (parallel_workers = 2);
ALTER TABLE gt.balances SET (parallel_workers = 2);
SET ROLE regress_agent;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT 'parallel plans' AS plans, count(*) FILTER (WHERE gate_state(sql) <> expect) AS wrong FROM public.grain_totals;
RESET ALL;

-- Where the foreign server computes the join or the aggregate, the walk cannot follow its rows: a
-- measure read through it counts as through an unproven join; an aggregate it computes is grouped
-- by the columns it groups by.
RESET ROLE;
EXPLAIN (COSTS OFF) SELECT sum(r.booked_amount) FROM gt.fdw_orders r JOIN gt.fdw_lines l ON l.order_id = r.id;
EXPLAIN (COSTS OFF) SELECT balance_date, sum(balance) FROM gt.fdw_balances GROUP BY balance_date;
EXPLAIN (COSTS OFF) SELECT sum(t) FROM (SELECT customer_id, sum(booked_amount) t FROM gt.fdw_orders GROUP BY customer_id) s;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
-- The plan without the window's definition line, which EXPLAIN prints from PostgreSQL 18 on.
DO $$
DECLARE l text;
BEGIN
    FOR l IN EXPLAIN (COSTS OFF) SELECT sum(r.booked_amount) OVER () FROM gt.fdw_orders r JOIN gt.fdw_lines l ON l.order_id = r.id LOOP
        IF l NOT LIKE '%Window: %' THEN RAISE NOTICE '%', l; END IF;
    END LOOP;
END $$;
SET ROLE regress_agent;
SELECT 'joins pushed to the foreign server' AS plans, n, gate_state(sql) AS got FROM public.grain_totals WHERE n IN (33, 35, 36);
RESET ROLE;
RESET ALL;

-- A GROUP BY or DISTINCT costs a step per key each time a column passes it: past the budget the
-- aggregate counts as unproven (1500 keys passed by 20 references to the measure).
SET ROLE regress_agent;
SELECT gate_state(format('SELECT sum(%s) FROM (SELECT DISTINCT o.id, o.booked_amount b, %s FROM gt.orders o) s',
                         (SELECT string_agg('b', ' + ') FROM generate_series(1, 20)),
                         (SELECT string_agg(format('o.id + %s', g), ', ') FROM generate_series(1, 1500) g))) AS past_the_budget,
       gate_state(format('SELECT sum(%s) FROM (SELECT DISTINCT o.id, o.booked_amount b, %s FROM gt.orders o) s',
                         (SELECT string_agg('b', ' + ') FROM generate_series(1, 2)),
                         (SELECT string_agg(format('o.id + %s', g), ', ') FROM generate_series(1, 1500) g))) AS within_it;
RESET ROLE;

-- What the agent receives for a re-summed window total: a fanout slot.
SET ROLE regress_agent;
SELECT g -> 'detail' -> 'slots' -> 0 ->> 'kind' AS kind, g -> 'detail' -> 'slots' -> 0 -> 'via' AS via
FROM gate($$SELECT sum(t) FROM (SELECT id, sum(booked_amount) OVER () t FROM gt.orders) s$$) g;
RESET ROLE;

DROP TABLE public.grain_totals;
DELETE FROM clarify.concepts WHERE id LIKE 'metric.gt_%';
DROP SCHEMA gt CASCADE;
DROP SERVER gt_files;
DROP SERVER gt_loopback CASCADE;
DROP EXTENSION postgres_fdw;
RESET client_min_messages;
