"""The agent's loop: ask, let the user choose, confirm, run again (against the server)."""

from __future__ import annotations

from datetime import timedelta

import psycopg
import pytest
from conftest import (
    AGENT, BOOKED, COUNTRY, CUSTOMER_COUNTRY, OUTSIDER, RECOGNIZED, REVENUE, SCHEMA,
    SHIPPING_COUNTRY, connect,
)

from pg_clarify_client import (
    Binding,
    ClarificationRequired,
    GatedSession,
    ResolutionRecord,
    Unverified,
    as_choice_question,
    confirm,
    revoke,
)

LEDGER_SQL = f"SELECT customer_country, sum(recognized_amount) FROM {SCHEMA}.revenue_ledger " \
             "GROUP BY 1 ORDER BY 1"
LEDGER_ROWS = [("France", 800), ("Germany", 1350)]


def binding_of(decision, column):
    (binding,) = [b for b in decision["bindings"] if b["column"] == column]
    return binding


def test_ask_confirm_rerun(agent, confirmer, question_id) -> None:
    question = "What was revenue by country?"
    record = ResolutionRecord(question_id, question)
    agent.attach(record)

    # 1. The gate asks.
    with pytest.raises(ClarificationRequired) as caught:
        agent.run(LEDGER_SQL)
    choice = as_choice_question(caught.value)
    assert [o["value"] for o in choice["options"]] == [BOOKED, RECOGNIZED]

    # 2. The user picks "Recognized revenue"; the chat app records it for the agent, for this
    #    question.
    picked = next(o for o in choice["options"] if o["label"] == "Recognized revenue")
    approval_id = confirm(confirmer, question_id, REVENUE, picked["value"], AGENT,
                          "alice@example.com", expires_in="15 minutes", question=question)
    assert isinstance(approval_id, int)

    # 3. The agent claims the confirmation and runs the same statement again.
    agent.attach(record.with_binding(Binding(REVENUE, picked["value"], "user_confirmation")))
    assert agent.run(LEDGER_SQL) == LEDGER_ROWS

    decision = agent.last_decision()
    assert decision["decision"] == "allowed"
    assert decision["question_id"] == question_id
    revenue = binding_of(decision, f"{SCHEMA}.revenue_ledger.recognized_amount")
    assert revenue["source"] == "user_confirmation"
    assert revenue["concept"] == RECOGNIZED
    assert revenue["approval_id"] == approval_id
    # The concept's version now, which the user confirmed (its mapping raised it, contract §18).
    current = confirmer.execute(
        "SELECT version FROM clarify.concepts WHERE id = %s", (RECOGNIZED,)
    ).fetchone()
    assert current is not None and revenue["version"] == current[0]
    # The country column was settled by the approved default, without a binding.
    country = binding_of(decision, f"{SCHEMA}.revenue_ledger.customer_country")
    assert (country["concept"], country["source"]) == (CUSTOMER_COUNTRY, "approved_default")
    assert country["default_applied"] is True

    # 4. A revoked confirmation no longer verifies.
    revoke(confirmer, approval_id)
    with pytest.raises(Unverified):
        agent.run(LEDGER_SQL)


def test_confirmation_without_a_term_verifies_a_binding_without_one(agent, confirmer, question_id):
    approval_id = confirm(confirmer, question_id, None, RECOGNIZED, AGENT, "alice@example.com")
    agent.attach(ResolutionRecord(question_id, "Revenue?",
                                  [Binding(None, RECOGNIZED, "user_confirmation")]))
    assert agent.run(LEDGER_SQL) == LEDGER_ROWS
    binding = binding_of(agent.last_decision(), f"{SCHEMA}.revenue_ledger.recognized_amount")
    assert (binding["source"], binding["approval_id"]) == ("user_confirmation", approval_id)


