"""What stopped in the background, for the red banner on every desk page (web/desk/base.html):
the scheduled jobs whose last run failed, those overdue — due more than OVERDUE_AFTER ago with no
process running them, or never set up although their first slot after the installation passed
(no worker has run) — and the backup, when none was proven within LEGAL_AI_BACKUP_MAX_AGE_HOURS
(26 h, as `legal-ai doctor` warns), "never" when none ever was. One statement
(store/schedule.alarms) on the caller's connection; the page's menu counts share it."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from ..store import schedule as store
from .backups import JOB as BACKUP_JOB
from .cron import next_after, timezone_of
from .scheduler import JOBS

if TYPE_CHECKING:
    from ..context import Context

OVERDUE_AFTER = dt.timedelta(hours=1)


def alarm(app: Context, conn: Any) -> dict | None:
    """{failed, overdue: job names; backup: None | "stale" | "never"; proven_at}, or None when
    nothing is wrong."""
    names = [job.name for job in JOBS]
    row = store.alarms(conn, names, BACKUP_JOB, OVERDUE_AFTER)
    now, installed = row["now"], row["installed_at"]
    overdue = set(row["overdue"])
    if installed is not None:
        tz = timezone_of(app)
        overdue |= {
            job.name
            for job in JOBS
            if job.name not in row["known"]
            and next_after(job.cron, tz, installed) + OVERDUE_AFTER < now
        }
    failed = list(row["failed"])
    proven_at = row["proven_at"]
    max_age = dt.timedelta(hours=app.settings.backup_max_age_hours)
    backup = None
    if proven_at is None:
        backup = "never"
    elif now - proven_at > max_age:
        backup = "stale"
    late = [name for name in names if name in overdue and name not in failed]
    if not (failed or late or backup):
        return None
    return {"failed": failed, "overdue": late, "backup": backup, "proven_at": proven_at}
