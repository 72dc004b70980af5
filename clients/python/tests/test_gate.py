"""Each of the gate's rejections arrives as its typed exception (against the server)."""

from __future__ import annotations

import os
import signal
import threading
import time

import psycopg
import pytest
from conftest import (
    AGENT, BOOKED, COUNTRY, CUSTOMER_COUNTRY, MARGIN, MARGIN_TERM, RECOGNIZED, REVENUE, SCHEMA,
    SHIPPING_COUNTRY, connect,
)

from pg_clarify_client import (
    AuditUnavailable,
    Binding,
    ClarificationRequired,
    GatedSession,
    GateError,
    Mismatch,
    ResolutionRecord,
    Unsupported,
    Unverified,
)

BOOKED_SQL = f"SELECT sum(booked_amount) FROM {SCHEMA}.orders"

REVENUE_OPTIONS = [
    (BOOKED, "Booked revenue", "Value of accepted orders", "Sales"),
    (RECOGNIZED, "Recognized revenue", "Revenue recognized under the accounting standard",
     "Finance"),
]


def options_of(slot):
    return [(o.value, o.label, o.description, o.owner) for o in slot.options]


def test_ambiguous_term_raises_clarification_required(agent, question_id) -> None:
    agent.attach(ResolutionRecord(question_id, "What was revenue in Germany?"))
    with pytest.raises(ClarificationRequired) as caught:
        agent.run(BOOKED_SQL + " WHERE customer_country = %s", ("Germany",))
    error = caught.value
    assert error.sqlstate == "QC001"
    assert error.state == "AMBIGUOUS"
    assert error.question_id == question_id
    assert error.decision_id and error.decision_id.isdigit()
    assert error.question == error.hint
    assert "Booked revenue" in error.question and f"{SCHEMA}" not in error.question
    (slot,) = error.slots
    assert (slot.term, slot.kind, slot.state) == (REVENUE, "metric", "AMBIGUOUS")
    assert slot.question == f'When you say "{REVENUE}", do you mean:'
    assert options_of(slot) == REVENUE_OPTIONS
    assert slot.columns == (f"{SCHEMA}.orders.booked_amount",)
    assert slot.actual == BOOKED
    assert isinstance(error.__cause__, psycopg.Error)
    # The decision the error names is the session's last one, and it was rejected.
    decision = agent.last_decision()
    assert decision["decision_id"] == error.decision_id
    assert decision["decision"] == "rejected"


def test_draft_meaning_raises_unsupported(agent, question_id) -> None:
    agent.attach(ResolutionRecord(question_id, "What is our margin?"))
    with pytest.raises(Unsupported) as caught:
        agent.run(f"SELECT margin FROM {SCHEMA}.costs")
    error = caught.value
    assert error.sqlstate == "QC002"
    assert error.state == "UNSUPPORTED"
    assert error.question_id == question_id and error.decision_id
    (slot,) = error.slots
    assert (slot.term, slot.state, slot.actual) == (MARGIN_TERM, "UNSUPPORTED", MARGIN)
    assert slot.options == ()
    assert "draft" in slot.reason


def test_reading_another_meaning_than_the_bound_one_raises_mismatch(agent, question_id) -> None:
    agent.attach(ResolutionRecord(question_id, "Show Recognized revenue by country",
                                  [Binding(REVENUE, RECOGNIZED, "explicit")]))
    with pytest.raises(Mismatch) as caught:
        agent.run(BOOKED_SQL)
    error = caught.value
    assert error.sqlstate == "QC003"
    assert error.question_id == question_id and error.decision_id
    (slot,) = error.slots
    assert (slot.state, slot.expected, slot.actual) == ("MISMATCH", RECOGNIZED, BOOKED)
    assert options_of(slot) == REVENUE_OPTIONS


def test_reading_a_non_default_candidate_raises_mismatch_naming_the_default(agent) -> None:
    with pytest.raises(Mismatch) as caught:
        agent.run(f"SELECT ship_country, count(*) FROM {SCHEMA}.orders GROUP BY 1")
    (slot,) = caught.value.slots
    assert (slot.term, slot.default, slot.actual) == (COUNTRY, CUSTOMER_COUNTRY, SHIPPING_COUNTRY)
    assert caught.value.question_id is None  # no record attached


