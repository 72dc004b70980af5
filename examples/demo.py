"""The clarification conversation, end to end, as a chat app and its Text-to-SQL agent live it.

Run by ./scripts/demo against a throwaway cluster loaded with examples/revenue.sql (connection
from PGHOST/PGPORT/PGDATABASE). Deterministic; interactive only when stdin is a terminal.
"""
import json
import os
import sys
from datetime import datetime

import psycopg

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "clients", "python"))
from pg_clarify_client import (  # noqa: E402
    Binding, ClarificationRequired, GateError, GatedSession, GrainViolation, ResolutionRecord,
    as_choice_question, confirm, describe_range)
from pg_clarify_client.ranges import zone_of  # noqa: E402

# What the agent knows about the schema: which column carries which meaning.
COLUMN_OF = {
    "metric.booked_revenue": ("sales.orders", "booked_amount", "order_date"),
    "metric.invoiced_revenue": ("sales.invoices", "invoiced_amount", "invoice_date"),
    "metric.recognized_revenue": ("sales.revenue_ledger", "recognized_amount", "period_start"),
}
LAST_QUARTER = ("2026-07-01", "2026-10-01")  # the demo's "last quarter": Q3 2026


def say(text=""):
    print(text, flush=True)


def section(title):
    say()
    say("=" * 100)
    say(title)
    say("=" * 100)


def table(cursor_rows, headers):
    rows = [["" if v is None else str(v) for v in row] for row in cursor_rows]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    say("  " + " | ".join(h.ljust(w) for h, w in zip(headers, widths)))
    say("  " + "-+-".join("-" * w for w in widths))
    for r in rows:
        say("  " + " | ".join(v.ljust(w) for v, w in zip(r, widths)))
    say(f"  ({len(rows)} rows)")


def revenue_sql(concept):
    relation, column, date_column = COLUMN_OF[concept]
    return (f"SELECT sum({column}) FROM {relation} WHERE customer_country = %s "
            f"AND {date_column} >= %s AND {date_column} < %s")


def ask_agent(agent, record, concept, country):
    """The agent attaches its record and runs its SQL; the gate decides."""
    agent.attach(record)
    sql = revenue_sql(concept)
    say(f"  agent record: {record.to_json()}")
    say(f"  agent SQL:    {sql % (repr(country), repr(LAST_QUARTER[0]), repr(LAST_QUARTER[1]))}")
    return agent.run(sql, (country, *LAST_QUARTER))


def window_days(period, time_zone):
    """A window's half-open (start, end) instants as the dates that bound a date column: their
    days in the session's zone (the demo's windows have no zone of their own)."""
    zone = zone_of(time_zone)
    return tuple(datetime.fromisoformat(side.replace("Z", "+00:00")).astimezone(zone).date()
                 .isoformat() for side in period)


def show_rejection(error):
    say(f"  -> rejected: SQLSTATE {error.sqlstate} {error.state}")
    say(f"     message: {error.message}")
    say(f"     hint:    {error.hint}")


def pick(choice):
    """The user answers the chat UI's question; scripted when nobody is at the terminal."""
    say("  The chat UI shows:")
    say("    " + choice["question"])
    if choice.get("about"):
        say("    " + choice["about"])  # which of the user's words this is about
    for n, option in enumerate(choice["options"], 1):
        described = f" - {option['description']}" if option.get("description") else ""
        say(f"      {n}. {option['label']}{described}")
    if sys.stdin.isatty():
        while True:
            answer = input(f"  Your choice [1-{len(choice['options'])}]: ").strip()
            if answer.isdigit() and 1 <= int(answer) <= len(choice["options"]):
                return choice["options"][int(answer) - 1]
            say(f"  '{answer}' is not one of the choices: type a number from 1 to "
                f"{len(choice['options'])} and press Enter.")
    if choice.get("entity"):  # which "Acme": the first one listed
        option = choice["options"][0]
        say(f"  (stdin is not a terminal: the demo answers for the user: {option['label']})")
        return option
    # A period's slot names the user's term ("last quarter"), so tell it by its options.
    period = any(o["value"].startswith("window.") for o in choice["options"])
    wanted = "window.fiscal_q3_2026" if period else "metric.recognized_revenue"
    if any(o["value"].startswith("segment.") for o in choice["options"]):
        wanted = "segment.purchased_30d"
    option = next(o for o in choice["options"] if o["value"] == wanted)
    say(f"  (stdin is not a terminal: the demo answers for the user: {option['label']})")
    return option


