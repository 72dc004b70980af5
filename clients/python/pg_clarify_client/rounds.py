"""The clarification budget as the person reads it (pg_clarify.max_rounds): which round this
question is, and, once the budget is spent, that the remaining choice is theirs."""

from __future__ import annotations

from typing import Any, Optional


def positive_int(value: Any) -> Optional[int]:
    """A round number from the payload, or None when it is missing or not a positive integer."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return None
    return value


def round_line(error: Any) -> Optional[str]:
    """ "question 2 of 3"; None without a budget (the person is not told a count without an
    end) or when the round was not counted."""
    current = getattr(error, "round", None)
    total = getattr(error, "max_rounds", None)
    if current is None or total is None:
        return None
    if getattr(error, "budget_exhausted", False):
        return f"question {current} (all {total} rounds used)"
    return f"question {current} of {total}"


def yours_line(error: Any) -> Optional[str]:
    """What to tell the person once the budget is spent and a meaning is still asked."""
    if not getattr(error, "budget_exhausted", False):
        return None
    total = getattr(error, "max_rounds", None)
    rounds = f"all {total} clarification rounds" if total else "its clarification rounds"
    return (
        f"This question has used {rounds}. What could be assumed was assumed; this meaning "
        "matters too much to guess, so the choice is yours."
    )
