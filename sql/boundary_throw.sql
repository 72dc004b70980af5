-- A C++ exception thrown inside pg_guard or a cpp_entry body ends as a clean ERROR, and the
-- next ERROR of the same backend still finds a live frame to jump to (src/pg/boundary.hpp).
-- The probe is no part of the extension: only a superuser can bind it (src/pg/boundary_probe.cpp).
CREATE FUNCTION clarify_debug_throw_in_guard(kind text) RETURNS text
    AS 'pg_clarify', 'clarify_debug_throw_in_guard' LANGUAGE C;
-- pg_guard rethrows only after PostgreSQL's frame is gone, with the error state of its entry.
SELECT clarify_debug_throw_in_guard('caught');
-- Thrown inside pg_guard, raised by cpp_entry: no CONTEXT line of the gone frame.
SELECT clarify_debug_throw_in_guard('runtime_error');
SELECT 1/0;
SELECT clarify_debug_throw_in_guard('bad_alloc');
SELECT 1/0;
SELECT clarify_debug_throw_in_guard('allocation');
SELECT 1/0;
-- Thrown by a cpp_entry body that left its own error context pushed.
SELECT clarify_debug_throw_in_guard('entry');
SELECT 1/0;
-- Again and again, caught in PL/pgSQL subtransactions by SQLSTATE.
DO $$
DECLARE
  caught int := 0;
BEGIN
  FOR i IN 1..200 LOOP
    BEGIN
      PERFORM clarify_debug_throw_in_guard('runtime_error');
    EXCEPTION WHEN internal_error THEN caught := caught + 1;
    END;
    BEGIN
      PERFORM clarify_debug_throw_in_guard('bad_alloc');
    EXCEPTION WHEN out_of_memory THEN caught := caught + 1;
    END;
    BEGIN
      PERFORM 1/0;
    EXCEPTION WHEN division_by_zero THEN caught := caught + 1;
    END;
  END LOOP;
  RAISE NOTICE 'caught % errors', caught;
END $$;
-- Nobody else may run it, even when granted.
CREATE ROLE clarify_probe_user;
SET ROLE clarify_probe_user;
SELECT clarify_debug_throw_in_guard('runtime_error');
RESET ROLE;
DROP ROLE clarify_probe_user;
DROP FUNCTION clarify_debug_throw_in_guard(text);
-- The audit_conninfo check hook (the postmaster runs it too) copies libpq's message into a
-- plain buffer before PostgreSQL sees it: the detail is one line, whole.
ALTER SYSTEM SET pg_clarify.audit_conninfo = 'nokey';
SELECT 1 AS server_still_running;
