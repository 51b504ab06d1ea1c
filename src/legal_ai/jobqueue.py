"""The job queue every job kind uses (learning, principles, enrichment, ocr, voice, synthesis):
a worker's name, one drain pass over a kind's ready jobs, and a failed attempt's retry with
backoff. The queue's SQL is store/job_queue.py; each kind's `process_one` lives with its use case
(learning/engine/jobs.py, learning/principles/jobs.py, learning/arrival/enrichment.py, ingest/ocr_jobs.py); the
worker loop that drains them all is ops/worker.py."""

from __future__ import annotations

import logging
import os
import secrets
import socket
from collections.abc import Callable
from typing import Any, TypedDict

from .context import Context
from .errors import AppError, Scrubber
from .store import job_queue as store
from .store import monitoring
from .store.db import connection_lost

logger = logging.getLogger(__name__)

OPEN = monitoring.OPEN  # a job's statuses before it ends: queued, running, waiting

BACKOFF_S = 30.0  # first retry after 30 s, then 60, 120, ... (capped)
MAX_BACKOFF_S = 3600.0


def worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


def backoff(attempt: int) -> float:
    return min(BACKOFF_S * 2 ** max(0, attempt - 1), MAX_BACKOFF_S)


def drain(
    engine: Context,
    kind: str,
    reason: str | None,
    process_one: Callable[[dict], dict],
    *,
    worker: str,
    should_stop: Callable[[], bool] | None = None,
    may_run: Callable[[Any, dict], bool | None] | None = None,
) -> tuple[list[dict], list[dict], list[dict]]:
    """One pass over the ready jobs of `kind`: fail those abandoned on their last attempt,
    queue again the waiting ones whose `reason` (what to configure; None: nothing) changed, or
    that `may_run(conn, job)` lets run again (True; None: not its kind of wait — a daily budget's,
    learning/engine/budgets.resumable), then claim and `process_one` each ready job until none is left
    or `should_stop()`. Returns (outcomes, abandoned jobs, jobs still open)."""

    def again_now(conn: Any, job: dict) -> bool:
        verdict = may_run(conn, job) if may_run is not None else None
        if verdict is not None:
            return verdict
        return (job["waiting_for"] or "") != (reason or "")

    with engine.store.transaction() as conn:
        abandoned = store.fail_abandoned(conn, kind=kind)
        again = [j["id"] for j in store.waiting_jobs(conn, kind=kind) if again_now(conn, j)]
        if again:
            store.requeue(conn, again)
    outcomes = []
    while not (should_stop and should_stop()):
        with engine.store.transaction() as conn:
            job = store.claim(conn, worker, engine.settings.job_lease_s, kind=kind)
        if job is None:
            break
        outcomes.append(process_one(job))
    with engine.store.connection() as conn:
        pending = store.open_jobs(conn, kind=kind)
    return outcomes, abandoned, pending


def retry_later(
    app: Context, job: dict, worker: str, exc: Exception, what: str, result: dict | None = None
) -> tuple[str, str]:
    """A claimed job's attempt failed with `exc`: queued again with backoff while attempts
    remain, else failed. Returns (its status, or "lost" when another worker has it; the error
    as said to the user — an AppError's message, else "internal error in `what`" with the
    traceback in the log). The database out of reach is raised again instead: nothing can be
    recorded, and the job stays claimed until its lease ends (the worker waits the outage out)."""
    if connection_lost(exc):
        raise exc
    if isinstance(exc, AppError):
        error = Scrubber.of(app.settings)(str(exc))  # stored in jobs.error and shown: scrubbed
    else:
        logger.error("%s job %s failed", what, job["id"], exc_info=exc)
        error = f"internal error in {what} ({type(exc).__name__})"
    with app.store.transaction() as conn:
        row = store.retry_or_fail(
            conn, job["id"], worker, job["attempts"], error, result or {}, backoff(job["attempts"])
        )
    return (row["status"] if row else "lost"), error


def open_work(ctx: Context) -> list[dict]:
    """What work waits or stopped, by kind (store/monitoring.open_work): the queues' waiting,
    running and failed jobs and the oldest waiting one."""
    with ctx.store.connection() as conn:
        return monitoring.open_work(conn)


class Counted(TypedDict):
    """What a metrics scrape reads (store/monitoring.py): jobs per kind and status with the
    oldest's age, scheduled runs per job and outcome, model calls per stage, model and outcome."""

    jobs: list[dict]
    runs: list[dict]
    calls: list[dict]


def counted(ctx: Context, wait_s: float, statement_s: float) -> Counted:
    """The queues', the scheduled runs' and the model calls' counts in one transaction, bounded:
    a connection within `wait_s` seconds, each read within `statement_s` (PoolTimeout or
    psycopg's error after), so a scrape with the database down answers in time."""
    with ctx.store.transaction(timeout=wait_s, statements=statement_s) as conn:
        return {
            "jobs": monitoring.jobs(conn),
            "runs": monitoring.schedule_runs(conn),
            "calls": monitoring.model_calls(conn),
        }
