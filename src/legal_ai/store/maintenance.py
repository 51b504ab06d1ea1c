"""SQL for health reports and re-indexing (G6): chunks, and the other embedded units (principles,
attached precedents, canonical statements, page images)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from psycopg import sql

from ..corpora import CORPORA, SEARCHABLE, Corpus
from ..errors import InvalidInput
from .rows import Conn, one

# The active embedder is read as a subquery, evaluated once per statement, never as
# active_embedder(): that function carries its own search_path, so PostgreSQL cannot inline it
# and calls it for every row counted (the desk's /health read ~3,000 chunks and 2,700 exemplars
# each view: 40 ms for the exemplars' counts alone, 13 ms as a subquery).


def _chunk_from(corpus: Corpus) -> sql.Composable:
    return sql.SQL("{chunks} c JOIN {items} i ON i.id = c.{fk} AND {scope}").format(
        chunks=sql.Identifier(corpus.chunk_table),
        items=sql.Identifier(corpus.items),
        fk=sql.Identifier(corpus.parent_column),
        scope=corpus.scope("i"),
    )


# The analyzer a chunk should record: `context_analyzer` for an item of `context_kinds` (its
# chunks carry a context line, ingest/chunk_context.py), `analyzer` for the rest.
_EXPECTED_ANALYZER = (
    "CASE WHEN i.doc_type = ANY(%(context_kinds)s::text[]) THEN %(context_analyzer)s"
    " ELSE %(analyzer)s END"
)


def analyzers(analyzer: str, context_analyzer: str, context_kinds: tuple[str, ...]) -> dict:
    """The parameters `chunk_counts` and `stale_chunks` compare each chunk's analyzer with."""
    return {
        "analyzer": analyzer,
        "context_analyzer": context_analyzer,
        "context_kinds": list(context_kinds),
    }


def chunk_counts(conn: Conn, analyzer: dict) -> dict[str, dict[str, int]]:
    """Per corpus: chunks, missing, stale and dimension-mismatched embeddings, stale analysis
    (`analyzer`: from `analyzers`)."""
    out = {}
    for corpus in CORPORA.values():
        query = sql.SQL(
            "SELECT count(*) AS chunks,"
            " count(*) FILTER (WHERE c.embedding IS NULL) AS missing_embeddings,"
            " count(*) FILTER (WHERE c.embedding IS NOT NULL AND (c.embedder IS DISTINCT FROM"
            "   (SELECT embedder FROM embedding_config)"
            "   OR c.embedded_hash IS DISTINCT FROM c.text_hash)) AS stale_embeddings,"
            " count(*) FILTER (WHERE c.embedding IS NOT NULL AND c.embedder = "
            "   (SELECT embedder FROM embedding_config)"
            "   AND vector_dims(c.embedding) <> (SELECT dim FROM embedding_config))"
            "   AS dimension_mismatches,"
            " count(*) FILTER (WHERE c.analyzer <> {expected}) AS stale_analysis"
            " FROM {src}"
        ).format(src=_chunk_from(corpus), expected=sql.SQL(_EXPECTED_ANALYZER))
        out[corpus.key] = one(conn.execute(query, {**corpus.scope_params(), **analyzer}))
    return out


def unsearchable_items(conn: Conn, limit: int = 1000) -> list[dict]:
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
            items=sql.Identifier(corpus.items),
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


def searchable_counts(conn: Conn) -> dict[str, dict[str, int]]:
    out = {}
    for corpus in CORPORA.values():
        query = sql.SQL(
            "SELECT count(*) AS items, count(*) FILTER (WHERE i.searchable) AS searchable"
            " FROM {items} i WHERE {scope}"
        ).format(items=sql.Identifier(corpus.items), scope=corpus.scope("i"))
        out[corpus.key] = one(conn.execute(query, corpus.scope_params()))
    return out


def stale_chunks(conn: Conn, corpus: Corpus, analyzer: dict, batch: int) -> Iterator[list[dict]]:
    """Batches of chunks needing a new embedding or a new analysis (id, text, flags, the
    analyzer each should record; `analyzer`: from `analyzers`), with
    what their context line reads (ingest/chunk_context.py): the chunk's start, its item's
    doc_type, text up to the chunk (at least its first 2,000 characters: the parties), metadata,
    law_title, court and title (None where the item has no such column)."""
    query = sql.SQL(
        "SELECT c.id, c.text, c.text_hash, c.char_start, i.doc_type, i.metadata,"
        " left(i.content, greatest(c.char_start + 1, 2000)) AS content,"
        " to_jsonb(i) ->> 'law_title' AS law_title, to_jsonb(i) ->> 'court' AS court,"
        " to_jsonb(i) ->> 'title' AS title,"
        " (c.embedding IS NULL OR c.embedder IS DISTINCT FROM "
        "   (SELECT embedder FROM embedding_config)"
        "  OR c.embedded_hash IS DISTINCT FROM c.text_hash) AS needs_embedding,"
        " c.analyzer <> {expected} AS needs_analysis, {expected} AS expected_analyzer"
        " FROM {src} WHERE (c.embedding IS NULL OR c.embedder IS DISTINCT FROM "
        "   (SELECT embedder FROM embedding_config)"
        "  OR c.embedded_hash IS DISTINCT FROM c.text_hash OR c.analyzer <> {expected})"
        " AND c.id > %(after)s ORDER BY c.id LIMIT %(batch)s"
    ).format(src=_chunk_from(corpus), expected=sql.SQL(_EXPECTED_ANALYZER))
    yield from _pages(conn, query, {**corpus.scope_params(), **analyzer}, batch)


