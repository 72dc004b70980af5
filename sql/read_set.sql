-- The read set (docs/reference.md, "SQLSTATEs" and "The read set"): every statement shape an agent
-- can send, decided on the columns it actually reads. With no record, reading a revenue column is
-- AMBIGUOUS; the country column alone is its term's only meaning and passes ("ok"); other columns
-- are not governed.
SET client_min_messages = warning;
CREATE VIEW sales.v_orders AS SELECT id, order_date, customer_country, booked_amount FROM sales.orders;
CREATE VIEW sales.v_open_orders AS SELECT id, order_date FROM sales.orders WHERE booked_amount > 0;
CREATE VIEW sales.v_nested AS SELECT id, order_date, booked_amount FROM sales.v_orders;
CREATE VIEW sales.v_totals AS SELECT customer_country, sum(booked_amount) AS total, count(*) AS n FROM sales.orders GROUP BY customer_country;
CREATE FUNCTION sales.booked_rows() RETURNS TABLE (b numeric) LANGUAGE sql STABLE AS 'SELECT booked_amount FROM sales.orders';
CREATE FUNCTION sales.booked_total_volatile() RETURNS numeric LANGUAGE sql VOLATILE AS 'SELECT sum(booked_amount) FROM sales.orders';
CREATE FUNCTION sales.booked_static() RETURNS numeric LANGUAGE plpgsql AS $$ BEGIN RETURN (SELECT sum(booked_amount) FROM sales.orders); END $$;
CREATE FUNCTION sales.booked_dynamic() RETURNS numeric LANGUAGE plpgsql AS $$ DECLARE r numeric; BEGIN EXECUTE 'SELECT sum(booked_amount) FROM sales.orders' INTO r; RETURN r; END $$;
CREATE FUNCTION sales.order_ids() RETURNS SETOF int LANGUAGE plpgsql AS $$ BEGIN RETURN QUERY SELECT id FROM sales.orders; END $$;
CREATE TABLE sales.order_log (order_id int, note text);
CREATE FUNCTION sales.log_order() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO sales.order_log SELECT NEW.order_id, 'booked ' || (SELECT sum(booked_amount) FROM sales.orders);
  RETURN NEW;
END $$;
CREATE TABLE sales.order_notes (order_id int, note text);
CREATE TRIGGER order_notes_log AFTER INSERT ON sales.order_notes FOR EACH ROW EXECUTE FUNCTION sales.log_order();
-- Partitioned and inheritance parents: governing the parent governs its children.
CREATE TABLE sales.bookings (id int, booked_on date, amount numeric) PARTITION BY RANGE (booked_on);
CREATE TABLE sales.bookings_2026 PARTITION OF sales.bookings FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
CREATE TABLE sales.bookings_2027 (amount numeric, booked_on date, id int);
ALTER TABLE sales.bookings ATTACH PARTITION sales.bookings_2027 FOR VALUES FROM ('2027-01-01') TO ('2028-01-01');
INSERT INTO sales.bookings VALUES (1, '2026-03-01', 10), (2, '2027-03-01', 20);
CREATE TABLE sales.ledger_base (id int, amount numeric);
CREATE TABLE sales.ledger_child (extra text) INHERITS (sales.ledger_base);
INSERT INTO sales.ledger_child VALUES (1, 5, 'x');
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA sales TO PUBLIC;
-- A governed column of a view (the view computes it), and a foreign partition.
CREATE VIEW sales.margins AS SELECT id, booked_amount * 0.3 AS margin FROM sales.orders;
-- A view column governed on its own: the view computes it from ungoverned columns, so only the
-- view's entry shows the read.
CREATE VIEW sales.estimates AS SELECT id, id * 100 AS estimated_amount FROM sales.orders;
-- A governed column of a materialized view (COPY reads it directly from 18).
CREATE MATERIALIZED VIEW sales.booked_mv AS SELECT id, booked_amount FROM sales.orders;
CREATE EXTENSION file_fdw;
CREATE SERVER regress_files FOREIGN DATA WRAPPER file_fdw;
DO $$
DECLARE
  path text := '/tmp/pg_clarify_regress_' || pg_backend_pid() || '.csv';
