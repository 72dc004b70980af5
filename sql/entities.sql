-- Entities (docs/reference.md, "Entities"; contract §14): a gated statement that filters a
-- registered name column by a name several rows share is asked which one; a name no row has is
-- refused with the names that start alike; one row runs, its key in the audit binding.
SET client_min_messages = warning;
CREATE SCHEMA crm;
GRANT USAGE ON SCHEMA crm TO PUBLIC;
CREATE TABLE crm.customers (id int PRIMARY KEY, name text NOT NULL, city text, plan text,
                            code text, mrr numeric, secret text);
CREATE INDEX customers_name_idx ON crm.customers (name);
INSERT INTO crm.customers VALUES
  (1, 'Acme Corp', 'Berlin', 'Enterprise', 'A1', 3000, 's1'),
  (2, 'Acme Corp', 'Paris', NULL, 'A2', 2100, 's2'),
  (3, 'Acme Labs', NULL, NULL, 'A3', 500, 's3'),
  (4, 'Globex', 'Springfield', 'Team', 'G1', 900, 's4'),
  (5, 'acme corp', 'Oslo', 'Team', 'A4', 10, 's5');
GRANT SELECT (id, name, city, plan, code, mrr) ON crm.customers TO PUBLIC;
CREATE TABLE crm.orders (id int PRIMARY KEY, customer_id int, amount numeric);
INSERT INTO crm.orders VALUES (10, 1, 100), (11, 2, 200), (12, 4, 300);
GRANT SELECT ON crm.orders TO PUBLIC;
INSERT INTO clarify.concepts (id, kind, label, description, owner, status) VALUES
  ('metric.crm_mrr', 'metric', 'Monthly recurring revenue', 'Subscription revenue per month', 'Finance', 'approved');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES
  ('metric.crm_mrr', 'crm.customers', 'mrr');
RESET client_min_messages;
\set VERBOSITY terse

-- Bad input is refused, with a clear error, and changes nothing.
INSERT INTO clarify.entities (relation, name_column, key_column, label, approved_by)
  VALUES ('crm.customers', 'nmae', 'id', 'Customer', 'Sales ops');
INSERT INTO clarify.entities (relation, name_column, key_column, label, detail_columns, approved_by)
  VALUES ('crm.customers', 'name', 'id', 'Customer', '{city,tier}', 'Sales ops');
INSERT INTO clarify.entities (relation, name_column, key_column, label, approved_by)
  VALUES ('crm.customers', 'name', 'code', 'Customer', 'Sales ops');
INSERT INTO clarify.entities (relation, name_column, key_column, label, detail_columns, approved_by)
  VALUES ('crm.customers', 'name', 'id', 'Customer', '{city,mrr}', 'Sales ops');
INSERT INTO clarify.entities (relation, name_column, key_column, label, approved_by)
  VALUES ('crm.customers', 'mrr', 'id', 'Customer', 'Sales ops');
INSERT INTO clarify.entities (relation, name_column, key_column, label, approved_by)
  VALUES ('crm.customers', 'name', 'id', 'Customer', '  ');
INSERT INTO clarify.entities (relation, name_column, key_column, label, max_options, approved_by)
  VALUES ('crm.customers', 'name', 'id', 'Customer', 0, 'Sales ops');
INSERT INTO clarify.entities (relation, name_column, key_column, label, match, approved_by)
  VALUES ('crm.customers', 'name', 'id', 'Customer', 'fuzzy', 'Sales ops');
SELECT count(*) AS registered FROM clarify.entities;
-- A key declared unique in clarify.unique_keys is proven.
BEGIN;
INSERT INTO clarify.unique_keys (relation, columns, approved_by) VALUES ('crm.customers', '{code}', 'Sales ops');
INSERT INTO clarify.entities (relation, name_column, key_column, label, approved_by)
  VALUES ('crm.customers', 'name', 'code', 'Customer', 'Sales ops');
ROLLBACK;

INSERT INTO clarify.entities (relation, name_column, key_column, label, detail_columns, max_options, approved_by)
  VALUES ('crm.customers', 'name', 'id', 'Customer', '{city,plan,secret}', 3, 'Sales ops');

-- An agent may read the registrations but not change them.
SET ROLE regress_agent;
SELECT label, match FROM clarify.entities;
INSERT INTO clarify.entities (relation, name_column, key_column, label, approved_by)
  VALUES ('crm.orders', 'id', 'id', 'Order', 'me');