def active_customers(agent, app):
    """Section 11: a scope is a filter (a segment); the user's choice decides which one runs."""
    section('11. "How many active customers do we have?" -- which active customer')
    question = "How many active customers do we have?"
    record = ResolutionRecord("q_1051", question)
    agent.attach(record)
    count = "SELECT count(*) FROM sales.customers"
    say(f"  agent SQL:    {count}")
    try:
        agent.run(count)
        raise SystemExit("the gate counted customers without asking which active ones")
    except ClarificationRequired as ask:
        show_rejection(ask)
        option = pick(as_choice_question(ask))
    confirm(app, "q_1051", "active customers", option["value"], granted_to="agent",
            confirmed_by="user:alice@example.com", question=question)
    say(f"  app: the user means {option['label']}; the agent binds it and runs its SQL again:")
    agent.attach(record.with_binding(Binding("active customers", option["value"],
                                             "user_confirmation")))
    try:
        agent.run(count)
        raise SystemExit("the gate counted every customer as active")
    except GateError as refused:
        show_rejection(refused)
        where = refused.slots[0].expected
        say(f"     the filter to apply (for the agent, never shown to the user): {where}")
    applied = f"{count} WHERE {where}"
    say(f"  agent SQL:    {applied}")
    rows = agent.run(applied)
    binding = next(b for b in agent.last_decision()["bindings"] if b["concept"] == option["value"])
    say(f"  -> allowed: {rows[0][0]} active customers ({option['label']}, confirmed by the user; "
        f"audit source {binding['source']})")


