-- Units (docs/reference.md, "Units and time zones"): an aggregate of a measure whose rows carry
-- their currency must not add amounts in different currencies (QC006, slot kind unit); grouped by
-- the currency of the scan it aggregates, or every scan fixed to one and the same currency, runs.
SET client_min_messages = warning;
-- PostgreSQL 18 removes a self-join on a unique key (enable_self_join_elimination), which would
-- leave shape 12 one scan whose own currency is fixed; off, every version plans the two scans the
-- shape is about.
DO $$ BEGIN
    IF current_setting('server_version_num')::int >= 180000 THEN
        SET enable_self_join_elimination = off;
    END IF;
END $$;
CREATE SCHEMA fx;
CREATE TABLE fx.subscriptions (id int PRIMARY KEY, customer text, currency text, mrr numeric,
                               rate numeric, plan char(3));
CREATE TABLE fx.invoices (id int PRIMARY KEY, subscription_id int REFERENCES fx.subscriptions,
                          currency text, amount numeric);
CREATE VIEW fx.eur_subscriptions AS
    SELECT id, customer, currency, mrr FROM fx.subscriptions WHERE currency = 'EUR';
CREATE VIEW fx.all_subscriptions AS SELECT id, customer, currency, mrr FROM fx.subscriptions;
INSERT INTO fx.subscriptions
SELECT g, 'c' || g % 3, (ARRAY['EUR', 'USD', 'JPY'])[1 + g % 3], 100 * g, 1 + g % 3, 'pro'
FROM generate_series(1, 12) g;
INSERT INTO fx.invoices SELECT g, 1 + g % 12, (ARRAY['EUR', 'USD', 'JPY'])[1 + g % 3], 10 * g
FROM generate_series(1, 24) g;
ANALYZE fx.subscriptions, fx.invoices;
GRANT USAGE ON SCHEMA fx TO PUBLIC;
GRANT SELECT ON ALL TABLES IN SCHEMA fx TO PUBLIC;

INSERT INTO clarify.concepts (id, kind, label, description, owner, status) VALUES
  ('metric.fx_mrr', 'metric', 'Monthly recurring revenue', 'MRR in the billing currency', 'Finance', 'approved'),
  ('metric.fx_invoiced', 'metric', 'Invoiced amount', 'Invoice totals', 'Finance', 'approved');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name, unit_column) VALUES
  ('metric.fx_mrr', 'fx.subscriptions', 'mrr', 'currency'),
  ('metric.fx_invoiced', 'fx.invoices', 'amount', 'currency');
INSERT INTO clarify.terms (term, concept_id) VALUES
  ('mrr', 'metric.fx_mrr'), ('invoiced', 'metric.fx_invoiced');

-- The state and the slot kinds of the gate's answer.
CREATE FUNCTION public.unit_gate(sql text) RETURNS text LANGUAGE sql AS $$
  SELECT coalesce(g->'detail'->>'state', g->>'sqlstate', 'ok')
         || coalesce(' ' || (SELECT string_agg(s->>'kind', ',') FROM jsonb_array_elements(g->'detail'->'slots') s), '')
  FROM public.gate(sql) g $$;
GRANT EXECUTE ON FUNCTION public.unit_gate(text) TO PUBLIC;

