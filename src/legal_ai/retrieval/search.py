"""Hybrid search over one corpus: for each of the corpus's sources (chunks, approved principles,
or attached precedents) a semantic and a lexical leg; Reciprocal Rank Fusion of all legs; the
diversity cap; and provenance on every hit (DESIGN §4).

Every argument is checked before the database is touched (retrieval/arguments.py): the query and
each filter value are text, cleaned like stored text (no NUL, zero-width or bidi characters),
and bounded in length; case numbers take their canonical spelling; dates are YYYY-MM-DD; a
filter the corpus cannot apply is refused (InvalidInput naming the corpus's filters), never
ignored."""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from ..config import Settings
from ..corpora import Corpus
from ..providers.embedders import Embedder
from ..store.db import Store
from ..text.hebrew import get_analyzer
from ..text.synonyms import expand_query
from . import legs
from .arguments import MAX_FILTER_CHARS as MAX_FILTER_CHARS
from .arguments import MAX_LIMIT as MAX_LIMIT
from .arguments import MAX_QUERY_CHARS as MAX_QUERY_CHARS
from .arguments import MODES as MODES
from .arguments import checked
from .arguments import clean_query as clean_query
from .arguments import filter_value as filter_value
from .arguments import normalized_filters as normalized_filters
from .fusion import Fused, rrf
from .terms import approved_by, principle_term

SNIPPET_CHARS = 400


@dataclass
class SearchResult:
    """The hits and how many the diversity cap passed over. `timings`: milliseconds per phase
    (embedding — the model's own time, embedding_wait — how long the search waited for it after
    its lexical work, lexical, reference, semantic, image, hydrate, total); not part of the JSON."""

    hits: list[dict] = field(default_factory=list)
    dropped_by_cap: int = 0
    timings: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"hits": self.hits, "dropped_by_cap": self.dropped_by_cap}


def cap_per_item(
    fused: list[Fused], group_of: dict[Hashable, Hashable], limit: int, cap: int
) -> tuple[list[Fused], int]:
    """Keep at most `cap` hits per group (ruling, document, case), backfilling from further down
    the window so `limit` hits come back whenever that many eligible exist. Returns the kept
    hits and how many the cap passed over on the way."""
    kept: list[Fused] = []
    per_group: dict[Hashable, int] = {}
    dropped = 0
    for entry in fused:
        if len(kept) == limit:
            break
        group = group_of.get(entry.key)
        if group is None:
            continue
        if per_group.get(group, 0) >= cap:
            dropped += 1
            continue
        per_group[group] = per_group.get(group, 0) + 1
        kept.append(entry)
    return kept, dropped


def _leg_name(kind: str, leg: str) -> str:
    return leg if kind in ("chunk", "precedent") else f"{kind}_{leg}"


