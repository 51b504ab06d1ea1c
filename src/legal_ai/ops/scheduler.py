"""The scheduled jobs, defined in one place (`JOBS`), and the scheduler that runs them (issue 15
item 1; README "Running it as a service" → "Scheduled jobs").

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
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..auth import system_principal
from ..errors import AppError, Forbidden, InvalidInput, NotFound, Scrubber
from ..paging import Page
from ..store import jsonable
from ..store import schedule as store
from . import tasks
from .tasks import EVAL_TOLERANCE, EVAL_WINDOW_DAYS

if TYPE_CHECKING:
    from ..app import App

logger = logging.getLogger(__name__)

RUNNER = system_principal("scheduler")
RETRY_S = 300.0  # a failed job is retried after 5 minutes, then 10, 20, ... (capped)
MAX_RETRY_S = 3600.0
MISSED_CAP = 10_000  # slots counted when catching up (a 15-minute job idle for 100 days)
OUTCOMES = ("ok", "failed", "skipped")


@dataclass(frozen=True)
class Job:
    """One scheduled job: `run(app, now) -> dict` does its work as the scheduler agent and
    returns what it did (JSON values, with a one-line `summary`); a `skipped` key (why) makes
    the outcome skipped, an `error` key (what failed; the rest of the result is kept) or an
    exception makes it failed."""

    name: str
    cron: str
    about: str
    run: Callable[[App, dt.datetime], dict]


def _lazy(name: str) -> Callable[[App, dt.datetime], dict]:
    """A job function of tasks.py, imported when the job runs (the CLI stays light)."""

    def run(app: App, now: dt.datetime) -> dict:
        return getattr(tasks, name)(app, now)

    run.__name__ = name
    return run


# The jobs (07-learning §4, and the upkeep that used to wait for a person). One place.
JOBS: tuple[Job, ...] = (
    Job("weekly-feedback-analysis", "0 19 * * sun",
        "the week's chair feedback by category and block; recurring feedback (same category and "
        "block twice or more) proposed as lessons for the chair's gate; skipped without feedback",
        _lazy("weekly_feedback_analysis")),
    Job("stale-case-reminder", "0 8 * * *",
        "cases whose ledger has not moved for LEGAL_AI_STALE_CASE_DAYS (30) days, as a reminder "
        "list (legal-ai jobs reminders, GET /api/reminders, the desk's /reminders) and a POST to "
        "LEGAL_AI_REMINDER_WEBHOOK when set",
        _lazy("stale_case_reminder")),
    Job("sync-case-status", "*/15 * * * *",
        "each case's status reconciled with its ledger; the changes pushed to "
        "LEGAL_AI_TRACKER_URL when set",
        _lazy("sync_case_status")),
    Job("nightly-upkeep", "30 2 * * *",
        "re-index what is stale, resolve missing precedents, synthesize pending canonical "
        "statements (LEGAL_AI_SYNTHESIZER), run the standing evaluation (LEGAL_AI_STANDING_EVAL) "
        "and record its nDCG@10 per day",
        _lazy("nightly_upkeep")),
)  # fmt: skip


# -- time ---------------------------------------------------------------------------------------


def timezone_of(app: App) -> str:
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


def _now(now: dt.datetime | None) -> dt.datetime:
    if now is None:
        return dt.datetime.now(dt.UTC)
    if now.tzinfo is None:
        raise InvalidInput("the scheduler's clock must carry a time zone")
    return now


def _backoff(failures: int) -> dt.timedelta:
    return dt.timedelta(seconds=min(RETRY_S * 2 ** max(0, failures - 1), MAX_RETRY_S))


# -- running ------------------------------------------------------------------------------------


def _runner(app: App) -> App:
    return app if app.principal == RUNNER else app.acting_as(RUNNER)


def find(name: str, jobs: Sequence[Job] | None = None) -> Job:
    for job in jobs or JOBS:
        if job.name == name:
            return job
    known = ", ".join(j.name for j in jobs or JOBS)
    raise NotFound(f"no scheduled job {name!r}; the jobs: {known}")


def _claim(conn, job: Job, tz: str, now: dt.datetime) -> dict | None:
    """The job's row, locked for this short transaction (created on first sight, due at its
    first slot after now); None when another transaction holds it. Called under the run's
    lease."""
    row = store.lock(conn, job.name)
    if row is None:
        store.ensure(conn, job.name, job.cron, tz, next_after(job.cron, tz, now))
        row = store.lock(conn, job.name)
        if row is None:
            return None
    if (row["cron"], row["timezone"]) != (job.cron, tz):  # its definition changed
        row = store.reschedule(conn, job.name, job.cron, tz, next_after(job.cron, tz, now))
    return row


def _execute(job: Job, app: App, now: dt.datetime) -> tuple[str, dict | None, str | None]:
    """(outcome, result, error) of one run; never raises. The error, and every string of the
    result, scrubbed as the API's errors are (errors.Scrubber: no path, connection string or
    database login), since both are stored and shown to whoever lists the runs."""
    scrub = Scrubber.of(app.settings)
    try:
        result = job.run(app, now)
    except AppError as exc:
        return "failed", None, scrub(str(exc) or type(exc).__name__)
    except Exception as exc:  # a bug or an outage: recorded, retried, the other jobs go on
        logger.exception("scheduled job %s failed", job.name)  # the log keeps the details
        return "failed", None, scrub(f"internal error in {job.name} ({type(exc).__name__}: {exc})")
    result = scrub.deep(jsonable_deep(result or {}))
    if result.get("error"):
        return "failed", result, str(result["error"])
    if result.get("skipped"):
        return "skipped", result, None
    return "ok", result, None


def jsonable_deep(value: Any) -> Any:
    """Plain JSON values (dates and times as ISO strings), at any depth."""
    if isinstance(value, dict):
        return {str(k): jsonable_deep(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable_deep(v) for v in value]
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    return value


def _busy(job: Job) -> dict:
    return {"name": job.name, "outcome": "busy", "ran": False,
            "note": f"{job.name} is running in another process; nothing was started"}  # fmt: skip


def _run(app: App, job: Job, now: dt.datetime, *, manual: bool, worker: str | None,
         requested_by: str) -> dict | None:  # fmt: skip
    """Claim, run and record one job under its lease (released at the end either way). None:
    a scheduled job not yet due (and not asked for)."""
    runner = _runner(app)
    tz = timezone_of(app)
    lease = store.take_lease(runner.store.url, job.name)
    if lease is None:
        return _busy(job)
    try:
        with runner.store.transaction() as conn:  # short: the row is read, then committed
            row = _claim(conn, job, tz, now)
        if row is None:
            return _busy(job)
        asked = requested(row)
        if not manual and row["next_run_at"] > now:
            if asked is None:
                return None
            manual, requested_by = True, asked["by"]  # the chair's request, run here
        scheduled_for = None if manual else row["next_run_at"]
        missed = 0 if manual else slots_between(job.cron, tz, scheduled_for, now) - 1
        started = time.monotonic()
        outcome, result, error = _execute(job, runner, now)  # no transaction held meanwhile
        finished_at = now + dt.timedelta(seconds=time.monotonic() - started)
        with runner.store.transaction() as conn:  # short: the run recorded
            row = store.lock(conn, job.name) or row
            failures = row["failures"] + 1 if outcome == "failed" else 0
            following = next_after(job.cron, tz, now)
            if manual:  # the schedule stays; a success stands for a slot due or a retry pending
                settled = outcome != "failed" and (row["failures"] or row["next_run_at"] <= now)
                next_run = following if settled else row["next_run_at"]
            elif outcome == "failed":
                next_run = min(following, now + _backoff(failures))
            else:
                next_run = following
            run = store.record_run(conn, {
                "name": job.name, "trigger": "manual" if manual else "schedule",
                "scheduled_for": scheduled_for, "missed": missed, "started_at": now,
                "finished_at": finished_at, "outcome": outcome, "result": result,
                "error": error, "worker": worker, "requested_by": requested_by,
            })  # fmt: skip
            store.finish(conn, job.name, started_at=now, finished_at=finished_at,
                         outcome=outcome, result=result, error=error, failures=failures,
                         next_run_at=next_run)  # fmt: skip
    finally:
        lease.release()
    return {"name": job.name, "ran": True, "run_id": run["id"], "outcome": outcome,
            "trigger": run["trigger"], "scheduled_for": scheduled_for, "missed": missed,
            "started_at": now, "finished_at": finished_at, "result": result, "error": error,
            "failures": failures, "next_run_at": next_run}  # fmt: skip


def run_due(app: App, *, now: dt.datetime | None = None, jobs: Sequence[Job] | None = None,
            worker: str | None = None) -> list[dict]:  # fmt: skip
    """Run every job that is due at `now`, each once, one after another; returns what each did
    (jobs not due are left out, a job another process is running is reported `busy`). A job
    that fails never stops the others."""
    now = _now(now)
    reports = []
    for job in jobs or JOBS:
        try:
            report = _run(app, job, now, manual=False, worker=worker, requested_by=RUNNER.actor)
        except Exception as exc:  # the bookkeeping itself failed (the database went away)
            logger.exception("scheduler: %s could not be run", job.name)
            report = {"name": job.name, "ran": False, "outcome": "failed",
                      "error": Scrubber.of(app.settings)(
                          f"the scheduler could not run it: {exc}")}  # fmt: skip
        if report is not None:
            reports.append(jsonable_deep(report))
    return reports


def _may_run(app: App, name: str) -> None:
    """Running a job on demand is the chair's or the operator's (an agent's work is queued by
    the system, never started by the agent)."""
    if app.principal.kind not in ("chair", "operator"):
        raise Forbidden(
            f"running the scheduled job {name} is the chair's or the operator's; "
            f"{app.principal.actor} may not start it (it runs on schedule in `legal-ai worker`)"
        )


def run_now(app: App, name: str, *, now: dt.datetime | None = None,
            jobs: Sequence[Job] | None = None, worker: str | None = None) -> dict:  # fmt: skip
    """Run job `name` now, on demand, and wait for it (recorded with trigger `manual` and who
    asked): the operator's `legal-ai jobs run`, or the chair."""
    job = find(name, jobs)
    _may_run(app, job.name)
    report = _run(app, job, _now(now), manual=True, worker=worker,
                  requested_by=app.principal.actor)  # fmt: skip
    return jsonable_deep(report)


