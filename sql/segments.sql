-- Segments (docs/reference.md, "Segments"): governed filters. A scan applies a segment when every
-- conjunct of its predicate is among the scan's conditions; applying one is reading that meaning,
-- and a segment term the user said must be applied where its relation is scanned.
SET client_min_messages = warning;
CREATE TABLE sales.customers (id int PRIMARY KEY, name text, region text,
                              last_order_at date, last_login_at date, contract_active boolean);
INSERT INTO sales.customers
  SELECT g, 'c' || g, CASE WHEN g % 5 = 0 THEN 'test' ELSE 'EU' END,
         current_date - g, current_date - 2 * g, g % 3 = 0
    FROM generate_series(1, 200) g;
CREATE INDEX customers_last_order ON sales.customers (last_order_at);
CREATE INDEX customers_last_login ON sales.customers (last_login_at);
ANALYZE sales.customers;
GRANT SELECT ON sales.customers TO PUBLIC;
CREATE VIEW sales.recent_logins AS
  SELECT id, name FROM sales.customers WHERE last_login_at >= current_date - 30;
GRANT SELECT ON sales.recent_logins TO PUBLIC;
RESET client_min_messages;

-- Bad catalog input: each refused when written.
INSERT INTO clarify.concepts (id, kind, label, description, owner, status)
  VALUES ('segment.none', 'segment', 'No predicate', 'x', 'Sales', 'approved');
INSERT INTO clarify.concepts (id, kind, label, description, owner, status, segment_relation, segment_predicate)
  VALUES ('segment.bad', 'segment', 'Bad', 'x', 'Sales', 'approved', 'sales.customers', 'booked_amount > 0');
INSERT INTO clarify.concepts (id, kind, label, description, owner, status, segment_relation, segment_predicate)
  VALUES ('segment.bad', 'segment', 'Bad', 'x', 'Sales', 'approved', 'sales.customers', 'orders.id > 0');
INSERT INTO clarify.concepts (id, kind, label, description, owner, status, segment_relation, segment_predicate)
  VALUES ('segment.bad', 'segment', 'Bad', 'x', 'Sales', 'approved', 'sales.customers',
          'id IN (SELECT id FROM sales.orders)');
INSERT INTO clarify.concepts (id, kind, label, description, owner, status, segment_relation, segment_predicate)
  VALUES ('segment.bad', 'segment', 'Bad', 'x', 'Sales', 'approved', 'sales.customers', 'random() > 0.5');
INSERT INTO clarify.concepts (id, kind, label, description, owner, status, segment_relation, segment_predicate)
  VALUES ('segment.bad', 'segment', 'Bad', 'x', 'Sales', 'approved', 'sales.customers', 'last_order_at');
INSERT INTO clarify.concepts (id, kind, label, description, owner, status, segment_relation, segment_predicate)
  VALUES ('segment.bad', 'segment', 'Bad', 'x', 'Sales', 'approved', 'sales.customers', 'true) OR (1 = 1');
INSERT INTO clarify.concepts (id, kind, label, description, owner, status, segment_relation, segment_predicate)
  VALUES ('segment.bad', 'segment', 'Bad', 'x', 'Sales', 'approved', 'sales.customers', 'id > 0 ORDER BY 1');
INSERT INTO clarify.concepts (id, kind, label, description, owner, status, segment_relation, segment_predicate)
  VALUES ('segment.bad', 'segment', 'Bad', 'x', 'Sales', 'approved', 'sales.customers', 'ctid IS NOT NULL');
INSERT INTO clarify.concepts (id, kind, label, description, owner, status, segment_relation, segment_predicate)
  VALUES ('metric.bad', 'metric', 'Bad', 'x', 'Sales', 'approved', 'sales.customers', 'id > 0');

-- Three meanings of "active customers".
INSERT INTO clarify.concepts (id, kind, label, description, owner, status, segment_relation, segment_predicate) VALUES
  ('segment.purchased_30d', 'segment', 'Purchased in the last 30 days', 'Placed an order in the last 30 days', 'Sales', 'approved',
   'sales.customers', 'last_order_at >= current_date - 30'),
  ('segment.logged_in_30d', 'segment', 'Logged in in the last 30 days', 'Used the product in the last 30 days', 'Product', 'approved',
   'sales.customers', 'last_login_at >= current_date - 30'),
  ('segment.active_contract', 'segment', 'Holds an active contract', 'A signed contract, not a test account', 'Finance', 'approved',
   'sales.customers', 'contract_active AND region <> ''test''');
