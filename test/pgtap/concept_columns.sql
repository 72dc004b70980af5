-- Governed columns: a mapping must name a real, readable column, or it would govern nothing.
BEGIN;
SELECT plan(23);

CREATE SCHEMA regress_sales;
CREATE TABLE regress_sales.orders (
    id                int PRIMARY KEY,
    booked_amount     numeric,
    recognized_amount numeric,
    gone              int
);
ALTER TABLE regress_sales.orders DROP COLUMN gone;
CREATE VIEW regress_sales.orders_v AS SELECT id, booked_amount AS amount FROM regress_sales.orders;
CREATE MATERIALIZED VIEW regress_sales.orders_mv AS SELECT id, booked_amount FROM regress_sales.orders;
CREATE TABLE regress_sales.orders_part (id int, amount numeric) PARTITION BY RANGE (id);
CREATE FOREIGN DATA WRAPPER regress_fdw;
CREATE SERVER regress_server FOREIGN DATA WRAPPER regress_fdw;
CREATE FOREIGN TABLE regress_sales.orders_remote (id int, amount numeric) SERVER regress_server;
CREATE SEQUENCE regress_sales.order_numbers;
CREATE TYPE regress_sales.money_pair AS (amount numeric, currency text);

INSERT INTO clarify.concepts (id, kind, label, status) VALUES
    ('metric.regress_booked', 'metric', 'Booked revenue', 'approved'),
    ('metric.regress_recognized', 'metric', 'Recognized revenue', 'approved');

-- Readable relations are accepted.
SELECT lives_ok(
    $$INSERT INTO clarify.concept_columns VALUES ('metric.regress_booked', 'regress_sales.orders', 'booked_amount')$$,
    'a table column can be governed');
SELECT lives_ok(
    $$INSERT INTO clarify.concept_columns VALUES ('metric.regress_booked', 'regress_sales.orders_v', 'amount')$$,
    'a view column can be governed');
SELECT lives_ok(
    $$INSERT INTO clarify.concept_columns VALUES ('metric.regress_booked', 'regress_sales.orders_mv', 'booked_amount')$$,
    'a materialized view column can be governed');
SELECT lives_ok(
    $$INSERT INTO clarify.concept_columns VALUES ('metric.regress_booked', 'regress_sales.orders_part', 'amount')$$,
    'a partitioned table column can be governed');
SELECT lives_ok(
    $$INSERT INTO clarify.concept_columns VALUES ('metric.regress_booked', 'regress_sales.orders_remote', 'amount')$$,
    'a foreign table column can be governed');
SELECT lives_ok(
    $$INSERT INTO clarify.concept_columns VALUES ('metric.regress_recognized', 'regress_sales.orders', 'booked_amount')$$,
    'a column may carry several meanings');

-- Columns that do not exist.
SELECT throws_ok(
    $$INSERT INTO clarify.concept_columns VALUES ('metric.regress_booked', 'regress_sales.orders', 'nope')$$,
    '42703', 'column "nope" does not exist in relation "regress_sales.orders"',
    'a missing column is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.concept_columns VALUES ('metric.regress_booked', 'regress_sales.orders', 'gone')$$,
    '42703', 'column "gone" does not exist in relation "regress_sales.orders"',
    'a dropped column is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.concept_columns VALUES ('metric.regress_booked', 'regress_sales.orders', 'ctid')$$,
    '42703', 'column "ctid" does not exist in relation "regress_sales.orders"',
    'a system column is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.concept_columns VALUES ('metric.regress_booked', 'regress_sales.orders', 'Booked_Amount')$$,
    '42703', 'column "Booked_Amount" does not exist in relation "regress_sales.orders"',
    'column names are matched exactly, as PostgreSQL stores them');
SELECT throws_ok(
    $$UPDATE clarify.concept_columns SET column_name = 'nope'
       WHERE concept_id = 'metric.regress_booked' AND relation = 'regress_sales.orders'::regclass$$,
    '42703', 'column "nope" does not exist in relation "regress_sales.orders"',
    'an update to a missing column is refused');
SELECT throws_ok(
    $$UPDATE clarify.concept_columns SET relation = 'regress_sales.orders_v'
       WHERE concept_id = 'metric.regress_recognized'$$,
    '42703', 'column "booked_amount" does not exist in relation "regress_sales.orders_v"',
    'moving a mapping to a relation without that column is refused');

