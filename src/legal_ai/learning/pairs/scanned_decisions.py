"""A draft or final uploaded as a scan (a PDF without a text layer) through the API, the desk or
the CLI (docs/ingest.md, "Scanned drafts and finals"): kept and queued for OCR instead of refused, then stored
through the same service as a text upload once the worker has read it.

- `queue` (in the upload's request): the scan checked (pages, a resolution OCR can read), its
  bytes kept in `scanned_files` with its OCR job (ingest/ocr_jobs.enqueue: the same queue as a
  case document's scan) and the upload remembered in `decision_scans` (migration 0049): the
  case, draft or final, the form's fields, the file's name and the principal who uploaded it,
  as the server authenticated it. Written by the server's own login, in one transaction.
- `run` (in `legal-ai worker` and `legal-ai ocr run`, after the OCR jobs): each upload whose
  scan is now read is stored by `drafts.add_draft` / `finals.upload_final` — the pairing, the
  copy check, the learning queue — acting for the principal recorded at upload, never for
  anyone a later input names, with the form's fields as they were sent. It ends `done` (with
  what the service answered) or `failed` with why (English) and its code (catalog.py): the OCR
  job failed (`scan.ocr_failed`), OCR read no text (`scan.ocr_empty`), or the service refused
  the text with its own code (e.g. `draft.final_arrived`); the desk says it in Hebrew.
- `cancel` (her final's stages page, while the scan waits; the API's `cancel_mine`): the
  upload deleted, with its queued OCR job and kept scan unless something else holds them;
  nothing is stored.
"""

from __future__ import annotations

import hashlib
import logging
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ... import upload_names
from ...auth import Principal
from ...errors import AppError, Conflict, Forbidden, NotFound
from ...ingest import ocr_jobs
from ...store import decision_scans as store
from ...store import ocr as ocr_store
from ...text import ocr
from .. import vocabulary as vocab
from ..methodology import ScannedDecision
from . import drafts, finals

if TYPE_CHECKING:
    from ...context import Context

logger = logging.getLogger(__name__)

KINDS = ("draft", "final")
# A scan OCR can read: below this resolution its letters are a few pixels high, above it the
# page is a picture printed smaller than any document (1 and 10,000 dpi are refused).
LEAST_DPI, MOST_DPI = 50, 2400
DRAFT_FIELDS = ("appeal_type", "outcome", "practice_area")
FINAL_FIELDS = (*DRAFT_FIELDS, "decided_on", "labels_from_draft")


def _fields(kind: str, given: dict) -> dict:
    """The form's fields kept with the upload, checked now as the text upload checks them."""
    kept = {
        k: v for k, v in given.items() if k in (FINAL_FIELDS if kind == "final" else DRAFT_FIELDS)
    }
    kept = {k: v for k, v in kept.items() if v not in (None, "")}
    if kind == "final":
        kept.setdefault("labels_from_draft", False)
        finals.check_fields(kept)
        kept["labels_from_draft"] = bool(vocab.flag(kept["labels_from_draft"], "labels_from_draft"))
    else:
        vocab.choice(kept.get("appeal_type"), vocab.APPEAL_TYPES, "appeal type")
        vocab.choice(kept.get("outcome"), vocab.OUTCOMES, "outcome")
        vocab.choice(kept.get("practice_area"), vocab.PRACTICE_AREAS, "practice area")
    return kept


def check_scan(app: Context, path: Path, name: str) -> None:
    """Refuse a scan OCR cannot read: a damaged PDF, more pages than LEGAL_AI_MAX_PAGES, or a
    page scanned below LEAST_DPI or above MOST_DPI (one line, nothing stored)."""
    ocr.page_count(path, app.settings)  # the file is the upload's own name in its folder
    for ppi in ocr.scan_resolutions(path, app.settings).values():
        if not LEAST_DPI <= ppi <= MOST_DPI:
            raise ScannedDecision(
                f"{name}: a scan (a PDF without a text layer) at about {round(ppi)} dpi, which "
                f"OCR cannot read: scan the decision again at 200-400 dpi",
                code="file.scan_resolution",
                field="file",
            )


