"""Segments: a governed filter the question names, asked and settled through the client."""

from __future__ import annotations

from typing import Any, Iterator

import psycopg
import pytest
from conftest import AGENT, SCHEMA

from pg_clarify_client import (
    Binding,
    ClarificationRequired,
    GatedSession,
    Mismatch,
    ResolutionRecord,
    as_choice_question,
    confirm,
)

PURCHASED = "regress_py.purchased_30d"
LOGGED_IN = "regress_py.logged_in_30d"
TERM = "py active customers"
QUESTION = "How many py active customers do we have?"

SETUP_SQL = f"""
CREATE TABLE {SCHEMA}.accounts (id int PRIMARY KEY, last_order_at date, last_login_at date);
INSERT INTO {SCHEMA}.accounts SELECT g, current_date - g, current_date - 2 * g
  FROM generate_series(1, 60) g;
GRANT SELECT ON {SCHEMA}.accounts TO PUBLIC;
INSERT INTO clarify.concepts (id, kind, label, description, owner, status, segment_relation,
                              segment_predicate) VALUES
  ('{PURCHASED}', 'segment', 'Purchased in the last 30 days', 'Placed an order recently',
   'Sales', 'approved', '{SCHEMA}.accounts', 'last_order_at >= current_date - 30'),
  ('{LOGGED_IN}', 'segment', 'Logged in in the last 30 days', 'Used the product recently',
   'Product', 'approved', '{SCHEMA}.accounts', 'last_login_at >= current_date - 30');
INSERT INTO clarify.terms (term, concept_id) VALUES ('{TERM}', '{PURCHASED}'),
  ('{TERM}', '{LOGGED_IN}');
"""


@pytest.fixture
def accounts(admin: psycopg.Connection[Any], catalog: None) -> Iterator[None]:
    admin.execute(SETUP_SQL)
    try:
        yield
    finally:
        ids = f"('{PURCHASED}', '{LOGGED_IN}')"
        admin.execute(f"DROP TABLE {SCHEMA}.accounts; "
                      f"DELETE FROM clarify.approvals WHERE concept_id IN {ids}; "
                      f"DELETE FROM clarify.concepts WHERE id IN {ids}")


def test_a_mentioned_segment_is_asked_and_then_required(accounts: None, agent: GatedSession,
                                                        confirmer: psycopg.Connection[Any],
                                                        question_id: str) -> None:
    record = ResolutionRecord(question_id, QUESTION)
    agent.attach(record)
    with pytest.raises(ClarificationRequired) as caught:
        agent.run(f"SELECT count(*) FROM {SCHEMA}.accounts")
    (slot,) = caught.value.slots
    assert (slot.kind, slot.term, slot.state) == ("segment", TERM, "AMBIGUOUS")
    choice = as_choice_question(caught.value)
    assert [o["value"] for o in choice["options"]] == [LOGGED_IN, PURCHASED]
    assert "current_date" not in str(choice)
    confirm(confirmer, question_id, TERM, PURCHASED, AGENT, "alice@example.com",
            question=QUESTION)
    agent.attach(record.with_binding(Binding(TERM, PURCHASED, "user_confirmation")))
    with pytest.raises(Mismatch) as mismatch:
        agent.run(f"SELECT count(*) FROM {SCHEMA}.accounts "
                  "WHERE last_login_at >= current_date - 30")
    (slot,) = mismatch.value.slots
    assert (slot.kind, slot.state, slot.expected, slot.actual) == (
        "segment", "MISMATCH", "last_order_at >= current_date - 30", LOGGED_IN)
    rows = agent.run(f"SELECT count(*) FROM {SCHEMA}.accounts "
                     "WHERE current_date - 30 <= last_order_at")
    assert rows == [(30,)]
    (binding,) = agent.last_decision()["bindings"]
    assert (binding["concept"], binding["source"]) == (PURCHASED, "user_confirmation")
