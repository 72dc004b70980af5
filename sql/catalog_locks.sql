-- The catalog's loading (pg/catalog/catalog_load.cpp) keeps no lock after its queries: a gated
-- session's transaction holds only the locks its own statements took. PostgreSQL never shrinks a
-- backend's local lock table, and scans all of it at every transaction's end, so locks kept by the
-- first transaction's load would cost every later transaction of the session.
\c - regress_agent
BEGIN;
-- The session's first statement: the roles and the catalog are loaded for it.
SELECT count(*) FROM sales.orders;
-- Relations locked outside pg_catalog: only the statement's table and its index.
SELECT n.nspname, c.relname
  FROM pg_locks l JOIN pg_class c ON c.oid = l.relation JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE l.pid = pg_backend_pid() AND l.locktype = 'relation' AND n.nspname <> 'pg_catalog'
 ORDER BY 1, 2;
-- In pg_catalog: only what this query itself reads (pg_locks, pg_class, pg_namespace, their indexes).
SELECT c.relname
  FROM pg_locks l JOIN pg_class c ON c.oid = l.relation JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE l.pid = pg_backend_pid() AND l.locktype = 'relation' AND n.nspname = 'pg_catalog'
   AND c.relname NOT LIKE 'pg\_class%' AND c.relname NOT LIKE 'pg\_namespace%'
   AND c.relname <> 'pg_locks'
 ORDER BY 1;
COMMIT;
-- The catalog loaded so still decides: booked_amount's term has three meanings and no default.
SELECT public.gate_state('SELECT sum(booked_amount) FROM sales.orders') AS booked;
SELECT public.gate_state('SELECT count(*) FROM sales.orders') AS not_governed;
