"""The report's charts: matplotlib's SVG output, inlined in the page (no external file or font).

Colours are the Okabe-Ito palette, distinguishable with the common colour-vision deficiencies;
every chart has a table beside it with the same numbers.
"""

from __future__ import annotations

import io
import re
from collections import OrderedDict
from typing import Dict, List, Sequence, Tuple

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442",
           "#000000"]
# The gate's states always get the same colour.
STATE_COLOURS = {"RESOLVED": "#009E73", "AMBIGUOUS": "#E69F00", "UNSUPPORTED": "#D55E00",
                 "MISMATCH": "#CC79A7", "UNVERIFIED": "#56B4E9", "GRAIN": "#0072B2",
                 "AUDIT_UNAVAILABLE": "#000000"}

plt.rcParams.update({"svg.fonttype": "none", "font.size": 10, "axes.spines.top": False,
                     "axes.spines.right": False, "svg.hashsalt": "pg_clarify"})


def _svg(fig: "plt.Figure", label: str) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    text = buf.getvalue()
    text = text[text.index("<svg"):]  # no XML declaration or DOCTYPE (it names a remote DTD)
    return re.sub(r"<svg ", f'<svg role="img" aria-label="{label}" ', text, count=1)


def _empty(label: str) -> str:
    fig, ax = plt.subplots(figsize=(6, 1.2))
    ax.axis("off")
    ax.text(0.5, 0.5, "nothing in this range", ha="center", va="center", color="#444444")
    return _svg(fig, label)


def daily_by_state(rows: Sequence[Tuple]) -> str:
    label = "Decisions per day by state"
    if not rows:
        return _empty(label)
    days = sorted({r[0] for r in rows})
    states = sorted({r[1] for r in rows}, key=lambda s: (s != "RESOLVED", s))
    counts: Dict[Tuple, int] = {(r[0], r[1]): r[2] for r in rows}
    fig, ax = plt.subplots(figsize=(7, 3))
    bottom = [0] * len(days)
    x = list(range(len(days)))
    for i, state in enumerate(states):
        values = [counts.get((d, state), 0) for d in days]
        ax.bar(x, values, bottom=bottom, label=state,
               color=STATE_COLOURS.get(state, PALETTE[i % len(PALETTE)]))
        bottom = [b + v for b, v in zip(bottom, values)]
    step = max(1, len(days) // 10)
    ax.set_xticks(x[::step], [d.isoformat() for d in days][::step], rotation=30, ha="right")
    ax.set_ylabel("decisions")
    ax.legend(frameon=False, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    return _svg(fig, label)


def horizontal_bars(pairs: Sequence[Tuple[str, float]], label: str, xlabel: str,
                    limit_one: bool = False) -> str:
    if not pairs:
        return _empty(label)
    names = [p[0] for p in pairs][::-1]
    values = [float(p[1]) for p in pairs][::-1]
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(pairs) + 0.8))
    ax.barh(names, values, color=[PALETTE[i % len(PALETTE)] for i in range(len(names))][::-1])
    ax.set_xlabel(xlabel)
    if limit_one:
        ax.set_xlim(0, 1)
    for y, v in enumerate(values):
        ax.text(v, y, f" {v:g}", va="center", fontsize=8)
    return _svg(fig, label)


def stops_by_term(rows: Sequence[Tuple]) -> str:
    totals: "OrderedDict[str, int]" = OrderedDict()
    for term, _state, n in rows:
        totals[term] = totals.get(term, 0) + n
    top = sorted(totals.items(), key=lambda kv: -kv[1])[:12]
    return horizontal_bars(top, "Stops by term", "rejected decisions (slots)")


def rounds(rows: Sequence[Tuple]) -> str:
    return horizontal_bars([(f"{r[0]} round{'s' if r[0] != 1 else ''}", r[1]) for r in rows],
                           "Rounds per question", "questions")


def sources(rows: Sequence[Tuple]) -> str:
    return horizontal_bars([(r[0] or "none", r[1]) for r in rows],
                           "How columns were resolved", "covered column reads")


def candidates(rows: Sequence[Tuple]) -> str:
    return horizontal_bars([(f"{r[0]} → {r[1]}", float(r[3])) for r in rows],
                           "Default candidates", "share of confirmations", limit_one=True)


def metrics(rows: Sequence[Tuple], label: str) -> str:
    """Rows (metric, value, cases) or (metric, value, numerator, denominator): the counts label
    each bar; a metric without a value (denominator 0) has no bar, its table row says so."""

    def name(r: Tuple) -> str:
        return f"{r[0]} ({r[2]} cases)" if len(r) == 3 else f"{r[0]} ({r[2]:g}/{r[3]:g})"

    pairs: List[Tuple[str, float]] = [(name(r), float(r[1])) for r in rows if r[1] is not None]
    return horizontal_bars(pairs, label, "rate", limit_one=all(v <= 1 for _, v in pairs))
