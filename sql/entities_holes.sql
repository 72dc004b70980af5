-- Entities (docs/dba-guide.md, "Entities"; contract §14): a key the agent may not read, names
-- that are one by the match rule, concept mappings added onto an entity's columns, and the key
-- bound per execution while the decision is reused.
SET client_min_messages = warning;
CREATE SCHEMA ent;
GRANT USAGE ON SCHEMA ent TO PUBLIC;
CREATE TABLE ent.clients (id int PRIMARY KEY, name text NOT NULL, city text, tier text, mrr numeric);
INSERT INTO ent.clients VALUES
  (1, 'Acme', 'Berlin', 'gold', 10), (2, 'Globex', 'Paris', 'gold', 20), (3, 'Initech', 'Oslo', NULL, 30);
GRANT SELECT ON ent.clients TO PUBLIC;
INSERT INTO clarify.concepts (id, kind, label, description, owner, status) VALUES
  ('metric.ent_mrr', 'metric', 'Client MRR', 'Subscription revenue per month', 'Finance', 'approved'),
  ('dimension.ent_tier', 'dimension', 'Client tier', 'The client''s support tier', 'Sales', 'approved');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES
  ('metric.ent_mrr', 'ent.clients', 'mrr');
INSERT INTO clarify.entities (relation, name_column, key_column, label, detail_columns, approved_by)
  VALUES ('ent.clients', 'name', 'id', 'Client', '{city}', 'Sales ops');
RESET client_min_messages;
\set VERBOSITY terse

-- A concept mapping added later onto an entity's name, key or detail column is refused, as the
-- entity is refused on a governed column; nothing changes.
INSERT INTO clarify.concept_columns (concept_id, relation, column_name)
  VALUES ('dimension.ent_tier', 'ent.clients', 'name');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name)
  VALUES ('dimension.ent_tier', 'ent.clients', 'id');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name)
  VALUES ('dimension.ent_tier', 'ent.clients', 'city');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name)
  VALUES ('dimension.ent_tier', 'ent.clients', 'tier');
UPDATE clarify.concept_columns SET column_name = 'city'
 WHERE concept_id = 'dimension.ent_tier' AND relation = 'ent.clients'::regclass;
SELECT concept_id, column_name FROM clarify.concept_columns
 WHERE relation = 'ent.clients'::regclass ORDER BY 1;
-- A rename the catalog follows is the same column: still governed, nothing refused.
ALTER TABLE ent.clients RENAME COLUMN tier TO support_tier;
SELECT concept_id, column_name FROM clarify.concept_columns
 WHERE relation = 'ent.clients'::regclass ORDER BY 1;
DELETE FROM clarify.concept_columns WHERE concept_id = 'dimension.ent_tier';

-- match = case_insensitive: "Acme" and "ACME" are one name, looked up once (the relation's
-- scans in this transaction: the statement's one and one lookup).
SET ROLE regress_agent;
BEGIN;
SELECT pg_stat_get_xact_numscans('ent.clients'::regclass) AS before \gset
SELECT id FROM ent.clients WHERE name IN ('Acme', 'ACME', 'acme');
SELECT pg_stat_get_xact_numscans('ent.clients'::regclass) - :before AS scans;
SELECT jsonb_array_length(clarify.last_decision()->'bindings') AS bindings,
       clarify.last_decision()->'bindings'->0->>'value' AS value;
COMMIT;
-- Under match = exact they are two names, and no client is named "ACME".
RESET ROLE;
UPDATE clarify.entities SET match = 'exact' WHERE relation = 'ent.clients'::regclass;
SET ROLE regress_agent;
SELECT g->>'sqlstate' AS sqlstate, g->'detail'->'slots'->0->>'value' AS value
  FROM gate($$SELECT id FROM ent.clients WHERE name IN ('Acme', 'ACME')$$) g;
RESET ROLE;
UPDATE clarify.entities SET match = 'case_insensitive' WHERE relation = 'ent.clients'::regclass;

-- A prepared statement run with another name each time: each decision's binding names its own
-- key, in clarify.last_decision() and in clarify.audit.
SET ROLE regress_agent;
PREPARE client_mrr(text) AS SELECT mrr FROM ent.clients WHERE name = $1;
EXECUTE client_mrr('Acme');
SELECT clarify.last_decision()->'bindings' AS bindings;
EXECUTE client_mrr('Globex');
SELECT clarify.last_decision()->'bindings' AS bindings;
EXECUTE client_mrr('Initech');
SELECT clarify.last_decision()->'bindings' AS bindings;
EXECUTE client_mrr('Globex');
DEALLOCATE client_mrr;
RESET ROLE;
SELECT clarify.audit_wait() AS visible;
SELECT state, jsonb_path_query_array(bindings, '$[*] ? (@.kind == "entity")') AS entity
  FROM clarify.audit WHERE statement LIKE '%FROM ent.clients WHERE name = $1'
 ORDER BY decision_id DESC LIMIT 4;

-- The key column unreadable by the agent (column privileges): UNSUPPORTED, saying so without
-- any key value, and the HINT names the grant.
REVOKE SELECT ON ent.clients FROM PUBLIC;
GRANT SELECT (name, city, mrr) ON ent.clients TO PUBLIC;
SET ROLE regress_agent;
SELECT g->>'sqlstate' AS sqlstate, g->>'message' AS message, g->>'hint' AS hint,
       jsonb_pretty(g->'detail'->'slots'->0) AS slot
  FROM gate($$SELECT sum(mrr) FROM ent.clients WHERE name = 'Acme'$$) g;
SELECT c->>'state' AS state, c->'slots'->0->>'reason' AS reason
  FROM clarify.check($$SELECT city FROM ent.clients WHERE name = 'Globex'$$) c;
-- A filter on the key alone names no entity: the key's privilege is the statement's business.
SELECT g->>'sqlstate' AS sqlstate, g->>'message' AS message
  FROM gate($$SELECT city FROM ent.clients WHERE id = 1$$) g;
RESET ROLE;

DELETE FROM clarify.entities;
DELETE FROM clarify.concept_columns WHERE relation = 'ent.clients'::regclass;
DELETE FROM clarify.concepts WHERE id IN ('metric.ent_mrr', 'dimension.ent_tier');
SET client_min_messages = warning;
DROP SCHEMA ent CASCADE;
RESET client_min_messages;
