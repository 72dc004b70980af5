\echo Use "ALTER EXTENSION pg_clarify UPDATE TO '1.1'" to load this file. \quit

-- pg_clarify 1.0 -> 1.1. Every change here is also in pg_clarify--1.1.sql, so that an updated
-- database and a fresh 1.1 install have the same schema (test/shell/upgrade.t compares them).

--------------------------------------------------------------------------------------------------
-- Audit identities: keyed 128-bit hashes (uuid) instead of unkeyed 64-bit ones (bigint)
--------------------------------------------------------------------------------------------------

-- An agent could craft two statements (or records, or decision shapes) with the same 64-bit
-- hash, so that one was audited under the other's text. Texts and shapes are now stored under a
-- keyed 128-bit hash (16 bytes, as uuid). Existing identities keep their value in the last 8 bytes
-- with 8 zero bytes in front ('00000000-0000-0000-' followed by the old hash in hexadecimal):
-- every old row keeps its texts, and a keyed hash meets such a value with probability 2^-64 at
-- most (the writer compares bytes before it reuses a text in any case). The views over these
-- columns are dropped and created again unchanged, with the privileges granted on them since.
CREATE TABLE clarify.audit_view_grants_1_0 AS
SELECT c.relname AS view_name, a.grantee, a.privilege_type, a.is_grantable
FROM pg_catalog.pg_class c
CROSS JOIN LATERAL pg_catalog.aclexplode(c.relacl) AS a
WHERE c.relnamespace = 'clarify'::regnamespace AND c.relkind = 'v'
  AND c.relname IN ('audit_log', 'audit', 'audit_daily', 'audit_friction',
                    'audit_resolution_paths', 'audit_sources')
  AND a.grantee <> c.relowner;

DROP VIEW clarify.audit_sources, clarify.audit_resolution_paths, clarify.audit_friction,
    clarify.audit_daily;
DROP VIEW clarify.audit;
DROP VIEW clarify.audit_log;

CREATE FUNCTION clarify.audit_identities_of_1_0(hashes bigint[]) RETURNS uuid[]
    LANGUAGE sql IMMUTABLE
    SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(array_agg(lpad(to_hex(h), 32, '0')::uuid ORDER BY i), '{}')
    FROM unnest(hashes) WITH ORDINALITY AS u(h, i)
$$;

ALTER TABLE clarify.audit_texts
    ALTER COLUMN hash TYPE uuid USING pg_catalog.lpad(pg_catalog.to_hex(hash), 32, '0')::uuid;
ALTER TABLE clarify.audit_shapes
    ALTER COLUMN hash TYPE uuid USING pg_catalog.lpad(pg_catalog.to_hex(hash), 32, '0')::uuid;
-- A new type resets a column's compression: lz4 again, set before the table is rewritten.
ALTER TABLE clarify.audit_batches
    ALTER COLUMN statement_hashes TYPE uuid[]
        USING clarify.audit_identities_of_1_0(statement_hashes),
    ALTER COLUMN shape_hashes TYPE uuid[] USING clarify.audit_identities_of_1_0(shape_hashes),
    ALTER COLUMN record_hashes TYPE uuid[] USING clarify.audit_identities_of_1_0(record_hashes),
    ALTER COLUMN statement_hashes SET COMPRESSION lz4,
    ALTER COLUMN shape_hashes SET COMPRESSION lz4,
    ALTER COLUMN record_hashes SET COMPRESSION lz4;

DROP FUNCTION clarify.audit_identities_of_1_0(bigint[]);

CREATE VIEW clarify.audit_log AS
SELECT u.decision_id, u.decided_at, u.session_role, u.acting_role, u.pid, u.query_id,
       u.statement_hash, u.shape_hash, u.record_hash, u.question_id, b.batch_id
FROM clarify.audit_batches b
CROSS JOIN LATERAL unnest(b.decision_ids, b.decided_ats, b.session_roles, b.acting_roles, b.pids,
                          b.query_ids, b.statement_hashes, b.shape_hashes, b.record_hashes,
                          b.question_ids)
    AS u(decision_id, decided_at, session_role, acting_role, pid, query_id, statement_hash,
         shape_hash, record_hash, question_id);

