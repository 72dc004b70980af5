"""An agent's database session with a resolution record attached (docs/reference.md)."""

from __future__ import annotations

import contextlib
from datetime import timedelta
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

import psycopg
from psycopg.abc import Params, Query
from psycopg.pq import TransactionStatus

from .errors import ClarificationRequired, GateError, Mismatch, Slot, Unverified, gate_error_from
from .record import Binding, ResolutionRecord, same_term

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

    def run(
        self, sql: Query, params: Optional[Params] = None, *, claim_named: bool = False
    ) -> List[Tuple[Any, ...]]:
        """Like :meth:`execute`, but a gate rejection raises a :class:`GateError` subclass.

        The error carries the record's question (``asked``), the governed terms it mentions and
        the session's time zone, for showing the question to the person. With ``claim_named``,
        a meaning the question names is claimed as ``explicit`` (:meth:`claim_named`) and the
        statement runs again; a claim the gate refuses is withdrawn and the person is asked.
        Other database errors propagate unchanged; the psycopg error is kept as ``__cause__``.
        """
        claimed: set = set()
        while True:
            try:
                return self._run_once(sql, params)
            except (ClarificationRequired, Mismatch, Unverified) as error:
                if not claim_named or not self._retry_claim(error, claimed):
                    raise

    def _run_once(self, sql: Query, params: Optional[Params]) -> List[Tuple[Any, ...]]:
        try:
            return self.execute(sql, params)
        except psycopg.Error as error:
            gate_error = gate_error_from(error)
            if gate_error is None:
                raise
            self._add_context(gate_error)
            raise gate_error from error

    def _add_context(self, error: GateError) -> None:
        record = self.record
        error.asked = record.question if record is not None else None
        error.time_zone = self.connection.info.parameter_status("TimeZone")
        try:
            error.mentioned_terms = tuple(self.mentioned_terms())
        except psycopg.Error:
            # A catalog without the function (before 1.2): nothing to show, the rejection stands.
            error.mentioned_terms = ()

    def _retry_claim(self, error: GateError, claimed: set) -> bool:
        """After a rejection: withdraws a refused claim, or makes a new one; True to run again."""
        record = self.record
        if record is None:
            return False
        if isinstance(error, Unverified):
            refused = {s.term for s in error.slots if s.state == "UNVERIFIED"}
            kept = tuple(
                b for b in record.bindings
                if not (b.source == "explicit" and (b.term, b.concept) in claimed
                        and b.term in refused)
            )
            if len(kept) == len(record.bindings):
                return False
            # Run again without it: the person is asked what the claim could not settle.
            self.attach(ResolutionRecord(record.question_id, record.question, kept))
            return True
        for slot in error.slots:
            if slot.state not in ("AMBIGUOUS", "MISMATCH"):
                continue
            # A term the record already binds (a confirmation, say) is not claimed over.
            if slot.term and any(b.term and same_term(b.term, slot.term) for b in record.bindings):
                continue
            try:
                concept = self.claim_named(slot)
            except psycopg.errors.UndefinedFunction:
                return False  # a catalog before 1.2 has no clarify.mentions: ask the person
            if concept is not None and (slot.term, concept) not in claimed:
                claimed.add((slot.term, concept))
                self.attach(record.with_binding(Binding(slot.term, concept, "explicit")))
                return True
        return False

    def named_meanings(self, slot: Slot, question: Optional[str] = None) -> List[str]:
        """The options of ``slot`` whose label or an alias ``question`` names (default: the
        attached record's question), matched by the database as the gate matches words
        (``clarify.mentions``: whole words, case-folded), never by a rule of this client."""
        if question is None:
            question = self.record.question if self.record is not None else None
        ids = [option.value for option in slot.options]
        if not question or not question.strip() or not ids:
            return []
        rows = self.execute(
            "SELECT c.id FROM clarify.concepts AS c"
            " WHERE c.id = ANY(%s) AND EXISTS (SELECT FROM pg_catalog.unnest("
            "       pg_catalog.array_prepend(c.label, coalesce(c.aliases, '{}'))) AS n"
            "        WHERE clarify.mentions(%s, n))"
            " ORDER BY c.id",
            (ids, question),
        )
        return [row[0] for row in rows]

    def claim_named(self, slot: Slot, question: Optional[str] = None) -> Optional[str]:
        """The one option of ``slot`` the question names, to claim as ``explicit``; else None
        (none named, or several: the person must choose)."""
        named = self.named_meanings(slot, question)
        return named[0] if len(named) == 1 else None

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