def search(
    store: Store,
    embedder: Embedder,
    settings: Settings,
    corpus_key: str,
    query: str,
    *,
    filters: legs.Filters | None = None,
    limit: int = 10,
    mode: str = "hybrid",
    vector: np.ndarray | None = None,
    group_by: Callable[[dict], Hashable] | None = None,
    cap: int | None = None,
    image_embedder: Embedder | None = None,
) -> SearchResult:
    """Search one corpus. `vector` replaces the query's embedding (find_similar_cases);
    `group_by`/`cap` change what the diversity cap counts (default: per ruling/document);
    `image_embedder` adds the weighted image leg when MULTIMODAL_ENABLED."""
    corpus, text, filters = checked(corpus_key, mode, limit, query, filters)
    cap = cap or settings.max_per_case_law
    use_semantic = mode in ("hybrid", "semantic")
    use_lexical = mode == "lexical" or (mode == "hybrid" and settings.bm25_hybrid_enabled)
    window = max(settings.leg_window, limit * cap)
    rows: dict[tuple[str, int], dict] = {}
    image_source = corpus.image_source if settings.multimodal_enabled and image_embedder else None
    use_image = image_source is not None and mode in ("hybrid", "semantic")
    timings: dict[str, float] = {}
    clock = time.perf_counter()
    # The query's embedding runs in a thread while the lexical and reference legs run in the
    # database (the model releases the GIL; a cached query returns at once). Alone (semantic
    # mode, or a given vector) there is nothing to overlap, so it runs inline.
    embedding: Future | None = None
    if use_semantic and vector is None and use_lexical:
        embedding = _submit(_timed_embedding, embedder, text)
    image_vector: Future | None = _submit(image_embedder.embed_query, text) if use_image else None
    found: dict[str, list[int]] = {}  # leg name -> unit ids, best first
    with store.connection() as conn:
        # The HNSW scan's settings once for the search's transaction (the connection is not in
        # autocommit: the pool's connections never are), while the model is still at work.
        configured = _configured(conn, settings, use_semantic or use_image)
        if use_lexical:
            _lexical_legs(conn, corpus, filters, text, settings, embedder, window, found, timings)
        if embedding is not None and not embedding.done():
            # While the model is still at work: the provenance of what the lexical legs found
            # (most of it is needed; it is read in time the search would spend waiting).
            _hydrate_found(conn, corpus, found, rows, timings)
        if use_semantic:
            qvec = _query_vector(vector, embedding, embedder, text, timings)
            _semantic_legs(
                conn, corpus, filters, qvec, settings, embedder, window, configured, found, timings
            )
        if image_vector is not None:
            with _timer(timings, "image"):
                found["image"] = _image_leg(
                    conn,
                    corpus,
                    image_source,
                    filters,
                    image_vector,
                    image_embedder,
                    settings,
                    window,
                    configured,
                )
        fused = rrf(
            _rankings(corpus, found), k=settings.rrf_k, weights={"image": settings.image_weight}
        )
        sources = (*corpus.sources, *([image_source] if use_image else []))
        kept, dropped = _capped(conn, corpus, sources, fused, rows, group_by, limit, cap, timings)
    timings["total"] = (time.perf_counter() - clock) * 1000
    return SearchResult([_hit(corpus, rows[f.key], f) for f in kept], dropped, timings)


def _configured(conn, settings: Settings, needed: bool) -> bool:
    """Whether the HNSW scan's settings were set for the search's transaction (once, when a
    semantic or image leg runs and the connection is not in autocommit)."""
    configured = needed and not conn.autocommit
    if configured:
        legs.configure_hnsw(
            conn, max_scan_tuples=settings.hnsw_max_scan_tuples, ef_search=settings.hnsw_ef_search
        )
    return configured


def _image_leg(
    conn,
    corpus: Corpus,
    image_source,
    filters: legs.Filters,
    image_vector: Future,
    image_embedder: Embedder,
    settings: Settings,
    window: int,
    configured: bool,
) -> list[int]:
    return legs.semantic(
        conn,
        corpus,
        image_source,
        filters,
        image_vector.result(),
        embedder=image_embedder.id,
        dim=image_embedder.dim,
        window=window,
        max_scan_tuples=settings.hnsw_max_scan_tuples,
        ef_search=settings.hnsw_ef_search,
        configured=configured,
    )


def _lexical_legs(
    conn,
    corpus: Corpus,
    filters: legs.Filters,
    text: str,
    settings: Settings,
    embedder: Embedder,
    window: int,
    found: dict[str, list[int]],
    timings: dict[str, float],
) -> None:
    """The lexical and reference legs of every source of the corpus, into `found`."""
    lexical_text = expand_query(text) if settings.lexical_synonyms else text
    terms = get_analyzer(settings.analyzer).query_terms(lexical_text)
    lookups = legs.references(text, settings.reference_lookups_per_query)
    for source in corpus.sources:
        with _timer(timings, "lexical"):
            found[_leg_name(source.kind, "lexical")] = legs.lexical(
                conn,
                corpus,
                source,
                filters,
                terms,
                embedder=embedder.id,
                window=window,
                budget=settings.lexical_candidate_budget,
            )
        with _timer(timings, "reference"):
            found[_leg_name(source.kind, "reference")] = legs.reference(
                conn,
                corpus,
                source,
                filters,
                lookups,
                embedder=embedder.id,
                window=window,
            )


