\echo Use "ALTER EXTENSION pg_clarify UPDATE TO '1.1'" to load this file. \quit

-- pg_clarify 1.0 -> 1.1. Every change here is also in pg_clarify--1.1.sql, so that an updated
-- database and a fresh 1.1 install have the same schema (test/shell/upgrade.t compares them).

--------------------------------------------------------------------------------------------------
-- Confirmations bound to the question's text (approvals.question, confirm(..., question))
--------------------------------------------------------------------------------------------------

ALTER TABLE clarify.approvals
    ADD COLUMN question text CONSTRAINT approvals_question_check CHECK (question ~ '[^[:space:]]');
COMMENT ON COLUMN clarify.approvals.question IS
    'The question text the user answered: the confirmation holds only for a resolution record asking exactly this text (surrounding white space aside). NULL: any text of the question.';

-- confirm() gains a parameter, which makes it a new function. It is created beside the 1.0 one,
-- takes over the EXECUTE grants the DBA gave that one, and only then is the 1.0 one dropped: one
-- confirm() again, so that calls and GRANT ... ON FUNCTION clarify.confirm stay unambiguous.
CREATE FUNCTION clarify.confirm(question_id text,
                                term text,
                                concept text,
                                granted_to regrole,
                                confirmed_by text,
                                expires_in interval DEFAULT '1 hour',
                                question text DEFAULT NULL)
    RETURNS bigint
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    chosen      clarify.concepts;
    chosen_term text;
    asked       text;
    candidates  text;
    new_id      bigint;
BEGIN
    IF clarify.gated() THEN
        RAISE EXCEPTION 'agents cannot confirm their own bindings'
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'This session belongs to a role governed by pg_clarify.',
                  HINT = 'Confirmations must be recorded by the application acting for the user.';
    END IF;

    IF confirm.question_id IS NULL OR confirm.concept IS NULL OR confirm.granted_to IS NULL
       OR confirm.confirmed_by IS NULL OR confirm.expires_in IS NULL THEN
        RAISE EXCEPTION
            'question_id, concept, granted_to, confirmed_by and expires_in must not be NULL'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF confirm.question_id !~ '[^[:space:]]' THEN
        RAISE EXCEPTION 'question_id must not be empty'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF confirm.confirmed_by !~ '[^[:space:]]' THEN
        RAISE EXCEPTION 'confirmed_by must name the user who confirmed'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- Both ways: '1 month -29 days' compares as one day, yet from 1 February it lands in January.
    IF confirm.expires_in <= interval '0'
       OR pg_catalog.now() + confirm.expires_in <= pg_catalog.now() THEN
        RAISE EXCEPTION 'expires_in must be a positive interval, not %', confirm.expires_in
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF confirm.question IS NOT NULL THEN
        asked := pg_catalog.btrim(confirm.question, E' \t\n\r\f\x0B');
        IF asked = '' THEN
            RAISE EXCEPTION 'question must not be blank; pass NULL to confirm for any question text'
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
    END IF;
    IF confirm.term IS NOT NULL THEN
        chosen_term := clarify.normalize_term(confirm.term);
        IF chosen_term = '' THEN
            RAISE EXCEPTION 'term must not be blank; pass NULL to confirm a meaning without a term'
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
    END IF;

    SELECT * INTO chosen FROM clarify.concepts c WHERE c.id = confirm.concept;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'concept "%" does not exist', confirm.concept
            USING ERRCODE = 'undefined_object';
    END IF;
    IF chosen.status <> 'approved' THEN
        RAISE EXCEPTION 'concept "%" cannot be confirmed: its status is %, not approved',
                        chosen.id, chosen.status
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    IF NOT chosen.available THEN
        RAISE EXCEPTION 'concept "%" cannot be confirmed: it is currently unavailable', chosen.id
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    IF NOT clarify.eligible(chosen) THEN
        RAISE EXCEPTION 'concept "%" cannot be confirmed: it is outside its validity period',
                        chosen.id
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = pg_catalog.format('Valid from %s until %s.',
                                  COALESCE(chosen.valid_from::text, 'always'),
                                  COALESCE(chosen.valid_until::text, 'forever'));
    END IF;

    IF chosen_term IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM clarify.terms t
                        WHERE t.term = chosen_term AND t.concept_id = chosen.id) THEN
        SELECT pg_catalog.string_agg(pg_catalog.format('"%s"', t.concept_id), ', '
                                     ORDER BY t.concept_id)
          INTO candidates
          FROM clarify.terms t
         WHERE t.term = chosen_term;
        RAISE EXCEPTION 'concept "%" is not a candidate of term "%"', chosen.id, chosen_term
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = CASE WHEN candidates IS NULL
                                THEN pg_catalog.format('The term "%s" has no candidates.',
                                                       chosen_term)
                                ELSE pg_catalog.format('The candidates of "%s" are %s.',
                                                       chosen_term, candidates)
                           END;
    END IF;

    INSERT INTO clarify.approvals AS a
           (question_id, term, concept_id, granted_to, confirmed_by, expires_at, question)
    VALUES (confirm.question_id, chosen_term, chosen.id, confirm.granted_to,
            confirm.confirmed_by, pg_catalog.now() + confirm.expires_in, asked)
    RETURNING a.id INTO new_id;
    RETURN new_id;
