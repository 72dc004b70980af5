"""Time-range slots: the period of a dated measure asked as a choice, one slot per round."""

from __future__ import annotations

from typing import Any, Iterator

import psycopg
import pytest
from conftest import AGENT, SCHEMA

from pg_clarify_client import (
    Binding,
    ClarificationRequired,
    GateError,
    GatedSession,
    ResolutionRecord,
    as_choice_question,
    confirm,
)

FEES = "regress_py.booking_fees"
CALENDAR_Q1 = "regress_py.calendar_q1"
FISCAL_Q1 = "regress_py.fiscal_q1"
CHANNEL_WEB = "regress_py.channel_web"
CHANNEL_SHOP = "regress_py.channel_shop"
QUARTER = "py quarter"
CHANNEL = "py channel"

SETUP_SQL = f"""
CREATE TABLE {SCHEMA}.fees (id int PRIMARY KEY, booked_on date NOT NULL, channel text NOT NULL,
                            fee numeric NOT NULL);
INSERT INTO {SCHEMA}.fees SELECT g, date '2025-12-01' + g, CASE WHEN g % 2 = 0 THEN 'web'
    ELSE 'shop' END, g FROM generate_series(1, 200) g;
GRANT SELECT ON {SCHEMA}.fees TO PUBLIC;
INSERT INTO clarify.concepts (id, kind, label, description, owner, status, window_start,
                              window_end) VALUES
  ('{FEES}', 'metric', 'Booking fees', 'Fees charged per booking', 'Sales', 'approved', NULL, NULL),
  ('{CHANNEL_WEB}', 'dimension', 'Web channel', 'Where the order was placed online', 'Sales',
   'approved', NULL, NULL),
  ('{CHANNEL_SHOP}', 'dimension', 'Shop channel', 'The store that took the order', 'Sales',
   'approved', NULL, NULL),
  ('{CALENDAR_Q1}', 'time_window', 'Calendar Q1 2026', 'January to March 2026', 'Finance',
   'approved', $$date '2026-01-01'$$, $$date '2026-04-01'$$),
  ('{FISCAL_Q1}', 'time_window', 'Fiscal Q1 2026', 'February to April 2026', 'Finance',
   'approved', $$date '2026-02-01'$$, $$date '2026-05-01'$$);
INSERT INTO clarify.concept_columns (concept_id, relation, column_name, time_column,
                                     requires_time_range) VALUES
  ('{FEES}', '{SCHEMA}.fees', 'fee', 'booked_on', true),
  ('{CHANNEL_WEB}', '{SCHEMA}.fees', 'channel', NULL, false),
  ('{CHANNEL_SHOP}', '{SCHEMA}.fees', 'channel', NULL, false);
INSERT INTO clarify.terms (term, concept_id, impact) VALUES
  ('{QUARTER}', '{CALENDAR_Q1}', 'high'), ('{QUARTER}', '{FISCAL_Q1}', 'high'),
  ('{CHANNEL}', '{CHANNEL_WEB}', 'medium'), ('{CHANNEL}', '{CHANNEL_SHOP}', 'medium');
"""

FISCAL_SQL = (f"SELECT channel, sum(fee) FROM {SCHEMA}.fees WHERE booked_on >= '2026-02-01' "
              "AND booked_on < '2026-05-01' GROUP BY 1 ORDER BY 1")
UNBOUNDED_SQL = f"SELECT channel, sum(fee) FROM {SCHEMA}.fees GROUP BY 1 ORDER BY 1"


@pytest.fixture
def fees(admin: psycopg.Connection[Any], catalog: None) -> Iterator[None]:
    admin.execute(SETUP_SQL)
    try:
        yield
    finally:
        ids = f"('{FEES}', '{CALENDAR_Q1}', '{FISCAL_Q1}', '{CHANNEL_WEB}', '{CHANNEL_SHOP}')"
        admin.execute(f"DROP TABLE {SCHEMA}.fees; "
                      f"DELETE FROM clarify.approvals WHERE concept_id IN {ids}; "
                      f"DELETE FROM clarify.concepts WHERE id IN {ids}")


def test_period_slot_is_a_choice_of_time_windows(fees: None, agent: GatedSession) -> None:
    with pytest.raises(ClarificationRequired) as caught:
        agent.run(UNBOUNDED_SQL)
    first = caught.value.slots[0]
    assert (first.kind, first.impact, first.measure) == ("time_range", "high", FEES)
    assert first.actual_range == (None, None)
    assert [s.kind for s in caught.value.slots] == ["time_range", "dimension", "dimension"]
    assert as_choice_question(caught.value) == {
        "type": "choice",
        "header": "Period",
        "question": "For which period should Booking fees be computed?",
        "multiSelect": False,
        "mentioned": [],
        "options": [
            {"label": "Calendar Q1 2026", "value": CALENDAR_Q1,
             "description": "January to March 2026"},
            {"label": "Fiscal Q1 2026", "value": FISCAL_Q1,
             "description": "February to April 2026"},
        ],
    }
    assert caught.value.hint.startswith("For which period should Booking fees be computed?")


def test_one_slot_per_round_in_payload_order(fees: None, agent: GatedSession,
                                             confirmer: psycopg.Connection[Any],
                                             question_id: str) -> None:
    question = "Booking fees by channel last quarter"
    record = ResolutionRecord(question_id, question)
    agent.attach(record)
    asked = []
    sql = UNBOUNDED_SQL
    for _ in range(4):
        try:
            rows = agent.run(sql)
            break
        except GateError as error:
            choice = as_choice_question(error)
            asked.append(choice["header"])
            # The user picks the fiscal quarter, then the web channel.
            value = FISCAL_Q1 if choice["header"] == "Period" else CHANNEL_WEB
            term = QUARTER if value == FISCAL_Q1 else CHANNEL
            confirm(confirmer, question_id, term, value, AGENT, "alice@example.com",
                    question=question)
            record = record.with_binding(Binding(term, value, "user_confirmation"))
            agent.attach(record)
            if value == FISCAL_Q1:
                sql = FISCAL_SQL  # the agent rewrites the statement for the period chosen
    else:
        pytest.fail(f"still asking after {asked}")
    assert asked == ["Period", CHANNEL]
    assert rows == [("shop", 4664), ("web", 4770)]
    decision = agent.last_decision()
    (fee,) = [b for b in decision["bindings"] if b["column"].endswith(".fee")]
    assert fee["window"] == FISCAL_Q1