def test_confirmation_for_another_role_does_not_verify(agent, confirmer, question_id) -> None:
    confirm(confirmer, question_id, REVENUE, RECOGNIZED, OUTSIDER, "alice@example.com")
    agent.attach(ResolutionRecord(question_id, "Revenue?",
                                  [Binding(REVENUE, RECOGNIZED, "user_confirmation")]))
    with pytest.raises(Unverified):
        agent.run(LEDGER_SQL)


def test_confirmation_for_a_question_text_holds_for_that_text_only(agent, confirmer, question_id):
    confirm(confirmer, question_id, REVENUE, RECOGNIZED, AGENT, "alice@example.com",
            question="What was revenue by country?")
    claim = [Binding(REVENUE, RECOGNIZED, "user_confirmation")]
    agent.attach(ResolutionRecord(question_id, " What was revenue by country? ", claim))
    assert agent.run(LEDGER_SQL) == LEDGER_ROWS
    # The same question id kept for another question does not carry the choice over.
    agent.attach(ResolutionRecord(question_id, "What was margin by country?", claim))
    with pytest.raises(Unverified) as caught:
        agent.run(LEDGER_SQL)
    assert "another question text" in caught.value.slots[0].reason


def test_confirm_refuses_a_blank_question_text(confirmer, question_id) -> None:
    with pytest.raises(psycopg.errors.InvalidParameterValue, match="question must not be blank"):
        confirm(confirmer, question_id, REVENUE, RECOGNIZED, AGENT, "alice@example.com",
                question="  ")


def test_resolve_does_not_tell_the_agent_who_confirmed(agent, confirmer, question_id) -> None:
    confirm(confirmer, question_id, REVENUE, RECOGNIZED, AGENT, "alice@example.com")
    resolution = agent.resolve(REVENUE, question_id)
    assert (resolution["decision"], resolution["source"]) == ("RESOLVED", "user_confirmation")
    assert resolution["confirmed_by"] is None
    assert "alice" not in str(resolution)


def test_confirmation_for_another_question_does_not_verify(agent, confirmer, question_id):
    confirm(confirmer, question_id + "_other", REVENUE, RECOGNIZED, AGENT, "alice@example.com",
            expires_in=timedelta(minutes=5))
    agent.attach(ResolutionRecord(question_id, "Revenue?",
                                  [Binding(REVENUE, RECOGNIZED, "user_confirmation")]))
    with pytest.raises(Unverified):
        agent.run(LEDGER_SQL)


def test_explicit_binding_runs(agent, question_id) -> None:
    agent.attach(ResolutionRecord(question_id, "Show recognised revenue per country",
                                  [Binding(REVENUE, RECOGNIZED, "explicit")]))
    assert agent.run(LEDGER_SQL) == LEDGER_ROWS
    decision = agent.last_decision()
    binding = binding_of(decision, f"{SCHEMA}.revenue_ledger.recognized_amount")
    assert (binding["source"], binding["approval_id"]) == ("explicit", None)


def test_approved_default_binding_runs(agent, question_id) -> None:
    agent.attach(ResolutionRecord(question_id, "Orders per country",
                                  [Binding(COUNTRY, CUSTOMER_COUNTRY, "approved_default")]))
    rows = agent.run(f"SELECT customer_country, count(*) FROM {SCHEMA}.orders "
                     "GROUP BY 1 ORDER BY 1")
    assert rows == [("France", 1), ("Germany", 2)]
    binding = binding_of(agent.last_decision(), f"{SCHEMA}.orders.customer_country")
    assert binding["source"] == "approved_default"


def test_claiming_a_default_that_is_not_the_default_is_unverified(agent, question_id) -> None:
    agent.attach(ResolutionRecord(question_id, "Orders per country",
                                  [Binding(COUNTRY, SHIPPING_COUNTRY, "approved_default")]))
    with pytest.raises(Unverified):
        agent.run(f"SELECT ship_country FROM {SCHEMA}.orders")


