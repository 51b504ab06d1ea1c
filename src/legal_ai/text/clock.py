"""Israel's time, as the chair reads it: the one place that turns a stored moment (timestamptz,
read back in UTC) into her clock — Asia/Jerusalem through zoneinfo, so summer time starts and
ends on the right night — and writes dates as she does (1.6.2021, never 2021-06-01) and moments
as 1.6.2021 19:00. The desk's filters (web/desk/labels.py) and the learning page's weeks and
ticks go through here; so does the log's "from day X to day Y", a day being hers, not UTC's."""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

ZONE_NAME = "Asia/Jerusalem"
ZONE = ZoneInfo(ZONE_NAME)


def local(moment: dt.datetime) -> dt.datetime:
    """A moment on Israel's clock. A naive datetime is taken as UTC (what the database and
    datetime.now(UTC) give, written without its zone)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return moment.astimezone(ZONE)


def _parsed(value: Any) -> Any:
    """An ISO string as a date or a datetime (unchanged when it is neither)."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    try:
        return dt.datetime.fromisoformat(text) if len(text) > 10 else dt.date.fromisoformat(text)
    except ValueError:
        return value


def day_of(value: Any) -> dt.date | None:
    """The calendar day in Israel of a moment (a date stays itself); None when none."""
    value = _parsed(value)
    if isinstance(value, dt.datetime):
        return local(value).date()
    if isinstance(value, dt.date):
        return value
    return None


def hebrew_date(value: Any) -> str:
    """A date as the chair writes it: 1.6.2021 (a moment: its day in Israel)."""
    day = day_of(value)
    if day is None:
        return str(value or "")[:10]
    return f"{day.day}.{day.month}.{day.year}"


def when(value: Any) -> str:
    """A moment as the chair reads it, on Israel's clock: 1.6.2021 19:00; a date alone as
    1.6.2021; "—" for none."""
    if value is None or value == "":
        return "—"
    value = _parsed(value)
    if isinstance(value, dt.datetime):
        moment = local(value)
        return f"{hebrew_date(moment.date())} {moment:%H:%M}"
    return hebrew_date(value)


def parse_day(text: str) -> dt.date | None:
    """A day as she types it — 1.6.2021, 1/6/2021 or 2021-06-01 (the date field's value) —
    else None."""
    text = text.strip()
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        pass
    parts = text.replace("/", ".").split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        return None
    day, month, year = (int(p) for p in parts)
    if year < 100:
        year += 2000
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def day_start(day: dt.date) -> dt.datetime:
    """The first moment of `day` in Israel (its midnight, whatever the offset that night)."""
    return dt.datetime.combine(day, dt.time(), tzinfo=ZONE)


def week_start(day: dt.date) -> dt.date:
    """The Sunday that opens `day`'s week (Israel's week: Sunday to Saturday)."""
    return day - dt.timedelta(days=(day.weekday() + 1) % 7)
