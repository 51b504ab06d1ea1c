"""One run of a scheduled job (ops/scheduler.py says when and why): the job's definition, its
row claimed under the run's lease, the job run as the agent `scheduler` with its outcome and
scrubbed result, the run recorded and the next one set (a failure retried after a backoff)."""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..auth import system_principal
from ..errors import AppError, Scrubber
from ..store import schedule as store
from ..store.db import connection_lost
from .cron import next_after, slots_between, timezone_of

if TYPE_CHECKING:
    from ..context import Context

logger = logging.getLogger("legal_ai.ops.scheduler")  # the scheduler's log, as it always was

RUNNER = system_principal("scheduler")
RETRY_S = 300.0  # a failed job is retried after 5 minutes, then 10, 20, ... (capped)
MAX_RETRY_S = 3600.0


@dataclass(frozen=True)
class Job:
    """One scheduled job: `run(app, now) -> dict` does its work as the scheduler agent and
    returns what it did (JSON values, with a one-line `summary`); a `skipped` key (why) makes
    the outcome skipped, an `error` key (what failed; the rest of the result is kept) or an
    exception makes it failed."""

    name: str
    cron: str
    about: str
    run: Callable[[Context, dt.datetime], dict]


def _backoff(failures: int) -> dt.timedelta:
    return dt.timedelta(seconds=min(RETRY_S * 2 ** max(0, failures - 1), MAX_RETRY_S))


def _runner(app: Context) -> Context:
    return app if app.principal == RUNNER else app.acting_as(RUNNER)


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


def _execute(job: Job, app: Context, now: dt.datetime) -> tuple[str, dict | None, str | None]:
    """(outcome, result, error) of one run; never raises. The error, and every string of the
    result, scrubbed as the API's errors are (errors.Scrubber: no path, connection string or
    database login), since both are stored and shown to whoever lists the runs."""
    scrub = Scrubber.of(app.settings)
    try:
        result = job.run(app, now)
    except AppError as exc:
        return "failed", None, scrub(str(exc) or type(exc).__name__)
    except Exception as exc:  # a bug or an outage: recorded, retried, the other jobs go on
        if connection_lost(exc):  # nothing can be recorded: the worker waits the outage out
            raise
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


def busy(job: Job) -> dict:
    return {
        "name": job.name,
        "outcome": "busy",
        "ran": False,
        "note": f"{job.name} is running in another process; nothing was started",
    }


def run_job(
    app: Context, job: Job, now: dt.datetime, *, manual: bool, worker: str | None, requested_by: str
) -> dict | None:
    """Claim, run and record one job under its lease (released at the end either way). None:
    a scheduled job not yet due (and not asked for)."""
    runner = _runner(app)
    tz = timezone_of(app)
    lease = store.take_lease(runner.store.url, job.name)
    if lease is None:
        return busy(job)
    try:
        with runner.store.transaction() as conn:  # short: the row is read, then committed
            row = _claim(conn, job, tz, now)
        if row is None:
            return busy(job)
        asked = requested(row)
        if not manual and row["next_run_at"] > now:
            if asked is None:
                return None
            manual, requested_by = True, asked["by"]  # the chair's request, run here
        scheduled_for = None if manual else row["next_run_at"]
        missed = 0 if scheduled_for is None else slots_between(job.cron, tz, scheduled_for, now) - 1
        started = time.monotonic()
        outcome, result, error = _execute(job, runner, now)  # no transaction held meanwhile
        finished_at = now + dt.timedelta(seconds=time.monotonic() - started)
        values = {
            "name": job.name,
            "trigger": "manual" if manual else "schedule",
            "scheduled_for": scheduled_for,
            "missed": missed,
            "started_at": now,
            "finished_at": finished_at,
            "outcome": outcome,
            "result": result,
            "error": error,
            "worker": worker,
            "requested_by": requested_by,
        }
        with runner.store.transaction() as conn:  # short: the run recorded
            run, failures, next_run = _record(conn, job, tz, now, row, manual, values)
    finally:
        lease.release()
    return {
        "name": job.name,
        "ran": True,
        "run_id": run["id"],
        "outcome": outcome,
        "trigger": run["trigger"],
        "scheduled_for": scheduled_for,
        "missed": missed,
        "started_at": now,
        "finished_at": finished_at,
        "result": result,
        "error": error,
        "failures": failures,
        "next_run_at": next_run,
    }


def _record(
    conn, job: Job, tz: str, now: dt.datetime, row: dict, manual: bool, values: dict
) -> tuple[dict, int, dt.datetime]:
    """The run (`values`: store.record_run's) recorded and the job's row settled, in the run's
    second short transaction: (the run's row, the job's failures in a row, its next run)."""
    outcome = values["outcome"]
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
    run = store.record_run(conn, values)
    store.finish(
        conn,
        job.name,
        started_at=now,
        finished_at=values["finished_at"],
        outcome=outcome,
        result=values["result"],
        error=values["error"],
        failures=failures,
        next_run_at=next_run,
    )
    return run, failures, next_run


REQUEST_KEY = "run_requested"  # in schedules.last_result until the worker runs the job


def requested(row: dict | None) -> dict | None:
    """The request to run this job that waits for the worker ({"by", "at"}), if any."""
    result = (row or {}).get("last_result")
    asked = result.get(REQUEST_KEY) if isinstance(result, dict) else None
    return asked if isinstance(asked, dict) and asked.get("by") else None
