"""SQL of the enrichment of internal decisions (learning/arrival/enrichment.py; migration 0023). Every
function takes the caller's connection; who approves is the database's gate (enrichment_gate)."""

from __future__ import annotations

from psycopg import sql
from psycopg.types.json import Jsonb

from .rows import Conn, one

KIND = "enrichment"
# The job of an item's current text: jobs.key = 'enrichment:<case_law id>:<content hash>'.
_JOB_OF = "'enrichment:' || c.id || ':' || c.content_hash"
_INTERNAL = (
    "c.source_kind = 'internal_committee' AND c.doc_type = 'decision'"
    " AND btrim(c.content) <> '' AND c.extraction_issue IS NULL"
)
_UNFILLED = (
    "(coalesce(btrim(c.headnote), '') = '' OR coalesce(btrim(c.summary), '') = ''"
    " OR cardinality(c.tags) = 0)"
)
_PARTS = {
    "job_of": sql.SQL(_JOB_OF),
    "internal": sql.SQL(_INTERNAL),
    "unfilled": sql.SQL(_UNFILLED),
}

_ROW = (
    "SELECT e.id, e.case_law_id, e.doc_id, e.case_number, e.content_hash, e.status, e.headnote,"
    " e.summary, e.sentences, e.tags, e.model, e.job_id, e.written_by, e.created_at,"
    " e.reviewed_by, e.reviewed_at, e.review_reason, e.previous, e.updated_at, e.ungrounded,"
    " c.title, (c.id IS NULL OR c.content_hash <> e.content_hash) AS text_changed,"
    " c.headnote AS item_headnote, c.summary AS item_summary, c.tags AS item_tags"
    " FROM case_law_enrichments e LEFT JOIN case_law c ON c.id = e.case_law_id"
)


def item(conn: Conn, case_law_id: int) -> dict | None:
    """An item of case_law as enrichment reads it (any corpus: the caller checks it)."""
    return conn.execute(
        "SELECT id, source_kind, doc_type, doc_id, case_number, title, court, decided_on,"
        " chair_name, content, content_hash, extraction_issue, headnote, summary, tags"
        " FROM case_law WHERE id = %s",
        (case_law_id,),
    ).fetchone()


def insert(conn: Conn, values: dict) -> int:
    """A new proposal: pending review (`ungrounded` says why, when it is not grounded), or
    `applied` by the system with the fields it replaced in `previous`; the item's earlier pending
    proposal (of an older text, or an earlier attempt) is superseded by it."""
    conn.execute(
        "UPDATE case_law_enrichments SET status = 'superseded'"
        " WHERE case_law_id = %s AND status = 'pending_review'",
        (values["case_law_id"],),
    )
    previous = values.get("previous")
    return one(
        conn.execute(
            "INSERT INTO case_law_enrichments (case_law_id, doc_id, case_number, content_hash,"
            " headnote, summary, sentences, tags, model, job_id, written_by, status, ungrounded,"
            " previous)"
            " VALUES (%(case_law_id)s, %(doc_id)s, %(case_number)s, %(content_hash)s, %(headnote)s,"
            " %(summary)s, %(sentences)s, %(tags)s, %(model)s, %(job_id)s, %(written_by)s,"
            " %(status)s, %(ungrounded)s, %(previous)s) RETURNING id",
            {
                "status": "pending_review",
                "ungrounded": None,
                **values,
                "sentences": Jsonb(values["sentences"]),
                "previous": Jsonb(previous) if previous is not None else None,
            },
        )
    )["id"]


def applied(conn: Conn, case_law_id: int) -> dict | None:
    """The item's latest enrichment the system applied and the chair has neither reverted nor
    edited (of any text of the item), or None."""
    row = conn.execute(
        _ROW + " WHERE e.case_law_id = %s AND e.status = 'applied' ORDER BY e.id DESC LIMIT 1",
        (case_law_id,),
    ).fetchone()
    return dict(row) if row else None


def get(conn: Conn, enrichment_id: int, *, lock: bool = False) -> dict | None:
    lock_clause = " FOR UPDATE OF e" if lock else ""
    row = conn.execute(_ROW + " WHERE e.id = %s" + lock_clause, (enrichment_id,)).fetchone()
    return dict(row) if row else None


def list_all(
    conn: Conn,
    status: str | None = None,
    *,
    limit: int | None = None,
    offset: int = 0,
    newest_first: bool = False,
) -> list[dict]:
    """By id (the newest first when `newest_first`); `limit` rows after `offset` (None: all)."""
    order = sql.SQL("DESC" if newest_first else "ASC")
    query = sql.SQL(
        _ROW + " WHERE (%(s)s::text IS NULL OR e.status = %(s)s) ORDER BY e.id {}"
        " LIMIT %(limit)s OFFSET %(offset)s"
    ).format(order)
    return conn.execute(query, {"s": status, "limit": limit, "offset": offset}).fetchall()


