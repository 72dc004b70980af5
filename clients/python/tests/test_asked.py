"""What the person is shown beside a clarification: the governed words of their question, each
period's evaluated range in the session's zone, and meanings the question names claimed as
``explicit`` by the database's own word match (clarify.mentions), not a rule of this client."""

from __future__ import annotations

import json
from typing import Any, Iterator

import psycopg
import pytest
from conftest import BOOKED, COUNTRY, RECOGNIZED, REVENUE, SCHEMA
from test_time_range import CALENDAR_Q1, FISCAL_Q1, QUARTER, fees  # noqa: F401 (a fixture)

from pg_clarify_client import (
    ClarificationRequired,
    GateError,
    GatedSession,
    ResolutionRecord,
    as_choice_question,
)
from pg_clarify_client.ranges import describe_range

MRR = "regress_py.mrr"
BOOKED_SQL = f"SELECT sum(booked_amount) FROM {SCHEMA}.orders"


def test_the_rejection_names_the_words_of_the_question(agent: GatedSession,
                                                       question_id: str) -> None:
    question = f"Show {REVENUE} by {COUNTRY}"
    agent.attach(ResolutionRecord(question_id, question))
    with pytest.raises(ClarificationRequired) as caught:
        agent.run(f"SELECT customer_country, sum(booked_amount) FROM {SCHEMA}.orders GROUP BY 1")
    error = caught.value
    assert error.asked == question
    assert error.mentioned_terms == (COUNTRY, REVENUE)
    choice = as_choice_question(error)
    assert choice["mentioned"] == [COUNTRY, REVENUE]
    assert choice["about"] == (f'This is about "{REVENUE}", a word of your question '
                               f'(it also mentions "{COUNTRY}").')


def test_no_question_mentions_nothing(agent: GatedSession) -> None:
    with pytest.raises(ClarificationRequired) as caught:
        agent.run(BOOKED_SQL)
    assert caught.value.mentioned_terms == ()
    assert "about" not in as_choice_question(caught.value)


def test_period_options_show_their_range_in_the_session_zone(fees: None,  # noqa: F811
                                                             agent: GatedSession,
                                                             question_id: str) -> None:
    agent.execute("SET TimeZone = 'Europe/Berlin'")
    agent.attach(ResolutionRecord(question_id, f"Booking fees by channel for the {QUARTER}"))
    with pytest.raises(ClarificationRequired) as caught:
        agent.run(f"SELECT sum(fee) FROM {SCHEMA}.fees WHERE booked_on >= '2026-01-01' "
                  "AND booked_on < '2026-04-01'")
    error = caught.value
    assert error.time_zone == "Europe/Berlin"
    slot = error.slots[0]
    assert (slot.kind, slot.term) == ("time_range", QUARTER)
    # The payload keeps half-open UTC instants: midnight in Berlin is 23:00 UTC in winter.
    calendar = next(o for o in slot.options if o.value == CALENDAR_Q1)
    assert calendar.range == ("2025-12-31T23:00:00Z", "2026-03-31T22:00:00Z")
    options = {o["value"]: o for o in as_choice_question(error)["options"]}
    assert options[CALENDAR_Q1]["range"] == "1 Jan – 31 Mar 2026"
    assert options[CALENDAR_Q1]["description"] == "January to March 2026 (1 Jan – 31 Mar 2026)"
    assert options[FISCAL_Q1]["range"] == "1 Feb – 30 Apr 2026"
    # The gate's days (the session's zone: the window has none of its own) win over another zone.
    assert calendar.period == "1 Jan – 31 Mar 2026"
    assert as_choice_question(error, time_zone="UTC")["options"][0]["range"] == calendar.period
    # Read in UTC, the same instants are not midnights: times, the end said to be excluded.
    assert describe_range(calendar.range, "UTC") == (
        "31 Dec 2025 23:00 – 31 Mar 2026 22:00 (end excluded)")


def test_ranges_as_people_read_them() -> None:
    assert describe_range(("2026-07-01T00:00:00Z", "2026-10-01T00:00:00Z"), "UTC") == (
        "1 Jul – 30 Sep 2026")
    assert describe_range(("2025-12-01T00:00:00Z", "2026-03-01T00:00:00Z"), None) == (
        "1 Dec 2025 – 28 Feb 2026")
    assert describe_range(("2026-03-01T00:00:00Z", "2026-03-02T00:00:00Z"), "UTC") == "1 Mar 2026"
    assert describe_range(("2026-01-01T00:00:00Z", None), "UTC") == "from 1 Jan 2026"
    assert describe_range((None, "2026-01-01T00:00:00Z"), "UTC") == "until 31 Dec 2025"
    # Across the change to winter time (25 October 2026) the end is still a midnight there.
    assert describe_range(("2026-07-31T22:00:00Z", "2026-10-31T23:00:00Z"),
                          "Europe/Berlin") == "1 Aug – 31 Oct 2026"
    assert describe_range(("x", None), "UTC") is None
    assert describe_range(None, "UTC") is None
    assert describe_range(("2026-07-01T00:00:00Z", "2026-10-01T00:00:00Z"), "no/such zone") == (
        "1 Jul – 30 Sep 2026")


