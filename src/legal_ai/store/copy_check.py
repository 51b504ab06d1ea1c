"""SQL of the copy check (learning/copy_policy.py, learning/citation_check.py): the case's own
documents, a library item's text, and the report kept with the draft it checked (migration 0019).
Takes the caller's connection; the names are importable from store/learning.py too."""

from __future__ import annotations

import psycopg
from psycopg.types.json import Jsonb


def case_document_contents(conn: psycopg.Connection, case_number: str) -> list[dict]:
    """The {content} of every document of the case in the case corpus."""
    return conn.execute(
        "SELECT content FROM documents WHERE corpus = 'case' AND case_number = %s", (case_number,)
    ).fetchall()


def case_law_text(conn: psycopg.Connection, case_law_id: int) -> dict | None:
    """The library item's {doc_id, content}; None when it is gone."""
    return conn.execute(
        "SELECT doc_id, content FROM case_law WHERE id = %s", (case_law_id,)
    ).fetchone()


def set_copy_report(conn: psycopg.Connection, draft_id: int, report: dict) -> None:
    """Keep the copy-policy report with the draft it checked (migration 0019)."""
    conn.execute(
        "UPDATE drafts SET copy_report = %s, copy_checked_at = now() WHERE id = %s",
        (Jsonb(report), draft_id),
    )
