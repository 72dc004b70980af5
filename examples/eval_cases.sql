-- The revenue example's evaluation suite (docs/dba-guide.md, "Evaluating the gate"): questions
-- a DBA labelled with what the gate should do, scored by clarify.evaluate(). Load it after
-- examples/revenue.sql and examples/periods.sql, as the catalog's owner:
--   psql -d demo -f examples/eval_cases.sql
--   SELECT * FROM clarify.evaluate();
-- Expected rows: Germany's recognized revenue of Q3 2026 (27060.75) and the orders per country.

DELETE FROM clarify.eval_cases WHERE id LIKE 'revenue.%';
INSERT INTO clarify.eval_cases (id, question, sql, record, agent, expected, expected_rows)
VALUES
    -- The seeds' one-word pair: "revenue" has three meanings, "recognized revenue" one.
    ('revenue.germany_last_quarter', 'Show revenue for Germany last quarter',
     $$SELECT sum(recognized_amount) AS revenue FROM sales.revenue_ledger
        WHERE customer_country = 'Germany' AND period_start = date '2026-07-01'$$,
     '{"question_id": "eval_1"}', 'agent', 'AMBIGUOUS', NULL),
    ('revenue.recognized_germany_last_quarter', 'Show recognized revenue for Germany last quarter',
     $$SELECT sum(recognized_amount) AS revenue FROM sales.revenue_ledger
        WHERE customer_country = 'Germany' AND period_start = date '2026-07-01'$$,
     -- The agent binds the meaning the question names (examples/demo.py, step 3).
     '{"question_id": "eval_2", "bindings": [{"term": "revenue", "concept": "metric.recognized_revenue", "source": "explicit"}]}',
     'agent', 'RESOLVED', '[{"revenue": 27060.75}]'),
    ('revenue.booked_named', 'What is our booked revenue?',
     'SELECT sum(booked_amount) AS booked FROM sales.orders',
     '{"question_id": "eval_3", "bindings": [{"term": "revenue", "concept": "metric.booked_revenue", "source": "explicit"}]}',
     'agent', 'RESOLVED', NULL),
    ('revenue.orders_per_country', 'How many orders per country?',
     'SELECT customer_country, count(*) AS orders FROM sales.orders GROUP BY 1',
     '{"question_id": "eval_4"}', 'agent', 'RESOLVED',
     '[{"customer_country": "France", "orders": 8}, {"customer_country": "Germany", "orders": 8},
       {"customer_country": "Italy", "orders": 8}, {"customer_country": "Netherlands", "orders": 8},
       {"customer_country": "Spain", "orders": 8}]'),
    ('revenue.france_total', 'What was revenue in France?',
     $$SELECT sum(invoiced_amount) FROM sales.invoices WHERE customer_country = 'France'$$,
     '{"question_id": "eval_5"}', 'agent', 'AMBIGUOUS', NULL),
    -- Gross margin is a draft: an answer bound to it waits until Finance approves it.
    ('revenue.margin', 'What is our gross margin?',
     'SELECT sum(recognized_amount) AS margin FROM sales.revenue_ledger',
     '{"question_id": "eval_6", "bindings": [{"term": "revenue", "concept": "metric.gross_margin", "source": "explicit"}]}',
     'agent', 'UNSUPPORTED', NULL);
