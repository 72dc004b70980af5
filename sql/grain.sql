-- Grain (docs/reference.md, "Grain"): aggregates of a governed measure over joins that repeat its
-- rows, or with an aggregate its definition forbids, are refused with QC006; the safe shapes run.
-- One table of shapes, each run by the agent: expected state, shape, statement.
SET client_min_messages = warning;
CREATE SCHEMA shop;
CREATE TABLE shop.customers (id int PRIMARY KEY, country text);
CREATE TABLE shop.orders (id int PRIMARY KEY, customer_id int REFERENCES shop.customers,
                          order_date date, booked_amount numeric);
CREATE TABLE shop.order_lines (id int PRIMARY KEY, order_id int REFERENCES shop.orders,
                               product text, line_amount numeric);
CREATE TABLE shop.payments (id int PRIMARY KEY, order_id int, paid_amount numeric);
-- A warehouse table: unique in fact, no constraint says so.
CREATE TABLE shop.order_channels (order_id int, channel text);
-- Unique only where code is set, and unique only at commit: neither proves anything.
CREATE TABLE shop.order_codes (order_id int, code text);
CREATE UNIQUE INDEX order_codes_partial ON shop.order_codes (order_id) WHERE code IS NOT NULL;
CREATE TABLE shop.order_refs (order_id int UNIQUE DEFERRABLE INITIALLY DEFERRED, ref text);
CREATE TABLE shop.balances (account_id int, snapshot_date date, balance numeric,
                            PRIMARY KEY (account_id, snapshot_date));
CREATE TABLE shop.rates (id int PRIMARY KEY, day date, conversion_rate numeric);
CREATE TABLE shop.region_sales (id int, region text, amount numeric, PRIMARY KEY (id, region))
    PARTITION BY LIST (region);
CREATE TABLE shop.region_sales_eu PARTITION OF shop.region_sales FOR VALUES IN ('eu');
CREATE TABLE shop.region_sales_us PARTITION OF shop.region_sales FOR VALUES IN ('us');
CREATE VIEW shop.order_line_facts AS
    SELECT o.id AS order_id, o.booked_amount, l.product
    FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id;
CREATE VIEW shop.order_facts AS
    SELECT o.id, o.booked_amount, c.country
    FROM shop.orders o JOIN shop.customers c ON c.id = o.customer_id;
INSERT INTO shop.customers SELECT g, CASE WHEN g % 2 = 0 THEN 'DE' ELSE 'FR' END FROM generate_series(1, 4) g;
INSERT INTO shop.orders SELECT g, 1 + g % 4, date '2026-01-01' + g, 100 * g FROM generate_series(1, 8) g;
INSERT INTO shop.order_lines SELECT g, 1 + g % 8, 'p' || g % 3, 10 * g FROM generate_series(1, 20) g;
INSERT INTO shop.payments SELECT g, 1 + g % 8, 50 * g FROM generate_series(1, 12) g;
INSERT INTO shop.order_channels SELECT g, 'web' FROM generate_series(1, 8) g;
INSERT INTO shop.order_codes SELECT g, 'c' || g FROM generate_series(1, 8) g;
INSERT INTO shop.order_refs SELECT g, 'r' || g FROM generate_series(1, 8) g;
INSERT INTO shop.balances SELECT a, date '2026-01-01' + d, 1000 * a FROM generate_series(1, 3) a, generate_series(0, 2) d;
INSERT INTO shop.rates SELECT g, date '2026-01-01' + g, 0.1 * g FROM generate_series(1, 5) g;
INSERT INTO shop.region_sales SELECT g, CASE WHEN g % 2 = 0 THEN 'eu' ELSE 'us' END, g FROM generate_series(1, 6) g;
ANALYZE shop.customers, shop.orders, shop.order_lines, shop.payments, shop.order_channels,
        shop.order_codes, shop.order_refs, shop.balances, shop.rates, shop.region_sales;
GRANT USAGE ON SCHEMA shop TO PUBLIC;
GRANT SELECT ON ALL TABLES IN SCHEMA shop TO PUBLIC;