def test_forged_user_confirmation_raises_unverified(agent, question_id) -> None:
    agent.attach(ResolutionRecord(question_id, "What was revenue in Germany?",
                                  [Binding(REVENUE, BOOKED, "user_confirmation")]))
    with pytest.raises(Unverified) as caught:
        agent.run(BOOKED_SQL)
    error = caught.value
    assert error.sqlstate == "QC004"
    assert error.state == "UNVERIFIED"
    assert error.question_id == question_id and error.decision_id
    (slot,) = error.slots
    assert (slot.term, slot.expected, slot.actual) == (REVENUE, BOOKED, BOOKED)
    assert question_id in slot.reason
    assert options_of(slot) == REVENUE_OPTIONS


def test_explicit_claim_the_question_does_not_support_raises_unverified(agent, question_id):
    agent.attach(ResolutionRecord(question_id, "What was revenue in Germany?",
                                  [Binding(REVENUE, BOOKED, "explicit")]))
    with pytest.raises(Unverified):
        agent.run(BOOKED_SQL)


def test_several_failing_columns_report_the_first_state_and_every_slot(agent) -> None:
    with pytest.raises(ClarificationRequired) as caught:
        agent.run(f"SELECT o.booked_amount, c.margin FROM {SCHEMA}.orders o "
                  f"JOIN {SCHEMA}.costs c ON c.id = o.id")
    states = sorted(slot.state for slot in caught.value.slots)
    assert states == ["AMBIGUOUS", "UNSUPPORTED"]


def test_audit_timeout_raises_audit_unavailable(admin, catalog, question_id) -> None:
    """Sync audit that cannot commit in time: the statement fails closed with QC005."""
    admin.execute(f"ALTER ROLE {AGENT} SET pg_clarify.audit_mode = 'sync'")
    admin.execute(f"ALTER ROLE {AGENT} SET pg_clarify.audit_timeout = 200")
    try:
        with connect(user=AGENT) as agent_conn, connect(autocommit=False) as locker:
            agent = GatedSession(agent_conn)
            record = ResolutionRecord(question_id, "Show Booked revenue",
                                      [Binding(REVENUE, BOOKED, "explicit")])
            agent.attach(record)
            locker.execute("LOCK TABLE clarify.audit_log IN ACCESS EXCLUSIVE MODE")
            try:
                with pytest.raises(AuditUnavailable) as caught:
                    agent.run(BOOKED_SQL)
            finally:
                locker.rollback()
            error = caught.value
            assert error.sqlstate == "QC005"
            assert error.question_id == question_id
            assert error.decision_id and error.decision_id.isdigit()
            assert error.question  # the hint tells the agent what to do
            # Once the audit can be written again, the same statement runs.
            assert agent.run(BOOKED_SQL) == [(2450,)]
    finally:
        admin.execute(f"ALTER ROLE {AGENT} RESET pg_clarify.audit_timeout")
        admin.execute(f"ALTER ROLE {AGENT} RESET pg_clarify.audit_mode")


def _audited(admin, decision_id: str, seconds: float = 10.0) -> bool:
    """Whether the decision has its row in the audit, waiting up to `seconds` for the writer."""
    deadline = time.monotonic() + seconds
    while True:
        row = admin.execute("SELECT count(*) FROM clarify.audit WHERE decision_id = %s",
                            (int(decision_id),)).fetchone()
        if row[0] or time.monotonic() > deadline:
            return bool(row[0])
        time.sleep(0.05)


