"""The chair's part in voice documents, through the one pattern of gated items
(learning/gate.py): she marks a case whose final is exemplary (`mark`, hers alone: it joins the
queue knowledge/voice.py writes from), lists and reads the documents, and approves or rejects one
(the database refuses any other role, migration 0020); only approved documents reach the writer
(knowledge/brief.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import psycopg

from ..auth import require_chair
from ..errors import Conflict, InvalidInput, refused_by_gate
from ..learning import vocabulary as vocab
from ..learning.gate import Gated
from ..paging import Page
from ..store import jsonable
from ..store import voice as store
from ..store.rows import Conn
from .voice import _segmented

if TYPE_CHECKING:
    from ..context import Context

STATUSES = ("queued", "pending_review", "approved", "rejected")
DECISIONS = {"approve": "approved", "reject": "rejected"}


def _shape(row: dict, *, full: bool = False) -> dict:
    out = jsonable(
        {
            k: row[k]
            for k in (
                "id",
                "case_number",
                "appeal_type",
                "outcome",
                "status",
                "marked_by",
                "marked_at",
                "note",
                "claims",
                "dropped_claims",
                "substance_claims",
                "model",
                "written_at",
                "refusals",
                "last_refusal",
                "reviewed_by",
                "reviewed_at",
                "review_reason",
                "final_changed",
            )
        }
    )
    if full:
        out["doc_id"] = row["doc_id"]
        out["final_hash"] = row["final_hash"]
        out["blocks"] = (row["document"] or {}).get("blocks", [])
        out["dropped_from_queue"] = bool((row["document"] or {}).get("dropped_from_queue"))
    return out


def mark(app: Context, case: str, note: str | None = None) -> dict:
    """The chair marks `case` as exemplary: it joins the queue of voice documents."""
    case = vocab.case_number(case)
    require_chair(app.principal, f"marking {case} as exemplary")
    note = vocab.free_text(note, "note", max_chars=2000) if note else None
    try:
        with refused_by_gate(), app.store.transaction() as conn:
            _segmented(conn, case)  # a final we can read block by block
            existing = store.open_document(conn, case)
            if existing is not None:
                raise InvalidInput(
                    f"{case} is already marked: voice document #{existing['id']} is "
                    f"{existing['status']}"
                    + (
                        "; reject it first to mark the case again"
                        if existing["status"] == "approved"
                        else ""
                    ),
                    code="voice.already_marked",
                )
            document_id = store.mark(conn, case, app.principal.actor, note)
    except psycopg.errors.UniqueViolation:
        raise InvalidInput(f"{case} is already marked", code="voice.already_marked") from None
    return show(app, document_id)


VOICE = Gated(
    noun="voice document",
    key="voice_documents",
    statuses=STATUSES,
    decisions=DECISIONS,
    rows=store.list_documents,
    get=store.get,
    shape=_shape,
    detail=lambda conn, row: _shape(row, full=True),
)


def list_documents(app: Context, status: str | None = None, page: Page | None = None) -> dict:
    """By id; one `page` with its `page` object (paging.py), or all when `page` is None."""
    return VOICE.list(app, status, page)


def show(app: Context, document_id: int) -> dict:
    return VOICE.show(app, document_id)


def review(
    app: Context,
    document_id: int,
    decision: str,
    reason: str | None = None,
    expected_status: str | None = None,
) -> dict:
    """The chair approves (it reaches the writer) or rejects a voice document; she may also
    reject an approved one (withdrawn from the writer) or a queued case (dropped).
    `expected_status`: the status she saw; when it is no longer that, read under the row lock,
    nothing changes (Stale)."""

    def decide(conn, row: dict, status: str, reason: str | None) -> dict | None:
        if row["status"] == status:
            return _shape(row, full=True)
        if status == "approved" and row["status"] != "pending_review":
            queued = row["status"] == "queued"
            raise Conflict(
                f"voice document {document_id} is {row['status']}: only a written document "
                "pending review is approved"
                + ("; run `legal-ai voice run` (needs LEGAL_AI_VOICE_WRITER)" if queued else ""),
                code="voice.not_pending",
            )
        if status == "approved" and row["final_changed"]:
            raise Conflict(
                f"the final of {row['case_number']} changed after voice document "
                f"{document_id} was written; reject it and mark the case again",
                code="voice.text_changed",
            )
        if row["status"] == "queued":  # dropped from the queue, nothing written
            final = store.final_for(conn, row["case_number"])
            store.drop(
                conn,
                document_id,
                app.principal.actor,
                reason,
                final["content_hash"] if final else "no final",
            )
        else:
            store.decide(conn, document_id, status, app.principal.actor, reason)
        return None

    return VOICE.review(app, document_id, decision, reason, expected_status, decide)


def final_for(conn: Conn, case_number: str) -> dict | None:
    """Her final of a case as the style corpus holds it (newest), with the pair's alignment."""
    return store.final_for(conn, case_number)


def markable(conn: Conn) -> list[dict]:
    """Cases whose final is in the style corpus and that have no open voice document."""
    return store.markable(conn)
