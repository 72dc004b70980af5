#!/usr/bin/env bash
# The gate never runs half-installed: without shared_preload_libraries, loading the library and
# CREATE EXTENSION fail with a clear error whose hint names shared_preload_libraries.
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
plan 5

start_test_cluster loading 55439
check "a cluster without the preload starts" "$PG_BINDIR/pg_isready" -q -h "$dir" -p "$port"

psql_here() { "$PG_BINDIR/psql" -X -h "$dir" -p "$port" -U postgres -d postgres "$@" 2>&1; }
out=$(psql_here -c 'CREATE EXTENSION pg_clarify')
contains "CREATE EXTENSION fails without the preload" "$out" \
    'ERROR:  pg_clarify must be loaded through shared_preload_libraries'
contains "its hint names shared_preload_libraries" "$out" \
    'HINT:  Add pg_clarify to shared_preload_libraries'
out=$(psql_here -c "LOAD 'pg_clarify'")
contains "LOAD fails the same way" "$out" 'must be loaded through shared_preload_libraries'
out=$(psql_here -Atc "SELECT count(*) FROM pg_extension WHERE extname = 'pg_clarify'")
equals "nothing was installed" "$out" "0"
finish
