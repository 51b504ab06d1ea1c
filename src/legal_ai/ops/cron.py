"""The scheduler's time (ops/scheduler.py): the schedule's time zone, and the slots of a cron
expression (five fields, read in LEGAL_AI_SCHEDULE_TIMEZONE; APScheduler's CronTrigger does the
arithmetic, daylight-saving changes included)."""

from __future__ import annotations

import datetime as dt
from functools import cache
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..errors import InvalidInput

if TYPE_CHECKING:
    from ..context import Context


def schedule_zone(app: Context) -> ZoneInfo:
    return ZoneInfo(app.settings.schedule_timezone)


MISSED_CAP = 10_000  # slots counted when catching up (a 15-minute job idle for 100 days)


def timezone_of(app: Context) -> str:
    name = app.settings.schedule_timezone
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise InvalidInput(
            f"LEGAL_AI_SCHEDULE_TIMEZONE={name!r} is not a time zone; e.g. Asia/Jerusalem"
        ) from None
    return name


@cache
def _trigger(cron: str, tz: str):
    from apscheduler.triggers.cron import CronTrigger

    try:
        return CronTrigger.from_crontab(cron, timezone=ZoneInfo(tz))
    except ValueError as exc:
        raise InvalidInput(f"cron expression {cron!r}: {exc}") from None


def next_after(cron: str, tz: str, after: dt.datetime) -> dt.datetime:
    """The first slot of `cron` (in `tz`) strictly after `after`."""
    return _trigger(cron, tz).get_next_fire_time(None, after + dt.timedelta(microseconds=1))


def slots_between(cron: str, tz: str, first: dt.datetime, now: dt.datetime) -> int:
    """How many slots fall in [first, now] (`first` is a slot); at most MISSED_CAP."""
    count, slot = 0, first
    while slot <= now and count < MISSED_CAP:
        count += 1
        slot = next_after(cron, tz, slot)
    return count
