"""SQL for corpus items and their chunks. Tables come from the corpus registry (identifiers),
values are always parameters."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import psycopg
from psycopg import sql

from ..corpora import Corpus


def as_array(value) -> np.ndarray:
    """A vector read back from the database (pgvector's `Vector` or an array) as float32."""
    return np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value, dtype=np.float32)


@dataclass(frozen=True)
class ChunkRow:
    ordinal: int
    page: int | None
    char_start: int
    char_end: int
    section: str | None
    text: str
    text_hash: str
    analyzed: str
    analyzer: str
    embedding: np.ndarray | None
    embedder: str | None


def lock_item(conn: psycopg.Connection, corpus: Corpus, doc_id: str) -> None:
    """Serialise writers of one (corpus, doc_id) for the rest of the transaction."""
    conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (f"{corpus.key}\x1f{doc_id}",)
    )


def find_item(conn: psycopg.Connection, corpus: Corpus, doc_id: str) -> dict | None:
    query = sql.SQL("SELECT * FROM {t} i WHERE i.doc_id = %(doc_id)s AND {scope}").format(
        t=sql.Identifier(corpus.item_table), scope=corpus.scope("i")
    )
    return conn.execute(query, {"doc_id": doc_id, **corpus.scope_params()}).fetchone()


def find_by_file(conn: psycopg.Connection, corpus: Corpus, sha: str, doc_id: str) -> str | None:
    """doc_id of another item of this corpus uploaded from a byte-identical file."""
    query = sql.SQL(
        "SELECT i.doc_id FROM {t} i WHERE i.file_sha256 = %(sha)s AND i.doc_id <> %(doc_id)s"
        " AND {scope} LIMIT 1"
    ).format(t=sql.Identifier(corpus.item_table), scope=corpus.scope("i"))
    row = conn.execute(query, {"sha": sha, "doc_id": doc_id, **corpus.scope_params()}).fetchone()
    return row["doc_id"] if row else None


def upsert_item(conn: psycopg.Connection, corpus: Corpus, values: dict[str, Any]) -> int:
    """Insert the item or update it in place (same id); return its id."""
    values = {**values, **corpus.scope_values()}
    cols = list(values)
    conflict = ["doc_id"] + ([corpus.scope_column] if corpus.scope_column else [])
    updates = [c for c in cols if c not in conflict]
    query = sql.SQL(
        "INSERT INTO {t} ({cols}) VALUES ({vals}) ON CONFLICT ({conflict}) DO UPDATE SET {sets},"
        " updated_at = now(), version = {t}.version + 1 RETURNING id"
    ).format(
        t=sql.Identifier(corpus.item_table),
        cols=sql.SQL(", ").join(map(sql.Identifier, cols)),
        vals=sql.SQL(", ").join(sql.Placeholder(c) for c in cols),
        conflict=sql.SQL(", ").join(map(sql.Identifier, conflict)),
        sets=sql.SQL(", ").join(
            sql.SQL("{c} = EXCLUDED.{c}").format(c=sql.Identifier(c)) for c in updates
        ),
    )
    return conn.execute(query, values).fetchone()["id"]


def update_fields(conn: psycopg.Connection, corpus: Corpus, item_id: int, values: dict) -> None:
    """Change metadata only (content and chunks untouched)."""
    if not values:
        return
    query = sql.SQL("UPDATE {t} SET {sets}, updated_at = now() WHERE id = %(id)s").format(
        t=sql.Identifier(corpus.item_table),
        sets=sql.SQL(", ").join(
            sql.SQL("{} = {}").format(sql.Identifier(c), sql.Placeholder(c)) for c in values
        ),
    )
    conn.execute(query, {**values, "id": item_id})


def _delete_units(conn: psycopg.Connection, corpus: Corpus, root: str, item_id: int) -> None:
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
    conn: psycopg.Connection,
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
        corpus.parent_column, *scope, "ordinal", "page", "char_start", "char_end", "section",
        "text", "text_hash", "analyzed", "analyzer", "embedding", "embedder", "embedded_hash",
    ]  # fmt: skip
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
            value
            for c in batch
            for value in (
                item_id, *scope_vals, c.ordinal, c.page, c.char_start, c.char_end, c.section,
                c.text, c.text_hash, c.analyzed, c.analyzer, c.embedding, c.embedder,
                c.text_hash if c.embedding is not None else None,
            )
        ]  # fmt: skip
        conn.execute(query, params, binary=True)