def decide(
    conn: Conn,
    enrichment_id: int,
    status: str,
    actor: str,
    reason: str | None,
    previous: dict | None,
) -> None:
    conn.execute(
        "UPDATE case_law_enrichments SET status = %s, reviewed_by = %s, review_reason = %s,"
        " previous = %s WHERE id = %s",
        (status, actor, reason, Jsonb(previous) if previous is not None else None, enrichment_id),
    )


def unqueued(conn: Conn) -> list[dict]:
    """Internal decisions without a headnote or summary whose current text has neither a job nor
    a proposal (stored before enrichment on arrival, or their job was lost)."""
    query = sql.SQL(
        "SELECT c.id, c.content_hash FROM case_law c WHERE {internal} AND {unfilled}"
        " AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.key = {job_of})"
        " AND NOT EXISTS (SELECT 1 FROM case_law_enrichments e WHERE e.case_law_id = c.id"
        "                 AND e.content_hash = c.content_hash) ORDER BY c.id"
    ).format(**_PARTS)
    return conn.execute(query).fetchall()


_AWAITING = sql.SQL(
    "FROM case_law c"
    " LEFT JOIN jobs j ON j.key = {job_of}"
    " LEFT JOIN LATERAL (SELECT e.id, e.status FROM case_law_enrichments e"
    "   WHERE e.case_law_id = c.id AND e.content_hash = c.content_hash"
    "   AND e.status <> 'superseded' ORDER BY e.id DESC LIMIT 1) e ON true"
    " WHERE {internal} AND (e.status IS NULL OR e.status = 'pending_review')"
    " AND (j.id IS NOT NULL OR e.id IS NOT NULL OR {unfilled})"
).format(**_PARTS)


def awaiting(conn: Conn, limit: int) -> tuple[int, list[dict]]:
    """Internal decisions still waiting for enrichment: their current text has no approved or
    rejected proposal, and a job or a pending proposal for it, or no headnote or summary at all.
    Returns (how many, the first `limit` with their job and proposal)."""
    count = one(conn.execute(sql.SQL("SELECT count(*) AS n {}").format(_AWAITING)))["n"]
    rows = conn.execute(
        sql.SQL(
            "SELECT c.id AS case_law_id, c.doc_id, c.case_number, j.id AS job_id,"
            " j.status AS job_status, j.waiting_for, j.error, j.attempts, j.max_attempts,"
            " e.id AS enrichment_id, e.status AS enrichment_status {} ORDER BY c.id LIMIT %s"
        ).format(_AWAITING),
        (limit,),
    ).fetchall()
    return count, rows


_AWAITING_METADATA = sql.SQL(
    "FROM case_law c"
    " LEFT JOIN jobs j ON j.key = {job_of}"
    " LEFT JOIN LATERAL (SELECT e.id, e.status, e.ungrounded FROM case_law_enrichments e"
    "   WHERE e.case_law_id = c.id AND e.content_hash = c.content_hash"
    "   AND e.status <> 'superseded' ORDER BY e.id DESC LIMIT 1) e ON true"
    " WHERE c.source_kind = 'internal_committee'"
    " AND c.missing && ARRAY['headnote', 'summary', 'tags']"
).format(**_PARTS)


def awaiting_metadata(
    conn: Conn, limit: int, *, case_law_id: int | None = None
) -> tuple[int, list[dict]]:
    """Internal decisions not searchable for want of their headnote, summary or tags (the
    completeness contract's `missing`), each with its enrichment job and its latest proposal of
    the current text: (how many, the first `limit`); `case_law_id`: that decision only."""
    params = {"id": case_law_id, "limit": limit}
    query = sql.SQL("SELECT count(*) AS n {} AND (%(id)s::bigint IS NULL OR c.id = %(id)s)")
    count = one(conn.execute(query.format(_AWAITING_METADATA), params))["n"]
    rows = conn.execute(
        sql.SQL(
            "SELECT c.id AS case_law_id, c.doc_id, c.case_number, c.title, c.decided_on,"
            " c.missing, c.headnote, c.summary, c.tags, j.id AS job_id, j.status AS job_status,"
            " j.waiting_for, j.error, j.attempts, j.max_attempts, e.id AS enrichment_id,"
            " e.status AS enrichment_status, e.ungrounded {}"
            " AND (%(id)s::bigint IS NULL OR c.id = %(id)s) ORDER BY c.id LIMIT %(limit)s"
        ).format(_AWAITING_METADATA),
        params,
    ).fetchall()
    return count, rows
