-- Async mode and databases: async decisions are queued and written shortly after; each database
-- audits its own decisions in its own clarify.audit.
SET pg_clarify.audit_mode = async;
SET ROLE regress_agent;
SET pg_clarify.resolution = '{"question_id": "q_async", "question": "booked revenue", "bindings": [{"concept": "metric.booked_revenue", "source": "explicit"}]}';
DO $$
DECLARE
  total numeric;
BEGIN
  FOR i IN 1..200 LOOP
    SELECT sum(booked_amount) INTO total FROM sales.orders;
  END LOOP;
END $$;
SELECT d->>'audited' AS audited FROM clarify.last_decision() d;
RESET ROLE;
RESET pg_clarify.audit_mode;
DO $$
BEGIN
  FOR i IN 1..200 LOOP
    EXIT WHEN (SELECT count(*) FROM clarify.audit_log WHERE question_id = 'q_async') >= 200;
    PERFORM pg_sleep(0.05);
  END LOOP;
END $$;
SELECT clarify.audit_wait() AS caught_up \gset
SELECT count(*) AS async_rows, count(DISTINCT decision_id) AS distinct_ids FROM clarify.audit_log WHERE question_id = 'q_async';
SELECT dropped FROM clarify.audit_queue() WHERE database = current_database();

-- Another database with the extension: its decisions land in its own audit.
CREATE DATABASE regress_clarify_other;
SELECT dblink_connect('other_dba', public.conninfo('regress_clarify_other'));
SELECT dblink_exec('other_dba', $sql$
  SET client_min_messages = warning;
  CREATE EXTENSION pg_clarify;
  CREATE TABLE public.shipments (id int, weight numeric);
  INSERT INTO public.shipments VALUES (1, 10);
  GRANT SELECT ON public.shipments TO regress_agent;
  INSERT INTO clarify.concepts (id, kind, label, status) VALUES ('metric.weight', 'metric', 'Shipped weight', 'approved');
  INSERT INTO clarify.concept_columns VALUES ('metric.weight', 'public.shipments', 'weight');
  DO $do$ BEGIN PERFORM clarify.govern_role('regress_agent'); END $do$;
$sql$);
SELECT dblink_connect('other_agent', public.conninfo('regress_clarify_other', 'regress_agent'));
SELECT dblink_exec('other_agent', $$SET pg_clarify.resolution = '{"question_id": "q_other_db"}'$$);
SELECT * FROM dblink('other_agent', 'SELECT sum(weight) FROM public.shipments') AS t(total numeric);
SELECT * FROM dblink('other_dba', 'SELECT clarify.audit_wait()') AS t(other_caught_up boolean) \gset
SELECT * FROM dblink('other_dba', $$SELECT decision || ' ' || statement FROM clarify.audit WHERE question_id = 'q_other_db'$$) AS t(audited text);
SELECT clarify.audit_wait() AS caught_up \gset
SELECT count(*) AS rows_here FROM clarify.audit_log WHERE question_id = 'q_other_db';
SELECT dblink_disconnect('other_agent');
SELECT dblink_disconnect('other_dba');
DROP DATABASE regress_clarify_other WITH (FORCE);