UPDATE clarify.entities SET max_options = 100;
DELETE FROM clarify.entities;

-- Two customers are named "Acme Corp" (three case-insensitively): which one? Options show the
-- details the agent may read (not secret), NULLs left out.
SELECT g->>'sqlstate' AS sqlstate, g->>'message' AS message, g->>'hint' AS hint,
       jsonb_pretty(g->'detail'->'slots'->0) AS slot
  FROM gate($$SELECT sum(mrr) FROM crm.customers WHERE name = 'Acme Corp'$$) g;
-- A name no customer has: UNSUPPORTED, with the customers whose names start alike.
SELECT g->>'sqlstate' AS sqlstate, g->>'message' AS message,
       g->'detail'->'slots'->0->'options' AS options, g->'detail'->'slots'->0->'truncated' AS truncated
  FROM gate($$SELECT sum(mrr) FROM crm.customers WHERE name = 'Acmee'$$) g;
SELECT g->'detail'->'slots'->0->'options' AS options
  FROM gate($$SELECT id FROM crm.customers WHERE name = 'Zeta'$$) g;
-- One customer: the statement runs (it reads no governed column, yet it is decided and audited).
SELECT id, city FROM crm.customers WHERE name = 'Globex';
SELECT clarify.last_decision()->'bindings' AS bindings;
RESET ROLE;
SELECT clarify.audit_wait() AS visible;
SELECT state, bindings FROM clarify.audit WHERE statement LIKE '%''Globex''' ORDER BY decision_id DESC LIMIT 1;
SET ROLE regress_agent;
-- Every form of naming: IN, = ANY, OR, LIKE and ILIKE without wildcards, lower(), casts, COLLATE.
SELECT gate_state($$SELECT id FROM crm.customers WHERE name IN ('Globex', 'Acme Labs')$$) AS in_list,
       gate_state($$SELECT id FROM crm.customers WHERE name IN ('Globex', 'Acme Corp')$$) AS in_ambiguous,
       gate_state($$SELECT id FROM crm.customers WHERE name = ANY ('{Acme Corp}'::text[])$$) AS any_array,
       gate_state($$SELECT id FROM crm.customers WHERE name = 'Globex' OR name = 'Acme Corp'$$) AS ors,
       gate_state($$SELECT id FROM crm.customers WHERE name LIKE 'Acme Corp'$$) AS like_name,
       gate_state($$SELECT id FROM crm.customers WHERE name ILIKE 'ACME CORP'$$) AS ilike_name,
       gate_state($$SELECT id FROM crm.customers WHERE lower(name) = lower('ACME CORP')$$) AS lower_name,
       gate_state($$SELECT id FROM crm.customers WHERE name::varchar = 'Acme Corp'$$) AS cast_name,
       gate_state($$SELECT id FROM crm.customers WHERE name COLLATE "C" = 'Acme Corp'$$) AS collate_name;
-- Patterns are deliberate sets, values computed from data are no names, a name filtered
-- together with the key is never ambiguous: they run.
SELECT gate_state($$SELECT id FROM crm.customers WHERE name LIKE 'Acme%'$$) AS pattern,
       gate_state($$SELECT id FROM crm.customers WHERE name ILIKE 'acme_corp'$$) AS underscore,
       gate_state($$SELECT id FROM crm.customers WHERE name = (SELECT name FROM crm.customers WHERE id = 1)$$) AS subquery_value,
       gate_state($$SELECT id FROM crm.customers WHERE name IN (SELECT name FROM crm.customers WHERE id = 2)$$) AS in_subquery,
       gate_state($$SELECT id FROM crm.customers WHERE name = 'Acme Corp' AND id = 2$$) AS key_filter,
       gate_state($$SELECT id FROM crm.customers WHERE name = 'Acme Corp' OR id = 2$$) AS or_other;
-- check() reports the same slots, looking the names up as the caller.
SELECT c->>'state' AS state, c->'governed' AS governed, c->'slots'->0->>'kind' AS kind,
       c->'slots'->0->'options'->0 AS first_option
  FROM clarify.check($$SELECT sum(mrr) FROM crm.customers WHERE name = 'Acme Corp'$$) c;
