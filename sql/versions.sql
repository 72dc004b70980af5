-- Definitions change; approvals notice (docs/dba-guide.md, "When a definition changes"): which
-- changes raise a concept's version, and what a confirmation or a default given for an older
-- version does then (UNVERIFIED, UNSUPPORTED) until it is given again.
SET client_min_messages = warning;
CREATE SCHEMA ver;
CREATE TABLE ver.sales (id int PRIMARY KEY, net numeric, gross numeric, rebates numeric,
                        sold_on date, snapshot_on date);
INSERT INTO ver.sales SELECT g, g * 10, g * 12, g, date '2026-01-01' + g, date '2026-01-01'
  FROM generate_series(1, 3) g;
GRANT USAGE ON SCHEMA ver TO PUBLIC;
GRANT SELECT ON ALL TABLES IN SCHEMA ver TO PUBLIC;
INSERT INTO clarify.concepts (id, kind, label, description, owner, status) VALUES
  ('metric.ver_net', 'metric', 'Net turnover', 'Sales after returns', 'Finance', 'approved'),
  ('metric.ver_gross', 'metric', 'Gross turnover', 'Sales before returns', 'Finance', 'approved');
INSERT INTO clarify.concepts (id, kind, label, status, window_start, window_end) VALUES
  ('window.ver_q1', 'time_window', 'First quarter', 'approved', $$date '2026-01-01'$$, $$date '2026-04-01'$$);
INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES
  ('metric.ver_net', 'ver.sales', 'net'), ('metric.ver_gross', 'ver.sales', 'gross');
INSERT INTO clarify.terms (term, concept_id) VALUES
  ('turnover', 'metric.ver_net'), ('turnover', 'metric.ver_gross');
