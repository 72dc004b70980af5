-- Grain through subqueries (docs/reference.md, "Grain"; issue 26, findings 1-3): an aggregate of
-- the outer query written inside a subquery, a correlated subquery's value repeated once per
-- outer row, and FETCH FIRST ... WITH TIES taken as one row. Expected state, shape, statement.
SET client_min_messages = warning;
CREATE SCHEMA sq;
CREATE TABLE sq.customers (id int PRIMARY KEY, country text);
CREATE TABLE sq.orders (id int PRIMARY KEY, customer_id int REFERENCES sq.customers,
                        booked_amount numeric);
CREATE TABLE sq.order_lines (id int PRIMARY KEY, order_id int REFERENCES sq.orders,
                             product text, line_amount numeric);
CREATE TABLE sq.balances (account_id int, snapshot_date date, balance numeric,
                          PRIMARY KEY (account_id, snapshot_date));
CREATE TABLE sq.rates (id int PRIMARY KEY, day date, conversion_rate numeric);
CREATE TABLE sq.days (day date PRIMARY KEY);
INSERT INTO sq.customers SELECT g, CASE WHEN g % 2 = 0 THEN 'DE' ELSE 'FR' END FROM generate_series(1, 4) g;
INSERT INTO sq.orders SELECT g, 1 + g % 4, 100 * g FROM generate_series(1, 8) g;
INSERT INTO sq.order_lines SELECT g, 1 + g % 8, 'p' || g % 3, 10 * g FROM generate_series(1, 20) g;
INSERT INTO sq.balances SELECT a, date '2026-01-01' + d, 1000 * a FROM generate_series(1, 3) a, generate_series(0, 2) d;
INSERT INTO sq.rates SELECT g, date '2026-01-01' + g, 0.1 * g FROM generate_series(1, 5) g;
INSERT INTO sq.days SELECT date '2026-01-01' + d FROM generate_series(0, 2) d;
ANALYZE sq.customers, sq.orders, sq.order_lines, sq.balances, sq.rates, sq.days;
GRANT USAGE ON SCHEMA sq TO PUBLIC;
GRANT SELECT ON ALL TABLES IN SCHEMA sq TO PUBLIC;

INSERT INTO clarify.concepts (id, kind, label, description, owner, status, additivity) VALUES
  ('metric.sq_booked', 'metric', 'Booked revenue', 'Value of accepted orders', 'Sales', 'approved', 'additive'),
  ('metric.sq_line', 'metric', 'Line revenue', 'Value of order lines', 'Sales', 'approved', 'additive'),
  ('metric.sq_balance', 'metric', 'Account balance', 'Balance at the end of the day', 'Finance', 'approved', 'semi_additive'),
  ('metric.sq_rate', 'metric', 'Conversion rate', 'Orders per visit', 'Marketing', 'approved', 'non_additive');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name, snapshot_column) VALUES
  ('metric.sq_booked', 'sq.orders', 'booked_amount', NULL),
  ('metric.sq_line', 'sq.order_lines', 'line_amount', NULL),
  ('metric.sq_balance', 'sq.balances', 'balance', 'snapshot_date'),
  ('metric.sq_rate', 'sq.rates', 'conversion_rate', NULL);
INSERT INTO clarify.terms (term, concept_id) VALUES
  ('sq booked revenue', 'metric.sq_booked'), ('sq line revenue', 'metric.sq_line'),
  ('sq balance', 'metric.sq_balance'), ('sq conversion', 'metric.sq_rate');

CREATE TABLE public.grain_subquery_shapes (n int PRIMARY KEY, expect text, shape text, sql text);
GRANT SELECT ON public.grain_subquery_shapes TO PUBLIC;
INSERT INTO public.grain_subquery_shapes VALUES
-- 1. An aggregate of the outer query written in a subquery: refused like one written outside.
 (1, 'GRAIN', 'outer sum in a scalar subquery', $$SELECT (SELECT sum(o.booked_amount)) FROM sq.orders o JOIN sq.order_lines l ON l.order_id = o.id$$),
 (2, 'GRAIN', 'outer avg in a scalar subquery', $$SELECT (SELECT avg(o.booked_amount)) FROM sq.orders o JOIN sq.order_lines l ON l.order_id = o.id$$),
 (3, 'GRAIN', 'sum of an unnested outer array_agg', $$SELECT (SELECT sum(x) FROM unnest(array_agg(o.booked_amount)) x) FROM sq.orders o JOIN sq.order_lines l ON l.order_id = o.id$$),
 (4, 'GRAIN', 'outer sum compared with ANY', $$SELECT 1 FROM sq.orders o JOIN sq.order_lines l ON l.order_id = o.id HAVING sum(o.booked_amount) > ANY (SELECT 0)$$),
 (5, 'GRAIN', 'outer sum of a snapshot measure in a subquery', $$SELECT (SELECT sum(b.balance)) FROM sq.balances b$$),
 (6, 'GRAIN', 'outer sum of a non-additive measure in a subquery', $$SELECT (SELECT sum(r.conversion_rate)) FROM sq.rates r$$),
 (7, 'GRAIN', 'sum of an unnested array_agg of a non-additive measure', $$SELECT (SELECT sum(x) FROM unnest(array_agg(r.conversion_rate)) x) FROM sq.rates r$$),
 (8, 'GRAIN', 'sum of an unnested array_agg of a snapshot measure', $$SELECT (SELECT sum(x) FROM unnest(array_agg(b.balance)) x) FROM sq.balances b$$),
 (9, 'GRAIN', 'outer sum in a subquery of the select list, grouped', $$SELECT l.product, (SELECT sum(o.booked_amount)) FROM sq.orders o JOIN sq.order_lines l ON l.order_id = o.id GROUP BY l.product$$),