-- One term per measure, so each is resolved as the only eligible meaning: what is left is grain.
INSERT INTO clarify.concepts (id, kind, label, description, owner, status, additivity) VALUES
  ('metric.shop_booked', 'metric', 'Shop booked revenue', 'Value of accepted orders', 'Sales', 'approved', 'additive'),
  ('metric.shop_line', 'metric', 'Line revenue', 'Value of order lines', 'Sales', 'approved', 'additive'),
  ('metric.shop_paid', 'metric', 'Paid amount', 'Payments received', 'Billing', 'approved', 'additive'),
  ('metric.shop_balance', 'metric', 'Account balance', 'Balance at the end of the day', 'Finance', 'approved', 'semi_additive'),
  ('metric.shop_rate', 'metric', 'Conversion rate', 'Orders per visit', 'Marketing', 'approved', 'non_additive'),
  ('metric.shop_region', 'metric', 'Regional sales', 'Sales per region', 'Sales', 'approved', 'additive');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name, snapshot_column) VALUES
  ('metric.shop_booked', 'shop.orders', 'booked_amount', NULL),
  ('metric.shop_line', 'shop.order_lines', 'line_amount', NULL),
  ('metric.shop_paid', 'shop.payments', 'paid_amount', NULL),
  ('metric.shop_balance', 'shop.balances', 'balance', 'snapshot_date'),
  ('metric.shop_rate', 'shop.rates', 'conversion_rate', NULL),
  ('metric.shop_region', 'shop.region_sales', 'amount', NULL);
INSERT INTO clarify.terms (term, concept_id) VALUES
  ('shop booked revenue', 'metric.shop_booked'), ('line revenue', 'metric.shop_line'),
  ('paid', 'metric.shop_paid'), ('balance', 'metric.shop_balance'),
  ('conversion', 'metric.shop_rate'), ('regional sales', 'metric.shop_region');

