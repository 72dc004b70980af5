"""Clarifications rendered as the chat UI's choice question."""

from __future__ import annotations

import pytest
from conftest import BOOKED, RECOGNIZED, REVENUE, SCHEMA

from pg_clarify_client import (
    HEADER_MAX,
    ClarificationRequired,
    Option,
    Slot,
    Unsupported,
    as_choice_question,
    as_choice_questions,
)


def make_slot(term, options=(), question="") -> Slot:
    return Slot(kind="metric", term=term, state="AMBIGUOUS", reason="", question=question,
                options=tuple(options), columns=(), default=None, expected=None, actual=None)


def test_choice_from_a_real_clarification(agent) -> None:
    with pytest.raises(ClarificationRequired) as caught:
        agent.run(f"SELECT sum(booked_amount) FROM {SCHEMA}.orders")
    assert as_choice_question(caught.value) == {
        "type": "choice",
        "header": REVENUE,
        "question": f'When you say "{REVENUE}", do you mean:',
        "multiSelect": False,
        "mentioned": [],
        "options": [
            {"label": "Booked revenue", "value": BOOKED,
             "description": "Value of accepted orders"},
            {"label": "Recognized revenue", "value": RECOGNIZED,
             "description": "Revenue recognized under the accounting standard"},
        ],
    }
    assert as_choice_question(caught.value.slots[0]) == as_choice_question(caught.value)


def test_choice_skips_slots_without_options(agent) -> None:
    with pytest.raises(ClarificationRequired) as caught:
        agent.run(f"SELECT o.booked_amount, c.margin FROM {SCHEMA}.orders o "
                  f"JOIN {SCHEMA}.costs c ON c.id = o.id")
    questions = as_choice_questions(caught.value)
    assert [q["header"] for q in questions] == [REVENUE]
    assert as_choice_question(caught.value) == questions[0]


def test_nothing_to_choose_is_a_value_error(agent) -> None:
    with pytest.raises(Unsupported) as caught:
        agent.run(f"SELECT margin FROM {SCHEMA}.costs")
    with pytest.raises(ValueError, match="no meanings to choose"):
        as_choice_question(caught.value)
    assert as_choice_questions(caught.value) == []


def test_long_headers_are_cut_and_missing_questions_filled_in() -> None:
    slot = make_slot("recognized revenue", [Option("m.r", "Recognized revenue")])
    choice = as_choice_question(slot)
    assert len(choice["header"]) == HEADER_MAX
    assert choice["header"].endswith("\u2026")
    assert choice["question"] == 'When you say "recognized revenue", do you mean:'
    assert choice["options"] == [{"label": "Recognized revenue", "value": "m.r",
                                  "description": ""}]