END
$$;

COMMENT ON FUNCTION clarify.confirm(text, text, text, regrole, text, interval, text) IS
    'Records that a user chose this meaning for a term in one question (for that question text only, when given), for the given role, until it expires. Returns the confirmation id.';

REVOKE ALL ON FUNCTION clarify.confirm(text, text, text, regrole, text, interval, text) FROM PUBLIC;

-- GRANT inside an extension script records the grant as the function's initial privilege, which
-- pg_dump never repeats; the DBA's grants are the database's own, so the initial privileges are
-- put back to what a fresh install records (and, where the server tracks them, their role
-- dependencies).
DO $$
DECLARE
    old_fn  pg_catalog.regprocedure :=
        'clarify.confirm(text, text, text, regrole, text, interval)'::pg_catalog.regprocedure;
    new_fn  pg_catalog.regprocedure :=
        'clarify.confirm(text, text, text, regrole, text, interval, text)'::pg_catalog.regprocedure;
    initial pg_catalog.aclitem[];
    item    record;
BEGIN
    SELECT ip.initprivs INTO initial
      FROM pg_catalog.pg_init_privs ip
     WHERE ip.objoid = new_fn AND ip.classoid = 'pg_catalog.pg_proc'::pg_catalog.regclass
       AND ip.objsubid = 0;
    FOR item IN
        SELECT a.grantee, pg_catalog.bool_or(a.is_grantable) AS grantable
          FROM pg_catalog.pg_proc p,
               pg_catalog.aclexplode(p.proacl) WITH ORDINALITY AS a(grantor, grantee,
                                                                  privilege_type, is_grantable, n)
         WHERE p.oid = old_fn AND a.privilege_type = 'EXECUTE' AND a.grantee <> p.proowner
         GROUP BY a.grantee
         ORDER BY pg_catalog.min(a.n)
    LOOP
        EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION %s TO %s%s', new_fn,
                                  CASE WHEN item.grantee = 0 THEN 'PUBLIC'
                                       ELSE item.grantee::pg_catalog.regrole::text END,
                                  CASE WHEN item.grantable THEN ' WITH GRANT OPTION' ELSE '' END);
    END LOOP;
    UPDATE pg_catalog.pg_init_privs ip SET initprivs = initial
     WHERE ip.objoid = new_fn AND ip.classoid = 'pg_catalog.pg_proc'::pg_catalog.regclass
       AND ip.objsubid = 0;
    -- Dependencies on the roles of initial privileges ('i', PostgreSQL 17 on; none before).
    DELETE FROM pg_catalog.pg_shdepend d
     WHERE d.dbid = (SELECT db.oid FROM pg_catalog.pg_database db
                      WHERE db.datname = pg_catalog.current_database())
       AND d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND d.objid = new_fn
       AND d.objsubid = 0 AND d.deptype = 'i'
       AND d.refobjid NOT IN (SELECT x.grantee FROM pg_catalog.aclexplode(initial) x
                              UNION SELECT x.grantor FROM pg_catalog.aclexplode(initial) x);
END
$$;

DROP FUNCTION clarify.confirm(text, text, text, regrole, text, interval);

--------------------------------------------------------------------------------------------------
-- govern_role warns about roles that can create code (code_privileges)
--------------------------------------------------------------------------------------------------

-- Code a role creates (a function, an operator, an index expression, a view) runs with that
-- role's identity wherever it is used: by maintenance, by other roles, while statements are
-- planned. These are the ways a role can create code in this database: privileges held by it,
-- by a role it belongs to or by PUBLIC, and ownership (an owner can always grant itself), each
-- with the statement that takes it away.
CREATE FUNCTION clarify.code_privileges(r regrole)
    RETURNS TABLE (privilege text, revoke text)
    LANGUAGE sql STABLE
    SET search_path = pg_catalog, pg_temp
