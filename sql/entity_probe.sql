-- Entity lookups read straight from an index of the name column (src/pg/plan/entity/probe.cpp)
-- give exactly what the lookup's SQL gives: the same outcome, options, order, truncated and key
-- in the audit binding. Each name is looked up with a usable index (the DEBUG1 line says "by
-- index", as clarify.check() looks it up) and without one (the SQL: "by query"), and the two
-- outcomes compared.
SET client_min_messages = warning;
CREATE SCHEMA probe;
GRANT USAGE ON SCHEMA probe TO PUBLIC;
-- Case-insensitive names (the default rule), integer keys, NULL details; 'Kappa' holds keys 100
-- and 20 (the options sort by key as text: 100 first), 'acme' four (more than max_options 3).
CREATE TABLE probe.ci (id int PRIMARY KEY, name text NOT NULL, city text, plan text);
INSERT INTO probe.ci VALUES
  (1, 'Acme', 'Berlin', NULL), (2, 'Acme', 'Paris', 'Team'), (3, 'ACME', NULL, NULL),
  (4, 'acme', 'Oslo', NULL), (5, 'Globex', 'Springfield', NULL), (20, 'Kappa', 'Rome', NULL),
  (100, 'Kappa', NULL, 'Free'), (7, 'Beta', 'X', NULL), (8, 'beta', 'Y', NULL),
  (12, 'Omega', NULL, NULL), (11, 'OMEGA', 'Lima', NULL);
-- Exact names in a varchar column, uuid keys.
CREATE TABLE probe.ex (id uuid PRIMARY KEY, name varchar(40) NOT NULL, city text);
INSERT INTO probe.ex VALUES
  ('00000000-0000-0000-0000-000000000002', 'Acme', 'Paris'),
  ('00000000-0000-0000-0000-000000000001', 'Acme', NULL),
  ('00000000-0000-0000-0000-000000000003', 'acme', 'Oslo'),
  ('00000000-0000-0000-0000-000000000004', 'Globex', 'Rome');
-- Boolean keys and details whose cast to text is a function (inet shows its mask, bpchar drops
-- its padding): rendered as the SQL's col::text renders them.
CREATE TABLE probe.casts (id boolean PRIMARY KEY, name text NOT NULL, addr inet, code char(5));
INSERT INTO probe.casts VALUES (true, 'Twin', '10.0.0.1', 'ab'), (false, 'Twin', '10.0.0.2/24', NULL);
-- Row-level security: the lookup stays on the SQL, which applies the policy.
CREATE TABLE probe.rls (id int PRIMARY KEY, name text NOT NULL, region text);
INSERT INTO probe.rls VALUES (1, 'Acme', 'eu'), (2, 'Acme', 'us'), (3, 'Initech', 'eu');
CREATE INDEX rls_name ON probe.rls (lower(name));
ALTER TABLE probe.rls ENABLE ROW LEVEL SECURITY;
CREATE POLICY eu_only ON probe.rls FOR SELECT TO regress_agent USING (region = 'eu');
GRANT SELECT ON probe.ci, probe.ex, probe.casts, probe.rls TO PUBLIC;
INSERT INTO clarify.entities (relation, name_column, key_column, label, detail_columns, max_options, approved_by)
  VALUES ('probe.ci', 'name', 'id', 'Customer', '{city,plan}', 3, 'Sales ops');
INSERT INTO clarify.entities (relation, name_column, key_column, label, detail_columns, match, approved_by)
  VALUES ('probe.ex', 'name', 'id', 'Account', '{city}', 'exact', 'Sales ops'),
         ('probe.casts', 'name', 'id', 'Pair', '{addr,code}', 'exact', 'Sales ops'),
         ('probe.rls', 'name', 'id', 'Region account', '{region}', 'case_insensitive', 'Sales ops');

-- Each name's outcome as the agent: the keys bound when it ran, else the state, options and
-- truncated of its slot.
CREATE FUNCTION public.probe_lookups(rel text, names text[])
RETURNS TABLE (name text, outcome jsonb) LANGUAGE plpgsql AS $$
DECLARE g jsonb;
BEGIN
  FOREACH name IN ARRAY names LOOP
    g := public.gate(format('SELECT id FROM %s WHERE name = %L', rel, name));
    IF g ? 'ok' THEN
      outcome := jsonb_build_object('ran', (SELECT jsonb_agg(b->'key')
        FROM jsonb_array_elements(clarify.last_decision()->'bindings') b WHERE b->>'kind' = 'entity'));
    ELSE
      outcome := jsonb_build_object('state', g->'detail'->>'state',
        'options', g->'detail'->'slots'->0->'options', 'truncated', g->'detail'->'slots'->0->'truncated');
    END IF;
    RETURN NEXT;
  END LOOP;
END $$;
CREATE TABLE probe.seen (path text, rel text, name text, outcome jsonb);
GRANT INSERT, SELECT ON probe.seen TO PUBLIC;
GRANT EXECUTE ON FUNCTION public.probe_lookups(text, text[]) TO PUBLIC;
-- look PATH REL NAMES: the outcomes, shown and kept under PATH.
CREATE FUNCTION public.look(path text, rel text, names text[])
RETURNS TABLE (name text, outcome jsonb) LANGUAGE sql AS $$
  INSERT INTO probe.seen SELECT path, rel, l.name, l.outcome FROM public.probe_lookups(rel, names) l
  RETURNING name, outcome $$;
GRANT EXECUTE ON FUNCTION public.look(text, text, text[]) TO PUBLIC;
-- paths REL NAMES: which path each name's lookup takes (clarify.check() looks it up too), shown
-- by the lookup's DEBUG1 lines; once unseen first, so that no first load's message shows.
CREATE FUNCTION public.paths(rel text, names text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE n text; level text := current_setting('client_min_messages');
BEGIN
  FOR pass IN 1..2 LOOP
    PERFORM set_config('client_min_messages', CASE pass WHEN 1 THEN 'warning' ELSE 'debug1' END, false);
    FOREACH n IN ARRAY names LOOP
      PERFORM clarify.check(format('SELECT id FROM %s WHERE name = %L', rel, n));
    END LOOP;
  END LOOP;
  PERFORM set_config('client_min_messages', level, false);
END $$;
GRANT EXECUTE ON FUNCTION public.paths(text, text[]) TO PUBLIC;
RESET client_min_messages;
\set VERBOSITY terse
\set ci_names '{Globex,GLOBEX,Kappa,Beta,Omega,acme,Nobody}'
\set ex_names '{Acme,acme,Globex,GLOBEX,Nobody}'

-- Case-insensitive: probed through an index on lower(name), then looked up by the SQL.
CREATE INDEX ci_lower ON probe.ci (lower(name));
SET ROLE regress_agent;
SELECT * FROM look('index', 'probe.ci', :'ci_names');
SELECT paths('probe.ci', :'ci_names');
RESET ROLE;
DROP INDEX probe.ci_lower;
-- An index on name as written serves only the exact rule; a partial one serves neither.
CREATE INDEX ci_name ON probe.ci (name);
CREATE INDEX ci_partial ON probe.ci (lower(name)) WHERE id > 0;
SET ROLE regress_agent;
SELECT * FROM look('query', 'probe.ci', :'ci_names');
SELECT paths('probe.ci', :'ci_names');
RESET ROLE;

-- Exact, varchar: probed through an index on name, then by the SQL.
CREATE INDEX ex_name ON probe.ex (name);
SET ROLE regress_agent;
SELECT * FROM look('index', 'probe.ex', :'ex_names');
SELECT paths('probe.ex', :'ex_names');
RESET ROLE;
DROP INDEX probe.ex_name;
SET ROLE regress_agent;
SELECT * FROM look('query', 'probe.ex', :'ex_names');
SELECT paths('probe.ex', :'ex_names');
RESET ROLE;

-- Boolean keys, function casts to text.
CREATE INDEX casts_name ON probe.casts (name);
SET ROLE regress_agent;
SELECT * FROM look('index', 'probe.casts', '{Twin}');
SELECT paths('probe.casts', '{Twin}');
RESET ROLE;
DROP INDEX probe.casts_name;
SET ROLE regress_agent;
SELECT * FROM look('query', 'probe.casts', '{Twin}');
SELECT paths('probe.casts', '{Twin}');
RESET ROLE;

-- A key in another collation than the default sorts otherwise: the SQL answers.
CREATE TABLE probe.coll (id text COLLATE "C" PRIMARY KEY, name text NOT NULL);
INSERT INTO probe.coll VALUES ('b', 'Twin'), ('a', 'Twin');
CREATE INDEX coll_name ON probe.coll (name);
GRANT SELECT ON probe.coll TO PUBLIC;
INSERT INTO clarify.entities (relation, name_column, key_column, label, match, approved_by)
  VALUES ('probe.coll', 'name', 'id', 'Code', 'exact', 'Sales ops');
SET ROLE regress_agent;
SELECT * FROM probe_lookups('probe.coll', '{Twin}');
SELECT paths('probe.coll', '{Twin}');
RESET ROLE;

-- The index path and the query path agree on every name.
SELECT i.rel, i.name, i.outcome = q.outcome AS same
  FROM probe.seen i JOIN probe.seen q ON q.rel = i.rel AND q.name = i.name AND q.path = 'query'
 WHERE i.path = 'index' ORDER BY 1, 2;

-- Row-level security: the SQL answers (the agent sees one Acme: it runs).
SET ROLE regress_agent;
SELECT * FROM probe_lookups('probe.rls', '{Acme}');
SELECT paths('probe.rls', '{Acme}');
RESET ROLE;

-- An index dropped and created again within the session: the new one serves, the old one is
-- never opened again.
CREATE INDEX ci_lower ON probe.ci (lower(name));
SET ROLE regress_agent;
SELECT * FROM probe_lookups('probe.ci', '{Globex}');
SELECT paths('probe.ci', '{Globex}');
RESET ROLE;
DROP INDEX probe.ci_lower;
CREATE INDEX ci_lower_again ON probe.ci (lower(name));
SET ROLE regress_agent;
SELECT * FROM probe_lookups('probe.ci', '{Globex}');
SELECT paths('probe.ci', '{Globex}');
RESET ROLE;

-- The statement's snapshot: a row deleted earlier in the transaction is not found, one inserted
-- is.
BEGIN;
DELETE FROM probe.ci WHERE id = 5;
SET ROLE regress_agent;
SELECT * FROM probe_lookups('probe.ci', '{Globex}');
SELECT paths('probe.ci', '{Globex}');
ROLLBACK;
BEGIN;
INSERT INTO probe.ci VALUES (50, 'GLOBEX', 'Lyon', NULL);
SET ROLE regress_agent;
SELECT * FROM probe_lookups('probe.ci', '{Globex}');
SELECT paths('probe.ci', '{Globex}');
ROLLBACK;

-- A char(n) name column (exact rule): the SQL compares the whole name, not its first character
-- (the lookup's cast is to bpchar, never to character, which means char(1)).
CREATE TABLE probe.fixed (id int PRIMARY KEY, name char(12) NOT NULL);
INSERT INTO probe.fixed VALUES (1, 'Acme'), (2, 'Acme'), (3, 'Apex');
GRANT SELECT ON probe.fixed TO PUBLIC;
INSERT INTO clarify.entities (relation, name_column, key_column, label, match, approved_by)
  VALUES ('probe.fixed', 'name', 'id', 'Fixed', 'exact', 'Sales ops');
SET ROLE regress_agent;
SELECT * FROM probe_lookups('probe.fixed', '{Acme,Apex,Abc}');
RESET ROLE;

SET client_min_messages = warning;
DELETE FROM clarify.entities;
DROP FUNCTION public.look(text, text, text[]);
DROP FUNCTION public.paths(text, text[]);
DROP FUNCTION public.probe_lookups(text, text[]);
DROP SCHEMA probe CASCADE;
RESET client_min_messages;
