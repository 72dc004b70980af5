"""The audit shows what really ran: an agent cannot choose under which identity its statement,
record or decision shape is stored, and the writer never reuses a stored text whose bytes differ.

The attack reproduced here: were texts keyed by an unkeyed, invertible 64-bit hash
(unkeyed_hash below), whoever knew the function could append 16 crafted bytes to a statement (or
record) so that it hashed like another one, and a writer storing each text once would show the
earlier text on the later decision's row. Each test builds such a pair for that function and
checks that both rows show their own text.
"""

from __future__ import annotations

import json
import random
import time

import pytest
from conftest import AGENT, BOOKED, REVENUE, SCHEMA, connect

_M = (1 << 64) - 1
_K = 0x9E3779B97F4A7C15
_F1, _F2 = 0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53


def _mix_words(h: int, data: bytes) -> int:
    for i in range(0, len(data), 8):
        h = ((h ^ int.from_bytes(data[i:i + 8], "little")) * _K) & _M
        h ^= h >> 29
    return h


def _mix(h: int, data: bytes) -> int:
    whole = len(data) // 8 * 8
    h = _mix_words(h, data[:whole])
    tail = int.from_bytes(data[whole:].ljust(8, b"\0"), "little")
    h = ((h ^ tail ^ ((len(data) - whole) << 56)) * _K) & _M
    return h ^ (h >> 32)


def unkeyed_hash(kind: bytes, text: bytes) -> int:
    """An unkeyed content hash of the kind the attack needs (unsigned)."""
    h = _mix(_mix(0x243F6A8885A308D3 ^ ((len(text) * _K) & _M), kind), text)
    h ^= h >> 33
    h = (h * _F1) & _M
    h ^= h >> 33
    h = (h * _F2) & _M
    return h ^ (h >> 33)


def collide(kind: bytes, target: bytes, prefix: bytes, suffix: bytes, allowed: bytes) -> bytes:
    """prefix + 16 bytes from `allowed` + suffix, with the same unkeyed hash as target.

    Every step of that hash can be run backwards: from the target's hash back through the
    finaliser and the suffix to the state the second crafted word must produce; the first word
    is drawn at random until the second, solved for, is made of allowed bytes."""
    assert len(prefix) % 8 == 0
    unmul = pow(_K, -1, 1 << 64)
    h = unkeyed_hash(kind, target)
    h ^= h >> 33
    h = (h * pow(_F2, -1, 1 << 64)) & _M
    h ^= h >> 33
    h = (h * pow(_F1, -1, 1 << 64)) & _M
    h ^= h >> 33
    whole = len(suffix) // 8 * 8
    h ^= h >> 32
    h = ((h * unmul) & _M) ^ (len(suffix) - whole) << 56 ^ int.from_bytes(
        suffix[whole:].ljust(8, b"\0"), "little")
    for i in range(whole - 8, -1, -8):
        h ^= (h >> 29) ^ (h >> 58)
        h = ((h * unmul) & _M) ^ int.from_bytes(suffix[i:i + 8], "little")
    need = h ^ (h >> 29) ^ (h >> 58)
    n = len(prefix) + 16 + len(suffix)
    start = _mix_words(_mix(0x243F6A8885A308D3 ^ ((n * _K) & _M), kind), prefix)
    rng = random.Random(42)
    for _ in range(1_000_000):
        first = bytes(rng.choice(allowed) for _ in range(8))
        second = (_mix_words(start, first) ^ ((need * unmul) & _M)).to_bytes(8, "little")
        if all(b in allowed for b in second):
            crafted = prefix + first + second + suffix
            assert unkeyed_hash(kind, crafted) == unkeyed_hash(kind, target)
            return crafted
    raise AssertionError("no collision found")


def _padded(text: str) -> bytes:
    data = text.encode()
    return data + b" " * (-len(data) % 8)


def _row(admin, decision_id: str, seconds: float = 10.0):
    """The decision's statement, record, decision and reason, once the writer has written it."""
    deadline = time.monotonic() + seconds
    while True:
        row = admin.execute(
            "SELECT statement, record, decision, reason FROM clarify.audit WHERE decision_id = %s",
            (int(decision_id),)).fetchone()
        if row is not None or time.monotonic() > deadline:
            assert row is not None, f"decision {decision_id} is not in the audit"
            return row
        time.sleep(0.05)


def _explicit_record(question_id: str, question: str) -> str:
    return json.dumps({"question_id": question_id, "question": question,
                       "bindings": [{"term": REVENUE, "concept": BOOKED, "source": "explicit"}]},
                      separators=(",", ":"))


def _run(conn, sql: str, record: str):
    conn.execute("SELECT set_config('pg_clarify.resolution', %s, false)", (record,))
    rows = conn.execute(sql).fetchall()
    decision = conn.execute("SELECT clarify.last_decision() ->> 'decision_id'").fetchone()[0]
    return rows, decision