def main():
    agent = GatedSession(psycopg.connect(user="agent", autocommit=True))
    app = psycopg.connect(user="app", autocommit=True)
    dba = psycopg.connect(user="dba", autocommit=True)
    owner = psycopg.connect(user="postgres", autocommit=True)
    demo_started = owner.execute("SELECT now()").fetchone()[0]

    section("The catalog the DBA registered")
    table(dba.execute("SELECT id, label, owner, status FROM clarify.concepts ORDER BY id").fetchall(),
          ["concept", "label", "owner", "status"])

    section('1. "Show revenue for Germany last quarter" -- nothing says which revenue')
    record = ResolutionRecord("q_1042", "Show revenue for Germany last quarter")
    try:
        ask_agent(agent, record, "metric.booked_revenue", "Germany")
        raise SystemExit("the gate let an ambiguous question through")
    except ClarificationRequired as ask:
        show_rejection(ask)
        choice = as_choice_question(ask)
        say("  choice question for the chat UI:")
        say("    " + json.dumps(choice))
        option = pick(choice)

    section(f"2. The user chose {option['label']}: the app records it, the agent re-runs")
    approval = confirm(app, "q_1042", "revenue", option["value"], granted_to="agent",
                       confirmed_by="user:alice@example.com", expires_in="1 hour",
                       question=record.question)
    say(f"  app: clarify.confirm(..., question => {record.question!r}) recorded approval "
        f"#{approval}, for this question's text only")
    record = record.with_binding(Binding("revenue", option["value"], "user_confirmation"))
    rows = ask_agent(agent, record, option["value"], "Germany")
    binding = next(b for b in agent.last_decision()["bindings"] if b["concept"] == option["value"])
    say(f"  -> allowed. Revenue for Germany, Q3 2026: {rows[0][0]} "
        f"({option['label']}, confirmed by the user; audit source {binding['source']})")

    section('3. "Show recognized revenue for Germany last quarter" -- the question names it')
    record = ResolutionRecord("q_1043", "Show recognized revenue for Germany last quarter",
                              (Binding("revenue", "metric.recognized_revenue", "explicit"),))
    rows = ask_agent(agent, record, "metric.recognized_revenue", "Germany")
    say(f"  -> allowed at once: {rows[0][0]} (Recognized revenue, named in the question)")

    section('4. A DBA adds a synonym: "bookings" means Booked revenue')
    dba.execute("INSERT INTO clarify.terms (term, concept_id) VALUES ('bookings', 'metric.booked_revenue')")
    say("  dba: INSERT INTO clarify.terms (term, concept_id) VALUES ('bookings', 'metric.booked_revenue')")
    say("  The user's words decide which terms count: \"bookings\" has one meaning, \"revenue\" three.")
    orders = "SELECT sum(booked_amount) FROM sales.orders"
    for question_id, question in (("q_1049", "What is our revenue?"),
                                  ("q_1050", "What are our bookings?")):
        say()
        say(f'  "{question}" mentions {agent.mentioned_terms(question)}')
        agent.attach(ResolutionRecord(question_id, question))
        say(f"  agent record: {agent.record.to_json()}")
        say(f"  agent SQL:    {orders}")
        try:
            rows = agent.run(orders)
        except ClarificationRequired as ask:
            show_rejection(ask)
            say(f'     asked about "{ask.slots[0].term}", the word the user said: the synonym '
                "does not settle it")
            continue
        binding = agent.last_decision()["bindings"][0]
        say(f"  -> allowed: {rows[0][0]} (Booked revenue, through the term "
            f"\"{binding['term']}\", source {binding['source']})")

    section("5. Finance approves a default: \"revenue\" means Recognized revenue")
    add_default = ("INSERT INTO clarify.defaults (term, concept_id, approved_by) "
                   "VALUES ('revenue', 'metric.recognized_revenue', 'Finance controller')")
    say("  Before adding it, the extension's owner (who may read the tables the agent reads)")
    say("  replays what the gate decided so far against the catalog with the default, in a")
    say("  transaction rolled back: clarify.replay() runs and audits nothing.")
    owner.execute("SELECT clarify.audit_wait()")
    with owner.transaction():
        owner.execute(add_default)
        replayed = owner.execute(
            "SELECT was_state, coalesce(now_state, now_detail->>'reason') AS now_state, count(*) "
            "FROM clarify.replay(%s) GROUP BY 1, 2 ORDER BY 1, 2", (demo_started,)).fetchall()
        raise psycopg.Rollback()
    table(replayed, ["was", "now", "statements"])
    say()
    dba.execute(add_default)
    say("  dba: INSERT INTO clarify.defaults ... approved_by 'Finance controller'")
    record = ResolutionRecord("q_1044", "Show revenue for France last quarter")
    rows = ask_agent(agent, record, "metric.recognized_revenue", "France")
    binding = next(b for b in agent.last_decision()["bindings"]
                   if b["concept"] == "metric.recognized_revenue")
    say(f"  -> allowed without a question: {rows[0][0]} "
        f"(source {binding['source']}, default_applied {binding['default_applied']})")

    say()
    say("  ...then the ledger behind Recognized revenue goes down:")
    dba.execute("UPDATE clarify.concepts SET available = false WHERE id = 'metric.recognized_revenue'")
    say("  dba: UPDATE clarify.concepts SET available = false WHERE id = 'metric.recognized_revenue'")
    record = ResolutionRecord("q_1045", "Show revenue for France last quarter")
    try:
        ask_agent(agent, record, "metric.booked_revenue", "France")
        raise SystemExit("the gate fell through a dead default")
    except GateError as refused:
        show_rejection(refused)
        say(f"     the dead default named in the payload: {refused.slots[0].default}")
    dba.execute("UPDATE clarify.concepts SET available = true WHERE id = 'metric.recognized_revenue'")
    say("  dba: the ledger is back (available = true)")

    section('6. A forged confirmation: {"user_confirmed": true} with nothing behind it')
    shorthand = json.dumps(
        {"question_id": "q_1046", "metric": "metric.booked_revenue", "user_confirmed": True})
    say(f"  the agent's record, in the shorthand: {shorthand}")
    try:
        ask_agent(agent, ResolutionRecord.from_json(shorthand), "metric.booked_revenue", "Germany")
        raise SystemExit("the gate accepted a forged confirmation")
    except GateError as refused:
        show_rejection(refused)

    section('7. "Show invoiced revenue for Germany last quarter" -- which quarter?')
    question = "Show invoiced revenue for Germany last quarter"
    record = ResolutionRecord("q_1047", question,
                              (Binding("revenue", "metric.invoiced_revenue", "explicit"),))
    agent.attach(record)
    invoiced = ("SELECT sum(invoiced_amount) FROM sales.invoices WHERE customer_country = %s "
                "AND invoice_date >= %s AND invoice_date < %s")
    say(f"  agent record: {record.to_json()}")
    say("  agent SQL:    SELECT sum(invoiced_amount) FROM sales.invoices "
        "WHERE customer_country = 'Germany'")
    try:
        agent.run("SELECT sum(invoiced_amount) FROM sales.invoices WHERE customer_country = %s",
                  ("Germany",))
        raise SystemExit("the gate let a sum over all time through")
    except ClarificationRequired as ask:
        show_rejection(ask)
        period = pick(as_choice_question(ask))
        # The chosen window's evaluated range: the SQL bounds are its days in the session's zone.
        chosen = next(o for o in ask.slots[0].options if o.value == period["value"])
        bounds = window_days(chosen.range, ask.time_zone)
    confirm(app, "q_1047", "last quarter", period["value"], granted_to="agent",
            confirmed_by="user:alice@example.com", question=question)
    record = record.with_binding(Binding("last quarter", period["value"], "user_confirmation"))
    agent.attach(record)
    say(f"  app: the user means {period['label']}; the agent binds it and runs for July-September:")
    try:
        agent.run(invoiced, ("Germany", "2026-07-01", "2026-10-01"))
        raise SystemExit("the gate let another period through")
    except GateError as refused:
        show_rejection(refused)
        slot = refused.slots[0]
        say(f"     expected {describe_range(slot.expected_range, refused.time_zone)}, "
            f"actual {describe_range(slot.actual_range, refused.time_zone)}")
    rows = agent.run(invoiced, ("Germany", *bounds))
    fee = next(b for b in agent.last_decision()["bindings"] if b["concept"] == "metric.invoiced_revenue")
    say(f"  -> allowed for {period['range']}: {rows[0][0]} "
        f"(window {fee['window']}, range {fee['range']['start']} to {fee['range']['end']})")

    section("8. A low-impact ambiguity is assumed, not asked")
    admin = psycopg.connect(user="postgres", autocommit=True)
    admin.execute("ALTER ROLE agent SET pg_clarify.assume_below = 'medium'")
    say("  superuser: ALTER ROLE agent SET pg_clarify.assume_below = 'medium' "
        "(\"channel\" has low impact)")
    warnings = []
    conn = psycopg.connect(user="agent", autocommit=True)
    conn.add_notice_handler(lambda diag: warnings.append(diag.message_primary))
    channel_agent = GatedSession(conn)
    channel_agent.attach(record)
    rows = channel_agent.run(
        "SELECT sales_channel, sum(invoiced_amount) FROM sales.invoices WHERE invoice_date >= %s "
        "AND invoice_date < %s GROUP BY 1 ORDER BY 1", bounds)
    for warning in warnings:
        say(f"  WARNING: {warning}")
    table(rows, ["channel", "invoiced revenue"])
    admin.execute("ALTER ROLE agent RESET pg_clarify.assume_below")

    section('9. "Booked revenue of invoiced orders, Germany, last quarter" -- a join that may '
            'repeat orders')
    record = ResolutionRecord("q_1048", "Show booked revenue of invoiced orders for Germany "
                              "last quarter",
                              (Binding("revenue", "metric.booked_revenue", "explicit"),))
    agent.attach(record)
    period = "o.customer_country = %s AND o.order_date >= %s AND o.order_date < %s"
    joined = ("SELECT sum(o.booked_amount) FROM sales.orders o "
              f"JOIN sales.invoices i ON i.order_id = o.id WHERE {period}")
    shown = (repr("Germany"), repr(LAST_QUARTER[0]), repr(LAST_QUARTER[1]))
    say(f"  agent record: {record.to_json()}")
    say(f"  agent SQL:    {joined % shown}")
    try:
        agent.run(joined, ("Germany", *LAST_QUARTER))
        raise SystemExit("the gate let a fan-out through")
    except GrainViolation as grain:
        show_rejection(grain)
        say(f"     joins that may repeat rows: {', '.join(grain.fanouts[0].via)} "
            "(nothing says an order has one invoice)")
    rewritten = ("SELECT sum(o.booked_amount) FROM sales.orders o WHERE EXISTS "
                 f"(SELECT 1 FROM sales.invoices i WHERE i.order_id = o.id) AND {period}")
    say("  the agent rewrites as the hint says (no question for the user):")
    say(f"  agent SQL:    {rewritten % shown}")
    rows = agent.run(rewritten, ("Germany", *LAST_QUARTER))
    say(f"  -> allowed: {rows[0][0]} (Booked revenue, each order counted once)")

    section('10. "Show revenue for Acme" -- two customers are named Acme Corp')
    record = ResolutionRecord("q_1049", "Show booked revenue for Acme Corp",
                              (Binding("revenue", "metric.booked_revenue", "explicit"),))
    agent.attach(record)
    by_name = ("SELECT sum(o.booked_amount) FROM sales.orders o "
               "JOIN sales.customer_orders co ON co.order_id = o.id "
               "JOIN sales.customers c ON c.id = co.customer_id WHERE c.name = %s")
    say(f"  agent SQL:    {by_name % repr('Acme Corp')}")
    try:
        agent.run(by_name, ("Acme Corp",))
        raise SystemExit("the gate summed two customers named alike")
    except ClarificationRequired as which:
        show_rejection(which)
        customer = pick(as_choice_question(which))
    by_key = by_name.replace("c.name = %s", "c.id = %s")
    say(f"  the agent filters by the key the user chose (customer {customer['value']}):")
    say(f"  agent SQL:    {by_key % customer['value']}")
    rows = agent.run(by_key, (int(customer["value"]),))
    say(f"  -> allowed by key: {rows[0][0]} ({customer['label']} only)")

    active_customers(agent, app)

    section("12. The audit trail of this conversation (read by the DBA; agents cannot)")
    # Sync decisions are durable before each answer; their rows follow shortly after.
    dba.execute("SELECT clarify.audit_wait()")
    table(dba.execute(
        "SELECT question_id, decision, state, "
        "coalesce((SELECT string_agg(DISTINCT b->>'source', ', ') FROM jsonb_array_elements(bindings) b), '') AS sources, "
        "left(statement, 52) AS statement FROM clarify.audit ORDER BY decision_id").fetchall(),
        ["question", "decision", "state", "sources", "statement"])
    say()
    say("  clarify.audit_daily (decisions per day and state, day omitted):")
    table(dba.execute("SELECT decision, state, sum(decisions) FROM clarify.audit_daily "
                      "GROUP BY 1, 2 ORDER BY 1, 2").fetchall(), ["decision", "state", "decisions"])
    say()
    say("  clarify.audit_friction (terms that made users wait):")
    table(dba.execute("SELECT term, ambiguous_rejections, questions FROM clarify.audit_friction "
                      "ORDER BY 2 DESC").fetchall(), ["term", "ambiguous rejections", "questions"])
    say()
    say("  clarify.audit_sources (how the governed columns of allowed statements were resolved):")
    table(dba.execute("SELECT source, covered_columns, percent FROM clarify.audit_sources "
                      "ORDER BY source").fetchall(), ["source", "columns", "percent"])
    say()
    say("  clarify.audit_resolution_paths (per question: rounds of clarification before an answer):")
    table(dba.execute("SELECT question_id, rounds, confirmed_at IS NOT NULL, first_allowed_at IS NOT NULL "
                      "FROM clarify.audit_resolution_paths ORDER BY question_id").fetchall(),
          ["question", "rounds", "confirmed", "answered"])


if __name__ == "__main__":
    main()
