"""SQL of what `legal-ai health` re-checks of the rows only the system writes (ops/rechecks.py
judges them): the copy check's fingerprints beside their texts, a sample of embedded chunks with the
cache's vector of their text, the BM25 statistics beside a recount, the migrations recorded, and the
pairs' final blocks beside her final's stored text. Read only."""

from __future__ import annotations

from psycopg import sql

from ..corpora import CORPORA
from .rows import Conn, one

# Each compared text (store/copy_sources.py's two kinds) with its fingerprint row, if any.
_FINGERPRINTED = (
    "SELECT 'style' AS corpus, t.id, t.doc_id, t.content_hash, t.content,"
    " f.content_hash AS taken_of, f.method, f.shingles"
    " FROM documents t LEFT JOIN copy_fingerprints f ON f.document_id = t.id"
    " WHERE t.corpus = 'style' AND t.extraction_issue IS NULL AND t.content <> ''"
    " UNION ALL"
    " SELECT 'internal', t.id, t.doc_id, t.content_hash, t.content,"
    " f.content_hash, f.method, f.shingles"
    " FROM case_law t LEFT JOIN copy_fingerprints f ON f.case_law_id = t.id"
    " WHERE t.source_kind = 'internal_committee' AND t.extraction_issue IS NULL"
    " AND t.content <> '' ORDER BY 1, 2"
)


def fingerprinted(conn: Conn, batch: int = 100):
    """Every text the copy check compares, with its stored fingerprints (None when it has no
    row): {corpus, id, doc_id, content_hash, content, taken_of, method, shingles}, streamed."""
    with conn.cursor(name="rechecks_fingerprints") as cursor:
        cursor.itersize = batch
        cursor.execute(_FINGERPRINTED)
        yield from cursor


def _chunk_tables() -> list[str]:
    """The chunk partitions of every corpus (the registry's)."""
    return sorted({c.chunk_table for c in CORPORA.values() if c.chunk_table})


def embedded_sample(conn: Conn, embedder: str, size: int, seed: str | None = None) -> list[dict]:
    """Up to `size` embedded chunks by `embedder`: first those whose text has a cache row that is
    not the system's, then a random sample — the same one for the same `seed` while the chunks
    are the same (None: a new one each call); each {chunk_table, id, text, embedding, cached,
    cached_system}: the chunk's own vector and the cache's vector of its text (None: none)."""
    parts = sql.SQL(" UNION ALL ").join(
        sql.SQL(
            "SELECT {name} AS chunk_table, c.id, c.text, c.text_hash, c.embedding"
            " FROM {table} c WHERE c.embedder = %(e)s AND c.embedding IS NOT NULL"
        ).format(name=sql.Literal(table), table=sql.Identifier(table))
        for table in _chunk_tables()
    )
    query = sql.SQL(
        "WITH chunks AS ({parts})"
        " SELECT c.chunk_table, c.id, c.text, c.embedding, e.embedding AS cached,"
        " e.by_system AS cached_system FROM chunks c"
        " LEFT JOIN embedding_cache e ON e.embedder = %(e)s AND e.text_hash = c.text_hash"
        " ORDER BY (e.by_system IS FALSE) DESC,"
        " CASE WHEN %(seed)s::text IS NULL THEN random()::text"
        " ELSE md5(c.chunk_table || c.id || %(seed)s) END LIMIT %(n)s"
    ).format(parts=parts)
    return conn.execute(query, {"e": embedder, "n": size, "seed": seed}).fetchall()


def planted_cache_rows(conn: Conn) -> list[dict]:
    """The cache rows a request role or an agent's login wrote (never served: store/cache.py),
    counted by who wrote them."""
    return conn.execute(
        "SELECT written_by, count(*) AS rows FROM embedding_cache WHERE NOT by_system"
        " AND written_by NOT LIKE %s GROUP BY 1 ORDER BY 1",
        ("unknown%",),
    ).fetchall()