-- 2. A correlated subquery's value, once per outer row: the subquery's rows repeat unless the
-- outer rows are unique on what the subquery compares its rows with.
 (21, 'GRAIN', 'correlated order amount summed over lines', $$SELECT sum((SELECT o.booked_amount FROM sq.orders o WHERE o.id = l.order_id)) FROM sq.order_lines l$$),
 (22, 'GRAIN', 'correlated value through a derived table', $$SELECT sum(v) FROM (SELECT (SELECT o.booked_amount FROM sq.orders o WHERE o.id = l.order_id) v FROM sq.order_lines l) s$$),
 (23, 'GRAIN', 'unnest of an ARRAY of a correlated subquery', $$SELECT sum(x) FROM sq.order_lines l, unnest(ARRAY(SELECT o.booked_amount FROM sq.orders o WHERE o.id = l.order_id)) x$$),
 (24, 'GRAIN', 'correlated balance summed', $$SELECT sum((SELECT b.balance FROM sq.balances b WHERE b.account_id = c.id AND b.snapshot_date = x.d)) FROM sq.customers c CROSS JOIN (VALUES (date '2026-01-01'), (date '2026-01-02')) x(d)$$),
 (25, 'GRAIN', 'correlated customer subtotal summed over orders', $$SELECT sum((SELECT sum(o.booked_amount) FROM sq.orders o WHERE o.customer_id = p.customer_id)) FROM sq.orders p$$),
 (26, 'GRAIN', 'correlated subtotal summed over a fan-out of customers', $$SELECT sum((SELECT sum(o.booked_amount) FROM sq.orders o WHERE o.customer_id = c.id)) FROM sq.customers c JOIN sq.orders p ON p.customer_id = c.id$$),
 (27, 'GRAIN', 'uncorrelated restriction on the other side of the subquery', $$SELECT sum((SELECT sum(o.booked_amount) FROM sq.orders o JOIN sq.customers k ON k.id = c.id)) FROM sq.customers c$$),
 (28, 'GRAIN', 'correlated ARRAY subquery unnested in the outer query', $$SELECT sum(x) FROM (SELECT unnest(ARRAY(SELECT o.booked_amount FROM sq.orders o WHERE o.customer_id = c.id)) x FROM sq.customers c CROSS JOIN sq.order_lines l) s$$),
 (29, 'GRAIN', 'correlated sum of an outer value repeated inside', $$SELECT (SELECT sum(o.booked_amount + g * 0) FROM generate_series(1, 3) g) FROM sq.orders o$$),
 (30, 'GRAIN', 'correlated rate summed', $$SELECT sum((SELECT r.conversion_rate FROM sq.rates r WHERE r.id = c.id)) FROM sq.customers c$$),
 (31, 'GRAIN', 'outer value picks a joined row only with itself in the key', $$SELECT sum((SELECT sum(l.line_amount) FROM sq.order_lines l JOIN sq.balances b ON b.account_id = l.order_id WHERE b.snapshot_date = d.day)) FROM sq.days d$$),
 (32, 'GRAIN', 'per-snapshot subtotals summed over the snapshots', $$SELECT sum((SELECT sum(b.balance) FROM sq.balances b WHERE b.snapshot_date = d.day)) FROM sq.days d$$),
 (33, 'GRAIN', 'per-country subtotals summed over customers', $$SELECT sum(t) FROM (SELECT (SELECT sum(o.booked_amount) FROM sq.orders o JOIN sq.customers k ON k.id = o.customer_id WHERE k.country = c.country) t FROM sq.customers c) s$$),
 (34, 'GRAIN', 'correlated on an inequality', $$SELECT sum((SELECT o.booked_amount FROM sq.orders o WHERE o.customer_id >= c.id ORDER BY o.id LIMIT 1)) FROM sq.customers c$$),
 (35, 'GRAIN', 'whole row of a correlated subquery', $$SELECT sum(((SELECT o FROM sq.orders o WHERE o.id = l.order_id)).booked_amount) FROM sq.order_lines l$$),