CREATE TABLE public.unit_shapes (n int PRIMARY KEY, expect text, shape text, sql text);
GRANT SELECT ON public.unit_shapes TO PUBLIC;
INSERT INTO public.unit_shapes VALUES
-- Mixing currencies: refused.
 (1, 'GRAIN unit', 'sum across currencies', $$SELECT sum(mrr) FROM fx.subscriptions$$),
 (2, 'GRAIN unit', 'avg across currencies', $$SELECT avg(mrr) FROM fx.subscriptions$$),
 (3, 'GRAIN unit', 'max across currencies (not exempt)', $$SELECT max(mrr) FROM fx.subscriptions$$),
 (4, 'GRAIN unit', 'min across currencies (not exempt)', $$SELECT min(mrr) FROM fx.subscriptions$$),
 (5, 'GRAIN unit', 'grouped by another column', $$SELECT customer, sum(mrr) FROM fx.subscriptions GROUP BY customer$$),
 (6, 'GRAIN unit', 'IN of two currencies', $$SELECT sum(mrr) FROM fx.subscriptions WHERE currency IN ('EUR', 'USD')$$),
 (7, 'GRAIN unit', 'window partitioned by another column', $$SELECT id, sum(mrr) OVER (PARTITION BY customer) FROM fx.subscriptions$$),
 (8, 'GRAIN unit', 'window over everything', $$SELECT id, sum(mrr) OVER () FROM fx.subscriptions$$),
 (9, 'GRAIN unit', 'through a view', $$SELECT sum(mrr) FROM fx.all_subscriptions$$),
 (10, 'GRAIN unit', 'through a subquery', $$SELECT sum(m) FROM (SELECT mrr AS m FROM fx.subscriptions OFFSET 0) s$$),
 (11, 'GRAIN unit', 'grouped by the currency of another scan (self-join)', $$SELECT b.currency, sum(a.mrr) FROM fx.subscriptions a JOIN fx.subscriptions b ON b.id = a.id + 1 GROUP BY b.currency$$),
 (12, 'GRAIN unit', 'fixed currency of another scan (self-join)', $$SELECT sum(a.mrr) FROM fx.subscriptions a JOIN fx.subscriptions b ON b.id = a.id WHERE b.currency = 'EUR'$$),
 (13, 'GRAIN unit', 'a converted sum', $$SELECT sum(mrr * rate) FROM fx.subscriptions$$),
 (14, 'GRAIN unit,unit', 'UNION ALL of an EUR and a USD scan (two measures)', $$SELECT sum(m) FROM (SELECT mrr m FROM fx.subscriptions WHERE currency = 'EUR' UNION ALL SELECT amount FROM fx.invoices WHERE currency = 'USD') s$$),
 (15, 'GRAIN unit', 'grouped by the currency of the joined subscription, summing the invoice', $$SELECT s.currency, sum(i.amount) FROM fx.invoices i JOIN fx.subscriptions s ON s.id = i.subscription_id GROUP BY s.currency$$),
 (16, 'GRAIN unit,unit', 'two values the gate cannot compare', $$SELECT sum(m) FROM (SELECT mrr m FROM fx.subscriptions WHERE currency = current_setting('fx.a') UNION ALL SELECT amount FROM fx.invoices WHERE currency = current_setting('fx.a')) s$$),
 (19, 'GRAIN fanout,unit', 'UNION ALL of an EUR and a USD scan of one table', $$SELECT sum(m) FROM (SELECT mrr m FROM fx.subscriptions WHERE currency = 'EUR' UNION ALL SELECT mrr FROM fx.subscriptions WHERE currency = 'USD') s$$),
 (17, 'GRAIN unit', 'currency compared, not fixed', $$SELECT sum(mrr) FROM fx.subscriptions WHERE currency <> 'EUR'$$),
 (18, 'GRAIN unit', 'one currency OR another', $$SELECT sum(mrr) FROM fx.subscriptions WHERE currency = 'EUR' OR currency = 'USD'$$),
