"""Clarifications rendered for the chat UI's ``choice`` question."""

from __future__ import annotations

from typing import Any, Dict, List, Union

from .errors import GateError, Slot

#: Chat UIs show the header as a short chip above the question; longer text is cut.
HEADER_MAX = 12


def as_choice_question(source: Union[GateError, Slot]) -> Dict[str, Any]:
    """The first clarification of ``source`` as a ``choice`` question for the chat UI.

    For an error, that is its first slot that has options to choose from. Raises
    ``ValueError`` when there is nothing to choose (e.g. an UNSUPPORTED meaning, or an audit
    failure): such a rejection is reported to the user, not asked about.
    """
    if isinstance(source, Slot):
        return _choice(source)
    questions = as_choice_questions(source)
    if not questions:
        raise ValueError(
            f"{source.sqlstate} offers no meanings to choose from; tell the user: {source.question}"
        )
    return questions[0]


def as_choice_questions(error: GateError) -> List[Dict[str, Any]]:
    """One ``choice`` question per failing slot that has options, in the gate's order.

    The gate orders slots by impact, highest first: ask the first, bind the answer, run the
    statement again and ask what the gate asks next (an answer can settle later slots).
    """
    return [_choice(slot) for slot in error.slots if slot.options]


def _choice(slot: Slot) -> Dict[str, Any]:
    if not slot.options:
        raise ValueError(f"the slot for {slot.term or slot.kind or 'this meaning'!r} has no options")
    return {
        "type": "choice",
        "header": _header(slot),
        "question": slot.question or _fallback_question(slot),
        "multiSelect": False,
        "options": [
            {"label": option.label, "value": option.value, "description": option.description}
            for option in slot.options
        ],
    }


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