INSERT INTO clarify.terms (term, concept_id) VALUES
  ('active customers', 'segment.purchased_30d'), ('active customers', 'segment.logged_in_30d'),
  ('active customers', 'segment.active_contract');

-- The version rises when the predicate changes.
UPDATE clarify.concepts SET segment_predicate = 'last_order_at >= current_date - 31' WHERE id = 'segment.purchased_30d';
UPDATE clarify.concepts SET segment_predicate = 'last_order_at >= current_date - 30' WHERE id = 'segment.purchased_30d';
SELECT id, version FROM clarify.concepts WHERE kind = 'segment' ORDER BY id;

-- An agent cannot write segments.
SET ROLE regress_agent;
INSERT INTO clarify.concepts (id, kind, label, description, owner, status, segment_relation, segment_predicate)
  VALUES ('segment.mine', 'segment', 'Mine', 'x', 'Sales', 'approved', 'sales.customers', 'id > 0');
UPDATE clarify.concepts SET segment_predicate = 'id > 0' WHERE id = 'segment.purchased_30d';

-- A scan applying no segment is not a decision; one applying a segment of an ambiguous term is
-- AMBIGUOUS, asking with labels and descriptions, never the predicate.
SELECT gate_state('SELECT count(*) FROM sales.customers');
SELECT gate_state('SELECT count(*) FROM sales.customers WHERE last_order_at >= current_date - 31');
SELECT g->'detail'->>'state' AS state, s->>'kind' AS kind, s->>'term' AS term, s->'columns' AS columns,
       g->>'hint' AS hint, jsonb_path_query_array(s->'options', '$[*].label') AS labels,
       s::text LIKE '%current_date%' AS shows_predicate
  FROM gate('SELECT count(*) FROM sales.customers WHERE last_order_at >= current_date - 30') g,
       jsonb_array_elements(g->'detail'->'slots') s;
RESET ROLE;