-- One currency per total: run.
 (101, 'ok', 'grouped by the currency', $$SELECT currency, sum(mrr) FROM fx.subscriptions GROUP BY currency$$),
 (102, 'ok', 'filtered to one currency', $$SELECT sum(mrr) FROM fx.subscriptions WHERE currency = 'EUR'$$),
 (103, 'ok', 'IN of one currency', $$SELECT sum(mrr) FROM fx.subscriptions WHERE currency IN ('EUR')$$),
 (104, 'ok', 'count runs across currencies', $$SELECT count(mrr) FROM fx.subscriptions$$),
 (105, 'ok', 'count(DISTINCT) runs across currencies', $$SELECT count(DISTINCT mrr) FROM fx.subscriptions$$),
 (106, 'ok', 'max per currency', $$SELECT currency, max(mrr) FROM fx.subscriptions GROUP BY currency$$),
 (107, 'ok', 'window partitioned by the currency', $$SELECT id, sum(mrr) OVER (PARTITION BY currency) FROM fx.subscriptions$$),
 (108, 'ok', 'window over one currency', $$SELECT id, sum(mrr) OVER () FROM fx.subscriptions WHERE currency = 'JPY'$$),
 (109, 'ok', 'through a view fixing the currency', $$SELECT sum(mrr) FROM fx.eur_subscriptions$$),
 (110, 'ok', 'through a view, grouped by its currency', $$SELECT currency, sum(mrr) FROM fx.all_subscriptions GROUP BY currency$$),
 (111, 'ok', 'through a subquery, grouped by the currency', $$SELECT c, sum(m) FROM (SELECT currency c, mrr m FROM fx.subscriptions OFFSET 0) s GROUP BY c$$),
 (112, 'ok', 'rows listed', $$SELECT id, currency, mrr FROM fx.subscriptions$$),
 (113, 'ok', 'rows listed, converted', $$SELECT id, mrr * rate FROM fx.subscriptions$$),
 (114, 'ok', 'UNION ALL of two EUR scans of different rows', $$SELECT sum(m) FROM (SELECT mrr m FROM fx.subscriptions WHERE currency = 'EUR' AND id < 5 UNION ALL SELECT amount FROM fx.invoices WHERE currency = 'EUR') s$$),
 (115, 'ok', 'self-join, grouped by the aggregated scan''s currency', $$SELECT a.currency, sum(a.mrr) FROM fx.subscriptions a JOIN fx.subscriptions b ON b.id = a.id GROUP BY a.currency$$),
 (116, 'ok', 'grouped by the currency and another column', $$SELECT customer, currency, sum(mrr) FROM fx.subscriptions GROUP BY customer, currency$$),
 (117, 'ok', 'count(*) across currencies', $$SELECT count(*) FROM fx.subscriptions$$),
 (118, 'ok', 'the currency fixed by a statement parameter', $$SELECT sum(mrr) FROM fx.subscriptions WHERE currency = current_setting('fx.a')$$);

SET fx.a = 'EUR';
SET fx.b = 'USD';
SET ROLE regress_agent;
SELECT n, shape, expect, unit_gate(sql) AS got FROM public.unit_shapes ORDER BY n;
SELECT count(*) AS shapes, count(*) FILTER (WHERE unit_gate(sql) <> expect) AS wrong
FROM public.unit_shapes;
-- The same decisions under other join methods, and with bound parameters.
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT 'nested loops' AS plans, count(*) FILTER (WHERE unit_gate(sql) <> expect) AS wrong FROM public.unit_shapes;
RESET enable_hashjoin;
RESET enable_mergejoin;
PREPARE one_currency(text) AS SELECT sum(mrr) FROM fx.subscriptions WHERE currency = $1;
SELECT unit_gate($$EXECUTE one_currency('USD')$$) AS prepared_one_currency;
PREPARE two_currencies(text, text) AS
    SELECT sum(m) FROM (SELECT mrr m FROM fx.subscriptions WHERE currency = $1
                        UNION ALL SELECT amount FROM fx.invoices WHERE currency = $2) s;
SELECT unit_gate($$EXECUTE two_currencies('EUR', 'USD')$$) AS prepared_two_currencies;
SELECT unit_gate($$EXECUTE two_currencies('EUR', 'EUR')$$) AS prepared_one_currency_twice;
DEALLOCATE ALL;

-- What the agent receives: the slot, its reason, and the HINT (group by the currency or filter one).
SELECT gate($$SELECT sum(mrr) FROM fx.subscriptions$$);
SELECT gate($$SELECT max(amount) FROM fx.invoices$$) -> 'detail' -> 'slots' -> 0 ->> 'reason' AS reason;
RESET ROLE;

