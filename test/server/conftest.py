"""Fixtures for the server's own tests (test/server), run by scripts/test with pytest against a
cluster that preloads pg_clarify; they talk to the server with plain psycopg, not the client.

The server comes from the libpq environment (PGHOST, PGPORT, PGDATABASE; PGUSER a superuser).
The fixture owns everything named regress_server*: it removes leftovers of an interrupted run
before it starts and its own rows when it ends, so the suite can run again on the same database.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any, Dict, Iterator

import psycopg
import pytest

AGENT = "regress_server_agent"
SCHEMA = "regress_server_sales"

BOOKED = "regress_server.booked_revenue"
RECOGNIZED = "regress_server.recognized_revenue"

REVENUE = "server revenue"

BOOKED_SQL = f"SELECT sum(booked_amount) FROM {SCHEMA}.orders"

CLEANUP_SQL = f"""
DELETE FROM clarify.concepts WHERE id LIKE 'regress\\_server.%';
DELETE FROM clarify.agent_roles WHERE agent_role::text = '{AGENT}';
DROP SCHEMA IF EXISTS {SCHEMA} CASCADE;
DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = '{AGENT}') THEN
        ALTER ROLE {AGENT} RESET ALL;
    END IF;
END
$$;
"""

SETUP_SQL = f"""
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{AGENT}') THEN
        CREATE ROLE {AGENT} LOGIN;
    END IF;
END
$$;

CREATE SCHEMA {SCHEMA};
CREATE TABLE {SCHEMA}.orders (
    id               integer PRIMARY KEY,
    customer_country text NOT NULL,
    booked_amount    numeric(12, 2) NOT NULL
);
CREATE TABLE {SCHEMA}.revenue_ledger (
    id                integer PRIMARY KEY,
    recognized_amount numeric(12, 2) NOT NULL
);
INSERT INTO {SCHEMA}.orders VALUES
    (1, 'Germany', 1200.00), (2, 'France', 950.00), (3, 'Germany', 300.00);
INSERT INTO {SCHEMA}.revenue_ledger VALUES (1, 1350.00), (2, 800.00);
GRANT USAGE ON SCHEMA {SCHEMA} TO {AGENT};
GRANT SELECT ON ALL TABLES IN SCHEMA {SCHEMA} TO {AGENT};

INSERT INTO clarify.concepts (id, kind, label, description, owner, status, aliases) VALUES
    ('{BOOKED}', 'metric', 'Booked revenue', 'Value of accepted orders', 'Sales',
     'approved', '{{}}'),
    ('{RECOGNIZED}', 'metric', 'Recognized revenue',
     'Revenue recognized under the accounting standard', 'Finance', 'approved', '{{}}');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES
    ('{BOOKED}', '{SCHEMA}.orders', 'booked_amount'),
    ('{RECOGNIZED}', '{SCHEMA}.revenue_ledger', 'recognized_amount');
INSERT INTO clarify.terms (term, concept_id) VALUES
    ('{REVENUE}', '{BOOKED}'), ('{REVENUE}', '{RECOGNIZED}');

SELECT clarify.govern_role('{AGENT}');
"""


def connect(**kwargs: Any) -> psycopg.Connection[Any]:
    """A connection to the test database (libpq environment), autocommit unless told."""
    kwargs.setdefault("autocommit", True)
    return psycopg.connect(**kwargs)


def explicit_record(question_id: str, question: str) -> str:
    """A record that binds REVENUE to BOOKED explicitly, as compact JSON."""
    return json.dumps({"question_id": question_id, "question": question,
                       "bindings": [{"term": REVENUE, "concept": BOOKED, "source": "explicit"}]},
                      separators=(",", ":"))


def attach(conn: psycopg.Connection[Any], record: str) -> None:
    """Sets the session's pg_clarify.resolution."""
    conn.execute("SELECT set_config('pg_clarify.resolution', %s, false)", (record,))


def last_decision_id(conn: psycopg.Connection[Any]) -> str:
    return conn.execute("SELECT clarify.last_decision() ->> 'decision_id'").fetchone()[0]


def payload(error: psycopg.Error) -> Dict[str, Any]:
    """The decoded DETAIL of a gate rejection."""
    return json.loads(error.diag.message_detail or "{}")


def audited(admin: psycopg.Connection[Any], decision_id: str, seconds: float = 10.0) -> bool:
    """Whether the decision has its row in the audit, waiting up to `seconds` for the writer."""
    deadline = time.monotonic() + seconds
    while True:
        row = admin.execute("SELECT count(*) FROM clarify.audit WHERE decision_id = %s",
                            (int(decision_id),)).fetchone()
        if row[0] or time.monotonic() > deadline:
            return bool(row[0])
        time.sleep(0.05)


@pytest.fixture(scope="session")
def admin() -> Iterator[psycopg.Connection[Any]]:
    """The superuser connection that owns the fixture."""
    with connect() as conn:
        yield conn


@pytest.fixture(scope="session")
def catalog(admin: psycopg.Connection[Any]) -> Iterator[None]:
    """The schema, role and governance catalog every test reads."""
    admin.execute("SET client_min_messages = warning")
    admin.execute(CLEANUP_SQL)
    try:
        admin.execute(SETUP_SQL)
        yield
    finally:
        admin.execute(CLEANUP_SQL)


@pytest.fixture
def question_id() -> str:
    """A question id no other test or run has used."""
    return f"q_server_{uuid.uuid4().hex[:12]}"
