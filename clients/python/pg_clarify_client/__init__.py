"""Agent-side client for pg_clarify, the clarification gate inside PostgreSQL.

An agent attaches a :class:`ResolutionRecord` to its :class:`GatedSession`, runs SQL, and
receives the gate's rejections as typed exceptions; the chat app renders them with
:func:`as_choice_question` and records the user's answer with :func:`confirm`.
"""

from .choice import HEADER_MAX, as_choice_question, as_choice_questions
from .confirmer import ApprovalNotReplayed, confirm, revoke
from .errors import (
    GATE_ERRORS,
    AuditUnavailable,
    ClarificationRequired,
    GateError,
    GrainViolation,
    Mismatch,
    Option,
    Slot,
    Unsupported,
    Unverified,
    gate_error_from,
)
from .ranges import describe_range
from .rounds import round_line, yours_line
from .record import MAX_RECORD_BYTES, SOURCES, Binding, ResolutionRecord, Source
from .session import RESOLUTION_SETTING, GatedSession

__version__ = "1.0.0"

__all__ = [
    "ApprovalNotReplayed",
    "AuditUnavailable",
    "Binding",
    "ClarificationRequired",
    "GATE_ERRORS",
    "GateError",
    "GatedSession",
    "GrainViolation",
    "HEADER_MAX",
    "MAX_RECORD_BYTES",
    "Mismatch",
    "Option",
    "RESOLUTION_SETTING",
    "ResolutionRecord",
    "SOURCES",
    "Slot",
    "Source",
    "Unsupported",
    "Unverified",
    "as_choice_question",
    "as_choice_questions",
    "confirm",
    "describe_range",
    "gate_error_from",
    "revoke",
    "round_line",
    "yours_line",
]