CREATE TABLE public.grain_shapes (n int PRIMARY KEY, expect text, shape text, sql text);
GRANT SELECT ON public.grain_shapes TO PUBLIC;
INSERT INTO public.grain_shapes VALUES
-- Fan-outs: refused.
 (1, 'GRAIN', 'one-to-many join', $$SELECT sum(o.booked_amount) FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id$$),
 (2, 'GRAIN', 'one-to-many, many side first', $$SELECT sum(o.booked_amount) FROM shop.order_lines l JOIN shop.orders o ON o.id = l.order_id$$),
 (3, 'GRAIN', 'avg over a fan-out', $$SELECT avg(o.booked_amount) FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id$$),
 (4, 'GRAIN', 'count of the measure over a fan-out', $$SELECT count(o.booked_amount) FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id$$),
 (5, 'GRAIN', 'sum(DISTINCT) is not exempt', $$SELECT sum(DISTINCT o.booked_amount) FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id$$),
 (6, 'GRAIN', 'chasm trap: lines and payments', $$SELECT sum(l.line_amount), sum(p.paid_amount) FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id JOIN shop.payments p ON p.order_id = o.id$$),
 (7, 'GRAIN', 'left join to the many side', $$SELECT sum(o.booked_amount) FROM shop.orders o LEFT JOIN shop.order_lines l ON l.order_id = o.id$$),
 (8, 'GRAIN', 'right join from the many side', $$SELECT sum(o.booked_amount) FROM shop.order_lines l RIGHT JOIN shop.orders o ON l.order_id = o.id$$),
 (9, 'GRAIN', 'full join', $$SELECT sum(o.booked_amount) FROM shop.orders o FULL JOIN shop.order_lines l ON l.order_id = o.id$$),
 (10, 'GRAIN', 'through a view', $$SELECT sum(booked_amount) FROM shop.order_line_facts$$),
 (11, 'GRAIN', 'through a CTE', $$WITH x AS (SELECT o.booked_amount FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id) SELECT sum(booked_amount) FROM x$$),
 (12, 'GRAIN', 'through a materialized CTE', $$WITH x AS MATERIALIZED (SELECT o.booked_amount FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id) SELECT sum(booked_amount) FROM x$$),
 (13, 'GRAIN', 'through a subquery', $$SELECT sum(b) FROM (SELECT o.booked_amount AS b, l.product FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id OFFSET 0) s$$),
 (14, 'GRAIN', 'window aggregate', $$SELECT l.id, sum(o.booked_amount) OVER () FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id$$),
 (15, 'GRAIN', 'grouping by the many side', $$SELECT l.product, sum(o.booked_amount) FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id GROUP BY l.product$$),
 (16, 'GRAIN', 'unproven key (no constraint)', $$SELECT sum(o.booked_amount) FROM shop.orders o JOIN shop.order_channels c ON c.order_id = o.id$$),
 (17, 'GRAIN', 'partial unique index', $$SELECT sum(o.booked_amount) FROM shop.orders o JOIN shop.order_codes c ON c.order_id = o.id$$),
 (18, 'GRAIN', 'deferrable unique constraint', $$SELECT sum(o.booked_amount) FROM shop.orders o JOIN shop.order_refs r ON r.order_id = o.id$$),
 (19, 'GRAIN', 'cross join', $$SELECT sum(o.booked_amount) FROM shop.orders o CROSS JOIN shop.customers c$$),
 (20, 'GRAIN', 'join on a non-key column', $$SELECT sum(o.booked_amount) FROM shop.orders o JOIN shop.customers c ON c.country = 'DE'$$),
 (21, 'GRAIN', 'aggregate in a scalar subquery', $$SELECT (SELECT sum(o.booked_amount) FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id)$$),
 (22, 'GRAIN', 'aggregate in a UNION ALL branch', $$SELECT sum(o.booked_amount) FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id UNION ALL SELECT 1$$),
 (23, 'GRAIN', 'fan-out below a pre-aggregation', $$SELECT sum(s) FROM (SELECT o.id, sum(o.booked_amount) s FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id GROUP BY o.id) t$$),
 (24, 'GRAIN', 'sum of a snapshot measure across snapshots', $$SELECT sum(balance) FROM shop.balances$$),
 (25, 'GRAIN', 'snapshot measure grouped by another column', $$SELECT account_id, sum(balance) FROM shop.balances GROUP BY account_id$$),
 (26, 'GRAIN', 'sum of a non-additive measure', $$SELECT sum(conversion_rate) FROM shop.rates$$),
 (27, 'GRAIN', 'fan-out of a partitioned table', $$SELECT sum(r.amount) FROM shop.region_sales r JOIN shop.order_lines l ON l.order_id = r.id$$),
 (28, 'GRAIN', 'self-join on a non-key column', $$SELECT sum(a.booked_amount) FROM shop.orders a JOIN shop.orders b ON b.customer_id = a.customer_id$$),
 (29, 'GRAIN', 'whole-row reference', $$SELECT sum((o).booked_amount) FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id$$),
 (30, 'GRAIN', 'whole row through a subquery', $$SELECT sum((s.o).booked_amount) FROM (SELECT o, l.id FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id OFFSET 0) s$$),
 (31, 'GRAIN', 'snapshot measure in a window across snapshots', $$SELECT account_id, sum(balance) OVER (PARTITION BY account_id) FROM shop.balances$$),
 (32, 'GRAIN', 'measure handed to a subquery', $$SELECT sum((SELECT o.booked_amount)) FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id$$),
 (33, 'GRAIN', 'measure handed to a correlated subquery', $$SELECT sum((SELECT o.booked_amount FROM shop.customers c WHERE c.id = o.customer_id)) FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id$$),
 (34, 'GRAIN', 'set-returning function beside the measure', $$SELECT sum(b) FROM (SELECT o.booked_amount b, generate_series(1, 3) FROM shop.orders o) s$$),
 (35, 'GRAIN', 'recursive CTE repeating rows', $$WITH RECURSIVE r AS (SELECT booked_amount b, 1 n FROM shop.orders UNION ALL SELECT b, n + 1 FROM r WHERE n < 3) SELECT sum(b) FROM r$$),
 (36, 'GRAIN', 'LATERAL unnest of the measure', $$SELECT sum(u) FROM shop.orders o, LATERAL unnest(ARRAY[o.booked_amount, o.booked_amount]) u$$),
 (37, 'GRAIN', 'LATERAL VALUES of the measure', $$SELECT sum(v.x) FROM shop.orders o, LATERAL (VALUES (o.booked_amount), (o.booked_amount)) v(x)$$),
 (38, 'GRAIN', 'user aggregate over a non-additive measure', $$SELECT pg_temp.total(conversion_rate) FROM shop.rates$$),
 (39, 'GRAIN', 'user aggregate over a snapshot measure', $$SELECT pg_temp.total(balance) FROM shop.balances$$),
 (40, 'GRAIN', 'user aggregate named max over a fan-out', $$SELECT pg_temp.max(o.booked_amount) FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id$$),
 (41, 'GRAIN', 'a total from an initplan summed per row', $$SELECT sum((SELECT sum(booked_amount) FROM shop.orders)) FROM shop.order_lines$$),
 (42, 'GRAIN', 'UNION ALL of the same rows twice', $$SELECT sum(b) FROM (SELECT booked_amount b FROM shop.orders UNION ALL SELECT booked_amount FROM shop.orders) s$$),
 (43, 'GRAIN', 'UNION ALL of a table and its partition', $$SELECT sum(a) FROM (SELECT amount a FROM shop.region_sales UNION ALL SELECT amount FROM shop.region_sales_eu) s$$),
 (44, 'GRAIN', 'UNION ALL reading a CTE twice', $$WITH c AS MATERIALIZED (SELECT booked_amount b FROM shop.orders) SELECT sum(b) FROM (SELECT b FROM c UNION ALL SELECT b FROM c) s$$),
 (45, 'GRAIN', 'UNION ALL of disjoint rows of one table (not proven)', $$SELECT sum(b) FROM (SELECT booked_amount b FROM shop.orders WHERE id < 3 UNION ALL SELECT booked_amount FROM shop.orders WHERE id >= 3) s$$),
-- Safe shapes: they run.
 (101, 'ok', 'join to a primary key', $$SELECT sum(o.booked_amount) FROM shop.orders o JOIN shop.customers c ON c.id = o.customer_id$$),
 (102, 'ok', 'many side summed over a join to its parent', $$SELECT sum(l.line_amount) FROM shop.order_lines l JOIN shop.orders o ON o.id = l.order_id$$),
 (103, 'ok', 'a chain of joins to primary keys', $$SELECT c.country, sum(l.line_amount) FROM shop.order_lines l JOIN shop.orders o ON o.id = l.order_id JOIN shop.customers c ON c.id = o.customer_id GROUP BY c.country$$),
 (104, 'ok', 'EXISTS', $$SELECT sum(o.booked_amount) FROM shop.orders o WHERE EXISTS (SELECT 1 FROM shop.order_lines l WHERE l.order_id = o.id)$$),
 (105, 'ok', 'IN', $$SELECT sum(o.booked_amount) FROM shop.orders o WHERE o.id IN (SELECT l.order_id FROM shop.order_lines l)$$),
 (106, 'ok', 'NOT EXISTS', $$SELECT sum(o.booked_amount) FROM shop.orders o WHERE NOT EXISTS (SELECT 1 FROM shop.payments p WHERE p.order_id = o.id)$$),
 (107, 'ok', 'pre-aggregated subquery', $$SELECT sum(o.booked_amount) FROM shop.orders o JOIN (SELECT order_id, count(*) n FROM shop.order_lines GROUP BY order_id) l ON l.order_id = o.id$$),
 (108, 'ok', 'DISTINCT subquery', $$SELECT sum(o.booked_amount) FROM shop.orders o JOIN (SELECT DISTINCT order_id FROM shop.order_lines) l ON l.order_id = o.id$$),
 (109, 'ok', 'max over a fan-out', $$SELECT max(o.booked_amount) FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id$$),
 (110, 'ok', 'min over a fan-out', $$SELECT min(o.booked_amount) FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id$$),
 (111, 'ok', 'count(DISTINCT) over a fan-out', $$SELECT count(DISTINCT o.booked_amount) FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id$$),
 (112, 'ok', 'bool_or over a fan-out', $$SELECT bool_or(o.booked_amount > 100) FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id$$),
 (113, 'ok', 'LATERAL ... LIMIT 1', $$SELECT sum(o.booked_amount) FROM shop.orders o CROSS JOIN LATERAL (SELECT l.product FROM shop.order_lines l WHERE l.order_id = o.id LIMIT 1) x$$),
 (114, 'ok', 'one-row side', $$SELECT sum(o.booked_amount) FROM shop.orders o CROSS JOIN (SELECT max(id) m FROM shop.order_lines) x$$),
 (115, 'ok', 'one-row side by its key', $$SELECT sum(o.booked_amount) FROM shop.orders o JOIN shop.customers c ON c.id = 1$$),
 (116, 'ok', 'self-join on the key', $$SELECT sum(a.booked_amount) FROM shop.orders a JOIN shop.orders b ON b.id = a.id$$),
 (117, 'ok', 'row listing over a fan-out', $$SELECT o.booked_amount, l.product FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id$$),
 (118, 'ok', 'aggregate before joining', $$SELECT sum(t.amount) FROM (SELECT o.id, sum(o.booked_amount) amount FROM shop.orders o GROUP BY o.id) t JOIN (SELECT order_id FROM shop.order_lines GROUP BY order_id) l ON l.order_id = t.id$$),
 (119, 'ok', 'view joining to a primary key', $$SELECT country, sum(booked_amount) FROM shop.order_facts GROUP BY country$$),
 (120, 'ok', 'CTE joining to a primary key', $$WITH f AS MATERIALIZED (SELECT o.booked_amount, c.country FROM shop.orders o JOIN shop.customers c ON c.id = o.customer_id) SELECT sum(booked_amount) FROM f$$),
 (121, 'ok', 'window aggregate partitioned, no join', $$SELECT id, sum(booked_amount) OVER (PARTITION BY customer_id) FROM shop.orders$$),
 (122, 'ok', 'snapshot measure per snapshot date', $$SELECT snapshot_date, sum(balance) FROM shop.balances GROUP BY snapshot_date$$),
 (123, 'ok', 'snapshot measure on one date', $$SELECT sum(balance) FROM shop.balances WHERE snapshot_date = date '2026-01-02'$$),
 (124, 'ok', 'snapshot measure averaged', $$SELECT avg(balance) FROM shop.balances$$),
 (125, 'ok', 'non-additive measure averaged', $$SELECT avg(conversion_rate) FROM shop.rates$$),
 (126, 'ok', 'partitioned table joined to a primary key', $$SELECT sum(r.amount) FROM shop.region_sales r JOIN shop.customers c ON c.id = r.id$$),
 (127, 'ok', 'join to a partitioned table on its key', $$SELECT sum(o.booked_amount) FROM shop.orders o JOIN shop.region_sales r ON r.id = o.id AND r.region = 'eu'$$),
 (128, 'ok', 'INTERSECT subquery', $$SELECT sum(o.booked_amount) FROM shop.orders o JOIN (SELECT order_id FROM shop.order_lines INTERSECT SELECT order_id FROM shop.payments) k ON k.order_id = o.id$$),
 (129, 'ok', 'plain aggregate, no join', $$SELECT sum(booked_amount), avg(booked_amount) FROM shop.orders$$),
 (130, 'ok', 'aggregate in a scalar subquery joined to a key', $$SELECT (SELECT sum(o.booked_amount) FROM shop.orders o JOIN shop.customers c ON c.id = o.customer_id)$$),
 (131, 'ok', 'UNION ALL of safe aggregates', $$SELECT sum(booked_amount) FROM shop.orders UNION ALL SELECT sum(line_amount) FROM shop.order_lines$$),
 (132, 'ok', 'GROUP BY the one side', $$SELECT o.id, sum(l.line_amount) FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id GROUP BY o.id$$),
 (133, 'ok', 'snapshot measure in a window per snapshot date', $$SELECT account_id, sum(balance) OVER (PARTITION BY snapshot_date) FROM shop.balances$$),
 (134, 'ok', 'LEFT JOIN to a primary key', $$SELECT sum(o.booked_amount) FROM shop.orders o LEFT JOIN shop.customers c ON c.id = o.customer_id$$),
 (135, 'ok', 'correlated subquery on the one side', $$SELECT sum(o.booked_amount + (SELECT 0 FROM shop.customers c WHERE c.id = o.customer_id)) FROM shop.orders o$$),
 (136, 'ok', 'LATERAL subquery of one row per measure row', $$SELECT sum(x.u) FROM shop.orders o CROSS JOIN LATERAL (SELECT o.booked_amount LIMIT 1) x(u)$$),
 (137, 'ok', 'user aggregate over an additive measure', $$SELECT pg_temp.total(booked_amount) FROM shop.orders$$),
 (138, 'ok', 'an initplan in a filter', $$SELECT sum(booked_amount) FROM shop.orders WHERE booked_amount > (SELECT avg(booked_amount) FROM shop.orders)$$),
 (139, 'ok', 'UNION of the same rows', $$SELECT sum(b) FROM (SELECT booked_amount b FROM shop.orders UNION SELECT booked_amount FROM shop.orders) s$$),
 (140, 'ok', 'UNION ALL of two tables', $$SELECT sum(b) FROM (SELECT booked_amount b FROM shop.orders UNION ALL SELECT line_amount FROM shop.order_lines) s$$),
 (141, 'ok', 'UNION ALL with one branch reading the measure', $$SELECT sum(b) FROM (SELECT booked_amount b FROM shop.orders UNION ALL SELECT 0 FROM shop.orders) s$$),
 (142, 'ok', 'EXCEPT ALL of the same rows', $$SELECT sum(b) FROM (SELECT booked_amount b FROM shop.orders EXCEPT ALL SELECT booked_amount FROM shop.orders WHERE id = 1) s$$);

