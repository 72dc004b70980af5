# shellcheck shell=bash
# Minimal TAP for the shell tests: plan N, then ok/not ok lines with the failing detail.
_tap_n=0
_tap_failed=0
plan() { echo "1..$1"; }
pass() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1"; }
fail() {
    _tap_n=$((_tap_n + 1)) _tap_failed=$((_tap_failed + 1))
    echo "not ok $_tap_n - $1"
    [[ -n ${2:-} ]] && printf '%s\n' "$2" | sed 's/^/# /' >&2
    return 0
}
# check NAME CONDITION-COMMAND... : ok when the command succeeds.
check() {
    local name=$1
    shift
    if "$@"; then pass "$name"; else fail "$name"; fi
}
# contains NAME HAYSTACK NEEDLE
contains() {
    if [[ $2 == *"$3"* ]]; then pass "$1"; else fail "$1" "expected to find: $3"$'\n'"in: $2"; fi
}
equals() {
    if [[ $2 == "$3" ]]; then pass "$1"; else fail "$1" "expected: $3"$'\n'"got:      $2"; fi
}
finish() { exit $((_tap_failed > 0)); }

PG_BINDIR=${PG_BINDIR:-/usr/lib/postgresql/15/bin}
# Run a command as the OS user that owns test clusters (initdb refuses root).
as_cluster_owner() {
    if [[ $(id -u) -eq 0 ]]; then (cd / && runuser -u postgres -- "$@"); else (cd / && "$@"); fi
}