def update_chunks(
    conn: Conn,
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
    _update_embedded(conn, corpus.chunk_root, corpus, rows, embedder=embedder, analyzer=analyzer)


def _update_embedded(
    conn: Conn,
    root: str,
    corpus: Corpus,
    rows: list[dict],
    *,
    embedder: str,
    analyzer: str,
) -> None:
    """One UPDATE of `root` (a chunk or unit table, pinned to `corpus`) writing a batch's new
    embeddings and analyses; rows as for `update_chunks`."""
    query = sql.SQL(
        "UPDATE {root} u SET"
        " embedding = CASE WHEN v.embedding IS NULL THEN u.embedding ELSE v.embedding END,"
        " embedder = CASE WHEN v.embedding IS NULL THEN u.embedder ELSE %(embedder)s END,"
        " embedded_hash = CASE WHEN v.embedding IS NULL THEN u.embedded_hash ELSE v.text_hash END,"
        " analyzed = coalesce(v.analyzed, u.analyzed),"
        " analyzer = CASE WHEN v.analyzed IS NULL THEN u.analyzer ELSE %(analyzer)s END"
        " FROM unnest(%(ids)s::bigint[], %(hashes)s::text[], %(embeddings)s::vector[],"
        " %(analyzed)s::text[]) AS v(id, text_hash, embedding, analyzed)"
        " WHERE u.id = v.id AND {scope}"
    ).format(root=sql.Identifier(root), scope=corpus.scope("u"))
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


# -- units besides chunks: principles, attached precedents, canonical statements, page images ---
# Each has its own embedding and is stale after an embedder change like a chunk. Principles and
# attached precedents carry text_hash and an analysis; a canonical principle's statement
# (coalesce(canonical_statement, rule_text)) has no hash, so only its embedder tells; page images
# are embedded by the image embedder (App.images), never by the text embedder.


@dataclass(frozen=True)
class TextUnits:
    """Principles of one case-law corpus, or the chair's attached precedents: read from `table`
    (the corpus's partition), written through `root` pinned by the corpus's scope."""

    kind: str  # principles | precedents
    corpus: Corpus
    table: str
    root: str
    text_column: str


def text_units() -> list[TextUnits]:
    """The principle and precedent sources of every searchable corpus (Corpus.sources), and the
    paragraphs of the chair's finals served as block exemplars (migration 0018; their `corpus`
    column is the style corpus's scope)."""
    kinds = {"principle": "principles", "precedent": "precedents"}
    return [
        *(
            TextUnits(kinds[s.kind], corpus, s.table, s.root, s.text_column)
            for corpus in SEARCHABLE.values()
            for s in corpus.sources
            if s.kind in kinds
        ),
        TextUnits("exemplars", CORPORA["style"], "block_exemplars", "block_exemplars", "text"),
    ]


def canonical_corpora() -> list[Corpus]:
    """The corpora with canonical principles (those with principles)."""
    return [c for c in CORPORA.values() if c.principle_table is not None]


def image_corpora() -> list[Corpus]:
    return [c for c in CORPORA.values() if c.image_source is not None]


_UNIT_STALE = sql.SQL(
    "u.embedding IS NULL OR u.embedder IS DISTINCT FROM (SELECT embedder FROM embedding_config)"
    " OR u.embedded_hash IS DISTINCT FROM u.text_hash"
)
# A canonical's statement: no hash; stale when embedded by another embedder, or a synthesized
# statement without an embedding (the source wording alone needs none).
_CANONICAL_STALE = sql.SQL(
    "(u.embedding IS NOT NULL AND u.embedder IS DISTINCT FROM "
    "   (SELECT embedder FROM embedding_config))"
    " OR (u.embedding IS NULL AND u.canonical_statement IS NOT NULL)"
)
_IMAGE_STALE = sql.SQL(
    "u.embedding IS NULL OR u.embedder IS DISTINCT FROM %(image_embedder)s"
    " OR u.embedded_hash IS DISTINCT FROM u.text_hash"
)


def unit_counts(
    conn: Conn, analyzer: str, image_embedder: str | None, image_dim: int | None
) -> dict[str, dict[str, dict[str, int | None]]]:
    """Per corpus and kind of unit: units, missing, stale and dimension-mismatched embeddings,
    stale analysis (None where a kind has no analysis). Page images are judged against the image
    embedder; without one they are counted as `unchecked` (their staleness unknown)."""
    out: dict[str, dict[str, dict]] = {}
    for units in text_units():
        query = sql.SQL(
            "SELECT count(*) AS units,"
            " count(*) FILTER (WHERE u.embedding IS NULL) AS missing_embeddings,"
            " count(*) FILTER (WHERE u.embedding IS NOT NULL AND ({stale})) AS stale_embeddings,"
            " count(*) FILTER (WHERE u.embedding IS NOT NULL AND u.embedder = "
            "   (SELECT embedder FROM embedding_config)"
            "   AND vector_dims(u.embedding) <> (SELECT dim FROM embedding_config))"
            "   AS dimension_mismatches,"
            " count(*) FILTER (WHERE u.analyzer IS DISTINCT FROM %(analyzer)s) AS stale_analysis"
            " FROM {table} u WHERE {scope}"
        ).format(
            stale=_UNIT_STALE, table=sql.Identifier(units.table), scope=units.corpus.scope("u")
        )
        counted = conn.execute(query, {**units.corpus.scope_params(), "analyzer": analyzer})
        out.setdefault(units.corpus.key, {})[units.kind] = dict(one(counted))
    for corpus in canonical_corpora():
        query = sql.SQL(
            "SELECT count(*) AS units,"
            " count(*) FILTER (WHERE u.embedding IS NULL AND u.canonical_statement IS NOT NULL)"
            "   AS missing_embeddings,"
            " count(*) FILTER (WHERE u.embedding IS NOT NULL"
            "   AND u.embedder IS DISTINCT FROM "
            "   (SELECT embedder FROM embedding_config)) AS stale_embeddings,"
            " count(*) FILTER (WHERE u.embedding IS NOT NULL AND u.embedder = "
            "   (SELECT embedder FROM embedding_config)"
            "   AND vector_dims(u.embedding) <> (SELECT dim FROM embedding_config))"
            "   AS dimension_mismatches,"
            " NULL::bigint AS stale_analysis"
            " FROM canonical_principles u WHERE {scope}"
        ).format(scope=corpus.scope("u"))
        row = one(conn.execute(query, corpus.scope_params()))
        out.setdefault(corpus.key, {})["canonical_statements"] = dict(row)
    for corpus in image_corpora():
        query = sql.SQL(
            "SELECT count(*) AS units,"
            " count(*) FILTER (WHERE u.embedding IS NULL) AS missing_embeddings,"
            " CASE WHEN %(image_embedder)s::text IS NOT NULL THEN"
            "   count(*) FILTER (WHERE u.embedding IS NOT NULL AND ({stale})) END"
            "   AS stale_embeddings,"
            " CASE WHEN %(image_embedder)s::text IS NOT NULL THEN"
            "   count(*) FILTER (WHERE u.embedding IS NOT NULL AND u.embedder = %(image_embedder)s"
            "   AND vector_dims(u.embedding) <> %(image_dim)s) END AS dimension_mismatches,"
            " NULL::bigint AS stale_analysis,"
            " CASE WHEN %(image_embedder)s::text IS NULL THEN count(*) ELSE 0 END AS unchecked"
            " FROM {table} u WHERE {scope}"
        ).format(stale=_IMAGE_STALE, table=sql.Identifier(corpus.images), scope=corpus.scope("u"))
        params = {**corpus.scope_params(), "image_embedder": image_embedder, "image_dim": image_dim}
        out.setdefault(corpus.key, {})["page_images"] = dict(one(conn.execute(query, params)))
    return out


def _pages(conn: Conn, query: sql.Composed, params: dict, batch: int):
    after = 0
    while True:
        rows = conn.execute(query, {**params, "after": after, "batch": batch}).fetchall()
        if not rows:
            return
        yield rows
        after = rows[-1]["id"]


def stale_units(conn: Conn, units: TextUnits, analyzer: str, batch: int) -> Iterator[list[dict]]:
    """Batches of principles or precedents needing a new embedding or a new analysis."""
    query = sql.SQL(
        "SELECT u.id, u.{text} AS text, u.text_hash, ({stale}) AS needs_embedding,"
        " u.analyzer IS DISTINCT FROM %(analyzer)s AS needs_analysis"
        " FROM {table} u WHERE {scope} AND ({stale} OR u.analyzer IS DISTINCT FROM %(analyzer)s)"
        " AND u.id > %(after)s ORDER BY u.id LIMIT %(batch)s"
    ).format(
        text=sql.Identifier(units.text_column),
        stale=_UNIT_STALE,
        table=sql.Identifier(units.table),
        scope=units.corpus.scope("u"),
    )
    yield from _pages(conn, query, {**units.corpus.scope_params(), "analyzer": analyzer}, batch)


def update_units(
    conn: Conn, units: TextUnits, rows: list[dict], *, embedder: str, analyzer: str
) -> None:
    """Store a batch of re-embedded and/or re-analyzed principles or precedents (rows as for
    `update_chunks`) in one UPDATE through the root, pinned to the corpus. Only the embedding
    and analysis columns change: a decided principle's rule and quote stay frozen (0010)."""
    _update_embedded(conn, units.root, units.corpus, rows, embedder=embedder, analyzer=analyzer)


def stale_canonicals(conn: Conn, corpus: Corpus, batch: int) -> Iterator[list[dict]]:
    """Batches of a corpus's canonical principles whose statement needs an embedding."""
    query = sql.SQL(
        "SELECT u.id, coalesce(u.canonical_statement, u.rule_text) AS text"
        " FROM canonical_principles u WHERE {scope} AND ({stale})"
        " AND u.id > %(after)s ORDER BY u.id LIMIT %(batch)s"
    ).format(scope=corpus.scope("u"), stale=_CANONICAL_STALE)
    yield from _pages(conn, query, corpus.scope_params(), batch)


def update_canonicals(conn: Conn, corpus: Corpus, rows: list[dict], *, embedder: str) -> int:
    """Store statement embeddings (`id`, `text` embedded, `embedding`); a statement that changed
    since it was read keeps its row untouched. Returns the rows updated."""
    query = sql.SQL(
        "UPDATE canonical_principles u SET embedding = v.embedding, embedder = %(embedder)s"
        " FROM unnest(%(ids)s::bigint[], %(texts)s::text[], %(embeddings)s::vector[])"
        " AS v(id, text, embedding)"
        " WHERE u.id = v.id AND {scope} AND coalesce(u.canonical_statement, u.rule_text) = v.text"
    ).format(scope=corpus.scope("u"))
    return conn.execute(
        query,
        {
            "embedder": embedder,
            "ids": [r["id"] for r in rows],
            "texts": [r["text"] for r in rows],
            "embeddings": [r["embedding"] for r in rows],
            **corpus.scope_params(),
        },
    ).rowcount


def stale_page_images(
    conn: Conn, corpus: Corpus, image_embedder: str, batch: int
) -> Iterator[list[dict]]:
    """Batches of a corpus's page images not embedded by `image_embedder` from their image, with
    where their item's file was read from (to render the page again if the cache lacks it)."""
    query = sql.SQL(
        "SELECT u.id, u.{fk} AS item_id, u.page, u.text_hash, i.source_path, i.source_format"
        " FROM {table} u JOIN {items} i ON i.id = u.{fk} AND {item_scope}"
        " WHERE {scope} AND ({stale}) AND u.id > %(after)s ORDER BY u.id LIMIT %(batch)s"
    ).format(
        fk=sql.Identifier(corpus.parent_column),
        table=sql.Identifier(corpus.images),
        items=sql.Identifier(corpus.items),
        item_scope=corpus.scope("i"),
        scope=corpus.scope("u"),
        stale=_IMAGE_STALE,
    )
    params = {**corpus.scope_params(), "image_embedder": image_embedder}
    yield from _pages(conn, query, params, batch)


def update_page_images(conn: Conn, corpus: Corpus, rows: list[dict], *, embedder: str) -> int:
    """Store page-image embeddings (`id`, `text_hash` of the image embedded, `embedding`) through
    the root, pinned to the corpus; an image replaced since it was read is left alone."""
    source = corpus.image_source
    if source is None:
        raise InvalidInput(f"corpus {corpus.key!r} keeps no page images")
    query = sql.SQL(
        "UPDATE {root} u SET embedding = v.embedding, embedder = %(embedder)s,"
        " embedded_hash = v.text_hash"
        " FROM unnest(%(ids)s::bigint[], %(hashes)s::text[], %(embeddings)s::vector[])"
        " AS v(id, text_hash, embedding)"
        " WHERE u.id = v.id AND {scope} AND u.text_hash = v.text_hash"
    ).format(root=sql.Identifier(source.root), scope=corpus.scope("u"))
    return conn.execute(
        query,
        {
            "embedder": embedder,
            "ids": [r["id"] for r in rows],
            "hashes": [r["text_hash"] for r in rows],
            "embeddings": [r["embedding"] for r in rows],
            **corpus.scope_params(),
        },
    ).rowcount
