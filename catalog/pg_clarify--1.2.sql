\echo Use "CREATE EXTENSION pg_clarify" to load this file. \quit

-- pg_clarify 1.2: the governance catalog, its guards, and the SQL surface of the gate.
--
-- The catalog is the business's word on what governed columns mean. The gate trusts it blindly,
-- so every rule a DBA could break by hand is refused here, at write time, with a message in the
-- DBA's terms; constraints stay underneath as backstops for whatever slips past a trigger.

--------------------------------------------------------------------------------------------------
-- Shared helpers
--------------------------------------------------------------------------------------------------

-- Terms are compared case-insensitively everywhere (catalog, confirmations, the gate). One
-- definition keeps the tables, the constraints and clarify.confirm from drifting apart. White
-- space is the gate's: space, tab, line feed, carriage return, form feed, vertical tab (\x0B;
-- an escape string has no \v).
CREATE FUNCTION clarify.normalize_term(term text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN pg_catalog.translate(pg_catalog.btrim(term, E' \t\n\r\f\x0B'),
                                'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz');

COMMENT ON FUNCTION clarify.normalize_term(text) IS
    'How business terms are compared: trimmed and ASCII letters lower-cased (exactly as the gate compares them, whatever the database locale), so "Revenue" and "revenue " are one term.';

--------------------------------------------------------------------------------------------------
-- Concepts: the business meanings a governed column can carry
--------------------------------------------------------------------------------------------------

-- The audit records which version of a concept a decision relied on, so any change to what a
-- concept means or whether it may be used must produce a new version, even if the DBA forgets.
CREATE TABLE clarify.concepts (
    id          text PRIMARY KEY,
    kind        text NOT NULL,
    label       text NOT NULL,
    description text NOT NULL DEFAULT '',
    owner       text NOT NULL DEFAULT '',
    status      text NOT NULL DEFAULT 'draft',
    available   boolean NOT NULL DEFAULT true,
    version     integer NOT NULL DEFAULT 1,
    aliases     text[] NOT NULL DEFAULT '{}',
    valid_from  timestamptz,
    valid_until timestamptz,
    CONSTRAINT concepts_id_check CHECK (id ~ '^[^[:space:]](.*[^[:space:]])?$'),
    CONSTRAINT concepts_kind_check CHECK (kind IN ('metric', 'dimension')),
    CONSTRAINT concepts_label_check CHECK (label ~ '[^[:space:]]'),
    CONSTRAINT concepts_status_check CHECK (status IN ('draft', 'approved', 'deprecated')),
    CONSTRAINT concepts_version_check CHECK (version >= 1),
    CONSTRAINT concepts_aliases_check
        CHECK (pg_catalog.array_position(aliases, NULL) IS NULL AND NOT ('' = ANY (aliases))),
    CONSTRAINT concepts_validity_check CHECK (valid_from < valid_until)
);

COMMENT ON TABLE clarify.concepts IS
    'Business meanings (metrics and dimensions) that governed columns can carry, with their owner, approval status and validity.';
COMMENT ON COLUMN clarify.concepts.id IS 'Stable identifier, e.g. metric.recognized_revenue.';
COMMENT ON COLUMN clarify.concepts.label IS
    'Name shown to business users when a clarification is needed.';
COMMENT ON COLUMN clarify.concepts.status IS
    'draft, approved or deprecated; only approved concepts can be used.';
COMMENT ON COLUMN clarify.concepts.available IS
    'False takes an approved concept out of use without changing its status.';
COMMENT ON COLUMN clarify.concepts.version IS
    'Raised automatically whenever the meaning or usability of the concept changes.';
COMMENT ON COLUMN clarify.concepts.aliases IS
    'Other names that, said in a question, name this concept explicitly.';
COMMENT ON COLUMN clarify.concepts.valid_from IS
    'The concept is usable from this moment on (NULL: always was).';
COMMENT ON COLUMN clarify.concepts.valid_until IS
    'The concept stops being usable at this moment (NULL: never).';

CREATE FUNCTION clarify.concepts_bump_version() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- An UPDATE that sets version itself (e.g. a restore or a deliberate correction) is obeyed.
    IF NEW.version IS NOT DISTINCT FROM OLD.version
       AND (NEW.kind, NEW.label, NEW.description, NEW.owner, NEW.status, NEW.available,
            NEW.aliases, NEW.valid_from, NEW.valid_until)
           IS DISTINCT FROM
           (OLD.kind, OLD.label, OLD.description, OLD.owner, OLD.status, OLD.available,
            OLD.aliases, OLD.valid_from, OLD.valid_until)
    THEN
        NEW.version := OLD.version + 1;
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION clarify.concepts_bump_version() IS
    'Gives a concept a new version whenever its meaning or usability changes.';

CREATE TRIGGER concepts_bump_version
    BEFORE UPDATE ON clarify.concepts
    FOR EACH ROW EXECUTE FUNCTION clarify.concepts_bump_version();

-- Eligibility is the one rule every part of the gate agrees on; as a function on the row type it
-- reads as c.eligible in ad-hoc queries (with clarify on the search_path). The SQL-standard body
-- is bound at creation, so a caller's search_path cannot change what it means, and it stays
-- inlinable.
CREATE FUNCTION clarify.eligible(c clarify.concepts) RETURNS boolean
    LANGUAGE sql STABLE PARALLEL SAFE
    RETURN c.status = 'approved'
       AND c.available
       AND (c.valid_from IS NULL OR c.valid_from <= pg_catalog.now())
       AND (c.valid_until IS NULL OR pg_catalog.now() < c.valid_until);

COMMENT ON FUNCTION clarify.eligible(clarify.concepts) IS
    'True when the concept may be used right now: approved, available, and inside its validity period.';

--------------------------------------------------------------------------------------------------
-- Concept columns: which physical columns carry which meanings
--------------------------------------------------------------------------------------------------

-- A mapping to a column that does not exist would silently govern nothing, so it is refused when
-- written. Only relations a statement can read columns from are accepted.
CREATE TABLE clarify.concept_columns (
    concept_id  text NOT NULL REFERENCES clarify.concepts (id) ON UPDATE CASCADE ON DELETE CASCADE,
    relation    regclass NOT NULL,
    column_name name NOT NULL,
    -- Set by the trigger from column_name: the gate follows the column itself, so renaming it
    -- does not ungovern it.
    attnum      smallint,
    PRIMARY KEY (concept_id, relation, column_name)
);

CREATE INDEX concept_columns_relation_idx ON clarify.concept_columns (relation);

COMMENT ON TABLE clarify.concept_columns IS
    'Governed columns: the physical columns that carry a business meaning. A column may carry several meanings.';

CREATE FUNCTION clarify.concept_columns_check() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    rel_kind   "char";
    rel_name   text;
BEGIN
    IF NEW.relation IS NULL OR NEW.column_name IS NULL THEN
        RETURN NEW;  -- the NOT NULL constraints say it better
    END IF;
    SELECT c.relkind, pg_catalog.format('%s.%s', n.nspname, c.relname)
      INTO rel_kind, rel_name
      FROM pg_catalog.pg_class c
      JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     WHERE c.oid = NEW.relation;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'relation with OID % does not exist', NEW.relation::oid
            USING ERRCODE = 'undefined_table';
    END IF;
    IF rel_kind NOT IN ('r', 'p', 'v', 'm', 'f') THEN
        RAISE EXCEPTION 'relation "%" is not a table, view, materialized view or foreign table',
                        rel_name
            USING ERRCODE = 'wrong_object_type';
    END IF;
    SELECT a.attnum INTO NEW.attnum
      FROM pg_catalog.pg_attribute a
     WHERE a.attrelid = NEW.relation
       AND a.attname = NEW.column_name
       AND a.attnum > 0
       AND NOT a.attisdropped;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'column "%" does not exist in relation "%"', NEW.column_name, rel_name
            USING ERRCODE = 'undefined_column';
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION clarify.concept_columns_check() IS
    'Refuses to govern a column that does not exist or a relation that has no readable columns.';

-- Only when the column itself is named: a concept rename cascading here must not be refused
-- because a mapped column has since been dropped.
CREATE TRIGGER concept_columns_check
    BEFORE INSERT OR UPDATE OF relation, column_name, attnum ON clarify.concept_columns
    FOR EACH ROW EXECUTE FUNCTION clarify.concept_columns_check();

--------------------------------------------------------------------------------------------------
-- Terms: the candidate meanings of the words people use
--------------------------------------------------------------------------------------------------

-- People type "Revenue", "revenue" and "revenue "; the catalog stores one spelling so that the
-- primary key, the defaults and the gate all see the same term.
CREATE TABLE clarify.terms (
    term       text NOT NULL,
    concept_id text NOT NULL REFERENCES clarify.concepts (id) ON UPDATE CASCADE ON DELETE CASCADE,
    PRIMARY KEY (term, concept_id),
    CONSTRAINT terms_term_check CHECK (term <> '' AND term = clarify.normalize_term(term))
);

CREATE INDEX terms_concept_id_idx ON clarify.terms (concept_id);

COMMENT ON TABLE clarify.terms IS
    'Business terms and the meanings each may have: a term with several approved meanings is ambiguous until resolved.';

CREATE FUNCTION clarify.terms_normalize() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    NEW.term := clarify.normalize_term(NEW.term);
    IF NEW.term = '' THEN
        RAISE EXCEPTION 'a term cannot be empty'
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION clarify.terms_normalize() IS
    'Stores terms in their case-insensitive spelling and refuses empty ones.';

CREATE TRIGGER terms_normalize
    BEFORE INSERT OR UPDATE OF term ON clarify.terms
    FOR EACH ROW EXECUTE FUNCTION clarify.terms_normalize();

--------------------------------------------------------------------------------------------------
-- Defaults: the business-approved meaning of a term, for everyone or for one role
--------------------------------------------------------------------------------------------------

-- A default settles an ambiguity on the business's behalf, so it must name who approved it and a
-- meaning the term can actually have, and there can be only one per term and scope. The
-- composite key to terms keeps a candidate from being removed while a default relies on it.
CREATE TABLE clarify.defaults (
    id          bigserial PRIMARY KEY,
    term        text NOT NULL,
    concept_id  text NOT NULL REFERENCES clarify.concepts (id) ON UPDATE CASCADE,
    applies_to  regrole,
    approved_by text NOT NULL,
    approved_at timestamptz NOT NULL DEFAULT now(),
    valid_until timestamptz,
    CONSTRAINT defaults_term_check CHECK (term <> '' AND term = clarify.normalize_term(term)),
    CONSTRAINT defaults_approved_by_check CHECK (approved_by ~ '[^[:space:]]'),
    CONSTRAINT defaults_validity_check CHECK (valid_until > approved_at),
    CONSTRAINT defaults_term_concept_fkey FOREIGN KEY (term, concept_id)
        REFERENCES clarify.terms (term, concept_id) ON UPDATE CASCADE
);

-- NULL applies_to ("everyone") is one scope, so it is folded to OID 0 for uniqueness.
CREATE UNIQUE INDEX defaults_term_scope_key
    ON clarify.defaults (term, (COALESCE(applies_to::oid, '0'::oid)));

COMMENT ON TABLE clarify.defaults IS
    'Approved default meanings: which meaning a term has when nobody says otherwise, for everyone or for one role.';
COMMENT ON COLUMN clarify.defaults.applies_to IS
    'The role (and its members) the default is for; NULL means everyone.';
COMMENT ON COLUMN clarify.defaults.approved_by IS 'The person or body who approved this default.';
COMMENT ON COLUMN clarify.defaults.valid_until IS
    'The default no longer applies from this moment on (NULL: never expires).';

CREATE FUNCTION clarify.defaults_check() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    existing_id bigint;
BEGIN
    IF NEW.term IS NULL OR NEW.concept_id IS NULL THEN
        RETURN NEW;  -- the NOT NULL constraints say it better
    END IF;
    NEW.term := clarify.normalize_term(NEW.term);
    IF NEW.term = '' THEN
        RAISE EXCEPTION 'the term of a default cannot be empty'
            USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.approved_by !~ '[^[:space:]]' THEN
        RAISE EXCEPTION 'default for term "%" must name who approved it (approved_by is empty)',
                        NEW.term
            USING ERRCODE = 'check_violation';
    END IF;

    -- Cascades from a concept or term rename reach this row nested, possibly before their sibling
    -- cascades have landed; the foreign keys check those at the end of the statement instead.
    IF pg_catalog.pg_trigger_depth() > 1 THEN
        RETURN NEW;
    END IF;

    IF NOT EXISTS (SELECT 1 FROM clarify.concepts c WHERE c.id = NEW.concept_id) THEN
        RAISE EXCEPTION 'concept "%" does not exist', NEW.concept_id
            USING ERRCODE = 'foreign_key_violation';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM clarify.terms t
                    WHERE t.term = NEW.term AND t.concept_id = NEW.concept_id) THEN
        RAISE EXCEPTION 'concept "%" is not a candidate of term "%"', NEW.concept_id, NEW.term
            USING ERRCODE = 'foreign_key_violation',
                  HINT = 'Add the pair to clarify.terms before making it a default.';
    END IF;

    SELECT d.id INTO existing_id
      FROM clarify.defaults d
     WHERE d.term = NEW.term
       AND d.applies_to IS NOT DISTINCT FROM NEW.applies_to
       AND d.id <> NEW.id;
    IF FOUND THEN
        RAISE EXCEPTION 'term "%" already has a default for %', NEW.term,
                        CASE WHEN NEW.applies_to IS NULL THEN 'everyone'
                             ELSE pg_catalog.format('role "%s"', NEW.applies_to) END
            USING ERRCODE = 'unique_violation',
                  DETAIL = pg_catalog.format('The existing default is clarify.defaults id %s.',
                                             existing_id),
                  HINT = 'Update or delete the existing default instead of adding a second one.';
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION clarify.defaults_check() IS
    'Refuses defaults without an approver, for an unknown concept, for a concept the term cannot mean, or duplicating a scope.';

CREATE TRIGGER defaults_check
    BEFORE INSERT OR UPDATE ON clarify.defaults
    FOR EACH ROW EXECUTE FUNCTION clarify.defaults_check();

--------------------------------------------------------------------------------------------------
-- Approvals: what a user confirmed, for one question, on behalf of one role
--------------------------------------------------------------------------------------------------

-- Written through clarify.confirm by the application acting for the user; the gate verifies an
-- agent's "the user confirmed it" claim against these rows. Rows are revoked, never reused.
CREATE TABLE clarify.approvals (
    id           bigserial PRIMARY KEY,
    question_id  text NOT NULL,
    term         text,
    concept_id   text NOT NULL REFERENCES clarify.concepts (id) ON UPDATE CASCADE,
    granted_to   regrole NOT NULL,
    confirmed_by text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL,
    revoked_at   timestamptz,
    question     text,
    CONSTRAINT approvals_question_id_check CHECK (question_id ~ '[^[:space:]]'),
    CONSTRAINT approvals_term_check CHECK (term <> '' AND term = clarify.normalize_term(term)),
    CONSTRAINT approvals_confirmed_by_check CHECK (confirmed_by ~ '[^[:space:]]'),
    CONSTRAINT approvals_expiry_check CHECK (expires_at > created_at),
    CONSTRAINT approvals_question_check CHECK (question ~ '[^[:space:]]')
);

CREATE INDEX approvals_question_id_idx ON clarify.approvals (question_id);

COMMENT ON TABLE clarify.approvals IS
    'User confirmations: the meaning a user chose for a term in one question, usable by one role until it expires or is revoked.';
COMMENT ON COLUMN clarify.approvals.term IS
    'The term the user clarified; NULL when the confirmation names only the meaning.';
COMMENT ON COLUMN clarify.approvals.granted_to IS
    'The role (and its members) that may rely on this confirmation.';
COMMENT ON COLUMN clarify.approvals.confirmed_by IS 'The user who made the choice.';
COMMENT ON COLUMN clarify.approvals.question IS
    'The question text the user answered: the confirmation holds only for a resolution record asking exactly this text (surrounding white space aside). NULL: any text of the question.';

CREATE FUNCTION clarify.approvals_normalize() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NEW.term IS NOT NULL THEN
        NEW.term := clarify.normalize_term(NEW.term);
        IF NEW.term = '' THEN
            RAISE EXCEPTION 'the term of a confirmation cannot be blank; use NULL for none'
                USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION clarify.approvals_normalize() IS
    'Stores the confirmed term in its case-insensitive spelling.';

CREATE TRIGGER approvals_normalize
    BEFORE INSERT OR UPDATE OF term ON clarify.approvals
    FOR EACH ROW EXECUTE FUNCTION clarify.approvals_normalize();

--------------------------------------------------------------------------------------------------
-- Agent roles: who is gated
--------------------------------------------------------------------------------------------------

-- Membership is what counts: registering a group role gates every login role in it.
CREATE TABLE clarify.agent_roles (
    agent_role regrole PRIMARY KEY,
    added_at   timestamptz NOT NULL DEFAULT now()
);

COMMENT ON TABLE clarify.agent_roles IS
    'Governed roles: sessions of these roles, or of their members, are agents whose statements pass the clarification gate.';

--------------------------------------------------------------------------------------------------
-- Cache invalidation
--------------------------------------------------------------------------------------------------

-- Every backend keeps the catalog in memory; one statement-level trigger per table tells them
-- all to reload at their next statement, so a change never needs a reconnect or a reload.
CREATE FUNCTION clarify.catalog_changed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'clarify_catalog_changed'
    LANGUAGE C;

COMMENT ON FUNCTION clarify.catalog_changed() IS
    'Tells every session that the governance catalog changed, so the next statement sees the change.';

CREATE TRIGGER catalog_changed
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON clarify.concepts
    FOR EACH STATEMENT EXECUTE FUNCTION clarify.catalog_changed();
CREATE TRIGGER catalog_changed
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON clarify.concept_columns
    FOR EACH STATEMENT EXECUTE FUNCTION clarify.catalog_changed();
CREATE TRIGGER catalog_changed
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON clarify.terms
    FOR EACH STATEMENT EXECUTE FUNCTION clarify.catalog_changed();
CREATE TRIGGER catalog_changed
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON clarify.defaults
    FOR EACH STATEMENT EXECUTE FUNCTION clarify.catalog_changed();
CREATE TRIGGER catalog_changed
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON clarify.approvals
    FOR EACH STATEMENT EXECUTE FUNCTION clarify.catalog_changed();
CREATE TRIGGER catalog_changed
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON clarify.agent_roles
    FOR EACH STATEMENT EXECUTE FUNCTION clarify.catalog_changed();

--------------------------------------------------------------------------------------------------
-- The gate's SQL surface (implemented in the library)
--------------------------------------------------------------------------------------------------

-- What agents may ask the gate directly: resolve a term, dry-run a statement, see the last
-- decision, and learn whether they are gated at all.
CREATE FUNCTION clarify.resolve(term text, question_id text DEFAULT NULL) RETURNS jsonb
    AS 'MODULE_PATHNAME', 'clarify_resolve'
    LANGUAGE C STABLE;

COMMENT ON FUNCTION clarify.resolve(text, text) IS
    'Which meaning a term has for the caller right now (resolved, ambiguous or unsupported), with the options to ask about.';

CREATE FUNCTION clarify."check"(sql text) RETURNS jsonb
    AS 'MODULE_PATHNAME', 'clarify_check'
    LANGUAGE C VOLATILE STRICT;

COMMENT ON FUNCTION clarify."check"(text) IS
    'What the gate would decide for a statement under the current resolution record, without running it.';

CREATE FUNCTION clarify.last_decision() RETURNS jsonb
    AS 'MODULE_PATHNAME', 'clarify_last_decision'
    LANGUAGE C VOLATILE;

COMMENT ON FUNCTION clarify.last_decision() IS
    'The most recent decision of the gate in this session, allowed or rejected.';

CREATE FUNCTION clarify.gated() RETURNS boolean
    AS 'MODULE_PATHNAME', 'clarify_gated'
    LANGUAGE C STABLE;

COMMENT ON FUNCTION clarify.gated() IS
    'True when this session is an agent: its login role or current role belongs to a governed role.';

--------------------------------------------------------------------------------------------------
-- Confirmations
--------------------------------------------------------------------------------------------------

-- The application that talks to the user records the user's choice; it runs with the owner's
-- rights so that it needs no access to the tables. An agent must never vouch for itself, so a
-- gated caller is refused even if someone granted it EXECUTE. With the question's text, the
-- choice holds only for that question: an agent cannot carry it over to another one by keeping
-- the question_id.
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

