"""SQL of the block exemplars (migration 0018): the chair's finals in the style corpus cut into
their paragraphs (table block_exemplars), written in a final's ingest transaction, embedded by
the refresh, and read by block, appeal type and outcome (knowledge/exemplars.py). Every function
takes the caller's connection."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from psycopg import sql

from .rows import Conn, one
from .withdrawn_finals import PARAGRAPH_KEPT

# -- writing the paragraphs ---------------------------------------------------------------------


def style_document(conn: Conn, document_id: int) -> dict | None:
    """The style document's id, content, content hash and extraction issue; None if not one."""
    return conn.execute(
        "SELECT id, content, content_hash, extraction_issue FROM documents"
        " WHERE id = %s AND corpus = 'style'",
        (document_id,),
    ).fetchone()


def delete_paragraphs(conn: Conn, document_id: int) -> None:
    """Drop every paragraph kept of the document."""
    conn.execute("DELETE FROM block_exemplars WHERE document_id = %s", (document_id,))


def insert_paragraphs(conn: Conn, rows: list[tuple]) -> None:
    """Insert paragraphs: (document_id, block, ordinal, char_start, char_end, text, source_hash,
    text_hash, analyzed, analyzer, embedding, embedder, embedded_hash) each."""
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO block_exemplars (document_id, block, ordinal, char_start, char_end,"
            " text, source_hash, text_hash, analyzed, analyzer, embedding, embedder,"
            " embedded_hash) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            rows,
        )


def uncut_finals(conn: Conn, analyzer: str) -> list[dict]:
    """Readable style finals with no paragraphs, or paragraphs of another text or analyzer:
    {id, doc_id, content}, by id."""
    return conn.execute(
        "SELECT d.id, d.doc_id, d.content FROM documents d WHERE d.corpus = 'style'"
        " AND d.extraction_issue IS NULL AND btrim(d.content) <> '' AND (NOT EXISTS"
        " (SELECT 1 FROM block_exemplars e WHERE e.document_id = d.id) OR EXISTS"
        " (SELECT 1 FROM block_exemplars e WHERE e.document_id = d.id"
        "  AND (e.source_hash <> d.content_hash OR e.analyzer <> %s))) ORDER BY d.id",
        (analyzer,),
    ).fetchall()


def lock_document(conn: Conn, document_id: int) -> None:
    """Lock the document's row until the transaction ends."""
    conn.execute("SELECT id FROM documents WHERE id = %s FOR UPDATE", (document_id,))


def unembedded(conn: Conn, after: int, batch: int) -> list[dict]:
    """Up to `batch` paragraphs after id `after` with no embedding of the active embedder (or a
    stale one): {id, text, text_hash}, by id."""
    return conn.execute(
        "SELECT id, text, text_hash FROM block_exemplars WHERE (embedding IS NULL"
        " OR embedder IS DISTINCT FROM (SELECT embedder FROM embedding_config) OR stale)"
        " AND id > %s ORDER BY id"
        " LIMIT %s",
        (after, batch),
    ).fetchall()


def set_embeddings(
    conn: Conn,
    embedder: str,
    ids: list[int],
    text_hashes: list[str],
    vectors: list[Any],
) -> int:
    """Store the vectors of the paragraphs whose text is still the one embedded; returns how
    many were stored."""
    return conn.execute(
        "UPDATE block_exemplars e SET embedding = v.embedding, embedder = %s,"
        " embedded_hash = v.text_hash FROM unnest(%s::bigint[], %s::text[],"
        " %s::vector[]) AS v(id, text_hash, embedding)"
        " WHERE e.id = v.id AND e.text_hash = v.text_hash",
        (embedder, ids, text_hashes, vectors),
    ).rowcount


# -- reading them -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Filter:
    """Which paragraphs are read: of `block`, of the finals of `appeal_type` and `outcome` when
    given, of another case than `exclude`, of the final's current text."""

    block: str
    appeal_type: str | None = None
    outcome: str | None = None
    exclude: str | None = None

    def where(self) -> tuple[sql.Composable, dict]:
        parts: list[sql.Composable] = [
            sql.SQL("e.block = %(block)s"),
            sql.SQL("e.source_hash = d.content_hash"),
            PARAGRAPH_KEPT,  # not of a final she withdrew from the writer (withdrawn_finals)
        ]
        params: dict[str, Any] = {"block": self.block}
        for name, value in (("appeal_type", self.appeal_type), ("outcome", self.outcome)):
            if value is not None:
                parts.append(
                    sql.SQL("e.{} = {}").format(sql.Identifier(name), sql.Placeholder(name))
                )
                params[name] = value
        if self.exclude is not None:
            parts.append(sql.SQL("e.case_number IS DISTINCT FROM %(exclude)s"))
            params["exclude"] = self.exclude
        return sql.SQL(" AND ").join(parts), params


_FROM = sql.SQL("block_exemplars e JOIN documents d ON d.id = e.document_id AND d.corpus = 'style'")


def _vector_type(dim: int) -> sql.Composable:
    return sql.SQL("vector({})").format(sql.SQL(str(int(dim))))


def count(conn: Conn, chosen: Filter) -> int:
    """How many paragraphs the filter reads."""
    where, params = chosen.where()
    query = sql.SQL("SELECT count(*) AS n FROM {} WHERE {}").format(_FROM, where)
    return one(conn.execute(query, params))["n"]


