"""SQL of the canonical statement's synthesis (learning/synthesis.py; migration 0016)."""

from __future__ import annotations

import psycopg


def pending(conn: psycopg.Connection) -> list[dict]:
    """Canonical principles awaiting synthesis that have occurrences, oldest first."""
    return [dict(r) for r in conn.execute(
        "SELECT k.id, k.source_kind, k.rule_text, k.canonical_statement FROM canonical_principles k"
        " WHERE k.status = 'pending_synthesis' AND EXISTS (SELECT 1 FROM case_law_principles p"
        " WHERE p.canonical_id = k.id) ORDER BY k.id"
    ).fetchall()]  # fmt: skip


def occurrences(conn: psycopg.Connection, canonical_id: int) -> list[dict]:
    """The principles that are occurrences of one canonical principle, first occurrence first."""
    return [dict(r) for r in conn.execute(
        "SELECT id, rule_text, supporting_quote FROM case_law_principles WHERE canonical_id = %s"
        " ORDER BY id", (canonical_id,)
    ).fetchall()]  # fmt: skip


def finish(conn: psycopg.Connection, canonical_id: int, *, statement: str | None,
           grounded: bool | None, embedding, embedder: str | None) -> bool:  # fmt: skip
    """pending_synthesis -> pending_review, with the statement and its embedding when given (the
    existing ones kept otherwise). False when the canonical was no longer pending."""
    row = conn.execute(
        "UPDATE canonical_principles SET status = 'pending_review',"
        " canonical_statement = coalesce(%s, canonical_statement),"
        " grounded = coalesce(%s, grounded),"
        " embedding = CASE WHEN %s::text IS NULL THEN embedding ELSE %s END,"
        " embedder = coalesce(%s, embedder)"
        " WHERE id = %s AND status = 'pending_synthesis' RETURNING id",
        (statement, grounded, embedder, embedding, embedder, canonical_id),
    ).fetchone()
    return row is not None


def log_attempt(conn: psycopg.Connection, canonical_id: int, model: str, outcome: str,
                cosine: float | None, reason: str | None, statement: str | None) -> dict:  # fmt: skip
    """One row of synthesis_attempts (append-only)."""
    return dict(conn.execute(
        "INSERT INTO synthesis_attempts (canonical_id, model, outcome, cosine, reason, statement)"
        " VALUES (%s, %s, %s, %s, %s, %s) RETURNING id, canonical_id, at, model, outcome, cosine,"
        " reason, statement",
        (canonical_id, model, outcome, cosine, reason, statement),
    ).fetchone())  # fmt: skip
