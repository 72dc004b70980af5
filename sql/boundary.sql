-- Errors cross the C++/PostgreSQL boundary in both directions with their SQLSTATE kept, and
-- the server keeps running (a crash would end this session and fail the whole schedule).
\set VERBOSITY sqlstate
-- PostgreSQL ERRORs raised inside guarded C++ (planning in check()) come back unchanged.
SELECT clarify.check('SELECT * FROM no_such_table');
SELECT clarify.check('SELEC 1');
SELECT clarify.check('SELECT 1; SELECT 2');
-- C++ exceptions become PostgreSQL ERRORs with the SQLSTATE the C++ side chose.
SET pg_clarify.resolution = '[1, 2]';
SELECT clarify.resolve(NULL);
SELECT clarify_internal.catalog_changed();
\set VERBOSITY default
-- Caught in PL/pgSQL subtransactions, by SQLSTATE, again and again: no leak, no crash.
DO $$
DECLARE
  caught int := 0;
BEGIN
  FOR i IN 1..300 LOOP
    BEGIN
      PERFORM clarify.check('SELECT * FROM no_such_table');
    EXCEPTION WHEN undefined_table THEN caught := caught + 1;
    END;
    BEGIN
      PERFORM set_config('pg_clarify.resolution', '{"bindings": 1}', false);
    EXCEPTION WHEN invalid_parameter_value THEN caught := caught + 1;
    END;
    BEGIN
      PERFORM clarify.resolve(NULL);
    EXCEPTION WHEN null_value_not_allowed THEN caught := caught + 1;
    END;
  END LOOP;
  RAISE NOTICE 'caught % errors', caught;
END $$;
SELECT 1 AS server_still_running;
