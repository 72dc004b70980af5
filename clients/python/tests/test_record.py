"""The resolution record as the agent builds it (no server needed)."""

from __future__ import annotations

import json

import pytest

from pg_clarify_client import MAX_RECORD_BYTES, Binding, ResolutionRecord


def test_record_json_has_the_contract_shape() -> None:
    record = ResolutionRecord(
        question_id="q_1042",
        question="Show revenue for Germany last quarter",
        bindings=[
            Binding("revenue", "metric.recognized_revenue", "user_confirmation"),
            Binding("country", "dim.customer_country", "approved_default"),
        ],
    )
    assert json.loads(record.to_json()) == {
        "question_id": "q_1042",
        "question": "Show revenue for Germany last quarter",
        "bindings": [
            {"term": "revenue", "concept": "metric.recognized_revenue",
             "source": "user_confirmation"},
            {"term": "country", "concept": "dim.customer_country", "source": "approved_default"},
        ],
    }
    assert "\n" not in record.to_json()


def test_binding_without_term_omits_it_and_record_without_question_omits_it() -> None:
    record = ResolutionRecord("q_1", bindings=[Binding(None, "metric.booked_revenue", "explicit")])
    assert json.loads(record.to_json()) == {
        "question_id": "q_1",
        "bindings": [{"concept": "metric.booked_revenue", "source": "explicit"}],
    }


def test_record_round_trips_through_json() -> None:
    record = ResolutionRecord("q_2", "Umsatz für Köln", [Binding("revenue", "m.x", "explicit")])
    assert ResolutionRecord.from_json(record.to_json()) == record
    assert "Köln" in record.to_json()  # sent as UTF-8, not \\u escapes


def test_with_binding_replaces_the_same_term_case_insensitively() -> None:
    record = ResolutionRecord("q_3", bindings=[Binding("Revenue ", "m.booked", "explicit")])
    updated = record.with_binding(Binding("revenue", "m.recognized", "user_confirmation"))
    assert updated.bindings == (Binding("revenue", "m.recognized", "user_confirmation"),)
    assert record.bindings == (Binding("Revenue ", "m.booked", "explicit"),)  # unchanged


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda: Binding("revenue", "m.x", "user_confirmed"), "source must be one of"),  # type: ignore[arg-type]
        (lambda: Binding("revenue", " ", "explicit"), "must name a concept"),
        (lambda: Binding("", "m.x", "explicit"), "term must be a non-blank"),
        (lambda: ResolutionRecord(""), "non-blank question_id"),
        (lambda: ResolutionRecord("q", bindings=[{"concept": "m.x"}]), "Binding objects"),  # type: ignore[list-item]
        (lambda: ResolutionRecord.from_json("{not json"), "must be JSON"),
        (lambda: ResolutionRecord.from_json("[]"), "must be a JSON object"),
    ],
)
def test_bad_records_are_refused_before_reaching_the_server(build, message) -> None:
    with pytest.raises(ValueError, match=message):
        build()


def test_oversized_record_is_refused_by_the_client() -> None:
    record = ResolutionRecord("q_big", "x" * MAX_RECORD_BYTES)
    with pytest.raises(ValueError, match="at most 65536"):
        record.to_json()


def test_the_shorthand_reads_as_one_binding():
    record = ResolutionRecord.from_json(
        '{"question_id": "q_9", "metric": "metric.recognized_revenue", "user_confirmed": true}')
    assert record.question_id == "q_9"
    assert record.bindings == (Binding(None, "metric.recognized_revenue", "user_confirmation"),)
    explicit = ResolutionRecord.from_json(
        '{"question_id": "q_9", "metric": "metric.booked_revenue", "resolution_source": "explicit"}')
    assert explicit.bindings[0].source == "explicit"
