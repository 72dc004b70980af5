-- The resolution record (docs/reference.md, "The resolution record"): validated when set; a refused
-- SET keeps the old value.
SET pg_clarify.resolution = '{"question_id": "q_1", "question": "Show revenue", "bindings": []}';
SHOW pg_clarify.resolution;
SET pg_clarify.resolution = '{"question_id": "q_1", "bindings": [';
SET pg_clarify.resolution = '[]';
SET pg_clarify.resolution = '"text"';
SET pg_clarify.resolution = '{"question_id": 5}';
SET pg_clarify.resolution = '{"question": ["a"]}';
SET pg_clarify.resolution = '{"bindings": {}}';
SET pg_clarify.resolution = '{"bindings": [1]}';
SET pg_clarify.resolution = '{"bindings": [{"term": "revenue", "source": "explicit"}]}';
SET pg_clarify.resolution = '{"bindings": [{"concept": "", "source": "explicit"}]}';
SET pg_clarify.resolution = '{"bindings": [{"concept": 7, "source": "explicit"}]}';
SET pg_clarify.resolution = '{"bindings": [{"term": 1, "concept": "metric.booked_revenue", "source": "explicit"}]}';
SET pg_clarify.resolution = '{"bindings": [{"concept": "metric.booked_revenue", "source": "guess"}]}';
SET pg_clarify.resolution = '{"bindings": [{"concept": "metric.booked_revenue"}]}';
SET pg_clarify.resolution = '{"bindings": [{"concept": "metric.booked_revenue", "source": "explicit", "confidence": 1}]}';
SET pg_clarify.resolution = '{"question_id": "q", "bindingz": []}';
SET pg_clarify.resolution = '{"question_id": "q", "metric": "metric.recognized_revenue"}';
SET pg_clarify.resolution = '{"question_id": "q", "metric": "metric.recognized_revenue", "user_confirmed": "yes"}';
SET pg_clarify.resolution = '{"question_id": "q\u0000x"}';
-- PostgreSQL's JSON rules, jsonb's included: the record is stored and shown as jsonb.
SET pg_clarify.resolution = E'\xEF\xBB\xBF{"question_id": "q_bom"}';
SET pg_clarify.resolution = E'\f{"question_id": "q_formfeed"}';
SET pg_clarify.resolution = '{"question_id": "q", "question": "revenue \ud83d"}';
SET pg_clarify.resolution = '{"question_id": "q", "question": "revenue \x"}';
SET pg_clarify.resolution = '{"question_id": "q", "question": "revenue", "n": 1e131072}';
-- Pathological nesting and oversized values are refused before any parsing.
SELECT set_config('pg_clarify.resolution', repeat('[', 100000) || repeat(']', 100000), false);
SELECT set_config('pg_clarify.resolution', '{"bindings": ' || repeat('[', 5000) || repeat(']', 5000) || '}', false);
SELECT set_config('pg_clarify.resolution', '{"question": "' || repeat('x', 70000) || '"}', false);
-- After all those refusals, the first value is still in place.
SHOW pg_clarify.resolution;
-- The shorthand shape is accepted, and so is an empty value (no record).
SET pg_clarify.resolution = '{"question_id": "q_2", "metric": "metric.recognized_revenue", "resolution_source": "explicit", "user_confirmed": false}';
SET pg_clarify.resolution = '{"question_id": "q_3", "metric": "metric.recognized_revenue", "user_confirmed": true}';
SET pg_clarify.resolution = '';
-- A value just under the limit is accepted.
SELECT length(set_config('pg_clarify.resolution', '{"question": "' || repeat('x', 65000) || '"}', false)) > 65000 AS accepted;
-- Kept as the parser's canonical JSON: keys sorted, no whitespace, escapes resolved, and of
-- duplicate keys the last (as jsonb keeps it).
SET pg_clarify.resolution = ' { "question" : "first", "question_id" : "q_\u0063anon", "question" : "Umsatz f\u0075r Köln" } ';
SHOW pg_clarify.resolution;
-- SET LOCAL lasts for its transaction only.
SET pg_clarify.resolution = '{"question_id": "session"}';
BEGIN;
SET LOCAL pg_clarify.resolution = '{"question_id": "local"}';
SHOW pg_clarify.resolution;
ROLLBACK;
SHOW pg_clarify.resolution;
-- Any role may set it, agents included; only superusers may switch the gate off.
SET ROLE regress_agent;
SET pg_clarify.resolution = '{"question_id": "agent"}';
SET pg_clarify.enabled = off;
SET pg_clarify.audit_mode = async;
RESET ROLE;
RESET pg_clarify.resolution;
-- The pg_clarify prefix is reserved: a mistyped setting is an error.
SET pg_clarify.resolutoin = '{}';
-- A database encoded in neither UTF8 nor SQL_ASCII holds ASCII records only: jsonb there could
-- not keep every character, nor read UTF-8 as typed.
SELECT current_database() AS regress_database \gset
CREATE DATABASE regress_clarify_latin1 TEMPLATE template0 ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C';
\c regress_clarify_latin1
SET pg_clarify.resolution = '{"question": "Umsatz für Köln"}';
SET pg_clarify.resolution = '{"question": "Umsatz f\u00fcr K\u00f6ln"}';
SET pg_clarify.resolution = '{"question": "Umsatz fuer Koeln"}';
SHOW pg_clarify.resolution;
\c :regress_database
DROP DATABASE regress_clarify_latin1;
