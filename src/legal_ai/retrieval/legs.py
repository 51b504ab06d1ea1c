"""The retrieval legs. Each is composed from the corpus registry, so every statement is scoped to
one corpus: it reads the corpus's own partition (`u`), joins its item table (`i`) under the
corpus's scope predicate, and sees only searchable items and fresh units.

- semantic: cosine distance over unit embeddings; HNSW with pgvector's iterative scan (bounded by
  `hnsw.max_scan_tuples`, set per transaction) so a filtered search still fills its window,
  re-sorted exactly afterwards.
- reference: the sections and rulings a query names (`סעיף 152`, `סעיף 14 לתוספת השלישית`,
  `עע"מ 1234/05`), matched exactly against the items' statute section (`eid`, `law_title`) or case
  number; each matching item contributes its first chunk, in the order the query names them.
- lexical: BM25 over the selective query terms' postings (`lexical_postings`: each unit's term
  frequency, token count and practice area, kept by triggers), with idf and average length from
  the `lexicon` tables; under a practice-area filter only its postings are read and counted;
  the best-scored units checked one by one until the window is full, or, under another
  filter, one join with the filter's rows.

The filters (which each corpus honours, and their predicate) are retrieval/filters.py.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
from contextlib import nullcontext
from dataclasses import dataclass
from typing import LiteralString

import numpy as np
from psycopg import sql

from ..corpora import Corpus, Source
from ..store.rows import Conn, one
from ..text import citations
from ..text.case_numbers import normalize_case_number
from .filters import SUPPORTED_FILTERS as SUPPORTED_FILTERS
from .filters import Filters, filter_sql
from .filters import check_filters as check_filters


def _from(corpus: Corpus, source: Source) -> sql.Composable:
    if corpus.item_table is None or source.parent_column is None:
        return sql.SQL("{} u").format(sql.Identifier(source.table))
    return sql.SQL("{} u JOIN {} i ON i.id = u.{}").format(
        sql.Identifier(source.table),
        sql.Identifier(corpus.items),
        sql.Identifier(source.parent_column),
    )


def _unit_predicates(source: Source) -> sql.Composable:
    fresh = sql.SQL("u.embedder = %(embedder)s AND NOT u.stale")
    if source.condition:
        return sql.SQL("{} AND {}").format(fresh, sql.SQL(source.condition))
    return fresh


def semantic(
    conn: Conn,
    corpus: Corpus,
    source: Source,
    filters: Filters,
    vector: np.ndarray,
    *,
    embedder: str,
    dim: int,
    window: int,
    max_scan_tuples: int,
    ef_search: int | None = None,
    configured: bool = False,
    area: AreaLookup | None = None,
) -> list[int]:
    """Unit ids of the `window` nearest units by cosine distance, best first. `configured`:
    the caller already ran `configure_hnsw` in the connection's open transaction (one round
    trip per search instead of three per leg). `ef_search`: the base that the source's
    partition size scales (`scaled_ef_search`); None leaves the connection's own setting.
    `area`: the filter's practice area as the caller's `area_lookup` read it (its `indexed`
    partitions let the area's own HNSW index serve the leg); None reads it here, one round trip
    more under the filter. An area no item of the corpus holds finds nothing without a scan."""
    if area is None:
        area = area_lookup(conn, corpus, filters, embedder)
    if area.empty:
        return []
    query, arguments = semantic_statement(
        corpus,
        source,
        filters,
        vector,
        embedder=embedder,
        dim=dim,
        window=window,
        indexed=area.indexed,
    )
    # Configured: inside the caller's transaction; else in one of its own.
    with nullcontext() if configured else conn.transaction():
        if not configured:
            configure_hnsw(conn, max_scan_tuples=max_scan_tuples)
        if ef_search is not None:
            conn.execute(*scaled_ef_search(source, ef_search))
        rows = conn.execute(query, arguments).fetchall()
    return [r["id"] for r in rows]


def semantic_pipelined(
    conn: Conn,
    corpus: Corpus,
    filters: Filters,
    vector: np.ndarray,
    *,
    embedder: str,
    dim: int,
    window: int,
    ef_search: int,
    indexed: frozenset[str] = frozenset(),
) -> dict[str, list[int]]:
    """The semantic leg of every source of `corpus` in one round trip (a pipeline; the
    connection's iterative-scan settings are the caller's), each source's scan with the
    ef_search its partition's size asks for (`scaled_ef_search` of the base `ef_search`):
    source kind -> unit ids, nearest first. `indexed`: the partitions with the filter's
    practice area's own index (`area_lookup`, read by the caller before the vector exists)."""
    cursors = []
    with conn.pipeline():
        for source in corpus.sources:
            conn.execute(*scaled_ef_search(source, ef_search))
            cursors.append(
                conn.execute(
                    *semantic_statement(
                        corpus,
                        source,
                        filters,
                        vector,
                        embedder=embedder,
                        dim=dim,
                        window=window,
                        indexed=indexed,
                    )
                )
            )
    return {
        source.kind: [r["id"] for r in cursor.fetchall()]
        for source, cursor in zip(corpus.sources, cursors, strict=True)
    }


# ef_search grows with the square root of the partition's size from `hnsw_ef_search` at this many
# rows (where that base was measured: recall@10 0.95 at 40,000 chunks), up to pgvector's 1,000:
# 100 at 40k rows, 200 at 160k, 317 at 400k, 1,000 from 4 million (docs/benchmarks.md).
EF_SEARCH_REFERENCE_ROWS = 40_000
EF_SEARCH_MAX = 1000


def scaled_ef_search(source: Source, base: int) -> tuple[LiteralString, dict]:
    """The statement that sets hnsw.ef_search for the rest of the transaction from the size of
    the source's partition (the planner's row estimate, pg_class.reltuples: no scan; -1 before
    the first ANALYZE counts as empty): base * sqrt(rows / EF_SEARCH_REFERENCE_ROWS), never
    below the base nor above EF_SEARCH_MAX."""
    return (
        "SELECT set_config('hnsw.ef_search', LEAST(%(most)s, GREATEST(%(base)s,"
        " CEIL(%(base)s * SQRT(GREATEST(c.reltuples, 0) / %(reference)s))))::int::text, true)"
        " FROM pg_class c WHERE c.oid = %(partition)s::regclass",
        {
            "base": int(base),
            "most": EF_SEARCH_MAX,
            "reference": float(EF_SEARCH_REFERENCE_ROWS),
            "partition": source.table,
        },
    )


def semantic_statement(
    corpus: Corpus,
    source: Source,
    filters: Filters,
    vector: np.ndarray,
    *,
    embedder: str,
    dim: int,
    window: int,
    indexed: frozenset[str] = frozenset(),
) -> tuple[sql.Composed, dict]:
    """The statement of `semantic` and its parameters (rows: `id`, nearest first), for a caller
    that sends several at once (search.py pipelines the legs of a corpus's sources). Under a
    practice-area filter, where the source's partition is in `indexed` (`area_lookup`), the
    chunk's own copy of the area (kept equal to its item's by the database) stands for the
    item's, so that the area's index serves the leg: both in one statement made the planner
    multiply their selectivities (33 rows expected of 1,000 at 100k chunks) and sort the area's
    rows exactly (4.9 ms) instead of reading its index (0.6 ms). Elsewhere the item's area
    filters, as it always did: the chunk's alone, with no index of it, made the planner scan
    the whole partition for an area that has none (190 ms at 1M chunks)."""
    own_area = (
        filters.practice_area is not None and _has_area(corpus, source) and source.table in indexed
    )
    area = _area_predicate(filters, embedder) if own_area else sql.SQL("")
    where, params = filter_sql(
        corpus, dataclasses.replace(filters, practice_area=None) if own_area else filters
    )
    # The cast's dimension is a type modifier taken from the embedder, not a value.
    vec_type = sql.SQL("vector({})").format(sql.SQL(str(int(dim))))
    query = sql.SQL(
        "WITH nearest AS MATERIALIZED ("
        " SELECT u.id, (u.embedding::{vt}) <=> %(qvec)s::{vt} AS distance FROM {src}"
        " WHERE {where} AND {unit}{area}"
        " ORDER BY (u.embedding::{vt}) <=> %(qvec)s::{vt} LIMIT %(window)s)"
        " SELECT id FROM nearest ORDER BY distance, id"
    ).format(
        vt=vec_type,
        src=_from(corpus, source),
        where=where,
        unit=_unit_predicates(source),
        area=area,
    )
    return query, {**params, "embedder": embedder, "qvec": vector, "window": window}


def _area_predicate(filters: Filters, embedder: str) -> sql.Composable:
    """Under a practice-area filter, a chunk's own copy of its item's area (migration 0052: kept
    equal to it by the database) and its embedder, as constants: a partial HNSW index of the
    area (`practice_area_indexes()`) serves the leg only when the planner can prove its
    predicate, which a parameter of a generic plan does not let it. Quoted by psycopg
    (sql.Literal), never spliced. The answer is the same with or without the area's index
    (`LEGAL_AI_SEARCH_AREA_INDEXES=false` filters on the item's own area)."""
    return sql.SQL(" AND u.embedder = {} AND u.practice_area = {}").format(
        sql.Literal(embedder), sql.Literal(filters.practice_area)
    )


# The item tables whose practice area is indexed (migration 0054) and copied onto their chunks
# (migration 0052).
_AREA_ITEMS = ("documents", "case_law")


@dataclass(frozen=True)
class AreaLookup:
    """What a practice-area filter is, read before any vector exists: the chunk partitions that
    hold the area's own HNSW index (`indexed`), and whether no item of the corpus is in the
    area at all (`empty`: the semantic legs then find nothing without reading a graph)."""

    indexed: frozenset[str] = frozenset()
    empty: bool = False


NO_AREA = AreaLookup()


def area_lookup(conn: Conn, corpus: Corpus, filters: Filters, embedder: str) -> AreaLookup:
    """The filter's practice area in `corpus`, in one round trip (NO_AREA without the filter, or
    for a corpus whose items are not documents or case law). An index of the area counts when it
    is an index of that partition named as `practice_area_indexes()` of migration 0052 names
    them (the partition, `_area_` and the first 12 hex digits of md5(embedder/area)), not another
    relation of the name; an area that appeared since `legal-ai db area-indexes` last ran has
    none yet. `empty` asks the items' index of their area (migration 0054) whether any item of
    the corpus, searchable or not, holds it: without one, the leg walked the partition's whole
    graph to `hnsw.max_scan_tuples` (63 / 135 ms at 1,000,000 chunks) to answer nothing."""
    if filters.practice_area is None or corpus.item_table not in _AREA_ITEMS:
        return NO_AREA
    tables = [s.table for s in corpus.sources if _has_area(corpus, s)]
    row = one(
        conn.execute(
            sql.SQL(
                "SELECT ARRAY(SELECT t FROM unnest(%(tables)s::text[]) AS t WHERE EXISTS ("
                " SELECT FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid"
                " WHERE x.indrelid = t::regclass"
                " AND c.relname = t || '_area_' || left(md5(%(embedder)s || '/' || %(area)s), 12)"
                ")) AS indexed,"
                " NOT EXISTS (SELECT FROM {items} i WHERE {scope} AND i.practice_area = %(area)s)"
                " AS empty"
            ).format(items=sql.Identifier(corpus.item_table), scope=corpus.scope("i")),
            {
                "tables": tables,
                "embedder": embedder,
                "area": filters.practice_area,
                **corpus.scope_params(),
            },
        )
    )
    return AreaLookup(frozenset(row["indexed"]), bool(row["empty"]))


def _has_area(corpus: Corpus, source: Source) -> bool:
    """Whether the source's units carry their item's practice area (migration 0052)."""
    return source.kind == "chunk" and corpus.item_table in _AREA_ITEMS


def configure_hnsw(conn: Conn, *, max_scan_tuples: int) -> None:
    """pgvector's iterative-scan settings for the rest of the connection's transaction: the
    iterative scan (relaxed order: `semantic` re-sorts exactly) and its bound (ef_search is set
    per partition: `scaled_ef_search`)."""
    conn.execute(
        "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true),"
        " set_config('hnsw.max_scan_tuples', %s, true)",
        [str(int(max_scan_tuples))],
    )


# BM25 (Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond", 2009).
BM25_K1 = 1.2
BM25_B = 0.75


def lexicon_source(corpus: Corpus, source: Source) -> str:
    """The name the BM25 statistics (`lexicon`, `lexical_postings`) give the source's table."""
    return source.root + (f"_{corpus.scope_value}" if corpus.scope_value else "")


@dataclass(frozen=True)
class LexicalQuery:
    terms: list[str]
    idf: list[float]
    avg_length: float


def lexical_query(
    conn: Conn,
    corpus: Corpus,
    source: Source,
    terms: list[str],
    budget: int,
    practice_area: str | None = None,
) -> LexicalQuery | None:
    """The query terms worth matching in this table, with their idf. Terms absent from the
    table are dropped; the rest are kept rarest first while their summed document frequency
    stays within `budget` (the rarest is always kept). This bounds the rows BM25 must score and
    drops the common words that rank nothing. Under a `practice_area` the budget is counted
    within it (migration 0051): a term's frequency there is the units of that practice area
    holding it (`lexical_area_df`), terms absent there are dropped, and the rest kept rarest
    there first (ties: rarest in the table, then the term); idf and the average length stay
    the table's. None when no term occurs (in the area)."""
    if not terms:
        return None
    key = lexicon_source(corpus, source)
    # One round trip on the hot path: the table's size beside each present term's frequency
    # (and, filtered, its frequency within the practice area).
    within = sql.SQL(
        "coalesce((SELECT a.df FROM lexical_area_df a WHERE a.source = s.source"
        " AND a.term = l.term AND a.practice_area = %(area)s), 0)"
        if practice_area is not None
        else "l.df"
    )
    found = conn.execute(
        sql.SQL(
            "SELECT l.term, l.df, {} AS within, s.units, s.tokens FROM lexicon_size s"
            " JOIN lexicon l ON l.source = s.source AND l.term = ANY(%(terms)s) AND l.df > 0"
            " WHERE s.source = %(source)s AND s.units > 0"
        ).format(within),
        {"terms": terms, "source": key, "area": practice_area},
    ).fetchall()
    found = sorted(
        (r for r in found if r["within"] > 0), key=lambda r: (r["within"], r["df"], r["term"])
    )
    if not found:
        return None
    size = found[0]
    units = size["units"]
    kept: list[str] = []
    idf: list[float] = []
    total = 0
    for row in found:
        if kept and total + row["within"] > budget:
            break
        kept.append(row["term"])
        idf.append(math.log(1 + (units - row["df"] + 0.5) / (row["df"] + 0.5)))
        total += row["within"]
    return LexicalQuery(kept, idf, max(size["tokens"] / units, 1.0))


# Unfiltered (or filtered by practice area alone, which the postings hold), nearly every
# best-scored unit is eligible: each is checked by its primary key in score order (a scalar
# subquery, kept in the sorted order) until the window is full. Filtered otherwise, the scored
# units are joined with the filter's own rows once (the planner picks the side to start from:
# a selective filter reads only its rows), then sorted: the check per unit would visit about
# twenty scored units per hit under a 5 % filter.
_UNFILTERED = sql.SQL(
    "ORDER BY score DESC, id OFFSET 0)"
    " SELECT s.id FROM scored s"
    " WHERE (SELECT true FROM {src} WHERE u.id = s.id AND {where} AND {unit})"
    " LIMIT %(window)s"
)
_FILTERED = sql.SQL(
    ") SELECT s.id FROM scored s JOIN {src} ON u.id = s.id WHERE {where} AND {unit}"
    " ORDER BY s.score DESC, s.id LIMIT %(window)s"
)


def filtered(filters: Filters) -> bool:
    """Whether the search narrows its corpus by any filter."""
    return any(value is not None for value in filters.__dict__.values())


def postings_area(corpus: Corpus, filters: Filters) -> str | None:
    """The practice area the lexical leg reads the postings of (None: every one): the filter's,
    where the corpus filters by it (its items carry it; the postings carry their item's)."""
    if "practice_area" in corpus.columns and corpus.item_table is not None:
        return filters.practice_area
    return None


def lexical(
    conn: Conn,
    corpus: Corpus,
    source: Source,
    filters: Filters,
    terms: list[str],
    *,
    embedder: str,
    window: int,
    budget: int = 1000,
) -> list[int]:
    """Unit ids holding any selective analyzed query term, ranked by BM25, best first. The
    scores come from the kept terms' postings alone (`lexical_postings`, migration 0043: term,
    practice area, unit, term frequency and token count in one covering index, read in term
    order without touching a unit's row); under a practice-area filter only that area's
    postings are read, counted and scored (0051); the scope, freshness and other filters are
    checked after scoring (`_UNFILTERED`, `_FILTERED`)."""
    area = postings_area(corpus, filters)
    query = lexical_query(conn, corpus, source, terms, budget, area)
    if query is None:
        return []
    where, params = filter_sql(corpus, filters)
    rest = filtered(dataclasses.replace(filters, practice_area=None) if area else filters)
    statement = sql.SQL(
        "WITH qt AS (SELECT * FROM unnest(%(terms)s::text[], %(idf)s::float8[]) AS t(term, idf)),"
        " scored AS (SELECT p.unit_id AS id, sum(qt.idf * p.tf * (%(k1)s + 1)"
        "   / (p.tf + %(k1)s * (1 - %(b)s + %(b)s * p.token_count / %(avgdl)s))) AS score"
        "   FROM qt JOIN lexical_postings p ON p.source = %(source)s AND p.term = qt.term{area}"
        "   GROUP BY p.unit_id {rest}"
    ).format(
        area=sql.SQL(" AND p.practice_area = %(postings_area)s" if area else ""),
        rest=(_FILTERED if rest else _UNFILTERED).format(
            src=_from(corpus, source), where=where, unit=_unit_predicates(source)
        ),
    )
    rows = conn.execute(
        statement,
        {
            **params,
            "embedder": embedder,
            "source": lexicon_source(corpus, source),
            "postings_area": area,
            "terms": query.terms,
            "idf": query.idf,
            "k1": BM25_K1,
            "b": BM25_B,
            "avgdl": query.avg_length,
            "window": window,
        },
    ).fetchall()
    return [r["id"] for r in rows]


@dataclass(frozen=True)
class Reference:
    """One exact lookup (its values passed as parameters): a statute section by a regular
    expression for its eId and law; a ruling by its whole identity (text/case_numbers); a
    reporter citation by the aliases of the library's rulings."""

    column: str  # eid | ruling | alias | case_number (a regular expression: the audit's probe)
    pattern: str  # eid: a regular expression; ruling: number/year; alias: the reporter ref
    law_pattern: str = ""  # for eid: the law_title must match this too ("" = any law)
    proceeding: str = ""  # for ruling: its proceeding (an item recording none fits too)
    district: str = ""  # for ruling: its district ("" = any; an item recording none fits too)


_ORDINAL_STEMS = {"השנייה": "ה?שני[י]?ה"}
_LAW_PATTERNS = {citations.PBL: "התכנון והבני", citations.DEVIATION_REGS: "סטי[י]?ה ניכרת"}
_LAW_HEAD = re.compile(r"^(?:חוק|פקודת|תקנות|צו)\s+|,?\s+ה?תש[א-ת\"']+-\d{4}$")


def _law_pattern(law: str | None) -> str:
    """What a legislation item's law_title must hold for a section of `law` (any law: "")."""
    if not law:
        return ""
    return _LAW_PATTERNS.get(law) or re.escape(_LAW_HEAD.sub("", law))


def reference_for(citation: citations.Citation) -> Reference:
    """The exact lookup a citation names: a statute section by its Akoma Ntoso eId (how
    legislation is stored) and law, a ruling by its whole identity, a reporter citation by the
    aliases it is known by."""
    if citation.kind == "reporter":
        return Reference("alias", citation.ref)
    if citation.kind == "ruling":
        identity = citation.identity
        if identity is None:
            return Reference("ruling", citation.case_number or "", proceeding=citation.court or "")
        return Reference(
            "ruling",
            identity.number,
            proceeding=identity.proceeding or "",
            district=identity.district or "",
        )
    section = re.escape(citation.section or "")
    if citation.schedule:
        name = citation.schedule.split()[-1]
        stem = _ORDINAL_STEMS.get(name, "ה?" + re.escape(name.removeprefix("ה")))
        pattern = f"^appendix_{stem}(_[^_]+)*__point_{section}$"
    else:
        pattern = f"^point_{section}$"
    return Reference("eid", pattern, _law_pattern(citation.law))


# A search asks twice (the reference leg before the vector exists, the answer's identifiers
# after the legs): a pasted page's citations are read once (3 ms for 5,000 characters).
@functools.lru_cache(maxsize=256)
def named_references(
    query: str, limit: int | None = None
) -> tuple[tuple[citations.Citation | None, Reference], ...]:
    """The exact lookups a query asks for, each with the citation that names it (None: the
    query is a bare case number): the statute sections it names (a bare `סעיף 152` included),
    then the rulings; at most `limit` distinct ones (each is a regular expression matched
    against the corpus's items, so a query listing hundreds of sections must not fan out into
    hundreds of lookups: LEGAL_AI_REFERENCE_LOOKUPS_PER_QUERY). A query that is nothing but a
    number/year (`8092/24`, the form her cases are known by) names the items of that number
    whatever their proceeding and district."""
    named = [c for c in citations.extract(query, bare_sections=True) if c.kind != "plan"]
    ordered = sorted(named, key=lambda c: c.kind != "statute")  # stable: sections first
    pairs: list[tuple[citations.Citation | None, Reference]] = [
        (c, reference_for(c)) for c in ordered
    ]
    bare = _bare_number(query)
    if bare is not None and not named:
        pairs.append((None, bare))
    seen: set[Reference] = set()
    unique = []
    for c, r in pairs:
        if r not in seen:
            seen.add(r)
            unique.append((c, r))
    return tuple(unique if limit is None else unique[:limit])


def references(query: str, limit: int | None = None) -> list[Reference]:
    """The exact lookups a query asks for (`named_references` without the citations)."""
    return [r for _, r in named_references(query, limit)]


_BARE_NUMBER = re.compile(r"^\d{1,6}/\d{2}(?:\d{2}|/\d{2})?$")


def _bare_number(query: str) -> Reference | None:
    """A query that is one number/year and nothing else (`8092/24`, `8092-24`): every item of
    that number, whatever its proceeding and district (its stored case number ends with it)."""
    spelled = normalize_case_number(query)
    if not _BARE_NUMBER.match(spelled):
        return None
    return Reference("case_number", f"(^| ){re.escape(spelled)}$")


# How a lookup of each kind (`Reference.column`) matches an item `i` of the row `p` of lookups.
_REFERENCE_MATCH: dict[str, LiteralString] = {
    "eid": "i.eid IS NOT NULL AND i.eid ~ p.pattern AND coalesce(i.law_title, '') ~ p.law",
    "alias": "i.aliases @> ARRAY[p.pattern]",
    "ruling": "i.ruling_number = p.pattern"
    " AND coalesce(i.ruling_proceeding, p.proceeding) = p.proceeding"
    " AND (p.district = '' OR coalesce(i.ruling_district, p.district) = p.district)",
    "case_number": "i.case_number ~ p.pattern",
}


def reference(
    conn: Conn,
    corpus: Corpus,
    source: Source,
    filters: Filters,
    lookups: list[Reference],
    *,
    embedder: str,
    window: int,
) -> list[int]:
    """The first fresh chunk of every item a lookup matches, in the order of the lookups."""
    if not lookups or corpus.item_table != "case_law" or source.kind != "chunk":
        return []
    where, params = filter_sql(corpus, filters)
    # One branch per kind of lookup the query makes, each with a condition the planner can
    # narrow by (an item with an eId, its aliases' index, its ruling number's): one CASE over
    # every kind made it join every item of the corpus with every lookup (48 ms at 1M chunks
    # for a query naming one section, 130 ms for a long query naming six).
    branches = sql.SQL(" UNION ALL ").join(
        sql.SQL(
            "SELECT i.id AS item, u.id, p.n, u.ordinal FROM {src} JOIN p"
            " ON p.col = {kind} AND {match} WHERE {where} AND {unit}"
        ).format(
            src=_from(corpus, source),
            kind=sql.Literal(kind),
            match=sql.SQL(_REFERENCE_MATCH[kind]),
            where=where,
            unit=_unit_predicates(source),
        )
        for kind in sorted({r.column for r in lookups})
    )
    statement = sql.SQL(
        "WITH p AS (SELECT * FROM unnest(%(columns)s::text[], %(patterns)s::text[],"
        "   %(laws)s::text[], %(proceedings)s::text[], %(districts)s::text[])"
        "   WITH ORDINALITY AS t(col, pattern, law, proceeding, district, n))"
        " SELECT DISTINCT ON (item) id, n FROM ({branches}) AS found"
        " ORDER BY item, n, ordinal"
    ).format(branches=branches)
    rows = conn.execute(
        statement, {**params, "embedder": embedder, **lookup_arrays(lookups)}
    ).fetchall()
    return [r["id"] for r in sorted(rows, key=lambda r: (r["n"], r["id"]))][:window]


def lookup_arrays(lookups: list[Reference]) -> dict[str, list[str]]:
    """The lookups as the reference statement's parameters: one array per field, in order (the
    statement unnests them WITH ORDINALITY: a lookup's place is its `n`)."""
    return {
        "columns": [r.column for r in lookups],
        "patterns": [r.pattern for r in lookups],
        "laws": [r.law_pattern for r in lookups],
        "proceedings": [r.proceeding for r in lookups],
        "districts": [r.district for r in lookups],
    }


# What each kind of unit reports; `item_id` groups hits for the diversity cap.
_ITEM_FIELDS = {
    # A decision's header (its party lines name the parties its citation gives: text/
    # citation_style.py) for the chair's finals and the committee's decisions.
    "documents": "i.doc_id, i.title, i.doc_type, i.case_number, NULL::text AS court,"
    " NULL::date AS decided_on, i.practice_area, NULL::bigint AS case_law_id,"
    " i.id AS document_id, NULL::text AS source_kind,"
    " CASE WHEN i.corpus = 'style' THEN left(i.content, 1500) END AS header",
    "case_law": "i.doc_id, i.title, i.doc_type, i.case_number, i.court, i.decided_on,"
    " i.practice_area, i.id AS case_law_id, NULL::bigint AS document_id, i.source_kind,"
    " i.is_binding, i.law_title, i.section_num, i.eid,"
    " CASE WHEN i.source_kind = 'internal_committee' THEN left(i.content, 1500) END AS header",
    "digests": "i.doc_id, i.title, i.doc_type, i.points_to AS case_number, i.publisher AS court,"
    " i.published_on AS decided_on, i.practice_area, i.case_law_id,"
    " NULL::bigint AS document_id, NULL::text AS source_kind, i.points_to",
}
_UNIT_FIELDS = {
    "chunk": "u.id AS unit_id, u.{parent} AS item_id, u.page, u.char_start, u.char_end,"
    " u.text AS snippet, NULL::text AS supporting_quote, u.section",
    "principle": "u.id AS unit_id, u.case_law_id AS item_id, u.page, u.char_start, u.char_end,"
    " u.rule_text AS snippet, u.supporting_quote, NULL::text AS section,"
    # How many decisions cite the ruling (authorities.corroboration), and the canonical
    # statement once the chair approved it.
    " ruling_corroboration(u.case_law_id) AS corroboration,"
    " (SELECT coalesce(k.canonical_statement, k.rule_text) FROM canonical_principles k"
    "  WHERE k.id = u.canonical_id AND k.status = 'approved') AS canonical_statement,"
    # Who approved it (the chair, or the panel with its votes), and whether she confirmed it.
    " u.review_status, u.reviewed_by, u.votes, u.score,"
    " principle_for_writer(u.review_status, u.reviewed_by, u.confirmed_by) AS confirmed",
}
_UNIT_FIELDS["page"] = (
    "u.id AS unit_id, u.{parent} AS item_id, u.page, i.page_starts[u.page] AS char_start,"
    " coalesce(i.page_starts[u.page + 1] - 2, length(i.content)) AS char_end,"
    " substr(i.content, i.page_starts[u.page] + 1,"
    "   least(400, coalesce(i.page_starts[u.page + 1] - 2, length(i.content))"
    "   - i.page_starts[u.page])) AS snippet,"
    " NULL::text AS supporting_quote, NULL::text AS section"
)
_PRECEDENT_FIELDS = (
    "u.id AS unit_id, u.id AS item_id, NULL::integer AS page, NULL::integer AS char_start,"
    " NULL::integer AS char_end, u.search_text AS snippet, NULL::text AS supporting_quote,"
    " NULL::text AS section, 'precedent:' || u.id AS doc_id, u.citation AS title,"
    " 'citation' AS doc_type, u.case_number, NULL::text AS court, NULL::date AS decided_on,"
    " NULL::text AS practice_area, u.case_law_id, NULL::bigint AS document_id,"
    " NULL::text AS source_kind, u.citation, u.note"
)


def hydrate(conn: Conn, corpus: Corpus, source: Source, unit_ids: list[int]) -> dict[int, dict]:
    """Provenance fields of the given units, re-checked against the corpus scope."""
    if not unit_ids:
        return {}
    if corpus.item_table is None:
        fields = sql.SQL(_PRECEDENT_FIELDS)
    else:
        unit = _UNIT_FIELDS[source.kind].replace("{parent}", source.parent_column or "id")
        fields = sql.SQL(unit + ", " + _ITEM_FIELDS[corpus.item_table])
    query = sql.SQL("SELECT {fields} FROM {src} WHERE u.id = ANY(%(ids)s) AND {scope}").format(
        fields=fields,
        src=_from(corpus, source),
        scope=corpus.scope("i" if corpus.item_table else "u"),
    )
    rows = conn.execute(query, {"ids": unit_ids, **corpus.scope_params()}).fetchall()
    return {r["unit_id"]: r for r in rows}
