"""SQL for corpus items and their chunks. Tables come from the corpus registry (identifiers),
values are always parameters. The principles of rulings have their SQL in store/principles.py,
the precedents attached to cases theirs in store/precedents.py, and the unit row in
store/units.py; their names are importable from here too, as the services have always read
them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from psycopg import sql

from ..corpora import Corpus
from .precedents import case_practice_area as case_practice_area
from .precedents import case_profile as case_profile
from .precedents import find_ruling as find_ruling
from .precedents import index_precedent as index_precedent
from .precedents import ruling_title as ruling_title
from .precedents import save_precedent as save_precedent
from .principles import confirm_principle as confirm_principle
from .principles import corpus_principles as corpus_principles
from .principles import extractable_item as extractable_item
from .principles import extractable_items as extractable_items
from .principles import get_principle as get_principle
from .principles import insert_canonical as insert_canonical
from .principles import insert_principle as insert_principle
from .principles import insert_principle_votes as insert_principle_votes
from .principles import list_principles as list_principles
from .principles import panel_principles as panel_principles
from .principles import principle_cap_taken as principle_cap_taken
from .principles import record_principle_cap as record_principle_cap
from .principles import set_principle_canonical as set_principle_canonical
from .principles import set_principle_reason as set_principle_reason
from .principles import set_principle_review as set_principle_review
from .principles import tally_principle as tally_principle
from .rows import Conn, one
from .units import ChunkRow as ChunkRow
from .units import as_array as as_array


def lock_item(conn: Conn, corpus: Corpus, doc_id: str) -> None:
    """Serialise writers of one (corpus, doc_id) for the rest of the transaction."""
    conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (f"{corpus.key}\x1f{doc_id}",)
    )


def find_item(conn: Conn, corpus: Corpus, doc_id: str) -> dict | None:
    query = sql.SQL("SELECT * FROM {t} i WHERE i.doc_id = %(doc_id)s AND {scope}").format(
        t=sql.Identifier(corpus.items), scope=corpus.scope("i")
    )
    return conn.execute(query, {"doc_id": doc_id, **corpus.scope_params()}).fetchone()


def find_by_file(conn: Conn, corpus: Corpus, sha: str, doc_id: str) -> str | None:
    """doc_id of another item of this corpus uploaded from a byte-identical file."""
    query = sql.SQL(
        "SELECT i.doc_id FROM {t} i WHERE i.file_sha256 = %(sha)s AND i.doc_id <> %(doc_id)s"
        " AND {scope} LIMIT 1"
    ).format(t=sql.Identifier(corpus.items), scope=corpus.scope("i"))
    row = conn.execute(query, {"sha": sha, "doc_id": doc_id, **corpus.scope_params()}).fetchone()
    return row["doc_id"] if row else None


def upsert_item(conn: Conn, corpus: Corpus, values: dict[str, Any]) -> int:
    """Insert the item or update it in place (same id); return its id."""
    values = {**values, **corpus.scope_values()}
    cols = list(values)
    conflict = ["doc_id"] + ([corpus.scope_column] if corpus.scope_column else [])
    updates = [c for c in cols if c not in conflict]
    query = sql.SQL(
        "INSERT INTO {t} ({cols}) VALUES ({vals}) ON CONFLICT ({conflict}) DO UPDATE SET {sets},"
        " updated_at = now(), version = {t}.version + 1 RETURNING id"
    ).format(
        t=sql.Identifier(corpus.items),
        cols=sql.SQL(", ").join(map(sql.Identifier, cols)),
        vals=sql.SQL(", ").join(sql.Placeholder(c) for c in cols),
        conflict=sql.SQL(", ").join(map(sql.Identifier, conflict)),
        sets=sql.SQL(", ").join(
            sql.SQL("{c} = EXCLUDED.{c}").format(c=sql.Identifier(c)) for c in updates
        ),
    )
    return one(conn.execute(query, values))["id"]


def update_fields(conn: Conn, corpus: Corpus, item_id: int, values: dict) -> None:
    """Change metadata only (content and chunks untouched)."""
    if not values:
        return
    query = sql.SQL("UPDATE {t} SET {sets}, updated_at = now() WHERE id = %(id)s").format(
        t=sql.Identifier(corpus.items),
        sets=sql.SQL(", ").join(
            sql.SQL("{} = {}").format(sql.Identifier(c), sql.Placeholder(c)) for c in values
        ),
    )
    conn.execute(query, {**values, "id": item_id})


def _delete_units(conn: Conn, corpus: Corpus, root: str, item_id: int) -> None:
    """Delete one item's units (chunks, page images) through the partitioned root, pinned to the
    corpus's partition by its key: a DELETE aimed at the partition itself would not fire the
    root's statement-level triggers, and the lexicon (document frequencies, unit and token
    counts) would keep counting the deleted units."""
    conn.execute(
        sql.SQL("DELETE FROM {t} u WHERE u.{fk} = %(id)s AND {scope}").format(
            t=sql.Identifier(root), fk=sql.Identifier(corpus.parent_column), scope=corpus.scope("u")
        ),
        {"id": item_id, **corpus.scope_params()},
    )


CHUNKS_PER_INSERT = 2000


def replace_chunks(
    conn: Conn,
    corpus: Corpus,
    item_id: int,
    chunks: Sequence[ChunkRow],
    *,
    new_item: bool = False,
) -> None:
    """Delete the item's chunks and insert `chunks` (one transaction with the caller). A
    `new_item` has nothing to delete: the DELETE (and the statement triggers it fires even for
    no rows) is skipped."""
    if not new_item:
        _delete_units(conn, corpus, corpus.chunk_root, item_id)
    if not chunks:
        return
    scope = list(corpus.scope_values())  # the partition key column of the chunk table
    cols = [
        corpus.parent_column,
        *scope,
        "ordinal",
        "page",
        "char_start",
        "char_end",
        "section",
        "text",
        "text_hash",
        "analyzed",
        "analyzer",
        "embedding",
        "embedder",
        "embedded_hash",
        "chunk_total",  # how many chunks the item was cut into (migration 0039)
    ]
    row = sql.SQL("({})").format(sql.SQL(", ").join(sql.Placeholder() * len(cols)))
    scope_vals = [corpus.scope_value] if scope else []
    # One statement per batch of chunks (within PostgreSQL's 65,535 parameters), so
    # statement-level triggers (the lexicon) run once per item, not once per chunk.
    for start in range(0, len(chunks), CHUNKS_PER_INSERT):
        batch = chunks[start : start + CHUNKS_PER_INSERT]
        query = sql.SQL("INSERT INTO {t} ({cols}) VALUES {rows}").format(
            t=sql.Identifier(corpus.chunk_root),
            cols=sql.SQL(", ").join(map(sql.Identifier, cols)),
            rows=sql.SQL(", ").join([row] * len(batch)),
        )
        params = [
            value for c in batch for value in (*_chunk_values(item_id, scope_vals, c), len(chunks))
        ]
        conn.execute(query, params, binary=True)


def _chunk_values(item_id: int, scope_vals: list, c: ChunkRow) -> tuple:
    """One chunk's values, in the order of replace_chunks' columns."""
    return (
        item_id,
        *scope_vals,
        c.ordinal,
        c.page,
        c.char_start,
        c.char_end,
        c.section,
        c.text,
        c.text_hash,
        c.analyzed,
        c.analyzer,
        c.embedding,
        c.embedder,
        c.text_hash if c.embedding is not None else None,
    )


def item_status(conn: Conn, corpus: Corpus, item_id: int) -> dict | None:
    query = sql.SQL("SELECT doc_id, searchable, missing FROM {t} WHERE id = %s").format(
        t=sql.Identifier(corpus.items)
    )
    return conn.execute(query, (item_id,)).fetchone()


def ensure_case(conn: Conn, case_number: str, practice_area: str | None = None) -> dict:
    conn.execute(
        "INSERT INTO cases (case_number, practice_area) VALUES (%s, %s)"
        " ON CONFLICT (case_number) DO UPDATE"
        " SET practice_area = coalesce(cases.practice_area, EXCLUDED.practice_area)",
        (case_number, practice_area),
    )
    return one(conn.execute("SELECT * FROM cases WHERE case_number = %s", (case_number,)))


def get_case(conn: Conn, case_number: str) -> dict | None:
    return conn.execute("SELECT * FROM cases WHERE case_number = %s", (case_number,)).fetchone()


def item_history(conn: Conn, doc_id: str, corpus: str | None) -> list[dict]:
    """Every recorded version of the items named `doc_id` (in one corpus, or in all), oldest
    first."""
    return conn.execute(
        "SELECT id, corpus, doc_id, case_number, item_id, version, content_hash, length(content)"
        " AS chars, content, page_starts, source_path, recorded_at, recorded_by FROM item_versions"
        " WHERE doc_id = %(doc_id)s AND (%(corpus)s::text IS NULL OR corpus = %(corpus)s)"
        " ORDER BY corpus, item_id, id",
        {"doc_id": doc_id, "corpus": corpus},
    ).fetchall()


def replace_page_images(
    conn: Conn,
    corpus: Corpus,
    item_id: int,
    pages: Sequence[tuple[int, str, np.ndarray]],
    embedder: str,
) -> None:
    """Replace an item's page images: (page number, image sha256, embedding)."""
    source = corpus.image_source
    if source is None:
        return
    _delete_units(conn, corpus, source.root, item_id)
    if not pages:
        return
    query = sql.SQL(
        "INSERT INTO {t} ({fk}, {scope}, page, text_hash, embedding, embedder, embedded_hash)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s)"
    ).format(
        t=sql.Identifier(source.root),
        fk=sql.Identifier(corpus.parent_column),
        scope=sql.Identifier(corpus.scoped_by),
    )
    with conn.cursor() as cur:
        cur.executemany(
            query,
            [
                (item_id, corpus.scope_value, page, sha, vector, embedder, sha)
                for page, sha, vector in pages
            ],
        )


def external_chunk_embeddings(conn: Conn) -> list[dict]:
    """Every embedded chunk of the external case law with its ruling's doc_id, by chunk id
    (the exact-search peer of the evaluation, evaluation/peers.py)."""
    return conn.execute(
        "SELECT i.doc_id, c.embedding FROM case_law_chunks_external c"
        " JOIN case_law i ON i.id = c.case_law_id WHERE c.embedding IS NOT NULL ORDER BY c.id"
    ).fetchall()
