-- The revenue example: three tables that each hold a different "revenue", and the governance
-- catalog that says what each column means. Load into a database where pg_clarify is installed:
--   psql -v ON_ERROR_STOP=1 -d demo -f examples/revenue.sql
-- Re-running it replaces the sales schema and the example's catalog rows.

SET client_min_messages = warning;
BEGIN;

-- Start over: the example's catalog rows go first (terms and column mappings with their
-- concepts), so no mapping is left pointing at a dropped table.
DELETE FROM clarify.defaults
WHERE concept_id IN ('metric.booked_revenue', 'metric.invoiced_revenue',
                     'metric.recognized_revenue', 'metric.gross_margin', 'dim.customer_country',
                     'window.calendar_q3_2026', 'window.fiscal_q3_2026', 'dim.order_channel',
                     'dim.billing_channel');
DELETE FROM clarify.approvals
WHERE concept_id IN ('window.calendar_q3_2026', 'window.fiscal_q3_2026', 'dim.order_channel',
                     'dim.billing_channel');
DELETE FROM clarify.concepts
WHERE id IN ('metric.booked_revenue', 'metric.invoiced_revenue', 'metric.recognized_revenue',
             'metric.gross_margin', 'dim.customer_country', 'window.calendar_q3_2026',
             'window.fiscal_q3_2026', 'dim.order_channel', 'dim.billing_channel');

--------------------------------------------------------------------------------------------------
-- The data: orders are booked, then invoiced, then recognized by Finance
--------------------------------------------------------------------------------------------------

DROP SCHEMA IF EXISTS sales CASCADE;
CREATE SCHEMA sales;

CREATE TABLE sales.orders (
    id               integer PRIMARY KEY,
    order_date       date NOT NULL,
    customer_country text NOT NULL,
    booked_amount    numeric(12, 2) NOT NULL
);

CREATE TABLE sales.invoices (
    id               integer PRIMARY KEY,
    order_id         integer NOT NULL REFERENCES sales.orders (id),
    invoice_date     date NOT NULL,
    customer_country text NOT NULL,
    invoiced_amount  numeric(12, 2) NOT NULL,
    sales_channel    text NOT NULL
);

CREATE TABLE sales.revenue_ledger (
    id                 integer PRIMARY KEY,
    period_start       date NOT NULL,
    customer_country   text NOT NULL,
    recognized_amount  numeric(12, 2) NOT NULL
);

-- Two orders per country and quarter of 2026; amounts follow a fixed formula, so every load
-- gives the same 40 rows.
INSERT INTO sales.orders (id, order_date, customer_country, booked_amount)
SELECT row_number() OVER (ORDER BY c.n, q, k),
       make_date(2026, 3 * q - 2, 1) + 20 * k,
       c.country,
       c.base * (1 + q / 10.0) + 150 * k
FROM (VALUES (1, 'Germany', 12000), (2, 'France', 9500), (3, 'Spain', 7000),
             (4, 'Italy', 8200), (5, 'Netherlands', 5400)) AS c (n, country, base),
     generate_series(1, 4) AS q,
     generate_series(1, 2) AS k;

-- Invoices follow orders by 30 days, 5% below the booking (discounts, cancelled lines); orders
-- from November on are not invoiced yet, so invoiced revenue lags booked revenue.
INSERT INTO sales.invoices (id, order_id, invoice_date, customer_country, invoiced_amount,
                            sales_channel)
SELECT row_number() OVER (ORDER BY o.id), o.id, o.order_date + 30, o.customer_country,
       round(o.booked_amount * 0.95, 2), CASE WHEN o.id % 3 = 0 THEN 'partner' ELSE 'web' END
FROM sales.orders o
WHERE o.order_date < date '2026-11-01';

-- Finance recognizes revenue per country and quarter: the invoiced amounts of the quarter, less
-- a 10% deferral for service still to be delivered.
INSERT INTO sales.revenue_ledger (id, period_start, customer_country, recognized_amount)
SELECT row_number() OVER (ORDER BY q.period_start, q.customer_country), q.*
FROM (SELECT date_trunc('quarter', i.invoice_date)::date AS period_start,
             i.customer_country,
             round(sum(i.invoiced_amount) * 0.9, 2) AS recognized_amount
      FROM sales.invoices i
      GROUP BY 1, 2) AS q;

--------------------------------------------------------------------------------------------------
-- The meanings: what the business has (and has not yet) approved
--------------------------------------------------------------------------------------------------

INSERT INTO clarify.concepts (id, kind, label, description, owner, status)
VALUES ('metric.booked_revenue', 'metric', 'Booked revenue',
        'Value of accepted orders', 'Sales', 'approved'),
       ('metric.invoiced_revenue', 'metric', 'Invoiced revenue',
        'Amounts billed to customers', 'Billing', 'approved'),
       ('metric.recognized_revenue', 'metric', 'Recognized revenue',
        'Revenue recognized under the accounting standard', 'Finance', 'approved'),
       ('metric.gross_margin', 'metric', 'Gross margin',
        'Revenue less cost of sales (definition under review)', 'Finance', 'draft'),
       ('dim.customer_country', 'dimension', 'Customer country',
        'Country of the customer''s billing address', 'Sales', 'approved');

-- Gross margin is still a draft and no column carries it yet.
INSERT INTO clarify.concept_columns (concept_id, relation, column_name)
VALUES ('metric.booked_revenue', 'sales.orders', 'booked_amount'),
       ('metric.invoiced_revenue', 'sales.invoices', 'invoiced_amount'),
       ('metric.recognized_revenue', 'sales.revenue_ledger', 'recognized_amount'),
       ('dim.customer_country', 'sales.orders', 'customer_country'),
       ('dim.customer_country', 'sales.invoices', 'customer_country'),
       ('dim.customer_country', 'sales.revenue_ledger', 'customer_country');

INSERT INTO clarify.terms (term, concept_id)
VALUES ('revenue', 'metric.booked_revenue'),
       ('revenue', 'metric.invoiced_revenue'),
       ('revenue', 'metric.recognized_revenue'),
       ('recognized revenue', 'metric.recognized_revenue'),
       ('margin', 'metric.gross_margin'),
       ('country', 'dim.customer_country');


--------------------------------------------------------------------------------------------------
-- The actors: the agent asks, the chat app confirms on the user's behalf
--------------------------------------------------------------------------------------------------

DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'agent') THEN
        CREATE ROLE agent LOGIN;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'app') THEN
        CREATE ROLE app LOGIN;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'dba') THEN
        CREATE ROLE dba LOGIN;
    END IF;
END
$$;

GRANT USAGE ON SCHEMA sales TO agent;
GRANT SELECT ON ALL TABLES IN SCHEMA sales TO agent;

SELECT clarify.govern_role('agent');

GRANT EXECUTE ON FUNCTION clarify.confirm, clarify.revoke TO app;

-- The governance team edits the vocabulary and reads the audit without being a superuser.
GRANT SELECT, INSERT, UPDATE, DELETE
    ON clarify.concepts, clarify.concept_columns, clarify.terms, clarify.defaults TO dba;
GRANT SELECT ON clarify.audit, clarify.audit_daily, clarify.audit_friction,
    clarify.audit_sources, clarify.audit_resolution_paths TO dba;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA clarify TO dba;

COMMIT;