SELECT c->>'state' AS state, c->'bindings' AS bindings
  FROM clarify.check($$SELECT id FROM crm.customers WHERE name = 'Globex'$$) c;
SELECT c->>'state' AS state FROM clarify.check($$SELECT id FROM crm.customers WHERE name = 'Acmee'$$) c;
-- The agent resolves by key.
SELECT sum(mrr) FROM crm.customers WHERE id = 1;
-- Every scan of the relation: joins, subqueries, CTEs, views, set operations, EXISTS.
CREATE TEMP VIEW acme_orders AS
  SELECT o.amount FROM crm.orders o JOIN crm.customers c ON c.id = o.customer_id WHERE c.name = 'Acme Corp';
SELECT gate_state($$SELECT sum(o.amount) FROM crm.orders o JOIN crm.customers c ON c.id = o.customer_id AND c.name = 'Acme Corp'$$) AS join_on,
       gate_state($$SELECT * FROM (SELECT id FROM crm.customers WHERE name = 'Acme Corp') s$$) AS subquery,
       gate_state($$WITH a AS MATERIALIZED (SELECT id FROM crm.customers WHERE name = 'Acme Corp') SELECT * FROM a$$) AS cte,
       gate_state($$SELECT * FROM acme_orders$$) AS a_view,
       gate_state($$SELECT id FROM crm.customers WHERE name = 'Globex' UNION SELECT id FROM crm.customers WHERE name = 'Acme Corp'$$) AS set_op,
       gate_state($$SELECT id FROM crm.orders o WHERE EXISTS (SELECT 1 FROM crm.customers c WHERE c.id = o.customer_id AND c.name = 'Acme Corp')$$) AS semi_join,
       gate_state($$SELECT (SELECT count(*) FROM crm.customers WHERE name = 'Acme Corp') FROM crm.orders$$) AS subplan;
-- The preserved side of an outer join is not restricted by its ON condition: no name.
SELECT gate_state($$SELECT c.id FROM crm.customers c LEFT JOIN crm.orders o ON o.customer_id = c.id AND c.name = 'Acme Corp'$$) AS preserved_side;
-- More customers than max_options (3) named alike: the first three, truncated.
RESET ROLE;
INSERT INTO crm.customers VALUES (6, 'Acme Corp', 'Rome', NULL, 'A6', 1, 's6'), (7, 'Acme Corp', 'Madrid', NULL, 'A7', 1, 's7');
SET ROLE regress_agent;
SELECT g->'detail'->'slots'->0->'options' AS options, g->'detail'->'slots'->0->'truncated' AS truncated
  FROM gate($$SELECT id FROM crm.customers WHERE name = 'Acme Corp'$$) g;

-- A prepared statement: its parameter decides per execution, under custom and generic plans.
PREPARE by_name(text) AS SELECT count(*) FROM crm.customers WHERE name = $1;
EXECUTE by_name('Globex');
EXECUTE by_name('Acme Corp');
SET plan_cache_mode = force_generic_plan;
PREPARE by_name_generic(text) AS SELECT count(*) FROM crm.customers WHERE name = $1;
EXECUTE by_name_generic('Acme Corp');
EXECUTE by_name_generic('Globex');
EXECUTE by_name_generic('Acme%');
PREPARE by_like(text) AS SELECT count(*) FROM crm.customers WHERE name LIKE $1;
EXECUTE by_like('Acme%');
EXECUTE by_like('Acme Corp');
PREPARE by_list(text[]) AS SELECT count(*) FROM crm.customers WHERE name = ANY ($1);
EXECUTE by_list('{Globex,Acme Labs}');
EXECUTE by_list('{Globex,Nobody}');
RESET plan_cache_mode;
DEALLOCATE ALL;

-- match = exact: "acme corp" is another name than "Acme Corp".
RESET ROLE;
UPDATE clarify.entities SET match = 'exact';
DELETE FROM crm.customers WHERE id IN (2, 6, 7);
SET ROLE regress_agent;
SELECT gate_state($$SELECT id FROM crm.customers WHERE name = 'Acme Corp'$$) AS exact_one,
       gate_state($$SELECT id FROM crm.customers WHERE name ILIKE 'Acme Corp'$$) AS ilike_still_folds;
RESET ROLE;

-- A role the gate does not govern is not asked.
SELECT count(*) FROM crm.customers WHERE name = 'acme corp' OR name = 'Acme Corp';