def test_the_range_survives_pickling_with_the_context() -> None:
    import pickle

    detail = json.dumps({"state": "AMBIGUOUS", "slots": [{
        "kind": "time_range", "term": QUARTER, "state": "AMBIGUOUS", "options": [{
            "value": CALENDAR_Q1, "label": "Q1", "range": {"start": "2026-01-01T00:00:00Z",
                                                           "end": "2026-04-01T00:00:00Z"}}]}]})
    error = GateError.from_parts("QC001", "m", detail=detail, hint="h")
    error.asked, error.mentioned_terms, error.time_zone = "q", (QUARTER,), "UTC"
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.asked, copy.mentioned_terms, copy.time_zone) == ("q", (QUARTER,), "UTC")
    assert as_choice_question(copy)["options"][0]["range"] == "1 Jan – 31 Mar 2026"


@pytest.fixture
def mrr(admin: psycopg.Connection[Any], catalog: None) -> Iterator[None]:
    """A third meaning of the revenue term, labelled by its abbreviation: "MRR"."""
    admin.execute(f"""
        CREATE TABLE {SCHEMA}.subscriptions (id int PRIMARY KEY, mrr numeric NOT NULL);
        INSERT INTO {SCHEMA}.subscriptions VALUES (1, 40), (2, 60);
        GRANT SELECT ON {SCHEMA}.subscriptions TO PUBLIC;
        INSERT INTO clarify.concepts (id, kind, label, description, owner, status)
             VALUES ('{MRR}', 'metric', 'MRR', 'Monthly recurring revenue', 'Finance', 'approved');
        INSERT INTO clarify.concept_columns (concept_id, relation, column_name)
             VALUES ('{MRR}', '{SCHEMA}.subscriptions', 'mrr');
        INSERT INTO clarify.terms (term, concept_id) VALUES ('{REVENUE}', '{MRR}');""")
    try:
        yield
    finally:
        admin.execute(f"DROP TABLE {SCHEMA}.subscriptions; "
                      f"DELETE FROM clarify.concepts WHERE id = '{MRR}'")


def test_a_meaning_the_question_names_is_claimed(mrr: None, agent: GatedSession,
                                                 question_id: str) -> None:
    sql = f"SELECT sum(mrr) FROM {SCHEMA}.subscriptions"
    agent.attach(ResolutionRecord(question_id, "What is our MRR?"))
    with pytest.raises(ClarificationRequired) as caught:
        agent.run(sql)  # without claim_named the client claims nothing: the gate asks
    assert caught.value.slots[0].term == REVENUE
    assert agent.claim_named(caught.value.slots[0]) == MRR

    assert agent.run(sql, claim_named=True) == [(100,)]
    (binding,) = agent.last_decision()["bindings"]
    assert (binding["concept"], binding["source"]) == (MRR, "explicit")
    assert [(b.term, b.concept, b.source) for b in agent.record.bindings] == [
        (REVENUE, MRR, "explicit")]


def test_whole_words_only_and_one_meaning_only(agent: GatedSession, question_id: str) -> None:
    # "Unbooked revenue" names no label as whole words: nothing is claimed, the person is asked.
    agent.attach(ResolutionRecord(question_id, "Unbooked revenue by country?"))
    with pytest.raises(ClarificationRequired):
        agent.run(BOOKED_SQL, claim_named=True)
    assert agent.record.bindings == ()
    # Both meanings named: the person must choose.
    agent.attach(ResolutionRecord(question_id, "Booked revenue or recognized revenue?"))
    with pytest.raises(ClarificationRequired) as caught:
        agent.run(BOOKED_SQL, claim_named=True)
    assert agent.named_meanings(caught.value.slots[0]) == [BOOKED, RECOGNIZED]
    # One named, by an alias, case-folded: claimed and verified by the gate.
    agent.attach(ResolutionRecord(question_id, "RECOGNISED REVENUE by country"))
    rows = agent.run(f"SELECT sum(recognized_amount) FROM {SCHEMA}.revenue_ledger",
                     claim_named=True)
    assert rows == [(2150,)]
    assert agent.last_decision()["bindings"][0]["source"] == "explicit"


def test_a_confirmed_term_is_not_claimed_over(agent: GatedSession, confirmer: Any,
                                              question_id: str) -> None:
    from conftest import AGENT

    from pg_clarify_client import Binding, Mismatch, confirm

    question = "Recognized revenue by country"
    confirm(confirmer, question_id, REVENUE, BOOKED, AGENT, "alice@example.com", question=question)
    record = ResolutionRecord(question_id, question, (Binding(REVENUE, BOOKED, "user_confirmation"),))
    agent.attach(record)
    # The user chose Booked revenue: the question's wording does not overrule the choice.
    with pytest.raises(Mismatch):
        agent.run(f"SELECT sum(recognized_amount) FROM {SCHEMA}.revenue_ledger", claim_named=True)
    assert agent.record == record
