"""Scanned documents: a PDF without a text layer is stored, kept (its bytes in
`scanned_files`) and queued for OCR in the ingest's transaction — one job per file, kind `ocr`,
key `ocr:<file sha256>`. `legal-ai worker` and `legal-ai ocr run` drain the queue with the
learning queue's machinery (jobs table, leases, retries with backoff, waiting for the machine):

- without Tesseract, its language models or poppler a job waits, saying what to install
  (`text/ocr.problem`), and is queued again when that changes;
- the pages are read one by one (text/ocr.py), the lease renewed before each; the reading is kept
  with the scan (text, page offsets, engine, each page's confidence);
- the items stored from the scan are then written again through the normal ingest path
  (`Ingestor.ingest_items`): chunks with page numbers, embeddings, a new item version, and
  whatever ingest does on arrival (a ruling's principles queued, a final cut into blocks). Their
  metadata carries the confidences (ingest/ocr_reading.py: the file's, each page's, the pages
  below LEGAL_AI_OCR_MIN_CONFIDENCE, unread or scanned below 150 dpi with why, the numbers read
  with low confidence), which `legal-ai health`, `legal-ai ocr list` and `legal-ai item
  history` show;
- a scan in which OCR read nothing keeps its item unsearchable with why (`extraction_issue`);
- the same scan ingested again (or under another corpus) takes the reading already kept.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import upload_names
from ..auth import system_principal
from ..errors import AppError, StoreError
from ..jobqueue import drain, retry_later, worker_id
from ..store import job_queue as store
from ..store import jsonable
from ..store import ocr as ocr_store
from ..text import extract, ocr
from .ocr_reading import METADATA, WAITING, header_mismatch, low_confidence_reasons
from .sources import IngestItem

if TYPE_CHECKING:
    from ..config import Settings
    from ..context import Context


KIND = "ocr"
ACTOR = "ocr"


def key(sha: str) -> str:
    return f"{KIND}:{sha}"


def enqueue(conn, sha: str, pdf: bytes) -> dict | None:
    """Keep the scan and queue its OCR, in the caller's transaction (the ingest's). None when the
    scan is already kept (its job exists)."""
    if not ocr_store.keep_scan(conn, sha, pdf):
        return None
    return store.enqueue(conn, KIND, None, key(sha))


MAX_LISTED = 50  # items named in a report; the count says how many in all


def queue_stored(app: Context) -> dict:
    """Scans stored before the OCR queue existed (their bytes never kept, their issue still
    "run OCR and upload again"): each file is read again from the path it was ingested from and,
    when it is there with the same bytes, kept and queued like a new scan (its items then say
    they wait for OCR), one transaction per item; otherwise the item is listed with what to do.
    The nightly upkeep runs it. {"queued": [{"corpus", "doc_id"}], "not_found": N,
    "not_found_items": [{"corpus", "doc_id", "source_path", "why"}] (the first MAX_LISTED)}."""
    with app.store.connection() as conn:
        candidates = ocr_store.unqueued_scans(conn, extract.IMAGE_ONLY)
    limit = app.settings.max_file_mb * 2**20
    queued, not_found = [], []
    for corpus, row in candidates:
        named = {"corpus": corpus.key, "doc_id": row["doc_id"]}
        source = row["source_path"] or ""
        why = None
        if upload_names.is_upload(source) or not source:
            why = "uploaded, not read from a file here: upload it again"
        else:
            try:
                extract.check_size(Path(source), limit)
                data = Path(source).read_bytes()
            except (OSError, AppError):
                why = "the file is gone or unreadable: ingest it again"
            else:
                if hashlib.sha256(data).hexdigest() != row["file_sha256"]:
                    why = "the file changed since it was ingested: ingest it again"
        if why is not None:
            not_found.append({**named, "source_path": source, "why": why})
            continue
        with app.store.transaction() as conn:
            # Only while it still waits as it did: an ingest meanwhile may have given it text.
            if ocr_store.set_issue(
                conn, corpus, row["id"], WAITING, was=extract.IMAGE_ONLY, sha=row["file_sha256"]
            ):
                enqueue(conn, row["file_sha256"], data)  # None: another item's file kept it
                queued.append(named)
    return {
        "queued": queued,
        "not_found": len(not_found),
        "not_found_items": not_found[:MAX_LISTED],
    }


# -- the worker side ----------------------------------------------------------------------------
def _item_of(corpus, row: dict, pdf: Path) -> IngestItem:
    """A stored item waiting for OCR, as ingest reads it again from its scan."""
    fields = {c: row[c] for c in corpus.columns if row.get(c) is not None}
    metadata = {k: v for k, v in (row["metadata"] or {}).items() if k not in METADATA}
    return IngestItem(
        doc_id=row["doc_id"],
        text="",
        source_path=row["source_path"],
        source_format="pdf",
        doc_type=row["doc_type"],
        fields=fields,
        metadata=metadata,
        page_starts=row["page_starts"],
        file_sha256=row["file_sha256"],
        file_path=str(pdf),
        issue=extract.IMAGE_ONLY,
    )


def apply(app: Context, sha: str, pdf: Path) -> list[dict]:
    """Write the scan's reading into every item waiting for it, through the ingest path.
    Returns [{"corpus", "doc_id", "searchable"}], with "case_number_mismatch" ({"filed",
    "read"}) for an item whose scan's first page names other case numbers than its own."""
    with app.store.connection() as conn:
        waiting = ocr_store.items_waiting(conn, sha)
        scan = ocr_store.get_scan(conn, sha)
    if scan is None:  # saved before the job applies it; kept while items wait for it
        raise StoreError("the scan is no longer kept")
    written = []
    ingestor = app.ingestor()
    for corpus in {c.key: c for c, _ in waiting}.values():
        items = [_item_of(corpus, row, pdf) for c, row in waiting if c.key == corpus.key]
        report = ingestor.ingest_items(items, corpus)
        if report.failed:
            raise StoreError(f"writing the OCR text failed: {report.failed[0]['error']}")
        unsearchable = {u["doc_id"] for u in report.unsearchable}
        for i in items:
            entry: dict[str, Any] = {"corpus": corpus.key, "doc_id": i.doc_id}
            entry["searchable"] = i.doc_id not in unsearchable
            mismatch = header_mismatch(
                i.fields.get("case_number"), scan["content"] or "", scan["page_starts"] or []
            )
            written.append({**entry, "case_number_mismatch": mismatch} if mismatch else entry)
    return written