def queue(
    app: Context, kind: str, case: str, path: Path | str, given: dict, source_name: str
) -> dict:
    """Keep the scanned `kind` of `case` for OCR, remembering the form's fields and who sent it
    (the answer of the upload: {"case_number", "kind", "scan_id", "status": "waiting_for_ocr"})."""
    if kind not in KINDS:  # the callers' own constant, never a request's
        raise ValueError(f"kind must be one of {', '.join(KINDS)}")
    path = Path(path)
    case = vocab.case_number(case)
    fields = _fields(kind, given)
    name = upload_names.file_name(source_name)
    check_scan(app, path, name)
    principal = app.principal
    if kind == "final" and not (principal.is_chair or principal.kind == "operator"):
        raise Forbidden("a final is the chair's: only she uploads it", code="final.chair_only")
    data = path.read_bytes()
    sha = hashlib.sha256(data).hexdigest()  # of the bytes read once
    with app.store.transaction() as conn, app.store.as_login(conn):
        ocr_jobs.enqueue(conn, sha, data)  # None: the scan is kept already (its reading reused)
        row = store.add(
            conn,
            kind=kind,
            case_number=case,
            sha=sha,
            source_name=source_name,
            fields=fields,
            actor_kind=principal.kind,
            actor_name=principal.name,
        )
    return {
        "case_number": case,
        "kind": kind,
        "scan_id": row["id"],
        "status": "waiting_for_ocr",
        "notes": [
            f"{name} is a scan: kept and queued for OCR; the {kind} is stored when the worker "
            "has read it (`legal-ai worker` or `legal-ai ocr run`)"
        ],
    }


def or_queue(
    app: Context, kind: str, case: str, path: Path | str, given: dict, source_name: str, store_it
) -> Mapping[str, Any]:
    """`store_it()` (the text upload), or, when the file is a scan, `queue` it for OCR."""
    try:
        return store_it()
    except ScannedDecision:
        return queue(app, kind, case, path, given, source_name)


def _store(view: Any, row: dict, text_path: Path, scan_path: Path | None) -> Mapping[str, Any]:
    """The OCR text stored by the text upload's service; the scan, when still kept, as the
    file she sent (the case page's original)."""
    fields = dict(row["fields"] or {})
    named = {"source_name": row["source_name"], "original": scan_path}
    if row["kind"] == "draft":
        return drafts.add_draft(view, row["case_number"], text_path, **named, **fields)
    return finals.upload_final(view, row["case_number"], text_path, **named, **fields)


def _scan_bytes(app: Context, sha: str) -> bytes | None:
    with app.store.transaction() as conn, app.store.as_login(conn):
        kept = ocr_store.get_scan(conn, sha, with_pdf=True)
    return bytes(kept["pdf"]) if kept else None


def _one(app: Context, row: dict, ready: dict) -> tuple[dict | None, AppError | None]:
    """Store one upload from its scan's reading: (the service's answer, None) or (None, why)."""
    if ready["read_at"] is None:
        why = ready["job_error"] or "the scan could not be read"
        return None, AppError(f"OCR failed: {why}", code="scan.ocr_failed", field="file")
    text = ready["content"] or ""
    if not text.strip():
        return None, AppError("OCR read no text in the scan", code="scan.ocr_empty", field="file")
    view = app.acting_as(Principal(row["actor_kind"], row["actor_name"]))
    try:
        with tempfile.TemporaryDirectory(prefix="legal-ai-scan-") as tmp:
            text_path = Path(tmp) / "ocr.txt"
            text_path.write_text(text, encoding="utf-8")
            scan = _scan_bytes(app, row["file_sha256"])
            scan_path = Path(tmp) / "scan.pdf" if scan else None
            if scan_path is not None and scan is not None:
                scan_path.write_bytes(scan)
            answer = _store(view, row, text_path, scan_path)
    except AppError as exc:
        return None, exc
    except Exception as exc:  # never silent: the row says it failed, the trace in the log
        logger.exception("storing the scanned %s of %s failed", row["kind"], row["case_number"])
        why = f"internal error while storing the OCR text ({type(exc).__name__})"
        return None, AppError(why, code="internal")
    return {
        k: answer.get(k) for k in ("case_number", "pair_status", "draft_version") if k in answer
    } | {"read_by": "ocr"}, None


