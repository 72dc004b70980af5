-- The catalog cache (docs/reference.md, "Tables and views"): a committed change applies to every
-- session at its next statement; an uncommitted or rolled-back one never does. A second session is
-- opened with dblink.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dblink;
RESET client_min_messages;
SELECT dblink_connect('agent', public.conninfo(current_database(), 'regress_agent'));
CREATE FUNCTION public.agent_says(sql text) RETURNS text LANGUAGE sql AS $$
  SELECT s FROM dblink('agent', format('SELECT public.gate_state(%L)', sql)) AS t(s text) $$;

SELECT public.agent_says('SELECT sum(recognized_amount) FROM sales.revenue_ledger') AS before_default;
-- Uncommitted: the other session does not see it.
BEGIN;
INSERT INTO clarify.defaults (term, concept_id, approved_by) VALUES ('revenue', 'metric.recognized_revenue', 'Finance controller');
SELECT public.agent_says('SELECT sum(recognized_amount) FROM sales.revenue_ledger') AS uncommitted_default;
ROLLBACK;
SELECT public.agent_says('SELECT sum(recognized_amount) FROM sales.revenue_ledger') AS rolled_back_default;
-- Committed: the agent's very next statement uses it, without reconnecting.
INSERT INTO clarify.defaults (term, concept_id, approved_by) VALUES ('revenue', 'metric.recognized_revenue', 'Finance controller');
SELECT public.agent_says('SELECT sum(recognized_amount) FROM sales.revenue_ledger') AS committed_default;
UPDATE clarify.concepts SET available = false WHERE id = 'metric.recognized_revenue';
SELECT public.agent_says('SELECT sum(recognized_amount) FROM sales.revenue_ledger') AS default_went_down;
UPDATE clarify.concepts SET available = true WHERE id = 'metric.recognized_revenue';
DELETE FROM clarify.defaults;
SELECT public.agent_says('SELECT sum(recognized_amount) FROM sales.revenue_ledger') AS default_deleted;
-- Governing a new column, releasing and governing roles: also at the next statement.
SELECT public.agent_says('SELECT max(order_date) FROM sales.orders') AS order_date_ungoverned;
INSERT INTO clarify.concept_columns VALUES ('metric.booked_revenue', 'sales.orders', 'order_date');
SELECT public.agent_says('SELECT max(order_date) FROM sales.orders') AS order_date_governed;
DELETE FROM clarify.concept_columns WHERE column_name = 'order_date';
SELECT clarify.release_role('regress_agent');
SELECT public.agent_says('SELECT sum(booked_amount) FROM sales.orders') AS released;
SELECT clarify.govern_role('regress_agent');
SELECT public.agent_says('SELECT sum(booked_amount) FROM sales.orders') AS governed;
-- A renamed governed column stays governed: the gate follows the column, not its name.
ALTER TABLE sales.orders RENAME COLUMN booked_amount TO booked_amt;
SELECT public.agent_says('SELECT sum(booked_amt) FROM sales.orders') AS renamed_column;
ALTER TABLE sales.orders RENAME COLUMN booked_amt TO booked_amount;
SELECT dblink_disconnect('agent');

-- A session inside a REPEATABLE READ transaction still loads the newest catalog: governing a
-- role takes effect at its next statement, not after its snapshot ends.
SELECT dblink_connect('analyst', public.conninfo(current_database(), 'regress_analyst'));
SELECT dblink_exec('analyst', 'BEGIN ISOLATION LEVEL REPEATABLE READ');
SELECT s AS analyst_before FROM dblink('analyst', $$SELECT public.gate_state('SELECT sum(booked_amount) FROM sales.orders')$$) AS t(s text);
SELECT clarify.govern_role('regress_analyst');
SELECT s AS analyst_governed_mid_transaction FROM dblink('analyst', $$SELECT public.gate_state('SELECT sum(booked_amount) FROM sales.orders')$$) AS t(s text);
SELECT dblink_exec('analyst', 'COMMIT');
SELECT dblink_disconnect('analyst');
SELECT clarify.release_role('regress_analyst');