def item_status(conn: psycopg.Connection, corpus: Corpus, item_id: int) -> dict:
    query = sql.SQL("SELECT doc_id, searchable, missing FROM {t} WHERE id = %s").format(
        t=sql.Identifier(corpus.item_table)
    )
    return conn.execute(query, (item_id,)).fetchone()


def ensure_case(
    conn: psycopg.Connection, case_number: str, practice_area: str | None = None
) -> dict:
    conn.execute(
        "INSERT INTO cases (case_number, practice_area) VALUES (%s, %s)"
        " ON CONFLICT (case_number) DO UPDATE"
        " SET practice_area = coalesce(cases.practice_area, EXCLUDED.practice_area)",
        (case_number, practice_area),
    )
    return conn.execute("SELECT * FROM cases WHERE case_number = %s", (case_number,)).fetchone()


def get_case(conn: psycopg.Connection, case_number: str) -> dict | None:
    return conn.execute("SELECT * FROM cases WHERE case_number = %s", (case_number,)).fetchone()


def requirements(conn: psycopg.Connection) -> dict[tuple[str, str], list[str]]:
    rows = conn.execute(
        "SELECT corpus, doc_type, array_agg(field ORDER BY field) AS fields"
        " FROM corpus_requirements GROUP BY corpus, doc_type"
    ).fetchall()
    return {(r["corpus"], r["doc_type"]): r["fields"] for r in rows}


def find_ruling(conn: psycopg.Connection, case_number: str, key: str) -> dict | None:
    """A searchable ruling or decision whose case number matches, quotes ignored."""
    return conn.execute(
        "SELECT id FROM case_law WHERE searchable AND"
        " (case_number = %s OR regexp_replace(case_number, '\"', '', 'g') = %s)"
        " ORDER BY source_kind, id LIMIT 1",
        (case_number, key),
    ).fetchone()


def save_precedent(
    conn: psycopg.Connection,
    case_number: str,
    citation: str,
    key: str,
    case_law_id: int | None,
    note: str | None,
) -> dict:
    return conn.execute(
        "INSERT INTO case_precedents (case_number, citation, citation_key, case_law_id, note)"
        " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (case_number, citation_key)"
        " DO UPDATE SET note = coalesce(EXCLUDED.note, case_precedents.note),"
        " case_law_id = coalesce(EXCLUDED.case_law_id, case_precedents.case_law_id)"
        " RETURNING id, case_number, citation, case_law_id, note",
        (case_number, citation, key, case_law_id, note),
    ).fetchone()


def case_profile(
    conn: psycopg.Connection, case_number: str, embedder: str
) -> tuple[str, np.ndarray | None]:
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


def index_precedent(conn: psycopg.Connection, precedent_id: int, unit: ChunkRow) -> None:
    """Store the searchable text, analysis and embedding of an attached precedent."""
    conn.execute(
        "UPDATE case_precedents SET search_text = %s, text_hash = %s, analyzed = %s,"
        " analyzer = %s, embedding = %s, embedder = %s, embedded_hash = %s WHERE id = %s",
        (unit.text, unit.text_hash, unit.analyzed, unit.analyzer, unit.embedding, unit.embedder,
         unit.text_hash, precedent_id),
    )  # fmt: skip


def ruling_title(conn: psycopg.Connection, case_law_id: int | None) -> str | None:
    if case_law_id is None:
        return None
    row = conn.execute("SELECT title FROM case_law WHERE id = %s", (case_law_id,)).fetchone()
    return row["title"] if row else None


def insert_principle(
    conn: psycopg.Connection, corpus: Corpus, case_law_id: int, unit: ChunkRow,
    supporting_quote: str, review_status: str, reviewed_by: str | None = None,
    *, votes: int | None = None, score: float | None = None, models: str | None = None,
    canonical_id: int | None = None, job_id: int | None = None,
) -> int:  # fmt: skip
    """A principle of a ruling, grounded in a quote at `unit.char_start:char_end` (with the
    panel's votes, mean score and models when the panel extracted it, and its canonical)."""
    return conn.execute(
        "INSERT INTO case_law_principles (source_kind, case_law_id, rule_text, supporting_quote,"
        " page, char_start, char_end, review_status, reviewed_by, text_hash, analyzed, analyzer,"
        " embedding, embedder, embedded_hash, votes, score, models, canonical_id, job_id)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
        " RETURNING id",
        (corpus.scope_value, case_law_id, unit.text, supporting_quote, unit.page, unit.char_start,
         unit.char_end, review_status, reviewed_by, unit.text_hash, unit.analyzed, unit.analyzer,
         unit.embedding, unit.embedder, unit.text_hash, votes, score, models, canonical_id,
         job_id),
    ).fetchone()["id"]  # fmt: skip


