"""How durability decides a statement's fate: a sync decision is durable in the WAL before its
row exists, and fails closed with QC005 when a synchronous standby does not confirm it in time;
short entries keep the texts they name through a purge."""

from __future__ import annotations

import os
import signal
import time

import psycopg
import pytest
from conftest import (
    AGENT, BOOKED_SQL, SCHEMA, attach, audited, connect, explicit_record, last_decision_id,
    payload,
)


def test_sync_decision_is_durable_while_the_writer_is_held_down(
        admin, catalog, question_id) -> None:
    """A sync decision is durable in the write-ahead log before the statement goes on: with the
    audit's tables locked (the writer cannot write) the statement runs; clarify.audit_wait()
    reports that its row is not visible yet, then that it is once the writer can write."""
    admin.execute(f"ALTER ROLE {AGENT} SET pg_clarify.audit_mode = 'sync'")
    try:
        with connect(user=AGENT) as agent, connect(autocommit=False) as locker:
            attach(agent, explicit_record(question_id, "Show Booked revenue"))
            locker.execute("LOCK TABLE clarify.audit_log IN ACCESS EXCLUSIVE MODE")
            try:
                assert agent.execute(BOOKED_SQL).fetchall() == [(2450,)]
                decision_id = last_decision_id(agent)
                assert admin.execute("SELECT clarify.audit_wait('300 ms')").fetchone()[0] is False
            finally:
                locker.rollback()
            assert admin.execute("SELECT clarify.audit_wait('30 s')").fetchone()[0] is True
            assert audited(admin, decision_id, seconds=0)
    finally:
        admin.execute(f"ALTER ROLE {AGENT} RESET pg_clarify.audit_mode")


def test_sync_decision_waits_for_a_synchronous_standby(admin, catalog, question_id) -> None:
    """A sync decision is confirmed by synchronous standbys as a commit at synchronous_commit
    >= on would be, even where the server runs with it off (as the test cluster does): with one
    configured and not connected, the statement fails closed with QC005 once
    pg_clarify.audit_timeout has passed, naming the standby; the decision, flushed locally, still
    has its row and a note that its statement did not run. An async decision does not wait."""
    admin.execute("ALTER SYSTEM SET synchronous_standby_names = 'regress_server_no_standby'")
    admin.execute("SELECT pg_reload_conf()")
    time.sleep(1)  # the checkpointer publishes the setting to waiting backends
    record = explicit_record(question_id, "Show Booked revenue")
    try:
        assert admin.execute("SELECT current_setting('synchronous_commit')").fetchone()[0] == "off"
        admin.execute(f"ALTER ROLE {AGENT} SET pg_clarify.audit_mode = 'async'")
        with connect(user=AGENT) as conn:
            attach(conn, record)
            assert conn.execute(BOOKED_SQL).fetchall() == [(2450,)]
            async_id = last_decision_id(conn)
        assert audited(admin, async_id), "an async decision waited for the standby"

        admin.execute(f"ALTER ROLE {AGENT} SET pg_clarify.audit_mode = 'sync'")
        admin.execute(f"ALTER ROLE {AGENT} SET pg_clarify.audit_timeout = 500")
        with connect(user=AGENT) as conn:
            attach(conn, record)
            with pytest.raises(psycopg.Error) as caught:
                conn.execute(BOOKED_SQL)
        error = caught.value
        assert error.sqlstate == "QC005"
        assert "synchronous standby" in payload(error).get("reason", "")
        decision_id = str(payload(error)["decision_id"])
        assert audited(admin, decision_id), "the decision flushed locally has no row"
        # The note is queued after the refusal: it may come in a later batch than the row.
        assert admin.execute("SELECT clarify.audit_wait('30 s')").fetchone()[0] is True
        assert admin.execute(
            "SELECT state FROM clarify.audit WHERE decision_id = %s",
            (int(decision_id),)).fetchone()[0] == "AUDIT_UNAVAILABLE"
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