def test_sync_decision_waits_for_a_synchronous_standby(admin, catalog, question_id) -> None:
    """A sync decision is committed at synchronous_commit >= on even where the server runs with
    it off (as the test cluster does), so a synchronous standby has it too: with one configured
    and not connected, the writer's commit waits for it. An async decision's batch does not.
    Cancelling or stopping the writer then gives up the wait: the batch stays committed locally,
    and the statement waiting for it fails closed with QC005 instead of running."""
    admin.execute("ALTER SYSTEM SET synchronous_standby_names = 'regress_py_no_standby'")
    admin.execute("SELECT pg_reload_conf()")
    time.sleep(1)  # the checkpointer publishes the setting to waiting backends
    record = ResolutionRecord(question_id, "Show Booked revenue",
                              [Binding(REVENUE, BOOKED, "explicit")])
    outcome: dict = {}

    def run_sync() -> None:
        with connect(user=AGENT) as conn:
            agent = GatedSession(conn)
            agent.attach(record)
            try:
                outcome["rows"] = agent.run(BOOKED_SQL)
            except AuditUnavailable as error:
                outcome["error"] = error

    try:
        assert admin.execute("SELECT current_setting('synchronous_commit')").fetchone()[0] == "off"
        admin.execute(f"ALTER ROLE {AGENT} SET pg_clarify.audit_mode = 'async'")
        with connect(user=AGENT) as conn:
            agent = GatedSession(conn)
            agent.attach(record)
            assert agent.run(BOOKED_SQL) == [(2450,)]
            async_id = agent.last_decision()["decision_id"]
        assert _audited(admin, async_id), "an async batch waited for the standby"

        admin.execute(f"ALTER ROLE {AGENT} SET pg_clarify.audit_mode = 'sync'")
        admin.execute(f"ALTER ROLE {AGENT} SET pg_clarify.audit_timeout = 10000")
        for stop in ("pg_cancel_backend", "pg_terminate_backend"):
            outcome.clear()
            waiter = threading.Thread(target=run_sync)
            waiter.start()
            writer = None
            deadline = time.monotonic() + 5
            while writer is None and time.monotonic() < deadline:
                writer = admin.execute(
                    "SELECT pid FROM pg_stat_activity WHERE backend_type = "
                    "'pg_clarify audit writer' AND wait_event = 'SyncRep'").fetchone()
                time.sleep(0.05)
            assert writer is not None, "the writer's commit did not wait for the standby"
            assert "rows" not in outcome
            admin.execute(f"SELECT {stop}(%s)", writer)
            waiter.join(10)
            assert not waiter.is_alive()
            error = outcome.get("error")
            assert error is not None and error.sqlstate == "QC005", (stop, outcome)
            assert "synchronous standby" in error.payload.get("reason", ""), stop
            # Committed locally before the wait was given up: the decision has its row.
            assert _audited(admin, error.decision_id), stop
    finally:
        admin.execute("ALTER SYSTEM RESET synchronous_standby_names")
        admin.execute("SELECT pg_reload_conf()")
        admin.execute(f"ALTER ROLE {AGENT} RESET pg_clarify.audit_timeout")
        admin.execute(f"ALTER ROLE {AGENT} RESET pg_clarify.audit_mode")
    time.sleep(1)
    with connect(user=AGENT) as conn:
        agent = GatedSession(conn)
        agent.attach(record)
        assert agent.run(BOOKED_SQL) == [(2450,)]


def test_errors_that_are_not_the_gates_pass_through_unchanged(agent) -> None:
    with pytest.raises(psycopg.errors.UndefinedTable):
        agent.run(f"SELECT * FROM {SCHEMA}.no_such_table")
    with pytest.raises(psycopg.errors.DivisionByZero):
        agent.run("SELECT 1 / 0")


def test_a_qc_error_with_malformed_detail_is_still_typed(agent) -> None:
    """Whatever raises a QC code, the client reports it instead of crashing on the DETAIL."""
    with pytest.raises(ClarificationRequired) as caught:
        agent.run("DO $$ BEGIN RAISE EXCEPTION 'odd rejection' USING ERRCODE = 'QC001', "
                  "DETAIL = '{\"slots\": [', HINT = 'Which one?'; END $$")
    error = caught.value
    assert error.message == "odd rejection"
    assert error.detail == '{"slots": ['
    assert error.payload == {} and error.payload_error
    assert error.slots == () and error.question == "Which one?"


def test_a_gate_error_subclasses_gate_error(agent) -> None:
    with pytest.raises(GateError):
        agent.run(BOOKED_SQL)


