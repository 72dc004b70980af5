"""Each of the gate's rejections arrives as its typed exception (against the server)."""

from __future__ import annotations

import psycopg
import pytest
from conftest import (
    BOOKED, COUNTRY, CUSTOMER_COUNTRY, MARGIN, MARGIN_TERM, RECOGNIZED, REVENUE, SCHEMA,
    SHIPPING_COUNTRY,
)

from pg_clarify_client import (
    Binding,
    ClarificationRequired,
    GateError,
    GrainViolation,
    Mismatch,
    ResolutionRecord,
    Unsupported,
    Unverified,
)

BOOKED_SQL = f"SELECT sum(booked_amount) FROM {SCHEMA}.orders"

REVENUE_OPTIONS = [
    (BOOKED, "Booked revenue", "Value of accepted orders", "Sales"),
    (RECOGNIZED, "Recognized revenue", "Revenue recognized under the accounting standard",
     "Finance"),
]


def options_of(slot):
    return [(o.value, o.label, o.description, o.owner) for o in slot.options]


def test_ambiguous_term_raises_clarification_required(agent, question_id) -> None:
    agent.attach(ResolutionRecord(question_id, "What was revenue in Germany?"))
    with pytest.raises(ClarificationRequired) as caught:
        agent.run(BOOKED_SQL + " WHERE customer_country = %s", ("Germany",))
    error = caught.value
    assert error.sqlstate == "QC001"
    assert error.state == "AMBIGUOUS"
    assert error.question_id == question_id
    assert error.decision_id and error.decision_id.isdigit()
    assert error.question == error.hint
    assert "Booked revenue" in error.question and f"{SCHEMA}" not in error.question
    (slot,) = error.slots
    assert (slot.term, slot.kind, slot.state) == (REVENUE, "metric", "AMBIGUOUS")
    assert slot.question == f'When you say "{REVENUE}", do you mean:'
    assert options_of(slot) == REVENUE_OPTIONS
    assert slot.columns == (f"{SCHEMA}.orders.booked_amount",)
    assert slot.actual == BOOKED
    assert isinstance(error.__cause__, psycopg.Error)
    # The decision the error names is the session's last one, and it was rejected.
    decision = agent.last_decision()
    assert decision["decision_id"] == error.decision_id
    assert decision["decision"] == "rejected"


def test_draft_meaning_raises_unsupported(agent, question_id) -> None:
    agent.attach(ResolutionRecord(question_id, "What is our margin?"))
    with pytest.raises(Unsupported) as caught:
        agent.run(f"SELECT margin FROM {SCHEMA}.costs")
    error = caught.value
    assert error.sqlstate == "QC002"
    assert error.state == "UNSUPPORTED"
    assert error.question_id == question_id and error.decision_id
    (slot,) = error.slots
    assert (slot.term, slot.state, slot.actual) == (MARGIN_TERM, "UNSUPPORTED", MARGIN)
    assert slot.options == ()
    assert "draft" in slot.reason


def test_reading_another_meaning_than_the_bound_one_raises_mismatch(agent, question_id) -> None:
    agent.attach(ResolutionRecord(question_id, "Show Recognized revenue by country",
                                  [Binding(REVENUE, RECOGNIZED, "explicit")]))
    with pytest.raises(Mismatch) as caught:
        agent.run(BOOKED_SQL)
    error = caught.value
    assert error.sqlstate == "QC003"
    assert error.question_id == question_id and error.decision_id
    (slot,) = error.slots
    assert (slot.state, slot.expected, slot.actual) == ("MISMATCH", RECOGNIZED, BOOKED)
    assert options_of(slot) == REVENUE_OPTIONS


def test_reading_a_non_default_candidate_raises_mismatch_naming_the_default(agent) -> None:
    with pytest.raises(Mismatch) as caught:
        agent.run(f"SELECT ship_country, count(*) FROM {SCHEMA}.orders GROUP BY 1")
    (slot,) = caught.value.slots
    assert (slot.term, slot.default, slot.actual) == (COUNTRY, CUSTOMER_COUNTRY, SHIPPING_COUNTRY)
    assert caught.value.question_id is None  # no record attached


