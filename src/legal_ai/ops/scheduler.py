"""The scheduled jobs, defined in one place (`JOBS`), and the scheduler that runs them
(docs/deployment.md "Scheduled jobs").

Each job has a cron expression (five fields: minute hour day-of-month month day-of-week) read in
LEGAL_AI_SCHEDULE_TIMEZONE (Asia/Jerusalem); APScheduler's CronTrigger does the arithmetic,
daylight-saving changes included. Its state is in PostgreSQL (migration 0021): `schedules`
(when each job is next due, how its last run went) and the append-only `schedule_runs`.

- `legal-ai worker` calls `run_due` on every pass: a job whose `next_run_at` has come runs once,
  then its next run is the first slot after now. A worker that was down for three days runs a
  daily job once on its return, not three times (the run records the slots it caught up, as
  `missed`).
- A job runs only while its process holds the job's run lease (store/schedule.take_lease: a
  session advisory lock on a connection of its own, never a pooled one, never a transaction
  held open): two workers never run one job at once; the other sees it busy and moves on. The
  bookkeeping around a run (claiming its row, recording the run) is two short transactions, and
  the job's own work takes pooled connections only as it needs them, so four jobs at once
  starve no one. A process that dies mid-run releases the lease with its connection; the job
  is due again.
- A job that fails is recorded (outcome `failed`, the error), retried after a backoff (5
  minutes, doubling, at most an hour, never later than its next slot) and never blocks the
  others: each job runs on its own, and an error in one is caught and recorded.
- `run_now` runs one job on demand and waits for it (`legal-ai jobs run NAME`, the operator's).
  `request_run` (`POST /api/jobs/{name}/run`, the chair's) runs nothing in the request: it
  marks the job's row as asked for (`last_result.run_requested`: by whom, when) and the worker
  runs it at its next pass, as a manual run recorded in her name. Both leave the schedule as it
  was (a success clears a pending retry). Running a job on demand is the chair's or the
  operator's: an agent is refused (Forbidden).
- Jobs run as the agent `scheduler`, whoever asked: they propose, reconcile and re-index; none
  of them decides what the chair gates.
- Every function takes `now` (an aware datetime; default: the clock), so tests drive the
  schedule with a controlled clock and never sleep.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypedDict
from zoneinfo import ZoneInfo

from ..errors import Forbidden, InvalidInput, NotFound, Scrubber
from ..paging import Page
from ..store import jsonable
from ..store import schedule as store
from ..store.db import connection_lost
from . import tasks
from .cron import next_after, timezone_of
from .cron import slots_between as slots_between
from .job_runs import REQUEST_KEY, RUNNER, Job, busy, jsonable_deep, requested, run_job
from .upkeep import EVAL_TOLERANCE, EVAL_WINDOW_DAYS

if TYPE_CHECKING:
    from ..context import Context

logger = logging.getLogger(__name__)

OUTCOMES = ("ok", "failed", "skipped")


def _lazy(name: str) -> Callable[[Context, dt.datetime], dict]:
    """A job function of tasks.py, imported when the job runs (the CLI stays light)."""

    def run(app: Context, now: dt.datetime) -> dict:
        return getattr(tasks, name)(app, now)

    run.__name__ = name
    return run


# The jobs (07-learning §4, and the upkeep that used to wait for a person). One place.
JOBS: tuple[Job, ...] = (
    Job(
        "weekly-feedback-analysis",
        "0 19 * * sun",
        "the week's chair feedback by category and block; a lesson proposed for the chair's gate "
        "from every item that names a block or a category (grouped when they recur, her words as "
        "its evidence, each item once); skipped without feedback",
        _lazy("weekly_feedback_analysis"),
    ),
    Job(
        "stale-case-reminder",
        "0 8 * * *",
        "cases whose ledger has not moved for LEGAL_AI_STALE_CASE_DAYS (30) days, as a reminder "
        "list (legal-ai jobs reminders, GET /api/reminders, the desk's /reminders) and a POST to "
        "LEGAL_AI_REMINDER_WEBHOOK when set",
        _lazy("stale_case_reminder"),
    ),
    Job(
        "sync-case-status",
        "*/15 * * * *",
        "each case's status reconciled with its ledger; the changes pushed to "
        "LEGAL_AI_TRACKER_URL when set",
        _lazy("sync_case_status"),
    ),
    Job(
        "nightly-upkeep",
        "30 2 * * *",
        "re-index what is stale, resolve missing precedents, synthesize pending canonical "
        "statements (LEGAL_AI_SYNTHESIZER), run the standing evaluation (LEGAL_AI_STANDING_EVAL) "
        "and record its nDCG@10 per day",
        _lazy("nightly_upkeep"),
    ),
    Job(
        "nightly-backup",
        "0 3 * * *",
        "a backup of the whole database into LEGAL_AI_BACKUP_DIR, proven by restoring it into a "
        "scratch database (rows counted against the backup's, health run, the scratch dropped); "
        "the newest LEGAL_AI_BACKUP_KEEP (7) of its archives kept; skipped without the folder",
        _lazy("nightly_backup"),
    ),
)


# -- time ---------------------------------------------------------------------------------------


def _now(now: dt.datetime | None) -> dt.datetime:
    if now is None:
        return dt.datetime.now(dt.UTC)
    if now.tzinfo is None:
        raise InvalidInput("the scheduler's clock must carry a time zone")
    return now


# -- running ------------------------------------------------------------------------------------


def find(name: str, jobs: Sequence[Job] | None = None) -> Job:
    for job in jobs or JOBS:
        if job.name == name:
            return job
    known = ", ".join(j.name for j in jobs or JOBS)
    raise NotFound(f"no scheduled job {name!r}; the jobs: {known}")


def run_due(
    app: Context,
    *,
    now: dt.datetime | None = None,
    jobs: Sequence[Job] | None = None,
    worker: str | None = None,
) -> list[dict]:
    """Run every job that is due at `now`, each once, one after another; returns what each did
    (jobs not due are left out, a job another process is running is reported `busy`). A job
    that fails never stops the others."""
    now = _now(now)
    reports = []
    for job in jobs or JOBS:
        try:
            report = run_job(app, job, now, manual=False, worker=worker, requested_by=RUNNER.actor)
        except Exception as exc:  # the bookkeeping itself failed
            if connection_lost(exc):  # the database went away: the worker waits it out
                raise
            logger.exception("scheduler: %s could not be run", job.name)
            report = {
                "name": job.name,
                "ran": False,
                "outcome": "failed",
                "error": Scrubber.of(app.settings)(f"the scheduler could not run it: {exc}"),
            }
        if report is not None:
            reports.append(jsonable_deep(report))
    return reports


def _may_run(app: Context, name: str) -> None:
    """Running a job on demand is the chair's or the operator's (an agent's work is queued by
    the system, never started by the agent)."""
    if app.principal.kind not in ("chair", "operator"):
        raise Forbidden(
            f"running the scheduled job {name} is the chair's or the operator's; "
            f"{app.principal.actor} may not start it (it runs on schedule in `legal-ai worker`)"
        )


def run_now(
    app: Context,
    name: str,
    *,
    now: dt.datetime | None = None,
    jobs: Sequence[Job] | None = None,
    worker: str | None = None,
) -> dict:
    """Run job `name` now, on demand, and wait for it (recorded with trigger `manual` and who
    asked): the operator's `legal-ai jobs run`, or the chair."""
    job = find(name, jobs)
    _may_run(app, job.name)
    report = run_job(
        app, job, _now(now), manual=True, worker=worker, requested_by=app.principal.actor
    )
    return jsonable_deep(report)