def _summary(scan: dict, settings: Settings) -> dict:
    pages = scan["page_confidence"] or []
    reasons = low_confidence_reasons(pages, settings.ocr_min_confidence)
    return {
        "pages": len(pages),
        "chars": len(scan["content"] or ""),
        "engine": scan["engine"],
        "page_confidence": [p["confidence"] for p in pages],
        "low_confidence_pages": [r["page"] for r in reasons],
        "low_confidence_reasons": reasons,
        "page_errors": {str(p["page"]): p["error"] for p in pages if p.get("error")},
    }


def _save_reading(app: Context, sha: str, reading) -> dict:
    """Keep what OCR read with the scan (in its own transaction); the scan as now stored."""
    text, starts = reading.text_and_starts
    if not text.strip():  # nothing read on any page: no text, not blank lines
        text, starts = "", [0] * len(starts)
    with app.store.transaction() as conn:
        ocr_store.save_reading(
            conn, sha, reading.engine, text, starts, [p.as_dict() for p in reading.pages]
        )
        scan = ocr_store.get_scan(conn, sha)
    if scan is None:  # its reading was just saved in this transaction
        raise StoreError("the scan is no longer kept")
    return scan


def process(
    app: Context, job: dict, *, worker: str, should_stop: Callable[[], bool] | None = None
) -> dict:
    """Run one claimed job and settle it. Returns {"id", "file_sha256", "status", "report",
    "error", "waiting_for"}."""
    sha = job["key"].split(":", 1)[1]
    attempt = job["attempts"]
    outcome: dict[str, Any] = {
        "id": job["id"],
        "file_sha256": sha,
        "status": None,
        "report": None,
        "error": None,
        "waiting_for": None,
    }
    reason = ocr.problem(app.settings)
    if reason:
        with app.store.transaction() as conn:
            row = store.wait(conn, job["id"], worker, attempt, reason, {})
        outcome.update(status="waiting" if row else "lost", waiting_for=reason)
        return outcome
    lost = False

    def keep_going(_page: int, _pages: int) -> bool:
        nonlocal lost
        with app.store.transaction() as conn:
            lost = not store.renew(conn, job["id"], worker, attempt, app.settings.job_lease_s)
        return not lost and not (should_stop and should_stop())

    try:
        with app.store.connection() as conn:
            scan = ocr_store.get_scan(conn, sha, with_pdf=True)
        if scan is None:
            result = {"skipped": "the scan is no longer kept"}
            with app.store.transaction() as conn:
                row = store.complete(conn, job["id"], worker, attempt, result)
            outcome.update(status="done" if row else "lost", report=result)
            return outcome
        with tempfile.TemporaryDirectory(prefix="legal-ai-scan-") as tmp:
            pdf = Path(tmp) / "scan.pdf"
            pdf.write_bytes(scan["pdf"])
            if scan["read_at"] is None:
                reading = ocr.read_pdf(pdf, app.settings, keep_going)
                if reading is None:  # asked to stop, or the lease was lost
                    return _stopped(app, job, worker, attempt, lost, outcome)
                scan = _save_reading(app, sha, reading)
            items = apply(app, sha, pdf)
        report = {**_summary(scan, app.settings), "items": items}
        with app.store.transaction() as conn:
            row = store.complete(conn, job["id"], worker, attempt, report)
        outcome.update(status="done" if row else "lost", report=report)
        return outcome
    except Exception as exc:  # the store or the ingest failed: retried with backoff, then failed
        status, error = retry_later(app, job, worker, exc, "OCR")
        outcome.update(status=status, error=error)
        return outcome


