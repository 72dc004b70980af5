-- The audit (docs/reference.md, "Tables and views"): one row per decision, allowed or rejected,
-- written before the statement proceeds (sync), surviving the rejection's abort, visible to the DBA
-- only.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dblink;
RESET client_min_messages;
SELECT clarify.audit_wait() AS caught_up \gset
SELECT count(*) AS rows_before FROM clarify.audit_log \gset

-- A statement reading no governed column is not a decision: no row.
SET ROLE regress_agent;
SELECT count(*) FROM sales.orders WHERE id > 0;
RESET ROLE;
SELECT clarify.audit_wait() AS caught_up \gset
SELECT count(*) - :rows_before AS new_rows FROM clarify.audit_log;

-- A rejection aborts its transaction, yet its row is there, with the record as it was when
-- decided (a SET LOCAL that the abort undoes).
SET ROLE regress_agent;
BEGIN;
SET LOCAL pg_clarify.resolution = '{"question_id": "q_audit_1", "question": "Show revenue"}';
\set VERBOSITY terse
SELECT sum(booked_amount) FROM sales.orders;
\set VERBOSITY default
ROLLBACK;
RESET ROLE;
SELECT clarify.audit_wait() AS caught_up \gset
SELECT decision, state, session_role, acting_role, question_id, statement, reason, columns, bindings,
       payload->>'state' AS payload_state, payload->'slots'->0->>'term' AS payload_term,
       (payload->>'decision_id')::bigint = decision_id AS payload_names_its_decision,
       record->>'question' AS record_question, pid = pg_backend_pid() AS same_pid, query_id <> 0 AS has_query_id
FROM clarify.audit WHERE question_id = 'q_audit_1';

-- An allowed decision: how each governed column was covered.
SET ROLE regress_agent;
SET pg_clarify.resolution = '{"question_id": "q_audit_2", "question": "Show recognized revenue by country", "bindings": [{"term": "revenue", "concept": "metric.recognized_revenue", "source": "explicit"}]}';
SELECT customer_country, sum(recognized_amount) FROM sales.revenue_ledger GROUP BY 1 ORDER BY 1;
RESET ROLE;
SELECT clarify.audit_wait() AS caught_up \gset
SELECT decision, state, reason, payload, jsonb_pretty(bindings) AS bindings
FROM clarify.audit WHERE question_id = 'q_audit_2';
-- last_decision() names the same decision as the audit row.
SET ROLE regress_agent;
SELECT d->>'audited' AS audited, d->>'decision_id' AS decision_id FROM clarify.last_decision() d \gset
RESET ROLE;
SELECT clarify.audit_wait() AS caught_up \gset
SELECT :'audited' AS audited, count(*) AS matching_rows FROM clarify.audit_log WHERE decision_id = :'decision_id'::bigint;

-- The record is kept as the canonical JSON the parser makes of it, never as typed. What jsonb
-- refuses is refused at SET (a byte order mark, once accepted, made every read of clarify.audit
-- fail), and two spellings of one record are one stored text.
SET ROLE regress_agent;
SET pg_clarify.resolution = '{"question_id": "q_audit_canon", "question": "booked revenue", "bindings": [{"concept": "metric.booked_revenue", "source": "explicit"}]}';
SELECT sum(booked_amount) > 0 AS ran FROM sales.orders;
SET pg_clarify.resolution = E'\xEF\xBB\xBF{"question_id": "q_audit_bom", "question": "booked revenue", "bindings": [{"concept": "metric.booked_revenue", "source": "explicit"}]}';
SELECT sum(booked_amount) > 0 AS ran FROM sales.orders;
SET pg_clarify.resolution = '{ "bindings" : [ { "source" : "explicit", "concept" : "metric.booked_revenue" } ],
                              "question" : "booked revenue", "question_id" : "q_audit_canon" }';
SHOW pg_clarify.resolution;
SELECT sum(booked_amount) > 0 AS ran FROM sales.orders;
SELECT clarify.last_decision()->'record' AS last_record;
RESET ROLE;
SELECT clarify.audit_wait() AS caught_up \gset
SELECT question_id, decision, record FROM clarify.audit WHERE question_id IN ('q_audit_canon', 'q_audit_bom') ORDER BY decision_id;
SELECT clarify.audit_wait() AS caught_up \gset
SELECT body FROM clarify.audit_texts WHERE body LIKE '%q\_audit\_canon%' OR body LIKE '%q\_audit\_bom%';

-- 1,000 rejections caught in a PL/pgSQL EXCEPTION loop, in a transaction then rolled back:
-- 1,000 rows.
SET ROLE regress_agent;
SET pg_clarify.resolution = '{"question_id": "q_audit_loop"}';
BEGIN;
DO $$
DECLARE
  caught int := 0;
  total numeric;