def test_clear_removes_the_record(agent, question_id) -> None:
    agent.attach(ResolutionRecord(question_id, "Show Booked revenue",
                                  [Binding(REVENUE, BOOKED, "explicit")]))
    assert agent.run(f"SELECT sum(booked_amount) FROM {SCHEMA}.orders") == [(2450,)]
    agent.clear()
    assert agent.record is None
    assert agent.execute("SHOW pg_clarify.resolution") == [("",)]
    with pytest.raises(ClarificationRequired) as caught:
        agent.run(f"SELECT sum(booked_amount) FROM {SCHEMA}.orders")
    assert caught.value.question_id is None


def test_attach_sets_the_session_setting(agent, question_id) -> None:
    record = ResolutionRecord(question_id, "Show Booked revenue",
                              [Binding(REVENUE, BOOKED, "explicit")])
    agent.attach(record)
    assert agent.record == record
    (shown,) = agent.execute("SELECT current_setting('pg_clarify.resolution')")[0]
    assert ResolutionRecord.from_json(shown) == record


def test_a_record_the_server_refuses_keeps_the_previous_one(agent, question_id) -> None:
    good = ResolutionRecord(question_id, "Show Booked revenue",
                            [Binding(REVENUE, BOOKED, "explicit")])
    agent.attach(good)
    wrong_type = ResolutionRecord(question_id)
    object.__setattr__(wrong_type, "question_id", 17)  # slips past the client; the server refuses
    with pytest.raises(psycopg.errors.InvalidParameterValue):
        agent.attach(wrong_type)
    assert agent.record == good
    assert agent.run(f"SELECT sum(booked_amount) FROM {SCHEMA}.orders") == [(2450,)]


def test_transaction_local_record_ends_with_the_transaction(catalog, question_id) -> None:
    with connect(user=AGENT, autocommit=False) as conn:
        agent = GatedSession(conn)
        with pytest.raises(ValueError, match="open transaction"):
            agent.attach(ResolutionRecord(question_id), local=True)
        with conn.transaction():
            conn.execute("SELECT 1")
            agent.attach(ResolutionRecord(question_id, "Show Booked revenue",
                                          [Binding(REVENUE, BOOKED, "explicit")]), local=True)
            assert agent.run(f"SELECT sum(booked_amount) FROM {SCHEMA}.orders") == [(2450,)]
        with pytest.raises(ClarificationRequired):
            agent.run(f"SELECT sum(booked_amount) FROM {SCHEMA}.orders")


def test_a_rejection_inside_a_transaction_leaves_it_usable(catalog, question_id) -> None:
    with connect(user=AGENT, autocommit=False) as conn:
        agent = GatedSession(conn)
        with conn.transaction():
            with pytest.raises(ClarificationRequired):
                agent.run(f"SELECT sum(booked_amount) FROM {SCHEMA}.orders")
            assert agent.run(f"SELECT count(*) FROM {SCHEMA}.orders") == [(3,)]


def test_agents_cannot_confirm_their_own_bindings(agent, question_id) -> None:
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        confirm(agent.connection, question_id, REVENUE, BOOKED, AGENT, "the agent itself")


def test_confirm_refuses_a_concept_that_is_not_a_candidate(confirmer, question_id) -> None:
    with pytest.raises(psycopg.errors.InvalidParameterValue, match="not a candidate"):
        confirm(confirmer, question_id, COUNTRY, BOOKED, AGENT, "alice@example.com")


def test_check_and_resolve_ask_without_running(agent) -> None:
    resolved = agent.resolve(REVENUE)
    assert resolved["decision"] == "AMBIGUOUS"
    assert [o["value"] for o in resolved["options"]] == [BOOKED, RECOGNIZED]
    assert agent.resolve(COUNTRY)["selected"] == CUSTOMER_COUNTRY
    checked = agent.check(f"SELECT booked_amount FROM {SCHEMA}.orders")
    assert checked["state"] == "AMBIGUOUS"
    assert checked["slots"][0]["term"] == REVENUE