-- A default: its segment applied is decided, another is a MISMATCH.
INSERT INTO clarify.defaults (term, concept_id, approved_by) VALUES ('active customers', 'segment.purchased_30d', 'cfo');
SET ROLE regress_agent;
CREATE FUNCTION pg_temp.applied(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE g jsonb := gate(sql);
BEGIN
  IF g ? 'sqlstate' THEN
    RETURN (g->'detail'->>'state') || ' ' || coalesce(g->'detail'->'slots'->0->>'actual', 'null');
  END IF;
  RETURN coalesce((SELECT string_agg(b->>'concept', ',' ORDER BY b->>'concept')
                     FROM jsonb_array_elements(clarify.last_decision()->'bindings') b
                    WHERE b->>'concept' LIKE 'segment.%'), 'none');
END $$;
-- Exact, commuted, constant-folded, with extra conditions, in a join's ON.
SELECT pg_temp.applied('SELECT count(*) FROM sales.customers WHERE last_order_at >= current_date - 30');
SELECT pg_temp.applied('SELECT count(*) FROM sales.customers WHERE current_date - 30 <= last_order_at');
SELECT pg_temp.applied('SELECT count(*) FROM sales.customers WHERE last_order_at >= current_date - (15 + 15)');
SELECT pg_temp.applied('SELECT count(*) FROM sales.customers c WHERE c.name <> ''x'' AND c.last_order_at >= current_date - 30 AND c.id > 0');
SELECT pg_temp.applied('SELECT count(*) FROM sales.orders o JOIN sales.customers c ON c.id = o.id AND c.last_order_at >= current_date - 30');
-- A different predicate is no segment (nothing decided: the last decision stays as it was).
SELECT c->'governed' AS governed FROM clarify.check('SELECT count(*) FROM sales.customers WHERE last_order_at >= current_date - 29') c;
SELECT c->'governed' AS governed FROM clarify.check('SELECT count(*) FROM sales.customers WHERE last_order_at > current_date - 30') c;
SELECT c->'governed' AS governed FROM clarify.check('SELECT count(*) FROM sales.customers WHERE contract_active') c;
-- A preserved side's outer-join ON restricts none of its rows.
SELECT c->'governed' AS governed FROM clarify.check('SELECT count(*) FROM sales.customers c LEFT JOIN sales.orders o ON o.id = c.id AND c.last_order_at >= current_date - 30') c;
-- Another segment applied under the default: MISMATCH; AND order is irrelevant.
SELECT pg_temp.applied('SELECT count(*) FROM sales.customers WHERE last_login_at >= current_date - 30');
SELECT pg_temp.applied('SELECT count(*) FROM sales.customers WHERE region <> ''test'' AND contract_active');
SELECT pg_temp.applied('SELECT count(*) FROM sales.customers WHERE contract_active AND region <> ''test''');
-- Applied inside a subquery, a CTE, a view and a subplan.
SELECT pg_temp.applied('SELECT count(*) FROM (SELECT id FROM sales.customers WHERE last_login_at >= current_date - 30 LIMIT 1000) s');
SELECT pg_temp.applied('WITH r AS MATERIALIZED (SELECT id FROM sales.customers WHERE last_login_at >= current_date - 30) SELECT count(*) FROM r');
SELECT pg_temp.applied('SELECT count(*) FROM sales.recent_logins');
SELECT pg_temp.applied('SELECT count(*) FROM sales.orders o WHERE EXISTS (SELECT 1 FROM sales.customers c WHERE c.id = o.id AND c.last_login_at >= current_date - 30)');
SELECT pg_temp.applied('SELECT count(*) FROM sales.orders o WHERE o.id IN (SELECT id FROM sales.customers WHERE last_order_at >= current_date - 30)');
-- Every plan decides the same: sequential, index, index-only and bitmap heap scans.
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT pg_temp.applied('SELECT count(*) FROM sales.customers WHERE last_order_at >= current_date - 30');
SELECT pg_temp.applied('SELECT count(name) FROM sales.customers WHERE last_order_at >= current_date - 30');
SELECT pg_temp.applied('SELECT count(name) FROM sales.customers WHERE current_date - 30 <= last_login_at');
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_bitmapscan = on;
SELECT pg_temp.applied('SELECT count(name) FROM sales.customers WHERE last_order_at >= current_date - 30');
SELECT pg_temp.applied('SELECT count(name) FROM sales.customers WHERE current_date - 30 <= last_login_at');
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_indexscan;
RESET enable_indexonlyscan;
-- A parameter never equals a constant (a generic plan keeps it).
SET plan_cache_mode = force_generic_plan;
PREPARE by_days(int) AS SELECT count(*) FROM sales.customers WHERE last_order_at >= current_date - $1;
SELECT c->'governed' AS governed FROM clarify.check('EXECUTE by_days(30)') c;
DEALLOCATE by_days;
RESET plan_cache_mode;

-- The question mentions "active customers": the resolved segment must be applied where its
-- relation is scanned (MISMATCH naming the predicate expected, and what was applied or null).
SET pg_clarify.resolution = '{"question_id": "q_seg1", "question": "How many active customers do we have?"}';
SELECT pg_temp.applied('SELECT count(*) FROM sales.customers WHERE last_order_at >= current_date - 30');
SELECT g->>'sqlstate' AS sqlstate, s->>'kind' AS kind, s->>'term' AS term, s->>'expected' AS expected,
       s->>'actual' AS actual, s->'columns' AS columns
  FROM gate('SELECT count(*) FROM sales.customers WHERE last_login_at >= current_date - 30') g,
       jsonb_array_elements(g->'detail'->'slots') s;
SELECT g->>'sqlstate' AS sqlstate, s->>'kind' AS kind, s->>'expected' AS expected, s->>'actual' AS actual,
       g->>'message' AS message
  FROM gate('SELECT count(*) FROM sales.customers') g, jsonb_array_elements(g->'detail'->'slots') s;
-- Nothing to ask the person when no other segment is applied: the HINT says what the statement
-- lacks; with another segment applied instead, it asks which one is meant.
SELECT g->>'hint' AS hint FROM gate('SELECT count(*) FROM sales.customers') g;
SELECT g->>'hint' AS hint
  FROM gate('SELECT count(*) FROM sales.customers WHERE last_login_at >= current_date - 30') g;
-- The same decision under every plan: a bound parameter equal to the predicate's constant is
-- still a parameter in a custom plan (SQL PREPARE, PL/pgSQL), as in the generic plan.
PREPARE within_days(int) AS SELECT count(*) FROM sales.customers WHERE last_order_at >= current_date - $1;
CREATE FUNCTION pg_temp.within(days int) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  RETURN (SELECT count(*) FROM sales.customers WHERE last_order_at >= current_date - days);
END $$;
SET plan_cache_mode = force_custom_plan;
SELECT pg_temp.applied('EXECUTE within_days(30)') AS custom_plan;
SELECT pg_temp.applied('SELECT pg_temp.within(30)') AS custom_plan;
SET plan_cache_mode = force_generic_plan;
SELECT pg_temp.applied('EXECUTE within_days(30)') AS generic_plan;
SELECT pg_temp.applied('SELECT pg_temp.within(30)') AS generic_plan;
-- The custom plan still estimates with the value: 30 days select fewer rows than 300.
CREATE FUNCTION pg_temp.scan_rows(sql text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE p json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || sql INTO p;
  RETURN (p->0->'Plan'->'Plans'->0->>'Plan Rows')::float8;
END $$;
SET plan_cache_mode = force_custom_plan;
SELECT pg_temp.scan_rows('EXECUTE within_days(30)') AS rows_30, pg_temp.scan_rows('EXECUTE within_days(300)') AS rows_300;
-- What it costs: only such statements keep the parameter; others are folded as before.
CREATE FUNCTION pg_temp.keeps_parameter(sql text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE line text; found boolean := false;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || sql LOOP
    found := found OR line LIKE '%$1%';
  END LOOP;
  RETURN found;
END $$;
PREPARE orders_after(int) AS SELECT count(*) FROM sales.orders WHERE id > $1;
SELECT pg_temp.keeps_parameter('EXECUTE within_days(30)') AS segmented_relation,
       pg_temp.keeps_parameter('EXECUTE orders_after(30)') AS other_relation;
RESET plan_cache_mode;
DEALLOCATE within_days;
DEALLOCATE orders_after;
-- A statement not scanning the relation is not concerned.
SELECT gate_state('SELECT count(*) FROM sales.invoices');

-- A binding to another segment: it must be the one applied.
SET pg_clarify.resolution = '{"question_id": "q_seg2", "question": "How many customers logged in in the last 30 days?", "bindings": [{"term": "active customers", "concept": "segment.logged_in_30d", "source": "explicit"}]}';
SELECT pg_temp.applied('SELECT count(*) FROM sales.customers WHERE last_login_at >= current_date - 30');
SELECT g->>'sqlstate' AS sqlstate, s->>'kind' AS kind, s->>'expected' AS expected, s->>'actual' AS actual
  FROM gate('SELECT count(*) FROM sales.customers WHERE last_order_at >= current_date - 30') g,
       jsonb_array_elements(g->'detail'->'slots') s;
-- The record's binding settled it: the HINT asks nothing, it says what the statement must filter.
SELECT g->>'hint' AS hint
  FROM gate('SELECT count(*) FROM sales.customers WHERE last_order_at >= current_date - 30') g;
RESET ROLE;

-- Nothing resolves a mentioned term: AMBIGUOUS (QC001, kind segment), even with no filter.
DELETE FROM clarify.defaults WHERE term = 'active customers';
SET ROLE regress_agent;
SET pg_clarify.resolution = '{"question_id": "q_seg3", "question": "How many active customers do we have?"}';
SELECT g->>'sqlstate' AS sqlstate, s->>'kind' AS kind, s->>'term' AS term, s->>'state' AS state,
       jsonb_path_query_array(s->'options', '$[*].value') AS options, g::text LIKE '%current_date%' AS shows_predicate
  FROM gate('SELECT count(*) FROM sales.customers') g, jsonb_array_elements(g->'detail'->'slots') s;
-- clarify.resolve() names the segments as for any term.
SELECT r->>'decision' AS decision, r->'options' AS options FROM clarify.resolve('active customers') r;
RESET pg_clarify.resolution;
RESET ROLE;

-- Clean up: the suites after this one see the shared fixture as it was.
SET client_min_messages = warning;
DROP VIEW sales.recent_logins;
DROP TABLE sales.customers;
DELETE FROM clarify.terms WHERE term = 'active customers';
DELETE FROM clarify.concepts WHERE kind = 'segment';
RESET client_min_messages;
