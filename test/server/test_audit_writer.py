"""How the audit writer's commits decide a statement's fate: a sync decision fails closed with
QC005 when its row cannot be committed in time or its commit's wait for a synchronous standby is
given up; short entries keep the texts they name through a purge."""

from __future__ import annotations

import os
import signal
import threading
import time

import psycopg
import pytest
from conftest import (
    AGENT, BOOKED_SQL, SCHEMA, attach, audited, connect, explicit_record, last_decision_id,
    payload,
)


def test_audit_timeout_fails_closed_with_qc005(admin, catalog, question_id) -> None:
    """Sync audit that cannot commit in time: the statement fails closed with QC005."""
    admin.execute(f"ALTER ROLE {AGENT} SET pg_clarify.audit_mode = 'sync'")
    admin.execute(f"ALTER ROLE {AGENT} SET pg_clarify.audit_timeout = 200")
    try:
        with connect(user=AGENT) as agent, connect(autocommit=False) as locker:
            attach(agent, explicit_record(question_id, "Show Booked revenue"))
            locker.execute("LOCK TABLE clarify.audit_log IN ACCESS EXCLUSIVE MODE")
            try:
                with pytest.raises(psycopg.Error) as caught:
                    agent.execute(BOOKED_SQL)
            finally:
                locker.rollback()
            error = caught.value
            assert error.sqlstate == "QC005"
            assert payload(error)["question_id"] == question_id
            assert str(payload(error).get("decision_id", "")).isdigit()
            assert error.diag.message_hint  # the hint tells the agent what to do
            # Once the audit can be written again, the same statement runs.
            assert agent.execute(BOOKED_SQL).fetchall() == [(2450,)]
    finally:
        admin.execute(f"ALTER ROLE {AGENT} RESET pg_clarify.audit_timeout")
        admin.execute(f"ALTER ROLE {AGENT} RESET pg_clarify.audit_mode")


def test_sync_decision_waits_for_a_synchronous_standby(admin, catalog, question_id) -> None:
    """A sync decision is committed at synchronous_commit >= on even where the server runs with
    it off (as the test cluster does), so a synchronous standby has it too: with one configured
    and not connected, the writer's commit waits for it. An async decision's batch does not.
    Cancelling or stopping the writer then gives up the wait: the batch stays committed locally,
    and the statement waiting for it fails closed with QC005 instead of running."""
    admin.execute("ALTER SYSTEM SET synchronous_standby_names = 'regress_server_no_standby'")
    admin.execute("SELECT pg_reload_conf()")
    time.sleep(1)  # the checkpointer publishes the setting to waiting backends
    record = explicit_record(question_id, "Show Booked revenue")
    outcome: dict = {}

    def run_sync() -> None:
        with connect(user=AGENT) as conn:
            attach(conn, record)
            try:
                outcome["rows"] = conn.execute(BOOKED_SQL).fetchall()
            except psycopg.Error as error:
                outcome["error"] = error

    try:
        assert admin.execute("SELECT current_setting('synchronous_commit')").fetchone()[0] == "off"
        admin.execute(f"ALTER ROLE {AGENT} SET pg_clarify.audit_mode = 'async'")
        with connect(user=AGENT) as conn:
            attach(conn, record)
            assert conn.execute(BOOKED_SQL).fetchall() == [(2450,)]
            async_id = last_decision_id(conn)
        assert audited(admin, async_id), "an async batch waited for the standby"

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
            assert "synchronous standby" in payload(error).get("reason", ""), stop
            # Committed locally before the wait was given up: the decision has its row.
            assert audited(admin, str(payload(error)["decision_id"])), stop
    finally:
        admin.execute("ALTER SYSTEM RESET synchronous_standby_names")
        admin.execute("SELECT pg_reload_conf()")
        admin.execute(f"ALTER ROLE {AGENT} RESET pg_clarify.audit_timeout")
        admin.execute(f"ALTER ROLE {AGENT} RESET pg_clarify.audit_mode")
    time.sleep(1)
    with connect(user=AGENT) as conn:
        attach(conn, record)
        assert conn.execute(BOOKED_SQL).fetchall() == [(2450,)]


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
    record = explicit_record(question_id, "Show Booked revenue")
    admin.execute(f"ALTER ROLE {AGENT} SET pg_clarify.audit_mode = 'async'")
    writer = None

    def pending() -> int:
        return admin.execute("SELECT pending_bytes FROM clarify.audit_queue() "
                             "WHERE database = current_database()").fetchone()[0]

    try:
        with connect(user=AGENT) as conn:
            attach(conn, record)
            for _ in range(3):  # an idle writer leaves after 2 s: stop one that stays
                for statement in (sql, other_sql, sql, other_sql):  # stored, then met again
                    conn.execute(statement).fetchall()
                    assert audited(admin, last_decision_id(conn))
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
                assert conn.execute(sql).fetchall() == [(2450,)]
                ids.append(int(last_decision_id(conn)))
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
            conn.execute(other_sql).fetchall()
            other_id = int(last_decision_id(conn))
            assert pending() - before > texts / 2
            os.kill(writer, signal.SIGCONT)
            writer = None
            assert audited(admin, str(other_id))
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
