#!/usr/bin/env bash
# The README's demo runs to the end without a terminal and shows the conversation: the three
# revenue options, the QC001, QC002 and QC004 moments, the period asked as a calendar or fiscal
# quarter, a low-impact meaning assumed with its WARNING, the QC006 moment, and the audit trail.
set -uo pipefail
source "$(dirname "$0")/tap.sh"
repo=$(cd "$(dirname "$0")/../.." && pwd)
plan 13
out=$(cd "$repo" && ./scripts/demo </dev/null 2>&1)
rc=$?
check "./scripts/demo </dev/null exits 0" test "$rc" -eq 0
[[ $rc -eq 0 ]] || printf '%s\n' "$out" | tail -n 30 | sed 's/^/# /' >&2
contains "it offers Booked revenue" "$out" "1. Booked revenue - Value of accepted orders"
contains "it offers Invoiced revenue" "$out" "2. Invoiced revenue - Amounts billed to customers"
contains "it offers Recognized revenue" "$out" "3. Recognized revenue - Revenue recognized under the accounting standard"
contains "the ambiguous question is refused with QC001" "$out" "SQLSTATE QC001 AMBIGUOUS"
contains "the dead default is refused with QC002" "$out" "SQLSTATE QC002 UNSUPPORTED"
contains "the forged confirmation is refused with QC004" "$out" "SQLSTATE QC004 UNVERIFIED"
contains "the period is asked as calendar or fiscal quarter" "$out" "1. Calendar Q3 2026 - July to September 2026"
contains "a period other than the one chosen is refused with QC003" "$out" "SQLSTATE QC003 MISMATCH"
contains "the low-impact channel is assumed with a WARNING" "$out" 'WARNING: pg_clarify assumed Billing channel for "channel"'
contains "the fan-out join is refused with QC006" "$out" "SQLSTATE QC006 GRAIN"
contains "the rewritten query answers" "$out" "-> allowed: 31650.00 (Booked revenue, each order counted once)"
contains "the audit trail is shown" "$out" "q_1046   | rejected | UNVERIFIED"
finish
