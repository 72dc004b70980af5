"""``pg_clarify report``: one self-contained HTML page about the gate, for a DBA.

    pg_clarify report --dsn "dbname=demo" --since 30d -o report.html

Exit codes: 0 written, 2 bad arguments, 3 cannot connect, 4 the role may not read the audit,
5 pg_clarify missing or too old, 1 anything else (the page could not be written).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from typing import Any, Dict, List, Optional, Sequence

from .report_data import ReportData, ReportError, read_report

_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_since(text: str, now: Optional[datetime] = None) -> datetime:
    """'30d', '12h', '2w', '90m', or an ISO date or timestamp (UTC when it names no zone)."""
    now = now or datetime.now(timezone.utc)
    m = re.fullmatch(r"\s*(\d+)\s*([mhdw])\s*", text)
    if m:
        return now - timedelta(**{_UNITS[m.group(2)]: int(m.group(1))})
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--since {text!r}: give a duration (30d, 12h, 2w, 90m) or an ISO date") from None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def _plain(v: Any) -> Any:
    if isinstance(v, Decimal):
        return float(v) if v != v.to_integral_value() else int(v)
    return v


def _rows(rows: Sequence[Sequence[Any]]) -> List[List[Any]]:
    return [[_plain(v) for v in row] for row in rows]


def build_sections(data: ReportData) -> List[Dict[str, Any]]:
    from . import report_charts as charts

    s = data.sections
    out = [
        dict(id="daily", title="Decisions per day by state", headers=["day", "state", "decisions"],
             rows=_rows(s["daily"]), svg=charts.daily_by_state(s["daily"])),
        dict(id="stops", title="Stops by term", headers=["term", "state", "stops"],
             rows=_rows(s["stops"]), svg=charts.stops_by_term(s["stops"])),
        dict(id="rounds", title="Rounds per question", headers=["rounds", "questions"],
             rows=_rows(s["rounds"]), svg=charts.rounds(s["rounds"])),
        dict(id="sources", title="How columns were resolved", headers=["source", "column reads"],
             rows=_rows(s["sources"]), svg=charts.sources(s["sources"])),
        dict(id="candidates", title="Default candidates",
             headers=["term", "concept", "confirmations", "share"],
             rows=_rows(s["candidates"]), svg=charts.candidates(s["candidates"]),
             note=data.notes.get("candidates",
                                 "Terms whose 5 or more confirmations agree at least 80 %: "
                                 "make the meaning a default.")),
        dict(id="production", title="Production metrics",
             headers=["metric", "value", "numerator", "denominator"],
             rows=_rows(s["production"]),
             svg=charts.metrics(s["production"][:1] + s["production"][2:], "Production metrics"),
             note="average_rounds is not a rate: it is in the table only."),
    ]
    if s["evaluation"] or "evaluation" in data.notes:
        out.append(dict(id="evaluation", title="Evaluation metrics (clarify.eval_cases)",
                        headers=["metric", "value", "cases"], rows=_rows(s["evaluation"]),
                        svg=charts.metrics(s["evaluation"], "Evaluation metrics"),
                        note=data.notes.get("evaluation")))
    out.append(dict(id="questions", title="Questions of the most frequent stops",
                    headers=["question", "term", "stops"], rows=_rows(s["questions"]), svg=None))
    return out


def render(data: ReportData) -> str:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(os.path.join(os.path.dirname(__file__), "templates")),
        autoescape=True, trim_blocks=True, lstrip_blocks=True)
    return env.get_template("report.html.j2").render(data=data, sections=build_sections(data))


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="pg_clarify", description="pg_clarify's DBA tools.")
    commands = parser.add_subparsers(dest="command", required=True)
    report = commands.add_parser("report", help="write the audit report as one HTML page")
    report.add_argument("--dsn", default="", help="libpq connection string (default: PG* env)")
    report.add_argument("--since", type=parse_since, default=parse_since("30d"),
                        help="how far back: 30d, 12h, 2w, 90m or an ISO date (default 30d)")
    report.add_argument("-o", "--output", default="report.html", help="the page to write")
    report.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    try:
        import jinja2  # noqa: F401
        import matplotlib  # noqa: F401
    except ImportError as e:
        print(f"pg_clarify report: {e.name} is missing: apt-get install python3-matplotlib "
              "python3-jinja2", file=sys.stderr)
        return 1
    try:
        data = read_report(args.dsn, args.since, quiet=args.quiet)
        if not args.quiet:
            print("drawing the charts", file=sys.stderr, flush=True)
        page = render(data)
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(page)
    except ReportError as e:
        print(f"pg_clarify report: {e}", file=sys.stderr)
        return e.exit_code
    except OSError as e:
        print(f"pg_clarify report: cannot write {args.output}: {e.strerror}", file=sys.stderr)
        return 1
    if not args.quiet:
        print(f"wrote {args.output}", file=sys.stderr)
    print(os.path.abspath(args.output))
    return 0


if __name__ == "__main__":
    sys.exit(main())
