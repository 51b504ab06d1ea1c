"""The legs of one search (retrieval/search.py runs them), each into its `found` (leg name -> unit
ids, best first), timed: the lexical and reference legs of every source, the semantic legs (in
one round trip when the HNSW scan's settings are set) — beside the lexical legs, in a thread on a
spare pooled connection when the pool has one free (`semantic_beside`), else after them on the
search's own connection —, the image leg, the early provenance of what the lexical legs found,
and the legs in their fixed order for fusion."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from ..config import Settings
from ..corpora import Corpus
from ..providers.embedders import Embedder
from ..store.db import Store
from ..text.hebrew import get_analyzer
from ..text.synonyms import expand_query
from . import legs


def _leg_name(kind: str, leg: str) -> str:
    return leg if kind in ("chunk", "precedent") else f"{kind}_{leg}"


def hnsw_configured(conn, settings: Settings, needed: bool) -> bool:
    """Whether the HNSW scan's settings were set for the search's transaction (once, when a
    semantic or image leg runs and the connection is not in autocommit: the pool's connections
    never are), while the model is still at work."""
    configured = needed and not conn.autocommit
    if configured:
        legs.configure_hnsw(conn, max_scan_tuples=settings.hnsw_max_scan_tuples)
    return configured


def image_leg(
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
    """The image leg's page ids, nearest first. Under a practice area no item of the corpus
    holds it ends before waiting for the image's query vector (`legs.area_lookup`), as the
    semantic legs do."""
    area = legs.area_lookup(conn, corpus, filters, image_embedder.id)
    if area.empty:
        return []
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
        area=area,
    )


def lexical_legs(
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
        with timer(timings, "lexical"):
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
        with timer(timings, "reference"):
            found[_leg_name(source.kind, "reference")] = legs.reference(
                conn,
                corpus,
                source,
                filters,
                lookups,
                embedder=embedder.id,
                window=window,
            )


def hydrate_found(
    conn,
    corpus: Corpus,
    found: dict[str, list[int]],
    rows: dict[tuple[str, int], dict],
    timings: dict[str, float],
) -> None:
    """The provenance of the units the lexical and reference legs found, into `rows`; read while
    the model is still at work (most of it is needed; it is read in time the search would spend
    waiting)."""
    with timer(timings, "hydrate"):
        for source in corpus.sources:
            wanted = sorted(
                {i for name, ids in found.items() for i in ids if _leg_kind(name, source.kind)}
            )
            for unit_id, row in legs.hydrate(conn, corpus, source, wanted).items():
                rows[(source.kind, unit_id)] = {**row, "kind": source.kind}


def query_vector(
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
        with timer(timings, "embedding_wait"):
            qvec, seconds = embedding.result()
        timings["embedding"] = seconds * 1000
    else:
        with timer(timings, "embedding"):
            qvec = embedder.embed_query(text)
    return qvec


def semantic_legs(
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
    area: legs.AreaLookup = legs.NO_AREA,
) -> None:
    """The semantic leg of every source of the corpus, into `found` (`area`: the filter's
    practice area as `legs.area_lookup` read it once for every source)."""
    with timer(timings, "semantic"):
        if configured:  # every source's statement in one round trip
            for kind, ids in legs.semantic_pipelined(
                conn,
                corpus,
                filters,
                qvec,
                embedder=embedder.id,
                dim=embedder.dim,
                window=window,
                ef_search=settings.hnsw_ef_search,
                indexed=area.indexed,
            ).items():
                found[_leg_name(kind, "semantic")] = ids
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
                area=area,
            )


@dataclass(frozen=True)
class SemanticPlan:
    """What the semantic legs of one search need: the query's vector (given, or its embedding's
    future, or embedded where the legs run) and how wide each leg reads."""

    corpus: Corpus
    filters: legs.Filters
    text: str
    vector: np.ndarray | None
    embedding: Future | None
    embedder: Embedder
    settings: Settings
    window: int

    def run(
        self, conn, configured: bool, found: dict[str, list[int]], timings: dict[str, float]
    ) -> None:
        """The semantic leg of every source, on `conn`, as soon as the query's vector exists.
        Under a practice-area filter the area is read first, while the model may still be at
        work (`legs.area_lookup`): which partitions hold its own index, and whether any item
        of the corpus is in it at all — an area none is in finds nothing, and its legs end
        there without waiting for the vector."""
        with timer(timings, "area_indexes"):
            area = legs.area_lookup(conn, self.corpus, self.filters, self.embedder.id)
        if area.empty:
            for source in self.corpus.sources:
                found[_leg_name(source.kind, "semantic")] = []
            return
        if not self.settings.search_area_indexes:
            area = dataclasses.replace(area, indexed=frozenset())
        qvec = query_vector(self.vector, self.embedding, self.embedder, self.text, timings)
        semantic_legs(
            conn,
            self.corpus,
            self.filters,
            qvec,
            self.settings,
            self.embedder,
            self.window,
            configured,
            found,
            timings,
            area,
        )


@contextmanager
def semantic_beside(store: Store, plan: SemanticPlan) -> Iterator[Future | None]:
    """The semantic legs started at once in a thread of their own, on a spare pooled connection
    (`Store.spare_connection`), while the caller runs the lexical legs on its connection: the
    future's result is (found, timings) of the semantic legs. None when the pool has no spare
    connection free now (another search waits for one, or all are lent): the caller then runs
    them after its lexical legs on its own connection, as a search always did. The spare
    connection returns to the pool only once the thread is done with it, even on an error."""
    with store.spare_connection() as spare:
        if spare is None:
            yield None
            return
        future = _LEG_THREADS.submit(_semantic_on, spare, plan)
        try:
            yield future
        finally:
            wait([future])


def _semantic_on(conn, plan: SemanticPlan) -> tuple[dict[str, list[int]], dict[str, float]]:
    found: dict[str, list[int]] = {}
    timings: dict[str, float] = {}
    plan.run(conn, hnsw_configured(conn, plan.settings, True), found, timings)
    return found, timings


# The semantic legs that run beside a search's lexical legs (at most one per spare connection).
_LEG_THREADS = ThreadPoolExecutor(max_workers=8, thread_name_prefix="legal-ai-leg")


def rankings(corpus: Corpus, found: dict[str, list[int]]) -> dict[str, list[tuple[str, int]]]:
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


@contextmanager
def timer(timings: dict[str, float], name: str) -> Iterator[None]:
    """Add the milliseconds spent in the block to timings[name]."""
    started = time.perf_counter()
    try:
        yield
    finally:
        timings[name] = timings.get(name, 0.0) + (time.perf_counter() - started) * 1000


def _leg_kind(leg: str, kind: str) -> bool:
    """Whether the leg named `leg` ranks units of source kind `kind`."""
    return leg in (_leg_name(kind, "lexical"), _leg_name(kind, "reference"))
