"""Reading the gate's DETAIL payload defensively (no server needed)."""

from __future__ import annotations

import json
import pickle

import pytest

from pg_clarify_client import (
    AuditUnavailable,
    ClarificationRequired,
    GateError,
    GrainViolation,
    Mismatch,
    Option,
    Unsupported,
    Unverified,
)

PAYLOAD = {
    "decision_id": "3659416775688193",
    "state": "AMBIGUOUS",
    "question_id": "q_1042",
    "status": "awaiting_clarification",
    "slots": [{
        "kind": "metric", "term": "revenue", "state": "AMBIGUOUS",
        "reason": "2 approved meanings and no default applies",
        "question": 'When you say "revenue", do you mean:',
        "options": [
            {"value": "metric.booked_revenue", "label": "Booked revenue",
             "description": "Value of accepted orders", "owner": "Sales"},
            {"value": "metric.recognized_revenue", "label": "Recognized revenue",
             "description": "Revenue recognized", "owner": "Finance"},
        ],
        "columns": ["sales.orders.booked_amount"],
        "default": None, "expected": None, "actual": "metric.booked_revenue",
    }],
}


@pytest.mark.parametrize(
    "sqlstate, error_class",
    [("QC001", ClarificationRequired), ("QC002", Unsupported), ("QC003", Mismatch),
     ("QC004", Unverified), ("QC005", AuditUnavailable), ("QC006", GrainViolation),
     ("QC999", GateError)],
)
def test_each_sqlstate_gets_its_class(sqlstate, error_class) -> None:
    error = GateError.from_parts(sqlstate, "rejected", detail=json.dumps(PAYLOAD))
    assert type(error) is error_class
    assert error.sqlstate == sqlstate


def test_payload_is_read_into_slots_and_options() -> None:
    error = GateError.from_parts("QC001", "ambiguous", detail=json.dumps(PAYLOAD), hint="Which?")
    assert error.decision_id == "3659416775688193"
    assert error.question_id == "q_1042"
    assert error.state == "AMBIGUOUS"
    assert error.status == "awaiting_clarification"
    assert error.question == "Which?"
    assert error.payload_error is None
    (slot,) = error.slots
    assert slot.term == "revenue" and slot.kind == "metric" and slot.state == "AMBIGUOUS"
    assert slot.columns == ("sales.orders.booked_amount",)
    assert slot.actual == "metric.booked_revenue" and slot.default is None
    assert slot.options[0] == Option("metric.booked_revenue", "Booked revenue",
                                     "Value of accepted orders", "Sales")


@pytest.mark.parametrize(
    "detail, problem",
    [
        ("{truncated", "not JSON"),
        ("[1, 2]", "not an object"),
        ('"a string"', "not an object"),
        ("", "no DETAIL"),
        (None, "no DETAIL"),
        ("[" * 100000, "not JSON"),  # deep nesting must not escape as RecursionError
    ],
)
def test_malformed_detail_keeps_the_raw_text(detail, problem) -> None:
    error = GateError.from_parts("QC001", "ambiguous", detail=detail, hint="Which revenue?")
    assert isinstance(error, ClarificationRequired)
    assert error.detail == detail
    assert error.payload == {}
    assert problem in (error.payload_error or "")
    assert error.slots == ()
    assert error.decision_id is None
    assert error.question == "Which revenue?"


def test_wrongly_typed_payload_fields_are_ignored_not_fatal() -> None:
    detail = json.dumps({
        "decision_id": 42, "question_id": ["not", "text"], "slots": [
            "not a slot",
            {"term": 7, "options": [{"label": "no value"}, "x", {"value": "m.ok"}],
             "columns": "sales.orders.x", "question": None},
        ],
    })
    error = GateError.from_parts("QC003", "mismatch", detail=detail)
    assert error.decision_id == "42"
    assert error.question_id is None
    (slot,) = error.slots
    assert slot.term == "7"
    assert slot.options == (Option("m.ok", "m.ok"),)
    assert slot.columns == ()
    assert error.question == "mismatch"  # no hint, no slot question: the message


def test_gate_errors_survive_pickling() -> None:
    error = GateError.from_parts("QC001", "ambiguous", detail=json.dumps(PAYLOAD), hint="Which?")
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is ClarificationRequired
    assert copy.slots == error.slots and copy.hint == "Which?"
    assert str(copy) == "QC001: ambiguous"


GRAIN_PAYLOAD = {
    "decision_id": "7", "state": "GRAIN", "question_id": "q_7", "status": "awaiting_rewrite",
    "slots": [
        {"kind": "fanout", "term": "revenue", "state": "GRAIN",
         "reason": "Booked revenue would be counted once for every matching order line",
         "question": None, "options": [], "columns": ["sales.orders.booked_amount"],
         "default": None, "expected": None, "actual": "metric.booked_revenue",
         "via": ["sales.order_lines"]},
        {"kind": "additivity", "term": "rate", "state": "GRAIN",
         "reason": "Conversion rate is not additive", "question": None, "options": [],
         "columns": ["sales.rates.rate"], "default": None, "expected": None,
         "actual": "metric.rate", "aggregate": "sum", "allowed": ["avg", "max"]},
    ],
}


def test_grain_violation_carries_its_slots_and_the_rewrite() -> None:
    error = GateError.from_parts("QC006", "grain", detail=json.dumps(GRAIN_PAYLOAD),
                                 hint="Aggregate Booked revenue before joining order lines.")
    assert isinstance(error, GrainViolation)
    assert error.state == "GRAIN"
    assert error.rewrite == "Aggregate Booked revenue before joining order lines."
    (fanout,) = error.fanouts
    assert fanout.via == ("sales.order_lines",)
    assert fanout.question == ""
    (additivity,) = error.additivity
    assert additivity.aggregate == "sum"
    assert additivity.allowed == ("avg", "max")
    assert pickle.loads(pickle.dumps(error)).fanouts == error.fanouts