def run(app: Context) -> dict:
    """Store every upload whose scan is read (or settle it failed when its OCR failed):
    {"done": [{"id", "kind", "case_number"}],
     "failed": [{"id", "kind", "case_number", "error", "code"}]}."""
    stale = float(app.settings.job_lease_s)
    with app.store.transaction() as conn, app.store.as_login(conn):
        candidates = store.ready(conn, stale)
    done: list[dict] = []
    failed: list[dict] = []
    for ready in candidates:
        with app.store.transaction() as conn, app.store.as_login(conn):
            row = store.claim(conn, ready["id"], stale)
        if row is None:
            continue  # another worker took it, or she cancelled it
        answer, refused = _one(app, row, ready)
        error = str(refused) if refused else None
        code = refused.code if refused else None
        with app.store.transaction() as conn, app.store.as_login(conn):
            store.settle(conn, row["id"], result=answer, error=error, code=code)
        named = {"id": row["id"], "kind": row["kind"], "case_number": row["case_number"]}
        if refused:
            failed.append({**named, "error": error, "code": code})
        else:
            done.append(named)
    return {"done": done, "failed": failed}


def cancel(app: Context, scan_id: int) -> dict:
    """Her scanned upload cancelled while it waits for OCR: deleted, its queued OCR job and kept
    scan too unless something else holds them (store.cancel); nothing is stored. Refused when
    the worker has already taken it (being stored, stored or failed)."""
    with app.store.transaction() as conn, app.store.as_login(conn):
        gone = store.cancel(conn, scan_id)
    if gone is None:
        raise Conflict(
            f"scanned upload {scan_id} is no longer waiting for OCR: it cannot be cancelled",
            code="scan.not_waiting",
        )
    return gone


def line(report: dict) -> str | None:
    """One line of `legal-ai worker` / `legal-ai ocr run` (None: nothing was settled)."""
    if not report["done"] and not report["failed"]:
        return None
    parts = [f"{d['kind']} of {d['case_number']} stored from its scan" for d in report["done"]]
    parts += [
        f"{f['kind']} of {f['case_number']} not stored: {f['error']}" for f in report["failed"]
    ]
    return "scanned decisions: " + "; ".join(parts)


def is_own(app: Context, row: dict) -> bool:
    """Whether the caller made this scanned upload (an upload is cancelled and listed only by
    whoever made it: the chair her own, an agent its own draft's)."""
    principal = app.principal
    return (row["actor_kind"], row["actor_name"]) == (principal.kind, principal.name)


def _answer(row: dict) -> dict:
    """A scanned upload as the API answers it: its state, and why it failed (catalog code)."""
    return {
        "scan_id": row["id"],
        "kind": row["kind"],
        "case_number": row["case_number"],
        "file_name": upload_names.file_name(row["source_name"]),
        "status": row["status"],
        "error_code": row["error_code"],
        "error": row["error"],
        "result": row["result"],
        "created_at": row["created_at"].isoformat(),
        "finished_at": row["finished_at"].isoformat() if row["finished_at"] else None,
    }


def mine(app: Context, limit: int = 50) -> dict:
    """The caller's own scanned uploads, newest first: waiting (for OCR), running (being stored),
    done (with the service's answer) or failed (with its code). Read as the login (an agent's
    role reads no upload), filtered by who authenticated."""
    principal = app.principal
    with app.store.transaction() as conn, app.store.as_login(conn):
        rows = store.of_actor(conn, principal.kind, principal.name, limit)
    return {"scans": [_answer(r) for r in rows]}


def mine_one(app: Context, scan_id: int) -> dict:
    """One of the caller's scanned uploads; NotFound for another's (never saying it exists)."""
    with app.store.transaction() as conn, app.store.as_login(conn):
        row = store.get(conn, scan_id)
    if row is None or not is_own(app, row):
        raise NotFound(f"no scanned upload {scan_id} of yours", code="scan.not_found")
    return _answer(row)


def cancel_mine(app: Context, scan_id: int) -> dict:
    """The caller's own scanned upload cancelled while it waits (`cancel`); NotFound for
    another's, Conflict once the worker has taken it."""
    mine_one(app, scan_id)
    gone = cancel(app, scan_id)
    return {"scan_id": scan_id, "status": "cancelled", **gone}


def of_case(app: Context, case: str) -> list[dict]:
    """The case's scanned uploads, newest first (the desk's case page)."""
    with app.store.connection() as conn:
        return store.of_case(conn, case)


def get(app: Context, scan_id: int) -> dict | None:
    with app.store.connection() as conn:
        return store.get(conn, scan_id)