REQUEST_KEY = "run_requested"  # in schedules.last_result until the worker runs the job


def requested(row: dict | None) -> dict | None:
    """The request to run this job that waits for the worker ({"by", "at"}), if any."""
    result = (row or {}).get("last_result")
    asked = result.get(REQUEST_KEY) if isinstance(result, dict) else None
    return asked if isinstance(asked, dict) and asked.get("by") else None


def request_run(app: App, name: str, *, now: dt.datetime | None = None,
                jobs: Sequence[Job] | None = None) -> dict:  # fmt: skip
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
            return _busy(job)
        store.ensure(conn, job.name, job.cron, tz, next_after(job.cron, tz, at))
        asked = store.request_run(conn, job.name, REQUEST_KEY,
                                  {"by": app.principal.actor, "at": at.isoformat()})  # fmt: skip
    return {"name": job.name, "outcome": "queued", "ran": False, "trigger": "manual",
            "requested_by": asked["by"], "requested_at": asked["at"],
            "note": f"{job.name} is queued for the worker: `legal-ai worker` runs it at its next "
                    f"pass, recorded as a manual run by {asked['by']} (GET /api/jobs/runs?"
                    f"name={job.name})"}  # fmt: skip


def list_jobs(app: App, *, now: dt.datetime | None = None,
              jobs: Sequence[Job] | None = None) -> dict:  # fmt: skip
    """Every job with its schedule, next run and last outcome (`running`: a process holds its
    run lease now). A job never run yet shows its first slot after now."""
    now = _now(now)
    tz = timezone_of(app)
    scrub = Scrubber.of(app.settings)
    with app.store.connection() as conn:  # a read, as the caller (no job runs here)
        rows = store.all_schedules(conn)
        running = store.leased(conn)
    out = []
    for job in jobs or JOBS:
        row = rows.get(job.name)
        same = row is not None and (row["cron"], row["timezone"]) == (job.cron, tz)
        result = (row or {}).get("last_result") or {}
        out.append({
            "name": job.name, "cron": job.cron, "timezone": tz, "about": job.about,
            "next_run_at": row["next_run_at"] if same else next_after(job.cron, tz, now),
            "running": job.name in running,
            "requested": requested(row),
            "last_started_at": (row or {}).get("last_started_at"),
            "last_finished_at": (row or {}).get("last_finished_at"),
            "last_outcome": (row or {}).get("last_outcome"),
            "last_summary": result.get("summary") if isinstance(result, dict) else None,
            "last_error": scrub((row or {}).get("last_error") or "") or None,
            "failures": (row or {}).get("failures", 0),
        })  # fmt: skip
    zone = ZoneInfo(tz)
    local = [{k: v.astimezone(zone) if isinstance(v, dt.datetime) else v for k, v in j.items()}
             for j in out]  # fmt: skip
    return {"as_of": now.astimezone(zone).isoformat(), "timezone": tz,
            "jobs": [jsonable_deep(j) for j in local]}  # fmt: skip


def runs(app: App, name: str | None = None, limit: int = 20, offset: int = 0) -> dict:
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


def health(conn, jobs: Sequence[Job] | None = None) -> dict:
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
            report.get("note") or report.get("error") or "")  # fmt: skip
    result = report.get("result") or {}
    detail = result.get("summary") or result.get("skipped") or ""
    missed = f" (caught up {report['missed']} missed slot(s))" if report.get("missed") else ""
    tail = f" — {report['error']}" if report.get("error") else ""
    return f"scheduled job {report['name']}: {report['outcome']}{missed}" + (
        f": {detail}" if detail else "") + tail  # fmt: skip


def worker_pass(app: App, *, worker: str, echo: Callable[[str], None]) -> int:
    """The worker's call each pass (learning/jobs.py `work`): run the due jobs, echo a line for
    each; returns how many ran."""
    ran = 0
    for report in run_due(app, worker=worker):
        if report.get("ran"):
            ran += 1
        if report.get("outcome") != "busy":
            echo(run_line(report))
    return ran