BEGIN
  EXECUTE format($c$COPY (SELECT 3, date '2028-03-01', 30) TO %L (FORMAT csv)$c$, path);
  EXECUTE format($c$CREATE FOREIGN TABLE sales.bookings_2028 PARTITION OF sales.bookings
                    FOR VALUES FROM ('2028-01-01') TO ('2029-01-01')
                    SERVER regress_files OPTIONS (filename %L, format 'csv')$c$, path);
END $$;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA sales TO PUBLIC;
INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES
  ('metric.booked_revenue', 'sales.bookings', 'amount'),
  ('metric.recognized_revenue', 'sales.ledger_base', 'amount'),
  ('metric.gross_margin', 'sales.margins', 'margin'),
  ('metric.booked_revenue', 'sales.booked_mv', 'booked_amount'),
  ('metric.booked_revenue', 'sales.estimates', 'estimated_amount');
RESET client_min_messages;

SET ROLE regress_agent;
SELECT shape, public.gate_state(sql) AS gate FROM (VALUES
  ('plain column',                 'SELECT booked_amount FROM sales.orders'),
  ('ungoverned columns',           'SELECT id, order_date, status FROM sales.orders'),
  ('only eligible meaning',        'SELECT customer_country, count(*) FROM sales.orders GROUP BY 1'),
  ('WHERE',                        'SELECT id FROM sales.orders WHERE booked_amount > 100'),
  ('GROUP BY',                     'SELECT count(*) FROM sales.orders GROUP BY booked_amount'),
  ('ORDER BY',                     'SELECT id FROM sales.orders ORDER BY booked_amount'),
  ('HAVING',                       'SELECT customer_country FROM sales.orders GROUP BY 1 HAVING sum(booked_amount) > 0'),
  ('JOIN ON',                      'SELECT o.id FROM sales.orders o JOIN sales.invoices i ON i.invoiced_amount = o.id'),
  ('aggregate FILTER',             'SELECT count(*) FILTER (WHERE booked_amount > 0) FROM sales.orders'),
  ('SELECT *',                     'SELECT * FROM sales.orders'),
  ('TABLE',                        'TABLE sales.orders'),
  ('whole row',                    'SELECT o FROM sales.orders o'),
  ('to_jsonb(row)',                'SELECT to_jsonb(o) FROM sales.orders o'),
  ('count(*) only',                'SELECT count(*) FROM sales.orders'),
  ('view, unused column',          'SELECT max(order_date) FROM sales.v_orders'),
  ('view, used column',            'SELECT max(booked_amount) FROM sales.v_orders'),
  ('view, whole row',              'SELECT v FROM sales.v_orders v'),
  ('view qualifying on it',        'SELECT max(order_date) FROM sales.v_open_orders'),
  ('nested view, unused',          'SELECT count(id) FROM sales.v_nested'),
  ('nested view, used',            'SELECT sum(booked_amount) FROM sales.v_nested'),
  ('aggregating view, unused',     'SELECT n FROM sales.v_totals'),
  ('aggregating view, used',       'SELECT total FROM sales.v_totals'),
  ('subquery, unused column',      'SELECT id FROM (SELECT id, booked_amount FROM sales.orders) s'),
  ('subquery, used column',        'SELECT b FROM (SELECT id, booked_amount AS b FROM sales.orders) s'),
  ('CTE, unused column',           'WITH x AS (SELECT id, booked_amount FROM sales.orders) SELECT count(id) FROM x'),
  ('materialized CTE, unused',     'WITH x AS MATERIALIZED (SELECT id, booked_amount FROM sales.orders) SELECT count(id) FROM x'),
  ('materialized CTE, used',       'WITH x AS MATERIALIZED (SELECT id, booked_amount FROM sales.orders) SELECT sum(booked_amount) FROM x'),
  ('recursive CTE',                'WITH RECURSIVE r(n, b) AS (SELECT 1, booked_amount FROM sales.orders WHERE id = 1 UNION ALL SELECT n + 1, b FROM r WHERE n < 3) SELECT n FROM r'),
  ('sublink IN',                   'SELECT id FROM sales.orders WHERE id IN (SELECT order_id FROM sales.invoices WHERE invoiced_amount > 0)'),
  ('sublink EXISTS',               'SELECT id FROM sales.orders o WHERE EXISTS (SELECT 1 FROM sales.invoices i WHERE i.order_id = o.id AND i.invoiced_amount > 0)'),
  ('scalar sublink in target',     'SELECT (SELECT max(invoiced_amount) FROM sales.invoices)'),
  ('UNION of ids',                 'SELECT id FROM sales.orders UNION SELECT id FROM sales.invoices'),
  ('UNION of amounts',             'SELECT booked_amount FROM sales.orders UNION ALL SELECT invoiced_amount FROM sales.invoices'),
  ('INTERSECT',                    'SELECT id FROM sales.orders INTERSECT SELECT order_id FROM sales.invoices WHERE invoiced_amount > 0'),
  ('INTERSECT, governed right side', 'SELECT id::numeric FROM sales.orders INTERSECT SELECT invoiced_amount FROM sales.invoices'),
  ('EXCEPT, governed right side',  'SELECT id::numeric FROM sales.orders EXCEPT SELECT invoiced_amount FROM sales.invoices'),
  ('window ORDER BY',              'SELECT id, row_number() OVER (ORDER BY booked_amount) FROM sales.orders'),
  ('window PARTITION BY',          'SELECT id, rank() OVER (PARTITION BY booked_amount ORDER BY id) FROM sales.orders'),
  ('window over ungoverned',       'SELECT id, row_number() OVER (ORDER BY order_date) FROM sales.orders'),
  ('LATERAL',                      'SELECT o.id, l.s FROM sales.orders o, LATERAL (SELECT sum(invoiced_amount) s FROM sales.invoices i WHERE i.order_id = o.id) l'),
  ('TABLESAMPLE',                  'SELECT sum(booked_amount) FROM sales.orders TABLESAMPLE SYSTEM (100)'),
  ('SRF SQL function (inlined)',   'SELECT * FROM sales.booked_rows()'),
  ('volatile SQL function',        'SELECT sales.booked_total_volatile()'),
  ('PL/pgSQL static SQL',          'SELECT sales.booked_static()'),
  ('PL/pgSQL dynamic SQL',         'SELECT sales.booked_dynamic()'),
  ('PL/pgSQL RETURN QUERY ids',    'SELECT count(*) FROM sales.order_ids()'),
  ('INSERT ... SELECT',            'INSERT INTO sales.order_log SELECT id, booked_amount::text FROM sales.orders'),
  ('INSERT values',                'INSERT INTO sales.orders (id, order_date, booked_amount) VALUES (100, ''2026-01-01'', 5)'),
  ('UPDATE SET from governed',     'UPDATE sales.orders SET status = booked_amount::text WHERE id = 100'),
  ('UPDATE WHERE governed',        'UPDATE sales.orders SET status = ''x'' WHERE booked_amount = 5'),
  ('UPDATE writing only (row exposed to errors and triggers)', 'UPDATE sales.orders SET booked_amount = 6 WHERE id = 100'),
  ('UPDATE of an ungoverned table', 'UPDATE sales.order_log SET note = note WHERE order_id = -1'),
  ('UPDATE RETURNING',             'UPDATE sales.orders SET status = ''y'' WHERE id = 100 RETURNING booked_amount'),
  ('DELETE RETURNING id',          'DELETE FROM sales.orders WHERE id = 100 RETURNING id'),
  ('DELETE RETURNING governed',    'DELETE FROM sales.orders WHERE id = 100 RETURNING booked_amount'),
  ('MERGE reading source',         'MERGE INTO sales.orders o USING sales.invoices i ON o.id = i.order_id WHEN MATCHED AND i.invoiced_amount < 0 THEN DELETE'),
  ('MERGE writing only (row exposed)', 'MERGE INTO sales.orders o USING (SELECT 1 AS id) s ON o.id = s.id WHEN MATCHED THEN UPDATE SET booked_amount = 0'),
  ('INSERT ON CONFLICT DO NOTHING', 'INSERT INTO sales.orders (id) VALUES (1) ON CONFLICT DO NOTHING'),
  ('INSERT ON CONFLICT DO UPDATE', 'INSERT INTO sales.orders (id) VALUES (1) ON CONFLICT (id) DO UPDATE SET status = ''x'''),
  ('unused set-returning column',  'SELECT count(*) FROM (SELECT generate_series(1, (booked_amount / 100)::int) FROM sales.orders WHERE id = 7) s'),
  ('unused volatile column',       'SELECT count(*) FROM (SELECT set_config(''regress.leak'', booked_amount::text, false) FROM sales.orders WHERE id = 3) s'),
  ('unused computed CTE column',   'WITH c AS MATERIALIZED (SELECT id, 1 / (booked_amount - 500) AS x FROM sales.orders) SELECT count(id) FROM c'),
  ('governed view column',         'SELECT margin FROM sales.margins'),
  ('view, its ungoverned column',  'SELECT id FROM sales.margins'),
  ('view column governed alone',   'SELECT sum(estimated_amount) FROM sales.estimates'),
  ('that view, its other column',  'SELECT count(id) FROM sales.estimates'),
  ('foreign partition of a governed parent', 'SELECT sum(amount) FROM sales.bookings WHERE booked_on >= ''2028-01-01'''),
  ('trigger fired by a write',     'INSERT INTO sales.order_notes VALUES (1, ''n'')'),
  ('CREATE TABLE AS',              'CREATE TEMP TABLE t_ctas AS SELECT booked_amount FROM sales.orders'),
  ('SELECT INTO',                  'SELECT booked_amount INTO TEMP t_into FROM sales.orders'),
  ('CREATE TABLE AS ungoverned',   'CREATE TEMP TABLE t_ctas2 AS SELECT id FROM sales.orders'),
  ('EXPLAIN',                      'EXPLAIN SELECT booked_amount FROM sales.orders'),
  ('EXPLAIN ANALYZE',              'EXPLAIN ANALYZE SELECT booked_amount FROM sales.orders'),
  ('partitioned parent',           'SELECT sum(amount) FROM sales.bookings'),
  ('partition directly',           'SELECT sum(amount) FROM sales.bookings_2026'),
  ('attached partition directly',  'SELECT sum(amount) FROM sales.bookings_2027'),
  ('partition, ungoverned column', 'SELECT max(booked_on) FROM sales.bookings_2027'),
  ('inheritance child directly',   'SELECT sum(amount) FROM sales.ledger_child'),
  ('inheritance parent ONLY',      'SELECT sum(amount) FROM ONLY sales.ledger_base')
) AS shapes (shape, sql);

