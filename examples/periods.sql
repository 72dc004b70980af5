-- Periods and impact for the revenue example (catalog 1.1): load after examples/revenue.sql,
--   psql -v ON_ERROR_STOP=1 -d demo -f examples/periods.sql
-- Invoiced revenue needs a period; "last quarter" is the calendar or the fiscal quarter; the
-- invoices' sales channel has two low-impact meanings.

SET client_min_messages = warning;
BEGIN;
-- Periods: invoiced revenue means nothing without one. "Last quarter" is the calendar quarter
-- for some and the fiscal one (the year starts in February) for others; fixed dates keep the
-- demo the same whenever it runs.
INSERT INTO clarify.concepts (id, kind, label, description, owner, status, window_start, window_end)
VALUES ('window.calendar_q3_2026', 'time_window', 'Calendar Q3 2026', 'July to September 2026',
        'Finance', 'approved', $$date '2026-07-01'$$, $$date '2026-10-01'$$),
       ('window.fiscal_q3_2026', 'time_window', 'Fiscal Q3 2026', 'August to October 2026',
        'Finance', 'approved', $$date '2026-08-01'$$, $$date '2026-11-01'$$),
       ('dim.order_channel', 'dimension', 'Order channel', 'Where the customer placed the order',
        'Sales', 'approved', NULL, NULL),
       ('dim.billing_channel', 'dimension', 'Billing channel', 'Who sent the invoice',
        'Billing', 'approved', NULL, NULL);
UPDATE clarify.concept_columns SET time_column = 'invoice_date', requires_time_range = true
WHERE concept_id = 'metric.invoiced_revenue';
INSERT INTO clarify.concept_columns (concept_id, relation, column_name)
VALUES ('dim.order_channel', 'sales.invoices', 'sales_channel'),
       ('dim.billing_channel', 'sales.invoices', 'sales_channel');
-- Which channel is meant changes little for a revenue split: low impact.
INSERT INTO clarify.terms (term, concept_id, impact)
VALUES ('last quarter', 'window.calendar_q3_2026', 'high'),
       ('last quarter', 'window.fiscal_q3_2026', 'high'),
       ('channel', 'dim.order_channel', 'low'),
       ('channel', 'dim.billing_channel', 'low');

COMMIT;
