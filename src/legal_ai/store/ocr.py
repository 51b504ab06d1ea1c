"""SQL for scanned files (migration 0024): the scans kept for OCR, what OCR read from them, and
the items they became. Tables come from the corpus registry (identifiers); values are parameters."""

from __future__ import annotations

from psycopg import sql
from psycopg.types.json import Jsonb

from ..corpora import CORPORA, Corpus
from .rows import Conn

_RESULT = "file_sha256, bytes, created_at, engine, content, page_starts, page_confidence, read_at"


def keep_scan(conn: Conn, sha: str, pdf: bytes) -> bool:
    """Keep a scan's bytes for OCR (once per file). False when it was already kept."""
    return (
        conn.execute(
            "INSERT INTO scanned_files (file_sha256, pdf) VALUES (%s, %s)"
            " ON CONFLICT (file_sha256) DO NOTHING",
            (sha, pdf),
        ).rowcount
        == 1
    )


def get_scan(conn: Conn, sha: str, *, with_pdf: bool = False) -> dict | None:
    columns = _RESULT + (", pdf" if with_pdf else "")
    query = sql.SQL("SELECT {} FROM scanned_files WHERE file_sha256 = %s").format(sql.SQL(columns))
    return conn.execute(query, (sha,)).fetchone()


def save_reading(
    conn: Conn,
    sha: str,
    engine: str,
    content: str,
    page_starts: list[int],
    pages: list[dict],
) -> None:
    conn.execute(
        "UPDATE scanned_files SET engine = %s, content = %s, page_starts = %s,"
        " page_confidence = %s, read_at = now() WHERE file_sha256 = %s",
        (engine, content, page_starts, Jsonb(pages), sha),
    )


def items_waiting(conn: Conn, sha: str) -> list[tuple[Corpus, dict]]:
    """The items stored from the scan `sha` whose text is still empty (waiting for OCR)."""
    out = []
    for corpus in CORPORA.values():
        query = sql.SQL(
            "SELECT * FROM {t} i WHERE i.file_sha256 = %(sha)s AND i.content = ''"
            " AND i.extraction_issue IS NOT NULL AND {scope} ORDER BY i.id"
        ).format(t=sql.Identifier(corpus.items), scope=corpus.scope("i"))
        out += [(corpus, row) for row in conn.execute(query, {"sha": sha, **corpus.scope_params()})]
    return out


def unqueued_scans(conn: Conn, issue: str) -> list[tuple[Corpus, dict]]:
    """Items stored from a scan whose bytes were never kept, so no OCR job exists for them (items
    stored before the OCR queue: their text is empty and their issue still `issue`)."""
    out = []
    for corpus in CORPORA.values():
        query = sql.SQL(
            "SELECT i.id, i.doc_id, i.source_path, i.file_sha256 FROM {t} i"
            " WHERE i.content = '' AND i.extraction_issue = %(issue)s"
            " AND i.file_sha256 IS NOT NULL AND {scope} AND NOT EXISTS"
            " (SELECT 1 FROM scanned_files s WHERE s.file_sha256 = i.file_sha256) ORDER BY i.id"
        ).format(t=sql.Identifier(corpus.items), scope=corpus.scope("i"))
        params = {"issue": issue, **corpus.scope_params()}
        out += [(corpus, row) for row in conn.execute(query, params)]
    return out


def set_issue(conn: Conn, corpus: Corpus, item_id: int, issue: str, *, was: str, sha: str) -> bool:
    """Say why an item stored from the scan `sha` waits, while its text is still empty and its
    issue still `was`; False when it is no longer so."""
    query = sql.SQL(
        "UPDATE {t} SET extraction_issue = %s WHERE id = %s AND content = ''"
        " AND extraction_issue = %s AND file_sha256 = %s"
    ).format(t=sql.Identifier(corpus.items))
    return conn.execute(query, (issue, item_id, was, sha)).rowcount == 1


def read_items(
    conn: Conn,
    *,
    doc_id: str | None = None,
    corpus_key: str | None = None,
    low_only: bool = False,
    limit: int = 1000,
) -> list[dict]:
    """Items whose text OCR read (metadata ocr_engine), with their confidences: all, those named
    `doc_id` (in `corpus_key`), or only those with low-confidence pages."""
    out = []
    for corpus in CORPORA.values():
        if corpus_key is not None and corpus.key != corpus_key:
            continue
        where = [sql.SQL("i.metadata ? 'ocr_engine'"), corpus.scope("i")]
        params: dict = {**corpus.scope_params(), "limit": limit}
        if doc_id is not None:
            where.append(sql.SQL("i.doc_id = %(doc_id)s"))
            params["doc_id"] = doc_id
        if low_only:
            where.append(
                sql.SQL(
                    "(jsonb_array_length(coalesce(i.metadata -> 'ocr_low_confidence_pages', '[]'))"
                    " > 0 OR jsonb_array_length(coalesce("
                    "i.metadata -> 'ocr_low_confidence_numbers', '[]')) > 0"
                    " OR i.extraction_issue IS NOT NULL)"
                )
            )
        query = sql.SQL(
            "SELECT i.doc_id, i.searchable, i.extraction_issue, i.metadata ->> 'ocr_engine' AS"
            " engine, (i.metadata ->> 'ocr_confidence')::float AS confidence,"
            " i.metadata -> 'ocr_page_confidence' AS page_confidence,"
            " i.metadata -> 'ocr_low_confidence_pages' AS low_confidence_pages,"
            " coalesce(i.metadata -> 'ocr_low_confidence_reasons', '[]') AS"
            " low_confidence_reasons,"
            " coalesce(i.metadata -> 'ocr_low_confidence_numbers', '[]') AS"
            " low_confidence_numbers"
            " FROM {t} i WHERE {where} ORDER BY i.doc_id LIMIT %(limit)s"
        ).format(t=sql.Identifier(corpus.items), where=sql.SQL(" AND ").join(where))
        out += [{"corpus": corpus.key, **row} for row in conn.execute(query, params)]
    return out
