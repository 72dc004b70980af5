"""Periods as people read them: the gate's half-open UTC ranges shown in the session's zone.

The payload's ``{"start", "end"}`` are ISO timestamps of a half-open ``[start, end)``. A period
whose both sides fall on midnight in the zone reads as dates with its last day included
("1 Jul – 30 Sep 2026", CONTRACT.md §16); any other reads as times with the end said to be
excluded, so nobody has to guess which side is open.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta, timezone, tzinfo
from typing import Optional, Tuple

try:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError
except ImportError:  # pragma: no cover - Python < 3.9 has no zoneinfo
    ZoneInfo = None  # type: ignore[assignment,misc]
    ZoneInfoNotFoundError = Exception  # type: ignore[assignment,misc]

Range = Tuple[Optional[str], Optional[str]]


def zone_of(name: Optional[str]) -> tzinfo:
    """The zone a ``TimeZone`` setting names; UTC when it is unset or not an IANA name."""
    if not name or ZoneInfo is None:
        return timezone.utc
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return timezone.utc


def _instant(text: Optional[str]) -> Optional[datetime]:
    if not text:
        return None
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=timezone.utc)


#: Fixed English abbreviations: ``%b`` follows the process's locale.
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _day(d: datetime, with_year: bool = True) -> str:
    month = MONTHS[d.month - 1]
    return f"{d.day} {month} {d.year}" if with_year else f"{d.day} {month}"


def _moment(d: datetime) -> str:
    return f"{_day(d)} {d:%H:%M}"


def describe_range(period: Optional[Range], time_zone: Optional[str] = None) -> Optional[str]:
    """``period`` (start, end) in words, in ``time_zone`` (the session's ``TimeZone``).

    ``None`` when there is no period or neither side can be read.
    """
    if period is None:
        return None
    zone = zone_of(time_zone)
    start, end = (_instant(side) for side in period)
    if start is None and end is None:
        return None
    start = start.astimezone(zone) if start else None
    end = end.astimezone(zone) if end else None
    midnight = all(d is None or d.time() == time(0) for d in (start, end))
    if midnight:
        last = (end - timedelta(days=1)) if end else None
        if start and last:
            if last.date() == start.date():
                return _day(start)
            return f"{_day(start, start.year != last.year)} \u2013 {_day(last)}"
        return f"from {_day(start)}" if start else f"until {_day(last)}"  # type: ignore[arg-type]
    if start and end:
        return f"{_moment(start)} \u2013 {_moment(end)} (end excluded)"
    return f"from {_moment(start)}" if start else f"before {_moment(end)}"  # type: ignore[arg-type]
