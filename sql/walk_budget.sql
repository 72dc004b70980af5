-- The gate's plan walks are linear in the plan's size and honour cancels (docs/reference.md,
-- "Bounds of the gate's work"). A chain of CTEs, each the UNION ALL of four copies of the one
-- before, reaches its first link 4^N ways: walking each way again would never end.
SET client_min_messages = warning;
CREATE SCHEMA walk;
CREATE TABLE walk.orders (id int PRIMARY KEY, placed date, amount numeric);
CREATE TABLE walk.lines (id int PRIMARY KEY, order_id int, qty int);
INSERT INTO walk.orders SELECT g, date '2026-01-01' + g, 10 * g FROM generate_series(1, 8) g;
INSERT INTO walk.lines SELECT g, 1 + g % 8, g FROM generate_series(1, 16) g;
ANALYZE walk.orders, walk.lines;
GRANT USAGE ON SCHEMA walk TO PUBLIC;
GRANT SELECT ON ALL TABLES IN SCHEMA walk TO PUBLIC;
INSERT INTO clarify.concepts (id, kind, label, description, owner, status) VALUES
  ('metric.walk_amount', 'metric', 'Walk amount', 'Value of walk orders', 'Sales', 'approved');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name, time_column) VALUES
  ('metric.walk_amount', 'walk.orders', 'amount', 'placed');
INSERT INTO clarify.terms (term, concept_id) VALUES ('walk amount', 'metric.walk_amount');

