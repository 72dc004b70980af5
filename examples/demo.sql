-- A walk through clarify.resolve() on the revenue example (load examples/revenue.sql first).
-- Run by ./scripts/demo as: psql -v ON_ERROR_STOP=1 --echo-queries -f examples/demo.sql

\pset footer off
\set QUIET on

\echo
\echo '=== The catalog: what the business has approved ==='
\echo 'Three tables each hold a different "revenue"; gross margin is still a draft.'
\echo
SELECT c.id, c.kind, c.label, c.owner, c.status,
       string_agg(DISTINCT t.term, ', ') AS terms
FROM clarify.concepts c
LEFT JOIN clarify.terms t ON t.concept_id = c.id
GROUP BY c.id
ORDER BY c.kind DESC, c.id;

-- From here on the questions are asked as the agent, the way a Text-to-SQL agent would.
\pset tuples_only on
\pset format unaligned
SET ROLE agent;

\echo
\echo '=== (a) "Show revenue for Germany": which revenue? ==='
\echo 'Three approved meanings and no default: AMBIGUOUS, with the three options to offer the user.'
\echo
SELECT jsonb_pretty(clarify.resolve('revenue'));

\echo
\echo '=== (b) Finance approves a default: "revenue" means recognized revenue ==='
\echo 'The DBA records the default for everyone (applies_to NULL), naming who approved it.'
\echo
RESET ROLE;
INSERT INTO clarify.defaults (term, concept_id, applies_to, approved_by)
VALUES ('revenue', 'metric.recognized_revenue', NULL, 'Finance controller');
SET ROLE agent;
\echo
\echo 'Now the same question is RESOLVED by the approved default (default_applied: true).'
\echo
SELECT jsonb_pretty(clarify.resolve('revenue'));

\echo
\echo '=== (c) "What was our margin?" ==='
\echo 'The only meaning of "margin" is a draft metric: UNSUPPORTED, nothing to guess from.'
\echo
SELECT jsonb_pretty(clarify.resolve('margin'));

\echo
\echo '=== (d) "Break it down by country" ==='
\echo 'One approved meaning: RESOLVED without asking anyone.'
\echo
SELECT jsonb_pretty(clarify.resolve('country'));

\echo
\echo '=== (e) Recognized revenue is taken out of use ==='
\echo 'Finance withdraws recognized revenue (available = false) while the ledger is restated.'
\echo
RESET ROLE;
UPDATE clarify.concepts SET available = false WHERE id = 'metric.recognized_revenue';
SET ROLE agent;
\echo
\echo 'The default for "revenue" now names a concept that cannot be used: UNSUPPORTED, naming the'
\echo 'dead default. The gate does not fall back to guessing between booked and invoiced revenue.'
\echo
SELECT jsonb_pretty(clarify.resolve('revenue'));

RESET ROLE;
\echo
\echo '=== End of demo ==='