def test_forged_user_confirmation_raises_unverified(agent, question_id) -> None:
    agent.attach(ResolutionRecord(question_id, "What was revenue in Germany?",
                                  [Binding(REVENUE, BOOKED, "user_confirmation")]))
    with pytest.raises(Unverified) as caught:
        agent.run(BOOKED_SQL)
    error = caught.value
    assert error.sqlstate == "QC004"
    assert error.state == "UNVERIFIED"
    assert error.question_id == question_id and error.decision_id
    (slot,) = error.slots
    assert (slot.term, slot.expected, slot.actual) == (REVENUE, BOOKED, BOOKED)
    assert question_id in slot.reason
    assert options_of(slot) == REVENUE_OPTIONS


def test_explicit_claim_the_question_does_not_support_raises_unverified(agent, question_id):
    agent.attach(ResolutionRecord(question_id, "What was revenue in Germany?",
                                  [Binding(REVENUE, BOOKED, "explicit")]))
    with pytest.raises(Unverified):
        agent.run(BOOKED_SQL)


def test_several_failing_columns_report_the_first_state_and_every_slot(agent) -> None:
    with pytest.raises(ClarificationRequired) as caught:
        agent.run(f"SELECT o.booked_amount, c.margin FROM {SCHEMA}.orders o "
                  f"JOIN {SCHEMA}.costs c ON c.id = o.id")
    states = sorted(slot.state for slot in caught.value.slots)
    assert states == ["AMBIGUOUS", "UNSUPPORTED"]


def test_errors_that_are_not_the_gates_pass_through_unchanged(agent) -> None:
    with pytest.raises(psycopg.errors.UndefinedTable):
        agent.run(f"SELECT * FROM {SCHEMA}.no_such_table")
    with pytest.raises(psycopg.errors.DivisionByZero):
        agent.run("SELECT 1 / 0")


def test_a_qc_error_with_malformed_detail_is_still_typed(agent) -> None:
    """Whatever raises a QC code, the client reports it instead of crashing on the DETAIL."""
    with pytest.raises(ClarificationRequired) as caught:
        agent.run("DO $$ BEGIN RAISE EXCEPTION 'odd rejection' USING ERRCODE = 'QC001', "
                  "DETAIL = '{\"slots\": [', HINT = 'Which one?'; END $$")
    error = caught.value
    assert error.message == "odd rejection"
    assert error.detail == '{"slots": ['
    assert error.payload == {} and error.payload_error
    assert error.slots == () and error.question == "Which one?"


def test_a_gate_error_subclasses_gate_error(agent) -> None:
    with pytest.raises(GateError):
        agent.run(BOOKED_SQL)


def test_fanout_raises_grain_violation_and_the_rewrite_runs(agent, question_id) -> None:
    agent.attach(ResolutionRecord(question_id, "Booked revenue of orders with lines", [
        Binding(REVENUE, BOOKED, "explicit")]))
    with pytest.raises(GrainViolation) as caught:
        agent.run(f"SELECT sum(o.booked_amount) FROM {SCHEMA}.orders o "
                  f"JOIN {SCHEMA}.order_lines l ON l.order_id = o.id")
    error = caught.value
    assert error.sqlstate == "QC006"
    (slot,) = error.fanouts
    assert slot.via == (f"{SCHEMA}.order_lines",)
    assert slot.options == ()
    assert "before joining" in error.rewrite
    rows = agent.run(f"SELECT sum(o.booked_amount) FROM {SCHEMA}.orders o WHERE EXISTS "
                     f"(SELECT 1 FROM {SCHEMA}.order_lines l WHERE l.order_id = o.id)")
    assert rows == [(2150,)]
