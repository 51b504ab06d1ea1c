"""Extraction asked for over HTTP (`POST /api/principles/extract`): queued,
never run in the request. The principle panel (three models) runs only in `legal-ai worker` /
`legal-ai principles run` (learning/principle_jobs), and in the operator's own
`legal-ai principles extract` (learning/principles/extraction.extract).

- An agent may queue one named item: its doc_id (and its corpus). Asking again for the same item
  and text gives the same job, in whatever state it is (`new: false`): fifty requests in a row
  queue one job.
- A whole corpus, or `all`, is the chair's (or the operator's): an agent is refused (Forbidden).
  The chair's `all` queues one job per item and text (those that have one already are counted
  `already_queued`).
- An agent has at most MAX_OPEN_PER_AGENT requests open (queued, running or waiting) at a time;
  more are refused (RateLimited, 429) until the worker has run them. Each queued job carries who
  asked (`jobs.result.requested_by`, while it is open).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import Forbidden, InvalidInput, NotFound, RateLimited
from ...store import work_requests
from .jobs import CORPUS_OF, KIND, key_of

if TYPE_CHECKING:
    from ...context import Context

KIND_OF = {corpus: kind for kind, corpus in CORPUS_OF.items()}  # corpus -> case_law.source_kind
MAX_OPEN_PER_AGENT = 20  # an agent's extraction requests not yet run, at most
RETRY_AFTER_S = 300


def request(
    app: Context, *, corpus: str | None = None, doc_id: str | None = None, all: bool = False
) -> dict:
    """Queue the extraction of one named item (`doc_id`, in `corpus` or either), of a whole
    `corpus`, or of `all` (those two: the chair's or the operator's), one job per item and
    text. Returns {"queued": new jobs, "already_queued": jobs that existed, "jobs": [{"job_id",
    "doc_id", "corpus", "status", "new"}], "note"}."""
    if doc_id is not None and all:
        raise InvalidInput(
            "name one item (doc_id) or ask for all, not both", code="extraction.target"
        )
    if doc_id is None and not all and corpus is None:
        raise InvalidInput(
            "name a ruling or decision (doc_id and corpus), a corpus, or all",
            code="extraction.target",
        )
    if corpus is not None and corpus not in KIND_OF:
        raise InvalidInput(
            f"corpus {corpus!r} has no principles; use external or internal",
            code="corpus.no_principles",
            field="corpus",
        )
    who = app.principal
    if doc_id is None and who.kind not in ("chair", "operator"):
        whole = "every ruling and decision" if all else f"the {corpus} corpus"
        raise Forbidden(
            f"extracting the principles of {whole} is the chair's; {who.actor} may queue one "
            "named item (doc_id and corpus)",
            code="extraction.chair_only",
        )
    corpora = [corpus] if corpus else list(KIND_OF)
    jobs: list[dict] = []
    with app.store.transaction() as conn:
        work_requests.serialize(conn, who.actor)  # one requester's requests one at a time
        targets = [
            (name, target)
            for name in corpora
            for target in work_requests.extraction_targets(conn, KIND_OF[name], doc_id)
        ]
        if doc_id is not None:
            if not targets:
                raise NotFound(
                    f"no ruling or decision with doc_id {doc_id!r} in {' or '.join(corpora)}"
                )
            targets = targets[:1]  # one named item
        if who.kind == "agent":
            _within_bound(conn, who.actor, targets)
        for name, target in targets:
            key = key_of(target["id"], target["content_hash"])
            job, new = work_requests.request(conn, KIND, key, who.actor)
            jobs.append(
                {
                    "job_id": job["id"],
                    "doc_id": target["doc_id"],
                    "corpus": name,
                    "status": job["status"],
                    "new": new,
                }
            )
    queued = sum(1 for j in jobs if j["new"])
    note = _note(doc_id, jobs, queued)
    return {"queued": queued, "already_queued": len(jobs) - queued, "jobs": jobs, "note": note}


def _note(doc_id: str | None, jobs: list[dict], queued: int) -> str:
    """What a request's answer says it queued (one named item's job, or how many of a corpus's
    were new), and that the worker runs them."""
    if doc_id is not None:
        [job] = jobs
        note = (
            f"queued as job {job['job_id']}"
            if job["new"]
            else f"already asked for this text: job {job['job_id']} ({job['status']}); nothing "
            "new was queued"
        )
    else:
        note = f"{queued} job(s) queued, {len(jobs) - queued} already asked for (same text)"
    note += "; `legal-ai worker` runs the principle panel, never this request"
    return note


def _within_bound(conn, actor: str, targets: list[tuple[str, dict]]) -> None:
    """Refuse a new job for an agent that has MAX_OPEN_PER_AGENT requests open (one asked for
    again is never refused: it queues nothing)."""
    new = [
        t
        for _, t in targets
        if work_requests.job_of(conn, key_of(t["id"], t["content_hash"])) is None
    ]
    if not new:
        return
    open_now = work_requests.open_requests(conn, KIND, actor)
    if open_now + len(new) > MAX_OPEN_PER_AGENT:
        raise RateLimited(
            f"{actor} has {open_now} extraction requests not yet run (at most "
            f"{MAX_OPEN_PER_AGENT}); ask again when the worker has run them",
            retry_after=RETRY_AFTER_S,
        )
