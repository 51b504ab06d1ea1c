"""SQL of the integrity check: a stored text or a chunk changed outside ingest.

An item's `content_hash` is what ingest computed from its text and page offsets
(ingest/staging.content_hash: sha256 of the UTF-8 text followed by Python's repr of the page
offsets); a chunk's `text_hash` is the sha256 of its text, and its span reads its text out of the
item's; the chunks of one cut each carry how many there are (`chunk_total`, ordinals 0 .. n - 1). `damaged` recomputes all three in the database, per corpus (registry identifiers);
`legal-ai health` lists what it finds and `legal-ai reindex` repairs it (ingest/reindex.py): the
text ingest stored is taken back from `item_versions` (append-only), the chunks are cut again.
"""

from __future__ import annotations

from psycopg import sql

from ..corpora import Corpus
from .rows import Conn

# Python's repr of the page offsets (None, or "[0, 120]"), as ingest hashed them.
_PAGES_REPR = (
    "CASE WHEN i.page_starts IS NULL THEN 'None'"
    " ELSE '[' || array_to_string(i.page_starts, ', ') || ']' END"
)
_TEXT_HASH = (
    "encode(sha256(convert_to(i.content, 'UTF8') || convert_to(" + _PAGES_REPR + ", 'UTF8')),"
    " 'hex')"
)


def damaged(conn: Conn, corpus: Corpus, *, item_id: int | None = None) -> list[dict]:
    """The items of `corpus` whose stored text no longer hashes to its `content_hash`
    (`text_changed`), or with chunks whose text no longer hashes to their `text_hash` or whose
    span no longer reads their text (`chunks`: their ordinals), or whose chunks were deleted or
    added (`count_changed`); `item_id`: that item only."""
    query = sql.SQL(
        "SELECT * FROM (SELECT i.id, i.doc_id, i.content_hash,"
        " i.content_hash <> {text_hash} AS text_changed,"
        " (SELECT array_agg(c.ordinal ORDER BY c.ordinal) FROM {chunks} c"
        "   WHERE c.{fk} = i.id AND (c.text_hash <> encode(sha256(convert_to(c.text, 'UTF8')),"
        "   'hex') OR substr(i.content, c.char_start + 1, c.char_end - c.char_start)"
        "   IS DISTINCT FROM c.text)) AS chunks,"
        # Chunks deleted or added: they no longer count up to the cut's `chunk_total` (all
        # carrying the same), their ordinals no longer run 0 .. n - 1, or a text ingest cut
        # has none left (migration 0039).
        " (SELECT count(*) <> coalesce(max(c.chunk_total), 0)"
        "   OR count(DISTINCT c.chunk_total) > 1 OR count(c.chunk_total) <> count(*)"
        "   OR min(c.ordinal) <> 0 OR max(c.ordinal) <> count(*) - 1"
        "   OR (count(*) = 0 AND btrim(i.content) <> '' AND i.extraction_issue IS NULL)"
        "   FROM {chunks} c WHERE c.{fk} = i.id) AS count_changed"
        " FROM {items} i WHERE {scope} AND (%(id)s::bigint IS NULL OR i.id = %(id)s)) d"
        " WHERE d.text_changed OR d.chunks IS NOT NULL OR d.count_changed ORDER BY d.id"
    ).format(
        text_hash=sql.SQL(_TEXT_HASH),
        chunks=sql.Identifier(corpus.chunk_table),
        fk=sql.Identifier(corpus.parent_column),
        items=sql.Identifier(corpus.items),
        scope=corpus.scope("i"),
    )
    return conn.execute(query, {"id": item_id, **corpus.scope_params()}).fetchall()


def item(conn: Conn, corpus: Corpus, item_id: int) -> dict | None:
    """What re-cutting an item's chunks reads: its text, pages, type, format and section."""
    section = "i.eid" if "eid" in corpus.columns else "NULL"
    query = sql.SQL(
        "SELECT i.id, i.doc_id, i.doc_type, i.content, i.content_hash, i.page_starts,"
        " i.source_path, i.source_format, i.extraction_issue, {section} AS eid"
        " FROM {items} i WHERE i.id = %s"
    ).format(section=sql.SQL(section), items=sql.Identifier(corpus.items))
    return conn.execute(query, (item_id,)).fetchone()


def stored_texts(conn: Conn, corpus: Corpus, item_id: int, content_hash: str):
    """The texts `item_versions` kept for the item under `content_hash`, newest first (the caller
    checks which one really hashes to it)."""
    return conn.execute(
        "SELECT content, page_starts FROM item_versions WHERE item_table = %s AND item_id = %s"
        " AND content_hash = %s ORDER BY id DESC",
        (corpus.item_table, item_id, content_hash),
    ).fetchall()


def restore_text(
    conn: Conn, corpus: Corpus, item_id: int, content: str, pages: list | None
) -> None:
    """Put back the text ingest stored (its hash unchanged: no new version is recorded)."""
    conn.execute(
        sql.SQL("UPDATE {items} SET content = %s, page_starts = %s WHERE id = %s").format(
            items=sql.Identifier(corpus.items)
        ),
        (content, pages, item_id),
    )
