"""SQL of canonical principles: the synthesis of their statement (learning/principles/synthesis.py; migration
0016) and the chair's gate (learning/principles/canonical.py; migration 0017)."""

from __future__ import annotations

from .rows import Conn, one


def pending(conn: Conn) -> list[dict]:
    """Canonical principles awaiting synthesis that have an occurrence the writer may read (the
    chair approved it, or confirmed the panel's approval), oldest first."""
    return [
        dict(r)
        for r in conn.execute(
            "SELECT k.id, k.source_kind, k.rule_text, k.canonical_statement FROM canonical_principles k"
            " WHERE k.status = 'pending_synthesis' AND EXISTS (SELECT 1 FROM case_law_principles p"
            " WHERE p.canonical_id = k.id"
            " AND principle_for_writer(p.review_status, p.reviewed_by, p.confirmed_by)) ORDER BY k.id"
        ).fetchall()
    ]


def occurrences(conn: Conn, canonical_id: int) -> list[dict]:
    """The occurrences of one canonical principle that the writer may read (approved by the
    chair, or the panel's approval confirmed by her), first occurrence first: a statement is
    synthesized from their quotes only."""
    return [
        dict(r)
        for r in conn.execute(
            "SELECT id, rule_text, supporting_quote FROM case_law_principles WHERE canonical_id = %s"
            " AND principle_for_writer(review_status, reviewed_by, confirmed_by) ORDER BY id",
            (canonical_id,),
        ).fetchall()
    ]


def finish(
    conn: Conn,
    canonical_id: int,
    *,
    statement: str | None,
    grounded: bool | None,
    embedding,
    embedder: str | None,
    author: str = "canonical-synthesizer",
) -> bool:
    """pending_synthesis -> pending_review, with the statement (written by `author`) and its
    embedding when given (the existing ones kept otherwise). False when the canonical was no
    longer pending."""
    row = conn.execute(
        "UPDATE canonical_principles SET status = 'pending_review',"
        " statement_by = CASE WHEN %s::text IS NULL THEN statement_by ELSE %s END,"
        " canonical_statement = coalesce(%s, canonical_statement),"
        " grounded = coalesce(%s, grounded),"
        " embedding = CASE WHEN %s::text IS NULL THEN embedding ELSE %s END,"
        " embedder = coalesce(%s, embedder)"
        " WHERE id = %s AND status = 'pending_synthesis' RETURNING id",
        (statement, author, statement, grounded, embedder, embedding, embedder, canonical_id),
    ).fetchone()
    return row is not None


def log_attempt(
    conn: Conn,
    canonical_id: int,
    model: str,
    outcome: str,
    cosine: float | None,
    reason: str | None,
    statement: str | None,
) -> dict:
    """One row of synthesis_attempts (append-only)."""
    return dict(
        one(
            conn.execute(
                "INSERT INTO synthesis_attempts (canonical_id, model, outcome, cosine, reason, statement)"
                " VALUES (%s, %s, %s, %s, %s, %s) RETURNING id, canonical_id, at, model, outcome, cosine,"
                " reason, statement",
                (canonical_id, model, outcome, cosine, reason, statement),
            )
        )
    )


# -- the chair's gate (migration 0017) ----------------------------------------------------------

_CANONICAL = (
    "SELECT k.id, k.source_kind, k.rule_text, k.canonical_statement,"
    " coalesce(k.canonical_statement, k.rule_text) AS statement, k.status, k.grounded,"
    " k.statement_by, k.reviewed_by, k.reviewed_at, k.review_reason, k.created_at, k.updated_at,"
    " (SELECT count(*) FROM case_law_principles p WHERE p.canonical_id = k.id) AS occurrences,"
    " (SELECT count(*) FROM case_law_principles p WHERE p.canonical_id = k.id"
    "  AND p.review_status = 'approved') AS approved_occurrences,"
    " (SELECT coalesce(sum(ruling_corroboration(r.case_law_id)), 0) FROM (SELECT DISTINCT"
    "  p.case_law_id FROM case_law_principles p WHERE p.canonical_id = k.id) r) AS corroboration,"
    " (SELECT max(version) FROM canonical_statement_versions v WHERE v.canonical_id = k.id)"
    "  AS version,"
    # The rulings its live occurrences come from (their term: retrieval/terms.canonical_term).
    " (SELECT coalesce(jsonb_agg(DISTINCT jsonb_build_object('source_kind', c.source_kind,"
    "  'court', c.court, 'is_binding', c.is_binding, 'case_number', c.case_number)), '[]')"
    "  FROM case_law_principles p JOIN case_law c ON c.id = p.case_law_id"
    "  WHERE p.canonical_id = k.id AND p.review_status NOT IN ('rejected', 'vetoed')) AS sources"
    " FROM canonical_principles k"
)


def list_canonicals(
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
            _CANONICAL
            + " WHERE (%s::text IS NULL OR k.status = %s) ORDER BY k.id LIMIT %s OFFSET %s",
            (status, status, limit, offset),
        ).fetchall()
    ]


def get_canonical(conn: Conn, canonical_id: int, *, lock: bool = False) -> dict | None:
    lock_clause = " FOR UPDATE OF k" if lock else ""
    row = conn.execute(_CANONICAL + " WHERE k.id = %s" + lock_clause, (canonical_id,)).fetchone()
    return dict(row) if row else None


def decide(conn: Conn, canonical_id: int, status: str, actor: str, reason: str | None) -> None:
    conn.execute(
        "UPDATE canonical_principles SET status = %s, reviewed_by = %s, review_reason = %s"
        " WHERE id = %s",
        (status, actor, reason, canonical_id),
    )


def set_statement(
    conn: Conn,
    canonical_id: int,
    statement: str | None,
    *,
    author: str,
    reason: str | None,
    embedding,
    embedder: str | None,
) -> None:
    """The chair's wording (None: back to the source wording), its embedding in the same
    statement; the trigger records the version and the audit."""
    conn.execute(
        "UPDATE canonical_principles SET canonical_statement = %s, statement_by = %s,"
        " review_reason = %s, grounded = NULL, embedding = %s, embedder = %s WHERE id = %s",
        (statement, author, reason, embedding, embedder, canonical_id),
    )


def versions(conn: Conn, canonical_id: int) -> list[dict]:
    return [
        dict(r)
        for r in conn.execute(
            "SELECT version, statement, author, db_role, reason, at FROM canonical_statement_versions"
            " WHERE canonical_id = %s ORDER BY version",
            (canonical_id,),
        ).fetchall()
    ]


def occurrence_rows(conn: Conn, canonical_id: int) -> list[dict]:
    """The occurrences with their source (for the chair's view): quote, page, votes, status."""
    return [
        dict(r)
        for r in conn.execute(
            "SELECT p.id, p.rule_text, p.supporting_quote, p.page, p.votes, p.score, p.models,"
            " p.review_status, p.reviewed_by, p.confirmed_by, c.doc_id, c.case_number, c.court,"
            " c.is_binding, c.source_kind"
            " FROM case_law_principles p JOIN case_law c ON c.id = p.case_law_id"
            " WHERE p.canonical_id = %s ORDER BY p.id",
            (canonical_id,),
        ).fetchall()
    ]


def to_review(conn: Conn, canonical_id: int) -> None:
    """A canonical statement pending synthesis that the chair wrote herself: to her review."""
    conn.execute(
        "UPDATE canonical_principles SET status = 'pending_review' WHERE id = %s", (canonical_id,)
    )
