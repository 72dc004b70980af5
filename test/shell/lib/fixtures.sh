# shellcheck shell=bash
# Fixtures the shell tests share (sourced by tap.sh): print SQL a test feeds to psql. The revenue
# example itself is examples/revenue.sql (loaded by dump_restore.t, restore_roles.t,
# security_check.t, security_gate.t, upgrade.t); these are the smaller schemas of the audit tests.

# booked_orders_sql [RELATION]: the table RELATION (default orders) with one row, id 1 and
# booked_amount 10. booked_catalog_sql [RELATION]: its booked_amount as the approved concept
# metric.booked, named by the term `revenue` (needs pg_clarify installed). Roles, grants and
# governed roles are the test's own.
booked_orders_sql() {
    cat <<SQL
CREATE TABLE ${1:-orders} (id int, booked_amount numeric);
INSERT INTO ${1:-orders} VALUES (1, 10);
SQL
}
booked_catalog_sql() {
    cat <<SQL
INSERT INTO clarify.concepts (id, kind, label, status) VALUES ('metric.booked', 'metric', 'Booked revenue', 'approved');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES ('metric.booked', '${1:-orders}', 'booked_amount');
INSERT INTO clarify.terms (term, concept_id) VALUES ('revenue', 'metric.booked');
SQL
}

# fault_schema_sql: the schema the fault and durability tests load with agent_load.py: the agent
# role regress_fault_agent (kept if it exists), fault.orders with a booked and an invoiced
# revenue, the term `revenue` defaulting to booked. Needs the library preloaded.
fault_schema_sql() {
    cat <<'SQL'
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'regress_fault_agent') THEN
    CREATE ROLE regress_fault_agent LOGIN;
  END IF;
END $$;
CREATE EXTENSION pg_clarify;
CREATE SCHEMA fault;
CREATE TABLE fault.orders AS SELECT g AS id, g * 1.5 AS booked_amount, g * 1.4 AS invoiced_amount FROM generate_series(1, 1000) g;
ALTER TABLE fault.orders ADD PRIMARY KEY (id);
GRANT USAGE ON SCHEMA fault TO regress_fault_agent;
GRANT SELECT ON fault.orders TO regress_fault_agent;
INSERT INTO clarify.concepts (id, kind, label, status) VALUES
  ('metric.booked', 'metric', 'Booked revenue', 'approved'),
  ('metric.invoiced', 'metric', 'Invoiced revenue', 'approved');
INSERT INTO clarify.concept_columns VALUES ('metric.booked', 'fault.orders', 'booked_amount'),
                                           ('metric.invoiced', 'fault.orders', 'invoiced_amount');
INSERT INTO clarify.terms VALUES ('revenue', 'metric.booked'), ('revenue', 'metric.invoiced');
INSERT INTO clarify.defaults (term, concept_id, approved_by) VALUES ('revenue', 'metric.booked', 'fault harness');
SELECT clarify.govern_role('regress_fault_agent');
SQL
}