-- Ordering through an index reveals the order of its key, even with the key nowhere else. (The
-- plans of this and the next groups, and of the parallel one, are shown by read_set_plans.sql.)
RESET ROLE;
CREATE INDEX orders_booked_amount_idx ON sales.orders (booked_amount);
SET enable_seqscan = off;
SET enable_sort = off;
SET ROLE regress_agent;
SELECT public.gate_state('SELECT array_agg(id) FROM (SELECT id FROM sales.orders ORDER BY booked_amount DESC LIMIT 3) s') AS index_order;
RESET ROLE;
RESET enable_seqscan;
RESET enable_sort;
DROP INDEX sales.orders_booked_amount_idx;
SET ROLE regress_agent;

-- An index's order counts only where it reaches the client or a computation that follows the
-- rows' order: not through DISTINCT or an order-insensitive window function, which keep only
-- the compared or partition columns; yes through DISTINCT ON, row_number() and a ROWS frame.
RESET ROLE;
CREATE INDEX orders_date_amount_idx ON sales.orders (order_date, booked_amount);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_sort = off;
SET enable_hashagg = off;
SET ROLE regress_agent;
SELECT shape, public.gate_state(sql) AS state FROM (VALUES
  ('DISTINCT over the index',              'SELECT DISTINCT order_date FROM sales.orders ORDER BY order_date'),
  ('DISTINCT ON over the index',           'SELECT DISTINCT ON (order_date) order_date, id FROM sales.orders ORDER BY order_date'),
  ('count() OVER (PARTITION BY)',          'SELECT n, count(*) FROM (SELECT count(*) OVER (PARTITION BY order_date) AS n FROM sales.orders) w GROUP BY n'),
  ('rank() OVER (PARTITION BY)',           'SELECT max(r) FROM (SELECT rank() OVER (PARTITION BY order_date) AS r FROM sales.orders) w'),
  ('row_number() OVER (PARTITION BY)',     'SELECT id, row_number() OVER (PARTITION BY order_date) FROM sales.orders ORDER BY id'),
  ('count() OVER a ROWS frame',            'SELECT id, count(*) OVER (PARTITION BY order_date ROWS UNBOUNDED PRECEDING) FROM sales.orders ORDER BY id')
) AS shapes (shape, sql);
-- Hashed or sorted, an order-sensitive aggregate takes each group's rows in the index's order; a
-- hash join returns an outer row's matches in the order they were hashed.
RESET enable_hashagg;
SET enable_nestloop = off;
SET enable_mergejoin = off;
SELECT shape, public.gate_state(sql) AS state FROM (VALUES
  ('hashed array_agg over the index',      'SELECT extract(quarter FROM order_date) AS q, array_agg(id) FROM sales.orders WHERE order_date > ''2026-01-01'' GROUP BY 1'),
  ('hashed array_agg with ORDER BY',       'SELECT extract(quarter FROM order_date) AS q, array_agg(id ORDER BY id) FROM sales.orders WHERE order_date > ''2026-01-01'' GROUP BY 1'),
  ('hash join, index scan hashed',         'SELECT i.id, o.id FROM sales.invoices i JOIN sales.orders o ON extract(dow FROM o.order_date) = i.order_id % 7 WHERE o.order_date > ''2026-01-01'''),
  ('hash join, rows ordered',              'SELECT i.id, o.id FROM sales.invoices i JOIN sales.orders o ON extract(dow FROM o.order_date) = i.order_id % 7 WHERE o.order_date > ''2026-01-01'' ORDER BY 1, 2'),
  ('hash join under count(*)',             'SELECT count(*) FROM sales.invoices i JOIN sales.orders o ON extract(dow FROM o.order_date) = i.order_id % 7 WHERE o.order_date > ''2026-01-01''')
) AS shapes (shape, sql);
RESET enable_sort;
RESET enable_nestloop;
RESET enable_mergejoin;
RESET ROLE;
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP INDEX sales.orders_date_amount_idx;
SET ROLE regress_agent;

