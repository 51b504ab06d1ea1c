"""SQL of a decision's headnote, summary and tags folded into its first chunk (migration 0041):
which first chunks wait for their metadata's analysis or embedding, and the write of both."""

from __future__ import annotations

from psycopg import sql

from .rows import Conn, one

# A first chunk waits when what its lexical terms or its embedding hold is not its decision's
# current metadata (meta_hash NULL: none; a fold then clears what an earlier one left).
_PENDING = sql.SQL(
    "u.ordinal = 0 AND (u.meta_analyzed_hash IS DISTINCT FROM u.meta_hash"
    " OR u.meta_embedded_hash IS DISTINCT FROM u.meta_hash)"
)


def pending(
    conn: Conn, case_law_ids: list[int] | None = None, *, after: int = 0, batch: int
) -> list[dict]:
    """First chunks (of the given decisions; None: of all) whose metadata is not folded in:
    id, source_kind, its text, the decision's meta_text, meta_hash and three fields, and what
    each needs."""
    query = sql.SQL(
        "SELECT u.id, u.source_kind, u.text, u.text_hash, c.meta_text, u.meta_hash,"
        " c.headnote, c.summary, c.tags,"
        " u.meta_analyzed_hash IS DISTINCT FROM u.meta_hash AS needs_analysis,"
        " u.meta_embedded_hash IS DISTINCT FROM u.meta_hash AS needs_embedding"
        " FROM case_law_chunks u JOIN case_law c"
        "   ON c.id = u.case_law_id AND c.source_kind = u.source_kind"
        " WHERE {pending} AND (%(ids)s::bigint[] IS NULL OR u.case_law_id = ANY(%(ids)s))"
        " AND u.id > %(after)s ORDER BY u.id LIMIT %(batch)s"
    ).format(pending=_PENDING)
    return conn.execute(
        query,
        {"ids": case_law_ids, "after": after, "batch": batch},
    ).fetchall()


def count_pending(conn: Conn) -> int:
    """How many first chunks wait for their decision's metadata (`legal-ai health`)."""
    query = sql.SQL("SELECT count(*) AS n FROM case_law_chunks u WHERE {}").format(_PENDING)
    return one(conn.execute(query))["n"]


def write(conn: Conn, rows: list[dict], *, embedder: str) -> int:
    """Store folded metadata: each row's `id`, `source_kind`, `meta_hash` (what was folded),
    `meta_analyzed` (None: keep) and `embedding` (of the metadata and the chunk's text; None:
    keep). A chunk whose decision's metadata changed meanwhile is left waiting. Returns the
    chunks written."""
    if not rows:
        return 0
    cursor = conn.execute(
        "UPDATE case_law_chunks u SET"
        " meta_analyzed = coalesce(v.analyzed, u.meta_analyzed),"
        " meta_analyzed_hash = CASE WHEN v.analyzed IS NULL THEN u.meta_analyzed_hash"
        "   ELSE v.meta_hash END,"
        " embedding = coalesce(v.embedding, u.embedding),"
        " embedder = CASE WHEN v.embedding IS NULL THEN u.embedder ELSE %(embedder)s END,"
        " embedded_hash = CASE WHEN v.embedding IS NULL THEN u.embedded_hash ELSE u.text_hash END,"
        " meta_embedded_hash = CASE WHEN v.embedding IS NULL THEN u.meta_embedded_hash"
        "   ELSE v.meta_hash END"
        " FROM unnest(%(ids)s::bigint[], %(kinds)s::text[], %(hashes)s::text[],"
        "   %(analyzed)s::text[], %(embeddings)s::vector[])"
        "   AS v(id, source_kind, meta_hash, analyzed, embedding)"
        " WHERE u.id = v.id AND u.source_kind = v.source_kind AND u.ordinal = 0"
        "   AND u.meta_hash IS NOT DISTINCT FROM v.meta_hash",
        {
            "embedder": embedder,
            "ids": [r["id"] for r in rows],
            "kinds": [r["source_kind"] for r in rows],
            "hashes": [r["meta_hash"] for r in rows],
            "analyzed": [r["analyzed"] for r in rows],
            "embeddings": [r["embedding"] for r in rows],
        },
    )
    return cursor.rowcount