-- 3. FETCH FIRST 1 ROWS WITH TIES returns every row tied with the first.
 (41, 'GRAIN', 'cross join to FETCH FIRST 1 ROWS WITH TIES', $$SELECT sum(o.booked_amount) FROM sq.orders o CROSS JOIN (SELECT product FROM sq.order_lines ORDER BY product FETCH FIRST 1 ROWS WITH TIES) x$$),
 (42, 'GRAIN', 'join to FETCH FIRST 1 ROWS WITH TIES on a non-key', $$SELECT sum(o.booked_amount) FROM sq.orders o JOIN (SELECT order_id FROM sq.order_lines ORDER BY product FETCH FIRST 1 ROWS WITH TIES) x ON x.order_id = o.id$$),
-- Correct shapes: they run.
 (101, 'ok', 'correlated subtotal summed over customers', $$SELECT sum((SELECT sum(o.booked_amount) FROM sq.orders o WHERE o.customer_id = c.id)) FROM sq.customers c$$),
 (102, 'ok', 'correlated subtotal listed per customer', $$SELECT c.id, (SELECT sum(o.booked_amount) FROM sq.orders o WHERE o.customer_id = c.id) FROM sq.customers c$$),
 (103, 'ok', 'correlated subtotal per customer, grouped by country', $$SELECT c.country, sum((SELECT sum(o.booked_amount) FROM sq.orders o WHERE o.customer_id = c.id)) FROM sq.customers c GROUP BY c.country$$),
 (104, 'ok', 'correlated subtotal through a derived table', $$SELECT sum(t) FROM (SELECT (SELECT sum(o.booked_amount) FROM sq.orders o WHERE o.customer_id = c.id) t FROM sq.customers c) s$$),
 (105, 'ok', 'correlated value by the outer key', $$SELECT sum((SELECT o.booked_amount FROM sq.orders o WHERE o.id = p.id)) FROM sq.orders p$$),
 (106, 'ok', 'correlated line subtotal summed over orders', $$SELECT sum((SELECT sum(l.line_amount) FROM sq.order_lines l WHERE l.order_id = o.id)) FROM sq.orders o$$),
 (107, 'ok', 'correlated subtotal through a join to the parent', $$SELECT sum((SELECT sum(l.line_amount) FROM sq.order_lines l JOIN sq.orders o ON o.id = l.order_id WHERE o.customer_id = c.id)) FROM sq.customers c$$),
 (108, 'ok', 'outer sum in a scalar subquery, no join', $$SELECT (SELECT sum(o.booked_amount)) FROM sq.orders o$$),
 (109, 'ok', 'outer sum in a subquery over a join to a key', $$SELECT (SELECT sum(o.booked_amount)) FROM sq.orders o JOIN sq.customers c ON c.id = o.customer_id$$),
 (110, 'ok', 'outer max in a subquery over a fan-out', $$SELECT (SELECT max(o.booked_amount)) FROM sq.orders o JOIN sq.order_lines l ON l.order_id = o.id$$),
 (111, 'ok', 'outer avg of a non-additive measure in a subquery', $$SELECT (SELECT avg(r.conversion_rate)) FROM sq.rates r$$),
 (112, 'ok', 'outer sum of a snapshot measure per date in a subquery', $$SELECT b.snapshot_date, (SELECT sum(b.balance)) FROM sq.balances b GROUP BY b.snapshot_date$$),
 (113, 'ok', 'HAVING with ANY over a join to a key', $$SELECT 1 FROM sq.orders o JOIN sq.customers c ON c.id = o.customer_id HAVING sum(o.booked_amount) > ANY (SELECT 0)$$),
 (114, 'ok', 'correlated balance on one date, summed per account', $$SELECT sum((SELECT b.balance FROM sq.balances b WHERE b.account_id = c.id AND b.snapshot_date = date '2026-01-01')) FROM sq.customers c$$),
 (115, 'ok', 'correlated snapshot subtotal per date, listed', $$SELECT d, (SELECT sum(b.balance) FROM sq.balances b WHERE b.snapshot_date = d) FROM (VALUES (date '2026-01-01'), (date '2026-01-02')) x(d)$$),
 (116, 'ok', 'correlated subquery in a filter', $$SELECT sum(o.booked_amount) FROM sq.orders o WHERE o.booked_amount > (SELECT avg(p.booked_amount) FROM sq.orders p WHERE p.customer_id = o.customer_id)$$),
 (117, 'ok', 'FETCH FIRST 1 ROWS ONLY', $$SELECT sum(o.booked_amount) FROM sq.orders o CROSS JOIN (SELECT product FROM sq.order_lines ORDER BY product FETCH FIRST 1 ROWS ONLY) x$$),
 (118, 'ok', 'FETCH FIRST 1 ROWS WITH TIES on a unique key', $$SELECT sum(o.booked_amount) FROM sq.orders o CROSS JOIN (SELECT id FROM sq.order_lines ORDER BY id FETCH FIRST 1 ROWS WITH TIES) x$$),
 (119, 'ok', 'correlated value of the one side', $$SELECT sum(l.line_amount * (SELECT count(*) FROM sq.orders o WHERE o.id = l.order_id)) FROM sq.order_lines l$$),
 (120, 'ok', 'per-snapshot subtotals listed per day', $$SELECT d.day, (SELECT sum(b.balance) FROM sq.balances b WHERE b.snapshot_date = d.day) FROM sq.days d$$),
 (122, 'ok', 'per-country subtotals summed per country', $$SELECT sum(t) FROM (SELECT c.country, (SELECT sum(o.booked_amount) FROM sq.orders o JOIN sq.customers k ON k.id = o.customer_id WHERE k.country = c.country) t FROM sq.customers c GROUP BY c.country) s$$),
 (123, 'ok', 'first order of each customer, summed', $$SELECT sum((SELECT o.booked_amount FROM sq.orders o WHERE o.customer_id = c.id ORDER BY o.id LIMIT 1)) FROM sq.customers c$$),
 (124, 'ok', 'outer measure read by the one row of a correlated subquery', $$SELECT sum((SELECT o.booked_amount * 2 FROM sq.customers c WHERE c.id = o.customer_id)) FROM sq.orders o$$),
 (125, 'ok', 'correlated subtotal over customers filtered by IN', $$SELECT sum((SELECT sum(o.booked_amount) FROM sq.orders o WHERE o.customer_id = c.id)) FROM sq.customers c WHERE c.id IN (SELECT customer_id FROM sq.orders)$$),
 (121, 'ok', 'per-account balance on each day, summed per day', $$SELECT d.day, sum((SELECT b.balance FROM sq.balances b WHERE b.account_id = c.id AND b.snapshot_date = date '2026-01-02')) FROM sq.days d CROSS JOIN sq.customers c WHERE d.day = date '2026-01-02' GROUP BY d.day$$);

