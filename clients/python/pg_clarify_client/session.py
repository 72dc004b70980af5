"""An agent's database session with a resolution record attached (docs/reference.md)."""

from __future__ import annotations

import contextlib
from datetime import timedelta
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

import psycopg
from psycopg.abc import Params, Query
from psycopg.pq import TransactionStatus

from .errors import gate_error_from
from .record import ResolutionRecord

RESOLUTION_SETTING = "pg_clarify.resolution"


class GatedSession:
    """Wraps the psycopg connection of an agent role.

    Each statement runs in its own transaction when the connection is idle, or under a
    savepoint when a transaction is open, so a rejected statement rolls back only itself and the
    caller's transaction stays usable.
    """

    def __init__(self, connection: psycopg.Connection[Any]) -> None:
        self.connection = connection
        self._record: Optional[ResolutionRecord] = None

    @property
    def record(self) -> Optional[ResolutionRecord]:
        """The record this object last attached (``None`` after :meth:`clear`).

        A session-scope attach made inside a transaction that later rolls back is undone by the
        server too; this attribute does not follow that rollback.
        """
        return self._record

    def attach(self, record: ResolutionRecord, *, local: bool = False) -> None:
        """Sets ``pg_clarify.resolution`` for the session (or, with ``local``, the transaction).

        The server validates the record when it is set; a refused record raises the server's
        error (``psycopg.errors.InvalidParameterValue``) and the previous record stays.
        """
        if local and not self._in_transaction():
            raise ValueError(
                "a transaction-local record needs an open transaction "
                "(use `with connection.transaction():`)"
            )
        self._set_resolution(record.to_json(), local=local)
        self._record = record

    def clear(self) -> None:
        """Removes the record: from now on nothing this session claims is taken into account."""
        self._set_resolution("", local=False)
        self._record = None

    def execute(self, sql: Query, params: Optional[Params] = None) -> List[Tuple[Any, ...]]:
        """Runs one statement and returns its rows (empty when it returns none).

        Errors are psycopg's own; use :meth:`run` to get the gate's rejections typed.
        """
        with self._statement_scope():
            cursor = self.connection.execute(sql, params)
            return cursor.fetchall() if cursor.description is not None else []

    def run(self, sql: Query, params: Optional[Params] = None) -> List[Tuple[Any, ...]]:
        """Like :meth:`execute`, but a gate rejection raises a :class:`GateError` subclass.

        Other database errors propagate unchanged; the psycopg error is kept as ``__cause__``.
        """
        try:
            return self.execute(sql, params)
        except psycopg.Error as error:
            gate_error = gate_error_from(error)
            if gate_error is None:
                raise
            raise gate_error from error

    def last_decision(self) -> Optional[Dict[str, Any]]:
        """The gate's most recent decision in this session, allowed or rejected, or ``None``."""
        return self._scalar("SELECT clarify.last_decision()")

    def check(self, sql: str) -> Dict[str, Any]:
        """What the gate would decide for ``sql`` under the current record, without running it."""
        return self._scalar("SELECT clarify.check(%s)", (sql,))

    def resolve(self, term: str, question_id: Optional[str] = None) -> Dict[str, Any]:
        """Which meaning ``term`` has for this session right now, with the options to ask about."""
        return self._scalar("SELECT clarify.resolve(%s, %s)", (term, question_id))

    def mentioned_terms(self, question: Optional[str] = None) -> List[str]:
        """The governed terms ``question`` mentions (default: the attached record's question).

        They decide which meanings the gate asks about, so the record must carry the user's
        words unedited (docs/reference.md, "Which terms decide a column").
        """
        if question is None:
            record = self.record
            question = record.question if record is not None else None
        if question is None or not question.strip():
            return []
        rows = self.execute("SELECT clarify.mentioned_terms(%s)", (question,))
        return [row[0] for row in rows]

    def approval_wait(self, approval_id: int, timeout: Union[str, timedelta] = "5 s") -> bool:
        """Waits until this session's server shows confirmation ``approval_id``; False on timeout.

        On a standby this is the wait for replication: a confirmation recorded on the primary
        verifies here only once replayed. On a primary it answers at once. The server answers
        only about confirmations granted to a role of this session (docs/reference.md,
        ``clarify.approval_wait``). Against a catalog without the function (1.0), a primary has
        nothing to wait for and a standby raises the server's error.
        """
        try:
            return bool(
                self._scalar(
                    "SELECT clarify.approval_wait(%s, %s::pg_catalog.interval)",
                    (approval_id, timeout),
                )
            )
        except psycopg.errors.UndefinedFunction:
            if self._scalar("SELECT pg_catalog.pg_is_in_recovery()"):
                raise
            return True

    def _scalar(self, sql: Query, params: Optional[Params] = None) -> Any:
        rows = self.execute(sql, params)
        return rows[0][0] if rows else None

    def _set_resolution(self, text: str, *, local: bool) -> None:
        self.execute("SELECT pg_catalog.set_config(%s, %s, %s)", (RESOLUTION_SETTING, text, local))

    def _in_transaction(self) -> bool:
        return self.connection.info.transaction_status == TransactionStatus.INTRANS

    @contextlib.contextmanager
    def _statement_scope(self) -> Iterator[None]:
        connection = self.connection
        if connection.autocommit and connection.info.transaction_status == TransactionStatus.IDLE:
            yield
            return
        with connection.transaction():
            yield
