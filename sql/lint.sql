-- clarify.lint() (docs/dba-guide.md, "Rolling out"): what in the catalog will surprise users,
-- each with a fix to paste. In a database of its own: none for a clean catalog, then one row per
-- planted problem. Owner only.
SELECT current_database() AS regress_database \gset
CREATE DATABASE regress_clarify_lint;
\c regress_clarify_lint
SET client_min_messages = warning;
CREATE EXTENSION pg_clarify;
RESET client_min_messages;
CREATE TABLE public.orders (id int PRIMARY KEY, booked numeric, invoiced numeric, mrr numeric, balance numeric, as_of date);
CREATE TABLE public.doomed (id int, amount numeric);
CREATE ROLE regress_lint_agent;
CREATE ROLE regress_lint_app;
SELECT clarify.govern_role('regress_lint_agent');
INSERT INTO clarify.concepts (id, kind, label, description, status) VALUES
  ('metric.booked', 'metric', 'Booked revenue', 'Accepted orders', 'approved'),
  ('metric.invoiced', 'metric', 'Invoiced revenue', 'Billed', 'approved'),
  ('metric.mrr', 'metric', 'Monthly recurring revenue', 'Subscriptions', 'approved');
INSERT INTO clarify.concepts (id, kind, label, description, status, additivity) VALUES
  ('metric.balance', 'metric', 'Account balance', 'End of day balance', 'approved', 'semi_additive');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES
  ('metric.booked', 'public.orders', 'booked'), ('metric.invoiced', 'public.orders', 'invoiced'),
  ('metric.mrr', 'public.orders', 'mrr');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name, snapshot_column) VALUES
  ('metric.balance', 'public.orders', 'balance', 'as_of');
INSERT INTO clarify.terms (term, concept_id) VALUES
  ('revenue', 'metric.booked'), ('revenue', 'metric.invoiced'), ('mrr', 'metric.mrr'),
  ('balance', 'metric.balance');
INSERT INTO clarify.defaults (term, concept_id, applies_to, approved_by) VALUES
  ('revenue', 'metric.booked', 'regress_lint_agent', 'dba');
-- A clean catalog: nothing.
SELECT count(*) AS problems_in_a_clean_catalog FROM clarify.lint();

-- Planted: a one-meaning term beside a several-meanings term for the same concept.
INSERT INTO clarify.terms (term, concept_id) VALUES ('revenue', 'metric.mrr');
-- A mapping whose table no longer exists, one whose column no longer exists.
INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES ('metric.booked', 'public.doomed', 'amount');
ALTER TABLE public.orders ADD COLUMN legacy numeric;
INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES ('metric.invoiced', 'public.orders', 'legacy');
SET client_min_messages = error;
DROP TABLE public.doomed;
ALTER TABLE public.orders DROP COLUMN legacy;
RESET client_min_messages;
-- An inverted window and an empty one.
INSERT INTO clarify.concepts (id, kind, label, status, window_start, window_end) VALUES
  ('window.inverted', 'time_window', 'Inverted quarter', 'approved', 'date_trunc(''quarter'', now())', 'date_trunc(''quarter'', now()) - interval ''3 months'''),
  ('window.empty', 'time_window', 'Empty quarter', 'approved', 'date_trunc(''quarter'', now())', 'date_trunc(''quarter'', now())');
-- A default and an approval for a role that is not governed.
INSERT INTO clarify.defaults (term, concept_id, applies_to, approved_by) VALUES
  ('revenue', 'metric.invoiced', 'regress_lint_app', 'dba');
INSERT INTO clarify.approvals (question_id, term, concept_id, granted_to, confirmed_by, expires_at)
  VALUES ('q_lint', 'revenue', 'metric.booked', 'regress_lint_app', 'user@example.com', now() + interval '1 hour');
-- A draft concept and a deprecated one mapped to columns.
INSERT INTO clarify.concepts (id, kind, label, status) VALUES
  ('metric.draft', 'metric', 'Draft revenue', 'draft'), ('metric.old', 'metric', 'Old revenue', 'deprecated');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES
  ('metric.draft', 'public.orders', 'booked'), ('metric.old', 'public.orders', 'invoiced');
-- (The dead mapping added to metric.booked changed its definition: the default for revenue,
-- approved before, is stale.)
-- A semi-additive measure without a snapshot column.
UPDATE clarify.concept_columns SET snapshot_column = NULL WHERE concept_id = 'metric.balance';

SELECT severity, object, regexp_replace(problem, ': it starts .*', '') AS problem, fix
FROM clarify.lint();

-- Each fix, pasted, clears its row (the role's: governing it). A fix that changes a mapping
-- changes its concept's definition again, so the stale defaults' fixes are pasted last, as
-- lint() says them then.
SELECT string_agg(fix, E'\n') AS fixes FROM clarify.lint()
 WHERE fix NOT LIKE 'SELECT clarify.govern_role%' AND object NOT LIKE 'clarify.defaults id %' \gset
SET client_min_messages = error;
SELECT clarify.govern_role('regress_lint_app');
:fixes
SELECT string_agg(fix, E'\n') AS fixes FROM clarify.lint() WHERE object LIKE 'clarify.defaults id %' \gset
:fixes
RESET client_min_messages;
SELECT severity, object FROM clarify.lint();

-- Entities and segments over governed columns (contract §17). An entity's detail column mapped
-- to a concept (the catalog refuses it both ways; a restore with triggers off can leave it),
-- and a segment whose predicate reads a governed column; a segment whose predicate no longer
-- parses is left out, the rest still reported.
CREATE TABLE public.customers (id int PRIMARY KEY, name text, city text, spend numeric, last_order date, gone int);
INSERT INTO clarify.concepts (id, kind, label, description, status) VALUES
  ('metric.spend', 'metric', 'Customer spend', 'Lifetime spend', 'approved');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES
  ('metric.spend', 'public.customers', 'spend');
SET session_replication_role = replica;
INSERT INTO clarify.entities (relation, name_column, key_column, label, detail_columns, approved_by)
  VALUES ('public.customers', 'name', 'id', 'Customer', '{city,spend}', 'dba');
RESET session_replication_role;
INSERT INTO clarify.concepts (id, kind, label, description, status, segment_relation, segment_predicate) VALUES
  ('segment.big', 'segment', 'Big customer', 'Spent over 1000', 'approved', 'public.customers', 'spend > 1000 AND city IS NOT NULL'),
  ('segment.recent', 'segment', 'Recent customer', 'Ordered this month', 'approved', 'public.customers', 'last_order >= current_date - 30'),
  ('segment.doomed', 'segment', 'Doomed', 'Reads a column to be dropped', 'approved', 'public.customers', 'gone = 1');
ALTER TABLE public.customers DROP COLUMN gone;
SELECT severity, object, problem, fix FROM clarify.lint()
 WHERE object LIKE 'entity %' OR object LIKE 'concept %segment.%' ORDER BY object;
-- Each fix, pasted (the entity's: the detail column dropped), clears the entity's row.
SELECT string_agg(fix, E'\n') AS fixes FROM clarify.lint() WHERE object LIKE 'entity %' \gset
:fixes
SELECT detail_columns FROM clarify.entities;
SELECT count(*) AS entity_rows FROM clarify.lint() WHERE object LIKE 'entity %';
DELETE FROM clarify.concepts WHERE kind = 'segment';

-- Owner only.
SET ROLE regress_lint_agent;
SELECT * FROM clarify.lint();
RESET ROLE;
\c :regress_database
DROP DATABASE regress_clarify_lint WITH (FORCE);
DROP ROLE regress_lint_agent;
DROP ROLE regress_lint_app;
