#!/usr/bin/env bash
# The C++ follows the repository's .clang-format, and the extension and the core build without a
# single compiler warning under -Wall -Wextra (read from the build logs of this test run).
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
repo=$(cd "$(dirname "$0")/../.." && pwd)
plan 3
cd "$repo" || exit 1
# Each clang-format release lays code out a little differently: the layout is checked with the
# project's, Debian 12's, in the PostgreSQL 15 run; the 17 and 18 chroots check the builds only.
if [[ -n ${CLARIFY_IN_CHROOT:-} ]]; then
    skip "src/, test/unit/ and test/fuzz/ are clang-formatted" \
        "layout is checked by the PostgreSQL 15 run's clang-format"
elif ! command -v clang-format >/dev/null; then
    fail "clang-format is installed"
else
    out=$(clang-format --dry-run src/core/*.hpp src/core/*/*.[ch]pp src/pg/*.[ch]pp src/pg/*/*.[ch]pp src/pg/*/*/*.[ch]pp \
        test/unit/*.cpp test/unit/*.hpp test/fuzz/*.cpp test/fuzz/*.hpp 2>&1)
    if [[ -z $out ]]; then pass "src/, test/unit/ and test/fuzz/ are clang-formatted"; else
        fail "src/, test/unit/ and test/fuzz/ are clang-formatted" "$(head -n 20 <<<"$out")"; fi
fi
logs=build/test-logs
warnings=$(grep -hE 'warning:' "$logs/extension-build.log" 2>/dev/null)
if [[ -s $logs/extension-build.log && -z $warnings ]]; then pass "the extension builds without warnings"; else
    fail "the extension builds without warnings" "${warnings:-no build log at $logs/extension-build.log}"; fi
# The core is version-independent: scripts/test builds it (and its tests) in the 15 run only.
warnings=$(grep -hE 'warning:' "$logs/core-build.log" 2>/dev/null)
if [[ -n ${CLARIFY_IN_CHROOT:-} ]]; then
    skip "the core and its tests build without warnings" "the core is built by the PostgreSQL 15 run"
elif [[ -s $logs/core-build.log && -z $warnings ]]; then pass "the core and its tests build without warnings"; else
    fail "the core and its tests build without warnings" "${warnings:-no build log at $logs/core-build.log}"; fi
finish
