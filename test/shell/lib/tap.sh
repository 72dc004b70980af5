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
# skip NAME REASON: a test that does not apply here, counted as passed.
skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1 # skip $2"; }
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


# Clusters and psql helpers (test/shell/lib/cluster.sh), the shared fixtures (fixtures.sh).
# shellcheck source=SCRIPTDIR/cluster.sh
source "$(dirname "${BASH_SOURCE[0]}")/cluster.sh"
# shellcheck source=SCRIPTDIR/fixtures.sh
source "$(dirname "${BASH_SOURCE[0]}")/fixtures.sh"
