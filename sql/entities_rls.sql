-- Entities under row-level security (docs/dba-guide.md, "Entities"): the lookup runs as the
-- agent, so an agent that sees one "Acme" of three runs, and one that sees three is asked.
SET client_min_messages = warning;
CREATE TABLE crm.accounts (id int PRIMARY KEY, name text NOT NULL, region text);
INSERT INTO crm.accounts VALUES (1, 'Acme', 'eu'), (2, 'Acme', 'us'), (3, 'Acme', 'apac'), (4, 'Initech', 'eu');
ALTER TABLE crm.accounts ENABLE ROW LEVEL SECURITY;
CREATE POLICY eu_only ON crm.accounts FOR SELECT TO regress_agent USING (region = 'eu');
CREATE POLICY all_rows ON crm.accounts FOR SELECT TO regress_finance_agent USING (true);
GRANT SELECT ON crm.accounts TO regress_agent, regress_finance_agent;
INSERT INTO clarify.entities (relation, name_column, key_column, label, detail_columns, approved_by)
  VALUES ('crm.accounts', 'name', 'id', 'Account', '{region}', 'Sales ops');
RESET client_min_messages;
\set VERBOSITY terse

SET ROLE regress_agent;
SELECT id, region FROM crm.accounts WHERE name = 'Acme';
SELECT clarify.last_decision()->'bindings' AS bindings;
RESET ROLE;
SET ROLE regress_finance_agent;
SELECT g->>'sqlstate' AS sqlstate, g->'detail'->'slots'->0->'options' AS options
  FROM gate($$SELECT id FROM crm.accounts WHERE name = 'Acme'$$) g;
RESET ROLE;
DELETE FROM clarify.entities;
