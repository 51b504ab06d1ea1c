"""The retrieval legs, each composed from the corpus registry so that it is scoped to one corpus:
semantic (cosine over chunk embeddings, HNSW with pgvector's iterative scan) and lexical
(`websearch_to_tsquery` over the analyzed-text tsvector, ranked by `ts_rank_cd`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import psycopg
from psycopg import sql

from .corpora import Corpus


@dataclass(frozen=True)
class Filters:
    practice_area: str | None = None
    case_number: str | None = None
    court: str | None = None
    date_from: str | None = None
    date_to: str | None = None
    doc_type: str | None = None


_DATE_COLUMN = {"case_law": "decided_on", "digests": "published_on"}


def filter_sql(corpus: Corpus, filters: Filters) -> tuple[sql.Composable, dict]:
    """Predicates on the item table `i` for the filters this corpus has columns for."""
    parts: list[sql.Composable] = [corpus.scope("i"), sql.SQL("i.searchable")]
    params: dict = dict(corpus.scope_params())
    for name in ("practice_area", "case_number", "court", "doc_type"):
        value = getattr(filters, name)
        if value is not None and (name in corpus.columns or name == "doc_type"):
            parts.append(sql.SQL("i.{} = {}").format(sql.Identifier(name), sql.Placeholder(name)))
            params[name] = value
    date_column = _DATE_COLUMN.get(corpus.item_table)
    if date_column:
        for name, op in (("date_from", ">="), ("date_to", "<=")):
            value = getattr(filters, name)
            if value is not None:
                parts.append(
                    sql.SQL("i.{} {} {}::date").format(
                        sql.Identifier(date_column), sql.SQL(op), sql.Placeholder(name)
                    )
                )
                params[name] = value
    return sql.SQL(" AND ").join(parts), params


def _fresh_chunk(embedder: str) -> tuple[sql.Composable, dict]:
    return (
        sql.SQL("c.embedder = %(embedder)s AND c.embedded_hash = c.text_hash"),
        {"embedder": embedder},
    )


def semantic(
    conn: psycopg.Connection,
    corpus: Corpus,
    filters: Filters,
    vector: np.ndarray,
    *,
    embedder: str,
    dim: int,
    window: int,
    max_scan_tuples: int,
) -> list[int]:
    """Chunk ids of the `window` nearest chunks by cosine distance, best first."""
    where, params = filter_sql(corpus, filters)
    fresh, fresh_params = _fresh_chunk(embedder)
    # The cast's dimension is a type modifier from the embedder registry, not a value.
    vec_type = sql.SQL("vector({})").format(sql.SQL(str(int(dim))))
    query = sql.SQL(
        "WITH nearest AS MATERIALIZED ("
        " SELECT c.id, (c.embedding::{vt}) <=> %(qvec)s::{vt} AS distance"
        " FROM {chunks} c JOIN {items} i ON i.id = c.{fk}"
        " WHERE {where} AND {fresh}"
        " ORDER BY (c.embedding::{vt}) <=> %(qvec)s::{vt} LIMIT %(window)s)"
        " SELECT id FROM nearest ORDER BY distance, id"
    ).format(
        vt=vec_type,
        chunks=sql.Identifier(corpus.chunk_table),
        items=sql.Identifier(corpus.item_table),
        fk=sql.Identifier(corpus.parent_column),
        where=where,
        fresh=fresh,
    )
    with conn.transaction():
        # Filtered HNSW scans keep scanning until `window` rows pass the filter (pgvector 0.8).
        conn.execute("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)")
        conn.execute("SELECT set_config('hnsw.max_scan_tuples', %s, true)", (str(max_scan_tuples),))
        rows = conn.execute(
            query, {**params, **fresh_params, "qvec": vector, "window": window}
        ).fetchall()
    return [r["id"] for r in rows]


def lexical(
    conn: psycopg.Connection,
    corpus: Corpus,
    filters: Filters,
    websearch: str,
    *,
    embedder: str,
    window: int,
) -> list[int]:
    """Chunk ids matching any analyzed query form, by cover density rank, best first."""
    if not websearch.strip():
        return []
    where, params = filter_sql(corpus, filters)
    fresh, fresh_params = _fresh_chunk(embedder)
    query = sql.SQL(
        "SELECT c.id FROM {chunks} c JOIN {items} i ON i.id = c.{fk},"
        " websearch_to_tsquery('simple', %(websearch)s) q"
        " WHERE {where} AND {fresh} AND c.tsv @@ q"
        " ORDER BY ts_rank_cd(c.tsv, q) DESC, c.id LIMIT %(window)s"
    ).format(
        chunks=sql.Identifier(corpus.chunk_table),
        items=sql.Identifier(corpus.item_table),
        fk=sql.Identifier(corpus.parent_column),
        where=where,
        fresh=fresh,
    )
    rows = conn.execute(
        query, {**params, **fresh_params, "websearch": websearch, "window": window}
    ).fetchall()
    return [r["id"] for r in rows]


def hydrate(conn: psycopg.Connection, corpus: Corpus, chunk_ids: list[int]) -> dict[int, dict]:
    """Chunk and item fields for provenance, re-checked against the corpus scope."""
    if not chunk_ids:
        return {}
    item_cols = {
        "documents": "i.case_number, NULL::text AS court, NULL::date AS decided_on,"
        " i.practice_area, NULL::bigint AS case_law_id, i.id AS document_id,"
        " NULL::text AS source_kind",
        "case_law": "i.case_number, i.court, i.decided_on, i.practice_area, i.id AS case_law_id,"
        " NULL::bigint AS document_id, i.source_kind, i.law_title, i.section_num, i.eid",
        "digests": "i.points_to AS case_number, i.publisher AS court, i.published_on AS decided_on,"
        " i.practice_area, i.case_law_id, NULL::bigint AS document_id,"
        " NULL::text AS source_kind, i.points_to",
    }[corpus.item_table]
    query = sql.SQL(
        "SELECT c.id AS chunk_id, c.{fk} AS item_id, c.page, c.char_start, c.char_end, c.text,"
        " c.section, i.doc_id, i.title, i.doc_type, {item_cols}"
        " FROM {chunks} c JOIN {items} i ON i.id = c.{fk}"
        " WHERE c.id = ANY(%(ids)s) AND {scope}"
    ).format(
        fk=sql.Identifier(corpus.parent_column),
        item_cols=sql.SQL(item_cols),
        chunks=sql.Identifier(corpus.chunk_table),
        items=sql.Identifier(corpus.item_table),
        scope=corpus.scope("i"),
    )
    rows = conn.execute(query, {"ids": chunk_ids, **corpus.scope_params()}).fetchall()
    return {r["chunk_id"]: r for r in rows}
