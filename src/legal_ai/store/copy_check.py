"""SQL of the copy check (learning/checks/copy_policy.py, learning/checks/citation_check.py): the case's own
documents, a library item's text, and the report kept with the draft it checked (migration 0019).
Takes the caller's connection; the names are importable from store/drafts_lessons.py too."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from psycopg.types.json import Jsonb

from .rows import Conn


def case_document_contents(conn: Conn, case_number: str) -> list[dict]:
    """The {content} of every document of the case in the case corpus."""
    return conn.execute(
        "SELECT content FROM documents WHERE corpus = 'case' AND case_number = %s", (case_number,)
    ).fetchall()


def case_law_text(conn: Conn, case_law_id: int) -> dict | None:
    """The library item's {doc_id, content} and what the citation check compares (its title,
    case number, kind, stored pages, and a statute's law and section); None when it is gone."""
    return conn.execute(
        "SELECT id, doc_id, content, title, case_number, doc_type, source_kind, page_starts,"
        " law_title, section_num FROM case_law WHERE id = %s",
        (case_law_id,),
    ).fetchone()


def law_title(conn: Conn, law_pattern: str) -> str | None:
    """The title of a law the library holds whose title matches `law_pattern` (a regular
    expression: retrieval/legs' law patterns); None when it holds no such law."""
    row = conn.execute(
        "SELECT law_title FROM case_law WHERE doc_type = 'legislation' AND law_title ~ %s"
        " ORDER BY id LIMIT 1",
        (law_pattern,),
    ).fetchone()
    return row["law_title"] if row else None


def passages_of(conn: Conn, case_law_id: int, embedder: str) -> list[dict]:
    """A library item's chunks in order: {char_start, char_end, page, text, embedding} (the
    embedding when it is `embedder`'s and of the chunk's current text, else None)."""
    return conn.execute(
        "SELECT char_start, char_end, page, text, CASE WHEN embedder = %s"
        " AND embedded_hash = text_hash THEN embedding END AS embedding"
        " FROM case_law_chunks WHERE case_law_id = %s ORDER BY ordinal",
        (embedder, case_law_id),
    ).fetchall()


def set_copy_report(conn: Conn, draft_id: int, report: Mapping[str, Any]) -> None:
    """Keep the copy-policy report with the draft it checked (migration 0019)."""
    conn.execute(
        "UPDATE drafts SET copy_report = %s, copy_checked_at = now() WHERE id = %s",
        (Jsonb(report), draft_id),
    )
