-- Grain of one CTE read through several references on the same way (docs/reference.md,
-- "Grain"): a CTE's facts are traced once and copied (walk_budget.sql), unless a grouping column
-- or a GROUP BY key on the way is a column of the reference being traced: then its facts hold
-- for that reference only (the snapshot of the very scan, grain_totals.sql).
SET client_min_messages = warning;
CREATE SCHEMA gm;
CREATE TABLE gm.balances (account_id int, balance_date date, balance numeric,
                          PRIMARY KEY (account_id, balance_date));
INSERT INTO gm.balances VALUES (1, '2026-01-01', 10), (1, '2026-01-02', 10), (2, '2026-01-01', 5);
ANALYZE gm.balances;
GRANT USAGE ON SCHEMA gm TO PUBLIC;
GRANT SELECT ON ALL TABLES IN SCHEMA gm TO PUBLIC;
INSERT INTO clarify.concepts (id, kind, label, description, owner, status, additivity) VALUES
  ('metric.gm_balance', 'metric', 'Merge balance', 'Balance at the end of the day', 'Finance', 'approved', 'semi_additive');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name, snapshot_column) VALUES
  ('metric.gm_balance', 'gm.balances', 'balance', 'balance_date');
INSERT INTO clarify.terms (term, concept_id) VALUES ('merge balance', 'metric.gm_balance');

SET ROLE regress_agent;
-- Both branches read the CTE on the same way (an Append is no join); only the first groups by
-- its reference's snapshot: the second branch's balances are summed over every date.
SELECT c ->> 'state' AS state,
       (SELECT string_agg(s ->> 'kind', ', ' ORDER BY s ->> 'kind') FROM jsonb_array_elements(c -> 'slots') s) AS slots
FROM clarify.check($$WITH c AS MATERIALIZED (SELECT * FROM gm.balances)
  SELECT g, sum(m) FROM (SELECT c1.balance_date g, c1.balance m FROM c c1
                         UNION ALL SELECT NULL::date, c2.balance FROM c c2) u GROUP BY g$$) c;
-- The same with the branches the other way round (the reference traced first is not grouped).
SELECT c ->> 'state' AS state,
       (SELECT string_agg(s ->> 'kind', ', ' ORDER BY s ->> 'kind') FROM jsonb_array_elements(c -> 'slots') s) AS slots
FROM clarify.check($$WITH c AS MATERIALIZED (SELECT * FROM gm.balances)
  SELECT g, sum(m) FROM (SELECT NULL::date g, c2.balance m FROM c c2
                         UNION ALL SELECT c1.balance_date, c1.balance FROM c c1) u GROUP BY g$$) c;
-- Each branch grouped by its own reference's snapshot.
SELECT c ->> 'state' AS state,
       (SELECT string_agg(s ->> 'kind', ', ' ORDER BY s ->> 'kind') FROM jsonb_array_elements(c -> 'slots') s) AS slots
FROM clarify.check($$WITH c AS MATERIALIZED (SELECT * FROM gm.balances)
  SELECT g, sum(m) FROM (SELECT c1.balance_date g, c1.balance m FROM c c1
                         UNION ALL SELECT c2.balance_date, c2.balance FROM c c2) u GROUP BY g$$) c;
-- One reference, grouped by its snapshot: allowed.
SELECT c ->> 'state' AS state FROM clarify.check($$WITH c AS MATERIALIZED (SELECT * FROM gm.balances)
  SELECT c1.balance_date, sum(c1.balance) FROM c c1 GROUP BY c1.balance_date$$) c;
RESET ROLE;

DELETE FROM clarify.concepts WHERE id LIKE 'metric.gm_%';
DROP SCHEMA gm CASCADE;
RESET client_min_messages;
