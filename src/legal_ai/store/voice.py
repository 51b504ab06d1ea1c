"""SQL of deep-read voice documents (knowledge/voice.py; migration 0020). Every function takes
the caller's connection; the gate (who marks, writes, approves) is the database's trigger."""

from __future__ import annotations

from psycopg.types.json import Jsonb

from .rows import Conn, one

_ROW = (
    "SELECT v.id, v.case_number, v.status, v.marked_by, v.marked_at, v.note,"
    " v.style_document_id, v.doc_id, v.final_hash, v.document, v.claims, v.dropped_claims,"
    " v.substance_claims, v.model, v.written_by, v.written_at, v.refusals, v.last_refusal,"
    " v.reviewed_by, v.reviewed_at, v.review_reason, v.updated_at,"
    " c.appeal_type, c.outcome, c.practice_area,"
    " (v.final_hash IS NOT NULL AND v.final_hash IS DISTINCT FROM"
    "  (SELECT d.content_hash FROM documents d WHERE d.id = v.style_document_id))"
    "  AS final_changed"
    " FROM voice_documents v LEFT JOIN cases c ON c.case_number = v.case_number"
)


def final_for(conn: Conn, case_number: str) -> dict | None:
    """Her final of a case as the style corpus holds it (newest), with the case's appeal type,
    outcome and chair, and the pair's alignment when our draft was there."""
    row = conn.execute(
        "SELECT d.id, d.doc_id, d.content, d.content_hash, c.appeal_type, c.outcome,"
        " c.chair_name, p.analysis, p.status AS pair_status, dr.blocks AS draft_blocks"
        " FROM documents d LEFT JOIN cases c ON c.case_number = d.case_number"
        " LEFT JOIN draft_final_pairs p ON p.case_number = d.case_number"
        " LEFT JOIN drafts dr ON dr.id = p.draft_id"
        " WHERE d.corpus = 'style' AND d.case_number = %s AND d.extraction_issue IS NULL"
        " ORDER BY d.id DESC LIMIT 1",
        (case_number,),
    ).fetchone()
    return dict(row) if row else None


def open_document(conn: Conn, case_number: str) -> dict | None:
    """The case's open row (queued, pending_review or approved), if any."""
    row = conn.execute(
        _ROW + " WHERE v.case_number = %s AND v.status IN ('queued', 'pending_review', 'approved')",
        (case_number,),
    ).fetchone()
    return dict(row) if row else None


def mark(conn: Conn, case_number: str, actor: str, note: str | None) -> int:
    return one(
        conn.execute(
            "INSERT INTO voice_documents (case_number, marked_by, note) VALUES (%s, %s, %s)"
            " RETURNING id",
            (case_number, actor, note),
        )
    )["id"]


def get(conn: Conn, document_id: int, *, lock: bool = False) -> dict | None:
    lock_clause = " FOR UPDATE OF v" if lock else ""
    row = conn.execute(_ROW + " WHERE v.id = %s" + lock_clause, (document_id,)).fetchone()
    return dict(row) if row else None


def list_documents(
    conn: Conn,
    status: str | None = None,
    *,
    limit: int | None = None,
    offset: int = 0,
) -> list[dict]:
    """By id; `limit` rows after `offset` (None: all)."""
    return [
        dict(r)
        for r in conn.execute(
            _ROW + " WHERE (%s::text IS NULL OR v.status = %s) ORDER BY v.id LIMIT %s OFFSET %s",
            (status, status, limit, offset),
        ).fetchall()
    ]


def queued(conn: Conn) -> list[dict]:
    """Rows waiting for their document, oldest mark first."""
    return list_documents(conn, "queued")


def write(conn: Conn, document_id: int, values: dict) -> bool:
    """queued -> pending_review with the written document; False when the row was no longer
    queued (another run wrote it, or the chair dropped it)."""
    row = conn.execute(
        "UPDATE voice_documents SET status = 'pending_review', document = %(document)s,"
        " claims = %(claims)s, dropped_claims = %(dropped_claims)s,"
        " substance_claims = %(substance_claims)s, model = %(model)s,"
        " written_by = %(written_by)s, written_at = now(), final_hash = %(final_hash)s,"
        " style_document_id = %(style_document_id)s, doc_id = %(doc_id)s"
        " WHERE id = %(id)s AND status = 'queued' RETURNING id",
        {**values, "document": Jsonb(values["document"]), "id": document_id},
    ).fetchone()
    return row is not None


def refuse(conn: Conn, document_id: int, reason: str) -> None:
    """A refused document: the row stays queued, the refusal counted and its reason kept."""
    conn.execute(
        "UPDATE voice_documents SET refusals = refusals + 1, last_refusal = %s"
        " WHERE id = %s AND status = 'queued'",
        (reason, document_id),
    )


def decide(conn: Conn, document_id: int, status: str, actor: str, reason: str | None) -> None:
    conn.execute(
        "UPDATE voice_documents SET status = %s, reviewed_by = %s, review_reason = %s"
        " WHERE id = %s",
        (status, actor, reason, document_id),
    )


def drop(conn: Conn, document_id: int, actor: str, reason: str | None, final_hash: str) -> None:
    """The chair drops a queued case (queued -> rejected) before any document was written: the
    row records the final it was marked for and an empty document (migration 0020 asks every row
    past the queue for a document, its claims and the final's hash)."""
    conn.execute(
        "UPDATE voice_documents SET status = 'rejected', reviewed_by = %s, review_reason = %s,"
        " document = %s, claims = 0, final_hash = %s WHERE id = %s AND status = 'queued'",
        (actor, reason, Jsonb({"blocks": [], "dropped_from_queue": True}), final_hash, document_id),
    )


def approved(conn: Conn, appeal_type: str, exclude_case: str | None) -> list[dict]:
    """Approved documents of cases of one appeal type (never of `exclude_case`), newest
    decision first."""
    return [
        dict(r)
        for r in conn.execute(
            _ROW + " WHERE v.status = 'approved' AND c.appeal_type = %s"
            " AND v.case_number IS DISTINCT FROM %s ORDER BY v.reviewed_at DESC, v.id DESC",
            (appeal_type, exclude_case),
        ).fetchall()
    ]


def markable(conn: Conn) -> list[dict]:
    """Cases whose final is in the style corpus (newest first) and that have no open voice
    document: the ones the chair may mark."""
    return [
        dict(r)
        for r in conn.execute(
            "SELECT d.case_number, max(d.decided_on) AS decided_on, max(c.appeal_type) AS"
            " appeal_type FROM documents d LEFT JOIN cases c ON c.case_number = d.case_number"
            " WHERE d.corpus = 'style' AND d.extraction_issue IS NULL AND d.case_number IS NOT NULL"
            " AND NOT EXISTS (SELECT 1 FROM voice_documents v WHERE v.case_number = d.case_number"
            " AND v.status IN ('queued', 'pending_review', 'approved'))"
            " GROUP BY d.case_number ORDER BY max(d.id) DESC"
        ).fetchall()
    ]
