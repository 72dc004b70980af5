#!/usr/bin/env bash
# Errors crossing the C++/PostgreSQL boundary never crash a backend. After the pgTAP, pytest and
# node runs on scripts/test's shared cluster, drive errors through both directions once more, then
# read that cluster's server log (CLARIFY_SERVER_LOG): no backend killed by a signal, no crash
# recovery. The other shell tests own their clusters; test/shell/lib/cluster.sh reads each one's
# log the same way when it stops it.
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
log=${CLARIFY_SERVER_LOG:-}
plan 5
q() { "$PG_BINDIR/psql" -X -qAt -d postgres "$@" 2>&1; }
q -c 'CREATE DATABASE clarify_crash_free' >/dev/null
out=$("$PG_BINDIR/psql" -X -qAt -d clarify_crash_free 2>&1 <<'SQL'
CREATE EXTENSION pg_clarify;
DO $$
BEGIN
  FOR i IN 1..200 LOOP
    BEGIN PERFORM clarify.check('SELECT * FROM no_such_table'); EXCEPTION WHEN undefined_table THEN NULL; END;
    BEGIN PERFORM set_config('pg_clarify.resolution', '{"bindings": [1]}', false); EXCEPTION WHEN invalid_parameter_value THEN NULL; END;
    BEGIN PERFORM clarify.resolve(NULL); EXCEPTION WHEN null_value_not_allowed THEN NULL; END;
  END LOOP;
END $$;
SELECT 'alive';
SQL
)
contains "200 rounds of boundary errors leave the session alive" "$out" "alive"
# C++ exceptions thrown inside pg_guard and cpp_entry bodies (the test-only probe of
# src/pg/boundary_probe.cpp), each followed by a PostgreSQL ERROR in the same backend.
out=$("$PG_BINDIR/psql" -X -qAt -d clarify_crash_free 2>&1 <<'SQL'
CREATE FUNCTION clarify_debug_throw_in_guard(kind text) RETURNS text
    AS 'pg_clarify', 'clarify_debug_throw_in_guard' LANGUAGE C;
DO $$
BEGIN
  FOR i IN 1..200 LOOP
    BEGIN PERFORM clarify_debug_throw_in_guard('runtime_error'); EXCEPTION WHEN internal_error THEN NULL; END;
    BEGIN PERFORM 1/0; EXCEPTION WHEN division_by_zero THEN NULL; END;
    BEGIN PERFORM clarify_debug_throw_in_guard('allocation'); EXCEPTION WHEN out_of_memory THEN NULL; END;
    BEGIN PERFORM clarify_debug_throw_in_guard('entry'); EXCEPTION WHEN internal_error THEN NULL; END;
    BEGIN PERFORM 1/0; EXCEPTION WHEN division_by_zero THEN NULL; END;
  END LOOP;
END $$;
SELECT clarify_debug_throw_in_guard('bad_alloc');
SELECT 1/0;
SELECT 'alive';
SQL
)
contains "C++ exceptions thrown inside pg_guard, then ERRORs, leave the session alive" "$out" "alive"
q -c 'DROP DATABASE clarify_crash_free' >/dev/null
if [[ -s $log ]]; then pass "server log $log exists"; else fail "server log $log exists"; fi
crashes=$(grep -E 'terminated by signal|terminating any other active server processes|all server processes terminated' "$log" 2>/dev/null)
if [[ -z $crashes ]]; then pass "no backend was killed by a signal"; else fail "no backend was killed by a signal" "$crashes"; fi
recoveries=$(grep -E 'database system was not properly shut down|automatic recovery' "$log" 2>/dev/null)
if [[ -z $recoveries ]]; then pass "no crash recovery happened"; else fail "no crash recovery happened" "$recoveries"; fi
finish