-- Revoking keeps the row (the audit refers to it) and stamps when it stopped counting.
CREATE FUNCTION clarify.revoke(approval_id bigint) RETURNS void
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    previously_revoked timestamptz;
BEGIN
    IF clarify.gated() THEN
        RAISE EXCEPTION 'agents cannot revoke confirmations'
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'This session belongs to a role governed by pg_clarify.',
                  HINT = 'Confirmations must be revoked by the application acting for the user.';
    END IF;
    IF revoke.approval_id IS NULL THEN
        RAISE EXCEPTION 'approval_id must not be NULL'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;

    SELECT a.revoked_at INTO previously_revoked
      FROM clarify.approvals a
     WHERE a.id = revoke.approval_id
       FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'confirmation % does not exist', revoke.approval_id
            USING ERRCODE = 'undefined_object';
    END IF;
    IF previously_revoked IS NOT NULL THEN
        RAISE NOTICE 'confirmation % was already revoked at %',
                     revoke.approval_id, previously_revoked;
        RETURN;
    END IF;

    UPDATE clarify.approvals a SET revoked_at = pg_catalog.now() WHERE a.id = revoke.approval_id;
END
$$;

COMMENT ON FUNCTION clarify.revoke(bigint) IS
    'Withdraws a user confirmation: from now on no statement can rely on it.';

--------------------------------------------------------------------------------------------------
-- Governing roles
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
CREATE FUNCTION clarify.govern_role(r regrole) RETURNS void
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

CREATE FUNCTION clarify.release_role(r regrole) RETURNS void
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF r IS NULL THEN
        RAISE EXCEPTION 'role must not be NULL'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    DELETE FROM clarify.agent_roles a WHERE a.agent_role = r;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'role "%" is not governed by pg_clarify', r
            USING ERRCODE = 'undefined_object';
    END IF;
END
$$;

COMMENT ON FUNCTION clarify.release_role(regrole) IS
    'Stops treating a role as an agent.';

--------------------------------------------------------------------------------------------------
-- The audit (docs/reference.md, "Tables and views"): one lean row per decision, written by the
-- audit writer
--------------------------------------------------------------------------------------------------

-- Decisions arrive at tens of thousands per second, so a row holds only numbers and the question
-- id; statement texts, records and decision shapes (state, reason, columns, bindings, payload)
-- repeat and are stored once each, keyed by a keyed 128-bit hash (SipHash-2-4 under a key drawn at
-- each server start, never shown to SQL): nobody can choose or predict the identity of a text.
-- The writer compares the bytes before it reuses a stored text. clarify.audit joins them back.
CREATE TABLE clarify.audit_texts (
    hash uuid PRIMARY KEY,
    body text NOT NULL
);

CREATE TABLE clarify.audit_shapes (
    hash     uuid PRIMARY KEY,
    allowed  boolean NOT NULL,
    state    text NOT NULL,
    reason   text NOT NULL,
    columns  jsonb NOT NULL,
    bindings jsonb NOT NULL,
    payload  jsonb
);

-- Decisions are stored a batch to a row: the writer commits what it drained as one row of
-- arrays, so a decision costs a few array elements, not a heap tuple and an index entry. lz4
-- compresses the arrays several times faster than the default pglz.
-- clarify.audit_log unnests them back to one row per decision.
CREATE TABLE clarify.audit_batches (
    batch_id         bigserial PRIMARY KEY,
    written_at       timestamptz NOT NULL DEFAULT now(),
    first_decided_at timestamptz NOT NULL,
    last_decided_at  timestamptz NOT NULL,
    decision_ids     bigint[] COMPRESSION lz4 NOT NULL,
    decided_ats      timestamptz[] COMPRESSION lz4 NOT NULL,
    session_roles    oid[] COMPRESSION lz4 NOT NULL,
    acting_roles     oid[] COMPRESSION lz4 NOT NULL,
    pids             integer[] COMPRESSION lz4 NOT NULL,
    query_ids        bigint[] COMPRESSION lz4 NOT NULL,
    statement_hashes uuid[] COMPRESSION lz4 NOT NULL,
    shape_hashes     uuid[] COMPRESSION lz4 NOT NULL,
    record_hashes    uuid[] COMPRESSION lz4 NOT NULL,
    question_ids     text[] COMPRESSION lz4 NOT NULL
);

-- Batches arrive in time order: a BRIN index serves retention and time ranges for almost nothing.
CREATE INDEX audit_batches_decided_idx ON clarify.audit_batches USING brin (last_decided_at);

CREATE VIEW clarify.audit_log AS
SELECT u.decision_id, u.decided_at, u.session_role, u.acting_role, u.pid, u.query_id,
       u.statement_hash, u.shape_hash, u.record_hash, u.question_id, b.batch_id
FROM clarify.audit_batches b
CROSS JOIN LATERAL unnest(b.decision_ids, b.decided_ats, b.session_roles, b.acting_roles, b.pids,
                          b.query_ids, b.statement_hashes, b.shape_hashes, b.record_hashes,
                          b.question_ids)
    AS u(decision_id, decided_at, session_role, acting_role, pid, query_id, statement_hash,
         shape_hash, record_hash, question_id);

-- Notes about decisions written after them: a statement refused with QC005 because its decision
-- was not committed in time did not run, whatever the gate had decided.
CREATE TABLE clarify.audit_notes (
    decision_id bigint NOT NULL,
    noted_at    timestamptz NOT NULL,
    note        text NOT NULL
);
CREATE INDEX audit_notes_decision_id_idx ON clarify.audit_notes (decision_id);

-- Called by purge_audit() under its locks, before it deletes: audit writers forget which texts
-- they stored, backends stop sending decisions without their texts, and the hashes that such
-- decisions still queued refer to are returned (the purge keeps them).
CREATE FUNCTION clarify.audit_purge_begin() RETURNS uuid[]
    AS 'MODULE_PATHNAME', 'clarify_audit_purge_begin'
    LANGUAGE C VOLATILE;

CREATE TABLE clarify.audit_purges (
    id           bigserial PRIMARY KEY,
    purged_at    timestamptz NOT NULL DEFAULT now(),
    purged_by    name NOT NULL,
    older_than   interval NOT NULL,
    rows_deleted bigint NOT NULL
);

COMMENT ON VIEW clarify.audit_log IS
    'One row per gated decision, allowed or rejected, as stored; read it through clarify.audit.';
COMMENT ON TABLE clarify.audit_batches IS
    'The audit as written: one row per batch of decisions the writer committed together.';
COMMENT ON TABLE clarify.audit_purges IS
    'Every retention run of clarify.purge_audit(): when, by whom, how much.';

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

-- Append-only for everyone: only purge_audit() removes rows, and it records that it did.
CREATE FUNCTION clarify.audit_refuse_change() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RAISE EXCEPTION 'the pg_clarify audit is append-only: % on %.% is refused',
        TG_OP, TG_TABLE_SCHEMA, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege',
              HINT = 'Retention goes through clarify.purge_audit(older_than).';
END
$$;

CREATE TRIGGER audit_batches_append_only BEFORE UPDATE OR DELETE ON clarify.audit_batches
    FOR EACH ROW EXECUTE FUNCTION clarify.audit_refuse_change();
CREATE TRIGGER audit_batches_no_truncate BEFORE TRUNCATE ON clarify.audit_batches
    FOR EACH STATEMENT EXECUTE FUNCTION clarify.audit_refuse_change();
CREATE TRIGGER audit_texts_append_only BEFORE UPDATE OR DELETE ON clarify.audit_texts
    FOR EACH ROW EXECUTE FUNCTION clarify.audit_refuse_change();
CREATE TRIGGER audit_texts_no_truncate BEFORE TRUNCATE ON clarify.audit_texts
    FOR EACH STATEMENT EXECUTE FUNCTION clarify.audit_refuse_change();
CREATE TRIGGER audit_shapes_append_only BEFORE UPDATE OR DELETE ON clarify.audit_shapes
    FOR EACH ROW EXECUTE FUNCTION clarify.audit_refuse_change();
CREATE TRIGGER audit_shapes_no_truncate BEFORE TRUNCATE ON clarify.audit_shapes
    FOR EACH STATEMENT EXECUTE FUNCTION clarify.audit_refuse_change();
CREATE TRIGGER audit_notes_append_only BEFORE UPDATE OR DELETE ON clarify.audit_notes
    FOR EACH ROW EXECUTE FUNCTION clarify.audit_refuse_change();
CREATE TRIGGER audit_notes_no_truncate BEFORE TRUNCATE ON clarify.audit_notes
    FOR EACH STATEMENT EXECUTE FUNCTION clarify.audit_refuse_change();
CREATE TRIGGER audit_purges_append_only BEFORE UPDATE OR DELETE ON clarify.audit_purges
    FOR EACH ROW EXECUTE FUNCTION clarify.audit_refuse_change();
CREATE TRIGGER audit_purges_no_truncate BEFORE TRUNCATE ON clarify.audit_purges
    FOR EACH STATEMENT EXECUTE FUNCTION clarify.audit_refuse_change();

-- Retention. Runs with session_replication_role = replica, which only a superuser-owned function
-- can set, so the append-only triggers stand aside for it alone.
CREATE FUNCTION clarify.purge_audit(older_than interval) RETURNS bigint
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

COMMENT ON FUNCTION clarify.purge_audit(interval) IS
    'Deletes audit decisions older than the interval (owner only); the purge itself is recorded in clarify.audit_purges.';

CREATE FUNCTION clarify.audit_queue(
    OUT database name, OUT writer_pid integer, OUT enqueued bigint, OUT written bigint,
    OUT dropped bigint, OUT timeouts bigint, OUT failed_batches bigint, OUT malformed bigint,
    OUT pending_bytes bigint, OUT last_error text)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME', 'clarify_audit_queue'
    LANGUAGE C VOLATILE;

COMMENT ON FUNCTION clarify.audit_queue() IS
    'The audit queue of each database since the server started: decisions queued, written, dropped (async, queue full), timed out (sync), failed batches and the last error.';

--------------------------------------------------------------------------------------------------
-- Evaluation views: how often the business had to be asked, and what it cost
--------------------------------------------------------------------------------------------------

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

--------------------------------------------------------------------------------------------------
-- Privileges
--------------------------------------------------------------------------------------------------

