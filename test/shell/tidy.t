#!/usr/bin/env bash
# clang-tidy finds nothing in src/core and src/pg under the repository's .clang-tidy: the core as
# CMake builds it (build/compile_commands.json), the glue with the server's headers as PGXS does.
#
# A file clang-tidy found clean is remembered (CLARIFY_TIDY_CACHE_DIR) under a hash of everything
# its verdict depends on: the tool, every .clang-tidy, the arguments, and the path and contents of
# each file its translation unit reads (clang++ -M). A later run over the same inputs skips it; a
# file with findings is never remembered. CLARIFY_TIDY_CACHE=0 checks every file.
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
repo=$(cd "$(dirname "$0")/../.." && pwd)
plan 2
cd "$repo" || exit 1

if [[ -n ${CLARIFY_TIDY_CACHE_DIR:-} ]]; then
    cache=$CLARIFY_TIDY_CACHE_DIR
elif [[ -w /var/cache ]]; then
    cache=/var/cache/pg_clarify/tidy
else
    cache=${XDG_CACHE_HOME:-$HOME/.cache}/pg_clarify/tidy
fi
[[ ${CLARIFY_TIDY_CACHE:-1} == 0 ]] && cache=
[[ -z $cache ]] || mkdir -p "$cache" 2>/dev/null || cache=

# compile_args FILE: the core's compile command for FILE in build/compile_commands.json, less the
# compiler, -o and -c, one argument a line.
compile_args() {
    python3 - "$repo/build/compile_commands.json" "$repo/$1" <<'EOF'
import json, shlex, sys
for entry in json.load(open(sys.argv[1])):
    if entry["file"] == sys.argv[2]:
        args, out = shlex.split(entry["command"])[1:], []
        skip = False
        for a in args:
            if skip: skip = False; continue
            if a == "-o": skip = True; continue
            if a in ("-c", entry["file"]): continue
            out.append(a)
        print("\n".join(out))
EOF
}

# tidy_key KIND FILE: the cache key of FILE (KIND core or glue): what the verdict depends on, with
# this tree's path left out so that another clone of the same sources finds it.
tidy_key() {
    local kind=$1 f=$2 args=() deps
    if [[ $kind == core ]]; then mapfile -t args < <(compile_args "$f"); else read -r -a args <<<"$GLUE_FLAGS"; fi
    ((${#args[@]})) || return 1
    # No key without the full list of what the file reads.
    deps=$(clang++ -M "${args[@]}" "$f" -o - 2>/dev/null) || return 1
    deps=$(sed 's/^[^:]*://; s/\\$//' <<<"$deps" | tr ' ' '\n' | sed '/^$/d' | sort -u)
    [[ -n $deps ]] || return 1
    deps=$(xargs sha256sum <<<"$deps") || return 1
    printf '%s\n' "$TIDY_TOOL_KEY" "$kind $f $TIDY_NEWER ${args[*]}" "$deps" |
        sed "s|$repo/||g" | sha256sum | cut -d' ' -f1
}

# tidy_one KIND FILE [CLANG-TIDY ARGS AFTER THE FILE...]: prints clang-tidy's findings in FILE.
tidy_one() {
    local kind=$1 f=$2 key='' out rc=0
    shift 2
    if [[ -n $TIDY_CACHE ]] && key=$(tidy_key "$kind" "$f") && [[ -e $TIDY_CACHE/$key ]]; then
        echo "cached: $f"
        return 0
    fi
    out=$(clang-tidy --quiet "$f" "$@" 2>&1) || rc=$?
    if grep -E '(warning|error):' <<<"$out"; then return 0; fi
    if ((rc == 0)) && [[ -n $key ]]; then touch "$TIDY_CACHE/$key"; fi
}
export -f compile_args tidy_key tidy_one
export repo

# findings KIND FILES... -- CLANG-TIDY ARGS AFTER THE FILE...: two files at a time; prints what it
# found, and how many files came from the cache.
findings() {
    local kind=$1 files=() out
    shift
    while [[ $1 != -- ]]; do files+=("$1"); shift; done
    shift
    out=$(printf '%s\0' "${files[@]}" |
        xargs -0 -P 2 -I{} bash -c 'tidy_one "$@"' _ "$kind" {} "$@")
    grep -E '(warning|error):' <<<"$out" || true
    echo "# $kind: ${#files[@]} files, $(grep -c '^cached: ' <<<"$out") of them clean in the cache" >&2
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
tool=$(command -v clang-tidy)
TIDY_TOOL_KEY=$(
    clang-tidy --version
    ls -lL "$tool"
    find . \( -path ./.git -o -path './build*' -o -name node_modules \) -prune -o \
        -name .clang-tidy -print | sort | xargs sha256sum
)
TIDY_NEWER="${newer[*]}" TIDY_CACHE=$cache
export TIDY_TOOL_KEY TIDY_NEWER TIDY_CACHE

# cache_probe: the cache checked on a scratch tree: a clean file is remembered and found again,
# and once a finding is added to the header it includes, that finding is reported.
cache_probe() {
    local dir rc=1
    dir=$(mktemp -d)
    mkdir -p "$dir/src/core" "$dir/cache"
    cp .clang-tidy "$dir/"
    echo '#include "core/probe.hpp"' >"$dir/src/core/probe.cpp"
    echo 'inline int *probe() { return nullptr; }' >"$dir/src/core/probe.hpp"
    (
        cd "$dir" || exit 1
        export repo=$dir TIDY_CACHE=$dir/cache GLUE_FLAGS="-std=c++17 -Isrc" TIDY_NEWER=
        # shellcheck disable=SC2086
        probe() { tidy_one glue src/core/probe.cpp -- $GLUE_FLAGS; }
        [[ -z $(probe) && $(probe) == "cached: src/core/probe.cpp" ]] || exit 1
        echo 'inline int *probe() { return 0; }' >src/core/probe.hpp
        probe | grep -q 'modernize-use-nullptr'
    ) && rc=0
    rm -rf "$dir"
    return "$rc"
}
if [[ -n $TIDY_CACHE ]] && ! cache_probe; then
    echo "# the cache of clean files failed its own check: every file is checked" >&2
    TIDY_CACHE=
fi
# The core is version-independent: scripts/test builds it (build/) in the 15 run only.
if [[ -n ${CLARIFY_IN_CHROOT:-} ]]; then
    skip "clang-tidy finds nothing in src/core" "the core is checked by the PostgreSQL 15 run"
elif [[ -f build/compile_commands.json ]]; then
    found=$(findings core src/core/*/*.cpp -- "${newer[@]}" -p build)
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
GLUE_FLAGS="-std=c++17 -Isrc -I$server_includes -I$client_includes -D_GNU_SOURCE -Wno-register"
export GLUE_FLAGS
# shellcheck disable=SC2086
found=$(findings glue "${glue[@]}" -- "${newer[@]}" -- $GLUE_FLAGS)
if [[ -z $found ]]; then pass "clang-tidy finds nothing in $what"; else
    fail "clang-tidy finds nothing in $what" "$(head -n 20 <<<"$found")"; fi
finish
