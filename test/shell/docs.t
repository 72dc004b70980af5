#!/usr/bin/env bash
# The manual cannot rot: every ```sql and ```sh snippet of docs/*.md is run, in order, one fresh
# database per document. A SQL snippet whose first line is "-- expect: SQLSTATE" must fail with
# that SQLSTATE; every other snippet must succeed. On a cluster of its own (the documents create
# and drop roles).
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/pg_clarify_docs.XXXXXX)
on_exit "rm -rf '$work'"
start_own_cluster docs 55451

# Split each document into numbered snippets: $work/<doc>/<n>.<sql|sh>
total=0
for doc in "$repo"/docs/*.md; do
    name=$(basename "$doc" .md)
    mkdir -p "$work/$name"
    awk -v dir="$work/$name" '
        /^```(sql|sh)[[:space:]]*$/ { n++; kind = substr($0, 4); gsub(/[[:space:]]/, "", kind);
                                      file = sprintf("%s/%03d.%s", dir, n, kind); inside = 1; next }
        /^```/ && inside { inside = 0; close(file); next }
        inside { print > file }
    ' "$doc"
    total=$((total + $(ls "$work/$name" | wc -l)))
done
plan "$total"

roles_of() { grep -hoiE 'CREATE ROLE [a-z_0-9]+' "$@" 2>/dev/null | awk '{print $3}' | sort -u; }
drop_roles() {
    local r
    for r in $(roles_of "$work"/*/*.sql); do
        "$PG_BINDIR/psql" -X -qAt -d postgres -c "DROP ROLE IF EXISTS $r" >/dev/null 2>&1
    done
}

for dir in "$work"/*/; do
    name=$(basename "$dir")
    db="clarify_docs_${name//-/_}"
    "$PG_BINDIR/dropdb" --force --if-exists "$db" >/dev/null 2>&1
    drop_roles
    "$PG_BINDIR/createdb" "$db"
    # All SQL snippets of a document run in one session, so SET ROLE and settings carry over.
    script=$work/$name.script
    { echo '\set VERBOSITY verbose'; echo '\set SHOW_CONTEXT never'; } >"$script"
    for snippet in "$dir"*.sql; do
        [[ -e $snippet ]] || continue
        n=$(basename "$snippet" .sql)
        { echo "\\echo @@begin $n"; cat "$snippet"; echo; echo "\\echo @@end $n"; } >>"$script"
    done
    "$PG_BINDIR/psql" -X -q -d "$db" -f "$script" >"$work/$name.out" 2>&1
    for snippet in "$dir"*; do
        [[ -e $snippet ]] || continue  # a document without snippets
        n=$(basename "$snippet"); n=${n%.*}
        label="docs/$name.md snippet $((10#$n))"
        if [[ $snippet == *.sh ]]; then
            # As on a stock Debian machine: its python3 first (not a pyenv or venv one).
            if (cd "$repo" && PATH=/usr/bin:$PATH PGDATABASE=$db bash -e "$snippet") >"$work/sh.out" 2>&1; then
                pass "$label (shell) runs"
            else
                fail "$label (shell) runs" "$(tail -n 20 "$work/sh.out")"
            fi
            continue
        fi
        section=$(sed -n "/^@@begin $n\$/,/^@@end $n\$/p" "$work/$name.out")
        expect=$(sed -n '1s/^-- expect: *\([0-9A-Z]\{5\}\).*/\1/p' "$snippet")
        if [[ -n $expect ]]; then
            if grep -q "ERROR:  $expect:" <<<"$section"; then pass "$label fails with $expect as documented"; else
                fail "$label fails with $expect as documented" "$section"; fi
        elif grep -q "ERROR:" <<<"$section" || [[ -z $section ]]; then
            fail "$label runs without error" "$(cat "$snippet")"$'\n'"$section"
        else
            pass "$label runs without error"
        fi
    done
    "$PG_BINDIR/dropdb" --force --if-exists "$db" >/dev/null 2>&1
done
drop_roles
finish