def finals_of_type(conn: Conn, appeal_type: str, exclude: str | None) -> int:
    """How many style finals of `appeal_type` (of another case than `exclude`) have paragraphs
    of their current text."""
    return one(
        conn.execute(
            sql.SQL(
                "SELECT count(DISTINCT e.document_id) AS n FROM block_exemplars e JOIN documents d"
                " ON d.id = e.document_id AND d.corpus = 'style'"
                " WHERE e.source_hash = d.content_hash"
                " AND e.appeal_type = %s AND e.case_number IS DISTINCT FROM %s AND {}"
            ).format(PARAGRAPH_KEPT),
            (appeal_type, exclude),
        )
    )["n"]


def nearest(
    conn: Conn, chosen: Filter, vector: Any, embedder: str, dim: int, window: int
) -> list[int]:
    """Ids of the `window` paragraphs embedded by `embedder` closest to `vector`, nearest first."""
    where, params = chosen.where()
    vt = _vector_type(dim)
    query = sql.SQL(
        "SELECT e.id FROM {src} WHERE {where} AND e.embedding IS NOT NULL"
        " AND e.embedder = %(embedder)s AND NOT e.stale"
        " ORDER BY (e.embedding::{vt}) <=> %(qvec)s::{vt}, e.id LIMIT %(window)s"
    ).format(src=_FROM, where=where, vt=vt)
    rows = conn.execute(
        query, {**params, "embedder": embedder, "qvec": vector, "window": window}
    ).fetchall()
    return [r["id"] for r in rows]


def centroid(conn: Conn, chosen: Filter, embedder: str, dim: int) -> Any:
    """The mean of the paragraphs' embeddings by `embedder` (a vector), None when none is."""
    where, params = chosen.where()
    query = sql.SQL(
        "SELECT avg(e.embedding::{vt}) AS c FROM {src} WHERE {where}"
        " AND e.embedding IS NOT NULL AND e.embedder = %(embedder)s AND NOT e.stale"
    ).format(vt=_vector_type(dim), src=_FROM, where=where)
    return one(conn.execute(query, {**params, "embedder": embedder}))["c"]


def lexical(conn: Conn, chosen: Filter, websearch: str, window: int) -> list[int]:
    """Ids of the `window` paragraphs whose analyzed text best matches the `websearch` query."""
    where, params = chosen.where()
    query = sql.SQL(
        "SELECT e.id FROM {src}, websearch_to_tsquery('simple', %(websearch)s) q"
        " WHERE {where} AND e.tsv @@ q ORDER BY ts_rank(e.tsv, q, 1) DESC, e.id"
        " LIMIT %(window)s"
    ).format(src=_FROM, where=where)
    rows = conn.execute(query, {**params, "websearch": websearch, "window": window}).fetchall()
    return [r["id"] for r in rows]


def recent(conn: Conn, chosen: Filter, window: int) -> list[int]:
    """Ids of the `window` paragraphs of the most recent finals, in their order."""
    where, params = chosen.where()
    query = sql.SQL(
        "SELECT e.id FROM {src} WHERE {where}"
        " ORDER BY e.decided_on DESC NULLS LAST, e.document_id DESC, e.ordinal LIMIT %(window)s"
    ).format(src=_FROM, where=where)
    return [r["id"] for r in conn.execute(query, {**params, "window": window}).fetchall()]


def paragraphs(conn: Conn, ids: list[int]) -> list[dict]:
    """The paragraphs with these ids, each with its final's doc_id."""
    return conn.execute(
        "SELECT e.*, d.doc_id FROM block_exemplars e JOIN documents d"
        " ON d.id = e.document_id AND d.corpus = 'style' WHERE e.id = ANY(%s)",
        (ids,),
    ).fetchall()


# -- what health re-checks ------------------------------------------------------------------------
def changed(conn: Conn) -> list[dict]:
    """The finals whose paragraphs are no longer what their cut wrote: a
    paragraph whose text no longer hashes to its `text_hash` or no longer reads its span of the
    final (`edited`: their ids), paragraphs cut from another text of the final (`stale`), or a
    block whose ordinals no longer run 0 .. n - 1 (`gaps`: a paragraph deleted or added)."""
    return conn.execute(
        "SELECT * FROM (SELECT d.id, d.doc_id, d.case_number,"
        " (SELECT array_agg(e.id ORDER BY e.id) FROM block_exemplars e WHERE e.document_id = d.id"
        "  AND (e.text_hash <> encode(sha256(convert_to(e.text, 'UTF8')), 'hex')"
        "  OR substr(d.content, e.char_start + 1, e.char_end - e.char_start)"
        "  IS DISTINCT FROM e.text)) AS edited,"
        " EXISTS (SELECT 1 FROM block_exemplars e WHERE e.document_id = d.id"
        "  AND e.source_hash <> d.content_hash) AS stale,"
        " (SELECT array_agg(g.block ORDER BY g.block) FROM (SELECT e.block FROM block_exemplars e"
        "  WHERE e.document_id = d.id GROUP BY e.block"
        "  HAVING min(e.ordinal) <> 0 OR max(e.ordinal) <> count(*) - 1) g) AS gaps"
        " FROM documents d WHERE d.corpus = 'style'"
        " AND EXISTS (SELECT 1 FROM block_exemplars e WHERE e.document_id = d.id)) c"
        " WHERE c.edited IS NOT NULL OR c.stale OR c.gaps IS NOT NULL ORDER BY c.id"
    ).fetchall()
