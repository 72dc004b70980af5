"""The governed terms the user's question mentions, and the record that carries it (§13)."""

from __future__ import annotations

from conftest import REVENUE

from pg_clarify_client import ResolutionRecord


def test_mentioned_terms_of_a_question(agent) -> None:
    assert REVENUE in agent.mentioned_terms(f"What was our {REVENUE.upper()} last year?")
    assert agent.mentioned_terms("nothing governed here") == []


def test_mentioned_terms_default_to_the_attached_question(agent, question_id) -> None:
    assert agent.mentioned_terms() == []
    agent.attach(ResolutionRecord(question_id, f"Show {REVENUE} by month"))
    assert REVENUE in agent.mentioned_terms()