# What lexicon_rebuild() (migrations 0003/0005) would write, computed without writing: each
# table of searchable units with the expression naming its source (its partition column).
_UNITS = (
    ("document_chunks", "corpus"),
    ("case_law_chunks", "source_kind"),
    ("case_law_principles", "source_kind"),
    ("digest_chunks", None),
    ("case_precedents", None),
)


def _source(table: str, part: str | None) -> sql.Composable:
    if part is None:
        return sql.Literal(table)
    return sql.SQL("{} || {}").format(sql.Literal(f"{table}_"), sql.Identifier(part))


def lexicon_differences(conn: Conn) -> list[dict]:
    """Per source, the stored BM25 statistics that differ from a recount: {source, units,
    counted_units, tokens, counted_tokens, terms} (`terms`: how many terms' document frequency
    differs, a term absent counting as 0)."""
    terms = sql.SQL(" UNION ALL ").join(
        sql.SQL(
            "SELECT {src} AS source, w AS term, count(*) AS df FROM {t},"
            " unnest(tsvector_to_array(tsv)) w GROUP BY 1, 2"
        ).format(src=_source(t, part), t=sql.Identifier(t))
        for t, part in _UNITS
    )
    sizes = sql.SQL(" UNION ALL ").join(
        sql.SQL(
            "SELECT {src} AS source, count(*) AS units, coalesce(sum(token_count), 0) AS tokens"
            " FROM {t} GROUP BY 1"
        ).format(src=_source(t, part), t=sql.Identifier(t))
        for t, part in _UNITS
    )
    query = sql.SQL(
        "WITH counted AS ({terms}),"
        " stored AS (SELECT source, term, df FROM lexicon WHERE df <> 0),"
        " terms AS (SELECT coalesce(c.source, s.source) AS source, count(*) AS terms"
        "  FROM counted c FULL JOIN stored s ON s.source = c.source AND s.term = c.term"
        "  WHERE c.df IS DISTINCT FROM s.df GROUP BY 1),"
        " sized AS (SELECT source, units, tokens FROM ({sizes}) x WHERE units > 0),"
        " kept AS (SELECT source, units, tokens FROM lexicon_size WHERE units <> 0 OR tokens <> 0),"
        " sizes AS (SELECT coalesce(c.source, k.source) AS source, k.units, c.units AS counted_units,"
        "  k.tokens, c.tokens::bigint AS counted_tokens FROM sized c"
        "  FULL JOIN kept k ON k.source = c.source"
        "  WHERE (c.units, c.tokens::bigint) IS DISTINCT FROM (k.units, k.tokens))"
        " SELECT coalesce(z.source, t.source) AS source, z.units, z.counted_units, z.tokens,"
        " z.counted_tokens, coalesce(t.terms, 0) AS terms"
        " FROM sizes z FULL JOIN terms t ON t.source = z.source ORDER BY 1"
    ).format(terms=terms, sizes=sizes)
    return conn.execute(query).fetchall()


def lexicon_sources(conn: Conn) -> int:
    """How many sources the statistics keep (what the recount checked)."""
    return one(conn.execute("SELECT count(*) AS n FROM lexicon_size"))["n"]


def recorded_migrations(conn: Conn) -> dict[int, str]:
    """The migrations the database records: {version: name}."""
    rows = conn.execute("SELECT version, name FROM schema_migrations ORDER BY version")
    return {r["version"]: r["name"] for r in rows}


def final_blocks(conn: Conn, batch: int = 50):
    """Each pair with her final's blocks and the stored text of that final (style corpus):
    {case_number, final_blocks, content}, streamed."""
    with conn.cursor(name="rechecks_final_blocks") as cursor:
        cursor.itersize = batch
        cursor.execute(
            "SELECT p.case_number, p.final_blocks, d.content FROM draft_final_pairs p"
            " JOIN documents d ON d.id = p.style_document_id"
            " WHERE p.final_blocks IS NOT NULL ORDER BY p.id"
        )
        yield from cursor
