"""What the DBA report shows, read from the audit (docs/dba-guide.md, "The report").

Every query is bounded by ``since`` and runs as the DSN's role, which must be allowed to read
``clarify.audit``; the owner also sees the evaluation cases and the default candidates.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Dict, List, Optional, Tuple

import psycopg

# A slot's term; a period's slot (no term of its own) under its windows' term, as
# clarify.audit_friction does (catalog/pg_clarify--1.2.sql, "Evaluation").
_SLOT_TERM = """coalesce(nullif(s ->> 'term', ''),
    (SELECT min(t.term) FROM clarify.terms t
      WHERE t.concept_id IN (SELECT o ->> 'value' FROM jsonb_array_elements(s -> 'options') o)),
    'period of ' || coalesce(s ->> 'measure', 'a measure'))"""

QUERIES: Dict[str, str] = {
    "daily": """
        SELECT date_trunc('day', decided_at)::date AS day, state, count(*) AS decisions
          FROM clarify.audit WHERE decided_at >= %(since)s GROUP BY 1, 2 ORDER BY 1, 2""",
    "stops": f"""
        SELECT {_SLOT_TERM} AS term, s ->> 'state' AS state, count(*) AS stops
          FROM clarify.audit a CROSS JOIN LATERAL jsonb_array_elements(a.payload -> 'slots') s
         WHERE a.decision = 'rejected' AND a.decided_at >= %(since)s
         GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2""",
    "rounds": """
        SELECT rounds, count(*) AS questions FROM (
            SELECT question_id, count(*) FILTER (WHERE decision = 'rejected' AND
                       jsonb_path_exists(payload, '$.slots[*] ? (@.state == "AMBIGUOUS")')) AS rounds
              FROM clarify.audit
             WHERE decided_at >= %(since)s AND question_id IS NOT NULL GROUP BY 1) q
         GROUP BY 1 ORDER BY 1""",
    "sources": """
        SELECT b ->> 'source' AS source, count(*) AS columns
          FROM clarify.audit a CROSS JOIN LATERAL jsonb_array_elements(a.bindings) b
         WHERE a.decision = 'allowed' AND a.decided_at >= %(since)s
         GROUP BY 1 ORDER BY 2 DESC, 1""",
    "questions": f"""
        SELECT s ->> 'question' AS question, {_SLOT_TERM} AS term, count(*) AS stops
          FROM clarify.audit a CROSS JOIN LATERAL jsonb_array_elements(a.payload -> 'slots') s
         WHERE a.decision = 'rejected' AND a.decided_at >= %(since)s AND s ->> 'question' IS NOT NULL
         GROUP BY 1, 2 ORDER BY 3 DESC, 1 LIMIT 10""",
    "production": """
        SELECT metric, value, numerator, denominator FROM clarify.audit_metrics(%(since)s)
         WHERE term IS NULL""",
}

# Owner only: shown when the role may read them, noted when it may not.
OPTIONAL: Dict[str, str] = {
    "candidates": "SELECT term, concept_id, confirmations, share FROM clarify.default_candidates "
    "ORDER BY confirmations DESC, term",
    "evaluation": "SELECT metric, value, cases FROM clarify.evaluate() "
    "WHERE EXISTS (SELECT 1 FROM clarify.eval_cases)",
}


class ReportError(Exception):
    """An error the command explains to the DBA, with its exit code."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass
class ReportData:
    since: datetime
    generated: datetime
    role: str
    database: str
    sections: Dict[str, List[Tuple[Any, ...]]] = field(default_factory=dict)
    notes: Dict[str, str] = field(default_factory=dict)


def _progress(message: str, started: float, quiet: bool) -> None:
    if not quiet:
        print(f"[{time.monotonic() - started:5.1f} s] {message}", file=sys.stderr, flush=True)


def _connect(dsn: str) -> psycopg.Connection:
    try:
        return psycopg.connect(dsn, autocommit=True)
    except psycopg.OperationalError as e:
        detail = str(e).strip().splitlines()[0] if str(e).strip() else "no detail"
        raise ReportError(f"cannot connect with --dsn: {detail}", 3) from e
    except psycopg.ProgrammingError as e:  # a malformed connection string
        raise ReportError(f"--dsn is not a connection string: {e}", 3) from e


def _check_installed(conn: psycopg.Connection) -> None:
    row = conn.execute(
        "SELECT extversion FROM pg_extension WHERE extname = 'pg_clarify'").fetchone()
    if row is None:
        raise ReportError("pg_clarify is not installed in this database "
                          "(CREATE EXTENSION pg_clarify)", 5)
    if row[0] < "1.2":
        raise ReportError(f"pg_clarify {row[0]} has no evaluation functions: "
                          "ALTER EXTENSION pg_clarify UPDATE", 5)


def read_report(dsn: str, since: datetime, quiet: bool = False,
                progress: Optional[Callable[[str], None]] = None) -> ReportData:
    started = time.monotonic()
    say = progress or (lambda m: _progress(m, started, quiet))
    say("connecting")
    with _connect(dsn) as conn:
        _check_installed(conn)
        role, database, now = conn.execute(
            "SELECT current_user, current_database(), now()").fetchone()
        data = ReportData(since=since, generated=now, role=role, database=database)
        for name, sql in QUERIES.items():
            say(f"reading {name}")
            try:
                data.sections[name] = conn.execute(sql, {"since": since}).fetchall()
            except psycopg.errors.InsufficientPrivilege as e:
                raise ReportError(
                    f"role {role} may not read the audit ({e.diag.message_primary}); "
                    f"a DBA runs: GRANT SELECT ON clarify.audit, clarify.approvals TO {role}",
                    4) from e
        for name, sql in OPTIONAL.items():
            say(f"reading {name}")
            try:
                data.sections[name] = conn.execute(sql).fetchall()
            except psycopg.errors.InsufficientPrivilege:
                data.sections[name] = []
                data.notes[name] = f"not shown: role {role} is not the catalog's owner"
        say("read everything")
    return data