-- Top-level shapes that cannot run inside a function: the client sees the gate's error.
\set VERBOSITY terse
COPY sales.orders (id, order_date) TO STDOUT;
COPY sales.orders TO STDOUT;
COPY sales.orders (booked_amount) TO STDOUT;
COPY (SELECT booked_amount FROM sales.orders) TO STDOUT;
COPY (SELECT id FROM sales.orders WHERE id < 3) TO STDOUT;
COPY sales.booked_mv TO STDOUT;
COPY sales.booked_mv (booked_amount) TO STDOUT;
EXPLAIN (COSTS OFF) SELECT booked_amount FROM sales.orders;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT booked_amount FROM sales.orders;
-- Cursors are decided when declared.
BEGIN;
DECLARE c_ids CURSOR FOR SELECT id FROM sales.orders ORDER BY id;
FETCH 2 FROM c_ids;
DECLARE c_booked CURSOR FOR SELECT booked_amount FROM sales.orders;
ROLLBACK;
-- Prepared statements are decided at every execution, under the record of that moment.
PREPARE booked_by_id(int) AS SELECT booked_amount FROM sales.orders WHERE id = $1;
EXECUTE booked_by_id(1);
SET pg_clarify.resolution = '{"question": "booked revenue of order 1", "bindings": [{"concept": "metric.booked_revenue", "source": "explicit"}]}';
EXECUTE booked_by_id(1);
RESET pg_clarify.resolution;
EXECUTE booked_by_id(1);
DEALLOCATE booked_by_id;
-- A plan's read set is traced once per catalog: governing or releasing a column a generic plan
-- reads applies at its next execution.
SET plan_cache_mode = force_generic_plan;
PREPARE status_by_id(int) AS SELECT status FROM sales.orders WHERE id = $1;
EXECUTE status_by_id(1);
EXECUTE status_by_id(1);
RESET ROLE;
INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES ('metric.booked_revenue', 'sales.orders', 'status');
SET ROLE regress_agent;
EXECUTE status_by_id(1);
EXECUTE status_by_id(1);
RESET ROLE;
DELETE FROM clarify.concept_columns WHERE relation = 'sales.orders'::regclass AND column_name = 'status';
SET ROLE regress_agent;
EXECUTE status_by_id(1);
DEALLOCATE status_by_id;
RESET plan_cache_mode;
-- A plan costs its memory context one callback however often its read set is traced again: ten
-- cached plans run in turn (more than the per-session cache holds) leave the plans' memory as is.
RESET ROLE;
CREATE FUNCTION sales.ten_plans(n int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..n LOOP
    PERFORM id FROM sales.orders WHERE id = 1;
    PERFORM order_date FROM sales.orders WHERE id = 2;
    PERFORM status FROM sales.orders WHERE id = 3;
    PERFORM id, order_date FROM sales.orders WHERE id = 4;
    PERFORM id, status FROM sales.orders WHERE id = 5;
    PERFORM order_date, status FROM sales.orders WHERE id = 6;
    PERFORM count(*) FROM sales.orders WHERE id = 7;
    PERFORM max(order_date) FROM sales.orders;
    PERFORM min(id) FROM sales.orders;
    PERFORM count(status) FROM sales.orders;
  END LOOP;
END $$;
SET ROLE regress_agent;
SELECT sales.ten_plans(3);
RESET ROLE;
SELECT sum(used_bytes) AS plans_before FROM pg_backend_memory_contexts WHERE name = 'CachedPlan' \gset
SET ROLE regress_agent;
SELECT sales.ten_plans(500);
RESET ROLE;
SELECT sum(used_bytes) - :plans_before AS plan_memory_grown FROM pg_backend_memory_contexts WHERE name = 'CachedPlan';
DROP FUNCTION sales.ten_plans(int);
SET ROLE regress_agent;
-- Memory a freed plan leaves is reused by the next plan: its read set is never the previous
-- plan's. Prepared in turn, a statement reading no governed column and one reading booked_amount.
SET plan_cache_mode = force_generic_plan;
DO $$
DECLARE
  ran int := 0;
  rejected int := 0;
BEGIN
  FOR i IN 1..50 LOOP
    EXECUTE 'PREPARE alternate(int) AS SELECT order_date FROM sales.orders WHERE id = $1';
    EXECUTE 'EXECUTE alternate(1)';
    EXECUTE 'EXECUTE alternate(2)';
    ran := ran + 1;
    EXECUTE 'DEALLOCATE alternate';
    EXECUTE 'PREPARE alternate(int) AS SELECT booked_amount FROM sales.orders WHERE id = $1';
    BEGIN
      EXECUTE 'EXECUTE alternate(1)';
    EXCEPTION WHEN OTHERS THEN
      IF SQLSTATE LIKE 'QC%' THEN rejected := rejected + 1; END IF;
    END;
    EXECUTE 'DEALLOCATE alternate';
  END LOOP;
  RAISE NOTICE 'order_date ran % times; booked_amount rejected % times', ran, rejected;
END $$;
RESET plan_cache_mode;
-- A parallel plan is decided once, in the leader.
RESET ROLE;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
-- The setting that forces parallel plans (force_parallel_mode until 15).
SELECT CASE WHEN current_setting('server_version_num')::int >= 160000 THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END AS parallel_debug \gset
SET :parallel_debug = on;
SET parallel_leader_participation = off;
SET ROLE regress_agent;
SELECT sum(booked_amount) FROM sales.orders;
SET pg_clarify.resolution = '{"question": "total booked revenue", "bindings": [{"concept": "metric.booked_revenue", "source": "explicit"}]}';
SELECT sum(booked_amount) FROM sales.orders;
RESET pg_clarify.resolution;
RESET ROLE;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET :parallel_debug;
RESET parallel_leader_participation;
\set VERBOSITY default