def _hydrate_found(
    conn,
    corpus: Corpus,
    found: dict[str, list[int]],
    rows: dict[tuple[str, int], dict],
    timings: dict[str, float],
) -> None:
    """The provenance of the units the lexical and reference legs found, into `rows`."""
    with _timer(timings, "hydrate"):
        for source in corpus.sources:
            wanted = sorted(
                {i for name, ids in found.items() for i in ids if _leg_kind(name, source.kind)}
            )
            for unit_id, row in legs.hydrate(conn, corpus, source, wanted).items():
                rows[(source.kind, unit_id)] = {**row, "kind": source.kind}


def _query_vector(
    vector: np.ndarray | None,
    embedding: Future | None,
    embedder: Embedder,
    text: str,
    timings: dict[str, float],
) -> np.ndarray:
    """The query's vector: the one given, the thread's, or embedded here."""
    if vector is not None:
        qvec = vector
    elif embedding is not None:
        with _timer(timings, "embedding_wait"):
            qvec, seconds = embedding.result()
        timings["embedding"] = seconds * 1000
    else:
        with _timer(timings, "embedding"):
            qvec = embedder.embed_query(text)
    return qvec


def _semantic_legs(
    conn,
    corpus: Corpus,
    filters: legs.Filters,
    qvec: np.ndarray,
    settings: Settings,
    embedder: Embedder,
    window: int,
    configured: bool,
    found: dict[str, list[int]],
    timings: dict[str, float],
) -> None:
    """The semantic leg of every source of the corpus, into `found`."""
    with _timer(timings, "semantic"):
        if configured:  # every source's statement in one round trip
            for source, ids in legs.semantic_pipelined(
                conn,
                corpus,
                filters,
                qvec,
                embedder=embedder.id,
                dim=embedder.dim,
                window=window,
            ).items():
                found[_leg_name(source, "semantic")] = ids
        for source in () if configured else corpus.sources:
            found[_leg_name(source.kind, "semantic")] = legs.semantic(
                conn,
                corpus,
                source,
                filters,
                qvec,
                embedder=embedder.id,
                dim=embedder.dim,
                window=window,
                max_scan_tuples=settings.hnsw_max_scan_tuples,
                ef_search=settings.hnsw_ef_search,
            )


def _rankings(corpus: Corpus, found: dict[str, list[int]]) -> dict[str, list[tuple[str, int]]]:
    """The legs in their fixed order (each source: semantic, lexical, reference; then image);
    a reference leg that matched nothing is no leg."""
    rankings: dict[str, list[tuple[str, int]]] = {}
    for source in corpus.sources:
        for leg in ("semantic", "lexical", "reference"):
            ids = found.get(_leg_name(source.kind, leg))
            if ids is not None and (ids or leg != "reference"):
                rankings[_leg_name(source.kind, leg)] = [(source.kind, i) for i in ids]
    if "image" in found:
        rankings["image"] = [("page", i) for i in found["image"]]
    return rankings


def _capped(
    conn,
    corpus: Corpus,
    sources: tuple,
    fused: list[Fused],
    rows: dict[tuple[str, int], dict],
    group_by: Callable[[dict], Hashable] | None,
    limit: int,
    cap: int,
    timings: dict[str, float],
) -> tuple[list[Fused], int]:
    """Provenance for as much of the fused list as the cap needs: a prefix of it, grown until
    `limit` hits are kept. A prefix never splits a tie of scores, so the tie-break below orders
    it as it would order the whole list. Returns the kept hits and how many the cap dropped."""
    grouping = group_by or (lambda row: row["item_id"])
    by_kind = {s.kind: s for s in sources}
    upto = 0
    asked = set(rows)
    while True:
        upto = _prefix_end(fused, upto + limit * cap)
        missing = [f.key for f in fused[:upto] if f.key not in asked]
        asked.update(missing)
        if missing:
            with _timer(timings, "hydrate"):
                for kind, source in by_kind.items():
                    wanted = [key[1] for key in missing if key[0] == kind]
                    for unit_id, row in legs.hydrate(conn, corpus, source, wanted).items():
                        rows[(kind, unit_id)] = {**row, "kind": kind}
        # A tie of fused scores between principles goes to the one whose ruling more
        # decisions cite (corroboration); everything else keeps the RRF order (stable).
        ordered = sorted(
            fused[:upto],
            key=lambda f: (-f.score, -((rows.get(f.key) or {}).get("corroboration") or 0)),
        )
        group_of = {f.key: grouping(rows[f.key]) for f in ordered if f.key in rows}
        kept, dropped = cap_per_item(ordered, group_of, limit, cap)
        if len(kept) == limit or upto >= len(fused):
            return kept, dropped