def _stopped(app: Context, job: dict, worker: str, attempt: int, lost: bool, outcome: dict) -> dict:
    """A reading that stopped: the lease was lost (nothing is settled), or the worker was asked
    to stop (the job released for a later run)."""
    if lost:
        outcome["status"] = "lost"
        return outcome
    with app.store.transaction() as conn:
        row = store.release(conn, job["id"], worker, attempt, {})
    outcome["status"] = "released" if row else "lost"
    return outcome


def run(
    app: Context, *, worker: str | None = None, should_stop: Callable[[], bool] | None = None
) -> dict:
    """Drain the ready OCR jobs in this process: {"jobs": [...], "read": files read, "pages",
    "items": [{"corpus", "doc_id", "searchable"}], "low_confidence": [{"corpus", "doc_id",
    "pages"}], "pending": [...], "failed": [...], "waiting_for"}."""
    engine = app.acting_as(system_principal(ACTOR))
    worker = worker or worker_id()
    reason = ocr.problem(app.settings)
    outcomes, abandoned, pending = drain(
        engine,
        KIND,
        reason,
        lambda job: process(engine, job, worker=worker, should_stop=should_stop),
        worker=worker,
        should_stop=should_stop,
    )
    done = [o for o in outcomes if o["status"] == "done" and "items" in (o["report"] or {})]
    items = [i for o in done for i in o["report"]["items"]]
    low = [
        {"corpus": i["corpus"], "doc_id": i["doc_id"], "pages": o["report"]["low_confidence_pages"]}
        for o in done
        if o["report"]["low_confidence_pages"]
        for i in o["report"]["items"]
    ]
    return {
        "jobs": outcomes,
        "read": len(done),
        "pages": sum(o["report"]["pages"] for o in done),
        "items": items,
        "low_confidence": low,
        "pending": [_pending(j) for j in pending],
        "failed": [
            {"job_id": o["id"], "file_sha256": o["file_sha256"], "error": o["error"]}
            for o in outcomes
            if o["status"] == "failed"
        ]
        + [
            {"job_id": j["id"], "file_sha256": j["key"].split(":", 1)[1], "error": j["error"]}
            for j in abandoned
        ],
        "waiting_for": reason,
    }


def _pending(job: dict) -> dict:
    if job["status"] == "waiting":
        reason = f"waiting for the machine: {job['waiting_for']}"
    elif job["error"]:
        reason = f"retry {job['attempts'] + 1} of {job['max_attempts']}; last error: {job['error']}"
    else:
        reason = "queued: run `legal-ai ocr run` or start `legal-ai worker`"
    return {
        "job_id": job["id"],
        "file_sha256": job["key"].split(":", 1)[1],
        "status": job["status"],
        "reason": reason,
    }


def status(app: Context) -> dict:
    """The OCR queue and what it read (`legal-ai ocr list`, `legal-ai health`'s `ocr`):
    {"queued", "waiting", "failed", "waiting_for", "min_confidence", "jobs": [open jobs with
    their reason], "low_confidence": [items with pages below the floor, or read empty]}."""
    with app.store.connection() as conn:
        return health(conn, app.settings)


def health(conn, settings: Settings) -> dict:
    jobs = store.list_jobs(conn, kind=KIND)
    open_jobs = [j for j in jobs if j["status"] in ("queued", "running", "waiting")]
    waiting = [j for j in jobs if j["status"] == "waiting"]
    return {
        "queued": sum(j["status"] in ("queued", "running") for j in jobs),
        "waiting": len(waiting),
        "failed": sum(j["status"] == "failed" for j in jobs),
        "waiting_for": waiting[0]["waiting_for"] if waiting else None,
        "min_confidence": settings.ocr_min_confidence,
        "jobs": [_pending(j) for j in open_jobs],
        "low_confidence": [jsonable(r) for r in ocr_store.read_items(conn, low_only=True)],
    }


def job_line(job: dict) -> str:
    """One line of `legal-ai worker` / `legal-ai ocr run` for a settled OCR job."""
    report = job["report"] or {}
    if "items" in report:
        names = ", ".join(f"{i['corpus']}/{i['doc_id']}" for i in report["items"]) or "no item"
        low = report["low_confidence_pages"]
        detail = f"{report['pages']} page(s), {report['chars']} chars → {names}" + (
            f"; low confidence on page(s) {', '.join(map(str, low))}" if low else ""
        )
    else:
        detail = next(iter(report.values()), "") if report else ""
    tail = job["waiting_for"] or job["error"] or ""
    return f"ocr job {job['id']} {job['file_sha256'][:12]}: {job['status']} ({detail})" + (
        f" — {tail}" if tail else ""
    )