def request_run(
    app: Context, name: str, *, now: dt.datetime | None = None, jobs: Sequence[Job] | None = None
) -> dict:
    """Ask the worker to run job `name` at its next pass (the chair over HTTP): nothing runs in
    the caller's process, and the run is recorded as manual, in the caller's name. A job running
    now is refused (`busy`); asking twice before the worker ran it asks once. Returns {"name",
    "outcome": "queued" | "busy", "ran": false, "requested_by", "note"}."""
    job = find(name, jobs)
    _may_run(app, job.name)
    at = _now(now)
    tz = timezone_of(app)
    with app.store.transaction() as conn:
        if job.name in store.leased(conn):
            return busy(job)
        store.ensure(conn, job.name, job.cron, tz, next_after(job.cron, tz, at))
        asked = store.request_run(
            conn, job.name, REQUEST_KEY, {"by": app.principal.actor, "at": at.isoformat()}
        )
    return {
        "name": job.name,
        "outcome": "queued",
        "ran": False,
        "trigger": "manual",
        "requested_by": asked["by"],
        "requested_at": asked["at"],
        "note": f"{job.name} is queued for the worker: `legal-ai worker` runs it at its next "
        f"pass, recorded as a manual run by {asked['by']} (GET /api/jobs/runs?"
        f"name={job.name})",
    }


class Requested(TypedDict):
    """A request to run a job that waits for the worker: who asked and when (ISO)."""

    by: str
    at: str


class ListedJob(TypedDict):
    """One job of `legal-ai jobs list --json` (and GET /api/jobs); times are ISO strings in
    the schedule's time zone. `schedule`, `next_run` and `last_run` are DESIGN §10's names
    for `cron`, `next_run_at` and `last_started_at`."""

    name: str
    cron: str
    schedule: str
    timezone: str
    about: str
    next_run_at: str
    next_run: str
    running: bool
    requested: Requested | None
    last_started_at: str | None
    last_run: str | None
    last_finished_at: str | None
    last_outcome: str | None
    last_summary: str | None
    last_error: str | None
    failures: int


