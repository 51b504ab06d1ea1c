"""SQL for health reports and re-indexing (G6)."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
from psycopg import sql

from ..retrieval.corpora import CORPORA, Corpus


def _chunk_from(corpus: Corpus) -> sql.Composable:
    return sql.SQL("{chunks} c JOIN {items} i ON i.id = c.{fk} AND {scope}").format(
        chunks=sql.Identifier(corpus.chunk_table),
        items=sql.Identifier(corpus.item_table),
        fk=sql.Identifier(corpus.parent_column),
        scope=corpus.scope("i"),
    )


def chunk_counts(conn: psycopg.Connection, analyzer: str) -> dict[str, dict[str, int]]:
    """Per corpus: chunks, missing, stale and dimension-mismatched embeddings, stale analysis."""
    out = {}
    for corpus in CORPORA.values():
        query = sql.SQL(
            "SELECT count(*) AS chunks,"
            " count(*) FILTER (WHERE c.embedding IS NULL) AS missing_embeddings,"
            " count(*) FILTER (WHERE c.embedding IS NOT NULL AND (c.embedder IS DISTINCT FROM"
            "   active_embedder() OR c.embedded_hash IS DISTINCT FROM c.text_hash))"
            "   AS stale_embeddings,"
            " count(*) FILTER (WHERE c.embedding IS NOT NULL AND c.embedder = active_embedder()"
            "   AND vector_dims(c.embedding) <> (SELECT dim FROM embedding_config))"
            "   AS dimension_mismatches,"
            " count(*) FILTER (WHERE c.analyzer <> %(analyzer)s) AS stale_analysis"
            " FROM {src}"
        ).format(src=_chunk_from(corpus))
        out[corpus.key] = conn.execute(
            query, {**corpus.scope_params(), "analyzer": analyzer}
        ).fetchone()
    return out


def unsearchable_items(conn: psycopg.Connection, limit: int = 1000) -> list[dict]:
    """Items that are not searchable, with what is missing (or why their chunks do not count)."""
    out = []
    for corpus in CORPORA.values():
        query = sql.SQL(
            "SELECT i.doc_id, i.missing,"
            " (SELECT count(*) FROM {chunks} c WHERE c.{fk} = i.id) AS chunks"
            " FROM {items} i WHERE {scope} AND NOT i.searchable ORDER BY i.doc_id LIMIT %(limit)s"
        ).format(
            chunks=sql.Identifier(corpus.chunk_table),
            fk=sql.Identifier(corpus.parent_column),
            items=sql.Identifier(corpus.item_table),
            scope=corpus.scope("i"),
        )
        for row in conn.execute(query, {**corpus.scope_params(), "limit": limit}):
            reasons = list(row["missing"])
            if not reasons:
                reasons = [
                    "no chunk embedded by the active embedder from its current text"
                    " (run `legal-ai reindex`)"
                    if row["chunks"]
                    else "no text to search"
                ]
            out.append({"corpus": corpus.key, "doc_id": row["doc_id"], "missing": reasons})
    return out


def searchable_counts(conn: psycopg.Connection) -> dict[str, dict[str, int]]:
    out = {}
    for corpus in CORPORA.values():
        query = sql.SQL(
            "SELECT count(*) AS items, count(*) FILTER (WHERE i.searchable) AS searchable"
            " FROM {items} i WHERE {scope}"
        ).format(items=sql.Identifier(corpus.item_table), scope=corpus.scope("i"))
        out[corpus.key] = conn.execute(query, corpus.scope_params()).fetchone()
    return out


def stale_chunks(
    conn: psycopg.Connection, corpus: Corpus, analyzer: str, batch: int
) -> Iterator[list[dict]]:
    """Batches of chunks needing a new embedding or a new analysis (id, text, flags)."""
    query = sql.SQL(
        "SELECT c.id, c.text, c.text_hash,"
        " (c.embedding IS NULL OR c.embedder IS DISTINCT FROM active_embedder()"
        "  OR c.embedded_hash IS DISTINCT FROM c.text_hash) AS needs_embedding,"
        " c.analyzer <> %(analyzer)s AS needs_analysis"
        " FROM {src} WHERE (c.embedding IS NULL OR c.embedder IS DISTINCT FROM active_embedder()"
        "  OR c.embedded_hash IS DISTINCT FROM c.text_hash OR c.analyzer <> %(analyzer)s)"
        " AND c.id > %(after)s ORDER BY c.id LIMIT %(batch)s"
    ).format(src=_chunk_from(corpus))
    after = 0
    while True:
        rows = conn.execute(
            query, {**corpus.scope_params(), "analyzer": analyzer, "after": after, "batch": batch}
        ).fetchall()
        if not rows:
            return
        yield rows
        after = rows[-1]["id"]


def update_chunks(
    conn: psycopg.Connection,
    corpus: Corpus,
    rows: list[dict],
    *,
    embedder: str,
    analyzer: str,
) -> None:
    """Store a batch of re-embedded and/or re-analyzed chunks in one UPDATE through the
    partitioned root, pinned to the corpus's partition, so the root's statement triggers (the
    lexicon, the items' searchability) run once per batch. Each row: `id`, `text_hash` (the text
    that was embedded), `embedding` (None: keep) and `analyzed` (None: keep)."""
    query = sql.SQL(
        "UPDATE {chunks} c SET"
        " embedding = CASE WHEN v.embedding IS NULL THEN c.embedding ELSE v.embedding END,"
        " embedder = CASE WHEN v.embedding IS NULL THEN c.embedder ELSE %(embedder)s END,"
        " embedded_hash = CASE WHEN v.embedding IS NULL THEN c.embedded_hash ELSE v.text_hash END,"
        " analyzed = coalesce(v.analyzed, c.analyzed),"
        " analyzer = CASE WHEN v.analyzed IS NULL THEN c.analyzer ELSE %(analyzer)s END"
        " FROM unnest(%(ids)s::bigint[], %(hashes)s::text[], %(embeddings)s::vector[],"
        " %(analyzed)s::text[]) AS v(id, text_hash, embedding, analyzed)"
        " WHERE c.id = v.id AND {scope}"
    ).format(chunks=sql.Identifier(corpus.chunk_root), scope=corpus.scope("c"))
    conn.execute(
        query,
        {
            "embedder": embedder,
            "analyzer": analyzer,
            "ids": [r["id"] for r in rows],
            "hashes": [r["text_hash"] for r in rows],
            "embeddings": [r["embedding"] for r in rows],
            "analyzed": [r["analyzed"] for r in rows],
            **corpus.scope_params(),
        },
    )
