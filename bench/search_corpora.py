"""bench/search.py's figures per corpus (issue 39 item 4): in the external and internal corpora
and in the style corpus under the 5 % practice-area filter, interleaved query by query so the
machine's noise hits each alike: the query's embedding alone; hybrid search as it runs now, as
main ran it (`search_area_indexes` off: the filtered semantic leg by the iterative scan, not the
area's own HNSW index of migration 0052) and with its legs one after the other
(LEGAL_AI_SEARCH_PARALLEL_LEGS=false); each leg's own time in the hybrid search
(lexical, reference, semantic, hydrate, and the embedding in its thread); and the in-memory peer
over the same chunks (bm25s over whitespace tokens + exact numpy cosine, fused by the same RRF;
under the filter, both over the filtered chunks only). Then the bad input of issue 39: the
longest query taken (MAX_QUERY_CHARS), one over it (refused), a query of stop words only, a
filter matching nothing and the practice area of 95 % of the chunks."""

from __future__ import annotations

import statistics
import time

import bm25s
import numpy as np

from legal_ai.app import App
from legal_ai.errors import InvalidInput
from legal_ai.retrieval.arguments import MAX_QUERY_CHARS
from legal_ai.retrieval.fusion import rrf
from legal_ai.retrieval.legs import Filters

LEGS = ("embedding", "lexical", "reference", "semantic", "hydrate", "semantic_join")
CORPORA = (
    ("external", "external", Filters()),
    ("internal", "internal", Filters()),
    ("style_filtered5pct", "style", Filters(practice_area="betterment_levy")),
)


def percentiles(samples: list[float]) -> dict:
    """p50/p95 in milliseconds of samples in seconds."""
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return {"p50_ms": round(statistics.median(ordered) * 1000, 2), "p95_ms": round(p95 * 1000, 2)}


class Peer:
    """bm25s + exact numpy cosine over one corpus's chunks (those the filter keeps), top 50 of
    each fused by the same RRF."""

    def __init__(self, ids: np.ndarray, matrix: np.ndarray, texts: list[str]) -> None:
        self.ids, self.matrix = ids, matrix
        self.retriever = bm25s.BM25()
        self.retriever.index([t.split() for t in texts], show_progress=False)

    def search(self, qvec: np.ndarray, query: str) -> list:
        dense = self.ids[np.argsort(-(self.matrix @ qvec))[:50]].tolist()
        tokens = bm25s.tokenize([query], stopwords=None, show_progress=False)
        k = min(50, len(self.ids))
        docs, _ = self.retriever.retrieve(tokens, k=k, show_progress=False)
        return rrf({"semantic": dense, "lexical": self.ids[docs[0]].tolist()})[:10]


def measure_corpora(apps: dict[str, App], inner, queries: list[str], vectors) -> dict:
    """`apps`: the variants of hybrid search to compare (the same store and embedder), the first
    as the search runs now, in rotating order query by query; `vectors(corpus)` gives (ids,
    matrix, practice areas, texts) of a corpus's chunks."""
    out: dict[str, dict] = {}
    names = list(apps)
    for name, corpus, filters in CORPORA:
        ids, matrix, areas, texts = vectors(corpus)
        keep = (
            np.ones(len(ids), bool) if filters.practice_area is None else areas == "betterment_levy"
        )
        peer = Peer(ids[keep], matrix[keep], [t for t, k in zip(texts, keep, strict=True) if k])
        alone, peer_total, peer_beyond, parallel_share = [], [], [], []
        hybrid: dict[str, list[float]] = {variant: [] for variant in names}
        legs: dict[str, dict[str, list[float]]] = {variant: {} for variant in names}
        for n, query in enumerate(queries):
            t0 = time.perf_counter()
            inner.embed_query(query)
            alone.append(time.perf_counter() - t0)
            for variant in names[n % len(names) :] + names[: n % len(names)]:
                searcher = apps[variant]
                searcher.embedder.forget_queries()  # every figure includes the query's embedding
                t0 = time.perf_counter()
                result = searcher.search(corpus, query, filters=filters, limit=10)
                hybrid[variant].append(time.perf_counter() - t0)
                for leg in LEGS:
                    if leg in result.timings:
                        legs[variant].setdefault(leg, []).append(result.timings[leg] / 1000)
                if variant == names[0]:
                    parallel_share.append(result.timings.get("parallel", 0.0))
            t0 = time.perf_counter()
            qvec = inner.embed_query(query)
            t1 = time.perf_counter()
            peer.search(qvec, query)
            peer_total.append(time.perf_counter() - t0)
            peer_beyond.append(time.perf_counter() - t1)
        alone_p = percentiles(alone)
        figures: dict = {"query_embedding_alone": alone_p, "chunks_searched": int(keep.sum())}
        for variant in names:
            p = percentiles(hybrid[variant])
            figures[f"hybrid_{variant}"] = {
                **p,
                "to_embedding_alone": round(p["p50_ms"] / alone_p["p50_ms"], 2),
                "beyond_embedding_ms": round(p["p50_ms"] - alone_p["p50_ms"], 2),
                "legs": {leg: percentiles(v) for leg, v in legs[variant].items()},
            }
        figures["parallel_share"] = round(statistics.mean(parallel_share), 2)
        figures["peer"] = {
            **percentiles(peer_total),
            "beyond_embedding_ms": percentiles(peer_beyond)["p50_ms"],
        }
        out[name] = figures
    return out


def measure_bad_input(app: App, queries: list[str]) -> dict:
    """p50/p95 of each bad input of issue 39 (hybrid, k = 10) and the fewest hits it gave.
    Each case's first search is timed apart (`first_ms`): at a million chunks it reads pages
    no search had read yet (~100 ms once), which is the cache's cold start, not the case's
    cost; the percentiles are of the ten searches after it, as the hybrid figures are taken
    after a warm-up."""
    longest = (" ".join(queries) * 20)[:MAX_QUERY_CHARS]
    cases = {
        "query_of_5000_chars": ("external", longest[:5000], Filters()),
        "query_of_max_chars": ("external", longest, Filters()),
        "query_of_stop_words": ("external", "של את על עם כי זה הוא", Filters()),
        "filter_matching_nothing": ("internal", queries[0], Filters(practice_area="no_such_area")),
        "practice_area_of_95pct": ("internal", queries[0], Filters(practice_area="planning")),
        "style_filter_matching_nothing": ("style", queries[0], Filters(practice_area="none")),
    }
    out: dict[str, dict] = {}
    for name, (corpus, query, filters) in cases.items():
        app.embedder.forget_queries()
        t0 = time.perf_counter()
        fewest = len(app.search(corpus, query, filters=filters).hits)
        first = round((time.perf_counter() - t0) * 1000, 2)
        times = []
        for _ in range(10):
            app.embedder.forget_queries()  # every figure includes the query's embedding
            t0 = time.perf_counter()
            hits = app.search(corpus, query, filters=filters).hits
            times.append(time.perf_counter() - t0)
            fewest = min(fewest, len(hits))
        out[name] = {**percentiles(times), "first_ms": first, "fewest_hits": fewest}
    times = []
    for _ in range(10):
        t0 = time.perf_counter()
        try:
            app.search("external", "היטל השבחה " * (MAX_QUERY_CHARS // 11 + 1))  # over the cap
        except InvalidInput:
            times.append(time.perf_counter() - t0)
    out["query_over_max_chars_refused"] = {**percentiles(times), "refused": len(times)}
    return out