def extractable_items(
    conn: psycopg.Connection, source_kind: str, doc_id: str | None = None
) -> list[dict]:
    """The rulings and decisions of one case-law corpus (or the one named `doc_id`) with text."""
    return conn.execute(
        "SELECT id, doc_id, case_number, court, is_binding, content, page_starts, content_hash,"
        " source_kind FROM case_law WHERE source_kind = %(kind)s AND doc_type IN ('ruling', 'decision') AND content <> ''"
        " AND (%(doc_id)s::text IS NULL OR doc_id = %(doc_id)s) ORDER BY id",
        {"kind": source_kind, "doc_id": doc_id},
    ).fetchall()


def extractable_item(conn: psycopg.Connection, item_id: int) -> dict | None:
    """One ruling or decision (of either case-law corpus) by id, with its text and its hash."""
    return conn.execute(
        "SELECT id, doc_id, case_number, court, is_binding, content, page_starts, content_hash,"
        " source_kind FROM case_law WHERE id = %s AND doc_type IN ('ruling', 'decision')"
        " AND content <> ''",
        (item_id,),
    ).fetchone()


def panel_principles(conn: psycopg.Connection) -> list[dict]:
    """The principles the panel decided or left to the chair (never those she decided), with
    whether each is its canonical's first occurrence (a new principle, not a link)."""
    return conn.execute(
        "SELECT p.id, p.case_law_id, p.canonical_id, p.review_status, p.votes, p.score,"
        " p.rule_text, c.doc_id, (p.canonical_id IS NULL OR p.id = (SELECT min(o.id) FROM"
        " case_law_principles o WHERE o.canonical_id = p.canonical_id)) AS first"
        " FROM case_law_principles p JOIN case_law c ON c.id = p.case_law_id"
        " WHERE p.votes IS NOT NULL AND p.review_status IN ('approved', 'proposed')"
        " AND (p.reviewed_by IS NULL OR p.reviewed_by = 'panel') ORDER BY p.id"
    ).fetchall()


def corpus_principles(conn: psycopg.Connection, source_kind: str) -> list[dict]:
    """Every principle of one corpus (any status) with its embedding: what a new candidate is
    matched against (never another corpus's)."""
    return conn.execute(
        "SELECT id, case_law_id, rule_text, supporting_quote, canonical_id, embedding, embedder"
        " FROM case_law_principles WHERE source_kind = %s ORDER BY id",
        (source_kind,),
    ).fetchall()


def insert_canonical(conn: psycopg.Connection, source_kind: str, rule_text: str) -> int:
    return conn.execute(
        "INSERT INTO canonical_principles (source_kind, rule_text) VALUES (%s, %s) RETURNING id",
        (source_kind, rule_text),
    ).fetchone()["id"]


def set_principle_canonical(conn: psycopg.Connection, principle_id: int, canonical_id: int) -> None:
    conn.execute(
        "UPDATE case_law_principles SET canonical_id = %s WHERE id = %s",
        (canonical_id, principle_id),
    )


def list_principles(conn: psycopg.Connection, status: str | None = None, *,
                    limit: int | None = None, offset: int = 0,
                    unconfirmed: bool = False) -> list[dict]:  # fmt: skip
    """Principles with their source (for the term), the panel's record and how many
    occurrences their canonical has; by id, `limit` rows after `offset` (None: all)."""
    return conn.execute(
        "SELECT p.id, p.source_kind, p.rule_text, p.supporting_quote, p.page, p.votes, p.score,"
        " p.models, p.review_status, p.reviewed_by, p.confirmed_by, p.review_reason,"
        " p.canonical_id, c.doc_id, c.case_number,"
        " c.court, c.is_binding, CASE WHEN p.canonical_id IS NULL THEN 1 ELSE"
        " (SELECT count(*) FROM case_law_principles o WHERE o.canonical_id = p.canonical_id)"
        " END AS occurrences, ruling_corroboration(p.case_law_id) AS corroboration"
        " FROM case_law_principles p JOIN case_law c ON c.id = p.case_law_id"
        " WHERE (%(status)s::text IS NULL OR p.review_status = %(status)s)"
        " AND (NOT %(unconfirmed)s OR (p.review_status = 'approved' AND p.reviewed_by = 'panel'"
        " AND p.confirmed_by IS NULL)) ORDER BY p.id"
        " LIMIT %(limit)s OFFSET %(offset)s",
        {"status": status, "limit": limit, "offset": offset, "unconfirmed": unconfirmed},
    ).fetchall()