-- WITH c0 AS (first), c1 AS (SELECT x FROM c0 UNION ALL ... 4 times), ..., cN ... `tail`, where
-- `tail` reads cN.
CREATE FUNCTION public.cte_chain(levels int, first text, tail text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  s text := 'WITH c0(x) AS (' || first || ')';
BEGIN
  FOR k IN 1..levels LOOP
    s := s || format(', c%s(x) AS (SELECT x FROM c%s UNION ALL SELECT x FROM c%s'
                     ' UNION ALL SELECT x FROM c%s UNION ALL SELECT x FROM c%s)',
                     k, k - 1, k - 1, k - 1, k - 1);
  END LOOP;
  RETURN s || ' ' || replace(tail, 'cN', 'c' || levels);
END $$;
GRANT EXECUTE ON FUNCTION public.cte_chain(int, text, text) TO PUBLIC;
-- The same with each link reading the one before four times in one expression.
CREATE FUNCTION public.cte_sum_chain(levels int, first text, tail text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  s text := 'WITH c0(x) AS (' || first || ')';
BEGIN
  FOR k IN 1..levels LOOP
    s := s || format(', c%s(x) AS MATERIALIZED (SELECT a.x + a.x + a.x + a.x FROM c%s a)', k, k - 1);
  END LOOP;
  RETURN s || ' ' || replace(tail, 'cN', 'c' || levels);
END $$;
GRANT EXECUTE ON FUNCTION public.cte_sum_chain(int, text, text) TO PUBLIC;
-- Each link joins two one-row reads of the one before: its column is reached 2^N ways, each along
-- different joins, so no trace is shared.
CREATE FUNCTION public.cte_pair_chain(levels int, tail text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  s text := 'WITH c0(x) AS (SELECT amount FROM walk.orders WHERE id < 0)';
BEGIN
  FOR k IN 1..levels LOOP
    s := s || format(', c%s(x) AS MATERIALIZED (SELECT a.x + b.x FROM (SELECT x FROM c%s LIMIT 1) a,'
                     ' (SELECT x FROM c%s LIMIT 1) b)', k, k - 1, k - 1);
  END LOOP;
  RETURN s || ' ' || replace(tail, 'cN', 'c' || levels);
END $$;
GRANT EXECUTE ON FUNCTION public.cte_pair_chain(int, text) TO PUBLIC;

CREATE TABLE public.walk_chains (n int PRIMARY KEY, expect text, shape text, first text, tail text);
GRANT SELECT ON public.walk_chains TO PUBLIC;
INSERT INTO public.walk_chains VALUES
 (1, 'GRAIN', 'the measure joined to the chain (the other side repeats)',
  'SELECT id FROM walk.orders WHERE id < 0', 'SELECT sum(o.amount) FROM walk.orders o JOIN cN ON cN.x = o.id'),
 (2, 'GRAIN', 'grouped by the chain''s column',
  'SELECT id FROM walk.orders WHERE id < 0', 'SELECT cN.x, sum(o.amount) FROM walk.orders o JOIN cN ON cN.x = o.id GROUP BY cN.x'),
 (3, 'GRAIN', 'the measure carried through the chain (UNION ALL repeats it)',
  'SELECT amount FROM walk.orders WHERE id < 0', 'SELECT sum(x) FROM cN'),
 (4, 'ok', 'the chain only filters the measure (semi-join)',
  'SELECT id FROM walk.orders WHERE id < 0', 'SELECT sum(o.amount) FROM walk.orders o WHERE o.id IN (SELECT x FROM cN)'),
 (5, 'ok', 'the measure carried through the chain, not aggregated',
  'SELECT amount FROM walk.orders WHERE id < 0', 'SELECT x FROM cN LIMIT 1'),
 (6, 'GRAIN', 'grouped by a column carried through the chain',
  'SELECT id FROM walk.orders WHERE id < 0', 'SELECT g, sum(o.amount) FROM walk.orders o JOIN (SELECT x g FROM cN) s ON s.g = o.id GROUP BY g'),
 (7, 'GRAIN', 'the chain handed to the measure by a nested loop',
  'SELECT id FROM walk.orders WHERE id < 0', 'SELECT sum(o.amount) FROM cN JOIN walk.orders o ON o.id = cN.x + 0');

-- 20 and 40 links: decided (by clarify.check() and by the gate) within the timeout: each walk takes
-- tens of milliseconds alone; an exponential walk would not end in hours. The margin is for a
-- loaded machine (three versions' suites at once on two CPUs).
SET ROLE regress_agent;
SET statement_timeout = '30s';
SELECT n, shape, expect, clarify.check(public.cte_chain(20, first, tail))->>'state' AS check_20,
       gate_state(public.cte_chain(20, first, tail)) AS gate_20
FROM public.walk_chains ORDER BY n;
SELECT n, clarify.check(public.cte_chain(40, first, tail))->>'state' AS check_40,
       gate_state(public.cte_chain(40, first, tail)) AS gate_40
FROM public.walk_chains ORDER BY n;
-- x + x + x + x of one row is no repeated row: summed, it is allowed.
SELECT levels, clarify.check(public.cte_sum_chain(levels, 'SELECT amount FROM walk.orders WHERE id < 0', 'SELECT sum(x) FROM cN'))->>'state' AS check,
       gate_state(public.cte_sum_chain(levels, 'SELECT amount FROM walk.orders WHERE id < 0', 'SELECT sum(x) FROM cN')) AS gate
FROM (VALUES (20), (40)) v(levels);
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT n, gate_state(public.cte_chain(40, first, tail)) AS nested_loops_40
FROM public.walk_chains ORDER BY n;
RESET ALL;
-- Past the bound of a trace (20000 steps per aggregate, 200000 per statement) the aggregate is
-- not proven: refused, never allowed. 10 links take about 8000 steps, 16 links 2^6 times more.
SELECT levels, aggregates, c->>'state' AS state, c #>> '{slots,0,via}' AS via
FROM (VALUES (10, 1), (16, 1), (10, 100)) v(levels, aggregates),
     LATERAL clarify.check(public.cte_pair_chain(levels, 'SELECT ' ||
       (SELECT string_agg('sum(x)', ', ') FROM generate_series(1, aggregates)) || ' FROM cN')) c;
RESET ROLE;

-- The agent's catalog loaded first, so that the 200 ms below are the walks' alone (under load the
-- load itself was seen taking longer, cancelled with its SPI query as CONTEXT).
SET ROLE regress_agent;
SELECT gate_state('SELECT amount FROM walk.orders WHERE id = 1') AS warm;
RESET ROLE;
-- A walk made slow on purpose (developer settings: superuser only, hidden) is cancelled by
-- statement_timeout, in each of the gate's walks. The chains above have no rows (c0 has none),
-- so what runs is the gate's work only.
SET ROLE regress_agent;
SET pg_clarify.debug_walk_delay = '1h';
SET pg_clarify.debug_walk = 'grain';
RESET ROLE;
SHOW pg_clarify.debug_walk_delay;
SELECT count(*) AS listed FROM pg_settings WHERE name LIKE 'pg_clarify.debug%';
SET pg_clarify.debug_walk_delay = '1h';
SET statement_timeout = '200ms';
SET pg_clarify.debug_walk = 'read_set';
SET ROLE regress_agent;
SELECT amount FROM walk.orders WHERE id = 1;
RESET ROLE;
SET pg_clarify.debug_walk = 'grain';
SET ROLE regress_agent;
SELECT sum(o.amount) FROM walk.orders o JOIN walk.lines l ON l.order_id = o.id;
SELECT clarify.check('SELECT sum(o.amount) FROM walk.orders o JOIN walk.lines l ON l.order_id = o.id')->>'state';
RESET ROLE;
SET pg_clarify.debug_walk = 'proof';
SET ROLE regress_agent;
SELECT sum(o.amount) FROM walk.orders o JOIN walk.lines l ON l.order_id = o.id;
RESET ROLE;
SET pg_clarify.debug_walk = 'time';
SET ROLE regress_agent;
SELECT sum(amount) FROM walk.orders WHERE placed >= date '2026-01-02';
-- Outside the walks the delay never applies: a statement reading nothing governed runs.
SELECT count(*) FROM walk.lines;
RESET ROLE;
RESET statement_timeout;
RESET pg_clarify.debug_walk_delay;
RESET pg_clarify.debug_walk;

-- pg_cancel_backend stops a walk too: a second session waits in the grain walk, and is cancelled.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dblink;
CREATE FUNCTION public.wait_in_walk(backend int) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..600 LOOP
    IF EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = backend AND wait_event_type = 'Extension')
    THEN RETURN true; END IF;
    PERFORM pg_sleep(0.1);
  END LOOP;
  RETURN false;
END $$;
SELECT dblink_connect('slow', public.conninfo());
SELECT dblink_exec('slow', 'SET pg_clarify.debug_walk_delay = ''1h''');
SELECT dblink_exec('slow', 'SET pg_clarify.debug_walk = ''grain''');
SELECT dblink_exec('slow', 'SET ROLE regress_agent');
SELECT pid AS slow_pid FROM dblink('slow', 'SELECT pg_backend_pid()') AS t(pid int) \gset
SELECT dblink_send_query('slow', 'SELECT sum(o.amount) FROM walk.orders o JOIN walk.lines l ON l.order_id = o.id');
SELECT public.wait_in_walk(:slow_pid) AS waiting, pg_cancel_backend(:slow_pid) AS cancelled;
SELECT count(*) AS rows FROM dblink_get_result('slow', false) AS t(s numeric);
SELECT dblink_error_message('slow');
SELECT dblink_disconnect('slow');
SET ROLE regress_agent;
SELECT gate_state('SELECT sum(o.amount) FROM walk.orders o JOIN walk.lines l ON l.order_id = o.id') AS after_reset;
RESET ROLE;