COMMENT ON VIEW clarify.audit_log IS
    'One row per gated decision, allowed or rejected, as stored; read it through clarify.audit.';

CREATE VIEW clarify.audit AS
SELECT l.decision_id,
       l.decided_at,
       l.session_role::regrole AS session_role,
       l.acting_role::regrole AS acting_role,
       l.pid,
       l.question_id,
       st.body AS statement,
       l.query_id,
       CASE WHEN sh.allowed AND n.note IS NULL THEN 'allowed' ELSE 'rejected' END AS decision,
       CASE WHEN n.note IS NULL THEN sh.state ELSE 'AUDIT_UNAVAILABLE' END AS state,
       CASE WHEN n.note IS NULL THEN sh.reason
            ELSE n.note || ' (the gate had decided ' || sh.state || ')' END AS reason,
       sh.columns,
       sh.bindings,
       sh.payload || jsonb_build_object('decision_id', l.decision_id::text) AS payload,
       rec.body::jsonb AS record
FROM clarify.audit_log l
LEFT JOIN clarify.audit_texts st ON st.hash = l.statement_hash
LEFT JOIN clarify.audit_shapes sh ON sh.hash = l.shape_hash
LEFT JOIN clarify.audit_texts rec ON rec.hash = l.record_hash
LEFT JOIN LATERAL (SELECT string_agg(an.note, '; ') AS note FROM clarify.audit_notes an
                   WHERE an.decision_id = l.decision_id) n ON true;

COMMENT ON VIEW clarify.audit IS
    'Every decision of the gate: who, when, which statement, what it read, how each governed column was resolved, and the clarification asked for.';

CREATE VIEW clarify.audit_daily AS
SELECT date_trunc('day', decided_at) AS day, decision, state, count(*) AS decisions
FROM clarify.audit
GROUP BY 1, 2, 3;

COMMENT ON VIEW clarify.audit_daily IS 'Decisions per day, by outcome and state.';

CREATE VIEW clarify.audit_friction AS
SELECT slot ->> 'term' AS term,
       count(*) AS ambiguous_rejections,
       count(DISTINCT a.question_id) AS questions,
       min(a.decided_at) AS first_seen,
       max(a.decided_at) AS last_seen
FROM clarify.audit a
CROSS JOIN LATERAL jsonb_array_elements(a.payload -> 'slots') AS slot
WHERE a.decision = 'rejected' AND slot ->> 'state' = 'AMBIGUOUS'
GROUP BY 1;

COMMENT ON VIEW clarify.audit_friction IS
    'Which terms cause the most AMBIGUOUS rejections: candidates for an approved default.';

CREATE VIEW clarify.audit_resolution_paths AS
WITH per_question AS (
    SELECT question_id,
           min(decided_at) FILTER (WHERE decision = 'rejected') AS first_rejected_at,
           min(decided_at) FILTER (WHERE decision = 'allowed') AS first_allowed_at
    FROM clarify.audit
    WHERE question_id IS NOT NULL
    GROUP BY question_id
)
SELECT q.question_id,
       q.first_rejected_at,
       (SELECT min(p.created_at) FROM clarify.approvals p WHERE p.question_id = q.question_id)
           AS confirmed_at,
       q.first_allowed_at,
       (SELECT count(*) FROM clarify.audit a
        WHERE a.question_id = q.question_id AND a.decision = 'rejected'
          AND a.decided_at < coalesce(q.first_allowed_at, 'infinity')) AS rounds,
       q.first_allowed_at - q.first_rejected_at AS time_to_resolution
FROM per_question q;

COMMENT ON VIEW clarify.audit_resolution_paths IS
    'Per question: first rejection, the user''s confirmation, first allowed statement, the rounds of clarification in between and the time they took.';

CREATE VIEW clarify.audit_sources AS
SELECT b ->> 'source' AS source,
       count(*) AS covered_columns,
       round(100.0 * count(*) / sum(count(*)) OVER (), 1) AS percent
FROM clarify.audit a
CROSS JOIN LATERAL jsonb_array_elements(a.bindings) AS b
WHERE a.decision = 'allowed'
GROUP BY 1;

COMMENT ON VIEW clarify.audit_sources IS
    'How the governed columns of allowed statements were resolved: approved default, user confirmation, explicit naming or the only eligible meaning.';