-- Every shape, run by the agent, and decided alike by clarify.check().
SET ROLE regress_agent;
SELECT n, shape, expect, gate_state(sql) AS got FROM public.grain_subquery_shapes ORDER BY n;
SELECT count(*) AS shapes, count(*) FILTER (WHERE gate_state(sql) <> expect) AS wrong
FROM public.grain_subquery_shapes;
SELECT count(*) FILTER (WHERE (clarify.check(sql) ->> 'state' = 'GRAIN') <> (expect = 'GRAIN'))
       AS check_differs
FROM public.grain_subquery_shapes;
RESET ROLE;

-- The same decisions under every join method and in parallel plans.
SET ROLE regress_agent;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT 'nested loops' AS plans, count(*) FILTER (WHERE gate_state(sql) <> expect) AS wrong FROM public.grain_subquery_shapes;
SET enable_nestloop = off;
SET enable_mergejoin = on;
SELECT 'merge joins' AS plans, count(*) FILTER (WHERE gate_state(sql) <> expect) AS wrong FROM public.grain_subquery_shapes;
SET enable_mergejoin = off;
SET enable_hashjoin = on;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SELECT 'hash joins, no index scans' AS plans, count(*) FILTER (WHERE gate_state(sql) <> expect) AS wrong FROM public.grain_subquery_shapes;
RESET ALL;
RESET ROLE;
ALTER TABLE sq.customers SET (parallel_workers = 2);
ALTER TABLE sq.orders SET (parallel_workers = 2);
ALTER TABLE sq.order_lines SET (parallel_workers = 2);
ALTER TABLE sq.balances SET (parallel_workers = 2);
ALTER TABLE sq.rates SET (parallel_workers = 2);
ALTER TABLE sq.days SET (parallel_workers = 2);
SET ROLE regress_agent;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT 'parallel plans' AS plans, count(*) FILTER (WHERE gate_state(sql) <> expect) AS wrong FROM public.grain_subquery_shapes;
RESET ALL;

-- What the agent receives for a correlated subquery repeated per outer row: the outer relation.
SELECT gate($$SELECT sum((SELECT o.booked_amount FROM sq.orders o WHERE o.id = l.order_id)) FROM sq.order_lines l$$) -> 'detail' -> 'slots' -> 0 -> 'via' AS via;
RESET ROLE;

SET client_min_messages = warning;
DROP TABLE public.grain_subquery_shapes;
DELETE FROM clarify.concepts WHERE id LIKE 'metric.sq_%';
DROP SCHEMA sq CASCADE;
RESET client_min_messages;
