"""SQL for what the copy check keeps of the texts a draft is compared with (migration 0026): the
chair's finals (style corpus) and the committee's internal decisions, with the word 8-gram
fingerprints of their current content."""

from __future__ import annotations

from collections.abc import Iterator

from psycopg import sql

from .rows import Conn

# (corpus, item table, fingerprint column, which items): the two kinds of text compared.
_SOURCES = (
    ("style", "documents", "document_id", "t.corpus = 'style'"),
    ("internal", "case_law", "case_law_id", "t.source_kind = 'internal_committee'"),
)
_COMPARED = "t.extraction_issue IS NULL AND t.content <> ''"


def _without_fingerprints(
    conn: Conn, method: str, table: str, column: str, which: str
) -> list[dict]:
    """{id, content_hash} of the compared texts of `table` without fingerprints of their
    current content by `method`, in id order."""
    return conn.execute(
        sql.SQL(
            "SELECT t.id, t.content_hash FROM {t} t WHERE {which} AND {compared} AND NOT EXISTS"
            " (SELECT 1 FROM copy_fingerprints f WHERE f.{c} = t.id"
            " AND f.content_hash = t.content_hash AND f.method = %s) ORDER BY t.id"
        ).format(
            t=sql.Identifier(table),
            c=sql.Identifier(column),
            which=sql.SQL(which),
            compared=sql.SQL(_COMPARED),
        ),
        (method,),
    ).fetchall()


def stale(conn: Conn, method: str, batch: int = 50) -> Iterator[tuple[str, dict]]:
    """The compared texts without fingerprints of their current content by `method`:
    (corpus, {id, content_hash, content}), read `batch` at a time."""
    for corpus, table, column, which in _SOURCES:
        ids = [r["id"] for r in _without_fingerprints(conn, method, table, column, which)]
        query = sql.SQL(
            "SELECT id, content_hash, content FROM {t} WHERE id = ANY(%s) ORDER BY id"
        ).format(t=sql.Identifier(table))
        for at in range(0, len(ids), batch):
            for row in conn.execute(query, (ids[at : at + batch],)):
                yield corpus, row


def save(
    conn: Conn,
    corpus: str,
    item_id: int,
    content_hash: str,
    method: str,
    shingles: list[int],
) -> None:
    column = sql.Identifier("document_id" if corpus == "style" else "case_law_id")
    conn.execute(
        sql.SQL(
            "INSERT INTO copy_fingerprints ({c}, content_hash, method, shingles)"
            " VALUES (%s, %s, %s, %s) ON CONFLICT ({c}) DO UPDATE SET"
            " content_hash = EXCLUDED.content_hash, method = EXCLUDED.method,"
            " shingles = EXCLUDED.shingles, taken_at = now()"
        ).format(c=column),
        (item_id, content_hash, method, shingles),
    )


def compared(conn: Conn, method: str, batch: int = 200) -> Iterator[dict]:
    """Every compared text with fingerprints of its current content by `method`, the finals
    first: {corpus, id, doc_id, case_number, content_hash, shingles} (no text), streamed through
    a server-side cursor `batch` rows at a time, so a check holds a few hundred fingerprint
    arrays at once, not every one. The cursor lives in the caller's transaction, or, on a
    connection in autocommit (Store.reading), is held over (WITH HOLD): no transaction stays
    open while the caller compares."""
    for corpus, table, column, which in _SOURCES:
        query = sql.SQL(
            "SELECT %s::text AS corpus, t.id, t.doc_id, t.case_number, t.content_hash, f.shingles"
            " FROM {t} t JOIN copy_fingerprints f ON f.{c} = t.id"
            " AND f.content_hash = t.content_hash AND f.method = %s"
            " WHERE {which} AND {compared} ORDER BY t.id"
        ).format(
            t=sql.Identifier(table),
            c=sql.Identifier(column),
            which=sql.SQL(which),
            compared=sql.SQL(_COMPARED),
        )
        name = f"copy_fingerprints_{corpus}"
        with conn.cursor(name=name, withhold=conn.autocommit) as cursor:
            cursor.itersize = batch
            cursor.execute(query, (corpus, method))
            yield from cursor


def stale_keys(conn: Conn, method: str) -> list[tuple[str, int, str]]:
    """(corpus, id, content_hash) of every compared text without fingerprints of its current
    content by `method` (their texts are read one at a time: `content`)."""
    return [
        (corpus, r["id"], r["content_hash"])
        for corpus, table, column, which in _SOURCES
        for r in _without_fingerprints(conn, method, table, column, which)
    ]


def content(conn: Conn, corpus: str, item_id: int, content_hash: str) -> str | None:
    """The text the fingerprints were taken from: None when it changed or went meanwhile."""
    table = sql.Identifier("documents" if corpus == "style" else "case_law")
    query = sql.SQL("SELECT content FROM {t} WHERE id = %s AND content_hash = %s").format(t=table)
    row = conn.execute(query, (item_id, content_hash)).fetchone()
    return row["content"] if row else None