AS $$
WITH db AS (
    SELECT d.datname, d.datdba, coalesce(d.datacl, acldefault('d', d.datdba)) AS acl
      FROM pg_database d
     WHERE d.datname = current_database()
), schemas AS (
    SELECT n.nspname, n.nspowner, coalesce(n.nspacl, acldefault('n', n.nspowner)) AS acl
      FROM pg_namespace n
     WHERE n.nspname !~ '^pg_(toast_)?temp_'
), grants AS (
    SELECT 'DATABASE' AS kind, db.datname AS object, a.privilege_type, a.grantee
      FROM db, aclexplode(db.acl) a
     WHERE a.privilege_type IN ('CREATE', 'TEMPORARY') AND a.grantee <> db.datdba
    UNION
    SELECT 'SCHEMA', s.nspname, a.privilege_type, a.grantee
      FROM schemas s, aclexplode(s.acl) a
     WHERE a.privilege_type = 'CREATE' AND a.grantee <> s.nspowner
), found AS (
    SELECT 1 AS rank, 'is a superuser' AS privilege,
           format('ALTER ROLE %s NOSUPERUSER;', r) AS revoke
      FROM pg_roles WHERE oid = r AND rolsuper
    UNION ALL
    SELECT 2, format('owns database %I', db.datname),
           format('ALTER DATABASE %I OWNER TO <another role>;', db.datname)
      FROM db WHERE pg_has_role(r::oid, db.datdba, 'MEMBER')
    UNION ALL
    SELECT 3, format('owns schema %I', s.nspname),
           format('ALTER SCHEMA %I OWNER TO <another role>;', s.nspname)
      FROM schemas s WHERE pg_has_role(r::oid, s.nspowner, 'MEMBER')
    UNION ALL
    SELECT 4, format('%s on %s %I, granted to %s',
                     CASE g.privilege_type WHEN 'TEMPORARY' THEN 'TEMP' ELSE g.privilege_type END,
                     lower(g.kind), g.object,
                     CASE WHEN g.grantee = 0 THEN 'PUBLIC' ELSE g.grantee::regrole::text END),
           format('REVOKE %s ON %s %I FROM %s;',
                  CASE g.privilege_type WHEN 'TEMPORARY' THEN 'TEMP' ELSE g.privilege_type END,
                  g.kind, g.object,
                  CASE WHEN g.grantee = 0 THEN 'PUBLIC' ELSE g.grantee::regrole::text END)
      FROM grants g
     WHERE g.grantee = 0 OR pg_has_role(r::oid, g.grantee, 'MEMBER')
)
SELECT f.privilege, f.revoke FROM found f
 WHERE NOT EXISTS (SELECT 1 FROM pg_roles su WHERE su.oid = r AND su.rolsuper) OR f.rank = 1
 ORDER BY f.rank, f.privilege
$$;

COMMENT ON FUNCTION clarify.code_privileges(regrole) IS
    'What lets a role create functions and other code in this database (privileges of its own, of a role it belongs to or of PUBLIC, ownership), each with the statement that takes it away.';

-- Deliberately not SECURITY DEFINER: deciding who is an agent is the catalog owner's call, and
-- the table privileges enforce that even if EXECUTE is granted by mistake. Governing a role that
-- can create code is allowed, but said loudly.
CREATE OR REPLACE FUNCTION clarify.govern_role(r regrole) RETURNS void
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fixes text;
BEGIN
    IF r IS NULL THEN
        RAISE EXCEPTION 'role must not be NULL'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    INSERT INTO clarify.agent_roles (agent_role) VALUES (r)
        ON CONFLICT (agent_role) DO NOTHING;
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles ro WHERE ro.oid = r AND ro.rolsuper) THEN
        RAISE WARNING 'role "%" is a superuser and can switch the gate off', r;
    ELSE
        SELECT pg_catalog.string_agg(p.revoke, ' ') INTO fixes FROM clarify.code_privileges(r) p;
        IF fixes IS NOT NULL THEN
            RAISE WARNING 'role "%" can create functions, and code an agent owns runs with the agent''s identity also when other roles or maintenance use it', r
                USING HINT = 'Revoke what allows it: ' || fixes;
        END IF;
    END IF;
END
$$;

COMMENT ON FUNCTION clarify.govern_role(regrole) IS
    'Makes a role an agent: its sessions, and those of its members, pass the clarification gate. Warns when the role can create code. Repeating it is harmless.';

REVOKE ALL ON FUNCTION clarify.code_privileges(regrole) FROM PUBLIC;
