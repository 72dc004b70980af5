-- Roles and columns by name (CONTRACT.md §18): rows hold role names and the names of governed
-- columns; renames are followed, a role or column that does not exist yet is kept, not refused.
BEGIN;
SELECT plan(22);

CREATE ROLE "Regress Mixed";
CREATE ROLE regress_names_agent;
INSERT INTO clarify.concepts (id, kind, label, status) VALUES
    ('metric.regress_names', 'metric', 'Names revenue', 'approved');
INSERT INTO clarify.terms (term, concept_id) VALUES ('regress_names', 'metric.regress_names');

SELECT col_type_is('clarify', 'agent_roles', 'agent_role', 'text', 'agent_roles.agent_role is a role name');
SELECT col_type_is('clarify', 'defaults', 'applies_to', 'text', 'defaults.applies_to is a role name');
SELECT col_type_is('clarify', 'approvals', 'granted_to', 'text', 'approvals.granted_to is a role name');
SELECT col_type_is('clarify', 'concept_columns', 'relation', 'regclass', 'concept_columns.relation stays a regclass');

-- Roles: the exact name, also from a regrole in its quoted output form.
SELECT clarify.govern_role('"Regress Mixed"');
SELECT is((SELECT role_oid FROM clarify.agent_roles WHERE agent_role = 'Regress Mixed'),
          '"Regress Mixed"'::regrole::oid, 'govern_role stores the exact name and its OID');
SELECT lives_ok($$SELECT clarify.release_role('"Regress Mixed"')$$, 'release_role finds it');
SELECT is((SELECT clarify.confirm('q_regress_names', 'regress_names', 'metric.regress_names',
                                  '"Regress Mixed"', 'user:alice', '1 hour') > 0), true,
          'confirm takes a regrole');
SELECT is((SELECT granted_to::text FROM clarify.approvals WHERE question_id = 'q_regress_names'),
          'Regress Mixed', 'the approval names the role as it is spelled');

-- A role that does not exist (a restore before CREATE ROLE) is kept by name, without an OID.
SELECT lives_ok($$INSERT INTO clarify.agent_roles (agent_role) VALUES ('regress_names_later')$$,
                'a row for a role that does not exist yet is accepted');
SELECT is((SELECT role_oid FROM clarify.agent_roles WHERE agent_role = 'regress_names_later'), NULL,
          'it has no OID');
SELECT lives_ok($$INSERT INTO clarify.agent_roles (agent_role, role_oid) VALUES ('regress_names_agent', 1)$$,
                'an OID given with a name');
SELECT is((SELECT role_oid FROM clarify.agent_roles WHERE agent_role = 'regress_names_agent'),
          'regress_names_agent'::regrole::oid, 'is replaced by the OID of the name (a dump''s is another cluster''s)');

-- ALTER ROLE ... RENAME: the rows take the new name, also the row written before the role existed.
CREATE ROLE regress_names_later;
ALTER ROLE regress_names_later RENAME TO regress_names_renamed;
ALTER ROLE regress_names_agent RENAME TO regress_names_agent2;
SELECT results_eq($$SELECT agent_role::text FROM clarify.agent_roles
                     WHERE agent_role LIKE 'regress_names%' ORDER BY 1$$,
                  ARRAY['regress_names_agent2', 'regress_names_renamed'],
                  'agent_roles follow ALTER ROLE ... RENAME');

-- Columns: names kept and followed.
CREATE SCHEMA regress_names;
CREATE TABLE regress_names.orders (id int, amount numeric);
INSERT INTO clarify.concept_columns (concept_id, relation, column_name)
    VALUES ('metric.regress_names', 'regress_names.orders', 'amount');
SELECT is((SELECT schema_name || '.' || table_name FROM clarify.concept_columns
            WHERE concept_id = 'metric.regress_names'), 'regress_names.orders',
          'a mapping written with a regclass records the names');
SELECT throws_ok(
    $$INSERT INTO clarify.concept_columns (concept_id, relation, column_name)
        VALUES ('metric.regress_names', 'regress_names.orders', 'no_such_column')$$,
    '42703', 'column "no_such_column" does not exist in relation "regress_names.orders"',
    'a column that does not exist is still refused');
ALTER TABLE regress_names.orders RENAME COLUMN amount TO booked;
ALTER TABLE regress_names.orders RENAME TO orders2;
SELECT is((SELECT table_name || '.' || column_name || ' ' || relation::text
             FROM clarify.concept_columns WHERE concept_id = 'metric.regress_names'),
          'orders2.booked regress_names.orders2', 'renames of table and column are followed');
ALTER TABLE regress_names.orders2 DROP COLUMN booked;
SELECT is((SELECT column_name || ' ' || coalesce(attnum::text, 'none')
             FROM clarify.concept_columns WHERE concept_id = 'metric.regress_names'),
          'booked none', 'a dropped column''s mapping is kept with its name');
ALTER TABLE regress_names.orders2 ADD COLUMN booked numeric;
SELECT is((SELECT attnum FROM clarify.concept_columns WHERE concept_id = 'metric.regress_names'),
          (SELECT attnum FROM pg_attribute WHERE attrelid = 'regress_names.orders2'::regclass
              AND attname = 'booked'),
          'a column of that name added again is governed again');
DROP TABLE regress_names.orders2;
CREATE TABLE regress_names.orders2 (booked numeric);
SELECT is((SELECT relation FROM clarify.concept_columns WHERE concept_id = 'metric.regress_names'),
          'regress_names.orders2'::regclass, 'a table of that name created again is governed again');

-- Restored rows: the names win over an OID of another cluster; nothing of them existing is kept.
DELETE FROM clarify.concept_columns WHERE concept_id = 'metric.regress_names';
SELECT lives_ok(
    $$INSERT INTO clarify.concept_columns (concept_id, relation, column_name, schema_name, table_name)
        VALUES ('metric.regress_names', 1259, 'booked', 'regress_names', 'orders2'),
               ('metric.regress_names', 99999999, 'gone', 'regress_names', 'gone_table')$$,
    'restored mappings are accepted, also of a relation that does not exist');
SELECT results_eq($$SELECT relation::text || ' ' || coalesce(attnum::text, 'none')
                      FROM clarify.concept_columns WHERE concept_id = 'metric.regress_names'
                     ORDER BY column_name$$,
                  ARRAY['regress_names.orders2 1', '99999999 none'],
                  'the names choose the relation; a mapping of nothing existing waits for it');
SELECT is((SELECT count(*)::int FROM pg_event_trigger WHERE evtname LIKE 'clarify_%'), 2,
          'two event triggers follow DDL');

SELECT * FROM finish();
ROLLBACK;