-- What one catalog change does to a concept's version.
CREATE FUNCTION public.version_after(concept text, change text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE before int; after int;
BEGIN
  SELECT version INTO before FROM clarify.concepts WHERE id = concept;
  EXECUTE change;
  SELECT version INTO after FROM clarify.concepts WHERE id = concept;
  RETURN CASE WHEN after > before THEN 'raised' WHEN after = before THEN 'kept' ELSE 'lowered' END;
END $$;
RESET client_min_messages;

-- Each change of meaning raises the version.
SELECT public.version_after('metric.ver_net', $$UPDATE clarify.concepts SET label = 'Net turnover (IFRS)' WHERE id = 'metric.ver_net'$$) AS label;
SELECT public.version_after('metric.ver_net', $$UPDATE clarify.concepts SET description = 'Sales after returns and rebates' WHERE id = 'metric.ver_net'$$) AS description;
SELECT public.version_after('metric.ver_net', $$UPDATE clarify.concepts SET additivity = 'semi_additive' WHERE id = 'metric.ver_net'$$) AS additivity;
SELECT public.version_after('metric.ver_net', $$UPDATE clarify.concepts SET allowed_aggregates = '{sum}' WHERE id = 'metric.ver_net'$$) AS allowed_aggregates;
SELECT public.version_after('metric.ver_net', $$INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES ('metric.ver_net', 'ver.sales', 'rebates')$$) AS column_added;
SELECT public.version_after('metric.ver_net', $$UPDATE clarify.concept_columns SET column_name = 'gross' WHERE concept_id = 'metric.ver_net' AND column_name = 'rebates'$$) AS column_changed;
SELECT public.version_after('metric.ver_net', $$DELETE FROM clarify.concept_columns WHERE concept_id = 'metric.ver_net' AND column_name = 'gross'$$) AS column_removed;
SELECT public.version_after('metric.ver_net', $$UPDATE clarify.concept_columns SET snapshot_column = 'snapshot_on' WHERE concept_id = 'metric.ver_net'$$) AS snapshot_column;
SELECT public.version_after('metric.ver_net', $$UPDATE clarify.concept_columns SET time_column = 'sold_on' WHERE concept_id = 'metric.ver_net'$$) AS time_column;
SELECT public.version_after('metric.ver_net', $$UPDATE clarify.concept_columns SET requires_time_range = true WHERE concept_id = 'metric.ver_net'$$) AS requires_time_range;
SELECT public.version_after('window.ver_q1', $$UPDATE clarify.concepts SET window_start = $q$date '2026-01-02'$q$ WHERE id = 'window.ver_q1'$$) AS window_start;
SELECT public.version_after('window.ver_q1', $$UPDATE clarify.concepts SET window_end = $q$date '2026-04-02'$q$ WHERE id = 'window.ver_q1'$$) AS window_end;
-- A mapping moved to another concept changes both.
SELECT public.version_after('metric.ver_gross', $$INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES ('metric.ver_gross', 'ver.sales', 'rebates')$$) AS added_to_gross;
SELECT version AS net_before FROM clarify.concepts WHERE id = 'metric.ver_net' \gset
SELECT public.version_after('metric.ver_gross', $$UPDATE clarify.concept_columns SET concept_id = 'metric.ver_net' WHERE concept_id = 'metric.ver_gross' AND column_name = 'rebates'$$) AS moved_from_gross;
SELECT version > :net_before AS moved_to_net FROM clarify.concepts WHERE id = 'metric.ver_net';
DELETE FROM clarify.concept_columns WHERE column_name = 'rebates';
UPDATE clarify.concept_columns SET requires_time_range = false, time_column = NULL, snapshot_column = NULL WHERE concept_id = 'metric.ver_net';
UPDATE clarify.concepts SET additivity = 'additive', allowed_aggregates = NULL WHERE id = 'metric.ver_net';

-- What is not meaning keeps it: status, availability, validity, aliases, owner, kind.
SELECT public.version_after('metric.ver_net', $$UPDATE clarify.concepts SET status = 'deprecated' WHERE id = 'metric.ver_net'$$) AS status;
SELECT public.version_after('metric.ver_net', $$UPDATE clarify.concepts SET status = 'approved', available = false WHERE id = 'metric.ver_net'$$) AS available;
SELECT public.version_after('metric.ver_net', $$UPDATE clarify.concepts SET available = true, valid_from = '2020-01-01', valid_until = '2100-01-01' WHERE id = 'metric.ver_net'$$) AS validity;
SELECT public.version_after('metric.ver_net', $$UPDATE clarify.concepts SET aliases = '{net sales}' WHERE id = 'metric.ver_net'$$) AS aliases;
SELECT public.version_after('metric.ver_net', $$UPDATE clarify.concepts SET owner = 'Controlling' WHERE id = 'metric.ver_net'$$) AS owner;
SELECT public.version_after('metric.ver_net', $$UPDATE clarify.concepts SET kind = 'dimension' WHERE id = 'metric.ver_net'$$) AS kind;
UPDATE clarify.concepts SET kind = 'metric' WHERE id = 'metric.ver_net';
SELECT public.version_after('metric.ver_net', $$UPDATE clarify.concept_columns SET column_name = column_name WHERE concept_id = 'metric.ver_net'$$) AS rewritten_unchanged;
-- The catalog following DDL is the same mapping: a column, a table, a schema renamed.
SELECT public.version_after('metric.ver_net', $$ALTER TABLE ver.sales RENAME COLUMN net TO net_amount$$) AS column_renamed;
SELECT public.version_after('metric.ver_net', $$ALTER TABLE ver.sales RENAME TO turnover$$) AS table_renamed;
SELECT public.version_after('metric.ver_net', $$ALTER SCHEMA ver RENAME TO ver2$$) AS schema_renamed;
SELECT column_name, table_name, schema_name FROM clarify.concept_columns WHERE concept_id = 'metric.ver_net';
ALTER SCHEMA ver2 RENAME TO ver;
ALTER TABLE ver.turnover RENAME TO sales;
ALTER TABLE ver.sales RENAME COLUMN net_amount TO net;
-- A concept's id renamed is the same concept.
SELECT version AS net_before FROM clarify.concepts WHERE id = 'metric.ver_net' \gset
UPDATE clarify.concepts SET id = 'metric.ver_net_renamed' WHERE id = 'metric.ver_net';
SELECT version = :net_before AS id_renamed_kept FROM clarify.concepts WHERE id = 'metric.ver_net_renamed';
UPDATE clarify.concepts SET id = 'metric.ver_net' WHERE id = 'metric.ver_net_renamed';

-- A DBA may raise the version by hand (it is obeyed), never lower it.
SELECT version AS net_before FROM clarify.concepts WHERE id = 'metric.ver_net' \gset
UPDATE clarify.concepts SET version = version + 10 WHERE id = 'metric.ver_net';
SELECT version - :net_before AS raised_by_hand FROM clarify.concepts WHERE id = 'metric.ver_net';
UPDATE clarify.concepts SET version = version + 1, label = 'Net turnover' WHERE id = 'metric.ver_net';
SELECT version - :net_before AS raised_by_hand_with_a_change FROM clarify.concepts WHERE id = 'metric.ver_net';
UPDATE clarify.concepts SET version = 1 WHERE id = 'metric.ver_net';
SELECT version - :net_before AS not_lowered FROM clarify.concepts WHERE id = 'metric.ver_net';

-- A confirmation records the version the user confirmed, and holds while it is current.
SET ROLE regress_app;
SELECT clarify.confirm('q_ver_1', 'turnover', 'metric.ver_net', 'regress_agent', 'user:dana', '1 day', 'Show turnover') AS first_approval \gset
RESET ROLE;
SELECT a.concept_version = c.version AS confirmed_current
  FROM clarify.approvals a JOIN clarify.concepts c ON c.id = a.concept_id WHERE a.id = :first_approval;
SET ROLE regress_agent;
SET pg_clarify.resolution = '{"question_id": "q_ver_1", "question": "Show turnover", "bindings": [{"term": "turnover", "concept": "metric.ver_net", "source": "user_confirmation"}]}';
SELECT public.gate_state('SELECT sum(net) FROM ver.sales') AS before_change;
SELECT (d->'bindings'->0->>'version')::int = (SELECT version FROM clarify.concepts WHERE id = 'metric.ver_net') AS binding_version,
       (d->'bindings'->0->>'approval_id')::bigint = :first_approval AS binding_approval
  FROM clarify.last_decision() d;
RESET ROLE;
SELECT version AS net_confirmed FROM clarify.concepts WHERE id = 'metric.ver_net' \gset
-- Finance changes what net turnover means: the confirmation no longer verifies.
UPDATE clarify.concepts SET description = 'Sales after returns, rebates and discounts' WHERE id = 'metric.ver_net';
SET ROLE regress_agent;
SELECT g->>'sqlstate' AS sqlstate, g->>'message' AS message, g->>'hint' AS hint,
       g->'detail'->'slots'->0->>'reason' AS reason,
       (g->'detail'->'slots'->0->>'approved_version')::int = :net_confirmed AS approved_version,
       (g->'detail'->'slots'->0->>'current_version')::int = :net_confirmed + 1 AS current_version
  FROM public.gate('SELECT sum(net) FROM ver.sales') g;
SELECT c->>'state' AS check_state, c->'slots'->0->>'reason' AS check_reason,
       (c->'slots'->0->>'approved_version')::int = :net_confirmed AS check_approved_version
  FROM clarify.check('SELECT sum(net) FROM ver.sales') c;
SELECT r->>'decision' AS decision, r->>'reason' AS reason,
       (r->>'approved_version')::int = :net_confirmed AS resolve_approved_version
  FROM clarify.resolve('turnover') r;
RESET ROLE;
SELECT severity, problem, regexp_replace(fix, '(id = |revoke\()\d+', '\1<id>') AS fix
  FROM clarify.stale_approvals WHERE concept_id LIKE 'metric.ver%' ORDER BY kind, id;
SELECT object = 'clarify.approvals id ' || :first_approval AS stale_object
  FROM clarify.stale_approvals WHERE concept_id LIKE 'metric.ver%';
-- lint() lists the same rows, with their fixes.
SELECT l.severity, l.problem = s.problem AS same_problem, l.fix = s.fix AS same_fix
  FROM clarify.lint() l JOIN clarify.stale_approvals s ON s.object = l.object
 WHERE s.concept_id LIKE 'metric.ver%';
-- The user confirms the new definition: it verifies again.
SET ROLE regress_app;
SELECT clarify.confirm('q_ver_1', 'turnover', 'metric.ver_net', 'regress_agent', 'user:dana', '1 day', 'Show turnover') AS second_approval \gset
SET ROLE regress_agent;
SELECT public.gate_state('SELECT sum(net) FROM ver.sales') AS confirmed_again;
RESET ROLE;
SELECT count(*) AS stale_after_confirming FROM clarify.stale_approvals WHERE concept_id LIKE 'metric.ver%' AND id <> :first_approval;
-- A confirmation's version is what the user saw: it is never changed, and never one that does not exist.
SELECT g->>'sqlstate' AS sqlstate, g->>'hint' AS hint
  FROM public.gate('UPDATE clarify.approvals SET concept_version = concept_version + 1 WHERE id = ' || :first_approval) g;
INSERT INTO clarify.approvals (question_id, term, concept_id, granted_to, confirmed_by, expires_at, concept_version)
  VALUES ('q_ver_2', 'turnover', 'metric.ver_net', 'regress_agent', 'user:dana', now() + interval '1 hour', 1000);
SELECT 1 AS revoked FROM clarify.revoke(:first_approval);

-- A default takes the concept's current version unless given; a version that does not exist is refused.
INSERT INTO clarify.defaults (term, concept_id, approved_by, concept_version)
  VALUES ('turnover', 'metric.ver_gross', 'Sales director', 1000);
INSERT INTO clarify.defaults (term, concept_id, approved_by)
  VALUES ('turnover', 'metric.ver_gross', 'Sales director');
SELECT d.concept_version = c.version AS default_current, d.approved_at AS approved_at_first
  FROM clarify.defaults d JOIN clarify.concepts c ON c.id = d.concept_id WHERE d.term = 'turnover' \gset
SELECT :'default_current' AS default_current;
SET ROLE regress_agent;
SET pg_clarify.resolution = '{"question_id": "q_ver_3", "question": "Show turnover"}';
SELECT public.gate_state('SELECT sum(gross) FROM ver.sales') AS default_applies;
SELECT r->>'decision' AS decision, r->>'selected' AS selected,
       (r->>'version')::int = (SELECT version FROM clarify.concepts WHERE id = 'metric.ver_gross') AS resolve_version
  FROM clarify.resolve('turnover') r;
RESET ROLE;
SELECT version AS gross_approved FROM clarify.concepts WHERE id = 'metric.ver_gross' \gset
-- Gross turnover changes: its default no longer applies, and the term is refused (QC002) naming it.
UPDATE clarify.concepts SET label = 'Gross turnover incl. tax' WHERE id = 'metric.ver_gross';
SET ROLE regress_agent;
SELECT g->>'sqlstate' AS sqlstate, g->>'hint' AS hint, g->'detail'->'slots'->0->>'reason' AS reason,
       g->'detail'->'slots'->0->>'default' AS "default",
       (g->'detail'->'slots'->0->>'approved_version')::int = :gross_approved AS approved_version
  FROM public.gate('SELECT sum(gross) FROM ver.sales') g;
SELECT public.gate_state('SELECT sum(net) FROM ver.sales') AS other_meaning;
SELECT r->>'decision' AS decision, r->>'default' AS "default", r->>'default_applied' AS default_applied,
       r->>'reason' AS reason, (r->>'current_version')::int = :gross_approved + 1 AS resolve_current_version
  FROM clarify.resolve('turnover') r;
-- An agent cannot write versions.
UPDATE clarify.defaults SET concept_version = concept_version + 1 WHERE term = 'turnover';
UPDATE clarify.concepts SET version = version + 1 WHERE id = 'metric.ver_gross';
INSERT INTO clarify.approvals (question_id, term, concept_id, granted_to, confirmed_by, expires_at)
  VALUES ('q_ver_4', 'turnover', 'metric.ver_gross', 'regress_agent', 'me', now() + interval '1 hour');
SELECT count(*) FROM clarify.stale_approvals;
RESET ROLE;
SELECT severity, problem, regexp_replace(fix, '(id = |revoke\()\d+', '\1<id>') AS fix
  FROM clarify.stale_approvals WHERE concept_id LIKE 'metric.ver%' ORDER BY kind, id;
-- Re-approval: only for the current version.
SELECT g->>'sqlstate' AS sqlstate, g->>'message' AS message, regexp_replace(g->>'hint', 'id = \d+', 'id = <id>') AS hint
  FROM public.gate($$UPDATE clarify.defaults SET concept_version = $$ || :gross_approved || $$, approved_by = 'Sales director' WHERE term = 'turnover'$$) g;
SELECT g->>'sqlstate' AS sqlstate, g->>'message' AS message
  FROM public.gate($$UPDATE clarify.defaults SET concept_version = $$ || :gross_approved + 2 || $$, approved_by = 'Sales director' WHERE term = 'turnover'$$) g;
-- A term renamed keeps the default's approval as it is (stale here).
UPDATE clarify.terms SET term = 'revenue turnover' WHERE term = 'turnover';
SELECT concept_version = :gross_approved AS renamed_term_kept FROM clarify.defaults WHERE term = 'revenue turnover';
UPDATE clarify.terms SET term = 'turnover' WHERE term = 'revenue turnover';
UPDATE clarify.defaults SET concept_version = :gross_approved + 1, approved_by = 'Head of sales' WHERE term = 'turnover';
SELECT approved_by, approved_at > :'approved_at_first' AS approved_again FROM clarify.defaults WHERE term = 'turnover';
SELECT count(*) AS stale_after_approving FROM clarify.stale_approvals WHERE concept_id LIKE 'metric.ver%';
SET ROLE regress_agent;
SELECT public.gate_state('SELECT sum(gross) FROM ver.sales') AS approved_again;
RESET ROLE;
SELECT clarify.audit_wait() AS caught_up;
SELECT (bindings->0->>'version')::int = :gross_approved + 1 AS audited_version, bindings->0->>'source' AS source
  FROM clarify.audit WHERE question_id = 'q_ver_3' AND decision = 'allowed' ORDER BY decided_at DESC LIMIT 1;
SELECT (payload->'slots'->0->>'approved_version')::int = :gross_approved AS audited_stale_version,
       payload->>'state' AS audited_state
  FROM clarify.audit WHERE question_id = 'q_ver_3' AND decision = 'rejected'
 ORDER BY decided_at DESC LIMIT 1;
-- A version raised by hand asks for every approval again.
UPDATE clarify.concepts SET version = version + 1 WHERE id = 'metric.ver_gross';
SET ROLE regress_agent;
SELECT public.gate_state('SELECT sum(gross) FROM ver.sales') AS raised_by_hand;
RESET ROLE;
UPDATE clarify.defaults d SET concept_version = c.version, approved_by = 'Head of sales'
  FROM clarify.concepts c WHERE c.id = d.concept_id AND d.term = 'turnover';
SET ROLE regress_agent;
SELECT public.gate_state('SELECT sum(gross) FROM ver.sales') AS approved_after_raise;
RESET ROLE;
RESET pg_clarify.resolution;

-- Leave the catalog as the other tests found it.
SET client_min_messages = warning;
DELETE FROM clarify.defaults WHERE term = 'turnover';
DELETE FROM clarify.approvals WHERE concept_id LIKE 'metric.ver_%';
DELETE FROM clarify.concepts WHERE id IN ('metric.ver_net', 'metric.ver_gross', 'window.ver_q1');
DROP SCHEMA ver CASCADE;
DROP FUNCTION public.version_after(text, text);
RESET client_min_messages;