-- Relations without readable columns.
SELECT throws_ok(
    $$INSERT INTO clarify.concept_columns VALUES ('metric.regress_booked', 'regress_sales.orders_pkey', 'id')$$,
    '42809', 'relation "regress_sales.orders_pkey" is not a table, view, materialized view or foreign table',
    'an index is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.concept_columns VALUES ('metric.regress_booked', 'regress_sales.order_numbers', 'last_value')$$,
    '42809', 'relation "regress_sales.order_numbers" is not a table, view, materialized view or foreign table',
    'a sequence is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.concept_columns VALUES ('metric.regress_booked', 'regress_sales.money_pair', 'amount')$$,
    '42809', 'relation "regress_sales.money_pair" is not a table, view, materialized view or foreign table',
    'a composite type is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.concept_columns VALUES ('metric.regress_booked', 0, 'amount')$$,
    '42P01', 'relation with OID 0 does not exist',
    'a dangling relation OID is refused');

-- Unknown concepts and missing values.
SELECT throws_ok(
    $$INSERT INTO clarify.concept_columns VALUES ('metric.regress_nope', 'regress_sales.orders', 'booked_amount')$$,
    '23503', 'insert or update on table "concept_columns" violates foreign key constraint "concept_columns_concept_id_fkey"',
    'a mapping to an unknown concept is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.concept_columns VALUES ('metric.regress_booked', 'regress_sales.orders', NULL)$$,
    '23502', NULL, 'a column name is required');
SELECT throws_ok(
    $$INSERT INTO clarify.concept_columns VALUES ('metric.regress_booked', 'regress_sales.orders', 'booked_amount')$$,
    '23505', NULL, 'a mapping is recorded once');

SELECT set_eq(
    $$SELECT concept_id, relation::text, column_name::text FROM clarify.concept_columns
       WHERE concept_id LIKE 'metric.regress%'$$,
    $$VALUES ('metric.regress_booked', 'regress_sales.orders', 'booked_amount'),
             ('metric.regress_booked', 'regress_sales.orders_v', 'amount'),
             ('metric.regress_booked', 'regress_sales.orders_mv', 'booked_amount'),
             ('metric.regress_booked', 'regress_sales.orders_part', 'amount'),
             ('metric.regress_booked', 'regress_sales.orders_remote', 'amount'),
             ('metric.regress_recognized', 'regress_sales.orders', 'booked_amount')$$,
    'refused statements changed nothing');

-- A virtual generated column (18) is never read as itself, only the columns its expression
-- uses: governing it would govern nothing. A stored one is a real column.
CREATE TABLE regress_sales.orders_generated (
    id     int,
    amount numeric,
    stored numeric GENERATED ALWAYS AS (amount * 2) STORED
);
DO $$
BEGIN
    IF current_setting('server_version_num')::int >= 180000 THEN
        EXECUTE 'ALTER TABLE regress_sales.orders_generated
                 ADD COLUMN doubled numeric GENERATED ALWAYS AS (amount * 2) VIRTUAL';
    END IF;
END
$$;
SELECT lives_ok(
    $$INSERT INTO clarify.concept_columns VALUES ('metric.regress_recognized', 'regress_sales.orders_generated', 'stored')$$,
    'a stored generated column can be governed');
SELECT CASE WHEN current_setting('server_version_num')::int >= 180000 THEN throws_ok(
    $$INSERT INTO clarify.concept_columns VALUES ('metric.regress_recognized', 'regress_sales.orders_generated', 'doubled')$$,
    '0A000', 'column "doubled" of relation "regress_sales.orders_generated" is a virtual generated column',
    'a virtual generated column cannot be governed')
  ELSE skip('virtual generated columns exist from PostgreSQL 18', 1) END;

-- A mapped column dropped later must not block renaming its concept.
ALTER TABLE regress_sales.orders DROP COLUMN recognized_amount;
INSERT INTO clarify.concepts (id, kind, label) VALUES ('metric.regress_orphan', 'metric', 'Orphan');
ALTER TABLE clarify.concept_columns DISABLE TRIGGER concept_columns_check;
INSERT INTO clarify.concept_columns VALUES ('metric.regress_orphan', 'regress_sales.orders', 'recognized_amount');
ALTER TABLE clarify.concept_columns ENABLE TRIGGER concept_columns_check;
SELECT lives_ok(
    $$UPDATE clarify.concepts SET id = 'metric.regress_orphan2' WHERE id = 'metric.regress_orphan'$$,
    'renaming a concept whose mapped column was dropped still cascades');

SELECT * FROM finish();
ROLLBACK;