-- Start from nothing, then hand out exactly what each actor needs (docs/dba-guide.md, "Let agents
-- in"; docs/reference.md, "Functions"). Agents read the vocabulary they may be asked about, never
-- who confirmed what, who is governed or which columns are watched; nobody but the owner writes
-- anything except through confirm/revoke, which the DBA grants to the application role.
REVOKE ALL ON ALL TABLES IN SCHEMA clarify FROM PUBLIC;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA clarify FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA clarify FROM PUBLIC;

GRANT USAGE ON SCHEMA clarify TO PUBLIC;
GRANT SELECT ON clarify.concepts, clarify.terms, clarify.defaults TO PUBLIC;
GRANT EXECUTE ON FUNCTION
    clarify.resolve(text, text),
    clarify."check"(text),
    clarify.last_decision(),
    clarify.gated(),
    clarify.eligible(clarify.concepts),
    clarify.normalize_term(text)
    TO PUBLIC;

--------------------------------------------------------------------------------------------------
-- pg_dump
--------------------------------------------------------------------------------------------------

-- Every row in these tables was entered by a DBA or a user; a dump must carry them all, and the
-- sequences too, so restored ids never collide with the ones the audit already refers to.
SELECT pg_catalog.pg_extension_config_dump('clarify.concepts', '');
SELECT pg_catalog.pg_extension_config_dump('clarify.concept_columns', '');
SELECT pg_catalog.pg_extension_config_dump('clarify.terms', '');
SELECT pg_catalog.pg_extension_config_dump('clarify.defaults', '');
SELECT pg_catalog.pg_extension_config_dump('clarify.approvals', '');
SELECT pg_catalog.pg_extension_config_dump('clarify.agent_roles', '');
SELECT pg_catalog.pg_extension_config_dump('clarify.defaults_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('clarify.approvals_id_seq', '');
-- The audit is history: it moves with the database.
SELECT pg_catalog.pg_extension_config_dump('clarify.audit_batches', '');
SELECT pg_catalog.pg_extension_config_dump('clarify.audit_batches_batch_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('clarify.audit_texts', '');
SELECT pg_catalog.pg_extension_config_dump('clarify.audit_shapes', '');
SELECT pg_catalog.pg_extension_config_dump('clarify.audit_purges', '');
SELECT pg_catalog.pg_extension_config_dump('clarify.audit_notes', '');
SELECT pg_catalog.pg_extension_config_dump('clarify.audit_purges_id_seq', '');

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

--------------------------------------------------------------------------------------------------
-- Time ranges and impact: time windows, dated measures, the impact of a term
--------------------------------------------------------------------------------------------------

-- A time window is a named period ("last quarter") whose bounds are SQL expressions evaluated at
-- each statement; a measure's time column says which rows fall in it (docs/reference.md, "Time
-- ranges and impact").
ALTER TABLE clarify.concepts DROP CONSTRAINT concepts_kind_check;
ALTER TABLE clarify.concepts
    ADD CONSTRAINT concepts_kind_check CHECK (kind IN ('metric', 'dimension', 'time_window'));
ALTER TABLE clarify.concepts ADD COLUMN window_start text;
ALTER TABLE clarify.concepts ADD COLUMN window_end text;
COMMENT ON COLUMN clarify.concepts.window_start IS
    'For a time window: the SQL expression (date or timestamptz) where the period starts, included.';
COMMENT ON COLUMN clarify.concepts.window_end IS
    'For a time window: the SQL expression (date or timestamptz) where the period ends, excluded.';

ALTER TABLE clarify.concept_columns ADD COLUMN time_column name;
ALTER TABLE clarify.concept_columns ADD COLUMN requires_time_range boolean NOT NULL DEFAULT false;
COMMENT ON COLUMN clarify.concept_columns.time_column IS
    'The date or timestamp column of the same relation that dates this measure.';
COMMENT ON COLUMN clarify.concept_columns.requires_time_range IS
    'True: a statement must bound time_column on both sides, or the period is asked for.';

ALTER TABLE clarify.terms ADD COLUMN impact text NOT NULL DEFAULT 'high';
ALTER TABLE clarify.terms
    ADD CONSTRAINT terms_impact_check CHECK (impact IN ('low', 'medium', 'high'));
COMMENT ON COLUMN clarify.terms.impact IS
    'low, medium or high: how much choosing the wrong meaning of the term changes an answer.';

CREATE FUNCTION clarify.window_bound_check(concept text, side text, expression text) RETURNS void
    LANGUAGE c STRICT VOLATILE
    AS 'MODULE_PATHNAME', 'clarify_window_bound_check';

COMMENT ON FUNCTION clarify.window_bound_check(text, text, text) IS
    'Raises unless the expression is one date or timestamptz expression that calls no volatile function and evaluates.';

REVOKE ALL ON FUNCTION clarify.window_bound_check(text, text, text) FROM PUBLIC;

-- A window the gate could not evaluate would fail every statement that binds it: refused when
-- written instead.
CREATE FUNCTION clarify.concepts_window_check() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NEW.kind = 'time_window' THEN
        IF NEW.window_start IS NULL OR NEW.window_end IS NULL THEN
            RAISE EXCEPTION 'time window "%" needs both window_start and window_end', NEW.id
                USING ERRCODE = 'not_null_violation',
                      HINT = 'e.g. window_start = ''date_trunc(''''quarter'''', now()) - interval ''''3 months'''''', window_end = ''date_trunc(''''quarter'''', now())''.';
        END IF;
        PERFORM clarify.window_bound_check(NEW.id, 'window_start', NEW.window_start);
        PERFORM clarify.window_bound_check(NEW.id, 'window_end', NEW.window_end);
    ELSIF NEW.window_start IS NOT NULL OR NEW.window_end IS NOT NULL THEN
        RAISE EXCEPTION 'concept "%" is a %, not a time window: window_start and window_end must be NULL',
                        NEW.id, NEW.kind
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION clarify.concepts_window_check() IS
    'Refuses a time window without bounds, or with bounds that do not evaluate to a date or timestamptz without volatile functions.';

CREATE TRIGGER concepts_window_check
    BEFORE INSERT OR UPDATE OF kind, window_start, window_end ON clarify.concepts
    FOR EACH ROW EXECUTE FUNCTION clarify.concepts_window_check();

-- The audit names the concept version a decision relied on: a window's bounds are its meaning.
CREATE FUNCTION clarify.concepts_window_version() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NEW.version IS NOT DISTINCT FROM OLD.version
       AND (NEW.window_start, NEW.window_end) IS DISTINCT FROM (OLD.window_start, OLD.window_end)
    THEN
        NEW.version := OLD.version + 1;
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION clarify.concepts_window_version() IS
    'Gives a time window a new version whenever its bounds change.';

CREATE TRIGGER concepts_window_version
    BEFORE UPDATE ON clarify.concepts
    FOR EACH ROW EXECUTE FUNCTION clarify.concepts_window_version();

CREATE FUNCTION clarify.concept_columns_time_check() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    column_type regtype;
BEGIN
    IF NEW.time_column IS NULL THEN
        IF NEW.requires_time_range THEN
            RAISE EXCEPTION 'requires_time_range needs a time_column: the gate cannot tell which period % of % covers',
                            NEW.column_name, NEW.relation
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        RETURN NEW;
    END IF;
    SELECT a.atttypid::regtype INTO column_type
      FROM pg_catalog.pg_attribute a
     WHERE a.attrelid = NEW.relation
       AND a.attname = NEW.time_column
       AND a.attnum > 0
       AND NOT a.attisdropped;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'time column "%" does not exist in relation "%"', NEW.time_column, NEW.relation
            USING ERRCODE = 'undefined_column';
    END IF;
    IF column_type NOT IN ('date'::regtype, 'timestamp'::regtype, 'timestamptz'::regtype) THEN
        RAISE EXCEPTION 'time column "%" of relation "%" is of type %, not date or timestamp',
                        NEW.time_column, NEW.relation, column_type
            USING ERRCODE = 'datatype_mismatch';
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION clarify.concept_columns_time_check() IS
    'Refuses a time column that is not a date or timestamp column of the relation, and a required period without a time column.';

CREATE TRIGGER concept_columns_time_check
    BEFORE INSERT OR UPDATE OF relation, time_column, requires_time_range
    ON clarify.concept_columns
    FOR EACH ROW EXECUTE FUNCTION clarify.concept_columns_time_check();

CREATE FUNCTION clarify.terms_impact_check() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NEW.impact IS NULL OR NEW.impact NOT IN ('low', 'medium', 'high') THEN
        RAISE EXCEPTION 'impact of term "%" must be low, medium or high, not %', NEW.term,
                        coalesce('"' || NEW.impact || '"', 'NULL')
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION clarify.terms_impact_check() IS
    'Refuses an impact other than low, medium or high with a clear message.';

CREATE TRIGGER terms_impact_check
    BEFORE INSERT OR UPDATE OF impact ON clarify.terms
    FOR EACH ROW EXECUTE FUNCTION clarify.terms_impact_check();

--------------------------------------------------------------------------------------------------
-- Grain: how a governed measure may be aggregated (QC006)
--------------------------------------------------------------------------------------------------

-- A measure's additivity says which aggregates give a true number (docs/dba-guide.md, "Grain"):
-- a balance summed across snapshots or a ratio summed at all is a confident, wrong answer.
-- clarify.eligible(concepts) depends on the row type, which cannot change under it: it is
-- created again, unchanged, once the columns are added.
DROP FUNCTION clarify.eligible(clarify.concepts);
ALTER TABLE clarify.concepts
    ADD COLUMN additivity text NOT NULL DEFAULT 'additive',
    ADD COLUMN allowed_aggregates text[];
ALTER TABLE clarify.concepts
    ADD CONSTRAINT concepts_additivity_check
        CHECK (additivity IN ('additive', 'semi_additive', 'non_additive'));

COMMENT ON COLUMN clarify.concepts.additivity IS
    'additive (may be summed), semi_additive (summed only per snapshot: group by or fix the snapshot column) or non_additive (never summed). Metrics only.';
COMMENT ON COLUMN clarify.concepts.allowed_aggregates IS
    'When not NULL, the only aggregate functions (by name) that may aggregate this metric.';

CREATE FUNCTION clarify.eligible(c clarify.concepts) RETURNS boolean
    LANGUAGE sql STABLE PARALLEL SAFE
    RETURN c.status = 'approved'
       AND c.available
       AND (c.valid_from IS NULL OR c.valid_from <= pg_catalog.now())
       AND (c.valid_until IS NULL OR pg_catalog.now() < c.valid_until);

COMMENT ON FUNCTION clarify.eligible(clarify.concepts) IS
    'True when the concept may be used right now: approved, available, and inside its validity period.';
GRANT EXECUTE ON FUNCTION clarify.eligible(clarify.concepts) TO PUBLIC;

ALTER TABLE clarify.concept_columns ADD COLUMN snapshot_column name;

COMMENT ON COLUMN clarify.concept_columns.snapshot_column IS
    'For a semi_additive metric: the column of the same relation that dates each snapshot.';

-- The gate trusts these declarations, so one it cannot apply is refused when written.
CREATE FUNCTION clarify.concepts_grain_check() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    entry text;
BEGIN
    IF NEW.kind <> 'metric' AND (NEW.additivity <> 'additive' OR NEW.allowed_aggregates IS NOT NULL)
    THEN
        RAISE EXCEPTION 'concept "%" is a %: additivity and allowed_aggregates describe metrics only',
                        NEW.id, NEW.kind
            USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.allowed_aggregates IS NOT NULL THEN
        IF pg_catalog.cardinality(NEW.allowed_aggregates) = 0 THEN
            RAISE EXCEPTION 'allowed_aggregates of concept "%" is empty: use NULL to allow every aggregate',
                            NEW.id
                USING ERRCODE = 'check_violation';
        END IF;
        FOREACH entry IN ARRAY NEW.allowed_aggregates LOOP
            IF entry IS NULL OR NOT EXISTS (SELECT 1 FROM pg_catalog.pg_proc p
                                             WHERE p.proname = entry AND p.prokind = 'a') THEN
                RAISE EXCEPTION 'allowed_aggregates of concept "%": "%" is not an aggregate function',
                                NEW.id, coalesce(entry, 'NULL')
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
        END LOOP;
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.additivity <> 'semi_additive'
       AND EXISTS (SELECT 1 FROM clarify.concept_columns cc
                    WHERE cc.concept_id = NEW.id AND cc.snapshot_column IS NOT NULL) THEN
        RAISE EXCEPTION 'concept "%" has snapshot columns: only a semi_additive metric can have them',
                        NEW.id
            USING ERRCODE = 'check_violation',
                  HINT = 'Set snapshot_column to NULL in clarify.concept_columns first.';
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION clarify.concepts_grain_check() IS
    'Refuses additivity on a dimension, allowed_aggregates entries that are not aggregates, and snapshot columns on a concept that is not semi_additive.';

CREATE TRIGGER concepts_grain_check
    BEFORE INSERT OR UPDATE OF kind, additivity, allowed_aggregates ON clarify.concepts
    FOR EACH ROW EXECUTE FUNCTION clarify.concepts_grain_check();

-- Which aggregates a measure allows is part of what it means: changing it gives a new version,
-- like any other change of meaning or usability.
CREATE OR REPLACE FUNCTION clarify.concepts_bump_version() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- An UPDATE that sets version itself (e.g. a restore or a deliberate correction) is obeyed.
    IF NEW.version IS NOT DISTINCT FROM OLD.version
       AND (NEW.kind, NEW.label, NEW.description, NEW.owner, NEW.status, NEW.available,
            NEW.aliases, NEW.valid_from, NEW.valid_until, NEW.additivity, NEW.allowed_aggregates)
           IS DISTINCT FROM
           (OLD.kind, OLD.label, OLD.description, OLD.owner, OLD.status, OLD.available,
            OLD.aliases, OLD.valid_from, OLD.valid_until, OLD.additivity, OLD.allowed_aggregates)
    THEN
        NEW.version := OLD.version + 1;
    END IF;
    RETURN NEW;
END
$$;

CREATE FUNCTION clarify.concept_columns_snapshot_check() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    concept_additivity text;
BEGIN
    IF NEW.snapshot_column IS NULL THEN
        RETURN NEW;
    END IF;
    SELECT c.additivity INTO concept_additivity FROM clarify.concepts c WHERE c.id = NEW.concept_id;
    IF concept_additivity IS DISTINCT FROM 'semi_additive' THEN
        RAISE EXCEPTION 'concept "%" is not semi_additive: only a semi_additive metric has a snapshot column',
                        NEW.concept_id
            USING ERRCODE = 'check_violation';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a
                    WHERE a.attrelid = NEW.relation AND a.attname = NEW.snapshot_column
                      AND a.attnum > 0 AND NOT a.attisdropped) THEN
        RAISE EXCEPTION 'snapshot column "%" does not exist in relation "%"',
                        NEW.snapshot_column, NEW.relation
            USING ERRCODE = 'undefined_column';
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION clarify.concept_columns_snapshot_check() IS
    'Refuses a snapshot column that is not in the relation, or on a concept that is not semi_additive.';

CREATE TRIGGER concept_columns_snapshot_check
    BEFORE INSERT OR UPDATE OF relation, snapshot_column ON clarify.concept_columns
    FOR EACH ROW EXECUTE FUNCTION clarify.concept_columns_snapshot_check();

-- Keys a DBA vouches for where no constraint proves them (warehouses load without constraints):
-- a join to such a key does not repeat the rows of the other side.
CREATE TABLE clarify.unique_keys (
    relation    regclass NOT NULL,
    columns     name[] NOT NULL,
    approved_by text NOT NULL,
    note        text NOT NULL DEFAULT '',
    approved_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (relation, columns),
    CONSTRAINT unique_keys_approved_by_check CHECK (approved_by ~ '[^[:space:]]')
);

COMMENT ON TABLE clarify.unique_keys IS
    'Column sets declared unique where no unique index or primary key proves it; the gate trusts them when it checks that a join does not repeat rows.';
COMMENT ON COLUMN clarify.unique_keys.approved_by IS 'The person or body who vouches for the key.';

CREATE FUNCTION clarify.unique_keys_check() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    rel_kind "char";
    rel_name text;
    col      name;
BEGIN
    IF NEW.relation IS NULL OR NEW.columns IS NULL THEN
        RETURN NEW;  -- the NOT NULL constraints say it better
    END IF;
    SELECT c.relkind, pg_catalog.format('%s.%s', n.nspname, c.relname)
      INTO rel_kind, rel_name
      FROM pg_catalog.pg_class c
      JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     WHERE c.oid = NEW.relation;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'relation with OID % does not exist', NEW.relation::oid
            USING ERRCODE = 'undefined_table';
    END IF;
    IF rel_kind NOT IN ('r', 'p', 'm', 'f') THEN
        RAISE EXCEPTION 'relation "%" is not a table, materialized view or foreign table', rel_name
            USING ERRCODE = 'wrong_object_type';
    END IF;
    IF pg_catalog.cardinality(NEW.columns) = 0 THEN
        RAISE EXCEPTION 'a unique key of "%" needs at least one column', rel_name
            USING ERRCODE = 'check_violation';
    END IF;
    FOREACH col IN ARRAY NEW.columns LOOP
        IF col IS NULL OR NOT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a
                                       WHERE a.attrelid = NEW.relation AND a.attname = col
                                         AND a.attnum > 0 AND NOT a.attisdropped) THEN
            RAISE EXCEPTION 'column "%" does not exist in relation "%"', coalesce(col, 'NULL'), rel_name
                USING ERRCODE = 'undefined_column';
        END IF;
    END LOOP;
    IF NEW.approved_by IS NULL OR NEW.approved_by !~ '[^[:space:]]' THEN
        RAISE EXCEPTION 'unique key of "%" must name who approved it (approved_by is empty)', rel_name
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION clarify.unique_keys_check() IS
    'Refuses a declared key on a relation or column that does not exist, or without an approver.';

CREATE TRIGGER unique_keys_check
    BEFORE INSERT OR UPDATE ON clarify.unique_keys
    FOR EACH ROW EXECUTE FUNCTION clarify.unique_keys_check();
CREATE TRIGGER catalog_changed
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON clarify.unique_keys
    FOR EACH STATEMENT EXECUTE FUNCTION clarify.catalog_changed();

REVOKE ALL ON clarify.unique_keys FROM PUBLIC;
REVOKE ALL ON FUNCTION clarify.concepts_grain_check(), clarify.concept_columns_snapshot_check(),
    clarify.unique_keys_check() FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('clarify.unique_keys', '');

--------------------------------------------------------------------------------------------------
-- Sync audit through the write-ahead log: waiting until decisions are visible
--------------------------------------------------------------------------------------------------

-- A sync decision is durable in the WAL before it is a row; this waits for the rows. Whoever may
-- read clarify.audit may call it (the function checks that privilege itself).
CREATE FUNCTION clarify.audit_wait(timeout interval DEFAULT '5 s') RETURNS boolean
    AS 'MODULE_PATHNAME', 'clarify_audit_wait'
    LANGUAGE C VOLATILE STRICT;

COMMENT ON FUNCTION clarify.audit_wait(interval) IS
    'Waits until every decision made in this database before the call is visible in clarify.audit; false when the timeout passes first.';

--------------------------------------------------------------------------------------------------
-- Virtual generated columns (PostgreSQL 18) cannot be governed
--------------------------------------------------------------------------------------------------

-- A virtual generated column is computed where it is read: no plan reads it as a column, only the
-- columns its expression uses, so governing it would govern nothing. Those are what to govern.
CREATE OR REPLACE FUNCTION clarify.concept_columns_check() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    rel_kind   "char";
    rel_name   text;
    generated  "char";
BEGIN
    IF NEW.relation IS NULL OR NEW.column_name IS NULL THEN
        RETURN NEW;  -- the NOT NULL constraints say it better
    END IF;
    SELECT c.relkind, pg_catalog.format('%s.%s', n.nspname, c.relname)
      INTO rel_kind, rel_name
      FROM pg_catalog.pg_class c
      JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     WHERE c.oid = NEW.relation;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'relation with OID % does not exist', NEW.relation::oid
            USING ERRCODE = 'undefined_table';
    END IF;
    IF rel_kind NOT IN ('r', 'p', 'v', 'm', 'f') THEN
        RAISE EXCEPTION 'relation "%" is not a table, view, materialized view or foreign table',
                        rel_name
            USING ERRCODE = 'wrong_object_type';
    END IF;
    SELECT a.attnum, a.attgenerated INTO NEW.attnum, generated
      FROM pg_catalog.pg_attribute a
     WHERE a.attrelid = NEW.relation
       AND a.attname = NEW.column_name
       AND a.attnum > 0
       AND NOT a.attisdropped;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'column "%" does not exist in relation "%"', NEW.column_name, rel_name
            USING ERRCODE = 'undefined_column';
    END IF;
    IF generated = 'v' THEN
        RAISE EXCEPTION 'column "%" of relation "%" is a virtual generated column', NEW.column_name,
                        rel_name
            USING ERRCODE = 'feature_not_supported',
                  DETAIL = 'A statement reads the columns its expression uses, never the column itself.',
                  HINT = 'Govern the columns its expression uses.';
    END IF;
    RETURN NEW;
END
$$;

--------------------------------------------------------------------------------------------------
-- Replay wait: an agent on a standby waits until a confirmation made on the primary is replayed
--------------------------------------------------------------------------------------------------

-- The agent calls it on its own connection between confirm (on the primary) and the re-run, so
-- it is executable by everyone: it answers only about approvals the caller may read or that are
-- granted to a role it belongs to, and says nothing but true or false.
CREATE FUNCTION clarify.approval_wait(approval_id bigint, timeout interval DEFAULT '5 s')
    RETURNS boolean
    AS 'MODULE_PATHNAME', 'clarify_approval_wait'
    LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;

COMMENT ON FUNCTION clarify.approval_wait(bigint, interval) IS
    'Waits until this server shows the approval (on a standby: until it has replayed it) to the caller; false when the timeout passes first.';

GRANT EXECUTE ON FUNCTION clarify.approval_wait(bigint, interval) TO PUBLIC;

--------------------------------------------------------------------------------------------------
-- Read replicas: decisions made on a hot standby are audited here, on the primary
--------------------------------------------------------------------------------------------------

-- Where a batch's decisions were made: this server (its cluster_name, or its system identifier
-- and address) for the writer's own batches, the standby's origin for a batch it forwarded
-- through clarify.audit_ingest(). Rows written before the column existed have no origin (NULL):
-- it was not recorded.
CREATE FUNCTION clarify.batch_origin() RETURNS text
    AS 'MODULE_PATHNAME', 'clarify_batch_origin'
    LANGUAGE C VOLATILE;
REVOKE ALL ON FUNCTION clarify.batch_origin() FROM PUBLIC;

ALTER TABLE clarify.audit_batches ADD COLUMN origin text;
ALTER TABLE clarify.audit_batches ALTER COLUMN origin SET DEFAULT clarify.batch_origin();

CREATE OR REPLACE VIEW clarify.audit_log AS
SELECT u.decision_id, u.decided_at, u.session_role, u.acting_role, u.pid, u.query_id,
       u.statement_hash, u.shape_hash, u.record_hash, u.question_id, b.batch_id, b.origin
FROM clarify.audit_batches b
CROSS JOIN LATERAL unnest(b.decision_ids, b.decided_ats, b.session_roles, b.acting_roles, b.pids,
                          b.query_ids, b.statement_hashes, b.shape_hashes, b.record_hashes,
                          b.question_ids)
    AS u(decision_id, decided_at, session_role, acting_role, pid, query_id, statement_hash,
         shape_hash, record_hash, question_id);

CREATE OR REPLACE VIEW clarify.audit AS
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
       rec.body::jsonb AS record,
       l.origin
FROM clarify.audit_log l
LEFT JOIN clarify.audit_texts st ON st.hash = l.statement_hash
LEFT JOIN clarify.audit_shapes sh ON sh.hash = l.shape_hash
LEFT JOIN clarify.audit_texts rec ON rec.hash = l.record_hash
LEFT JOIN LATERAL (SELECT string_agg(an.note, '; ') AS note FROM clarify.audit_notes an
                   WHERE an.decision_id = l.decision_id) n ON true;

-- A standby's audit writer sends its decisions here (docs/dba-guide.md, "Read replicas"). It
-- writes them as this server's writer would, once each, durable when it returns; it accepts only
-- what a standby's writer sends. Nobody may call it until the owner grants it to the role named
-- in the standbys' pg_clarify.audit_conninfo.
CREATE FUNCTION clarify.audit_ingest(origin text, entries bytea) RETURNS bigint
    AS 'MODULE_PATHNAME', 'clarify_audit_ingest'
    LANGUAGE C VOLATILE STRICT SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION clarify.audit_ingest(text, bytea) FROM PUBLIC;

COMMENT ON FUNCTION clarify.audit_ingest(text, bytea) IS
    'Writes the decisions a standby''s audit writer forwards (the owner grants it to the standbys'' role); returns how many were new.';

--------------------------------------------------------------------------------------------------
-- Read replicas (2): each forwarding origin holds its decision id node alone
--------------------------------------------------------------------------------------------------

-- Decision ids carry an 8-bit node hashed from the origin: two standbys whose origins hash to one
-- node could hand out the same id, so the ingest registers each origin's node here and refuses an
-- origin whose node another holds. An origin is bound to the role that first forwarded it, so a
-- second standby's credential cannot write as the first (docs/dba-guide.md, "Read replicas").
CREATE TABLE clarify.audit_origins (
    origin        text PRIMARY KEY,
    node          smallint NOT NULL UNIQUE CHECK (node BETWEEN 0 AND 255),
    forwarded_by  regrole NOT NULL,
    registered_at timestamptz NOT NULL DEFAULT pg_catalog.now()
);
REVOKE ALL ON clarify.audit_origins FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('clarify.audit_origins', '');

COMMENT ON TABLE clarify.audit_origins IS
    'The origins standbys forward decisions from, each with its decision id node (unique) and the role that forwards it; the owner deletes a row to let an origin move to another node or role.';

--------------------------------------------------------------------------------------------------
-- Read replicas (perf): the ingest finds the batches it holds by origin and time
--------------------------------------------------------------------------------------------------

-- clarify.audit_ingest() looks up the batches it already holds from a
-- standby by origin and time; without an index that is a scan of every batch, per call.
CREATE INDEX audit_batches_origin_idx ON clarify.audit_batches (origin, last_decided_at);

--------------------------------------------------------------------------------------------------
-- Roles and columns by name: a restore, a DROP or a rename never leaves anything ungoverned
--------------------------------------------------------------------------------------------------

-- Rows name their roles as text (a dump restored before its roles exist keeps them, and a role dropped
-- and created again is governed again); the OID recorded next to the name, in this cluster,
-- follows ALTER ROLE ... RENAME in databases where the rename did not run (docs/dba-guide.md,
-- "Roles are governed by name").
CREATE FUNCTION clarify.role_name_resolve() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    given text := pg_catalog.to_jsonb(NEW) ->> TG_ARGV[0];
    found_oid oid;
    found_name name;
BEGIN
    IF given IS NOT NULL THEN
        SELECT r.oid, r.rolname INTO found_oid, found_name FROM pg_catalog.pg_roles r
         WHERE r.rolname = given;
        -- A regrole value assigned here arrives in its output form, quoted when it must be.
        IF NOT FOUND AND given LIKE '"%"' THEN
            SELECT r.oid, r.rolname INTO found_oid, found_name FROM pg_catalog.pg_roles r
             WHERE r.rolname = pg_catalog.replace(pg_catalog.substr(given, 2,
                                                  pg_catalog.length(given) - 2), '""', '"');
        END IF;
        IF found_oid IS NULL THEN
            RAISE WARNING 'role "%" does not exist: the row applies to it once it is created', given;
            found_name := given;
        END IF;
    END IF;
    -- The OID is always the one of the name now, never one given (a dump's, from another cluster).
    NEW := pg_catalog.jsonb_populate_record(NEW, pg_catalog.jsonb_build_object(
               TG_ARGV[0], found_name, TG_ARGV[1], found_oid));
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION clarify.role_name_resolve() IS
    'Stores a role by name with the OID that name has now; a role that does not exist yet is kept by name (with a WARNING).';

ALTER TABLE clarify.agent_roles
    ALTER COLUMN agent_role TYPE text USING pg_catalog.pg_get_userbyid(agent_role::oid);
ALTER TABLE clarify.agent_roles ADD COLUMN role_oid oid;
DROP INDEX clarify.defaults_term_scope_key;
ALTER TABLE clarify.defaults
    ALTER COLUMN applies_to TYPE text USING pg_catalog.pg_get_userbyid(applies_to::oid);
ALTER TABLE clarify.defaults ADD COLUMN applies_to_oid oid;
-- NULL applies_to ("everyone") is one scope; no role is named ''.
CREATE UNIQUE INDEX defaults_term_scope_key
    ON clarify.defaults (term, (COALESCE(applies_to, '')));
ALTER TABLE clarify.approvals
    ALTER COLUMN granted_to TYPE text USING pg_catalog.pg_get_userbyid(granted_to::oid);
ALTER TABLE clarify.approvals ADD COLUMN granted_to_oid oid;

COMMENT ON COLUMN clarify.agent_roles.agent_role IS
    'The governed role, by name: it applies to the role of that name whenever it exists.';
COMMENT ON COLUMN clarify.agent_roles.role_oid IS
    'The OID the name had when written in this cluster (set by the catalog): a role renamed in another database stays governed.';
COMMENT ON COLUMN clarify.defaults.applies_to IS
    'The role (and its members) the default is for, by name; NULL means everyone.';
COMMENT ON COLUMN clarify.defaults.applies_to_oid IS
    'The OID applies_to had when written in this cluster (set by the catalog).';
COMMENT ON COLUMN clarify.approvals.granted_to IS
    'The role (and its members) that may rely on this confirmation, by name.';
COMMENT ON COLUMN clarify.approvals.granted_to_oid IS
    'The OID granted_to had when written in this cluster (set by the catalog).';

UPDATE clarify.agent_roles a SET role_oid = r.oid FROM pg_catalog.pg_roles r
 WHERE r.rolname = a.agent_role;
UPDATE clarify.defaults d SET applies_to_oid = r.oid FROM pg_catalog.pg_roles r
 WHERE r.rolname = d.applies_to;
UPDATE clarify.approvals a SET granted_to_oid = r.oid FROM pg_catalog.pg_roles r
 WHERE r.rolname = a.granted_to;

CREATE TRIGGER role_name_resolve
    BEFORE INSERT OR UPDATE OF agent_role, role_oid ON clarify.agent_roles
    FOR EACH ROW EXECUTE FUNCTION clarify.role_name_resolve('agent_role', 'role_oid');
CREATE TRIGGER role_name_resolve
    BEFORE INSERT OR UPDATE OF applies_to, applies_to_oid ON clarify.defaults
    FOR EACH ROW EXECUTE FUNCTION clarify.role_name_resolve('applies_to', 'applies_to_oid');
CREATE TRIGGER role_name_resolve
    BEFORE INSERT OR UPDATE OF granted_to, granted_to_oid ON clarify.approvals
    FOR EACH ROW EXECUTE FUNCTION clarify.role_name_resolve('granted_to', 'granted_to_oid');

-- The library calls it after ALTER ROLE ... RENAME in this database (src/pg/catalog/role_rename.cpp).
-- Rows by the old name too: one restored before the role existed has no OID recorded.
CREATE FUNCTION clarify.role_renamed(role oid, old_name name) RETURNS void
    LANGUAGE sql VOLATILE
    SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    UPDATE clarify.agent_roles SET agent_role = pg_catalog.pg_get_userbyid(role)
     WHERE (role_oid = role OR agent_role = old_name)
       AND agent_role <> pg_catalog.pg_get_userbyid(role);
    UPDATE clarify.defaults SET applies_to = pg_catalog.pg_get_userbyid(role)
     WHERE (applies_to_oid = role OR applies_to = old_name)
       AND applies_to <> pg_catalog.pg_get_userbyid(role);
    UPDATE clarify.approvals SET granted_to = pg_catalog.pg_get_userbyid(role)
     WHERE (granted_to_oid = role OR granted_to = old_name)
       AND granted_to <> pg_catalog.pg_get_userbyid(role);
END;

COMMENT ON FUNCTION clarify.role_renamed(oid, name) IS
    'Gives the rows recorded for a role its new name (called by the library after ALTER ROLE ... RENAME).';

CREATE OR REPLACE FUNCTION clarify.release_role(r regrole) RETURNS void
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF r IS NULL THEN
        RAISE EXCEPTION 'role must not be NULL'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    DELETE FROM clarify.agent_roles a
     WHERE a.agent_role = pg_catalog.pg_get_userbyid(r) OR a.role_oid = r;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'role "%" is not governed by pg_clarify', r
            USING ERRCODE = 'undefined_object';
    END IF;
END
$$;

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
    INSERT INTO clarify.agent_roles (agent_role) VALUES (pg_catalog.pg_get_userbyid(r))
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

REVOKE ALL ON FUNCTION clarify.role_name_resolve(), clarify.role_renamed(oid, name) FROM PUBLIC;

-- A mapping keeps the schema, table and column names: event triggers follow renames, a DROP
-- warns and keeps the row, and a column or table of that name added again is governed again.
-- `relation` stays what a DBA writes (a regclass); after a DROP it holds the old OID until a
-- relation of the names exists again.
ALTER TABLE clarify.concept_columns ADD COLUMN schema_name name;
ALTER TABLE clarify.concept_columns ADD COLUMN table_name name;
COMMENT ON COLUMN clarify.concept_columns.schema_name IS
    'The schema of the governed relation, kept current through renames and kept after a DROP (set by the catalog).';
COMMENT ON COLUMN clarify.concept_columns.table_name IS
    'The governed relation''s name, kept current through renames and kept after a DROP (set by the catalog).';
UPDATE clarify.concept_columns cc SET schema_name = n.nspname, table_name = c.relname
  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
 WHERE c.oid = cc.relation;
-- Mappings of relations already dropped keep their OID; their column name is all there is.
UPDATE clarify.concept_columns SET attnum = NULL
 WHERE NOT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a
                    WHERE a.attrelid = relation AND a.attnum = concept_columns.attnum
                      AND NOT a.attisdropped);

-- Names given (a restore, or the catalog following DDL) win over the OID, which may be another
-- cluster's; a mapping whose relation or column does not exist is then kept, not refused.
CREATE OR REPLACE FUNCTION clarify.concept_columns_check() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    rel_kind   "char";
    rel_name   text;
    generated  "char";
    by_name    regclass;
    named      boolean;
BEGIN
    IF NEW.relation IS NULL OR NEW.column_name IS NULL THEN
        RETURN NEW;  -- the NOT NULL constraints say it better
    END IF;
    -- The catalog marking its column dropped (clarify.warn_dropped).
    IF TG_OP = 'UPDATE' AND NEW.attnum IS NULL
       AND (NEW.relation, NEW.column_name, NEW.schema_name, NEW.table_name)
           IS NOT DISTINCT FROM (OLD.relation, OLD.column_name, OLD.schema_name, OLD.table_name) THEN
        RETURN NEW;
    END IF;
    -- Names given on INSERT (a restore), or changed alone on UPDATE (the catalog following DDL).
    named := NEW.schema_name IS NOT NULL AND NEW.table_name IS NOT NULL
             AND (TG_OP = 'INSERT'
                  OR (NEW.relation IS NOT DISTINCT FROM OLD.relation
                      AND (NEW.schema_name, NEW.table_name)
                          IS DISTINCT FROM (OLD.schema_name, OLD.table_name)));
    IF named THEN
        SELECT c.oid INTO by_name FROM pg_catalog.pg_class c
          JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = NEW.schema_name AND c.relname = NEW.table_name;
        IF by_name IS NULL THEN
            NEW.attnum := NULL;
            RETURN NEW;
        END IF;
        NEW.relation := by_name;
    END IF;
    SELECT c.relkind, pg_catalog.format('%s.%s', n.nspname, c.relname), n.nspname, c.relname
      INTO rel_kind, rel_name, NEW.schema_name, NEW.table_name
      FROM pg_catalog.pg_class c
      JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     WHERE c.oid = NEW.relation;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'relation with OID % does not exist', NEW.relation::oid
            USING ERRCODE = 'undefined_table';
    END IF;
    IF rel_kind NOT IN ('r', 'p', 'v', 'm', 'f') THEN
        RAISE EXCEPTION 'relation "%" is not a table, view, materialized view or foreign table',
                        rel_name
            USING ERRCODE = 'wrong_object_type';
    END IF;
    SELECT a.attnum, a.attgenerated INTO NEW.attnum, generated
      FROM pg_catalog.pg_attribute a
     WHERE a.attrelid = NEW.relation
       AND a.attname = NEW.column_name
       AND a.attnum > 0
       AND NOT a.attisdropped;
    IF NOT FOUND THEN
        IF named THEN
            NEW.attnum := NULL;
            RETURN NEW;
        END IF;
        RAISE EXCEPTION 'column "%" does not exist in relation "%"', NEW.column_name, rel_name
            USING ERRCODE = 'undefined_column';
    END IF;
    IF generated = 'v' THEN
        RAISE EXCEPTION 'column "%" of relation "%" is a virtual generated column', NEW.column_name,
                        rel_name
            USING ERRCODE = 'feature_not_supported',
                  DETAIL = 'A statement reads the columns its expression uses, never the column itself.',
                  HINT = 'Govern the columns its expression uses.';
    END IF;
    RETURN NEW;
END
$$;

DROP TRIGGER concept_columns_check ON clarify.concept_columns;
CREATE TRIGGER concept_columns_check
    BEFORE INSERT OR UPDATE OF relation, column_name, attnum, schema_name, table_name
    ON clarify.concept_columns
    FOR EACH ROW EXECUTE FUNCTION clarify.concept_columns_check();
-- A kept mapping (nothing of its names exists) has no columns to check its time or snapshot
-- column against; they are checked when the relation exists again.
DROP TRIGGER concept_columns_time_check ON clarify.concept_columns;
CREATE TRIGGER concept_columns_time_check
    BEFORE INSERT OR UPDATE OF relation, time_column, requires_time_range
    ON clarify.concept_columns
    FOR EACH ROW WHEN (NEW.attnum IS NOT NULL)
    EXECUTE FUNCTION clarify.concept_columns_time_check();
DROP TRIGGER concept_columns_snapshot_check ON clarify.concept_columns;
CREATE TRIGGER concept_columns_snapshot_check
    BEFORE INSERT OR UPDATE OF relation, snapshot_column ON clarify.concept_columns
    FOR EACH ROW WHEN (NEW.attnum IS NOT NULL)
    EXECUTE FUNCTION clarify.concept_columns_snapshot_check();

-- After every DDL: mappings follow their relation's and column's new names (by OID and column
-- number), then kept mappings find a relation or column of their names again.
CREATE FUNCTION clarify.follow_ddl() RETURNS event_trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM clarify.concept_columns) THEN
        RETURN;
    END IF;
    -- Only live mappings follow their OID: a dropped relation's OID may be taken by another.
    WITH current_names AS (
        SELECT cc.ctid AS row_id, n.nspname, c.relname, coalesce(a.attname, cc.column_name) AS attname
          FROM clarify.concept_columns cc
          JOIN pg_catalog.pg_class c ON c.oid = cc.relation
          JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
          LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum = cc.attnum
           AND NOT a.attisdropped
         WHERE cc.attnum IS NOT NULL)
    UPDATE clarify.concept_columns cc
       SET schema_name = w.nspname, table_name = w.relname, column_name = w.attname
      FROM current_names w
     WHERE cc.ctid = w.row_id
       AND (cc.schema_name, cc.table_name, cc.column_name)
           IS DISTINCT FROM (w.nspname, w.relname, w.attname);
    -- Kept mappings: the relation is gone, is not theirs any more, or lost the column.
    UPDATE clarify.concept_columns cc
       SET relation = c.oid, attnum = a.attnum
      FROM pg_catalog.pg_class c
      JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
     WHERE n.nspname = cc.schema_name AND c.relname = cc.table_name
       AND a.attname = cc.column_name
       AND (cc.relation <> c.oid OR cc.attnum IS DISTINCT FROM a.attnum)
       AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute r
                        WHERE r.attrelid = cc.relation AND r.attnum = cc.attnum
                          AND NOT r.attisdropped);
END
$$;

COMMENT ON FUNCTION clarify.follow_ddl() IS
    'Keeps governed columns'' names current through renames, and governs a dropped column or table again when one of its names is added again.';

-- At a DROP: the mapping stays (names kept), and whoever dropped it hears which concept lost it.
CREATE FUNCTION clarify.warn_dropped() RETURNS event_trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    lost record;
BEGIN
    FOR lost IN
        SELECT cc.schema_name, cc.table_name, cc.column_name,
               pg_catalog.string_agg(DISTINCT cc.concept_id, ', ' ORDER BY cc.concept_id) AS concepts
          FROM pg_catalog.pg_event_trigger_dropped_objects() d
          JOIN clarify.concept_columns cc ON cc.relation = d.objid
           AND (d.objsubid = 0 OR d.objsubid = cc.attnum)
         WHERE d.classid = 'pg_catalog.pg_class'::regclass AND cc.attnum IS NOT NULL
         GROUP BY 1, 2, 3
    LOOP
        RAISE WARNING 'column "%" of relation "%.%" is governed by %: it is no longer governed until a column of that name exists again',
                      lost.column_name, lost.schema_name, lost.table_name, lost.concepts
            USING HINT = 'clarify.concept_columns keeps the mapping; delete it if the meaning is gone.';
    END LOOP;
    UPDATE clarify.concept_columns cc SET attnum = NULL
      FROM pg_catalog.pg_event_trigger_dropped_objects() d
     WHERE d.classid = 'pg_catalog.pg_class'::regclass AND cc.relation = d.objid
       AND (d.objsubid = 0 OR d.objsubid = cc.attnum);
END
$$;

COMMENT ON FUNCTION clarify.warn_dropped() IS
    'Warns, naming the concept, when a governed column or table is dropped; the mapping keeps its names.';

REVOKE ALL ON FUNCTION clarify.follow_ddl(), clarify.warn_dropped() FROM PUBLIC;

CREATE EVENT TRIGGER clarify_follow_ddl ON ddl_command_end
    EXECUTE FUNCTION clarify.follow_ddl();
CREATE EVENT TRIGGER clarify_warn_dropped ON sql_drop
    EXECUTE FUNCTION clarify.warn_dropped();

--------------------------------------------------------------------------------------------------
-- Friendly refusals: a DBA's typo is answered with the values that are allowed
--------------------------------------------------------------------------------------------------

-- The values a CHECK constraint of the form `col IN ('a', 'b', ...)` allows, read from the
-- constraint itself so that a message never lists other values than the catalog enforces.
CREATE FUNCTION clarify.allowed_values(tbl regclass, constraint_name name) RETURNS text
    LANGUAGE sql STABLE STRICT
    SET search_path = pg_catalog, pg_temp
    RETURN (SELECT pg_catalog.string_agg(m[1], ', ' ORDER BY n)
              FROM pg_catalog.pg_constraint c,
                   pg_catalog.regexp_matches(pg_catalog.pg_get_constraintdef(c.oid), '''([^'']*)''', 'g')
                       WITH ORDINALITY AS v(m, n)
             WHERE c.conrelid = tbl AND c.conname = constraint_name);

COMMENT ON FUNCTION clarify.allowed_values(regclass, name) IS
    'The values a CHECK constraint listing them allows, comma-separated (for the catalog''s messages).';

CREATE FUNCTION clarify.concepts_allowed_values() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NEW.kind IS NOT NULL AND NOT NEW.kind = ANY (
           pg_catalog.string_to_array(clarify.allowed_values('clarify.concepts', 'concepts_kind_check'), ', ')) THEN
        RAISE EXCEPTION 'concept "%": kind "%" is not one of %', NEW.id, NEW.kind,
                        clarify.allowed_values('clarify.concepts', 'concepts_kind_check')
            USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.status IS NOT NULL AND NOT NEW.status = ANY (
           pg_catalog.string_to_array(clarify.allowed_values('clarify.concepts', 'concepts_status_check'), ', ')) THEN
        RAISE EXCEPTION 'concept "%": status "%" is not one of %', NEW.id, NEW.status,
                        clarify.allowed_values('clarify.concepts', 'concepts_status_check')
            USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.additivity IS NOT NULL AND NOT NEW.additivity = ANY (
           pg_catalog.string_to_array(clarify.allowed_values('clarify.concepts', 'concepts_additivity_check'), ', ')) THEN
        RAISE EXCEPTION 'concept "%": additivity "%" is not one of %', NEW.id, NEW.additivity,
                        clarify.allowed_values('clarify.concepts', 'concepts_additivity_check')
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION clarify.concepts_allowed_values() IS
    'Refuses a kind, status or additivity the catalog does not know, listing the allowed values.';

-- BEFORE triggers fire in name order: this one before every other check of concepts.
CREATE TRIGGER concepts_allowed_values
    BEFORE INSERT OR UPDATE OF kind, status, additivity ON clarify.concepts
    FOR EACH ROW EXECUTE FUNCTION clarify.concepts_allowed_values();

-- A term or default naming a concept that is not registered: say which, and what is near it.
CREATE FUNCTION clarify.known_concept_check() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    near text;
BEGIN
    IF NEW.concept_id IS NULL OR EXISTS (SELECT 1 FROM clarify.concepts c WHERE c.id = NEW.concept_id) THEN
        RETURN NEW;
    END IF;
    SELECT pg_catalog.string_agg(id, ', ' ORDER BY id) INTO near
      FROM (SELECT c.id FROM clarify.concepts c
             WHERE pg_catalog.split_part(c.id, '.', 1) = pg_catalog.split_part(NEW.concept_id, '.', 1)
             ORDER BY c.id LIMIT 10) n;
    RAISE EXCEPTION 'concept "%" does not exist (clarify.%)', NEW.concept_id, TG_TABLE_NAME
        USING ERRCODE = 'foreign_key_violation',
              HINT = CASE WHEN near IS NULL THEN 'Register it in clarify.concepts first.'
                          ELSE 'Concepts of that kind of id: ' || near || '.' END;
END
$$;

COMMENT ON FUNCTION clarify.known_concept_check() IS
    'Refuses a term or default for a concept that is not registered, naming it and the ids near it.';

CREATE TRIGGER terms_known_concept
    BEFORE INSERT OR UPDATE OF concept_id ON clarify.terms
    FOR EACH ROW EXECUTE FUNCTION clarify.known_concept_check();

-- A default for a term the catalog has no candidates for: say so, before defaults_check's
-- "not a candidate" (BEFORE triggers fire in name order: defaults_a_... before defaults_check).
CREATE FUNCTION clarify.defaults_known_term() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- An empty term is defaults_check's to refuse.
    IF clarify.normalize_term(NEW.term) <> '' AND NOT EXISTS (
           SELECT 1 FROM clarify.terms t WHERE t.term = clarify.normalize_term(NEW.term)) THEN
        RAISE EXCEPTION 'term "%" does not exist in clarify.terms', NEW.term
            USING ERRCODE = 'foreign_key_violation',
                  HINT = 'Add the term with its candidate meanings first, e.g. INSERT INTO clarify.terms (term, concept_id) VALUES (' ||
                         pg_catalog.quote_literal(NEW.term) || ', ''<concept id>'').';
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION clarify.defaults_known_term() IS
    'Refuses a default for a term that has no candidate meanings in clarify.terms, saying so.';

CREATE TRIGGER defaults_a_known_term
    BEFORE INSERT OR UPDATE OF term ON clarify.defaults
    FOR EACH ROW EXECUTE FUNCTION clarify.defaults_known_term();

CREATE TRIGGER defaults_a_known_concept
    BEFORE INSERT OR UPDATE OF concept_id ON clarify.defaults
    FOR EACH ROW EXECUTE FUNCTION clarify.known_concept_check();

--------------------------------------------------------------------------------------------------
-- Mentioned terms: the governed terms a question mentions (docs/reference.md, "Which terms
-- decide a column")
--------------------------------------------------------------------------------------------------

-- Whole words, in order, case-folded as `explicit` compares labels; any run of spaces, hyphens
-- or line breaks between a term's words.
CREATE FUNCTION clarify.mentions(question text, term text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'clarify_mentions'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION clarify.mentions(text, text) IS
    'Whether the question mentions the term as the gate matches it: whole words, in order, case-folded; spaces, hyphens or line breaks between its words.';

-- Invoker's rights: whoever may read clarify.terms may call it.
CREATE FUNCTION clarify.mentioned_terms(question text) RETURNS SETOF text
    LANGUAGE sql STABLE STRICT
    SET search_path = pg_catalog, pg_temp
    AS $$
        SELECT DISTINCT t.term FROM clarify.terms AS t
         WHERE clarify.mentions(question, t.term)
         ORDER BY t.term
    $$;

COMMENT ON FUNCTION clarify.mentioned_terms(text) IS
    'The governed terms (as stored) the question mentions, eligible or not: those that decide the columns of their meanings.';

GRANT EXECUTE ON FUNCTION clarify.mentions(text, text), clarify.mentioned_terms(text) TO PUBLIC;

--------------------------------------------------------------------------------------------------
-- Internal schema and comments
--------------------------------------------------------------------------------------------------

-- What is not the extension's surface (docs/reference.md, "Functions") lives in clarify_internal:
-- trigger and event-trigger functions and the helpers they and the library call. Triggers,
-- event triggers and column defaults call them by OID, so the move changes nothing they do.
-- Nobody but the owner may use the schema: an agent cannot even name them.
CREATE SCHEMA clarify_internal;
REVOKE ALL ON SCHEMA clarify_internal FROM PUBLIC;
COMMENT ON SCHEMA clarify_internal IS
    'pg_clarify''s internals (trigger functions and helpers): not an interface, usable by the extension owner only.';

ALTER FUNCTION clarify.concepts_bump_version() SET SCHEMA clarify_internal;
ALTER FUNCTION clarify.concept_columns_check() SET SCHEMA clarify_internal;
ALTER FUNCTION clarify.terms_normalize() SET SCHEMA clarify_internal;
ALTER FUNCTION clarify.defaults_check() SET SCHEMA clarify_internal;
ALTER FUNCTION clarify.approvals_normalize() SET SCHEMA clarify_internal;
ALTER FUNCTION clarify.catalog_changed() SET SCHEMA clarify_internal;
ALTER FUNCTION clarify.audit_purge_begin() SET SCHEMA clarify_internal;
ALTER FUNCTION clarify.audit_refuse_change() SET SCHEMA clarify_internal;
ALTER FUNCTION clarify.window_bound_check(text, text, text) SET SCHEMA clarify_internal;
ALTER FUNCTION clarify.concepts_window_check() SET SCHEMA clarify_internal;
ALTER FUNCTION clarify.concepts_window_version() SET SCHEMA clarify_internal;
ALTER FUNCTION clarify.concept_columns_time_check() SET SCHEMA clarify_internal;
ALTER FUNCTION clarify.terms_impact_check() SET SCHEMA clarify_internal;
ALTER FUNCTION clarify.concepts_grain_check() SET SCHEMA clarify_internal;
ALTER FUNCTION clarify.concept_columns_snapshot_check() SET SCHEMA clarify_internal;
ALTER FUNCTION clarify.unique_keys_check() SET SCHEMA clarify_internal;
ALTER FUNCTION clarify.batch_origin() SET SCHEMA clarify_internal;
ALTER FUNCTION clarify.role_name_resolve() SET SCHEMA clarify_internal;
ALTER FUNCTION clarify.role_renamed(oid, name) SET SCHEMA clarify_internal;
ALTER FUNCTION clarify.follow_ddl() SET SCHEMA clarify_internal;
ALTER FUNCTION clarify.warn_dropped() SET SCHEMA clarify_internal;
ALTER FUNCTION clarify.allowed_values(regclass, name) SET SCHEMA clarify_internal;
ALTER FUNCTION clarify.concepts_allowed_values() SET SCHEMA clarify_internal;
ALTER FUNCTION clarify.known_concept_check() SET SCHEMA clarify_internal;
ALTER FUNCTION clarify.defaults_known_term() SET SCHEMA clarify_internal;
-- Triggers fire without EXECUTE; the helpers are the owner's alone.
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA clarify_internal FROM PUBLIC;

-- The three bodies that call a moved helper by name.
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
    queued := clarify_internal.audit_purge_begin();
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

CREATE OR REPLACE FUNCTION clarify_internal.concepts_window_check() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NEW.kind = 'time_window' THEN
        IF NEW.window_start IS NULL OR NEW.window_end IS NULL THEN
            RAISE EXCEPTION 'time window "%" needs both window_start and window_end', NEW.id
                USING ERRCODE = 'not_null_violation',
                      HINT = 'e.g. window_start = ''date_trunc(''''quarter'''', now()) - interval ''''3 months'''''', window_end = ''date_trunc(''''quarter'''', now())''.';
        END IF;
        PERFORM clarify_internal.window_bound_check(NEW.id, 'window_start', NEW.window_start);
        PERFORM clarify_internal.window_bound_check(NEW.id, 'window_end', NEW.window_end);
    ELSIF NEW.window_start IS NOT NULL OR NEW.window_end IS NOT NULL THEN
        RAISE EXCEPTION 'concept "%" is a %, not a time window: window_start and window_end must be NULL',
                        NEW.id, NEW.kind
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN NEW;
END
$$;

CREATE OR REPLACE FUNCTION clarify_internal.concepts_allowed_values() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NEW.kind IS NOT NULL AND NOT NEW.kind = ANY (
           pg_catalog.string_to_array(clarify_internal.allowed_values('clarify.concepts', 'concepts_kind_check'), ', ')) THEN
        RAISE EXCEPTION 'concept "%": kind "%" is not one of %', NEW.id, NEW.kind,
                        clarify_internal.allowed_values('clarify.concepts', 'concepts_kind_check')
            USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.status IS NOT NULL AND NOT NEW.status = ANY (
           pg_catalog.string_to_array(clarify_internal.allowed_values('clarify.concepts', 'concepts_status_check'), ', ')) THEN
        RAISE EXCEPTION 'concept "%": status "%" is not one of %', NEW.id, NEW.status,
                        clarify_internal.allowed_values('clarify.concepts', 'concepts_status_check')
            USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.additivity IS NOT NULL AND NOT NEW.additivity = ANY (
           pg_catalog.string_to_array(clarify_internal.allowed_values('clarify.concepts', 'concepts_additivity_check'), ', ')) THEN
        RAISE EXCEPTION 'concept "%": additivity "%" is not one of %', NEW.id, NEW.additivity,
                        clarify_internal.allowed_values('clarify.concepts', 'concepts_additivity_check')
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;

-- Every table, view and column says what it holds (\d+ and \dx+ show it).
COMMENT ON TABLE clarify.audit_texts IS
    'Statement texts and resolution records of the audit, each stored once under its keyed hash.';
COMMENT ON TABLE clarify.audit_shapes IS
    'Decision shapes of the audit (outcome, state, reason, columns, bindings, payload), each stored once under its keyed hash.';
COMMENT ON TABLE clarify.audit_notes IS
    'Notes on decisions written after them, e.g. a statement refused with QC005 because its decision was not durable in time.';

COMMENT ON COLUMN clarify.concepts.kind IS 'What the concept is: metric, dimension or time_window.';
COMMENT ON COLUMN clarify.concepts.description IS 'What the meaning is, in business language, shown beside the label in questions.';
COMMENT ON COLUMN clarify.concepts.owner IS 'The person or team answerable for the definition.';

COMMENT ON COLUMN clarify.concept_columns.concept_id IS 'The concept the column carries.';
COMMENT ON COLUMN clarify.concept_columns.relation IS 'The table or view of the governed column.';
COMMENT ON COLUMN clarify.concept_columns.column_name IS 'The governed column, by name.';
COMMENT ON COLUMN clarify.concept_columns.attnum IS 'The column''s number in its relation (set by the catalog), so a rename does not ungovern it.';

COMMENT ON COLUMN clarify.terms.term IS 'The business word or phrase, normalized (trimmed, lower case).';
COMMENT ON COLUMN clarify.terms.concept_id IS 'One meaning the term may have.';

COMMENT ON COLUMN clarify.defaults.id IS 'Identifier of the default.';
COMMENT ON COLUMN clarify.defaults.term IS 'The term the default resolves.';
COMMENT ON COLUMN clarify.defaults.concept_id IS 'The meaning the term has by default (one of its candidates).';
COMMENT ON COLUMN clarify.defaults.approved_at IS 'When the default was approved.';

COMMENT ON COLUMN clarify.approvals.id IS 'Approval id, as confirm() returns it and revoke() takes it.';
COMMENT ON COLUMN clarify.approvals.question_id IS 'The question the user answered, as the resolution record''s question_id names it.';
COMMENT ON COLUMN clarify.approvals.concept_id IS 'The meaning the user chose.';
COMMENT ON COLUMN clarify.approvals.created_at IS 'When the user confirmed.';
COMMENT ON COLUMN clarify.approvals.expires_at IS 'The confirmation no longer verifies from this moment on.';
COMMENT ON COLUMN clarify.approvals.revoked_at IS 'When revoke() withdrew the confirmation (NULL: not revoked).';

COMMENT ON COLUMN clarify.agent_roles.added_at IS 'When govern_role() registered the role.';

COMMENT ON COLUMN clarify.unique_keys.relation IS 'The table or view whose rows the key identifies.';
COMMENT ON COLUMN clarify.unique_keys.columns IS 'The columns that are unique together.';
COMMENT ON COLUMN clarify.unique_keys.note IS 'Why the key holds, for the next reader.';
COMMENT ON COLUMN clarify.unique_keys.approved_at IS 'When the key was declared.';

COMMENT ON COLUMN clarify.audit_texts.hash IS 'Keyed 128-bit hash of the text, its identity in the audit.';
COMMENT ON COLUMN clarify.audit_texts.body IS 'The statement text or the canonical resolution record.';

COMMENT ON COLUMN clarify.audit_shapes.hash IS 'Keyed 128-bit hash of the shape, its identity in the audit.';
COMMENT ON COLUMN clarify.audit_shapes.allowed IS 'True when the gate let the statement run.';
COMMENT ON COLUMN clarify.audit_shapes.state IS 'The gate''s state: RESOLVED, AMBIGUOUS, UNSUPPORTED, MISMATCH, UNVERIFIED or GRAIN.';
COMMENT ON COLUMN clarify.audit_shapes.reason IS 'Why, in one sentence.';
COMMENT ON COLUMN clarify.audit_shapes.columns IS 'The governed columns the statement read.';
COMMENT ON COLUMN clarify.audit_shapes.bindings IS 'How each covered column was resolved: concept, version, source, approval.';
COMMENT ON COLUMN clarify.audit_shapes.payload IS 'The clarification request of a rejection (the DETAIL payload without its decision id).';

COMMENT ON COLUMN clarify.audit_batches.batch_id IS 'Identifier of the batch.';
COMMENT ON COLUMN clarify.audit_batches.written_at IS 'When the writer committed the batch.';
COMMENT ON COLUMN clarify.audit_batches.first_decided_at IS 'The earliest decision time in the batch.';
COMMENT ON COLUMN clarify.audit_batches.last_decided_at IS 'The latest decision time in the batch (retention deletes by it).';
COMMENT ON COLUMN clarify.audit_batches.decision_ids IS 'The decisions'' ids, one element per decision.';
COMMENT ON COLUMN clarify.audit_batches.decided_ats IS 'When each decision was made.';
COMMENT ON COLUMN clarify.audit_batches.session_roles IS 'Each decision''s session role (OID).';
COMMENT ON COLUMN clarify.audit_batches.acting_roles IS 'Each decision''s outer role (OID).';
COMMENT ON COLUMN clarify.audit_batches.pids IS 'Each decision''s backend process id.';
COMMENT ON COLUMN clarify.audit_batches.query_ids IS 'Each decision''s query id.';
COMMENT ON COLUMN clarify.audit_batches.statement_hashes IS 'Each decision''s statement text, as its hash in audit_texts.';
COMMENT ON COLUMN clarify.audit_batches.shape_hashes IS 'Each decision''s shape, as its hash in audit_shapes.';
COMMENT ON COLUMN clarify.audit_batches.record_hashes IS 'Each decision''s resolution record, as its hash in audit_texts (NULL: none).';
COMMENT ON COLUMN clarify.audit_batches.question_ids IS 'Each decision''s question_id.';
COMMENT ON COLUMN clarify.audit_batches.origin IS 'Where the batch''s decisions were made: this server, or the standby that forwarded them.';

COMMENT ON COLUMN clarify.audit_log.decision_id IS 'The decision''s id.';
COMMENT ON COLUMN clarify.audit_log.decided_at IS 'When the decision was made.';
COMMENT ON COLUMN clarify.audit_log.session_role IS 'The session role (OID).';
COMMENT ON COLUMN clarify.audit_log.acting_role IS 'The outer role (OID).';
COMMENT ON COLUMN clarify.audit_log.pid IS 'The backend process id.';
COMMENT ON COLUMN clarify.audit_log.query_id IS 'The statement''s query id.';
COMMENT ON COLUMN clarify.audit_log.statement_hash IS 'The statement text, as its hash in audit_texts.';
COMMENT ON COLUMN clarify.audit_log.shape_hash IS 'The decision''s shape, as its hash in audit_shapes.';
COMMENT ON COLUMN clarify.audit_log.record_hash IS 'The resolution record, as its hash in audit_texts (NULL: none).';
COMMENT ON COLUMN clarify.audit_log.question_id IS 'The record''s question_id.';
COMMENT ON COLUMN clarify.audit_log.batch_id IS 'The audit_batches row that holds the decision.';
COMMENT ON COLUMN clarify.audit_log.origin IS 'Where the decision was made.';

COMMENT ON COLUMN clarify.audit_notes.decision_id IS 'The decision the note is about.';
COMMENT ON COLUMN clarify.audit_notes.noted_at IS 'When the note was written.';
COMMENT ON COLUMN clarify.audit_notes.note IS 'What happened to the decision after it was made.';

COMMENT ON COLUMN clarify.audit_purges.id IS 'Identifier of the purge.';
COMMENT ON COLUMN clarify.audit_purges.purged_at IS 'When purge_audit() ran.';
COMMENT ON COLUMN clarify.audit_purges.purged_by IS 'The session user who ran it.';
COMMENT ON COLUMN clarify.audit_purges.older_than IS 'The age beyond which decisions were deleted.';
COMMENT ON COLUMN clarify.audit_purges.rows_deleted IS 'How many decisions were deleted.';

COMMENT ON COLUMN clarify.audit_origins.origin IS 'The origin a standby forwards decisions from.';
COMMENT ON COLUMN clarify.audit_origins.node IS 'The decision id node (0 to 255) the origin holds alone.';
COMMENT ON COLUMN clarify.audit_origins.forwarded_by IS 'The role the origin was registered with; only it may forward for the origin.';
COMMENT ON COLUMN clarify.audit_origins.registered_at IS 'When the origin first forwarded.';

COMMENT ON COLUMN clarify.audit.decision_id IS 'Unique id of the decision (the DETAIL payload''s decision_id).';
COMMENT ON COLUMN clarify.audit.decided_at IS 'When the gate decided.';
COMMENT ON COLUMN clarify.audit.session_role IS 'The session user.';
COMMENT ON COLUMN clarify.audit.acting_role IS 'The outer role (after SET ROLE) when the statement ran.';
COMMENT ON COLUMN clarify.audit.pid IS 'The backend process id.';
COMMENT ON COLUMN clarify.audit.question_id IS 'The resolution record''s question_id (NULL: none).';
COMMENT ON COLUMN clarify.audit.statement IS 'The SQL text that was decided.';
COMMENT ON COLUMN clarify.audit.query_id IS 'The statement''s query id.';
COMMENT ON COLUMN clarify.audit.decision IS 'allowed or rejected.';
COMMENT ON COLUMN clarify.audit.state IS 'The gate''s state (RESOLVED for allowed), or AUDIT_UNAVAILABLE when a note says the statement did not run.';
COMMENT ON COLUMN clarify.audit.reason IS 'Why, in one sentence.';
COMMENT ON COLUMN clarify.audit.columns IS 'The governed columns the statement read.';
COMMENT ON COLUMN clarify.audit.bindings IS 'Per covered column: concept, concept version, source, default_applied, approval id.';
COMMENT ON COLUMN clarify.audit.payload IS 'The DETAIL payload of the decision, with its decision_id.';
COMMENT ON COLUMN clarify.audit.record IS 'The resolution record the statement ran under (canonical JSON).';
COMMENT ON COLUMN clarify.audit.origin IS 'Where the decision was made (cluster_name, or system identifier and address); NULL before 1.1 recorded it.';

COMMENT ON COLUMN clarify.audit_daily.day IS 'The day (start, in the session''s time zone).';
COMMENT ON COLUMN clarify.audit_daily.decision IS 'allowed or rejected.';
COMMENT ON COLUMN clarify.audit_daily.state IS 'The gate''s state.';
COMMENT ON COLUMN clarify.audit_daily.decisions IS 'How many decisions.';

COMMENT ON COLUMN clarify.audit_friction.term IS 'The term asked about.';
COMMENT ON COLUMN clarify.audit_friction.ambiguous_rejections IS 'How many rejected decisions had an AMBIGUOUS slot for the term.';
COMMENT ON COLUMN clarify.audit_friction.questions IS 'In how many distinct questions.';
COMMENT ON COLUMN clarify.audit_friction.first_seen IS 'The first such rejection.';
COMMENT ON COLUMN clarify.audit_friction.last_seen IS 'The latest such rejection.';

COMMENT ON COLUMN clarify.audit_resolution_paths.question_id IS 'The question.';
COMMENT ON COLUMN clarify.audit_resolution_paths.first_rejected_at IS 'Its first rejected decision.';
COMMENT ON COLUMN clarify.audit_resolution_paths.confirmed_at IS 'Its first user confirmation.';
COMMENT ON COLUMN clarify.audit_resolution_paths.first_allowed_at IS 'Its first allowed decision.';
COMMENT ON COLUMN clarify.audit_resolution_paths.rounds IS 'Rejected decisions before the first allowed one.';
COMMENT ON COLUMN clarify.audit_resolution_paths.time_to_resolution IS 'From the first rejection to the first allowed decision.';

COMMENT ON COLUMN clarify.audit_sources.source IS 'How a column was resolved: approved_default, user_confirmation, explicit, only_eligible, assumed.';
COMMENT ON COLUMN clarify.audit_sources.covered_columns IS 'How many governed column reads of allowed statements it resolved.';
COMMENT ON COLUMN clarify.audit_sources.percent IS 'Its share of all of them, in percent.';
--------------------------------------------------------------------------------------------------
-- Definitions change; approvals notice
--------------------------------------------------------------------------------------------------

-- A confirmation or a default is about one definition of a concept: when the definition changes
-- (docs/dba-guide.md, "When a definition changes"), the concept gets a new version and what was
-- approved for an older one no longer holds. Status, availability, validity and aliases are not
-- meaning (eligibility covers them); nor are owner and kind. The version never goes down: a DBA
-- may raise it by hand to have every confirmation and default given again.
CREATE OR REPLACE FUNCTION clarify_internal.concepts_bump_version() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NEW.version < OLD.version THEN
        RAISE EXCEPTION 'the version of concept "%" cannot be lowered (from % to %)',
                        NEW.id, OLD.version, NEW.version
            USING ERRCODE = 'check_violation',
                  HINT = 'A version only rises: raising it by hand makes every confirmation and default of the concept be given again.';
    END IF;
    -- A version raised by hand is obeyed. Window bounds: clarify.concepts_window_version.
    IF NEW.version IS NOT DISTINCT FROM OLD.version
       AND (NEW.label, NEW.description, NEW.additivity, NEW.allowed_aggregates)
           IS DISTINCT FROM
           (OLD.label, OLD.description, OLD.additivity, OLD.allowed_aggregates)
    THEN
        NEW.version := OLD.version + 1;
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION clarify_internal.concepts_bump_version() IS
    'Gives a concept a new version whenever its label, description, additivity or allowed aggregates change; refuses a lower version.';
COMMENT ON COLUMN clarify.concepts.version IS
    'The version of the concept''s definition: raised by the catalog whenever its meaning changes (label, description, mapped columns, additivity, snapshot or time column, window bounds), never lowered; a DBA may raise it by hand. Confirmations and defaults given for another version no longer apply.';

-- A concept's columns are its meaning too: a mapping added, removed or changed raises the
-- version. The catalog's own following of DDL (a rename, a drop, the column added again by name)
-- and a concept's id renamed are the same mapping.
CREATE FUNCTION clarify_internal.concept_columns_version() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    followed CONSTANT text[] := '{concept_id,relation,attnum,schema_name,table_name,column_name}';
BEGIN
    -- Before the names are filled in: a restore gives them (clarify.concept_columns_check), and
    -- restores the version the concept had.
    IF TG_OP = 'INSERT' THEN
        IF NEW.schema_name IS NULL AND NEW.table_name IS NULL THEN
            UPDATE clarify.concepts c SET version = c.version + 1 WHERE c.id = NEW.concept_id;
        END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'UPDATE'
       AND (NEW.concept_id = OLD.concept_id
            OR NOT EXISTS (SELECT 1 FROM clarify.concepts c WHERE c.id = OLD.concept_id))
       AND ((NEW.relation = OLD.relation AND NEW.attnum = OLD.attnum)
            OR (NEW.schema_name, NEW.table_name, NEW.column_name)
               IS NOT DISTINCT FROM (OLD.schema_name, OLD.table_name, OLD.column_name))
       AND pg_catalog.to_jsonb(NEW) - followed = pg_catalog.to_jsonb(OLD) - followed THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'UPDATE' THEN
        UPDATE clarify.concepts c SET version = c.version + 1 WHERE c.id = NEW.concept_id;
    END IF;
    IF TG_OP = 'DELETE' OR OLD.concept_id <> NEW.concept_id THEN
        UPDATE clarify.concepts c SET version = c.version + 1 WHERE c.id = OLD.concept_id;
    END IF;
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION clarify_internal.concept_columns_version() IS
    'Internal: gives a concept a new version when one of its column mappings is added, removed or changed (not when the catalog follows a rename).';

-- BEFORE triggers fire in name order: concept_columns_a_version before concept_columns_check.
CREATE TRIGGER concept_columns_a_version
    BEFORE INSERT ON clarify.concept_columns
    FOR EACH ROW EXECUTE FUNCTION clarify_internal.concept_columns_version();
CREATE TRIGGER concept_columns_version
    AFTER UPDATE OR DELETE ON clarify.concept_columns
    FOR EACH ROW EXECUTE FUNCTION clarify_internal.concept_columns_version();

-- What existed before versions were recorded was approved for the definition it has now: the
-- update changes no decision.
ALTER TABLE clarify.defaults ADD COLUMN concept_version integer;
ALTER TABLE clarify.approvals ADD COLUMN concept_version integer;
UPDATE clarify.defaults d SET concept_version = c.version
  FROM clarify.concepts c WHERE c.id = d.concept_id;
UPDATE clarify.approvals a SET concept_version = c.version
  FROM clarify.concepts c WHERE c.id = a.concept_id;
ALTER TABLE clarify.defaults ALTER COLUMN concept_version SET NOT NULL,
    ADD CONSTRAINT defaults_concept_version_check CHECK (concept_version >= 1);
ALTER TABLE clarify.approvals ALTER COLUMN concept_version SET NOT NULL,
    ADD CONSTRAINT approvals_concept_version_check CHECK (concept_version >= 1);

COMMENT ON COLUMN clarify.defaults.concept_version IS
    'The version of the concept this default was approved for (the current one unless given). Once the concept''s definition changes the default no longer applies until approved again: UPDATE clarify.defaults SET concept_version = <the current version>, approved_by = ...';
COMMENT ON COLUMN clarify.approvals.concept_version IS
    'The version of the concept the user confirmed (set by clarify.confirm); once the definition changes the confirmation no longer verifies.';

-- A default is approved for the concept's current version: given on INSERT (a restore keeps an
-- older one, which then does not apply) or taken from the concept; re-approved only for the
-- current one. Fires after defaults_check (name order), which has checked the concept.
CREATE FUNCTION clarify_internal.defaults_version() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    current_version integer;
BEGIN
    SELECT c.version INTO current_version FROM clarify.concepts c WHERE c.id = NEW.concept_id;
    IF NOT FOUND THEN
        -- The foreign key refuses the row, and says why.
        NEW.concept_version := coalesce(NEW.concept_version, 1);
        RETURN NEW;
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.concept_version IS NOT DISTINCT FROM OLD.concept_version THEN
        -- Another concept is approved for what it means now; a rename (a concept's id or a
        -- term, cascading here) keeps the approval. Setting an older version again is approving
        -- an old definition: refused below.
        IF NEW.concept_id <> OLD.concept_id
           AND EXISTS (SELECT 1 FROM clarify.concepts c WHERE c.id = OLD.concept_id) THEN
            NEW.concept_version := current_version;
            RETURN NEW;
        END IF;
        IF NEW.concept_id <> OLD.concept_id OR NEW.term <> OLD.term
           OR NEW.concept_version = current_version THEN
            RETURN NEW;
        END IF;
    END IF;
    IF TG_OP = 'INSERT' AND NEW.concept_version IS NULL THEN
        NEW.concept_version := current_version;
    ELSIF TG_OP = 'INSERT' AND NEW.concept_version BETWEEN 1 AND current_version THEN
        NULL;
    ELSIF NEW.concept_version IS DISTINCT FROM current_version THEN
        RAISE EXCEPTION 'the default for "%" can only be approved for the current version of concept "%" (%), not %',
                        NEW.term, NEW.concept_id, current_version,
                        coalesce(NEW.concept_version::text, 'NULL')
            USING ERRCODE = 'check_violation',
                  HINT = CASE TG_OP WHEN 'INSERT'
                         THEN 'Leave concept_version out: the default is then approved for the current definition.'
                         ELSE pg_catalog.format('Approve it for the current definition: UPDATE clarify.defaults SET concept_version = %s, approved_by = ''<who approves it>'' WHERE id = %s;',
                                                current_version, NEW.id) END;
    ELSIF TG_OP = 'UPDATE' AND NEW.approved_at IS NOT DISTINCT FROM OLD.approved_at THEN
        NEW.approved_at := pg_catalog.now();  -- approved again, now
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION clarify_internal.defaults_version() IS
    'Internal: records the concept version a default is approved for, and refuses any other than the current one on re-approval.';

CREATE TRIGGER defaults_concept_version
    BEFORE INSERT OR UPDATE OF concept_id, concept_version ON clarify.defaults
    FOR EACH ROW EXECUTE FUNCTION clarify_internal.defaults_version();

-- A confirmation records the definition the user chose; only the user can confirm another one
-- (clarify.confirm), so its version is never changed afterwards.
CREATE FUNCTION clarify_internal.approvals_version() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    current_version integer;
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF NEW.concept_version IS DISTINCT FROM OLD.concept_version THEN
            RAISE EXCEPTION 'the concept version of confirmation % cannot be changed: it records the definition the user confirmed',
                            OLD.id
                USING ERRCODE = 'check_violation',
                      HINT = 'Ask the user to confirm again (clarify.confirm).';
        END IF;
        RETURN NEW;
    END IF;
    SELECT c.version INTO current_version FROM clarify.concepts c WHERE c.id = NEW.concept_id;
    IF NOT FOUND THEN
        -- The foreign key refuses the row, and says why.
        NEW.concept_version := coalesce(NEW.concept_version, 1);
        RETURN NEW;
    END IF;
    IF NEW.concept_version IS NULL THEN
        NEW.concept_version := current_version;
    ELSIF NOT NEW.concept_version BETWEEN 1 AND current_version THEN
        RAISE EXCEPTION 'concept "%" has no version % (its current version is %)',
                        NEW.concept_id, NEW.concept_version, current_version
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION clarify_internal.approvals_version() IS
    'Internal: records the concept version a user confirmed (the current one), and keeps it from being changed.';

CREATE TRIGGER approvals_concept_version
    BEFORE INSERT OR UPDATE OF concept_version ON clarify.approvals
    FOR EACH ROW EXECUTE FUNCTION clarify_internal.approvals_version();

REVOKE ALL ON FUNCTION clarify_internal.concept_columns_version(),
    clarify_internal.defaults_version(), clarify_internal.approvals_version() FROM PUBLIC;

-- What no longer applies because its definition changed, with the statement that fixes it
-- (for clarify.lint()). Expired and revoked rows apply to nothing and are left out.
CREATE VIEW clarify.stale_approvals AS
SELECT 'error'::text AS severity,
       pg_catalog.format('clarify.defaults id %s', d.id) AS object,
       pg_catalog.format('the default for "%s" (%s), %s, was approved for version %s of its definition, which is now version %s: "%s" is refused until it is approved again',
                         d.term, coalesce('role ' || d.applies_to, 'everyone'), c.label,
                         d.concept_version, c.version, d.term) AS problem,
       pg_catalog.format('UPDATE clarify.defaults SET concept_version = %s, approved_by = %L WHERE id = %s;',
                         c.version, '<who approves it>', d.id) AS fix,
       'default'::text AS kind, d.id, d.term, d.concept_id, d.applies_to AS role,
       d.concept_version AS approved_version, c.version AS current_version
  FROM clarify.defaults d
  JOIN clarify.concepts c ON c.id = d.concept_id
 WHERE d.concept_version <> c.version
   AND (d.valid_until IS NULL OR d.valid_until > pg_catalog.now())
UNION ALL
SELECT 'warning',
       pg_catalog.format('clarify.approvals id %s', a.id),
       pg_catalog.format('the confirmation of %s for question "%s" (role %s) was given for version %s of its definition, which is now version %s: it no longer verifies, the user must confirm again',
                         c.label, a.question_id, a.granted_to, a.concept_version, c.version),
       pg_catalog.format('SELECT clarify.revoke(%s);', a.id),
       'approval', a.id, a.term, a.concept_id, a.granted_to, a.concept_version, c.version
  FROM clarify.approvals a
  JOIN clarify.concepts c ON c.id = a.concept_id
 WHERE a.concept_version <> c.version
   AND a.revoked_at IS NULL AND a.expires_at > pg_catalog.now();

COMMENT ON VIEW clarify.stale_approvals IS
    'Defaults and confirmations given for an older version of their concept''s definition: they no longer apply. Owner only.';
COMMENT ON COLUMN clarify.stale_approvals.severity IS
    'error: a stale default makes its term refused; warning: a stale confirmation no longer verifies.';
COMMENT ON COLUMN clarify.stale_approvals.object IS 'The row, as clarify.defaults id N or clarify.approvals id N.';
COMMENT ON COLUMN clarify.stale_approvals.problem IS 'What no longer applies and why, in one sentence.';
COMMENT ON COLUMN clarify.stale_approvals.fix IS
    'A statement a DBA can paste: approve the default for the current version (name who approves), or revoke the confirmation.';
COMMENT ON COLUMN clarify.stale_approvals.kind IS 'default or approval.';
COMMENT ON COLUMN clarify.stale_approvals.id IS 'The id of the default or approval.';
COMMENT ON COLUMN clarify.stale_approvals.term IS 'The term it resolves (NULL for a confirmation without one).';
COMMENT ON COLUMN clarify.stale_approvals.concept_id IS 'The concept it names.';
COMMENT ON COLUMN clarify.stale_approvals.role IS
    'The default''s applies_to (NULL: everyone) or the confirmation''s granted_to.';
COMMENT ON COLUMN clarify.stale_approvals.approved_version IS 'The concept version it was given for.';
COMMENT ON COLUMN clarify.stale_approvals.current_version IS 'The concept''s version now.';

REVOKE ALL ON clarify.stale_approvals FROM PUBLIC;

--------------------------------------------------------------------------------------------------
-- Enforcement modes: rolling the gate out (docs/dba-guide.md, "Rolling out")
--------------------------------------------------------------------------------------------------

-- pg_clarify.enforcement (enforce | warn | audit) is decided and audited alike; the gate writes the
-- mode into the decision's payload (src/core/audit/record.cpp, apply_enforcement), so the queue,
-- the writer and a standby's forwarding carry it unchanged. `decision` says what happened.
CREATE OR REPLACE VIEW clarify.audit AS
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
       rec.body::jsonb AS record,
       l.origin,
       COALESCE(sh.payload->>'enforcement', 'enforce') AS enforcement
FROM clarify.audit_log l
LEFT JOIN clarify.audit_texts st ON st.hash = l.statement_hash
LEFT JOIN clarify.audit_shapes sh ON sh.hash = l.shape_hash
LEFT JOIN clarify.audit_texts rec ON rec.hash = l.record_hash
LEFT JOIN LATERAL (SELECT string_agg(an.note, '; ') AS note FROM clarify.audit_notes an
                   WHERE an.decision_id = l.decision_id) n ON true;

COMMENT ON COLUMN clarify.audit.enforcement IS
    'pg_clarify.enforcement when decided: enforce, warn or audit (a would-be rejection that ran under warn or audit is allowed, with the gate''s state).';

-- One audited statement decided again now (src/pg/functions/replay.cpp): plans it as check()
-- does, runs and audits nothing; checks itself that the caller may read clarify.audit.
CREATE FUNCTION clarify.replay_decision(statement text, session_role oid, acting_role oid,
                                        record text) RETURNS jsonb
    AS 'MODULE_PATHNAME', 'clarify_replay_decision'
    LANGUAGE C VOLATILE;

-- Invoker's rights: the caller reads clarify.audit, so the owner and audit readers only.
CREATE FUNCTION clarify.replay(since timestamptz, until timestamptz DEFAULT pg_catalog.now(),
                               max_rows int DEFAULT 10000)
    RETURNS TABLE (decision_id bigint, decided_at timestamptz, statement text, was_state text,
                   now_state text, now_detail jsonb)
    LANGUAGE sql VOLATILE
    SET search_path = pg_catalog, pg_temp
    AS $$
        SELECT a.decision_id, a.decided_at, a.statement, a.state,
               r->>'now_state', r->'now_detail'
          FROM (SELECT a.* FROM clarify.audit a
                 WHERE a.decided_at >= since AND a.decided_at < until
                 ORDER BY a.decided_at DESC, a.decision_id DESC
                 LIMIT max_rows) a
         CROSS JOIN LATERAL clarify.replay_decision(a.statement, a.session_role::oid,
                                                    a.acting_role::oid, a.record::text) r
         ORDER BY a.decided_at, a.decision_id
    $$;

COMMENT ON FUNCTION clarify.replay(timestamptz, timestamptz, int) IS
    'Re-decides the most recent audited decisions in [since, until) against the catalog as this transaction sees it, as their roles and under their records; runs and audits nothing.';

-- Roles the gate governs: the agent roles and, transitively, their members (never by superuser
-- status); and for a role, whether any governed role is it or a member of it.
CREATE FUNCTION clarify_internal.role_reaches_agents(role_name text) RETURNS boolean
    LANGUAGE sql STABLE
    SET search_path = pg_catalog, pg_temp
    AS $$
        WITH RECURSIVE governed(oid) AS (
            SELECT r.oid FROM pg_roles r JOIN clarify.agent_roles a ON a.agent_role = r.rolname
            UNION
            SELECT m.member FROM pg_auth_members m JOIN governed g ON m.roleid = g.oid),
        below(oid) AS (
            SELECT r.oid FROM pg_roles r WHERE r.rolname = role_name
            UNION
            SELECT m.member FROM pg_auth_members m JOIN below b ON m.roleid = b.oid)
        SELECT EXISTS (SELECT 1 FROM below JOIN governed USING (oid))
    $$;
REVOKE ALL ON FUNCTION clarify_internal.role_reaches_agents(text) FROM PUBLIC;

-- Time windows whose bounds, evaluated now, are inverted or empty.
CREATE FUNCTION clarify_internal.lint_windows()
    RETURNS TABLE (id text, window_start timestamptz, window_end timestamptz)
    LANGUAGE plpgsql STABLE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c record;
BEGIN
    FOR c IN SELECT k.id, k.window_start AS s, k.window_end AS e FROM clarify.concepts k
              WHERE k.kind = 'time_window' AND k.window_start IS NOT NULL
                AND k.window_end IS NOT NULL ORDER BY k.id LOOP
        BEGIN
            EXECUTE format('SELECT (%s)::timestamptz, (%s)::timestamptz', c.s, c.e)
               INTO window_start, window_end;
        EXCEPTION WHEN OTHERS THEN
            CONTINUE;
        END;
        id := c.id;
        IF window_start >= window_end THEN RETURN NEXT; END IF;
    END LOOP;
END
$$;
REVOKE ALL ON FUNCTION clarify_internal.lint_windows() FROM PUBLIC;

--------------------------------------------------------------------------------------------------
-- Units and time zones
--------------------------------------------------------------------------------------------------

-- A measure's unit (docs/dba-guide.md, "Currencies and units"): either a column of the mapped
-- relation holding each row's unit (a currency code), whose values the gate never lets one
-- aggregate mix, or one fixed unit shown after the concept's label. Not both: a fixed unit
-- would hide the column's mix. A time window's zone (docs/dba-guide.md, "Time zones") is an
-- IANA name, so a DST change moves the bounds as the business's clocks move.
ALTER TABLE clarify.concept_columns ADD COLUMN unit_column name;
ALTER TABLE clarify.concepts ADD COLUMN unit text;
ALTER TABLE clarify.concepts ADD COLUMN window_time_zone text;
ALTER TABLE clarify.concepts ADD CONSTRAINT concepts_unit_check CHECK (unit ~ '[^[:space:]]');

COMMENT ON COLUMN clarify.concept_columns.unit_column IS
    'A column of the same relation holding each row''s unit (e.g. a currency code): an aggregate of the measure must group by it or restrict it to one value (NULL: no unit column).';
COMMENT ON COLUMN clarify.concepts.unit IS
    'The fixed unit of a metric (e.g. EUR), shown after its label; not with a unit_column mapping (NULL: none).';
COMMENT ON COLUMN clarify.concepts.window_time_zone IS
    'An IANA time zone name in which a time window''s bounds are evaluated and its dates shown (NULL: the session''s TimeZone).';

CREATE FUNCTION clarify_internal.concepts_units_check() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NEW.unit IS NOT NULL AND NEW.kind <> 'metric' THEN
        RAISE EXCEPTION 'concept "%" is a %: only a metric has a unit', NEW.id, NEW.kind
            USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.unit IS NOT NULL
       AND EXISTS (SELECT 1 FROM clarify.concept_columns cc
                    WHERE cc.concept_id = NEW.id AND cc.unit_column IS NOT NULL) THEN
        RAISE EXCEPTION 'concept "%" has a unit column: it cannot have a fixed unit too', NEW.id
            USING ERRCODE = 'check_violation',
                  HINT = 'Set unit_column to NULL in clarify.concept_columns first, or leave unit NULL.';
    END IF;
    IF NEW.window_time_zone IS NOT NULL AND NEW.kind <> 'time_window' THEN
        RAISE EXCEPTION 'concept "%" is a %: only a time_window has a window_time_zone', NEW.id, NEW.kind
            USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.window_time_zone IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_timezone_names z
                        WHERE z.name = NEW.window_time_zone) THEN
        RAISE EXCEPTION 'window_time_zone of concept "%": "%" is not a time zone name',
                        NEW.id, NEW.window_time_zone
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Use an IANA name such as Europe/Paris or America/New_York (SELECT name FROM pg_timezone_names).';
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION clarify_internal.concepts_units_check() IS
    'Internal: refuses a unit on a concept that is not a metric or that has a unit column, and a window_time_zone that is not an IANA zone of a time window.';

CREATE TRIGGER concepts_units_check
    BEFORE INSERT OR UPDATE OF kind, unit, window_time_zone ON clarify.concepts
    FOR EACH ROW EXECUTE FUNCTION clarify_internal.concepts_units_check();

-- A unit or a zone is part of what the number means: changing one gives a new version (§18).
CREATE FUNCTION clarify_internal.concepts_units_version() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NEW.version IS NOT DISTINCT FROM OLD.version
       AND (NEW.unit, NEW.window_time_zone) IS DISTINCT FROM (OLD.unit, OLD.window_time_zone)
    THEN
        NEW.version := OLD.version + 1;
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION clarify_internal.concepts_units_version() IS
    'Internal: gives a concept a new version whenever its unit or window_time_zone changes.';

CREATE TRIGGER concepts_units_version
    BEFORE UPDATE ON clarify.concepts
    FOR EACH ROW EXECUTE FUNCTION clarify_internal.concepts_units_version();

-- A kept mapping (its relation gone) is checked when the relation exists again.
CREATE FUNCTION clarify_internal.concept_columns_unit_check() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NEW.unit_column IS NULL THEN
        RETURN NEW;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a
                    WHERE a.attrelid = NEW.relation AND a.attname = NEW.unit_column
                      AND a.attnum > 0 AND NOT a.attisdropped) THEN
        RAISE EXCEPTION 'unit column "%" does not exist in relation "%"', NEW.unit_column, NEW.relation
            USING ERRCODE = 'undefined_column';
    END IF;
    IF NEW.unit_column = NEW.column_name THEN
        RAISE EXCEPTION 'unit column "%" of relation "%" is the mapped column itself',
                        NEW.unit_column, NEW.relation
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF EXISTS (SELECT 1 FROM clarify.concepts c WHERE c.id = NEW.concept_id AND c.kind <> 'metric') THEN
        RAISE EXCEPTION 'concept "%" is not a metric: only a metric has a unit column', NEW.concept_id
            USING ERRCODE = 'check_violation';
    END IF;
    IF EXISTS (SELECT 1 FROM clarify.concepts c WHERE c.id = NEW.concept_id AND c.unit IS NOT NULL) THEN
        RAISE EXCEPTION 'concept "%" has a fixed unit: it cannot have a unit column too', NEW.concept_id
            USING ERRCODE = 'check_violation',
                  HINT = 'Set unit to NULL in clarify.concepts first, or leave unit_column NULL.';
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION clarify_internal.concept_columns_unit_check() IS
    'Internal: refuses a unit column that is not in the relation, is the mapped column, or belongs to a concept that is not a metric or has a fixed unit.';

CREATE TRIGGER concept_columns_unit_check
    BEFORE INSERT OR UPDATE OF relation, column_name, concept_id, unit_column ON clarify.concept_columns
    FOR EACH ROW WHEN (NEW.attnum IS NOT NULL)
    EXECUTE FUNCTION clarify_internal.concept_columns_unit_check();

REVOKE ALL ON FUNCTION clarify_internal.concepts_units_check(),
                       clarify_internal.concepts_units_version(),
                       clarify_internal.concept_columns_unit_check() FROM PUBLIC;

--------------------------------------------------------------------------------------------------
-- Evaluation: labelled cases, the five metrics, production metrics (docs/dba-guide.md, "Evaluating")
--------------------------------------------------------------------------------------------------

-- A DBA's labelled questions. The agent is a role name kept current like agent_roles (§18).
CREATE TABLE clarify.eval_cases (
    id text PRIMARY KEY,
    question text,
    sql text NOT NULL,
    record jsonb,
    agent name NOT NULL,
    expected text NOT NULL CHECK (expected IN ('RESOLVED', 'AMBIGUOUS', 'UNSUPPORTED')),
    expected_rows jsonb CHECK (expected_rows IS NULL OR jsonb_typeof(expected_rows) = 'array'),
    agent_oid oid
);
SELECT pg_catalog.pg_extension_config_dump('clarify.eval_cases', '');
REVOKE ALL ON clarify.eval_cases FROM PUBLIC;

CREATE TRIGGER role_name_resolve
    BEFORE INSERT OR UPDATE OF agent, agent_oid ON clarify.eval_cases
    FOR EACH ROW EXECUTE FUNCTION clarify_internal.role_name_resolve('agent', 'agent_oid');

COMMENT ON TABLE clarify.eval_cases IS
    'Labelled questions a DBA evaluates the gate with (clarify.evaluate()): owner only.';
COMMENT ON COLUMN clarify.eval_cases.id IS 'The case''s name.';
COMMENT ON COLUMN clarify.eval_cases.question IS 'The user''s question; when set it replaces the record''s.';
COMMENT ON COLUMN clarify.eval_cases.sql IS 'The statement the agent would run for it.';
COMMENT ON COLUMN clarify.eval_cases.record IS 'The resolution record it would run under (NULL: none).';
COMMENT ON COLUMN clarify.eval_cases.agent IS 'The role it is decided (and its rows read) as, by name.';
COMMENT ON COLUMN clarify.eval_cases.expected IS 'The right answer: RESOLVED (should run), AMBIGUOUS (should ask) or UNSUPPORTED (should refuse).';
COMMENT ON COLUMN clarify.eval_cases.expected_rows IS 'For a RESOLVED case, the rows it should return: a JSON array of objects, compared as a multiset (numbers by value, the rest as text).';
COMMENT ON COLUMN clarify.eval_cases.agent_oid IS 'The OID agent had when written in this cluster (set by the catalog).';

-- Rows recorded for a renamed role follow it, eval_cases' agents too.
CREATE OR REPLACE FUNCTION clarify_internal.role_renamed(role oid, old_name name) RETURNS void
    LANGUAGE sql VOLATILE
    SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    UPDATE clarify.agent_roles SET agent_role = pg_catalog.pg_get_userbyid(role)
     WHERE (role_oid = role OR agent_role = old_name)
       AND agent_role <> pg_catalog.pg_get_userbyid(role);
    UPDATE clarify.defaults SET applies_to = pg_catalog.pg_get_userbyid(role)
     WHERE (applies_to_oid = role OR applies_to = old_name)
       AND applies_to <> pg_catalog.pg_get_userbyid(role);
    UPDATE clarify.approvals SET granted_to = pg_catalog.pg_get_userbyid(role)
     WHERE (granted_to_oid = role OR granted_to = old_name)
       AND granted_to <> pg_catalog.pg_get_userbyid(role);
    UPDATE clarify.eval_cases SET agent = pg_catalog.pg_get_userbyid(role)
     WHERE (agent_oid = role OR agent = old_name)
       AND agent <> pg_catalog.pg_get_userbyid(role);
END;

-- One case decided as check() decides, as the agent with its role settings, and its rows read
-- as the agent when asked (src/pg/functions/evaluate.cpp); nothing it does stays.
CREATE FUNCTION clarify_internal.evaluate_case(statement text, agent oid, record text,
                                               read_rows boolean) RETURNS jsonb
    AS 'MODULE_PATHNAME', 'clarify_evaluate_case'
    LANGUAGE C VOLATILE;
COMMENT ON FUNCTION clarify_internal.evaluate_case(text, oid, text, boolean) IS
    'One evaluation case decided (and its rows read) as its agent, in a subtransaction always rolled back.';

-- A row as compared: numbers by value, everything else as its text (keys in order).
CREATE FUNCTION clarify_internal.eval_row_key(r jsonb) RETURNS text
    LANGUAGE sql IMMUTABLE
    SET search_path = pg_catalog, pg_temp
    AS $$
        SELECT coalesce(jsonb_object_agg(e.k, CASE jsonb_typeof(e.v)
                   WHEN 'number' THEN to_jsonb(trim_scale(e.v::numeric)::text)
                   WHEN 'null' THEN 'null'::jsonb
                   ELSE to_jsonb(e.v #>> '{}') END)::text, '{}')
          FROM jsonb_each(CASE WHEN jsonb_typeof(r) = 'object' THEN r ELSE '{}' END) e(k, v)
    $$;
COMMENT ON FUNCTION clarify_internal.eval_row_key(jsonb) IS
    'A row of an evaluation case as compared: numbers by value, the rest as text.';

CREATE FUNCTION clarify_internal.eval_rows_equal(got jsonb, expected jsonb) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    SET search_path = pg_catalog, pg_temp
    AS $$
        SELECT (SELECT coalesce(array_agg(k ORDER BY k), '{}') FROM
                  (SELECT clarify_internal.eval_row_key(r) AS k FROM jsonb_array_elements(got) r) g)
             = (SELECT coalesce(array_agg(k ORDER BY k), '{}') FROM
                  (SELECT clarify_internal.eval_row_key(r) AS k FROM jsonb_array_elements(expected) r) x)
    $$;
COMMENT ON FUNCTION clarify_internal.eval_rows_equal(jsonb, jsonb) IS
    'Whether two JSON arrays of rows are equal as multisets.';

-- Invoker's rights and no grant: the owner (who owns eval_cases) only.
CREATE FUNCTION clarify.evaluate_cases()
    RETURNS TABLE (id text, expected text, decision text, state text, correct boolean,
                   detail jsonb)
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c record;
    rec jsonb;
    r jsonb;
    role_oid oid;
BEGIN
    FOR c IN SELECT * FROM clarify.eval_cases e ORDER BY e.id LOOP
        rec := coalesce(c.record, '{}'::jsonb);
        IF c.question IS NOT NULL THEN
            rec := rec || jsonb_build_object('question', c.question);
        END IF;
        -- By name; by the OID recorded when a rename in another database left the name behind.
        role_oid := coalesce((SELECT ro.oid FROM pg_roles ro WHERE ro.rolname = c.agent),
                             (SELECT ro.oid FROM pg_roles ro WHERE ro.oid = c.agent_oid));
        r := clarify_internal.evaluate_case(c.sql, role_oid,
                                            CASE WHEN c.record IS NULL AND c.question IS NULL
                                                 THEN NULL ELSE rec::text END,
                                            c.expected = 'RESOLVED' AND c.expected_rows IS NOT NULL);
        id := c.id;
        expected := c.expected;
        state := r ->> 'state';
        decision := CASE WHEN state IS NULL THEN NULL
                         WHEN state = 'RESOLVED' THEN 'allowed' ELSE 'rejected' END;
        detail := coalesce(r -> 'detail', '{}'::jsonb);
        IF c.expected_rows IS NOT NULL THEN
            detail := detail || jsonb_build_object(
                'rows_match', coalesce(clarify_internal.eval_rows_equal(r -> 'rows', c.expected_rows), false),
                'rows', r -> 'rows', 'rows_error', r -> 'rows_error');
        END IF;
        correct := coalesce(state = c.expected, false)
                   AND (c.expected <> 'RESOLVED' OR c.expected_rows IS NULL
                        OR (detail ->> 'rows_match')::boolean);
        RETURN NEXT;
    END LOOP;
END
$$;
COMMENT ON FUNCTION clarify.evaluate_cases() IS
    'Each evaluation case decided as check() decides, as its agent: the decision, the gate''s state, whether it is the expected one (and its rows the expected rows), and why.';
REVOKE ALL ON FUNCTION clarify.evaluate_cases() FROM PUBLIC;

CREATE FUNCTION clarify.evaluate() RETURNS TABLE (metric text, value numeric, cases int)
    LANGUAGE sql VOLATILE
    SET search_path = pg_catalog, pg_temp
    AS $$
    WITH r AS (SELECT e.*, (c.expected_rows IS NOT NULL) AS has_rows
                 FROM clarify.evaluate_cases() e JOIN clarify.eval_cases c ON c.id = e.id),
    m (ord, metric, num, den) AS (
        SELECT 1, 'clarification_recall',
               count(*) FILTER (WHERE r.state = 'AMBIGUOUS'), count(*)
          FROM r WHERE r.expected = 'AMBIGUOUS'
        UNION ALL
        SELECT 2, 'false_clarification_rate',
               count(*) FILTER (WHERE r.decision = 'rejected'), count(*)
          FROM r WHERE r.expected = 'RESOLVED'
        UNION ALL
        SELECT 3, 'unjustified_assumption_rate',
               count(*) FILTER (WHERE r.decision = 'allowed'), count(*)
          FROM r WHERE r.expected = 'AMBIGUOUS'
        UNION ALL
        SELECT 4, 'unsupported_answer_rate',
               count(*) FILTER (WHERE r.decision = 'allowed'), count(*)
          FROM r WHERE r.expected = 'UNSUPPORTED'
        UNION ALL
        SELECT 5, 'business_correct_answer_rate',
               count(*) FILTER (WHERE r.decision = 'allowed' AND (r.detail ->> 'rows_match')::boolean),
               count(*)
          FROM r WHERE r.expected = 'RESOLVED' AND r.has_rows)
    SELECT m.metric, CASE WHEN m.den = 0 THEN NULL ELSE round(m.num::numeric / m.den, 4) END,
           m.den::int
      FROM m ORDER BY m.ord
    $$;
COMMENT ON FUNCTION clarify.evaluate() IS
    'The five evaluation metrics over clarify.eval_cases (value NULL when no case counts): clarification recall, false clarification, unjustified assumption, unsupported answer and business-correct answer rates.';
REVOKE ALL ON FUNCTION clarify.evaluate() FROM PUBLIC;

-- A slot's term; a period's slot (no term of its own) under the term of its windows, else
-- "period of <measure>". Written out (here, in audit_metrics() and in the Python report) rather
-- than called: an audit reader may execute no function of clarify_internal.
CREATE OR REPLACE VIEW clarify.audit_friction AS
SELECT coalesce(nullif(slot ->> 'term', ''),
                (SELECT min(t.term) FROM clarify.terms t
                  WHERE t.concept_id IN (SELECT o ->> 'value'
                                           FROM jsonb_array_elements(slot -> 'options') o)),
                'period of ' || coalesce(slot ->> 'measure', 'a measure')) AS term,
       count(*) AS ambiguous_rejections,
       count(DISTINCT a.question_id) AS questions,
       min(a.decided_at) AS first_seen,
       max(a.decided_at) AS last_seen
FROM clarify.audit a
CROSS JOIN LATERAL jsonb_array_elements(a.payload -> 'slots') AS slot
WHERE a.decision = 'rejected' AND slot ->> 'state' = 'AMBIGUOUS'
GROUP BY 1;

-- The first allowed decision after the first rejection (never a negative duration); rounds are
-- rejections with an AMBIGUOUS slot before it.
CREATE OR REPLACE VIEW clarify.audit_resolution_paths AS
WITH firsts AS (
    SELECT question_id,
           min(decided_at) FILTER (WHERE decision = 'rejected') AS first_rejected_at,
           min(decided_at) FILTER (WHERE decision = 'allowed') AS any_allowed_at
    FROM clarify.audit
    WHERE question_id IS NOT NULL
    GROUP BY question_id
), per_question AS (
    SELECT f.question_id, f.first_rejected_at,
           CASE WHEN f.first_rejected_at IS NULL THEN f.any_allowed_at
                ELSE (SELECT min(a.decided_at) FROM clarify.audit a
                       WHERE a.question_id = f.question_id AND a.decision = 'allowed'
                         AND a.decided_at >= f.first_rejected_at) END AS first_allowed_at
    FROM firsts f
)
SELECT q.question_id,
       q.first_rejected_at,
       (SELECT min(p.created_at) FROM clarify.approvals p WHERE p.question_id = q.question_id)
           AS confirmed_at,
       q.first_allowed_at,
       (SELECT count(*) FROM clarify.audit a
        WHERE a.question_id = q.question_id AND a.decision = 'rejected'
          AND a.decided_at < coalesce(q.first_allowed_at, 'infinity')
          AND jsonb_path_exists(a.payload, '$.slots[*] ? (@.state == "AMBIGUOUS")')) AS rounds,
       q.first_allowed_at - q.first_rejected_at AS time_to_resolution
FROM per_question q;

COMMENT ON COLUMN clarify.audit_resolution_paths.first_allowed_at IS 'Its first allowed decision after its first rejection (or its first, when it had none).';
COMMENT ON COLUMN clarify.audit_resolution_paths.rounds IS 'Rejected decisions with an AMBIGUOUS slot (rounds, as the budget counts them) before that allowed one.';
COMMENT ON COLUMN clarify.audit_resolution_paths.time_to_resolution IS 'From the first rejection to the first allowed decision after it (NULL: not resolved, or never rejected).';

-- Production metrics over the decisions of [since, until); questions are question_ids.
CREATE FUNCTION clarify.audit_metrics(since timestamptz, until timestamptz DEFAULT pg_catalog.now())
    RETURNS TABLE (metric text, term text, value numeric, numerator numeric, denominator numeric)
    LANGUAGE sql STABLE
    SET search_path = pg_catalog, pg_temp
    AS $$
    WITH d AS (
        SELECT a.question_id, a.decided_at, a.decision,
               a.decision = 'rejected'
                 AND jsonb_path_exists(a.payload, '$.slots[*] ? (@.state == "AMBIGUOUS")') AS is_round,
               a.payload
          FROM clarify.audit a
         WHERE a.decided_at >= since AND a.decided_at < until AND a.question_id IS NOT NULL),
    q AS (
        SELECT d.question_id,
               count(*) FILTER (WHERE d.is_round) AS rounds,
               min(d.decided_at) FILTER (WHERE d.is_round) AS first_round
          FROM d GROUP BY d.question_id),
    qr AS (
        SELECT q.*,
               EXISTS (SELECT 1 FROM d WHERE d.question_id = q.question_id
                          AND d.decision = 'allowed' AND d.decided_at > q.first_round) AS resolved,
               EXISTS (SELECT 1 FROM d WHERE d.question_id = q.question_id
                          AND d.decision = 'allowed' AND d.decided_at > q.first_round
                          AND d.decided_at <= q.first_round
                              + current_setting('pg_clarify.abandon_after')::interval) AS in_time
          FROM q WHERE q.rounds > 0),
    -- Per term: the rounds that asked about it.
    tr AS (
        SELECT coalesce(nullif(slot ->> 'term', ''),
                        (SELECT min(t.term) FROM clarify.terms t
                          WHERE t.concept_id IN (SELECT o ->> 'value'
                                                   FROM jsonb_array_elements(slot -> 'options') o)),
                        'period of ' || coalesce(slot ->> 'measure', 'a measure')) AS term,
               d.question_id, count(DISTINCT d.decided_at) AS rounds
          FROM d CROSS JOIN LATERAL jsonb_array_elements(d.payload -> 'slots') slot
         WHERE d.is_round AND slot ->> 'state' = 'AMBIGUOUS'
         GROUP BY 1, 2),
    conf AS (
        SELECT p.term, p.concept_id FROM clarify.approvals p
         WHERE p.created_at >= since AND p.created_at < until),
    per_concept AS (
        SELECT c.term, c.concept_id, count(*) AS n, sum(count(*)) OVER (PARTITION BY c.term) AS total
          FROM conf c GROUP BY 1, 2),
    unnecessary AS (
        SELECT t.term, coalesce(max(pc.n) FILTER (WHERE pc.total >= 5 AND pc.n >= 0.8 * pc.total), 0) AS num,
               max(pc.total) AS den
          FROM (SELECT DISTINCT conf.term FROM conf) t JOIN per_concept pc ON pc.term = t.term
         GROUP BY t.term),
    m (ord, metric, term, num, den) AS (
        SELECT 1, 'clarification_rate', NULL::text, (SELECT count(*) FROM qr)::numeric,
               (SELECT count(*) FROM q)::numeric
        UNION ALL
        SELECT 2, 'average_rounds', NULL, (SELECT coalesce(sum(rounds), 0) FROM qr),
               (SELECT count(*) FROM qr)
        UNION ALL
        SELECT 3, 'resolution_rate', NULL, (SELECT count(*) FILTER (WHERE resolved) FROM qr),
               (SELECT count(*) FROM qr)
        UNION ALL
        SELECT 4, 'abandonment_rate', NULL, (SELECT count(*) FILTER (WHERE NOT in_time) FROM qr),
               (SELECT count(*) FROM qr)
        UNION ALL
        SELECT 5, 'unnecessary_clarification_rate', NULL,
               (SELECT coalesce(sum(u.num), 0) FROM unnecessary u),
               (SELECT count(*) FROM conf)
        UNION ALL
        SELECT 1, 'clarification_rate', tr.term, count(DISTINCT tr.question_id),
               (SELECT count(*) FROM q)
          FROM tr GROUP BY tr.term
        UNION ALL
        SELECT 2, 'average_rounds', tr.term, sum(tr.rounds), count(DISTINCT tr.question_id)
          FROM tr GROUP BY tr.term
        UNION ALL
        SELECT 5, 'unnecessary_clarification_rate', u.term, u.num, u.den FROM unnecessary u)
    SELECT m.metric, m.term,
           CASE WHEN m.den = 0 THEN NULL ELSE round(m.num / m.den, 4) END, m.num, m.den
      FROM m ORDER BY m.ord, m.term NULLS FIRST
    $$;
COMMENT ON FUNCTION clarify.audit_metrics(timestamptz, timestamptz) IS
    'Production metrics over the audited decisions of [since, until): clarification rate, average rounds, resolution rate, abandonment rate (pg_clarify.abandon_after), unnecessary clarification rate; overall (term NULL) and per term. value NULL when the denominator is 0.';

-- A term whose confirmations agree: the users keep choosing one meaning, so make it a default.
CREATE VIEW clarify.default_candidates AS
WITH per_concept AS (
    SELECT p.term, p.concept_id, count(*) AS n, sum(count(*)) OVER (PARTITION BY p.term) AS total
      FROM clarify.approvals p GROUP BY 1, 2)
SELECT pc.term, pc.concept_id, pc.total AS confirmations, round(pc.n / pc.total, 4) AS share
  FROM per_concept pc
 WHERE pc.total >= 5 AND pc.n >= 0.8 * pc.total
   AND NOT EXISTS (SELECT 1 FROM clarify.defaults d
                    WHERE d.term = pc.term AND d.applies_to IS NULL AND d.concept_id = pc.concept_id);
COMMENT ON VIEW clarify.default_candidates IS
    'Terms whose 5 or more user confirmations agree at least 80 % on one meaning that is not yet their default: make it a default.';
COMMENT ON COLUMN clarify.default_candidates.term IS 'The term users were asked about.';
COMMENT ON COLUMN clarify.default_candidates.concept_id IS 'The meaning they chose most.';
COMMENT ON COLUMN clarify.default_candidates.confirmations IS 'How many confirmations the term had.';
COMMENT ON COLUMN clarify.default_candidates.share IS 'The share of them that chose this meaning (0 to 1).';
REVOKE ALL ON clarify.default_candidates FROM PUBLIC;

REVOKE ALL ON FUNCTION clarify_internal.evaluate_case(text, oid, text, boolean),
    clarify_internal.eval_row_key(jsonb), clarify_internal.eval_rows_equal(jsonb, jsonb) FROM PUBLIC;

--------------------------------------------------------------------------------------------------
-- Segments: governed filters (docs/reference.md, "Segments")
--------------------------------------------------------------------------------------------------

-- A segment is a meaning that is a filter ("active customer": purchased in the last 30 days): a
-- boolean expression over one relation's columns, which the gate finds among a scan's conditions.
ALTER TABLE clarify.concepts DROP CONSTRAINT concepts_kind_check;
ALTER TABLE clarify.concepts
    ADD CONSTRAINT concepts_kind_check
    CHECK (kind IN ('metric', 'dimension', 'time_window', 'segment'));
ALTER TABLE clarify.concepts ADD COLUMN segment_relation regclass;
ALTER TABLE clarify.concepts ADD COLUMN segment_predicate text;

COMMENT ON COLUMN clarify.concepts.segment_relation IS
    'A segment''s relation: the table whose scans must apply segment_predicate. NULL for other kinds.';
COMMENT ON COLUMN clarify.concepts.segment_predicate IS
    'A segment''s filter: a boolean SQL expression over segment_relation''s columns (unqualified), without subquery or volatile function, e.g. last_order_at >= current_date - 30. Never shown to users. NULL for other kinds.';

-- Parses `predicate` as the WHERE clause of one scan of `relation` (nothing runs): raises
-- unless it reads only that relation's columns, without subquery or volatile function.
CREATE FUNCTION clarify_internal.segment_predicate_check(relation regclass, predicate text)
    RETURNS void
    AS 'MODULE_PATHNAME', 'clarify_segment_predicate_check'
    LANGUAGE C STRICT;

COMMENT ON FUNCTION clarify_internal.segment_predicate_check(regclass, text) IS
    'Raises unless the text is one boolean expression over the relation''s columns, without subquery or volatile function.';

CREATE FUNCTION clarify_internal.concepts_segment_check() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NEW.kind = 'segment' THEN
        IF NEW.segment_relation IS NULL OR NEW.segment_predicate IS NULL THEN
            RAISE EXCEPTION 'segment "%" needs both segment_relation and segment_predicate', NEW.id
                USING ERRCODE = 'not_null_violation',
                      HINT = 'e.g. segment_relation = ''sales.customers'', segment_predicate = ''last_order_at >= current_date - 30''.';
        END IF;
        PERFORM clarify_internal.segment_predicate_check(NEW.segment_relation, NEW.segment_predicate);
    ELSIF NEW.segment_relation IS NOT NULL OR NEW.segment_predicate IS NOT NULL THEN
        RAISE EXCEPTION 'concept "%" is a %, not a segment: segment_relation and segment_predicate must be NULL',
                        NEW.id, NEW.kind
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION clarify_internal.concepts_segment_check() IS
    'Refuses a segment without relation or predicate, or whose predicate does not parse as a filter of that relation alone.';

CREATE TRIGGER concepts_segment_check
    BEFORE INSERT OR UPDATE OF kind, segment_relation, segment_predicate ON clarify.concepts
    FOR EACH ROW EXECUTE FUNCTION clarify_internal.concepts_segment_check();

-- A segment's filter is its meaning (§18): changing it gives a new version.
CREATE FUNCTION clarify_internal.concepts_segment_version() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NEW.version IS NOT DISTINCT FROM OLD.version
       AND (NEW.segment_relation, NEW.segment_predicate)
           IS DISTINCT FROM (OLD.segment_relation, OLD.segment_predicate)
    THEN
        NEW.version := OLD.version + 1;
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION clarify_internal.concepts_segment_version() IS
    'Gives a segment a new version whenever its relation or predicate changes.';

CREATE TRIGGER concepts_segment_version
    BEFORE UPDATE ON clarify.concepts
    FOR EACH ROW EXECUTE FUNCTION clarify_internal.concepts_segment_version();

REVOKE ALL ON FUNCTION clarify_internal.segment_predicate_check(regclass, text),
    clarify_internal.concepts_segment_check(), clarify_internal.concepts_segment_version()
    FROM PUBLIC;

--------------------------------------------------------------------------------------------------
-- Clarification budget (docs/dba-guide.md, "Clarification budget")
--------------------------------------------------------------------------------------------------

-- pg_clarify.max_rounds counts a question's rounds (its rejected AMBIGUOUS decisions) on the
-- rejection path only (src/pg/executor/question_rounds.cpp): this index finds the batches that
-- name the question without reading the others. GIN's pending list keeps the writer's insert of
-- a batch cheap; an allowed statement never reads it.
CREATE INDEX audit_batches_question_ids_idx ON clarify.audit_batches USING gin (question_ids);

--------------------------------------------------------------------------------------------------
-- Entities: which "Acme" (docs/dba-guide.md, "Entities"; src/pg/plan/entity/)
--------------------------------------------------------------------------------------------------

-- A column whose values people use to name things, and the key that identifies one: a statement
-- filtering it by name is asked "which one?" when several rows answer to the name.
CREATE TABLE clarify.entities (
    relation       regclass NOT NULL,
    name_column    name NOT NULL,
    key_column     name NOT NULL,
    label          text NOT NULL,
    detail_columns name[] NOT NULL DEFAULT '{}',
    match          text NOT NULL DEFAULT 'case_insensitive'
                   CHECK (match IN ('exact', 'case_insensitive')),
    max_options    int NOT NULL DEFAULT 10 CHECK (max_options BETWEEN 1 AND 100),
    approved_by    text NOT NULL,
    PRIMARY KEY (relation, name_column),
    CONSTRAINT entities_approved_by_check CHECK (approved_by ~ '[^[:space:]]'),
    CONSTRAINT entities_label_check CHECK (label ~ '[^[:space:]]')
);

COMMENT ON TABLE clarify.entities IS
    'Columns whose values people use to name things (a customer''s name), with the key that identifies one: a gated statement filtering one by a name several rows share is asked which one.';
COMMENT ON COLUMN clarify.entities.relation IS 'The table holding the entities.';
COMMENT ON COLUMN clarify.entities.name_column IS 'The column people name an entity by.';
COMMENT ON COLUMN clarify.entities.key_column IS 'The column that identifies one entity (proven unique); the agent resolves a name by filtering on it.';
COMMENT ON COLUMN clarify.entities.label IS 'What an entity is, in business words ("Customer"): the question says it.';
COMMENT ON COLUMN clarify.entities.detail_columns IS 'Columns shown beside each option''s name to tell entities apart, in this order (those the agent may not read are left out).';
COMMENT ON COLUMN clarify.entities.match IS 'How people name entities: exact, or case_insensitive (the lookup compares lower-case names).';
COMMENT ON COLUMN clarify.entities.max_options IS 'How many entities a question lists at most (1 to 100); more are "truncated".';
COMMENT ON COLUMN clarify.entities.approved_by IS 'The person or body who vouches for the registration.';

CREATE FUNCTION clarify_internal.entities_check() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    rel_kind "char";
    rel_name text;
    col      name;
    key_att  smallint;
BEGIN
    IF NEW.relation IS NULL OR NEW.name_column IS NULL OR NEW.key_column IS NULL
       OR NEW.detail_columns IS NULL THEN
        RETURN NEW;  -- the NOT NULL constraints say it better
    END IF;
    SELECT c.relkind, pg_catalog.format('%s.%s', n.nspname, c.relname)
      INTO rel_kind, rel_name
      FROM pg_catalog.pg_class c
      JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     WHERE c.oid = NEW.relation;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'relation with OID % does not exist', NEW.relation::oid
            USING ERRCODE = 'undefined_table';
    END IF;
    IF rel_kind NOT IN ('r', 'm', 'f') THEN
        RAISE EXCEPTION 'relation "%" is not a table, materialized view or foreign table', rel_name
            USING ERRCODE = 'wrong_object_type';
    END IF;
    FOREACH col IN ARRAY ARRAY[NEW.name_column, NEW.key_column] || NEW.detail_columns LOOP
        IF col IS NULL OR NOT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a
                                       WHERE a.attrelid = NEW.relation AND a.attname = col
                                         AND a.attnum > 0 AND NOT a.attisdropped) THEN
            RAISE EXCEPTION 'column "%" of relation "%" does not exist', col, rel_name
                USING ERRCODE = 'undefined_column';
        END IF;
        -- Options show these columns' values: a governed meaning must not leak through them.
        IF EXISTS (SELECT 1 FROM clarify.concept_columns m
                    WHERE m.relation = NEW.relation AND m.column_name = col) THEN
            RAISE EXCEPTION 'column "%" of relation "%" is a governed concept column', col, rel_name
                USING ERRCODE = 'check_violation',
                      HINT = 'An entity''s name, key and detail columns are shown in its options: use columns that carry no governed meaning.';
        END IF;
    END LOOP;
    SELECT a.attnum INTO key_att FROM pg_catalog.pg_attribute a
     WHERE a.attrelid = NEW.relation AND a.attname = NEW.key_column;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_index i
                    WHERE i.indrelid = NEW.relation AND i.indisunique AND i.indisvalid
                      AND i.indpred IS NULL AND i.indnkeyatts = 1 AND i.indkey[0] = key_att)
       AND NOT EXISTS (SELECT 1 FROM clarify.unique_keys k
                        WHERE k.relation = NEW.relation AND k.columns = ARRAY[NEW.key_column]) THEN
        RAISE EXCEPTION 'key column "%" of relation "%" is not proven unique', NEW.key_column, rel_name
            USING ERRCODE = 'check_violation',
                  HINT = 'Add a primary key or unique index on it, or declare it in clarify.unique_keys.';
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION clarify_internal.entities_check() IS
    'Refuses an entity on unknown columns, with a key not proven unique, naming a governed concept column, or without an approver.';

CREATE TRIGGER entities_check
    BEFORE INSERT OR UPDATE ON clarify.entities
    FOR EACH ROW EXECUTE FUNCTION clarify_internal.entities_check();
CREATE TRIGGER catalog_changed
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON clarify.entities
    FOR EACH STATEMENT EXECUTE FUNCTION clarify_internal.catalog_changed();

REVOKE ALL ON clarify.entities FROM PUBLIC;
GRANT SELECT ON clarify.entities TO PUBLIC;
REVOKE ALL ON FUNCTION clarify_internal.entities_check() FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('clarify.entities', '');

--------------------------------------------------------------------------------------------------
-- Lint: what in the catalog will surprise users (docs/dba-guide.md, "Lint"); defined after the
-- entities and segments it also checks
--------------------------------------------------------------------------------------------------

-- The columns a segment's predicate reads (NULL when it no longer parses), for clarify.lint().
CREATE FUNCTION clarify_internal.segment_predicate_columns(relation regclass, predicate text)
    RETURNS name[]
    AS 'MODULE_PATHNAME', 'clarify_segment_predicate_columns'
    LANGUAGE C STABLE STRICT;
COMMENT ON FUNCTION clarify_internal.segment_predicate_columns(regclass, text) IS
    'The columns a segment''s predicate reads, or NULL when it no longer parses.';
REVOKE ALL ON FUNCTION clarify_internal.segment_predicate_columns(regclass, text) FROM PUBLIC;

-- What in the catalog will surprise users, one SELECT per problem (a later check is one more
-- branch of the UNION ALL), each with a fix a DBA can paste. Owner only.
CREATE FUNCTION clarify.lint()
    RETURNS TABLE (severity text, object text, problem text, fix text)
    LANGUAGE sql STABLE
    SET search_path = pg_catalog, pg_temp
    AS $$
    WITH eligible_candidates AS (
        SELECT t.term, t.concept_id FROM clarify.terms t
          JOIN clarify.concepts c ON c.id = t.concept_id
         WHERE clarify.eligible(c)),
    meanings AS (
        SELECT term, count(*) AS n, min(concept_id) AS only_one
          FROM eligible_candidates GROUP BY term),
    problems AS (
    -- A one-meaning term ("MRR") beside a term with several eligible meanings and no default:
    -- while the question says the other term, the one meaning never covers the column (§13).
    SELECT 'warning' AS severity, format('term %L', one.term) AS object,
           format('%L has one eligible meaning, %s, which is also a candidate of %L with %s eligible meanings and no default: while the question says %L the statement is ambiguous',
                  one.term, one.only_one, many.term, many.n, many.term) AS problem,
           format('INSERT INTO clarify.defaults (term, concept_id, approved_by) VALUES (%L, %L, %L);',
                  many.term, one.only_one, current_user) AS fix
      FROM meanings one
      JOIN eligible_candidates other ON other.concept_id = one.only_one AND other.term <> one.term
      JOIN meanings many ON many.term = other.term AND many.n > 1
     WHERE one.n = 1
       AND NOT EXISTS (SELECT 1 FROM clarify.defaults d WHERE d.term = many.term AND d.applies_to IS NULL)
    UNION ALL
    -- Mappings whose table or column no longer exists (kept by name, §18).
    SELECT 'error', format('mapping %s of %L', concat_ws('.', m.schema_name, m.table_name, m.column_name), m.concept_id),
           CASE WHEN cls.oid IS NULL THEN 'the governed table no longer exists'
                ELSE 'the governed column no longer exists' END,
           format('DELETE FROM clarify.concept_columns WHERE concept_id = %L AND schema_name = %L AND table_name = %L AND column_name = %L;',
                  m.concept_id, m.schema_name, m.table_name, m.column_name)
      FROM clarify.concept_columns m
      LEFT JOIN pg_class cls ON cls.relname = m.table_name
           AND cls.relnamespace = (SELECT n.oid FROM pg_namespace n WHERE n.nspname = m.schema_name)
     WHERE cls.oid IS NULL
        OR NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = cls.oid
                          AND a.attname = m.column_name AND a.attnum > 0 AND NOT a.attisdropped)
    UNION ALL
    -- Time windows whose bounds, evaluated now, are inverted or empty.
    SELECT 'error', format('concept %L', w.id),
           format('the time window is %s: it starts %s and ends %s',
                  CASE WHEN w.window_start = w.window_end THEN 'empty' ELSE 'inverted' END,
                  w.window_start, w.window_end),
           CASE WHEN w.window_start = w.window_end
                THEN format('DELETE FROM clarify.terms WHERE concept_id = %L; DELETE FROM clarify.concepts WHERE id = %L;',
                            w.id, w.id)
                ELSE format('UPDATE clarify.concepts SET window_start = %L, window_end = %L WHERE id = %L;',
                            c.window_end, c.window_start, w.id) END
      FROM clarify_internal.lint_windows() w JOIN clarify.concepts c ON c.id = w.id
    UNION ALL
    -- Defaults for roles that no agent is (nor belongs to): they apply to nobody the gate decides.
    SELECT 'warning', format('default for %L (applies to %s)', d.term, d.applies_to),
           format('role %s is not governed and has no governed member: the default applies to no agent', d.applies_to),
           format('SELECT clarify.govern_role(%L);  -- or: DELETE FROM clarify.defaults WHERE term = %L AND applies_to = %L;',
                  d.applies_to, d.term, d.applies_to)
      FROM clarify.defaults d
     WHERE d.applies_to IS NOT NULL AND NOT clarify_internal.role_reaches_agents(d.applies_to)
    UNION ALL
    -- Approvals granted to such roles.
    SELECT 'warning', format('approval %s (%L for %L)', a.id, a.term, a.question_id),
           format('role %s is not governed and has no governed member: the confirmation verifies for no agent', a.granted_to),
           format('SELECT clarify.revoke(%s);', a.id)
      FROM clarify.approvals a
     WHERE a.revoked_at IS NULL AND a.expires_at > now()
       AND NOT clarify_internal.role_reaches_agents(a.granted_to)
    UNION ALL
    -- Draft or deprecated concepts mapped to columns: reading them is UNSUPPORTED.
    SELECT 'warning', format('concept %L', c.id),
           format('the concept is %s but mapped to %s column(s): every read of them is UNSUPPORTED',
                  c.status, (SELECT count(*) FROM clarify.concept_columns m WHERE m.concept_id = c.id)),
           CASE WHEN c.status = 'draft'
                THEN format('UPDATE clarify.concepts SET status = ''approved'' WHERE id = %L;', c.id)
                ELSE format('DELETE FROM clarify.concept_columns WHERE concept_id = %L;', c.id) END
      FROM clarify.concepts c
     WHERE c.status IN ('draft', 'deprecated')
       AND EXISTS (SELECT 1 FROM clarify.concept_columns m WHERE m.concept_id = c.id)
    UNION ALL
    -- Semi-additive measures without a snapshot column: every sum of them is GRAIN (§10).
    SELECT 'error', format('mapping %s of %L', concat_ws('.', m.schema_name, m.table_name, m.column_name), c.id),
           'the measure is semi_additive but has no snapshot column: every sum of it is refused',
           format('UPDATE clarify.concept_columns SET snapshot_column = %L WHERE concept_id = %L AND relation = %L::regclass AND column_name = %L;',
                  COALESCE((SELECT a.attname FROM pg_attribute a
                             WHERE a.attrelid = m.relation AND a.attnum > 0 AND NOT a.attisdropped
                               AND a.atttypid IN ('date'::regtype, 'timestamp'::regtype, 'timestamptz'::regtype)
                             ORDER BY a.attnum LIMIT 1), 'snapshot_date'),
                  c.id, m.relation::text, m.column_name)
      FROM clarify.concepts c JOIN clarify.concept_columns m ON m.concept_id = c.id
     WHERE c.additivity = 'semi_additive' AND m.snapshot_column IS NULL
       AND EXISTS (SELECT 1 FROM pg_class cls WHERE cls.oid = m.relation)
    UNION ALL
    -- Defaults and confirmations given for an older definition of their concept (§18).
    SELECT s.severity, s.object, s.problem, s.fix FROM clarify.stale_approvals s
    UNION ALL
    -- Entities naming governed columns (mapped after the entity was registered): their options
    -- would show governed values beside each name (§14).
    SELECT 'error', format('entity %s.%s', e.relation::text, e.name_column),
           format('%s column %s is also mapped to %L: options show it', CASE WHEN col = e.key_column THEN 'the key'
                  WHEN col = e.name_column THEN 'the name' ELSE 'the detail' END, col, m.concept_id),
           CASE WHEN col = ANY (e.detail_columns) AND col <> e.name_column AND col <> e.key_column
                THEN format('UPDATE clarify.entities SET detail_columns = array_remove(detail_columns, %L) WHERE relation = %L::regclass AND name_column = %L;',
                            col, e.relation::text, e.name_column)
                ELSE format('DELETE FROM clarify.entities WHERE relation = %L::regclass AND name_column = %L;',
                            e.relation::text, e.name_column) END
      FROM clarify.entities e
     CROSS JOIN LATERAL unnest(ARRAY[e.name_column, e.key_column] || e.detail_columns) AS col
      JOIN clarify.concept_columns m ON m.relation = e.relation AND m.column_name = col
    UNION ALL
    -- Segments whose predicate reads a governed column: every statement applying the segment
    -- reads that meaning too, and is asked about it (§15).
    SELECT 'warning', format('concept %L', c.id),
           format('the segment''s predicate reads column %s, which is mapped to %L: a statement applying the segment reads that meaning as well',
                  col, m.concept_id),
           format('UPDATE clarify.concepts SET segment_predicate = %L WHERE id = %L;  -- written over columns that carry no governed meaning',
                  c.segment_predicate, c.id)
      FROM clarify.concepts c
     CROSS JOIN LATERAL unnest(clarify_internal.segment_predicate_columns(c.segment_relation, c.segment_predicate)) AS col
      JOIN clarify.concept_columns m ON m.relation = c.segment_relation AND m.column_name = col
     WHERE c.kind = 'segment' AND c.segment_relation IS NOT NULL AND c.segment_predicate IS NOT NULL
    )
    SELECT p.severity, p.object, p.problem, p.fix FROM problems p
     ORDER BY array_position(ARRAY['error', 'warning', 'info'], p.severity), p.object, p.problem
    $$;

COMMENT ON FUNCTION clarify.lint() IS
    'What in the catalog will surprise users (ambiguity hidden by a synonym, dead mappings, inverted windows, defaults and approvals for no agent, unapproved concepts in use, semi-additive measures without a snapshot, stale defaults and approvals, entities and segments over governed columns), each with a fix to paste.';
REVOKE ALL ON FUNCTION clarify.lint() FROM PUBLIC;

--------------------------------------------------------------------------------------------------
-- Entities: mappings onto entity columns (docs/dba-guide.md, "Entities")
--------------------------------------------------------------------------------------------------

-- An entity's options show its name, key and detail columns, so clarify.entities refuses a
-- governed column there; a concept mapping added later onto one of them is refused alike. A
-- mapping that stays on its column (the catalog following a rename) is not checked again.
CREATE FUNCTION clarify_internal.concept_columns_entity_check() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    entity_label text;
    role_name    text;
BEGIN
    IF NEW.relation IS NULL OR NEW.column_name IS NULL OR NEW.attnum IS NULL THEN
        RETURN NEW;
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.relation = OLD.relation AND NEW.attnum = OLD.attnum THEN
        RETURN NEW;
    END IF;
    SELECT e.label,
           CASE WHEN NEW.column_name = e.name_column THEN 'name'
                WHEN NEW.column_name = e.key_column THEN 'key'
                ELSE 'detail' END
      INTO entity_label, role_name
      FROM clarify.entities e
     WHERE e.relation = NEW.relation
       AND NEW.column_name = ANY (ARRAY[e.name_column, e.key_column] || e.detail_columns)
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'column "%" of relation "%" is the % column of the entity "%"',
                        NEW.column_name, NEW.relation, role_name, entity_label
            USING ERRCODE = 'check_violation',
                  DETAIL = 'An entity''s name, key and detail columns are shown in its options, so they carry no governed meaning.',
                  HINT = 'Map the concept to another column, or remove the entity from clarify.entities first.';
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION clarify_internal.concept_columns_entity_check() IS
    'Refuses a concept mapping onto an entity''s name, key or detail column.';

CREATE TRIGGER concept_columns_entity_check
    BEFORE INSERT OR UPDATE OF relation, column_name, attnum, schema_name, table_name
    ON clarify.concept_columns
    FOR EACH ROW EXECUTE FUNCTION clarify_internal.concept_columns_entity_check();

REVOKE ALL ON FUNCTION clarify_internal.concept_columns_entity_check() FROM PUBLIC;

--------------------------------------------------------------------------------------------------
-- Entity bindings per decision: a customer named by another statement is the same decision shape
--------------------------------------------------------------------------------------------------

-- The bindings of the entity names an execution resolved to one key ({"kind": "entity",
-- "relation", "value", "key"}, docs/reference.md, "Entities") are the decision's own, not its
-- shape's: a prepared statement run for many customers stores one shape. One element per
-- decision, NULL when it has none; the column is NULL for a batch without any (and for rows
-- written before it existed). The gate writes them (src/core/entity/entity.cpp), never an agent.
ALTER TABLE clarify.audit_batches ADD COLUMN entity_bindings jsonb[] COMPRESSION lz4;

CREATE OR REPLACE VIEW clarify.audit_log AS
SELECT u.decision_id, u.decided_at, u.session_role, u.acting_role, u.pid, u.query_id,
       u.statement_hash, u.shape_hash, u.record_hash, u.question_id, b.batch_id, b.origin,
       u.entity_bindings
FROM clarify.audit_batches b
CROSS JOIN LATERAL unnest(b.decision_ids, b.decided_ats, b.session_roles, b.acting_roles, b.pids,
                          b.query_ids, b.statement_hashes, b.shape_hashes, b.record_hashes,
                          b.question_ids, b.entity_bindings)
    AS u(decision_id, decided_at, session_role, acting_role, pid, query_id, statement_hash,
         shape_hash, record_hash, question_id, entity_bindings);

-- `bindings` as before: the shape's, with the decision's entity bindings after them.
CREATE OR REPLACE VIEW clarify.audit AS
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
       CASE WHEN l.entity_bindings IS NULL THEN sh.bindings
            ELSE sh.bindings || l.entity_bindings END AS bindings,
       sh.payload || jsonb_build_object('decision_id', l.decision_id::text) AS payload,
       rec.body::jsonb AS record,
       l.origin,
       COALESCE(sh.payload->>'enforcement', 'enforce') AS enforcement
FROM clarify.audit_log l
LEFT JOIN clarify.audit_texts st ON st.hash = l.statement_hash
LEFT JOIN clarify.audit_shapes sh ON sh.hash = l.shape_hash
LEFT JOIN clarify.audit_texts rec ON rec.hash = l.record_hash
LEFT JOIN LATERAL (SELECT string_agg(an.note, '; ') AS note FROM clarify.audit_notes an
                   WHERE an.decision_id = l.decision_id) n ON true;

COMMENT ON COLUMN clarify.audit_batches.entity_bindings IS
    'Per decision: the entity bindings of its execution (a jsonb array, NULL when none); clarify.audit shows them after the shape''s bindings.';
COMMENT ON COLUMN clarify.audit_log.entity_bindings IS
    'The decision''s entity bindings (a jsonb array: the keys its names resolved to), NULL when none.';