-- Every shape, run by the agent. Both ways: no fan-out runs, no safe shape is refused. The agent
-- has no CREATE privilege, but may define aggregates of its own in pg_temp.
SET ROLE regress_agent;
CREATE FUNCTION pg_temp.add(numeric, numeric) RETURNS numeric LANGUAGE sql AS 'SELECT coalesce($1, 0) + $2';
CREATE AGGREGATE pg_temp.total(numeric) (sfunc = pg_temp.add, stype = numeric);
CREATE AGGREGATE pg_temp.max(numeric) (sfunc = pg_temp.add, stype = numeric);
SELECT n, shape, expect, gate_state(sql) AS got FROM public.grain_shapes ORDER BY n;
SELECT count(*) AS shapes, count(*) FILTER (WHERE gate_state(sql) <> expect) AS wrong
FROM public.grain_shapes;
RESET ROLE;

-- The same decisions under every join method the planner may choose, and in parallel plans
-- (partial aggregates below a Gather).
SET ROLE regress_agent;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT 'nested loops' AS plans, count(*) FILTER (WHERE gate_state(sql) <> expect) AS wrong FROM public.grain_shapes;
SET enable_nestloop = off;
SET enable_mergejoin = on;
SELECT 'merge joins' AS plans, count(*) FILTER (WHERE gate_state(sql) <> expect) AS wrong FROM public.grain_shapes;
SET enable_mergejoin = off;
SET enable_hashjoin = on;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SELECT 'hash joins, no index scans' AS plans, count(*) FILTER (WHERE gate_state(sql) <> expect) AS wrong FROM public.grain_shapes;
RESET ALL;
RESET ROLE;
DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['customers', 'orders', 'order_lines', 'payments', 'order_channels',
                             'order_codes', 'order_refs', 'balances', 'rates', 'region_sales_eu',
                             'region_sales_us'] LOOP
        EXECUTE format('ALTER TABLE shop.%I SET (parallel_workers = 2)', t);
    END LOOP;
