"""Entity slots (contract §14) as the chat UI's choice question: which "Acme"."""

from __future__ import annotations

from pg_clarify_client import Option, Slot, as_choice_question


def entity_slot(truncated: bool = False) -> Slot:
    return Slot.from_payload({
        "kind": "entity", "term": "Customer", "state": "AMBIGUOUS", "value": "Acme Corp",
        "reason": "2 Customer entries are named \"Acme Corp\"",
        "question": "Which Customer do you mean by \"Acme Corp\"?",
        "options": [{"value": "1", "label": "Acme Corp (Berlin)"},
                    {"value": "2", "label": "Acme Corp (Paris)"}],
        "columns": ["crm.customers.name"], "truncated": truncated,
    })


def test_entity_slot_reads_value_and_truncated() -> None:
    slot = entity_slot(truncated=True)
    assert slot.kind == "entity"
    assert slot.value == "Acme Corp"
    assert slot.truncated is True
    assert slot.options[0] == Option(value="1", label="Acme Corp (Berlin)")


def test_entity_choice_offers_the_keys() -> None:
    assert as_choice_question(entity_slot()) == {
        "type": "choice",
        "header": "Customer",
        "question": "Which Customer do you mean by \"Acme Corp\"?",
        "multiSelect": False,
        "mentioned": [],
        "options": [
            {"label": "Acme Corp (Berlin)", "value": "1", "description": ""},
            {"label": "Acme Corp (Paris)", "value": "2", "description": ""},
        ],
        "entity": {"value": "Acme Corp", "truncated": False},
    }


def test_truncated_entity_choice_says_more_exist() -> None:
    choice = as_choice_question(entity_slot(truncated=True))
    assert choice["entity"] == {"value": "Acme Corp", "truncated": True}
    assert choice["note"].startswith("More than 2 match")
