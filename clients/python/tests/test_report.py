"""`pg_clarify report` against the test server, rendered in a real headless Chromium.

The page and its screenshot are kept under build/report/ (at the repository's root) for the note.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import psycopg
import pytest

from conftest import AGENT, BOOKED, REVENUE, SCHEMA
from pg_clarify_client import Binding, ClarificationRequired, ResolutionRecord
from pg_clarify_client.report import main, parse_since

OUT = Path(__file__).resolve().parents[3] / "build" / "report"
READER = "regress_py_report_reader"
CHART_IDS = ["daily", "stops", "rounds", "sources", "candidates", "production", "evaluation"]


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if not found and os.geteuid() == 0 and shutil.which("apt-get"):
        subprocess.run(["apt-get", "install", "-y", "-q", "chromium"], check=False,
                       capture_output=True, timeout=900)
        found = shutil.which("chromium")
    if not found:
        pytest.skip("chromium is not installed and cannot be installed here "
                    "(apt-get install chromium, as root)")
    return found


def run_chromium(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu",
                           "--hide-scrollbars", "--user-data-dir=" + str(OUT / "profile"), *args],
                          capture_output=True, text=True, timeout=180, check=True)


@pytest.fixture
def history(agent, admin: psycopg.Connection[Any], question_id: str):
    """One AMBIGUOUS rejection and one allowed read by the agent, and one evaluation case."""
    agent.attach(ResolutionRecord(question_id, "What was revenue in Germany?"))
    with pytest.raises(ClarificationRequired):
        agent.run(f"SELECT sum(booked_amount) FROM {SCHEMA}.orders")
    agent.attach(ResolutionRecord(question_id, "Show Booked revenue",
                                  [Binding(REVENUE, BOOKED, "explicit")]))
    agent.run(f"SELECT sum(booked_amount) FROM {SCHEMA}.orders")
    admin.execute("SELECT clarify.audit_wait()")
    admin.execute(
        "INSERT INTO clarify.eval_cases (id, question, sql, agent, expected) VALUES "
        "('regress_py_case', 'What was revenue?', %s, %s, 'AMBIGUOUS')",
        (f"SELECT sum(booked_amount) FROM {SCHEMA}.orders", AGENT))
    yield
    admin.execute("DELETE FROM clarify.eval_cases WHERE id = 'regress_py_case'")


def png_colours(path: Path) -> int:
    from matplotlib import image

    pixels = image.imread(str(path))
    flat = (pixels[..., :3].reshape(-1, 3) * 255).astype(int)
    return len({tuple(p) for p in flat[:: max(1, len(flat) // 200000)]})


def test_report_renders_in_chromium(history, capsys) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    page = OUT / "report.html"
    assert main(["report", "--since", "30d", "-o", str(page)]) == 0
    captured = capsys.readouterr()
    assert str(page) in captured.out and "reading daily" in captured.err
    html = page.read_text(encoding="utf-8")
    # Self-contained: no script, stylesheet, font or image is fetched.
    assert not re.search(r"<script|<link|@import|@font-face|url\((?!#)|<img", html, re.I)
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:|//)""", html, re.I)
    assert "Evaluation metrics" in html and "clarification_recall" in html
    assert "py revenue" in html  # the term of the stop, in a table and a chart

    dom = run_chromium("--dump-dom", page.as_uri()).stdout
    for section in CHART_IDS:
        match = re.search(rf'<section id="{section}">(.*?)</section>', dom, re.S)
        assert match, f"section {section} is missing from the DOM"
        svg = re.search(r"<svg\b.*?</svg>", match.group(1), re.S)
        assert svg, f"section {section} has no chart"
        assert re.search(r'<path[^>]+d="M', svg.group(0)), f"the {section} chart is empty"
        assert "<table" in match.group(1), f"section {section} has no table"

    shot = OUT / "report.png"
    shot.unlink(missing_ok=True)
    run_chromium("--window-size=1280,2400", f"--screenshot={shot}", page.as_uri())
    assert shot.stat().st_size > 10000
    assert png_colours(shot) > 50, "the screenshot is blank"


def test_bad_dsn_exits_3(capsys) -> None:
    code = main(["report", "--dsn", "host=/nonexistent-socket-dir port=1", "-q",
                 "-o", os.devnull])
    assert code == 3
    assert "cannot connect" in capsys.readouterr().err


def test_role_that_may_not_read_the_audit_exits_4(catalog, admin, tmp_path, capsys) -> None:
    admin.execute(f"DROP ROLE IF EXISTS {READER}")
    admin.execute(f"CREATE ROLE {READER} LOGIN")
    try:
        code = main(["report", "--dsn", f"user={READER}", "-q", "-o", str(tmp_path / "r.html")])
        err = capsys.readouterr().err
        assert code == 4
        assert f"role {READER} may not read the audit" in err and "GRANT SELECT" in err
        assert not (tmp_path / "r.html").exists()
    finally:
        admin.execute(f"DROP ROLE {READER}")


def test_since_takes_durations_and_dates() -> None:
    from datetime import datetime, timezone

    now = datetime(2026, 3, 31, 12, tzinfo=timezone.utc)
    assert parse_since("30d", now) == datetime(2026, 3, 1, 12, tzinfo=timezone.utc)
    assert parse_since("12h", now) == datetime(2026, 3, 31, tzinfo=timezone.utc)
    assert parse_since("2026-03-01") == datetime(2026, 3, 1, tzinfo=timezone.utc)
    with pytest.raises(SystemExit) as exited:
        main(["report", "--since", "last tuesday"])
    assert exited.value.code == 2
