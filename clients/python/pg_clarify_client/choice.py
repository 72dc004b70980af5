"""Clarifications rendered for the chat UI's ``choice`` question."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Union

from .errors import GateError, Slot
from .record import same_term
from .ranges import describe_range
from .rounds import round_line, yours_line

#: Chat UIs show the header as a short chip above the question; longer text is cut.
HEADER_MAX = 12


def as_choice_question(
    source: Union[GateError, Slot],
    *,
    mentioned: Optional[Sequence[str]] = None,
    time_zone: Optional[str] = None,
) -> Dict[str, Any]:
    """The first clarification of ``source`` as a ``choice`` question for the chat UI.

    For an error, that is its first slot that has options to choose from. Raises
    ``ValueError`` when there is nothing to choose (e.g. an UNSUPPORTED meaning, or an audit
    failure): such a rejection is reported to the user, not asked about.

    ``mentioned`` (the governed terms the user's question mentions) and ``time_zone`` (the
    session's, for a period the gate gives no days for) default to what
    :meth:`GatedSession.run` put on the error.
    """
    if isinstance(source, Slot):
        return _choice(source, mentioned or (), time_zone)
    questions = as_choice_questions(source, mentioned=mentioned, time_zone=time_zone)
    if not questions:
        raise ValueError(
            f"{source.sqlstate} offers no meanings to choose from; tell the user: {source.question}"
        )
    return questions[0]


def as_choice_questions(
    error: GateError,
    *,
    mentioned: Optional[Sequence[str]] = None,
    time_zone: Optional[str] = None,
) -> List[Dict[str, Any]]:
    """One ``choice`` question per failing slot that has options, in the gate's order.

    The gate orders slots by impact, highest first: ask the first, bind the answer, run the
    statement again and ask what the gate asks next (an answer can settle later slots).
    """
    words = error.mentioned_terms if mentioned is None else tuple(mentioned)
    zone = error.time_zone if time_zone is None else time_zone
    questions = [_choice(slot, words, zone) for slot in error.slots if slot.options]
    # The clarification budget (rounds.py): which round, and whose choice it now is.
    line, yours = round_line(error), yours_line(error)
    for question in questions:
        if line:
            question["round"] = line
        if yours:
            question["yours"] = yours
    return questions


def _choice(slot: Slot, mentioned: Sequence[str], time_zone: Optional[str]) -> Dict[str, Any]:
    if not slot.options:
        raise ValueError(f"the slot for {slot.term or slot.kind or 'this meaning'!r} has no options")
    choice: Dict[str, Any] = {
        "type": "choice",
        "header": _header(slot),
        "question": slot.question or _fallback_question(slot),
        "multiSelect": False,
        "options": [_option(option, time_zone) for option in slot.options],
        "mentioned": list(mentioned),
    }
    about = mentioned_line(slot.term, mentioned)
    if about:
        choice["about"] = about
    if slot.kind == "entity":
        # Which one of several named alike: the value is the key to filter on, not a meaning.
        choice["entity"] = {"value": slot.value, "truncated": slot.truncated}
        if slot.truncated:
            choice["note"] = (f"More than {len(slot.options)} match \"{slot.value}\"; "
                              "ask for a detail to narrow it down if none of these is right.")
    return choice


def _option(option: Any, time_zone: Optional[str]) -> Dict[str, Any]:
    out = {"label": option.label, "value": option.value, "description": option.description}
    # The gate's days are in the window's own zone; a server before them gives none.
    period = getattr(option, "period", None) or describe_range(option.range, time_zone)
    if period:
        # The evaluated window, as the person reads it: they choose a period, not a name.
        out["range"] = period
        out["description"] = f"{option.description} ({period})" if option.description else period
    return out


def mentioned_line(term: Optional[str], mentioned: Sequence[str]) -> Optional[str]:
    """Which of the user's words the question is about: 'This is about "revenue", a word of
    your question.' (and the other governed words it mentions), or None without any."""
    if not mentioned:
        return None
    if term and any(same_term(term, word) for word in mentioned):
        others = [word for word in mentioned if not same_term(term, word)]
        line = f'This is about "{term}", a word of your question'
        return line + (f" (it also mentions {_quoted(others)})." if others else ".")
    return f"Your question mentions {_quoted(mentioned)}."


def _quoted(words: Sequence[str]) -> str:
    quoted = [f'"{word}"' for word in words]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _header(slot: Slot) -> str:
    if slot.kind == "time_range" and not slot.term:
        return "Period"
    text = slot.term or (slot.kind.capitalize() if slot.kind else "Meaning")
    return text if len(text) <= HEADER_MAX else text[: HEADER_MAX - 1] + "\u2026"


def _fallback_question(slot: Slot) -> str:
    if slot.kind == "time_range":
        return "For which period?"
    if slot.term:
        return f'When you say "{slot.term}", do you mean:'
    return "Which meaning do you mean:"
