-- The HINT speaks to the person in business language; identifiers go to DETAIL (issue 36,
-- item 7): a typo'd concept id in a binding never reaches the HINT.
SET client_min_messages = warning;
SET ROLE regress_agent;

-- "revenue" bound to a concept id that does not exist (a typo): UNSUPPORTED; the HINT asks
-- about "revenue" without the id, the DETAIL names it.
SET pg_clarify.resolution = '{"question_id": "q_typo", "question": "What is our revenue?", "bindings": [{"term": "revenue", "concept": "metric.mmr", "source": "user_confirmation"}]}';
SELECT g->>'sqlstate' AS sqlstate, g->>'hint' AS hint,
       g->>'hint' LIKE '%metric.%' AS hint_names_an_id,
       g->'detail'->'slots'->0->>'expected' AS expected,
       g->'detail'->'slots'->0->>'reason' AS reason
  FROM gate('SELECT sum(booked_amount) FROM sales.orders') g;
-- The same typo under another source and without a question.
SET pg_clarify.resolution = '{"question_id": "q_typo2", "bindings": [{"term": "revenue", "concept": "metric.mmr", "source": "explicit"}]}';
SELECT g->>'sqlstate' AS sqlstate, g->>'hint' LIKE '%metric.%' AS hint_names_an_id,
       g->'detail'->'slots'->0->>'expected' AS expected
  FROM gate('SELECT sum(booked_amount) FROM sales.orders') g;
-- The single-binding shorthand with the typo, and a binding without a term.
SET pg_clarify.resolution = '{"question_id": "q_typo3", "metric": "metric.mmr", "resolution_source": "user_confirmation", "user_confirmed": true}';
SELECT g->>'sqlstate' AS sqlstate, g->>'hint' LIKE '%metric.%' AS hint_names_an_id
  FROM gate('SELECT sum(booked_amount) FROM sales.orders') g;
SET pg_clarify.resolution = '{"question_id": "q_typo4", "bindings": [{"concept": "metric.mmr", "source": "user_confirmation"}]}';
SELECT g->>'sqlstate' AS sqlstate, g->>'hint' LIKE '%metric.%' AS hint_names_an_id
  FROM gate('SELECT sum(booked_amount) FROM sales.orders') g;
-- check() reports the same question and keeps the id in its slot.
SET pg_clarify.resolution = '{"question_id": "q_typo", "question": "What is our revenue?", "bindings": [{"term": "revenue", "concept": "metric.mmr", "source": "user_confirmation"}]}';
SELECT c->'slots'->0->>'question' AS question, c->'slots'->0->>'expected' AS expected
  FROM clarify.check('SELECT sum(booked_amount) FROM sales.orders') c;
RESET pg_clarify.resolution;
RESET ROLE;