BEGIN
  FOR i IN 1..1000 LOOP
    BEGIN
      SELECT sum(booked_amount) INTO total FROM sales.orders;
    EXCEPTION WHEN SQLSTATE 'QC001' THEN caught := caught + 1;
    END;
  END LOOP;
  RAISE NOTICE 'caught % rejections', caught;
END $$;
ROLLBACK;
RESET ROLE;
SELECT clarify.audit_wait() AS caught_up \gset
SELECT count(*) AS rows, count(DISTINCT decision_id) AS distinct_ids, min(state) AS state
FROM clarify.audit WHERE question_id = 'q_audit_loop';

-- Decisions inside nested functions: each statement that reads is one decision.
CREATE FUNCTION public.inner_booked() RETURNS numeric LANGUAGE plpgsql AS $$ BEGIN RETURN (SELECT sum(booked_amount) FROM sales.orders); END $$;
CREATE FUNCTION public.outer_calls() RETURNS numeric LANGUAGE plpgsql AS $$ BEGIN RETURN public.inner_booked() + (SELECT count(*) FROM sales.orders WHERE customer_country = 'France'); END $$;
SET ROLE regress_agent;
SET pg_clarify.resolution = '{"question_id": "q_audit_nested", "question": "booked revenue", "bindings": [{"concept": "metric.booked_revenue", "source": "explicit"}]}';
SELECT public.outer_calls() > 0 AS ran;
RESET ROLE;
SELECT clarify.audit_wait() AS caught_up \gset
SELECT statement, decision FROM clarify.audit WHERE question_id = 'q_audit_nested' ORDER BY decision_id;

-- A parallel plan is one decision, made in the leader.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
-- The setting that forces parallel plans (force_parallel_mode until 15).
SELECT CASE WHEN current_setting('server_version_num')::int >= 160000 THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END AS parallel_debug \gset
SET :parallel_debug = on;
EXPLAIN (COSTS OFF) SELECT sum(booked_amount) > 0 AS ran FROM sales.orders;
SET ROLE regress_agent;
SET pg_clarify.resolution = '{"question_id": "q_audit_parallel", "question": "booked revenue", "bindings": [{"concept": "metric.booked_revenue", "source": "explicit"}]}';
SELECT sum(booked_amount) > 0 AS ran FROM sales.orders;
RESET ROLE;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET :parallel_debug;
SELECT clarify.audit_wait() AS caught_up \gset
SELECT count(*) AS parallel_rows FROM clarify.audit WHERE question_id = 'q_audit_parallel';

-- A client that disconnects right after its statement: the decision was durable before it got
-- its answer.
SELECT dblink_connect('gone', public.conninfo(current_database(), 'regress_agent'));
SELECT dblink_exec('gone', $$SET pg_clarify.resolution = '{"question_id": "q_audit_gone"}'$$);
SET client_min_messages = warning;
SELECT dblink_exec('gone', 'SELECT sum(booked_amount) FROM sales.orders', false);
RESET client_min_messages;
SELECT dblink_disconnect('gone');
SELECT clarify.audit_wait() AS caught_up \gset
SELECT count(*) AS rows_of_disconnected_client FROM clarify.audit WHERE question_id = 'q_audit_gone';

-- The audit's tables locked: a sync decision is durable in the write-ahead log before the
-- statement goes on, so it runs; its row appears once the writer can write again.
SELECT dblink_connect('dba', public.conninfo(current_database()));
SELECT dblink_exec('dba', 'BEGIN');
SELECT dblink_exec('dba', 'LOCK TABLE clarify.audit_log IN ACCESS EXCLUSIVE MODE');
SET ROLE regress_agent;
SET pg_clarify.resolution = '{"question_id": "q_audit_locked", "question": "booked revenue", "bindings": [{"concept": "metric.booked_revenue", "source": "explicit"}]}';
SELECT sum(booked_amount) > 0 AS runs_while_locked FROM sales.orders;
SELECT clarify.last_decision() ->> 'audited' AS audited;
RESET ROLE;
SELECT clarify.audit_wait('300 ms') AS visible_while_locked;
SELECT dblink_exec('dba', 'ROLLBACK');
SELECT dblink_disconnect('dba');
SELECT clarify.audit_wait('30 s') AS visible_once_unlocked;
SELECT clarify.audit_wait() AS caught_up \gset
SELECT decision, state, reason FROM clarify.audit WHERE question_id = 'q_audit_locked' ORDER BY decision_id;

