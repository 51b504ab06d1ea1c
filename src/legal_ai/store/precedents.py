"""SQL of the precedents attached to the chair's cases (case_precedents) and of what a case
is, as a query (its documents' text and mean embedding). Every function takes the caller's
connection."""

from __future__ import annotations

import numpy as np

from .rows import Conn, one
from .units import ChunkRow, as_array


def find_ruling(conn: Conn, case_number: str) -> dict | None:
    """A searchable ruling or decision whose case number (as normalize_case_number spells every
    stored one) is `case_number`."""
    return conn.execute(
        "SELECT id FROM case_law WHERE searchable AND case_number = %s"
        " ORDER BY source_kind, id LIMIT 1",
        (case_number,),
    ).fetchone()


def save_precedent(
    conn: Conn,
    case_number: str,
    citation: str,
    key: str,
    case_law_id: int | None,
    note: str | None,
) -> dict:
    return one(
        conn.execute(
            "INSERT INTO case_precedents (case_number, citation, citation_key, case_law_id, note)"
            " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (case_number, citation_key)"
            " DO UPDATE SET note = coalesce(EXCLUDED.note, case_precedents.note),"
            " case_law_id = coalesce(EXCLUDED.case_law_id, case_precedents.case_law_id)"
            " RETURNING id, case_number, citation, case_law_id, note",
            (case_number, citation, key, case_law_id, note),
        )
    )


def case_profile(conn: Conn, case_number: str, embedder: str) -> tuple[str, np.ndarray | None]:
    """A case's searchable documents as one text (first 2000 characters) and the mean of their
    fresh chunk embeddings (None when there are none)."""
    rows = conn.execute(
        "SELECT d.content FROM documents d WHERE d.corpus = 'case' AND d.case_number = %s"
        " AND d.searchable ORDER BY d.id",
        (case_number,),
    ).fetchall()
    text = "\n".join(r["content"] for r in rows)[:2000]
    vectors = conn.execute(
        "SELECT c.embedding FROM document_chunks_case c JOIN documents d ON d.id = c.document_id"
        " WHERE d.corpus = 'case' AND d.case_number = %s AND d.searchable"
        " AND c.embedder = %s AND c.embedded_hash = c.text_hash",
        (case_number, embedder),
    ).fetchall()
    if not vectors:
        return text, None
    mean = np.mean([as_array(r["embedding"]) for r in vectors], axis=0)
    return text, mean / (np.linalg.norm(mean) or 1.0)


def case_practice_area(conn: Conn, case_number: str) -> str | None:
    """The case's own practice area: the case's, else the one most of its documents carry."""
    row = conn.execute(
        "SELECT coalesce(c.practice_area, (SELECT d.practice_area FROM documents d"
        " WHERE d.corpus = 'case' AND d.case_number = %(case)s AND d.practice_area IS NOT NULL"
        " GROUP BY d.practice_area ORDER BY count(*) DESC, d.practice_area LIMIT 1)) AS area"
        " FROM (SELECT %(case)s AS case_number) q"
        " LEFT JOIN cases c ON c.case_number = q.case_number",
        {"case": case_number},
    ).fetchone()
    return row["area"] if row else None


def index_precedent(conn: Conn, precedent_id: int, unit: ChunkRow) -> None:
    """Store the searchable text, analysis and embedding of an attached precedent."""
    conn.execute(
        "UPDATE case_precedents SET search_text = %s, text_hash = %s, analyzed = %s,"
        " analyzer = %s, embedding = %s, embedder = %s, embedded_hash = %s WHERE id = %s",
        (
            unit.text,
            unit.text_hash,
            unit.analyzed,
            unit.analyzer,
            unit.embedding,
            unit.embedder,
            unit.text_hash,
            precedent_id,
        ),
    )


def ruling_title(conn: Conn, case_law_id: int | None) -> str | None:
    if case_law_id is None:
        return None
    row = conn.execute("SELECT title FROM case_law WHERE id = %s", (case_law_id,)).fetchone()
    return row["title"] if row else None
