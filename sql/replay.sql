-- clarify.replay() (docs/dba-guide.md, "Rolling out"): audited statements decided again now, as
-- their roles and under their records, against the catalog this transaction sees; nothing runs
-- and nothing is audited.
SELECT clarify.audit_wait() AS caught_up \gset
SELECT now() AS replay_since \gset
CREATE SEQUENCE public.replay_seq;
CREATE TABLE public.replay_gone (id int, amount numeric);
INSERT INTO public.replay_gone VALUES (1, 5);
INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES ('metric.booked_revenue', 'public.replay_gone', 'amount');
GRANT SELECT ON public.replay_gone TO regress_agent;
GRANT USAGE ON SEQUENCE public.replay_seq TO regress_agent;
-- The agent's statements run under audit (they would be AMBIGUOUS), and are audited.
SET pg_clarify.enforcement = audit;
SET ROLE regress_agent;
SET pg_clarify.resolution = '{"question_id": "q_replay", "question": "Show revenue"}';
SELECT nextval('public.replay_seq') AS n, sum(booked_amount) AS total FROM sales.orders;
SELECT sum(amount) AS gone_total FROM public.replay_gone;
SET pg_clarify.resolution = '{"question_id": "q_replay_bound", "question": "booked revenue", "bindings": [{"concept": "metric.booked_revenue", "source": "explicit"}]}';
SELECT sum(booked_amount) AS total FROM sales.orders;
RESET ROLE;
RESET pg_clarify.enforcement;
SET client_min_messages = error;
DROP TABLE public.replay_gone;
RESET client_min_messages;
SELECT clarify.audit_wait() AS caught_up \gset
SELECT count(*) AS audited_before FROM clarify.audit_log \gset

-- Now, as they were decided.
SELECT statement, was_state, now_state, now_detail->>'decision' AS now_decision,
       now_detail->>'reason' AS why
FROM clarify.replay(:'replay_since');
-- A default for the agent, tried in a transaction that is rolled back: the ambiguous statement
-- would now be resolved (decided as regress_agent, whom the default is for).
BEGIN;
INSERT INTO clarify.defaults (term, concept_id, applies_to, approved_by)
  VALUES ('revenue', 'metric.booked_revenue', 'regress_agent', 'dba');
SELECT statement, was_state, now_state FROM clarify.replay(:'replay_since');
ROLLBACK;
SELECT count(*) AS agent_defaults_after FROM clarify.defaults WHERE applies_to = 'regress_agent';
SELECT statement, now_state FROM clarify.replay(:'replay_since') WHERE statement LIKE '%orders%';
-- max_rows keeps the most recent; until bounds the range.
SELECT statement FROM clarify.replay(:'replay_since', max_rows => 1);
SELECT count(*) AS none_in_an_empty_range FROM clarify.replay(:'replay_since', :'replay_since');

-- Nothing ran: the sequence advanced once (the real run), and nothing was audited.
SELECT last_value AS sequence_value FROM public.replay_seq;
SELECT clarify.audit_wait() AS caught_up \gset
SELECT count(*) - :audited_before AS new_audit_rows FROM clarify.audit_log;

-- Owner and audit readers only (the refusal's CONTEXT line differs between versions).
\set SHOW_CONTEXT never
SET ROLE regress_agent;
SELECT * FROM clarify.replay(:'replay_since');
SET ROLE regress_analyst;
SELECT * FROM clarify.replay(:'replay_since');
SELECT clarify.replay_decision('SELECT 1', 0, 0, NULL);
\set SHOW_CONTEXT errors
RESET ROLE;
DROP SEQUENCE public.replay_seq;
