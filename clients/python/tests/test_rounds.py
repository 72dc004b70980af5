"""The clarification budget as the person sees it: "question 2 of 3", and once the budget is
spent, that the choice is theirs (no server needed)."""

from __future__ import annotations

import json

from pg_clarify_client import GateError, as_choice_question, round_line

SLOT = {
    "kind": "metric", "term": "revenue", "state": "AMBIGUOUS", "impact": "high",
    "reason": "2 approved meanings and no default applies",
    "question": 'When you say "revenue", do you mean:',
    "options": [
        {"value": "metric.booked_revenue", "label": "Booked revenue",
         "description": "Value of accepted orders", "owner": "Sales"},
        {"value": "metric.invoiced_revenue", "label": "Invoiced revenue",
         "description": "Amounts billed", "owner": "Billing"},
    ],
}


def rejection(**rounds: object) -> GateError:
    payload = {"decision_id": "1", "state": "AMBIGUOUS", "question_id": "q_1",
               "status": "awaiting_clarification", "slots": [SLOT], **rounds}
    return GateError.from_parts("QC001", "ambiguous", detail=json.dumps(payload))


def test_the_round_of_a_budget_reads_question_n_of_m() -> None:
    error = rejection(round=2, max_rounds=3)
    assert (error.round, error.max_rounds, error.budget_exhausted) == (2, 3, False)
    assert round_line(error) == "question 2 of 3"
    choice = as_choice_question(error)
    assert choice["round"] == "question 2 of 3"
    assert "yours" not in choice


def test_without_a_budget_the_person_is_not_shown_a_count() -> None:
    error = rejection(round=4)
    assert (error.round, error.max_rounds) == (4, None)
    assert round_line(error) is None
    assert "round" not in as_choice_question(error)


def test_without_a_round_nothing_is_added() -> None:
    error = rejection()
    assert error.round is None
    assert round_line(error) is None
    assert "round" not in as_choice_question(error)


def test_once_exhausted_the_person_is_told_the_choice_is_theirs() -> None:
    error = rejection(round=4, max_rounds=3, budget_exhausted=True)
    assert error.budget_exhausted is True
    assert round_line(error) == "question 4 (all 3 rounds used)"
    choice = as_choice_question(error)
    assert "the choice is yours" in choice["yours"]
    assert "Booked revenue" not in choice["yours"]


def test_malformed_round_members_are_ignored() -> None:
    error = rejection(round="two", max_rounds=-1, budget_exhausted="yes")
    assert (error.round, error.max_rounds, error.budget_exhausted) == (None, None, False)
    assert round_line(error) is None
