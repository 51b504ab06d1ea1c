"""Internal decisions enriched on arrival: a model
(LEGAL_AI_ENRICHER, through the learning engine's adapters and recorder) writes a decision's
headnote, summary and tags — without which it is not searchable. This module holds the queue, its
runner and where each decision waiting for enrichment stands; what the model is asked and the
grounding of its answer are learning/arrival/enrichment_grounding.py, the chair's review
learning/arrival/enrichment_review.py.

Ingesting an internal decision (`legal-ai ingest --corpus internal`, the internal copy of a final
upload) queues one job (kind `enrichment`, key `enrichment:<item id>:<text hash>`) in the ingest's
transaction (learning/arrival/upkeep.py), unless the ingest itself gave the headnote, summary and tags.
`legal-ai worker` and `legal-ai enrich run` drain the queue with the learning queue's machinery
(learning/principles/jobs.py is the pattern): leases renewed by every model call, a job waiting
with what to set while no model is configured (queued again when that changes), a failing model
retried with backoff and then failed with its error, a job whose item's text changed since it was
queued closed as superseded. A grounded answer is applied at once to the fields still empty (or
still the model's), marked as the model's and reversible by the chair; an ungrounded one, or one
with no field left to fill, waits for her review (learning/arrival/metadata.py settles it).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, TypedDict

from ...auth import system_principal
from ...errors import BudgetReached, StoreError
from ...jobqueue import drain, retry_later, worker_id
from ...paging import HEALTH_ROWS, Listing
from ...store import enrichment as store
from ...store import job_queue as queue
from ..engine import Lease, budgets, single_model
from . import metadata
from .enrichment_grounding import (
    MAX_SENTENCES,
    MAX_TAGS,
    SYSTEM,
    Enrichment,
    Refused,
    ground,
    user_prompt,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ...context import Context
    from ...providers.models import ChatModel

logger = logging.getLogger(__name__)

KIND = store.KIND
ACTOR = "enricher"
STAGE = "enrichment"
VARIABLE = "LEGAL_AI_ENRICHER"

# -- the queue ----------------------------------------------------------------------------------


def job_key(case_law_id: int, content_hash: str) -> str:
    return f"{KIND}:{case_law_id}:{content_hash}"


def enqueue(conn, case_law_id: int, content_hash: str) -> dict | None:
    """Queue the enrichment of one internal decision's current text in the caller's transaction.
    None when this text already has its job."""
    return queue.enqueue(conn, KIND, None, job_key(case_law_id, content_hash))


def enqueue_on_arrival(conn, case_law_id: int, values: dict) -> bool:
    """Queue the enrichment of a newly written internal decision's text, unless it has no text
    (an image-only PDF) or the ingest gave its headnote, summary and tags."""
    if not (values.get("content") or "").strip() or values.get("extraction_issue"):
        return False
    if all(not metadata.is_empty(values.get(f)) for f in metadata.FIELDS):
        return False
    return enqueue(conn, case_law_id, values["content_hash"]) is not None


def enqueue_missing(conn) -> int:
    """Queue the internal decisions without a headnote, summary or tags whose text has no job nor
    proposal (stored before enrichment on arrival). Returns how many were queued."""
    return sum(enqueue(conn, r["id"], r["content_hash"]) is not None for r in store.unqueued(conn))


def _target(job: dict) -> tuple[int, str]:
    _, item_id, content_hash = job["key"].split(":", 2)
    return int(item_id), content_hash


# -- the model ----------------------------------------------------------------------------------


def enricher(
    app: Context,
    *,
    case: str | None = None,
    job_id: int | None = None,
    lease: Lease | None = None,
    environ: Mapping[str, str] | None = None,
) -> tuple[ChatModel | None, str | None]:
    """The model of LEGAL_AI_ENRICHER recording its calls (case, job, the lease renewed); None and
    what to set when it is unset or its provider's key is absent. A malformed spec is
    InvalidInput naming the variable."""
    return single_model(
        app,
        VARIABLE,
        app.settings.enricher,
        "write the headnote, summary and tags of internal decisions",
        environ=environ,
        case=case,
        job_id=job_id,
        lease=lease,
    )


# -- the jobs -----------------------------------------------------------------------------------


class _Lost(Exception):
    """The job is no longer this worker's: what it wrote is rolled back."""


def _outcome(job: dict) -> dict:
    """What process returns, before the job runs."""
    return {
        "id": job["id"],
        "doc_id": None,
        "case_number": None,
        "status": None,
        "enrichment_id": None,
        "applied": False,
        "ungrounded": None,
        "refused": None,
        "error": None,
        "waiting_for": None,
    }