def _writer_pid(admin, seconds: float = 5.0):
    """The audit writer's pid once it is idle (waiting for work, holding no lock)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        row = admin.execute(
            "SELECT pid FROM pg_stat_activity WHERE backend_type = 'pg_clarify audit writer' "
            "AND datname = current_database() AND state = 'idle' "
            "AND wait_event = 'Extension'").fetchone()
        if row:
            return row[0]
        time.sleep(0.05)
    return None


def test_short_entries_keep_their_texts_through_a_purge(admin, catalog, question_id) -> None:
    """A decision whose statement, record and shape the audit already holds (stored by one batch,
    met again by a later one) is queued without those texts: a short entry, naming them by hash.
    A purge while such entries wait in the queue keeps the texts they name, so their rows,
    written after it, show the statement, record, columns and bindings like any other; and after
    the purge, decisions are queued with their texts again until the writer has stored them anew."""
    sql = BOOKED_SQL + " /* short entries through a purge */"
    other_sql = BOOKED_SQL + " /* stored before the purge, not queued during it */"
    record = ResolutionRecord(question_id, "Show Booked revenue",
                              [Binding(REVENUE, BOOKED, "explicit")])
    admin.execute(f"ALTER ROLE {AGENT} SET pg_clarify.audit_mode = 'async'")
    writer = None

    def pending() -> int:
        return admin.execute("SELECT pending_bytes FROM clarify.audit_queue() "
                             "WHERE database = current_database()").fetchone()[0]

    try:
        with connect(user=AGENT) as conn:
            agent = GatedSession(conn)
            agent.attach(record)
            for _ in range(3):  # an idle writer leaves after 2 s: stop one that stays
                for statement in (sql, other_sql, sql, other_sql):  # stored, then met again
                    agent.run(statement)
                    assert _audited(admin, agent.last_decision()["decision_id"])
                writer = _writer_pid(admin)
                if writer is None:
                    continue
                os.kill(writer, signal.SIGSTOP)
                serving = admin.execute("SELECT writer_pid FROM clarify.audit_queue() "
                                        "WHERE database = current_database()").fetchone()
                if serving and serving[0] == writer:
                    break
                os.kill(writer, signal.SIGCONT)
                writer = None
            assert writer is not None, "no idle audit writer to stop"
            record_text = conn.execute("SHOW pg_clarify.resolution").fetchone()[0]
            texts = len(sql) + len(record_text)  # what a full entry carries at least
            before = pending()
            ids = []
            for _ in range(20):
                assert agent.run(sql) == [(2450,)]
                ids.append(int(agent.last_decision()["decision_id"]))
            short = (pending() - before) / 20
            assert 0 < short < texts / 2, (short, texts)
            # Every row written so far goes; texts no row refers to go with them, except those
            # the queued decisions name.
            assert admin.execute("SELECT clarify.purge_audit('0 seconds') > 0").fetchone()[0]
            assert admin.execute("SELECT count(*) FROM clarify.audit_texts WHERE body = %s",
                                 (sql,)).fetchone()[0] == 1
            assert admin.execute("SELECT count(*) FROM clarify.audit_texts WHERE body = %s",
                                 (other_sql,)).fetchone()[0] == 0
            # Its text is gone: the next decision on it carries the text again.
            before = pending()
            agent.run(other_sql)
            other_id = int(agent.last_decision()["decision_id"])
            assert pending() - before > texts / 2
            os.kill(writer, signal.SIGCONT)
            writer = None
            assert _audited(admin, str(other_id))
            rows = admin.execute(
                "SELECT statement, record ->> 'question_id', columns, "
                "bindings -> 0 ->> 'source', decision "
                "FROM clarify.audit WHERE decision_id = ANY(%s)", (ids,)).fetchall()
            assert len(rows) == 20
            expected = (sql, question_id, [f"{SCHEMA}.orders.booked_amount"], "explicit",
                        "allowed")
            assert all(row == expected for row in rows), rows[0]
            assert admin.execute("SELECT statement FROM clarify.audit WHERE decision_id = %s",
                                 (other_id,)).fetchone()[0] == other_sql
    finally:
        if writer is not None:
            os.kill(writer, signal.SIGCONT)
        admin.execute(f"ALTER ROLE {AGENT} RESET pg_clarify.audit_mode")