-- Evaluation views: a question that needed one clarification round, then a confirmation.
SET ROLE regress_agent;
SET pg_clarify.resolution = '{"question_id": "q_eval", "question": "Show revenue"}';
SELECT public.gate_state('SELECT sum(invoiced_amount) FROM sales.invoices') AS first_try;
RESET ROLE;
SET ROLE regress_app;
SELECT clarify.confirm('q_eval', 'revenue', 'metric.invoiced_revenue', 'regress_agent', 'user:bob') > 0 AS confirmed;
SET ROLE regress_agent;
SET pg_clarify.resolution = '{"question_id": "q_eval", "question": "Show revenue", "bindings": [{"term": "revenue", "concept": "metric.invoiced_revenue", "source": "user_confirmation"}]}';
SELECT sum(invoiced_amount) > 0 AS answered FROM sales.invoices;
RESET ROLE;
SELECT clarify.audit_wait() AS caught_up \gset
SELECT rounds, first_rejected_at <= confirmed_at AS asked_before_confirmed, confirmed_at <= first_allowed_at AS confirmed_before_answer, time_to_resolution > interval '0' AS took_time
FROM clarify.audit_resolution_paths WHERE question_id = 'q_eval';
SELECT clarify.audit_wait() AS caught_up \gset
SELECT term, ambiguous_rejections > 0 AS causes_friction FROM clarify.audit_friction ORDER BY ambiguous_rejections DESC LIMIT 1;
SELECT clarify.audit_wait() AS caught_up \gset
SELECT source FROM clarify.audit_sources ORDER BY source;
SELECT clarify.audit_wait() AS caught_up \gset
SELECT round(sum(percent)) AS percent_total FROM clarify.audit_sources;
SELECT clarify.audit_wait() AS caught_up \gset
SELECT decision, state FROM clarify.audit_daily ORDER BY decision, state;

-- A decision whose row the audit refuses (here a constraint a DBA added on statement texts) is
-- retried, then stored reduced to who, when and the outcome; the decisions after it are not held
-- up, and the reduced row never stands in for the full one of a later, identical decision.
ALTER TABLE clarify.audit_texts ADD CONSTRAINT regress_poison CHECK (body NOT LIKE '%regress poison%') NOT VALID;
SET ROLE regress_agent;
SET pg_clarify.resolution = '{"question_id": "q_poison"}';
\set VERBOSITY terse
SELECT sum(booked_amount) /* regress poison */ FROM sales.orders;
SELECT sum(booked_amount) FROM sales.orders;
\set VERBOSITY default
RESET ROLE;
SELECT clarify.audit_wait('60 s') AS caught_up \gset
ALTER TABLE clarify.audit_texts DROP CONSTRAINT regress_poison;
SELECT clarify.audit_wait() AS caught_up \gset
SELECT decision, state, statement, reason FROM clarify.audit
WHERE question_id = 'q_poison' OR reason LIKE 'unwritable decision for question "q_poison"%' ORDER BY decision_id;
SELECT failed_batches >= 3 AS retried, last_error IS NULL AS recovered FROM clarify.audit_queue() WHERE database = current_database();

-- Agents cannot read the audit; nobody can change it; retention is the owner's, and recorded.
SET ROLE regress_agent;
\set VERBOSITY terse
SELECT count(*) FROM clarify.audit;
SELECT count(*) FROM clarify.audit_log;
SELECT clarify.purge_audit('0 days');
RESET ROLE;
UPDATE clarify.audit_batches SET pids = '{}';
DELETE FROM clarify.audit_batches;
TRUNCATE clarify.audit_batches;
UPDATE clarify.audit_log SET pid = 0;
UPDATE clarify.audit_texts SET body = 'x';
\set VERBOSITY default
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT clarify.purge_audit('1 day');
ROLLBACK;
SELECT clarify.purge_audit('1 day') AS purged_older_than_a_day;
SELECT clarify.audit_wait() AS caught_up \gset
SELECT count(*) > 0 AS rows_kept FROM clarify.audit_log;
SELECT clarify.purge_audit('0 seconds') > 0 AS purged_everything;
SELECT clarify.audit_wait() AS caught_up \gset
SELECT count(*) AS rows_left FROM clarify.audit_log;
SELECT clarify.audit_wait() AS caught_up \gset
SELECT count(*) AS texts_left FROM clarify.audit_texts;
SELECT purged_by, older_than, rows_deleted > 0 AS deleted_some FROM clarify.audit_purges ORDER BY id;
\set VERBOSITY terse
DELETE FROM clarify.audit_purges;
\set VERBOSITY default
-- After a purge the writer stores texts again for new decisions.
SET ROLE regress_agent;
SET pg_clarify.resolution = '{"question_id": "q_after_purge"}';
\set VERBOSITY terse
SELECT sum(booked_amount) FROM sales.orders;
\set VERBOSITY default
RESET ROLE;
SELECT clarify.audit_wait() AS caught_up \gset
SELECT statement, decision FROM clarify.audit WHERE question_id = 'q_after_purge';

-- The writer: visible in pg_stat_activity, counters in clarify.audit_queue().
SELECT backend_type FROM pg_stat_activity WHERE backend_type = 'pg_clarify audit writer' AND datname = current_database();
SELECT database = current_database() AS this_database, written >= 1000 AS wrote, dropped, failed_batches >= 0 AS counted
FROM clarify.audit_queue() WHERE database = current_database();
RESET pg_clarify.resolution;
