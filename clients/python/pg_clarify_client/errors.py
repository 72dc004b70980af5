"""The gate's rejections as typed exceptions (docs/reference.md, "SQLSTATEs").

The server raises SQLSTATE QC001..QC006 with a one-line JSON DETAIL and the clarification
question (for QC006, how to rewrite the statement) as HINT. Parsing is defensive: whatever the DETAIL holds, the client keeps the raw text
and never fails while reading it, because a rejected statement must reach the agent as a
rejection, not as a client crash.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Tuple, Type

import psycopg

from .rounds import positive_int


@dataclass(frozen=True)
class Option:
    """One meaning the user may choose, in business language.

    A time window's option carries ``range``: its evaluated half-open (start, end), ISO texts,
    and ``period``: the same as people read it, in the window's own zone ("1 Jul – 30 Sep 2026").
    """

    value: str
    label: str
    description: str = ""
    owner: str = ""
    range: Optional["Range"] = None
    period: Optional[str] = None

    @classmethod
    def from_payload(cls, data: Any) -> Optional["Option"]:
        """Reads an option of the DETAIL payload; ``None`` when it does not name a concept."""
        if not isinstance(data, Mapping):
            return None
        value = _text(data.get("value"))
        if not value:
            return None
        return cls(
            value=value,
            label=_text(data.get("label")) or value,
            description=_text(data.get("description")) or "",
            owner=_text(data.get("owner")) or "",
            range=_range(data.get("range")),
            period=_text(data.get("period")),
        )


Range = Tuple[Optional[str], Optional[str]]


def _range(data: Any) -> Optional[Range]:
    """A ``{"start", "end"}`` range as (start, end) ISO texts, ``None`` for an open side."""
    if not isinstance(data, Mapping):
        return None
    return (_text(data.get("start")), _text(data.get("end")))


@dataclass(frozen=True)
class Slot:
    """One governed meaning the statement read that the gate could not accept.

    A ``time_range`` slot is about the period of a dated measure: ``measure`` names it,
    ``options`` are the time windows to choose from, and ``expected_range`` / ``actual_range``
    hold the periods compared (``expected`` and ``actual`` stay ``None``).
    """

    kind: Optional[str]
    term: Optional[str]
    state: Optional[str]
    reason: str
    question: str
    options: Tuple[Option, ...]
    columns: Tuple[str, ...]
    default: Optional[str]
    expected: Optional[str]
    actual: Optional[str]
    impact: Optional[str] = None
    measure: Optional[str] = None
    window: Optional[str] = None
    expected_range: Optional[Range] = None
    actual_range: Optional[Range] = None
    #: Grain slots only: the relations whose join repeats the measure's rows (``fanout``), the
    #: aggregate used and the ones the measure allows (``additivity``).
    via: Tuple[str, ...] = ()
    aggregate: Optional[str] = None
    allowed: Tuple[str, ...] = ()
    #: Entity slots only (``kind == "entity"``): the name as the statement gave it, and whether
    #: more entities matched than ``options`` lists. An option's ``value`` is the entity's key.
    value: Optional[str] = None
    truncated: bool = False

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> "Slot":
        raw_options = data.get("options")
        options = tuple(
            option
            for option in (Option.from_payload(o) for o in _list(raw_options))
            if option is not None
        )
        columns = tuple(c for c in (_text(c) for c in _list(data.get("columns"))) if c)
        return cls(
            kind=_text(data.get("kind")),
            term=_text(data.get("term")),
            state=_text(data.get("state")),
            reason=_text(data.get("reason")) or "",
            question=_text(data.get("question")) or "",
            options=options,
            columns=columns,
            default=_text(data.get("default")),
            expected=_text(data.get("expected")),
            actual=_text(data.get("actual")),
            impact=_text(data.get("impact")),
            measure=_text(data.get("measure")),
            window=_text(data.get("window")),
            expected_range=_range(data.get("expected")),
            actual_range=_range(data.get("actual")),
            via=tuple(v for v in (_text(v) for v in _list(data.get("via"))) if v),
            aggregate=_text(data.get("aggregate")),
            allowed=tuple(a for a in (_text(a) for a in _list(data.get("allowed"))) if a),
            value=_text(data.get("value")),
            truncated=data.get("truncated") is True,
        )


class GateError(Exception):
    """A statement the clarification gate did not let run.

    ``payload`` is the decoded DETAIL (an empty dict when it was not a JSON object, in which
    case ``payload_error`` says why and ``detail`` still holds the raw text).

    :meth:`GatedSession.run` also fills in what the person must see beside the options:
    ``asked`` (the record's question), ``mentioned_terms`` (the governed terms it mentions, by
    ``clarify.mentioned_terms``) and ``time_zone`` (the session's, for periods).
    """

    #: The SQLSTATE this class stands for; the base class accepts any QC code.
    code: Optional[str] = None

    def __init__(
        self,
        sqlstate: str,
        message: str,
        *,
        detail: Optional[str] = None,
        hint: Optional[str] = None,
        asked: Optional[str] = None,
        mentioned_terms: Tuple[str, ...] = (),
        time_zone: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.asked = asked
        self.mentioned_terms = tuple(mentioned_terms)
        self.time_zone = time_zone
        self.sqlstate = sqlstate
        self.message = message
        self.detail = detail
        self.hint = hint
        self.payload: Dict[str, Any]
        self.payload_error: Optional[str]
        self.payload, self.payload_error = _decode_payload(detail)
        self.slots: Tuple[Slot, ...] = tuple(
            Slot.from_payload(s) for s in _list(self.payload.get("slots")) if isinstance(s, Mapping)
        )

    def __str__(self) -> str:
        return f"{self.sqlstate}: {self.message}"

    def __reduce__(self) -> Any:
        # Exceptions cross process boundaries (worker pools, task queues) by pickling.
        context = (self.asked, self.mentioned_terms, self.time_zone)
        return (_rebuild, (type(self), self.sqlstate, self.message, self.detail, self.hint, context))

    @property
    def decision_id(self) -> Optional[str]:
        """The audit's id of this decision (text: it does not fit a JSON double)."""
        return _text(self.payload.get("decision_id"))

    @property
    def question_id(self) -> Optional[str]:
        return _text(self.payload.get("question_id"))

    @property
    def state(self) -> Optional[str]:
        """The gate's state name, e.g. ``AMBIGUOUS``."""
        return _text(self.payload.get("state"))

    @property
    def status(self) -> Optional[str]:
        return _text(self.payload.get("status"))

    @property
    def round(self) -> Optional[int]:
        """This rejection's round of its question (1 for the first); None when not counted."""
        return positive_int(self.payload.get("round"))

    @property
    def max_rounds(self) -> Optional[int]:
        """The question's budget (pg_clarify.max_rounds); None when there is none."""
        return positive_int(self.payload.get("max_rounds"))

    @property
    def budget_exhausted(self) -> bool:
        """The budget is spent and this meaning is still asked: the person must choose."""
        return self.payload.get("budget_exhausted") is True

    @property
    def question(self) -> str:
        """The question to put to the user: the HINT, else the first slot's question."""
        if self.hint:
            return self.hint
        for slot in self.slots:
            if slot.question:
                return slot.question
        return self.message

    @classmethod
    def from_parts(
        cls,
        sqlstate: str,
        message: str,
        *,
        detail: Optional[str] = None,
        hint: Optional[str] = None,
    ) -> "GateError":
        """The exception for a gate SQLSTATE, as its most specific class."""
        error_class = GATE_ERRORS.get(sqlstate, GateError)
        return error_class(sqlstate, message, detail=detail, hint=hint)


class ClarificationRequired(GateError):
    """QC001 AMBIGUOUS: several approved meanings, no default, no binding. Ask the user."""

    code = "QC001"


class Unsupported(GateError):
    """QC002 UNSUPPORTED: the meaning read, or the default that applies, is not approved now."""

    code = "QC002"


class Mismatch(GateError):
    """QC003 MISMATCH: the statement reads another meaning than the one bound or defaulted."""

    code = "QC003"


class Unverified(GateError):
    """QC004 UNVERIFIED: a binding's claim (confirmation, default, explicit) did not check out."""

    code = "QC004"


class AuditUnavailable(GateError):
    """QC005: the decision could not be audited in time, so the statement did not run.

    Nothing is wrong with the record; retrying later is the right response.
    """

    code = "QC005"


class GrainViolation(GateError):
    """QC006 GRAIN: a governed measure is aggregated in a way its definition does not allow.

    Nobody needs to be asked: the agent rewrites the statement as ``rewrite`` (the HINT) says,
    e.g. aggregate before joining the relations in a ``fanout`` slot's ``via``.
    """

    code = "QC006"

    @property
    def fanouts(self) -> Tuple[Slot, ...]:
        """Slots of joins that repeat the measure's rows."""
        return tuple(s for s in self.slots if s.kind == "fanout")

    @property
    def additivity(self) -> Tuple[Slot, ...]:
        """Slots of aggregates the measure's additivity or allowed aggregates forbid."""
        return tuple(s for s in self.slots if s.kind == "additivity")

    @property
    def rewrite(self) -> str:
        """How to rewrite the statement: the HINT, else the first slot's reason."""
        if self.hint:
            return self.hint
        return self.slots[0].reason if self.slots else self.message


GATE_ERRORS: Dict[str, Type[GateError]] = {
    cls.code: cls
    for cls in (
        ClarificationRequired,
        Unsupported,
        Mismatch,
        Unverified,
        AuditUnavailable,
        GrainViolation,
    )
    if cls.code is not None
}


def is_gate_sqlstate(sqlstate: Optional[str]) -> bool:
    """The QC class of SQLSTATEs belongs to the gate."""
    return bool(sqlstate) and str(sqlstate).startswith("QC")


def gate_error_from(error: psycopg.Error) -> Optional[GateError]:
    """The typed gate exception for a psycopg error, or ``None`` if the gate did not raise it."""
    sqlstate = error.sqlstate
    if not is_gate_sqlstate(sqlstate):
        return None
    diag = error.diag
    return GateError.from_parts(
        str(sqlstate),
        diag.message_primary or str(error),
        detail=diag.message_detail,
        hint=diag.message_hint,
    )


def _rebuild(
    error_class: Type[GateError],
    sqlstate: str,
    message: str,
    detail: Optional[str],
    hint: Optional[str],
    context: Tuple[Optional[str], Tuple[str, ...], Optional[str]] = (None, (), None),
) -> GateError:
    asked, mentioned, zone = context
    return error_class(
        sqlstate, message, detail=detail, hint=hint, asked=asked, mentioned_terms=mentioned,
        time_zone=zone,
    )


def _decode_payload(detail: Optional[str]) -> Tuple[Dict[str, Any], Optional[str]]:
    if detail is None or not detail.strip():
        return {}, "the error has no DETAIL"
    try:
        decoded = json.loads(detail)
    except (ValueError, RecursionError) as exc:
        return {}, f"DETAIL is not JSON: {exc}"
    if not isinstance(decoded, dict):
        return {}, f"DETAIL is JSON but not an object ({type(decoded).__name__})"
    return decoded, None


def _text(value: Any) -> Optional[str]:
    """Strings and numbers as text; anything else (null, lists, objects) as None."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return None


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []
