"""The record follows PostgreSQL's jsonb rules (docs/reference.md): what the server's own jsonb
input refuses, SET refuses, in databases of every encoding class; what it accepts is kept as
canonical JSON with the same meaning."""

from __future__ import annotations

import json
from typing import Any, Iterator

import psycopg
import pytest

from conftest import connect

# Each text is a well-formed record when it is JSON at all, so only JSON rules decide.
TEXTS = [
    '{"question_id": "q_plain", "question": "Show revenue"}',
    '\ufeff{"question_id": "q_bom"}',
    '  \ufeff{"question_id": "q_bom_after_space"}',
    '{"question_id": "q_bom_inside", "question": "\ufeffrevenue"}',
    '\f{"question_id": "q_formfeed"}',
    '{"question_id": "q_nul", "question": "a\\u0000b"}',
    '{"question_id": "q_high", "question": "revenue \\ud83d"}',
    '{"question_id": "q_low", "question": "revenue \\ude00"}',
    '{"question_id": "q_two_high", "question": "\\ud83d\\ud83d\\ude00"}',
    '{"question_id": "q_pair", "question": "revenue \\ud83d\\ude80"}',
    '{"question_id": "q_escape", "question": "revenue \\x41"}',
    '{"question_id": "q_tab", "question": "revenue\tper quarter"}',
    '{"question_id": "q_del", "question": "revenue\x7f"}',
    '{"question_id": "q_raw", "question": "Umsatz für Köln"}',
    '{"question_id": "q_escaped", "question": "Umsatz f\\u00fcr K\\u00f6ln"}',
    '{"question_id": "q_ascii_escape", "question": "\\u0055msatz \\/ \\"K\\u006fln\\""}',
    '{"question_id": "q_duplicate", "question": "first", "question": "last"}',
]

# Stricter than jsonb on purpose, where jsonb's answer depends on the character: outside UTF8
# and SQL_ASCII databases the record is ASCII only.
ASCII_ONLY = {"q_raw", "q_escaped"}


def question_id_of(text: str) -> str:
    return text.split('"question_id": "', 1)[1].split('"', 1)[0]


@pytest.fixture(scope="module", params=["UTF8", "SQL_ASCII", "LATIN1"])
def database(request: Any, admin: psycopg.Connection[Any]) -> Iterator[str]:
    name = f"regress_server_record_{request.param.lower()}"
    admin.execute(f"DROP DATABASE IF EXISTS {name}")
    admin.execute(f"CREATE DATABASE {name} TEMPLATE template0 ENCODING '{request.param}' "
                  "LC_COLLATE 'C' LC_CTYPE 'C'")
    try:
        yield name
    finally:
        admin.execute(f"DROP DATABASE IF EXISTS {name}")


def jsonb_of(conn: psycopg.Connection[Any], text: str) -> Any:
    """The server's jsonb of text, or None when its jsonb input refuses it."""
    try:
        with conn.transaction():
            return conn.execute("SELECT %s::text::jsonb", (text,)).fetchone()[0]
    except psycopg.Error:
        return None


def canonical(value: Any) -> str:
    """The parser's serialization: keys sorted, no whitespace, characters as they are."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


@pytest.mark.parametrize("text", TEXTS, ids=question_id_of)
def test_set_refuses_what_jsonb_refuses_and_keeps_canonical_json(database: str,
                                                                  text: str) -> None:
    with connect(dbname=database, client_encoding="UTF8") as conn:
        encoding = conn.execute("SHOW server_encoding").fetchone()[0]
        expected = jsonb_of(conn, text)
        if encoding == "LATIN1" and question_id_of(text) in ASCII_ONLY:
            expected = None
        conn.execute("""SET pg_clarify.resolution = '{"question_id": "before"}'""")
        try:
            with conn.transaction():
                conn.execute("SELECT set_config('pg_clarify.resolution', %s, false)", (text,))
            accepted = True
        except psycopg.errors.InvalidParameterValue as error:
            assert "invalid resolution record" in str(error)
            accepted = False
        except psycopg.errors.UntranslatableCharacter:
            accepted = False  # LATIN1 cannot even hold the text: it never reached the setting
        shown = conn.execute("SHOW pg_clarify.resolution").fetchone()[0]
        if expected is None:
            assert not accepted, f"SET took what jsonb refuses in {encoding}: {text!r}"
            assert json.loads(shown) == {"question_id": "before"}
        else:
            assert accepted, f"SET refused what jsonb accepts in {encoding}: {text!r}"
            assert shown == canonical(expected)


def test_a_refusal_quoting_a_long_key_stays_valid_utf8(catalog: None) -> None:
    # The message is cut to fit the setting's error; never in the middle of a character.
    record = json.dumps({"x" + "中" * 300: 1}, ensure_ascii=False)
    with connect(client_encoding="UTF8") as conn:
        with pytest.raises(psycopg.errors.InvalidParameterValue) as refused:
            conn.execute("SELECT set_config('pg_clarify.resolution', %s, false)", (record,))
    message = refused.value.diag.message_primary or ""
    assert message.startswith('invalid resolution record: unknown key "x中中')
    assert "\ufffd" not in message