END $$;
SET ROLE regress_agent;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT 'parallel plans' AS plans, count(*) FILTER (WHERE gate_state(sql) <> expect) AS wrong FROM public.grain_shapes;
RESET ALL;

-- An aggregate too large to trace within the budget (8000 other columns before the measure)
-- counts as reading its relations' measures through an unproven join.
SELECT gate_state(format('SELECT sum(cardinality(ARRAY[%s]) * 0 + o.booked_amount) FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id',
                         (SELECT string_agg('l.id', ',') FROM generate_series(1, 8000)))) AS past_the_budget;

-- What the agent receives: a fanout slot naming the join, the HINT saying how to rewrite.
SELECT gate($$SELECT sum(o.booked_amount) FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id$$);
-- An additivity slot: the aggregate used and the ones allowed.
SELECT gate($$SELECT sum(conversion_rate) FROM shop.rates$$);
SELECT gate($$SELECT account_id, sum(balance) FROM shop.balances GROUP BY account_id$$) -> 'hint';
-- check() and last_decision() report GRAIN like any other state.
SELECT c ->> 'decision' AS decision, c ->> 'state' AS state, c -> 'slots' -> 0 ->> 'kind' AS kind,
       c -> 'slots' -> 0 -> 'via' AS via
FROM clarify.check($$SELECT sum(o.booked_amount) FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id$$) c;
SET pg_clarify.resolution = '{"question_id": "q_grain_audit"}';
SELECT gate_state($$SELECT sum(o.booked_amount) FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id$$);
RESET pg_clarify.resolution;
SELECT clarify.last_decision() ->> 'state' AS state, clarify.last_decision() ->> 'status' AS status;
-- Meaning states come first: an ambiguous measure aggregated over a fan-out is AMBIGUOUS, with
-- both slots.
SELECT g -> 'detail' ->> 'state' AS state,
       jsonb_path_query_array(g, '$.detail.slots[*].kind') AS kinds