class JobList(TypedDict):
    """`legal-ai jobs list --json`: when it was read, the schedule's time zone, every job."""

    as_of: str
    timezone: str
    jobs: list[ListedJob]


def list_jobs(
    app: Context, *, now: dt.datetime | None = None, jobs: Sequence[Job] | None = None
) -> JobList:
    """Every job with its schedule, next run and last outcome (`running`: a process holds its
    run lease now). A job never run yet shows its first slot after now. Each job also carries
    DESIGN §10's names for three of its fields: `schedule` (its cron), `next_run` (its
    `next_run_at`) and `last_run` (when its last run started: `last_started_at`)."""
    now = _now(now)
    tz = timezone_of(app)
    zone = ZoneInfo(tz)
    scrub = Scrubber.of(app.settings)
    with app.store.connection() as conn:  # a read, as the caller (no job runs here)
        rows = store.all_schedules(conn)
        running = store.leased(conn)

    def local(value: dt.datetime) -> str:
        return value.astimezone(zone).isoformat()

    def local_or_none(value: dt.datetime | None) -> str | None:
        return None if value is None else local(value)

    out: list[ListedJob] = []
    for job in jobs or JOBS:
        row = rows.get(job.name) or {}
        same = bool(row) and (row["cron"], row["timezone"]) == (job.cron, tz)
        result = row.get("last_result") or {}
        next_run = local(row["next_run_at"] if same else next_after(job.cron, tz, now))
        started = local_or_none(row.get("last_started_at"))
        asked = requested(row or None)
        out.append(
            {
                "name": job.name,
                "cron": job.cron,
                "schedule": job.cron,  # DESIGN §10's name
                "timezone": tz,
                "about": job.about,
                "next_run_at": next_run,
                "next_run": next_run,  # DESIGN §10's name
                "running": job.name in running,
                "requested": {"by": asked["by"], "at": asked["at"]} if asked else None,
                "last_started_at": started,
                "last_run": started,  # DESIGN §10's name: when the last run started
                "last_finished_at": local_or_none(row.get("last_finished_at")),
                "last_outcome": row.get("last_outcome"),
                "last_summary": result.get("summary") if isinstance(result, dict) else None,
                "last_error": scrub(row.get("last_error") or "") or None,
                "failures": row.get("failures", 0),
            }
        )
    return {"as_of": now.astimezone(zone).isoformat(), "timezone": tz, "jobs": out}


def runs(app: Context, name: str | None = None, limit: int = 20, offset: int = 0) -> dict:
    """The recorded runs, newest first (all jobs, or `name`'s), a page of `limit` (1..500)
    after `offset` (paging.py: the answer's `page` says where the next starts). Errors and
    results are scrubbed again as they are read (a run recorded before scrubbing began)."""
    if name is not None:
        find(name)
    page = Page(limit, offset)
    scrub = Scrubber.of(app.settings)
    with app.store.connection() as conn:
        rows, info = page.cut(store.runs(conn, name, page.fetch, page.offset))
    return {"runs": [scrub.deep(jsonable_deep(jsonable(r))) for r in rows], "page": info}


class SchedulerHealth(TypedDict):
    """What `legal-ai health` reports of the scheduler (`scheduler`)."""

    failed_jobs: list[dict[str, Any]]
    eval_drops: list[dict[str, Any]]


def health(conn, jobs: Sequence[Job] | None = None) -> SchedulerHealth:
    """What `legal-ai health` reports of the scheduler: the jobs whose last run failed, and the
    gold sets whose standing-evaluation nDCG@10 dropped beyond the tolerance."""
    failed = store.failed_jobs(conn, [j.name for j in jobs or JOBS])
    drops = store.eval_drops(conn, EVAL_TOLERANCE, EVAL_WINDOW_DAYS)
    return {
        "failed_jobs": [jsonable(r) for r in failed],
        "eval_drops": [{**jsonable(r), "tolerance": EVAL_TOLERANCE} for r in drops],
    }


def run_line(report: dict) -> str:
    """One line for the worker's log and `legal-ai jobs run`."""
    if not report.get("ran"):
        return f"scheduled job {report['name']}: {report['outcome']} — " + (
            report.get("note") or report.get("error") or ""
        )
    result = report.get("result") or {}
    detail = result.get("summary") or result.get("skipped") or ""
    missed = f" (caught up {report['missed']} missed slot(s))" if report.get("missed") else ""
    tail = f" — {report['error']}" if report.get("error") else ""
    return (
        f"scheduled job {report['name']}: {report['outcome']}{missed}"
        + (f": {detail}" if detail else "")
        + tail
    )


def worker_pass(app: Context, *, worker: str, echo: Callable[[str], None]) -> int:
    """The worker's call each pass (learning/engine/jobs.py `work`): run the due jobs, echo a line for
    each; returns how many ran."""
    ran = 0
    for report in run_due(app, worker=worker):
        if report.get("ran"):
            ran += 1
        if report.get("outcome") != "busy":
            echo(run_line(report))
    return ran
