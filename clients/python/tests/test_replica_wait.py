"""confirm waits until the agent's server shows the confirmation (no server needed: fakes).

With the agent on a standby, a re-run right after confirm on the primary would race
replication; these tests pin down when the client waits, with which call, and what it does when
the wait times out.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, List, Optional, Sequence, Tuple

import psycopg
import pytest
from psycopg.pq import TransactionStatus

from pg_clarify_client import ApprovalNotReplayed, GatedSession, confirm


class FakeCursor:
    def __init__(self, rows: Sequence[Tuple[Any, ...]]) -> None:
        self.rows = list(rows)
        self.description = [("column",)] if rows else None

    def fetchone(self) -> Optional[Tuple[Any, ...]]:
        return self.rows[0] if self.rows else None

    def fetchall(self) -> List[Tuple[Any, ...]]:
        return self.rows


class FakeInfo:
    transaction_status = TransactionStatus.IDLE


class FakeConnection:
    """Answers each statement by the first registered fragment it contains; records the calls."""

    def __init__(self, answers: Sequence[Tuple[str, Any]]) -> None:
        self.answers = list(answers)
        self.calls: List[Tuple[str, Any]] = []
        self.autocommit = True
        self.info = FakeInfo()

    def execute(self, sql: str, params: Any = None) -> FakeCursor:
        self.calls.append((sql, params))
        for fragment, answer in self.answers:
            if fragment in sql:
                if isinstance(answer, Exception):
                    raise answer
                return FakeCursor([(answer,)])
        raise AssertionError(f"unexpected statement: {sql}")

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        yield

    def statements(self) -> List[str]:
        return [sql for sql, _ in self.calls]


def primary(approval_id: int = 42) -> FakeConnection:
    return FakeConnection([("clarify.confirm(", approval_id)])


def standby(replayed: Any = True) -> FakeConnection:
    return FakeConnection([("clarify.approval_wait(", replayed),
                           ("pg_is_in_recovery()", True)])


def confirm_for(agent: Optional[GatedSession], app: FakeConnection, **kwargs: Any) -> int:
    return confirm(app, "q_1", "revenue", "metric.booked", "agent", "alice@example.com",
                   agent=agent, **kwargs)  # type: ignore[arg-type]


def test_confirm_waits_on_the_agents_server_before_returning() -> None:
    app, replica = primary(), standby()
    assert confirm_for(GatedSession(replica), app, replay_timeout="30 s") == 42  # type: ignore[arg-type]
    ((sql, params),) = replica.calls
    assert "clarify.approval_wait(" in sql
    assert params == (42, "30 s")


def test_confirm_raises_when_the_agents_server_has_not_replayed_it_in_time() -> None:
    app, replica = primary(7), standby(replayed=False)
    with pytest.raises(ApprovalNotReplayed) as caught:
        confirm_for(GatedSession(replica), app)  # type: ignore[arg-type]
    assert caught.value.approval_id == 7
    assert caught.value.timeout == "5 s"
    assert "7" in str(caught.value)


def test_no_wait_when_the_agent_uses_the_confirmers_connection() -> None:
    app = primary()
    assert confirm_for(GatedSession(app), app) == 42  # type: ignore[arg-type]
    assert not any("approval_wait" in sql for sql in app.statements())


def test_no_wait_without_an_agent() -> None:
    app = primary()
    assert confirm_for(None, app) == 42
    assert len(app.calls) == 1


def test_confirm_refuses_to_wait_inside_an_open_transaction() -> None:
    app, replica = primary(), standby()
    app.info.transaction_status = TransactionStatus.INTRANS
    with pytest.raises(ValueError, match="open transaction"):
        confirm_for(GatedSession(replica), app)  # type: ignore[arg-type]
    assert app.calls == [] and replica.calls == []


def test_approval_wait_returns_the_servers_answer() -> None:
    assert GatedSession(standby(True)).approval_wait(1) is True  # type: ignore[arg-type]
    assert GatedSession(standby(False)).approval_wait(1, "1 s") is False  # type: ignore[arg-type]


def test_approval_wait_on_a_primary_without_the_function_has_nothing_to_wait_for() -> None:
    old_primary = FakeConnection([("clarify.approval_wait(", psycopg.errors.UndefinedFunction()),
                                  ("pg_is_in_recovery()", False)])
    assert GatedSession(old_primary).approval_wait(1) is True  # type: ignore[arg-type]


def test_approval_wait_on_a_standby_without_the_function_raises() -> None:
    old_standby = FakeConnection([("clarify.approval_wait(", psycopg.errors.UndefinedFunction()),
                                  ("pg_is_in_recovery()", True)])
    with pytest.raises(psycopg.errors.UndefinedFunction):
        GatedSession(old_standby).approval_wait(1)  # type: ignore[arg-type]