REVOKE ALL ON clarify.audit_log, clarify.audit, clarify.audit_daily, clarify.audit_friction,
    clarify.audit_resolution_paths, clarify.audit_sources FROM PUBLIC;
DO $$
DECLARE
    g record;
BEGIN
    FOR g IN SELECT * FROM clarify.audit_view_grants_1_0 LOOP
        EXECUTE pg_catalog.format('GRANT %s ON clarify.%I TO %s%s', g.privilege_type, g.view_name,
            CASE WHEN g.grantee = 0 THEN 'PUBLIC' ELSE g.grantee::regrole::text END,
            CASE WHEN g.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END);
    END LOOP;
END
$$;
DROP TABLE clarify.audit_view_grants_1_0;

DROP FUNCTION clarify.audit_purge_begin();
CREATE FUNCTION clarify.audit_purge_begin() RETURNS uuid[]
    AS 'MODULE_PATHNAME', 'clarify_audit_purge_begin'
    LANGUAGE C VOLATILE;
REVOKE ALL ON FUNCTION clarify.audit_purge_begin() FROM PUBLIC;

CREATE OR REPLACE FUNCTION clarify.purge_audit(older_than interval) RETURNS bigint
    LANGUAGE plpgsql
    SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
    SET session_replication_role = replica
AS $$
DECLARE
    deleted bigint;
    queued  uuid[];
BEGIN
    IF older_than IS NULL OR older_than < interval '0' THEN
        RAISE EXCEPTION 'older_than must be a non-negative interval'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- The lock below only protects a batch in flight if this statement sees it commit.
    IF pg_catalog.current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'clarify.purge_audit() must run at READ COMMITTED isolation'
            USING ERRCODE = 'invalid_transaction_state';
    END IF;
    -- Waits for a batch in flight, and keeps the writer from reusing a text deleted here.
    LOCK TABLE clarify.audit_texts, clarify.audit_shapes IN SHARE MODE;
    -- Decisions still queued may refer to stored texts by hash alone: those are kept.
    queued := clarify.audit_purge_begin();
    WITH gone AS (
        DELETE FROM clarify.audit_batches WHERE last_decided_at < now() - older_than
        RETURNING pg_catalog.cardinality(decision_ids) AS decisions)
    SELECT coalesce(sum(decisions), 0) INTO deleted FROM gone;
    DELETE FROM clarify.audit_notes WHERE noted_at < now() - older_than
        AND decision_id NOT IN (SELECT decision_id FROM clarify.audit_log);
    DELETE FROM clarify.audit_texts
    WHERE hash NOT IN (SELECT statement_hash FROM clarify.audit_log
                       UNION ALL
                       SELECT record_hash FROM clarify.audit_log WHERE record_hash IS NOT NULL)
      AND hash <> ALL (queued);
    DELETE FROM clarify.audit_shapes
    WHERE hash NOT IN (SELECT shape_hash FROM clarify.audit_log) AND hash <> ALL (queued);
    INSERT INTO clarify.audit_purges (purged_by, older_than, rows_deleted)
    VALUES (session_user, older_than, deleted);
    RETURN deleted;
END
$$;

--------------------------------------------------------------------------------------------------
-- Audit queue: async decisions wait for room like sync ones and are never
-- dropped; only notes on refused decisions can be.
COMMENT ON FUNCTION clarify.audit_queue() IS
    'The audit queue of each database since the server started: decisions queued, written, notes dropped (a refused decision''s note that found the queue full; decisions are never dropped), decisions timed out (refused with QC005: not committed, or no room in the queue, within pg_clarify.audit_timeout), failed batches and the last error.';

--------------------------------------------------------------------------------------------------
-- clarify.check() plans as a role with no privileges of its own
--------------------------------------------------------------------------------------------------

-- Planning runs code (folded IMMUTABLE functions, estimators, cached support functions such as a
-- range type's subtype_diff): clarify.check() plans as this role, so code an agent wrote never
-- runs with the rights of whoever dry-runs its SQL. Roles are shared by the cluster's databases:
-- the first install creates it; nothing may be granted to it.
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'clarify_check') THEN
        CREATE ROLE clarify_check NOLOGIN NOINHERIT;
    END IF;
END
$$;
