#!/usr/bin/env bash
# The README's demo runs to the end without a terminal and shows the conversation: the three
# revenue options, the QC001, QC002 and QC004 moments, the period asked as a calendar or fiscal
# quarter (each window with its range), a synonym that does not settle the word the user said, a
# low-impact meaning assumed with its WARNING, the QC006 moment, which "active customer"
# (a segment: asked, chosen, applied), and the audit trail.
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
repo=$(cd "$(dirname "$0")/../.." && pwd)
plan 37
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
contains "each period option shows its range, the last day included" "$out" \
    "2. Fiscal Q3 2026 - August to October 2026 (1 Aug – 31 Oct 2026)"
contains "the chat UI shows which of the user's words the question is about" "$out" \
    'This is about "revenue", a word of your question (it also mentions "last quarter").'
contains "with the synonym 'bookings', \"What is our revenue?\" is still asked about revenue" "$out" \
    'asked about "revenue", the word the user said: the synonym does not settle it'
contains "\"What are our bookings?\" runs through the synonym" "$out" \
    '(Booked revenue, through the term "bookings", source only_eligible)'
contains "a default is replayed before it is added" "$out" "clarify.replay() runs and audits nothing"
contains "the replay shows a refused question that the default would turn into a mismatch" "$out" \
    "AMBIGUOUS | MISMATCH"
contains "a period other than the one chosen is refused with QC003" "$out" "SQLSTATE QC003 MISMATCH"
contains "the chosen window's days bound the statement, said as days" "$out" \
    "-> allowed for 1 Aug – 31 Oct 2026:"
contains "the low-impact channel is assumed with a WARNING" "$out" 'WARNING: pg_clarify assumed Billing channel for "channel"'
contains "the fan-out join is refused with QC006" "$out" "SQLSTATE QC006 GRAIN"
contains "the rewritten query answers" "$out" "-> allowed: 31650.00 (Booked revenue, each order counted once)"
contains "the audit trail is shown" "$out" "q_1046   | rejected | UNVERIFIED"
contains "examples/eval_cases.sql is scored: every ambiguous case is asked" "$out" \
    " clarification_recall         | 1.0000 |     2"
contains "and every resolved case with rows answers them" "$out" \
    " business_correct_answer_rate | 1.0000 |     2"
contains "the demo ends with the report's path" "$out" "report: $repo/build/demo/report.html"
contains "\"revenue for Acme\" asks which Customer" "$out" \
    'Which Customer do you mean by "Acme Corp"?'
contains "the two Acme Corps are told apart by city" "$out" "2. Acme Corp (Paris)"
contains "the re-run by key answers" "$out" "-> allowed by key:"
contains "\"How many active customers?\" asks which active customer, in business words" "$out" \
    "1. Holds an active contract - A signed contract that has not ended"
asked=$(printf '%s\n' "$out" | sed -n '/which active customer$/,/app: the user means/p')
check "the user is shown no predicate" test -n "$asked" -a "${asked/current_date/}" = "$asked"
contains "the user's choice is recorded" "$out" \
    "app: the user means Purchased in the last 30 days; the agent binds it"
contains "the agent's SQL applies the chosen segment" "$out" \
    "agent SQL:    SELECT count(*) FROM sales.customers WHERE last_order_at >= current_date - 30"
contains "and runs, audited as the user's choice" "$out" \
    "-> allowed: 2 active customers (Purchased in the last 30 days, confirmed by the user; audit source user_confirmation)"

# DEMO_PORT and --keep: the cluster stays up on that port, with the lines to connect and stop.
out=$(cd "$repo" && DEMO_PORT=55463 ./scripts/demo --keep </dev/null 2>&1)
check "DEMO_PORT=55463 ./scripts/demo --keep exits 0" test $? -eq 0
connect=$(printf '%s\n' "$out" | sed -n 's/^  connect:  //p' | sed 's/ *(or .*//')
stop=$(printf '%s\n' "$out" | sed -n 's/^  stop:     //p')
contains "--keep says how to connect, on the port asked for" "$connect" "-p 55463 -U postgres demo"
equals "the kept cluster answers on that line" "$($connect -XAtc "SELECT count(*) > 0 FROM clarify.audit" 2>&1)" "t"
$stop >/dev/null 2>&1
check "the line it gives stops it" test ! -f "$repo/.demo/data/postmaster.pid"
out=$(cd "$repo" && DEMO_PORT=abc ./scripts/demo </dev/null 2>&1)
contains "a DEMO_PORT that is no port number is refused with why" "$out" "DEMO_PORT must be a port number from 1024 to 65535, not 'abc'"
# At a terminal, an answer that is not one of the choices is refused with why, and asked again.
out=$(cd "$repo/examples" && "${PYTHON:-/usr/bin/python3}" -c '
import builtins, sys
import demo
answers = iter(["x", "9", "2"])
builtins.input = lambda prompt="": next(answers)
sys.stdin.isatty = lambda: True
choice = {"question": "Which revenue?", "header": "Revenue", "options": [
    {"label": "Booked", "description": "d1", "value": "a"},
    {"label": "Invoiced", "description": "d2", "value": "b"}]}
print("picked", demo.pick(choice)["value"])' 2>&1)
contains "an interactive answer that is no choice says why" "$out" "'x' is not one of the choices: type a number from 1 to 2 and press Enter."
finish