def get_principle(
    conn: psycopg.Connection, principle_id: int, *, lock: bool = False
) -> dict | None:
    query = _PRINCIPLE_LOCKED if lock else _PRINCIPLE
    return conn.execute(query, (principle_id,)).fetchone()


_PRINCIPLE = "SELECT * FROM case_law_principles WHERE id = %s"
_PRINCIPLE_LOCKED = _PRINCIPLE + " FOR UPDATE"


def insert_principle_votes(conn: psycopg.Connection, principle_id: int, source_kind: str,
                           votes: list[dict]) -> None:  # fmt: skip
    """The panel's votes on one principle: each model of the panel, whether it proposed it,
    its score, and the extraction call it rests on (the database checks the call)."""
    for vote in votes:
        conn.execute(
            "INSERT INTO principle_votes (principle_id, source_kind, model, model_call_id, voted,"
            " score) VALUES (%s, %s, %s, %s, %s, %s)",
            (principle_id, source_kind, vote["model"], vote["model_call_id"], vote["voted"],
             vote["score"]),
        )  # fmt: skip


def tally_principle(conn: psycopg.Connection, principle_id: int) -> dict:
    """Have the database count a principle's votes (its gate computes votes, score and models
    from principle_votes on every update): the row as counted."""
    return conn.execute(
        "UPDATE case_law_principles SET votes = NULL WHERE id = %s"
        " RETURNING id, votes, score, models, review_status",
        (principle_id,),
    ).fetchone()


def set_principle_reason(conn: psycopg.Connection, principle_id: int, reason: str) -> None:
    """Why a proposed principle waits for the chair (an ungrounded rule, say)."""
    conn.execute(
        "UPDATE case_law_principles SET review_reason = %s WHERE id = %s AND"
        " review_status = 'proposed'",
        (reason, principle_id),
    )


def confirm_principle(conn: psycopg.Connection, principle_id: int) -> dict:
    """The chair's confirmation of what the panel approved (the gate: her role, once; the
    audit trigger records it)."""
    return conn.execute(
        "UPDATE case_law_principles SET confirmed_by = 'chair' WHERE id = %s RETURNING id,"
        " source_kind, case_law_id, rule_text, supporting_quote, page, review_status,"
        " reviewed_by, reviewed_at, review_reason, confirmed_by, confirmed_at",
        (principle_id,),
    ).fetchone()


def set_principle_review(
    conn: psycopg.Connection, principle_id: int, status: str, actor: str, reason: str | None
) -> dict:
    return conn.execute(
        "UPDATE case_law_principles SET review_status = %s, reviewed_by = %s, review_reason = %s"
        " WHERE id = %s RETURNING id, source_kind, case_law_id, rule_text, supporting_quote, page,"
        " review_status, reviewed_by, reviewed_at, review_reason",
        (status, actor, reason, principle_id),
    ).fetchone()


def item_history(conn: psycopg.Connection, doc_id: str, corpus: str | None) -> list[dict]:
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
    conn: psycopg.Connection, corpus: Corpus, item_id: int,
    pages: Sequence[tuple[int, str, np.ndarray]], embedder: str,
) -> None:  # fmt: skip
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
        scope=sql.Identifier(corpus.scope_column),
    )
    with conn.cursor() as cur:
        cur.executemany(
            query,
            [(item_id, corpus.scope_value, page, sha, vector, embedder, sha)
             for page, sha, vector in pages],
        )  # fmt: skip


def external_chunk_embeddings(conn: psycopg.Connection) -> list[dict]:
    """Every embedded chunk of the external case law with its ruling's doc_id, by chunk id
    (the exact-search peer of the evaluation, evaluation/peers.py)."""
    return conn.execute(
        "SELECT i.doc_id, c.embedding FROM case_law_chunks_external c"
        " JOIN case_law i ON i.id = c.case_law_id WHERE c.embedding IS NOT NULL ORDER BY c.id"
    ).fetchall()
