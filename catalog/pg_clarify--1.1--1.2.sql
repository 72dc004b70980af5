\echo Use "ALTER EXTENSION pg_clarify UPDATE TO '1.2'" to load this file. \quit

-- pg_clarify 1.1 -> 1.2. Every change here is also in pg_clarify--1.2.sql, so that an updated
-- database and a fresh 1.2 install have the same schema (test/shell/upgrade.t compares them).
-- Blocks appear in the same order in both scripts, each under the same heading.

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