def _not_to_enrich(item: dict | None, content_hash: str) -> dict | None:
    """The result a job is closed with when its item is not to be enriched (gone, not an internal
    decision, or its text changed since it was queued); None when it is."""
    if item is None or item["source_kind"] != "internal_committee":
        return {"skipped": "the item is gone or is not an internal decision"}
    if item["content_hash"] != content_hash:
        return {"superseded": "its text changed; the new text has its job"}
    return None


def _proposal(model: ChatModel, item: dict, outcome: dict) -> dict:
    """The model's answer for the item, why it is not grounded in `outcome["ungrounded"]`; an
    answer with nothing to propose is Refused, its reason in `outcome`."""
    answer = model.ask(
        SYSTEM.format(max_sentences=MAX_SENTENCES, max_tags=MAX_TAGS),
        user_prompt(item),
        Enrichment,
        stage=STAGE,
    )
    proposal, why = ground(answer, item["content"])
    if proposal is None:
        outcome["refused"] = why
        raise Refused(f"refused: {why}")
    outcome["ungrounded"] = why
    return proposal


def _store_proposal(
    app: Context,
    job: dict,
    worker: str,
    item: dict,
    model: ChatModel,
    proposal: dict,
    ungrounded: str | None,
) -> tuple[int, bool]:
    """The proposal settled (applied, or waiting for the chair) and the job completed, in one
    transaction: (its id, whether it was applied); _Lost when the job was taken over."""
    item_id, content_hash = _target(job)
    with app.store.transaction() as conn:
        enrichment_id, applied = metadata.settle(
            conn,
            item,
            {
                **proposal,
                "case_law_id": item_id,
                "doc_id": item["doc_id"],
                "case_number": item["case_number"],
                "content_hash": content_hash,
                "model": model.spec.name,
                "job_id": job["id"],
                "written_by": app.principal.actor,
            },
            ungrounded,
        )
        if applied:
            metadata.fold_metadata(app, conn, item_id)
        result = {"enrichment_id": enrichment_id, "applied": applied}
        if queue.complete(conn, job["id"], worker, job["attempts"], result) is None:
            raise _Lost
    return enrichment_id, applied


def process(
    app: Context, job: dict, *, worker: str, environ: Mapping[str, str] | None = None
) -> dict:
    """Run one claimed job and settle it. Returns {"id", "doc_id", "case_number", "status",
    "enrichment_id", "refused", "error", "waiting_for"}."""
    item_id, content_hash = _target(job)
    attempt = job["attempts"]
    outcome = _outcome(job)
    with app.store.connection() as conn:
        item = store.item(conn, item_id)
    try:
        result = _not_to_enrich(item, content_hash)
        if result is not None:
            with app.store.transaction() as conn:
                row = queue.complete(conn, job["id"], worker, attempt, result)
            outcome.update(status="done" if row else "lost")
            return outcome
        if item is None:  # `_not_to_enrich` closed the job of an item that is gone
            raise StoreError(f"the item of job {job['id']} is gone")
        outcome.update(doc_id=item["doc_id"], case_number=item["case_number"])
        lease = Lease(job["id"], worker, attempt, app.settings.job_lease_s)
        model, reason = enricher(
            app, case=item["case_number"], job_id=job["id"], lease=lease, environ=environ
        )
        if model is None:
            with app.store.transaction() as conn:
                row = queue.wait(conn, job["id"], worker, attempt, reason or "", {})
            outcome.update(status="waiting" if row else "lost", waiting_for=reason)
            return outcome
        proposal = _proposal(model, item, outcome)
        if lease.lost:
            raise _Lost
        enrichment_id, applied = _store_proposal(
            app, job, worker, item, model, proposal, outcome["ungrounded"]
        )
        outcome.update(status="done", enrichment_id=enrichment_id, applied=applied)
        return outcome
    except _Lost:
        logger.warning("enrichment job %s was taken over by another worker", job["id"])
        outcome["status"] = "lost"
        return outcome
    except BudgetReached as exc:  # the enricher's daily budget: deferred, not failed
        with app.store.transaction() as conn:
            row = budgets.defer(conn, job, worker, exc, {})
        outcome.update(status="waiting" if row else "lost", waiting_for=str(exc))
        return outcome
    except Exception as exc:  # a model, a refusal or the store: retried with backoff, then failed
        status, error = retry_later(
            app,
            job,
            worker,
            exc,
            "the enrichment",
            {"refused": outcome["refused"]} if outcome["refused"] else None,
        )
        outcome.update(status=status, error=error)
        return outcome