FROM gate($$SELECT sum(o.booked_amount) FROM sales.orders o JOIN shop.order_lines l ON l.order_id = o.id$$) g;
RESET ROLE;
-- The audit keeps the GRAIN decision (sync mode: durable before the error was raised; its row
-- follows, and audit_wait() waits for it).
SELECT clarify.audit_wait() AS caught_up \gset
SELECT state, decision, payload -> 'slots' -> 0 ->> 'kind' AS kind
FROM clarify.audit WHERE question_id = 'q_grain_audit';

-- A key the DBA declares makes the warehouse join safe; a prepared statement is decided again at
-- its next execution when the declaration goes.
INSERT INTO clarify.unique_keys (relation, columns, approved_by, note)
VALUES ('shop.order_channels', '{order_id}', 'dba@example.com', 'one channel per order');
SET ROLE regress_agent;
PREPARE by_channel AS
    SELECT c.channel, sum(o.booked_amount) FROM shop.orders o JOIN shop.order_channels c ON c.order_id = o.id GROUP BY c.channel;
SELECT gate('EXECUTE by_channel');
RESET ROLE;
DELETE FROM clarify.unique_keys WHERE relation = 'shop.order_channels'::regclass;
SET ROLE regress_agent;
SELECT gate_state('EXECUTE by_channel');
DEALLOCATE by_channel;
RESET ROLE;

-- A superuser's statements are not gated: the fan-out runs, as it would for a non-agent.
SELECT sum(o.booked_amount) FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.id;

DROP TABLE public.grain_shapes;
DELETE FROM clarify.concepts WHERE id LIKE 'metric.shop_%';
DROP SCHEMA shop CASCADE;
RESET client_min_messages;
