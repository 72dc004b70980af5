\echo Use "ALTER EXTENSION pg_clarify UPDATE TO '1.2'" to load this file. \quit

-- pg_clarify 1.1 -> 1.2. Every change here is also in pg_clarify--1.2.sql, so that an updated
-- database and a fresh 1.2 install have the same schema (test/shell/upgrade.t compares them).
-- Blocks appear in the same order in both scripts, each under the same heading.

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
