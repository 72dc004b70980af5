-- What a fanout slot says repeats the rows (docs/reference.md, "Grain"): the relations a join
-- repeats, or the rows more than one branch of a UNION ALL reads, or both.
SET client_min_messages = warning;
CREATE SCHEMA gw;
CREATE TABLE gw.orders (id int PRIMARY KEY, currency text, amount numeric);
CREATE TABLE gw.order_notes (order_id int, note text);
INSERT INTO gw.orders VALUES (1, 'EUR', 10), (2, 'USD', 20);
GRANT USAGE ON SCHEMA gw TO PUBLIC;
GRANT SELECT ON ALL TABLES IN SCHEMA gw TO PUBLIC;
INSERT INTO clarify.concepts (id, kind, label, description, owner, status) VALUES
  ('metric.gw_value', 'metric', 'Order value', 'Value of an order', 'Sales', 'approved');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES
  ('metric.gw_value', 'gw.orders', 'amount');
INSERT INTO clarify.terms (term, concept_id) VALUES ('order value', 'metric.gw_value');

SET ROLE regress_agent;
CREATE FUNCTION pg_temp.fanout(sql text) RETURNS TABLE (state text, reason text, via jsonb) AS $$
  SELECT c ->> 'state', s ->> 'reason', s -> 'via'
  FROM clarify.check(sql) c, jsonb_array_elements(c -> 'slots') s WHERE s ->> 'kind' = 'fanout'
$$ LANGUAGE sql;
-- Two branches of a UNION ALL read the same orders: no join is named.
SELECT * FROM pg_temp.fanout($$SELECT sum(amount) FROM (SELECT amount FROM gw.orders WHERE currency = 'EUR'
  UNION ALL SELECT amount FROM gw.orders WHERE currency = 'USD') s$$);
-- A join that repeats the orders.
SELECT * FROM pg_temp.fanout($$SELECT sum(o.amount) FROM gw.orders o JOIN gw.order_notes n ON n.order_id = o.id$$);
-- Both: a branch joins, and both branches read the orders.
SELECT * FROM pg_temp.fanout($$SELECT sum(a) FROM (SELECT o.amount a FROM gw.orders o JOIN gw.order_notes n ON n.order_id = o.id
  UNION ALL SELECT amount FROM gw.orders) s$$);
-- The HINT says how to read the rows once.
SET pg_clarify.resolution = '{"question_id": "gw", "question": "order value by currency", "bindings": [{"term": "order value", "concept": "metric.gw_value", "source": "explicit"}]}';
DO $$
DECLARE hint text;
BEGIN
  PERFORM sum(amount) FROM (SELECT amount FROM gw.orders WHERE currency = 'EUR'
    UNION ALL SELECT amount FROM gw.orders WHERE currency = 'USD') s;
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS hint = PG_EXCEPTION_HINT;
  RAISE WARNING '% %', SQLSTATE, hint;
END $$;
RESET pg_clarify.resolution;
RESET ROLE;
