"""The files the chair uploaded, kept as they came (migration 0046): a draft's, a final's and a
case document's, once per content, up to MAX_BYTES. Written by the server's own login
(Store.as_login); read by the chair's desk."""

from __future__ import annotations

import hashlib

from psycopg import sql

from ..corpora import Corpus
from .rows import Conn

MAX_BYTES = 32 * 2**20  # the table's own bound (0046)


def keep(conn: Conn, content: bytes, file_name: str) -> str | None:
    """Keep a file's bytes (once per content); its sha256, or None when it is empty or over
    MAX_BYTES (then no original is kept)."""
    if not content or len(content) > MAX_BYTES:
        return None
    sha = hashlib.sha256(content).hexdigest()
    conn.execute(
        "INSERT INTO original_files (file_sha256, content, file_name) VALUES (%s, %s, %s)"
        " ON CONFLICT (file_sha256) DO NOTHING",
        (sha, content, file_name[-255:].strip() or "file"),
    )
    return sha


def link_draft(conn: Conn, draft_id: int, sha: str) -> None:
    conn.execute(
        "INSERT INTO draft_originals (draft_id, file_sha256) VALUES (%s, %s)"
        " ON CONFLICT (draft_id) DO NOTHING",
        (draft_id, sha),
    )


def _file(conn: Conn, sha: str | None, name: str | None) -> dict | None:
    """The kept bytes of `sha`: the original, else a scan kept for OCR (scanned_files)."""
    if not sha:
        return None
    row = conn.execute(
        "SELECT content, file_name FROM original_files WHERE file_sha256 = %s", (sha,)
    ).fetchone()
    if row is None:
        row = conn.execute(
            "SELECT pdf AS content, %s::text AS file_name FROM scanned_files WHERE file_sha256 = %s",
            (name or "scan.pdf", sha),
        ).fetchone()
    return row


def of_draft(conn: Conn, case_number: str, version: int) -> dict | None:
    """The file of a case's draft version: {"content", "file_name"}, or None (none kept)."""
    row = conn.execute(
        "SELECT o.file_sha256, d.source_path FROM drafts d"
        " JOIN draft_originals o ON o.draft_id = d.id"
        " WHERE d.case_number = %s AND d.version = %s",
        (case_number, version),
    ).fetchone()
    if row is None:
        return None
    return _file(conn, row["file_sha256"], row["source_path"])


def of_item(conn: Conn, corpus: Corpus, case_number: str, doc_id: str) -> dict | None:
    """The file of a case's item (her final in `internal`, a case document in `case`)."""
    query = sql.SQL(
        "SELECT i.file_sha256, i.source_path FROM {t} i"
        " WHERE i.doc_id = %(doc_id)s AND i.case_number = %(case)s AND {scope}"
    ).format(t=sql.Identifier(corpus.items), scope=corpus.scope("i"))
    row = conn.execute(
        query, {"doc_id": doc_id, "case": case_number, **corpus.scope_params()}
    ).fetchone()
    if row is None:
        return None
    return _file(conn, row["file_sha256"], row["source_path"])


_OF_CASE = """
SELECT 'draft' AS kind, d.version, NULL::text AS doc_id, d.source_path AS name, f.bytes
FROM drafts d
LEFT JOIN draft_originals o ON o.draft_id = d.id
LEFT JOIN original_files f ON f.file_sha256 = o.file_sha256
WHERE d.case_number = %(case)s
UNION ALL
SELECT 'final', NULL, c.doc_id, c.source_path, coalesce(f.bytes, s.bytes)
FROM case_law c
LEFT JOIN original_files f ON f.file_sha256 = c.file_sha256
LEFT JOIN scanned_files s ON s.file_sha256 = c.file_sha256
WHERE c.source_kind = 'internal_committee' AND c.case_number = %(case)s
UNION ALL
SELECT 'document', NULL, d.doc_id, d.source_path, coalesce(f.bytes, s.bytes)
FROM documents d
LEFT JOIN original_files f ON f.file_sha256 = d.file_sha256
LEFT JOIN scanned_files s ON s.file_sha256 = d.file_sha256
WHERE d.corpus = 'case' AND d.case_number = %(case)s
ORDER BY kind DESC, version, doc_id
"""


def of_case(conn: Conn, case_number: str) -> list[dict]:
    """A case's uploads: each draft version, her final and each case document, with the kept
    file's size in bytes (None: no original kept — uploaded before 0046, or over MAX_BYTES)."""
    return conn.execute(_OF_CASE, {"case": case_number}).fetchall()
