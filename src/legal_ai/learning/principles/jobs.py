"""Principles extracted on arrival: ingesting a ruling or a committee
decision — from the CLI, a final's upload (its internal copy) or a missing precedent's ruling
uploaded at the desk — queues one job (kind `principles`, key `principles:<item id>:<text
hash>`) in the same transaction. `legal-ai worker` and `legal-ai principles run` drain it with the
learning queue's machinery (jobs table, leases, retries with backoff, waiting for configuration):

- without a complete panel (LEGAL_AI_PRINCIPLE_PANEL, three models, their keys) a job waits with
  what to set, and is queued again when that changes;
- a panel whose daily token budget is spent (LEGAL_AI_MODEL_BUDGETS) defers the job before any
  call of its item (learning/engine/budgets.py): it waits, not failed, and is queued again once the
  budget allows (the next day, or raised);
- a model that fails (after the adapter's retries) fails the attempt: nothing of the item is
  written (the panel's answers are gathered before the one transaction that writes), and the job
  is retried later, then failed with the error;
- a job whose item's text changed since it was queued is closed as superseded (the newer text
  has its own job); a job whose item is gone or is not a ruling or decision is closed as skipped.

Each job's model calls and the principles it adds carry its id (model_calls.job_id,
case_law_principles.job_id).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ...auth import system_principal
from ...corpora import get_corpus
from ...errors import BudgetReached, InvalidInput
from ...jobqueue import drain, retry_later, worker_id
from ...store import items as sql_items
from ...store import job_queue as store
from ...store import jsonable
from ..engine import budgets, principle_panel
from .extraction import COUNTS, _extract_item, counts

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ...context import Context


KIND = "principles"
ACTOR = "principle-panel"
CORPUS_OF = {"external_upload": "external", "internal_committee": "internal"}


def enqueue(conn, case_law_id: int, content_hash: str) -> dict | None:
    """Queue the extraction of one item's principles for its current text, in the caller's
    transaction (the ingest's). None when this text already has its job."""
    return store.enqueue(conn, KIND, None, key_of(case_law_id, content_hash))


def key_of(case_law_id: int, content_hash: str) -> str:
    """The job's key: one extraction per item and text (learning/extraction_requests too)."""
    return f"{KIND}:{case_law_id}:{content_hash}"


def _kept(job: dict) -> dict:
    """What a job's result keeps while it is open: who asked for it over HTTP
    (learning/extraction_requests counts an agent's open requests by it)."""
    asked = (job.get("result") or {}).get("requested_by")
    return {"requested_by": asked} if asked else {}


def _target(job: dict) -> tuple[int, str]:
    _, item_id, content_hash = job["key"].split(":", 2)
    return int(item_id), content_hash


def panel_reason(app: Context, environ: Mapping[str, str] | None = None) -> str | None:
    """What to set before the panel can run (None: it can)."""
    try:
        principle_panel(app, environ=environ)
    except InvalidInput as exc:
        return str(exc)
    return None


def process(
    app: Context, job: dict, *, worker: str, environ: Mapping[str, str] | None = None
) -> dict:
    """Run one claimed job and settle it. Returns {"id", "doc_id", "status", "report", "error",
    "waiting_for"}."""
    item_id, content_hash = _target(job)
    attempt = job["attempts"]
    outcome = {
        "id": job["id"],
        "doc_id": None,
        "status": None,
        "report": None,
        "error": None,
        "waiting_for": None,
    }
    with app.store.connection() as conn:
        item = sql_items.extractable_item(conn, item_id)
    try:
        if item is None or item["content_hash"] != content_hash:
            result = (
                {"skipped": "the item is gone or is not a ruling or decision"}
                if (item is None)
                else {"superseded": "its text changed; the new text has its job"}
            )
            with app.store.transaction() as conn:
                row = store.complete(conn, job["id"], worker, attempt, result)
            outcome.update(status="done" if row else "lost", report=result)
            return outcome
        outcome["doc_id"] = item["doc_id"]
        try:
            models = principle_panel(app, job_id=job["id"], environ=environ)
        except InvalidInput as exc:
            with app.store.transaction() as conn:
                row = store.wait(conn, job["id"], worker, attempt, str(exc), _kept(job))
            outcome.update(status="waiting" if row else "lost", waiting_for=str(exc))
            return outcome
        report = counts()
        corpus = get_corpus(CORPUS_OF[item["source_kind"]])
        _extract_item(app, models, corpus, item, report, job_id=job["id"])
        with app.store.transaction() as conn:
            row = store.complete(conn, job["id"], worker, attempt, report)
        outcome.update(status="done" if row else "lost", report=report)
        return outcome
    except BudgetReached as exc:  # nothing of the item was asked: it waits for the budget
        with app.store.transaction() as conn:
            row = budgets.defer(conn, job, worker, exc, _kept(job))
        outcome.update(status="waiting" if row else "lost", waiting_for=str(exc))
        return outcome
    except Exception as exc:  # a model or the store failed: retried with backoff, then failed
        status, error = retry_later(app, job, worker, exc, "the principle panel", result=_kept(job))
        outcome.update(status=status, error=error)
        return outcome


def run(
    app: Context,
    *,
    worker: str | None = None,
    should_stop: Callable[[], bool] | None = None,
    environ: Mapping[str, str] | None = None,
) -> dict:
    """Drain the ready extraction jobs in this process: {"jobs": [...], "extracted": n, counts
    summed over the jobs, "pending": [{"job_id", "doc_id", "status", "reason"}], "failed",
    "waiting_for"}."""
    engine = app.acting_as(system_principal(ACTOR))
    worker = worker or worker_id()
    reason = panel_reason(engine, environ)
    outcomes, abandoned, pending = drain(
        engine,
        KIND,
        reason,
        lambda job: process(engine, job, worker=worker, environ=environ),
        worker=worker,
        should_stop=should_stop,
        may_run=budgets.resumable(engine),
    )
    totals = counts()
    for o in outcomes:
        for key in COUNTS:
            totals[key] += int((o["report"] or {}).get(key) or 0)
    return {
        "jobs": outcomes,
        "extracted": sum(1 for o in outcomes if o["status"] == "done" and o["doc_id"]),
        **totals,
        "pending": [_pending(j) for j in pending],
        "failed": [
            {"job_id": o["id"], "doc_id": o["doc_id"], "error": o["error"]}
            for o in outcomes
            if o["status"] == "failed"
        ]
        + [{"job_id": j["id"], "doc_id": None, "error": j["error"]} for j in abandoned],
        "waiting_for": reason,
    }


def _pending(job: dict) -> dict:
    item_id, _ = _target(job)
    if job["status"] == "waiting" and budgets.deferral(job["waiting_for"]):
        reason = budgets.deferral(job["waiting_for"])
    elif job["status"] == "waiting":
        reason = f"waiting for configuration: {job['waiting_for']}"
    elif job["error"]:
        reason = f"retry {job['attempts'] + 1} of {job['max_attempts']}; last error: {job['error']}"
    else:
        reason = "queued: run `legal-ai principles run` or start `legal-ai worker`"
    return {"job_id": job["id"], "item_id": item_id, "status": job["status"], "reason": reason}


def list_jobs(app: Context) -> dict:
    with app.store.connection() as conn:
        rows = store.list_jobs(conn, kind=KIND)
    return {"jobs": [jsonable(r) for r in rows]}


def job_line(job: dict) -> str:
    """One line of `legal-ai worker` for a settled extraction job."""
    report = job["report"] or {}
    if job["doc_id"] and job["status"] == "done":
        detail = (
            f"approved {report.get('approved', 0)}, pending review "
            f"{report.get('pending_review', 0)}, rejected {report.get('rejected', 0)}, "
            f"linked {report.get('linked', 0)}"
        )
    else:
        detail = next(iter(report.values()), "") if report else ""
    tail = job["waiting_for"] or job["error"] or ""
    return f"principles job {job['id']} {job['doc_id'] or ''}: {job['status']} ({detail})" + (
        f" — {tail}" if tail else ""
    )
