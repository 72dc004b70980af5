-- Grain declarations (docs/dba-guide.md, "Grain"): declared unique keys, additivity, allowed
-- aggregates and snapshot columns the gate could not apply are refused and change nothing.
BEGIN;
SELECT plan(26);

CREATE SCHEMA regress_shop;
CREATE TABLE regress_shop.orders (id int PRIMARY KEY, order_date date, amount numeric, gone int);
ALTER TABLE regress_shop.orders DROP COLUMN gone;
CREATE TABLE regress_shop.balances (account_id int, snapshot_date date, balance numeric);
CREATE VIEW regress_shop.orders_v AS SELECT id, amount FROM regress_shop.orders;
CREATE SEQUENCE regress_shop.numbers;
INSERT INTO clarify.concepts (id, kind, label, status, additivity) VALUES
    ('metric.regress_amount', 'metric', 'Amount', 'approved', 'additive'),
    ('metric.regress_balance', 'metric', 'Balance', 'approved', 'semi_additive'),
    ('dim.regress_country', 'dimension', 'Country', 'approved', 'additive');

-- unique_keys
SELECT lives_ok(
    $$INSERT INTO clarify.unique_keys (relation, columns, approved_by) VALUES ('regress_shop.balances', '{account_id,snapshot_date}', 'dba')$$,
    'a key of existing columns with an approver is accepted');
SELECT throws_ok(
    $$INSERT INTO clarify.unique_keys (relation, columns, approved_by) VALUES ('regress_shop.balances', '{account_id,nope}', 'dba')$$,
    '42703', 'column "nope" does not exist in relation "regress_shop.balances"',
    'an unknown column is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.unique_keys (relation, columns, approved_by) VALUES ('regress_shop.orders', '{gone}', 'dba')$$,
    '42703', NULL, 'a dropped column is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.unique_keys (relation, columns, approved_by) VALUES ('regress_shop.orders', '{ctid}', 'dba')$$,
    '42703', NULL, 'a system column is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.unique_keys (relation, columns, approved_by) VALUES (999999, '{id}', 'dba')$$,
    '42P01', 'relation with OID 999999 does not exist', 'an unknown relation is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.unique_keys (relation, columns, approved_by) VALUES ('regress_shop.numbers', '{last_value}', 'dba')$$,
    '42809', NULL, 'a sequence is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.unique_keys (relation, columns, approved_by) VALUES ('regress_shop.orders', '{id}', '  ')$$,
    '23514', 'unique key of "regress_shop.orders" must name who approved it (approved_by is empty)',
    'an empty approved_by is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.unique_keys (relation, columns, approved_by) VALUES ('regress_shop.orders', '{}', 'dba')$$,
    '23514', NULL, 'a key without columns is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.unique_keys (relation, columns, approved_by) VALUES ('regress_shop.orders', '{id}', NULL)$$,
    '23514', NULL, 'a NULL approved_by is refused');
SELECT throws_ok(
    $$UPDATE clarify.unique_keys SET columns = '{nope}' WHERE relation = 'regress_shop.balances'::regclass$$,
    '42703', NULL, 'an update to an unknown column is refused');
SELECT is(
    (SELECT string_agg(relation::text || ' ' || columns::text, '; ') FROM clarify.unique_keys
      WHERE relation::text LIKE 'regress_shop.%'),
    'regress_shop.balances {account_id,snapshot_date}',
    'refused keys changed nothing');

-- additivity and allowed_aggregates
SELECT throws_ok(
    $$UPDATE clarify.concepts SET additivity = 'semi_additive' WHERE id = 'dim.regress_country'$$,
    '23514', 'concept "dim.regress_country" is a dimension: additivity and allowed_aggregates describe metrics only',
    'additivity on a dimension is refused');
SELECT throws_ok(
    $$UPDATE clarify.concepts SET allowed_aggregates = '{count}' WHERE id = 'dim.regress_country'$$,
    '23514', NULL, 'allowed_aggregates on a dimension is refused');
SELECT throws_ok(
    $$UPDATE clarify.concepts SET additivity = 'sometimes' WHERE id = 'metric.regress_amount'$$,
    '23514', NULL, 'an unknown additivity is refused');
SELECT throws_ok(
    $$UPDATE clarify.concepts SET allowed_aggregates = '{sum,upper}' WHERE id = 'metric.regress_amount'$$,
    '22023', 'allowed_aggregates of concept "metric.regress_amount": "upper" is not an aggregate function',
    'an entry that is not an aggregate is refused');
SELECT throws_ok(
    $$UPDATE clarify.concepts SET allowed_aggregates = '{}' WHERE id = 'metric.regress_amount'$$,
    '23514', NULL, 'an empty list is refused (NULL allows every aggregate)');
SELECT throws_ok(
    $$UPDATE clarify.concepts SET allowed_aggregates = ARRAY['sum', NULL] WHERE id = 'metric.regress_amount'$$,
    '22023', NULL, 'a NULL entry is refused');
SELECT lives_ok(
    $$UPDATE clarify.concepts SET allowed_aggregates = '{sum,avg}' WHERE id = 'metric.regress_amount'$$,
    'aggregate names are accepted');
SELECT is(
    (SELECT string_agg(id || ' ' || additivity || ' ' || coalesce(allowed_aggregates::text, '-'), '; ' ORDER BY id)
       FROM clarify.concepts WHERE id LIKE '%.regress_%'),
    'dim.regress_country additive -; metric.regress_amount additive {sum,avg}; metric.regress_balance semi_additive -',
    'refused updates changed nothing');
-- How a measure may be aggregated is part of its meaning: the audit's concept version moves.
SELECT is((SELECT version FROM clarify.concepts WHERE id = 'metric.regress_amount'), 2,
          'changing allowed_aggregates gives a new version');
UPDATE clarify.concepts SET additivity = 'non_additive' WHERE id = 'metric.regress_amount';
SELECT is((SELECT version FROM clarify.concepts WHERE id = 'metric.regress_amount'), 3,
          'changing additivity gives a new version');

-- snapshot_column
SELECT lives_ok(
    $$INSERT INTO clarify.concept_columns (concept_id, relation, column_name, snapshot_column) VALUES ('metric.regress_balance', 'regress_shop.balances', 'balance', 'snapshot_date')$$,
    'a snapshot column of a semi-additive metric is accepted');
SELECT throws_ok(
    $$INSERT INTO clarify.concept_columns (concept_id, relation, column_name, snapshot_column) VALUES ('metric.regress_amount', 'regress_shop.orders', 'amount', 'order_date')$$,
    '23514', 'concept "metric.regress_amount" is not semi_additive: only a semi_additive metric has a snapshot column',
    'a snapshot column on an additive metric is refused');
SELECT throws_ok(
    $$INSERT INTO clarify.concept_columns (concept_id, relation, column_name, snapshot_column) VALUES ('metric.regress_balance', 'regress_shop.orders', 'amount', 'nope')$$,
    '42703', 'snapshot column "nope" does not exist in relation "regress_shop.orders"',
    'a snapshot column not in the relation is refused');
SELECT throws_ok(
    $$UPDATE clarify.concepts SET additivity = 'additive' WHERE id = 'metric.regress_balance'$$,
    '23514', NULL, 'a metric with snapshot columns stays semi-additive');
SELECT is(
    (SELECT string_agg(concept_id || ' ' || relation::text || ' ' || snapshot_column, '; ')
       FROM clarify.concept_columns WHERE concept_id LIKE '%.regress_%'),
    'metric.regress_balance regress_shop.balances snapshot_date',
    'refused mappings changed nothing');

SELECT * FROM finish();
ROLLBACK;
