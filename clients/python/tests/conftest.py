"""Fixtures for the client's tests against a real server with pg_clarify installed.

The server comes from the libpq environment (PGHOST, PGPORT, PGDATABASE; PGUSER a superuser).
The fixture owns everything named regress_py*: it removes leftovers of an interrupted run before
it starts and its own rows when it ends, so the suite can run again on the same database.
"""

from __future__ import annotations

import os
import sys
import uuid
from typing import Any, Iterator

import psycopg
import pytest

# Tests use the package from the source tree: nothing has to be pip-installed.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from pg_clarify_client import GatedSession  # noqa: E402

AGENT = "regress_py_agent"
CONFIRMER = "regress_py_app"
OUTSIDER = "regress_py_outsider"  # a governed agent that is not AGENT
SCHEMA = "regress_py_sales"

BOOKED = "regress_py.booked_revenue"
RECOGNIZED = "regress_py.recognized_revenue"
MARGIN = "regress_py.gross_margin"
CUSTOMER_COUNTRY = "regress_py.customer_country"
SHIPPING_COUNTRY = "regress_py.shipping_country"

REVENUE = "py revenue"
MARGIN_TERM = "py margin"
COUNTRY = "py country"

CLEANUP_SQL = f"""
DELETE FROM clarify.defaults WHERE concept_id LIKE 'regress\\_py.%';
DELETE FROM clarify.approvals WHERE concept_id LIKE 'regress\\_py.%';
DELETE FROM clarify.concepts WHERE id LIKE 'regress\\_py.%';
DELETE FROM clarify.agent_roles
 WHERE agent_role::text IN ('{AGENT}', '{OUTSIDER}');
DROP SCHEMA IF EXISTS {SCHEMA} CASCADE;
DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = '{CONFIRMER}') THEN
        REVOKE EXECUTE ON FUNCTION clarify.confirm,
                                   clarify.revoke
          FROM {CONFIRMER};
    END IF;
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = '{AGENT}') THEN
        ALTER ROLE {AGENT} RESET ALL;
    END IF;
END
$$;
"""