def test_statements_with_the_same_unkeyed_hash_are_audited_with_their_own_texts(
        admin, catalog, question_id) -> None:
    counted = f"SELECT count(*) FROM {SCHEMA}.orders WHERE booked_amount > 0"
    listed = collide(b"statement", counted.encode(),
                     _padded(f"SELECT id, customer_country, booked_amount FROM {SCHEMA}.orders /*"),
                     b"*/", bytes(c for c in range(0x20, 0x7F) if c not in b"*/")).decode()
    record = _explicit_record(question_id, "Show Booked revenue per order")
    with connect(user=AGENT) as conn:
        counted_rows, counted_id = _run(conn, counted, record)
        listed_rows, listed_id = _run(conn, listed, record)
    assert counted_rows == [(3,)]
    assert len(listed_rows) == 3
    assert _row(admin, counted_id)[0] == counted
    assert _row(admin, listed_id)[0] == listed


def test_records_with_the_same_unkeyed_hash_are_audited_with_their_own_texts(
        admin, catalog, question_id) -> None:
    sql = f"SELECT sum(booked_amount) FROM {SCHEMA}.orders /* records that collided */"
    honest = _explicit_record(question_id, "Show Booked revenue")
    other = _explicit_record(question_id, "Show Booked revenue for the board, ")
    cut = other.index(", ") + 2
    prefix, suffix = _padded(other[:cut]), other[cut:].encode()
    crafted = collide(b"record", honest.encode(), prefix, suffix,
                      bytes(c for c in range(0x20, 0x7F) if c not in b'"\\')).decode()
    with connect(user=AGENT) as conn:
        _, honest_id = _run(conn, sql, honest)
        _, crafted_id = _run(conn, sql, crafted)
    assert _row(admin, honest_id)[1]["question"] == json.loads(honest)["question"]
    assert _row(admin, crafted_id)[1]["question"] == json.loads(crafted)["question"]


def _stop_writer(admin, seconds: float = 10.0) -> None:
    """Ends this database's audit writer, so that the next one knows nothing it stored."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        row = admin.execute(
            "SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE backend_type = 'pg_clarify audit writer' "
            "AND datname = current_database()").fetchone()
        if row is None:
            return
        time.sleep(0.05)
    pytest.fail("the audit writer did not stop")


def test_a_stored_text_with_other_bytes_is_never_reused(admin, catalog, question_id) -> None:
    """Whatever put other bytes under a text's identity (a defect; here a superuser editing the
    append-only tables), a later decision's row shows its own statement, record and reason: the
    writer compares bytes before it reuses a stored text or shape, and stores its own anew."""
    sql = f"SELECT sum(booked_amount) FROM {SCHEMA}.orders /* compared before reuse */"
    record = _explicit_record(question_id, "Show Booked revenue, compared")
    with connect(user=AGENT) as conn:
        _, first_id = _run(conn, sql, record)
    first = _row(admin, first_id)
    assert first[0] == sql
    hashes = "SELECT statement_hash, record_hash, shape_hash FROM clarify.audit_log " \
             "WHERE decision_id = %s"
    statement_hash, record_hash, shape_hash = admin.execute(hashes, (int(first_id),)).fetchone()
    original = admin.execute(
        "SELECT s.body, r.body, h.reason FROM clarify.audit_texts s, clarify.audit_texts r, "
        "clarify.audit_shapes h WHERE s.hash = %s AND r.hash = %s AND h.hash = %s",
        (statement_hash, record_hash, shape_hash)).fetchone()
    _stop_writer(admin)

    def edit(statement: str, record_text: str, reason: str) -> None:
        with admin.transaction():
            admin.execute("SET LOCAL session_replication_role = replica")
            admin.execute("UPDATE clarify.audit_texts SET body = %s WHERE hash = %s",
                          (statement, statement_hash))
            admin.execute("UPDATE clarify.audit_texts SET body = %s WHERE hash = %s",
                          (record_text, record_hash))
            admin.execute("UPDATE clarify.audit_shapes SET reason = %s WHERE hash = %s",
                          (reason, shape_hash))

    edit("SELECT 1", "{}", "nothing governed was read")
    try:
        assert _row(admin, first_id)[0] == "SELECT 1"
        with connect(user=AGENT) as conn:
            _, second_id = _run(conn, sql, record)
            _, third_id = _run(conn, sql, record)
        for decision_id in (second_id, third_id):
            statement, stored_record, decision, reason = _row(admin, decision_id)
            assert statement == sql
            assert stored_record == json.loads(record)
            assert (decision, reason) == ("allowed", first[3])
        # Each stored again under another identity, once (the writer remembers where); the
        # edited rows stay as they are.
        second_hashes = admin.execute(hashes, (int(second_id),)).fetchone()
        assert all(a != b for a, b in zip(second_hashes, (statement_hash, record_hash, shape_hash)))
        assert admin.execute(hashes, (int(third_id),)).fetchone() == second_hashes
        assert _row(admin, first_id)[0] == "SELECT 1"
    finally:
        # Other tests' decisions share the shape: the next writer must find it as it was.
        edit(*original)
        _stop_writer(admin)