-- Bad input refused: an unknown unit column, a unit column and a fixed unit, a unit on a dimension.
\set VERBOSITY terse
INSERT INTO clarify.concept_columns (concept_id, relation, column_name, unit_column)
VALUES ('metric.fx_invoiced', 'fx.invoices', 'id', 'currency_code');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name, unit_column)
VALUES ('metric.fx_invoiced', 'fx.invoices', 'id', 'id');
UPDATE clarify.concepts SET unit = 'EUR' WHERE id = 'metric.fx_mrr';
INSERT INTO clarify.concepts (id, kind, label, status, unit)
VALUES ('metric.fx_blank', 'metric', 'Blank', 'approved', ' ');
INSERT INTO clarify.concepts (id, kind, label, status, unit)
VALUES ('dimension.fx_plan', 'dimension', 'Plan', 'approved', 'EUR');

\set VERBOSITY default
-- A fixed unit: shown after the label; the version rises when a unit or unit column changes.
UPDATE clarify.concept_columns SET unit_column = NULL WHERE concept_id = 'metric.fx_invoiced';
SELECT version AS before FROM clarify.concepts WHERE id = 'metric.fx_invoiced' \gset
UPDATE clarify.concepts SET unit = 'EUR' WHERE id = 'metric.fx_invoiced';
SELECT version - :before AS raised_by_unit FROM clarify.concepts WHERE id = 'metric.fx_invoiced';
SELECT version AS before FROM clarify.concepts WHERE id = 'metric.fx_mrr' \gset
UPDATE clarify.concept_columns SET unit_column = NULL WHERE concept_id = 'metric.fx_mrr';
SELECT version - :before AS raised_by_unit_column FROM clarify.concepts WHERE id = 'metric.fx_mrr';
UPDATE clarify.concept_columns SET unit_column = 'currency' WHERE concept_id = 'metric.fx_mrr';
SET ROLE regress_agent;
SELECT unit_gate($$SELECT sum(amount) FROM fx.invoices$$) AS fixed_unit_sums;
-- Where people read the label, the fixed unit follows it: the reason, the HINT, the options.
SELECT g ->> 'hint' AS hint, g -> 'detail' -> 'slots' -> 0 ->> 'reason' AS reason
FROM gate($$SELECT sum(i.amount) FROM fx.invoices i JOIN fx.invoices j ON j.subscription_id = i.subscription_id$$) g;
RESET ROLE;
INSERT INTO clarify.concepts (id, kind, label, description, owner, status, unit) VALUES
  ('metric.fx_invoiced_net', 'metric', 'Net invoiced amount', 'Invoice totals less credit notes', 'Finance', 'approved', 'EUR');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES
  ('metric.fx_invoiced_net', 'fx.invoices', 'amount');
INSERT INTO clarify.terms (term, concept_id) VALUES ('invoiced', 'metric.fx_invoiced_net');
SET ROLE regress_agent;
SELECT g ->> 'hint' AS hint, jsonb_path_query_array(g, '$.detail.slots[0].options[*].label') AS labels
FROM gate($$SELECT amount FROM fx.invoices$$) g;
RESET ROLE;

DELETE FROM clarify.terms WHERE concept_id = 'metric.fx_invoiced_net';
DELETE FROM clarify.concept_columns WHERE concept_id = 'metric.fx_invoiced_net';
DELETE FROM clarify.concepts WHERE id = 'metric.fx_invoiced_net';

-- A unit column dropped from the table: every aggregate of the measure is refused, it says why.
ALTER TABLE fx.invoices ADD COLUMN ccy text;
UPDATE clarify.concepts SET unit = NULL WHERE id = 'metric.fx_invoiced';
UPDATE clarify.concept_columns SET unit_column = 'ccy' WHERE concept_id = 'metric.fx_invoiced';
ALTER TABLE fx.invoices DROP COLUMN ccy;
SET ROLE regress_agent;
SELECT gate($$SELECT sum(amount) FROM fx.invoices$$) -> 'detail' -> 'slots' -> 0 ->> 'reason' AS lost_unit_column;
RESET ROLE;

DROP TABLE public.unit_shapes;
DROP FUNCTION public.unit_gate(text);
DELETE FROM clarify.terms WHERE concept_id LIKE 'metric.fx_%';
DELETE FROM clarify.concept_columns WHERE concept_id LIKE 'metric.fx_%';
DELETE FROM clarify.concepts WHERE id LIKE 'metric.fx_%';
DROP SCHEMA fx CASCADE;
