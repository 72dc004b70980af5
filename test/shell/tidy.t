#!/usr/bin/env bash
# clang-tidy finds nothing in src/core and src/pg under the repository's .clang-tidy: the core as
# CMake builds it (build/compile_commands.json), the glue with the server's headers as PGXS does.
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
repo=$(cd "$(dirname "$0")/../.." && pwd)
plan 2
cd "$repo" || exit 1

# findings FILES... -- CLANG-TIDY ARGS AFTER THE FILE...: two files at a time; prints what it found.
findings() {
    local files=()
    while [[ $1 != -- ]]; do files+=("$1"); shift; done
    shift
    printf '%s\0' "${files[@]}" | xargs -0 -P 2 -I{} clang-tidy --quiet {} "$@" 2>&1 |
        grep -E '(warning|error):' || true
}

if ! command -v clang-tidy >/dev/null; then
    fail "clang-tidy finds nothing in src/core" "clang-tidy is not installed"
    fail "clang-tidy finds nothing in src/pg" "clang-tidy is not installed"
    finish
fi
# The rule set is written for Debian 12's clang-tidy; the newer ones of the 17 and 18 chroots add
# checks to its globs (enum sizes, assignments in conditions, optional access), left off there so
# the same rules run against those servers' headers.
newer=()
if [[ -n ${CLARIFY_IN_CHROOT:-} ]]; then
    newer=(--checks=-performance-enum-size,-bugprone-assignment-in-if-condition,-bugprone-unchecked-optional-access)
fi
# The core is version-independent: scripts/test builds it (build/) in the 15 run only.
if [[ -n ${CLARIFY_IN_CHROOT:-} ]]; then
    skip "clang-tidy finds nothing in src/core" "the core is checked by the PostgreSQL 15 run"
elif [[ -f build/compile_commands.json ]]; then
    found=$(findings src/core/*/*.cpp -- "${newer[@]}" -p build)
    if [[ -z $found ]]; then pass "clang-tidy finds nothing in src/core"; else
        fail "clang-tidy finds nothing in src/core" "$(head -n 20 <<<"$found")"; fi
else
    fail "clang-tidy finds nothing in src/core" "no build/compile_commands.json (cmake -B build)"
fi
server_includes=$("$PG_BINDIR/pg_config" --includedir-server)
# libpq-fe.h, for the standby's forwarding (src/pg/replica/forward.cpp).
client_includes=$("$PG_BINDIR/pg_config" --includedir)
# The glue on 15 (Debian 12's clang-tidy) and on 18 (the newest clang-tidy, with the most checks);
# on 17 only the files whose code differs by server version (PG_VERSION_NUM: the compat layer),
# since every other file compiles to the same code against 17's headers as against 18's.
glue=(src/pg/*.cpp src/pg/*/*.cpp src/pg/*/*/*.cpp)
what="src/pg"
if [[ ${CLARIFY_IN_CHROOT:-} == 17 ]]; then
    mapfile -t glue < <(grep -l PG_VERSION_NUM "${glue[@]}" src/pg/*.hpp |
        sed 's/\.hpp$/.cpp/' | sort -u)
    what="src/pg's version-dependent files (${glue[*]})"
fi
found=$(findings "${glue[@]}" -- "${newer[@]}" -- -std=c++17 -Isrc -I"$server_includes" \
    -I"$client_includes" -D_GNU_SOURCE -Wno-register)
if [[ -z $found ]]; then pass "clang-tidy finds nothing in $what"; else
    fail "clang-tidy finds nothing in $what" "$(head -n 20 <<<"$found")"; fi
finish