def run(
    app: Context,
    *,
    worker: str | None = None,
    should_stop: Callable[[], bool] | None = None,
    environ: Mapping[str, str] | None = None,
) -> dict:
    """Drain the ready enrichment jobs in this process, as the agent `enricher`: {"jobs",
    "applied" (written into the decision), "proposed" (waiting for the chair, with why when not
    grounded), "refused", "failed", "pending", "waiting_for"}. Without a model every job waits
    and `waiting_for` says what to set."""
    engine = app.acting_as(system_principal(ACTOR))
    worker = worker or worker_id()
    _, reason = enricher(engine, environ=environ)
    outcomes, abandoned, pending = drain(
        engine,
        KIND,
        reason,
        lambda job: process(engine, job, worker=worker, environ=environ),
        worker=worker,
        should_stop=should_stop,
        may_run=budgets.resumable(engine),
    )
    return {
        "jobs": outcomes,
        "applied": [_settled(o) for o in outcomes if o["enrichment_id"] and o["applied"]],
        "proposed": [_settled(o) for o in outcomes if o["enrichment_id"] and not o["applied"]],
        "refused": [
            {
                "job_id": o["id"],
                "doc_id": o["doc_id"],
                "reason": o["refused"],
                "status": o["status"],
            }
            for o in outcomes
            if o["refused"]
        ],
        "failed": [
            {"job_id": o["id"], "doc_id": o["doc_id"], "error": o["error"]}
            for o in outcomes
            if o["status"] == "failed"
        ]
        + [{"job_id": j["id"], "doc_id": None, "error": j["error"]} for j in abandoned],
        "pending": [_pending(j) for j in pending],
        "waiting_for": reason,
    }


def _settled(outcome: dict) -> dict:
    return {
        "job_id": outcome["id"],
        "enrichment_id": outcome["enrichment_id"],
        "doc_id": outcome["doc_id"],
        "case_number": outcome["case_number"],
        "ungrounded": outcome["ungrounded"],
    }


def _pending(job: dict) -> dict:
    item_id, _ = _target(job)
    return {
        "job_id": job["id"],
        "case_law_id": item_id,
        "status": job["status"],
        "reason": metadata.job_state(
            job["status"], job["waiting_for"], job["error"], job["attempts"], job["max_attempts"]
        ),
    }


def work_pass(
    app: Context,
    *,
    worker: str,
    should_stop: Callable[[], bool] | None = None,
    environ: Mapping[str, str] | None = None,
    echo: Callable[[str], None] = print,
) -> int:
    """One pass of `legal-ai worker` over the enrichment queue: a line per settled job. Returns
    how many jobs it settled."""
    report = run(app, worker=worker, should_stop=should_stop, environ=environ)
    for o in report["jobs"]:
        detail = o["waiting_for"] or o["error"] or ""
        if o["enrichment_id"]:
            detail = (
                f"#{o['enrichment_id']} applied to the decision (the model's; the chair may "
                "revert or edit it)"
                if o["applied"]
                else f"proposal #{o['enrichment_id']} pending the chair's review"
            )
        echo(
            f"enrichment job {o['id']} {o['doc_id'] or ''}: {o['status']}"
            + (f" — {detail}" if detail else "")
        )
    return len(report["jobs"])


# -- health -------------------------------------------------------------------------------------


class AwaitingEnrichment(TypedDict):
    """An internal decision still waiting for enrichment, and where it stands."""

    case_law_id: int
    doc_id: str
    case_number: str | None
    job_id: int | None
    enrichment_id: int | None
    state: str


def awaiting(conn, limit: int = HEALTH_ROWS) -> Listing[AwaitingEnrichment]:
    """Internal decisions still waiting for enrichment, each with where it stands."""
    count, rows = store.awaiting(conn, limit)
    items: list[AwaitingEnrichment] = []
    for r in rows:
        if r["enrichment_status"] == "pending_review":
            state = (
                f"pending the chair's review: legal-ai enrich review {r['enrichment_id']} "
                "approve|reject"
            )
        else:
            state = metadata.job_state(
                r["job_status"], r["waiting_for"], r["error"], r["attempts"], r["max_attempts"]
            )
        items.append(
            {
                "case_law_id": r["case_law_id"],
                "doc_id": r["doc_id"],
                "case_number": r["case_number"],
                "job_id": r["job_id"],
                "enrichment_id": r["enrichment_id"],
                "state": state,
            }
        )
    return {"count": count, "items": items}
