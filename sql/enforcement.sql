-- Rolling the gate out (docs/dba-guide.md, "Rolling out"): pg_clarify.enforcement = enforce |
-- warn | audit. Every decision is made and audited; in warn and audit a would-be rejection runs
-- (warn tells the client with the rejection's SQLSTATE, MESSAGE, DETAIL and HINT); agents cannot
-- change the mode.
SELECT clarify.audit_wait() AS caught_up \gset
SHOW pg_clarify.enforcement;

-- warn: the AMBIGUOUS statement runs; the WARNING carries QC001, the message, DETAIL and HINT.
SET pg_clarify.enforcement = warn;
SET ROLE regress_agent;
SET pg_clarify.resolution = '{"question_id": "q_enf_warn", "question": "Show revenue"}';
-- Its SQLSTATE, then its message (test/shell/enforcement_qc005.t shows the DETAIL and HINT).
\set VERBOSITY sqlstate
SELECT sum(booked_amount) AS total FROM sales.orders;
\set VERBOSITY terse
SELECT sum(booked_amount) AS total FROM sales.orders;
\set VERBOSITY default
SELECT clarify.last_decision()->>'enforcement' AS last_enforcement,
       clarify.last_decision()->>'decision' AS last_decision,
       clarify.last_decision()->>'state' AS last_state;
-- An allowed statement in warn mode: no warning.
SET pg_clarify.resolution = '{"question_id": "q_enf_warn_ok", "question": "booked revenue", "bindings": [{"concept": "metric.booked_revenue", "source": "explicit"}]}';
SELECT sum(booked_amount) AS total FROM sales.orders;
-- check() says what enforce would do, and the mode.
SET pg_clarify.resolution = '{"question_id": "q_enf_check", "question": "Show revenue"}';
SELECT c->>'decision' AS decision, c->>'state' AS state, c->>'enforcement' AS enforcement
FROM clarify.check('SELECT sum(booked_amount) FROM sales.orders') c;
RESET ROLE;

-- audit: it runs silently.
SET pg_clarify.enforcement = audit;
SET ROLE regress_agent;
SET pg_clarify.resolution = '{"question_id": "q_enf_audit", "question": "Show revenue"}';
SELECT sum(booked_amount) AS total FROM sales.orders;
-- GRAIN (QC006) is relaxed too.
SET pg_clarify.resolution = '{"question_id": "q_enf_grain", "question": "booked revenue", "bindings": [{"concept": "metric.booked_revenue", "source": "explicit"}]}';
SELECT sum(o.booked_amount) > 0 AS ran FROM sales.orders o JOIN sales.invoices i ON i.order_id > o.id;
SELECT clarify.last_decision()->>'enforcement' AS last_enforcement;
RESET ROLE;

-- enforce: the same statement is refused.
RESET pg_clarify.enforcement;
SET ROLE regress_agent;
SET pg_clarify.resolution = '{"question_id": "q_enf_enforce", "question": "Show revenue"}';
SELECT public.gate_state('SELECT sum(booked_amount) FROM sales.orders') AS enforced;
RESET ROLE;

-- The audit: the gate's state, what happened, and the mode.
SELECT clarify.audit_wait() AS caught_up \gset
SELECT question_id, decision, state, enforcement, payload->>'state' AS payload_state
FROM clarify.audit WHERE question_id LIKE 'q_enf_%' ORDER BY decided_at;

-- Agents cannot change it: SET, SET LOCAL, set_config(), RESET, ALTER ROLE, a function's SET
-- clause (at CREATE and when called).
ALTER ROLE regress_agent SET pg_clarify.enforcement = warn;
CREATE SCHEMA regress_agent_code AUTHORIZATION regress_agent;
\c - regress_agent
SHOW pg_clarify.enforcement;
SET pg_clarify.enforcement = audit;
SET pg_clarify.enforcement = enforce;
BEGIN;
SET LOCAL pg_clarify.enforcement = audit;
ROLLBACK;
SELECT set_config('pg_clarify.enforcement', 'audit', false);
SELECT set_config('pg_clarify.enforcement', 'audit', true);
RESET pg_clarify.enforcement;
RESET ALL;
SHOW pg_clarify.enforcement;
ALTER ROLE regress_agent SET pg_clarify.enforcement = audit;
ALTER ROLE regress_agent RESET pg_clarify.enforcement;
CREATE FUNCTION regress_agent_code.agent_audit_mode() RETURNS text LANGUAGE sql
  SET pg_clarify.enforcement = audit AS $$ SELECT current_setting('pg_clarify.enforcement') $$;
SELECT regress_agent_code.agent_audit_mode();
SHOW pg_clarify.enforcement;
\c - postgres
DROP SCHEMA regress_agent_code CASCADE;
-- A function created by the DBA with the SET clause, owned by the agent afterwards, still cannot
-- be called by it with that setting.
CREATE FUNCTION public.agent_audit_mode() RETURNS text LANGUAGE sql
  SET pg_clarify.enforcement = audit AS $$ SELECT current_setting('pg_clarify.enforcement') $$;
ALTER FUNCTION public.agent_audit_mode() OWNER TO regress_agent;
\c - regress_agent
SELECT public.agent_audit_mode();
SHOW pg_clarify.enforcement;
\c - postgres
DROP FUNCTION public.agent_audit_mode();
ALTER ROLE regress_agent RESET pg_clarify.enforcement;

-- Per database, by a superuser: new sessions there start in that mode.
SELECT current_database() AS regress_database \gset
ALTER DATABASE :"regress_database" SET pg_clarify.enforcement = audit;
\c - regress_agent
SHOW pg_clarify.enforcement;
SET pg_clarify.resolution = '{"question_id": "q_enf_database", "question": "Show revenue"}';
SELECT sum(booked_amount) AS total FROM sales.orders;
\c - postgres
ALTER DATABASE :"regress_database" RESET pg_clarify.enforcement;
SELECT clarify.audit_wait() AS caught_up \gset
SELECT decision, state, enforcement FROM clarify.audit WHERE question_id = 'q_enf_database';
\c - regress_agent
SHOW pg_clarify.enforcement;
\c - postgres
