"""A period's option as the person reads it: the days the server gives ("period"), in the window's
own zone (concepts.window_time_zone), not re-read in the session's (CONTRACT.md §16)."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from conftest import SCHEMA
from test_time_range import CALENDAR_Q1, FISCAL_Q1, QUARTER, fees  # noqa: F401 (a fixture)

from pg_clarify_client import (
    ClarificationRequired,
    GatedSession,
    ResolutionRecord,
    as_choice_question,
)
from pg_clarify_client.ranges import describe_range


def test_a_window_in_tokyo_reads_in_tokyo_for_a_new_york_session(
        fees: None, admin: psycopg.Connection[Any], agent: GatedSession,  # noqa: F811
        question_id: str) -> None:
    admin.execute("UPDATE clarify.concepts SET window_time_zone = 'Asia/Tokyo' WHERE id = %s",
                  (CALENDAR_Q1,))
    agent.execute("SET TimeZone = 'America/New_York'")
    agent.attach(ResolutionRecord(question_id, f"Booking fees for the {QUARTER}"))
    with pytest.raises(ClarificationRequired) as caught:
        agent.run(f"SELECT sum(fee) FROM {SCHEMA}.fees")
    error = caught.value
    calendar = next(o for o in error.slots[0].options if o.value == CALENDAR_Q1)
    # The instants are Tokyo's midnights: New York's clock would show 10:00 and 11:00.
    assert calendar.range == ("2025-12-31T15:00:00Z", "2026-03-31T15:00:00Z")
    assert describe_range(calendar.range, error.time_zone) == (
        "31 Dec 2025 10:00 – 31 Mar 2026 11:00 (end excluded)")
    assert calendar.period == "1 Jan – 31 Mar 2026"
    options = {o["value"]: o for o in as_choice_question(error)["options"]}
    assert options[CALENDAR_Q1]["range"] == "1 Jan – 31 Mar 2026"
    assert options[CALENDAR_Q1]["description"] == "January to March 2026 (1 Jan – 31 Mar 2026)"
    # A window without a zone: the session's days.
    assert options[FISCAL_Q1]["range"] == "1 Feb – 30 Apr 2026"
