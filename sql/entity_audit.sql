-- Entity bindings are per decision, not part of the decision's shape (docs/reference.md,
-- "Tables and views"): one prepared statement run for two customers stores ONE shape in
-- clarify.audit_shapes and two clarify.audit rows, each binding its own key after the shape's
-- bindings (the order clarify.last_decision() shows).
SET client_min_messages = warning;
CREATE SCHEMA ea;
GRANT USAGE ON SCHEMA ea TO PUBLIC;
CREATE TABLE ea.clients (id int PRIMARY KEY, name text NOT NULL, city text, mrr numeric);
INSERT INTO ea.clients VALUES (1, 'Alpha', 'Berlin', 100), (2, 'Beta', 'Paris', 200),
  (3, 'Gamma', NULL, 300);
GRANT SELECT ON ea.clients TO PUBLIC;
INSERT INTO clarify.concepts (id, kind, label, status) VALUES
  ('metric.ea_mrr', 'metric', 'MRR', 'approved');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES
  ('metric.ea_mrr', 'ea.clients', 'mrr');
INSERT INTO clarify.entities (relation, name_column, key_column, label, approved_by)
  VALUES ('ea.clients', 'name', 'id', 'Client', 'Sales ops');
RESET client_min_messages;
\set VERBOSITY terse

SET ROLE regress_agent;
PREPARE ea_mrr(text) AS SELECT mrr FROM ea.clients WHERE name = $1;
EXECUTE ea_mrr('Alpha');
SELECT jsonb_pretty(clarify.last_decision()->'bindings') AS alpha_bindings;
EXECUTE ea_mrr('Beta');
SELECT jsonb_pretty(clarify.last_decision()->'bindings') AS beta_bindings;
DEALLOCATE ea_mrr;
-- No entity filter: no entity bindings.
SELECT mrr FROM ea.clients WHERE id = 3;
RESET ROLE;
SELECT clarify.audit_wait() AS visible;

-- Two decisions, one shape: the shape holds the concept's binding only.
SELECT count(*) AS decisions, count(DISTINCT shape_hash) AS shapes
  FROM clarify.audit_log l JOIN clarify.audit_texts t ON t.hash = l.statement_hash
 WHERE t.body LIKE 'PREPARE ea_mrr%';
SELECT jsonb_pretty(s.bindings) AS shape_bindings
  FROM clarify.audit_shapes s
 WHERE s.hash IN (SELECT l.shape_hash FROM clarify.audit_log l
                    JOIN clarify.audit_texts t ON t.hash = l.statement_hash
                   WHERE t.body LIKE 'PREPARE ea_mrr%');
-- Each audit row binds its own key, after the shape's bindings.
SELECT decision, state, jsonb_pretty(bindings) AS bindings
  FROM clarify.audit WHERE statement LIKE 'PREPARE ea_mrr%'
 ORDER BY decision_id;
SELECT l.entity_bindings, l.entity_bindings IS NULL AS none
  FROM clarify.audit_log l JOIN clarify.audit_texts t ON t.hash = l.statement_hash
 WHERE (t.body LIKE 'PREPARE ea_mrr%' OR t.body LIKE 'SELECT mrr FROM ea.clients WHERE id = 3%')
 ORDER BY l.decision_id;
-- A decision without entity bindings shows the shape's bindings as they are.
SELECT bindings = (SELECT s.bindings FROM clarify.audit_shapes s
                    JOIN clarify.audit_log l ON l.shape_hash = s.hash
                   WHERE l.decision_id = a.decision_id) AS shape_bindings_unchanged
  FROM clarify.audit a WHERE statement LIKE 'SELECT mrr FROM ea.clients WHERE id = 3%';

DELETE FROM clarify.entities;
DELETE FROM clarify.concept_columns WHERE relation = 'ea.clients'::regclass;
DELETE FROM clarify.concepts WHERE id = 'metric.ea_mrr';
SET client_min_messages = warning;
DROP SCHEMA ea CASCADE;
RESET client_min_messages;