SETUP_SQL = f"""
DO $$
DECLARE
    r text;
BEGIN
    FOREACH r IN ARRAY ARRAY['{AGENT}', '{CONFIRMER}', '{OUTSIDER}'] LOOP
        IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = r) THEN
            EXECUTE format('CREATE ROLE %I LOGIN', r);
        END IF;
    END LOOP;
END
$$;

CREATE SCHEMA {SCHEMA};
CREATE TABLE {SCHEMA}.orders (
    id               integer PRIMARY KEY,
    customer_country text NOT NULL,
    ship_country     text NOT NULL,
    booked_amount    numeric(12, 2) NOT NULL
);
CREATE TABLE {SCHEMA}.revenue_ledger (
    id                integer PRIMARY KEY,
    customer_country  text NOT NULL,
    recognized_amount numeric(12, 2) NOT NULL
);
CREATE TABLE {SCHEMA}.costs (id integer PRIMARY KEY, margin numeric(12, 2) NOT NULL);
CREATE TABLE {SCHEMA}.order_lines (
    id       integer PRIMARY KEY,
    order_id integer NOT NULL REFERENCES {SCHEMA}.orders,
    product  text NOT NULL
);
INSERT INTO {SCHEMA}.orders VALUES
    (1, 'Germany', 'Germany', 1200.00), (2, 'France', 'Belgium', 950.00),
    (3, 'Germany', 'Austria', 300.00);
INSERT INTO {SCHEMA}.revenue_ledger VALUES (1, 'Germany', 1350.00), (2, 'France', 800.00);
INSERT INTO {SCHEMA}.costs VALUES (1, 120.00);
INSERT INTO {SCHEMA}.order_lines VALUES (1, 1, 'chairs'), (2, 1, 'tables'), (3, 2, 'lamps');
GRANT USAGE ON SCHEMA {SCHEMA} TO {AGENT}, {OUTSIDER};
GRANT SELECT ON ALL TABLES IN SCHEMA {SCHEMA} TO {AGENT}, {OUTSIDER};

INSERT INTO clarify.concepts (id, kind, label, description, owner, status, aliases) VALUES
    ('{BOOKED}', 'metric', 'Booked revenue', 'Value of accepted orders', 'Sales',
     'approved', '{{}}'),
    ('{RECOGNIZED}', 'metric', 'Recognized revenue',
     'Revenue recognized under the accounting standard', 'Finance', 'approved',
     '{{"recognised revenue"}}'),
    ('{MARGIN}', 'metric', 'Gross margin', 'Revenue less cost of goods sold', 'Finance',
     'draft', '{{}}'),
    ('{CUSTOMER_COUNTRY}', 'dimension', 'Customer country', 'Country of the billing address',
     'Sales', 'approved', '{{}}'),
    ('{SHIPPING_COUNTRY}', 'dimension', 'Shipping country', 'Country the goods were sent to',
     'Logistics', 'approved', '{{}}');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES
    ('{BOOKED}', '{SCHEMA}.orders', 'booked_amount'),
    ('{RECOGNIZED}', '{SCHEMA}.revenue_ledger', 'recognized_amount'),
    ('{MARGIN}', '{SCHEMA}.costs', 'margin'),
    ('{CUSTOMER_COUNTRY}', '{SCHEMA}.orders', 'customer_country'),
    ('{CUSTOMER_COUNTRY}', '{SCHEMA}.revenue_ledger', 'customer_country'),
    ('{SHIPPING_COUNTRY}', '{SCHEMA}.orders', 'ship_country');
INSERT INTO clarify.terms (term, concept_id) VALUES
    ('{REVENUE}', '{BOOKED}'), ('{REVENUE}', '{RECOGNIZED}'),
    ('{MARGIN_TERM}', '{MARGIN}'),
    ('{COUNTRY}', '{CUSTOMER_COUNTRY}'), ('{COUNTRY}', '{SHIPPING_COUNTRY}');
INSERT INTO clarify.defaults (term, concept_id, applies_to, approved_by) VALUES
    ('{COUNTRY}', '{CUSTOMER_COUNTRY}', NULL, 'Sales governance board');

SELECT clarify.govern_role('{AGENT}');
SELECT clarify.govern_role('{OUTSIDER}');
GRANT EXECUTE ON FUNCTION clarify.confirm,
                          clarify.revoke
   TO {CONFIRMER};
"""


def connect(**kwargs: Any) -> psycopg.Connection[Any]:
    """A connection to the test database (libpq environment), autocommit unless told."""
    kwargs.setdefault("autocommit", True)
    return psycopg.connect(**kwargs)


@pytest.fixture(scope="session")
def admin() -> Iterator[psycopg.Connection[Any]]:
    """The superuser connection that owns the fixture."""
    with connect() as conn:
        yield conn


@pytest.fixture(scope="session")
def catalog(admin: psycopg.Connection[Any]) -> Iterator[None]:
    """The schema, roles and governance catalog every server test reads."""
    admin.execute("SET client_min_messages = warning")
    admin.execute(CLEANUP_SQL)
    try:
        admin.execute(SETUP_SQL)
        yield
    finally:
        admin.execute(CLEANUP_SQL)


@pytest.fixture
def agent(catalog: None) -> Iterator[GatedSession]:
    """A fresh agent session: no record, no previous decision."""
    with connect(user=AGENT) as conn:
        yield GatedSession(conn)


@pytest.fixture
def confirmer(catalog: None) -> Iterator[psycopg.Connection[Any]]:
    """The chat app's connection, allowed to record user confirmations."""
    with connect(user=CONFIRMER) as conn:
        yield conn


@pytest.fixture
def question_id() -> str:
    """A question id no other test or run has used, so old confirmations never match."""
    return f"q_py_{uuid.uuid4().hex[:12]}"