# Query embeddings run here while a search's SQL runs (one task per search that needs both).
_EMBEDDING_THREADS = ThreadPoolExecutor(max_workers=8, thread_name_prefix="legal-ai-query")


def _submit(function: Callable, *args: object) -> Future:
    return _EMBEDDING_THREADS.submit(function, *args)


def _timed_embedding(embedder: Embedder, text: str) -> tuple[np.ndarray, float]:
    started = time.perf_counter()
    vector = embedder.embed_query(text)
    return vector, time.perf_counter() - started


@contextmanager
def _timer(timings: dict[str, float], name: str) -> Iterator[None]:
    """Add the milliseconds spent in the block to timings[name]."""
    started = time.perf_counter()
    try:
        yield
    finally:
        timings[name] = timings.get(name, 0.0) + (time.perf_counter() - started) * 1000


def _prefix_end(fused: list[Fused], end: int) -> int:
    """`end`, moved past any entries tied in score with the one before it (at most len)."""
    end = min(end, len(fused))
    while 0 < end < len(fused) and fused[end].score == fused[end - 1].score:
        end += 1
    return end


def _leg_kind(leg: str, kind: str) -> bool:
    """Whether the leg named `leg` ranks units of source kind `kind`."""
    return leg in (_leg_name(kind, "lexical"), _leg_name(kind, "reference"))


def _hit(corpus: Corpus, row: dict, fused: Fused) -> dict:
    decided = row.get("decided_on")
    hit = {
        "corpus": corpus.key,
        "source_kind": row.get("source_kind"),
        "kind": row["kind"],
        "doc_id": row["doc_id"],
        "case_law_id": row.get("case_law_id"),
        "document_id": row.get("document_id"),
        "chunk_id": row["unit_id"] if row["kind"] == "chunk" else None,
        "principle_id": row["unit_id"] if row["kind"] == "principle" else None,
        "case_number": row.get("case_number"),
        "title": row.get("title"),
        "court": row.get("court"),
        "decided_on": decided.isoformat() if decided else None,
        "page": row.get("page"),
        "section": row.get("section"),
        "char_start": row.get("char_start"),
        "char_end": row.get("char_end"),
        "snippet": (row.get("snippet") or "")[:SNIPPET_CHARS],
        "supporting_quote": row.get("supporting_quote"),
        "citable": corpus.citable,
        "score": round(fused.score, 6),
        "explain": {leg: {"rank": rank} for leg, rank in fused.ranks.items()},
    }
    # A principle's term from its source (הלכה / כלל פרשני / עיקרון); None for other units.
    hit["term"] = (
        principle_term(row.get("source_kind"), row.get("court"), row.get("is_binding"))
        if row["kind"] == "principle"
        else None
    )
    if row["kind"] == "principle":
        hit.update(
            corroboration=row.get("corroboration") or 0,
            canonical_statement=row.get("canonical_statement"),
            approved_by=approved_by(
                row.get("review_status"), row.get("reviewed_by"), row.get("votes"), row.get("score")
            ),
            confirmed=bool(row.get("confirmed")),
        )
    if row["kind"] == "precedent":
        hit.update(citation=row["citation"], note=row.get("note"), precedent_id=row["unit_id"])
    return hit
