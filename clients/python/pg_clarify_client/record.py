"""The resolution record an agent attaches to its session (docs/reference.md, "The resolution
record").

The record is a claim, not a permission: the gate verifies every binding against the catalog,
the user confirmations and the question text before it lets a statement read a governed column.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, Mapping, Optional, Sequence, Tuple

Source = Literal["user_confirmation", "approved_default", "explicit"]

#: The three ways a binding may claim its meaning was settled, in the gate's spelling.
SOURCES: Tuple[str, ...] = ("user_confirmation", "approved_default", "explicit")

#: The server refuses larger records when they are set; checking here gives a clearer error.
MAX_RECORD_BYTES = 64 * 1024


def same_term(a: str, b: str) -> bool:
    """Terms compare as the catalog compares them: trimmed, ASCII letters case-folded."""
    fold = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
    blanks = " \t\n\r\f\v"
    return a.strip(blanks).translate(fold) == b.strip(blanks).translate(fold)


@dataclass(frozen=True)
class Binding:
    """One business term bound to one concept, and why the agent believes it.

    ``term`` may be ``None`` when the binding names the meaning alone (for example a concept
    the user picked without a term being involved).
    """

    term: Optional[str]
    concept: str
    source: Source

    def __post_init__(self) -> None:
        if self.term is not None and (not isinstance(self.term, str) or not self.term.strip()):
            raise ValueError("a binding's term must be a non-blank string or None")
        if not isinstance(self.concept, str) or not self.concept.strip():
            raise ValueError("a binding must name a concept")
        if self.source not in SOURCES:
            raise ValueError(
                f"a binding's source must be one of {', '.join(SOURCES)}; got {self.source!r}"
            )

    def to_dict(self) -> dict[str, Any]:
        """The binding as the gate reads it; ``term`` is left out when there is none."""
        out: dict[str, Any] = {}
        if self.term is not None:
            out["term"] = self.term
        out["concept"] = self.concept
        out["source"] = self.source
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Binding":
        """Reads one entry of a record's ``bindings`` list."""
        if not isinstance(data, Mapping):
            raise ValueError("a binding must be a JSON object")
        return cls(term=data.get("term"), concept=data.get("concept"), source=data.get("source"))  # type: ignore[arg-type]


@dataclass(frozen=True)
class ResolutionRecord:
    """What the agent knows about the meanings in one user question.

    ``question_id`` ties the record to the user confirmations recorded for that question;
    ``question`` is the user's own words, against which ``explicit`` bindings are checked and
    confirmations recorded for that question's text are matched.
    """

    question_id: str
    question: Optional[str] = None
    bindings: Sequence[Binding] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if not isinstance(self.question_id, str) or not self.question_id.strip():
            raise ValueError("a resolution record needs a non-blank question_id")
        if self.question is not None and not isinstance(self.question, str):
            raise ValueError("a record's question must be text")
        bindings = tuple(self.bindings)
        for binding in bindings:
            if not isinstance(binding, Binding):
                raise ValueError(f"bindings must be Binding objects, not {type(binding).__name__}")
        # Frozen, so a record attached to a session cannot change behind the gate's back.
        object.__setattr__(self, "bindings", bindings)

    def with_binding(self, binding: Binding) -> "ResolutionRecord":
        """A copy of this record with one more binding, replacing any for the same term."""
        kept = tuple(
            b for b in self.bindings
            if binding.term is None or b.term is None or not same_term(b.term, binding.term)
        )
        return ResolutionRecord(self.question_id, self.question, kept + (binding,))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"question_id": self.question_id}
        if self.question is not None:
            out["question"] = self.question
        out["bindings"] = [b.to_dict() for b in self.bindings]
        return out

    def to_json(self) -> str:
        """The record as one compact JSON document, ready for ``pg_clarify.resolution``."""
        text = json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))
        if len(text.encode("utf-8")) > MAX_RECORD_BYTES:
            raise ValueError(
                f"the resolution record is {len(text.encode('utf-8'))} bytes; "
                f"the gate accepts at most {MAX_RECORD_BYTES}"
            )
        return text

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "ResolutionRecord":
        if not isinstance(data, Mapping):
            raise ValueError("a resolution record must be a JSON object")
        if "metric" in data and "bindings" not in data:
            # The single-binding shorthand (docs/reference.md, "The resolution record").
            source = data.get("resolution_source")
            if source is None and data.get("user_confirmed") is True:
                source = "user_confirmation"
            return cls(
                question_id=data.get("question_id"),  # type: ignore[arg-type]
                question=data.get("question"),
                bindings=(Binding(term=None, concept=data.get("metric"), source=source),),  # type: ignore[arg-type]
            )
        bindings = data.get("bindings", [])
        if not isinstance(bindings, list):
            raise ValueError("a record's bindings must be a list")
        return cls(
            question_id=data.get("question_id"),  # type: ignore[arg-type]
            question=data.get("question"),
            bindings=tuple(Binding.from_dict(b) for b in bindings),
        )

    @classmethod
    def from_json(cls, text: str) -> "ResolutionRecord":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"a resolution record must be JSON: {exc}") from None
        return cls.from_dict(data)
