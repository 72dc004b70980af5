-- Shared fixture for the regression suite (runs first, see test/schedule): the
-- revenue example, an agent, a confirmer, a non-governed analyst and a helper that runs a
-- statement and reports the gate's answer without the nondeterministic decision id.
SET client_min_messages = warning;
CREATE ROLE regress_agent LOGIN;
CREATE ROLE regress_app LOGIN;
CREATE ROLE regress_analyst LOGIN;
CREATE ROLE regress_finance_team NOLOGIN;
CREATE ROLE regress_finance_agent LOGIN IN ROLE regress_finance_team;

CREATE SCHEMA sales;
CREATE TABLE sales.orders (id int PRIMARY KEY, order_date date, customer_country text,
                           booked_amount numeric, status text DEFAULT 'open');
CREATE TABLE sales.invoices (id int PRIMARY KEY, order_id int, customer_country text,
                             invoiced_amount numeric);
CREATE TABLE sales.revenue_ledger (id int PRIMARY KEY, period_start date, customer_country text,
                                   recognized_amount numeric);
CREATE TABLE sales.costs (id int PRIMARY KEY, margin numeric);
INSERT INTO sales.orders SELECT g, date '2026-01-01' + g, CASE WHEN g % 2 = 0 THEN 'Germany' ELSE 'France' END, g * 100 FROM generate_series(1, 10) g;
INSERT INTO sales.invoices SELECT g, g, CASE WHEN g % 2 = 0 THEN 'Germany' ELSE 'France' END, g * 90 FROM generate_series(1, 10) g;
INSERT INTO sales.revenue_ledger SELECT g, date '2026-01-01', CASE WHEN g % 2 = 0 THEN 'Germany' ELSE 'France' END, g * 80 FROM generate_series(1, 10) g;
INSERT INTO sales.costs SELECT g, g FROM generate_series(1, 3) g;
GRANT USAGE ON SCHEMA sales TO PUBLIC;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA sales TO PUBLIC;

INSERT INTO clarify.concepts (id, kind, label, description, owner, status, aliases) VALUES
  ('metric.booked_revenue', 'metric', 'Booked revenue', 'Value of accepted orders', 'Sales', 'approved', '{}'),
  ('metric.invoiced_revenue', 'metric', 'Invoiced revenue', 'Amounts billed to customers', 'Billing', 'approved', '{}'),
  ('metric.recognized_revenue', 'metric', 'Recognized revenue', 'Revenue recognized under the accounting standard', 'Finance', 'approved', '{recognised revenue}'),
  ('metric.gross_margin', 'metric', 'Gross margin', 'Revenue less cost of goods sold', 'Finance', 'draft', '{}'),
  ('dim.customer_country', 'dimension', 'Customer country', 'Country of the billing address', 'Sales', 'approved', '{}');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES
  ('metric.booked_revenue', 'sales.orders', 'booked_amount'),
  ('metric.invoiced_revenue', 'sales.invoices', 'invoiced_amount'),
  ('metric.recognized_revenue', 'sales.revenue_ledger', 'recognized_amount'),
  ('metric.gross_margin', 'sales.costs', 'margin'),
  ('dim.customer_country', 'sales.orders', 'customer_country'),
  ('dim.customer_country', 'sales.invoices', 'customer_country'),
  ('dim.customer_country', 'sales.revenue_ledger', 'customer_country');
INSERT INTO clarify.terms (term, concept_id) VALUES
  ('revenue', 'metric.booked_revenue'), ('revenue', 'metric.invoiced_revenue'),
  ('revenue', 'metric.recognized_revenue'), ('margin', 'metric.gross_margin'),
  ('country', 'dim.customer_country');
SELECT clarify.govern_role('regress_agent');
SELECT clarify.govern_role('regress_finance_team');
GRANT EXECUTE ON FUNCTION clarify.confirm(text, text, text, regrole, text, interval, text) TO regress_app;
GRANT EXECUTE ON FUNCTION clarify.revoke(bigint) TO regress_app;

-- Runs one statement and answers with what the gate said: ok, or the error's SQLSTATE, message,
-- hint and DETAIL payload (decision id removed: it differs on every run).
CREATE FUNCTION public.gate(sql text) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  state text; msg text; det text; hnt text;
BEGIN
  EXECUTE sql;
  RETURN jsonb_build_object('ok', true);
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL, hnt = PG_EXCEPTION_HINT;
  RETURN jsonb_build_object('sqlstate', state, 'message', msg, 'hint', hnt,
    'detail', CASE WHEN state LIKE 'QC%' THEN det::jsonb - 'decision_id' ELSE to_jsonb(det) END);
END $$;
-- Just the state of the gate's answer, for compact shape tests.
CREATE FUNCTION public.gate_state(sql text) RETURNS text LANGUAGE sql AS $$
  SELECT coalesce(g->'detail'->>'state', g->>'sqlstate', 'ok') FROM public.gate(sql) g $$;
GRANT EXECUTE ON FUNCTION public.gate(text), public.gate_state(text) TO PUBLIC;
-- Where a second session (dblink) reaches this server: its socket and port, a database, a role.
CREATE FUNCTION public.conninfo(db text DEFAULT current_database(), role text DEFAULT NULL)
RETURNS text LANGUAGE sql AS $$
  SELECT format('dbname=%s host=%s port=%s', db,
                split_part(current_setting('unix_socket_directories'), ',', 1),
                current_setting('port')) || coalesce(' user=' || role, '') $$;
RESET client_min_messages;
