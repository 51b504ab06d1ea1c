"""Benchmark: search latency on >= 100,000 chunks split across corpora, against an in-memory peer.

Builds a fresh embedded database with real Hebrew text from ../shared/data (Planning and
Building Law sections, HeQ paragraphs), cut into sentences; about 1,500 distinct sentences are
embedded for real (cached), and the rest of the chunks reuse those embeddings with small random
perturbations (synthetic vectors: no chunk beyond the base is embedded) and recombined sentence
text (this measures latency, not quality). Each chunk's analyzed text and BM25 term frequencies
are the real ones of its text (the analyzer runs once per distinct sentence; a chunk of two
sentences gets both, as the analyzer would give). Loads in bulk, builds the HNSW and GIN
indexes, then times p50/p95 at k = 10 with the corpus filter (and a 5 % practice-area filter):
hybrid, semantic and lexical search including query embedding; the phases of the hybrid search
(the query embedding in its thread, the lexical, reference and semantic legs, hydration); per
corpus and under the 5 % filter, hybrid with its legs side by side and one after the other, each
leg, the ratio to the embedding alone and the work beyond it against the peer's, and the bad
input of issue 39 (bench/search_corpora.py); the
query embedding alone; hybrid with the embedding run first, as before (`hybrid_sequential`);
and, in the same process and interleaved query by query, the peer: bm25s over whitespace tokens
+ exact numpy cosine (numpy's OpenBLAS on one thread: `BLAS_THREADS`), fused by the same RRF.
Then recall@10 of the semantic leg against exact search for several `hnsw.ef_search` values
(unfiltered, and under the 5 % filter with the iterative scan), and the bytes of every table and
index. Last, the rerank stage's own latency (LEGAL_AI_RERANKER's second phase) at N = 20/30/50
with the scripted reranker (bench/scripted_reranker.py: HTTP, the SDK and the reordering, no
model), and with the office's own reranker when LEGAL_AI_RERANKER is set in the environment.

    .venv/bin/python bench/search.py [--chunks 100000] [--queries 60] [--home DIR [--reuse]]
        [--latency-only]

Prints one JSON object. Targets (issue 15): hybrid p50 <= 1.3x the query embedding alone and
<= 0.3x the peer, in the same run; full k on every filtered query. (Issue 3: hybrid p50 <= 60
ms, p95 <= 150 ms.)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import Future
from pathlib import Path

import numpy as np

import scripted_reranker
from common import shared_queries
from legal_ai.app import App
from legal_ai.config import Settings
from legal_ai.corpora import get_corpus
from legal_ai.providers.embedders import CachedEmbedder, E5Local
from legal_ai.providers.rerankers import make_reranker
from legal_ai.retrieval import legs
from legal_ai.retrieval import search as search_module
from legal_ai.retrieval.fusion import rrf
from legal_ai.retrieval.legs import Filters
from legal_ai.store import Store, drop_database, ensure_database, start_embedded, stop_embedded
from legal_ai.store.cache import EmbeddingCache, set_active_embedder
from search_corpora import measure_bad_input, measure_corpora
from search_data import SPLIT, base_sentences, embed_in_slices, load


def percentiles(samples: list[float]) -> dict:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return {"p50_ms": round(statistics.median(ordered) * 1000, 2), "p95_ms": round(p95 * 1000, 2)}


def chunk_vectors(store: Store, corpus: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
    """ids, embeddings (as a matrix), practice areas and texts of one corpus's chunks."""
    table, parent, item, scope_col, scope = {
        "external": (
            "case_law_chunks",
            "case_law_id",
            "case_law",
            "source_kind",
            "external_upload",
        ),
        "internal": (
            "case_law_chunks",
            "case_law_id",
            "case_law",
            "source_kind",
            "internal_committee",
        ),
        "style": ("document_chunks", "document_id", "documents", "corpus", "style"),
    }[corpus]
    from psycopg import sql

    statement = sql.SQL(
        "SELECT u.id, u.text, u.embedding, i.practice_area FROM {} u JOIN {} i ON i.id = u.{}"
        " WHERE u.{} = %s ORDER BY u.id"
    ).format(*map(sql.Identifier, (table, item, parent, scope_col)))
    with store.pool.connection() as conn:
        # Binary: the vectors arrive as floats, not as text to parse (400k rows at 1M chunks).
        rows = conn.cursor(binary=True).execute(statement, (scope,)).fetchall()
    ids = np.array([r["id"] for r in rows])
    matrix = np.stack([np.asarray(r["embedding"].to_numpy(), dtype=np.float32) for r in rows])
    areas = np.array([r["practice_area"] for r in rows])
    return ids, matrix, areas, [r["text"] for r in rows]


def sequential(function, *args) -> Future:
    """The old order, for `hybrid_sequential`: the embedding runs at once, before any SQL."""
    done: Future = Future()
    done.set_result(function(*args))
    return done


# The peer's matrix products on one thread: numpy's OpenBLAS threads spin after each product on
# the cores the next measured embedding needs. With two, the query's embedding alone, measured
# right after the peer, took 33 ms at 100k where it takes 23 without (docs/benchmarks.md, "The
# embedding alone, without the peer's threads"). Read when numpy loads OpenBLAS: the bench runs
# itself again with it set, unless the environment already sets it.
BLAS_THREADS = "OPENBLAS_NUM_THREADS"


def main() -> None:
    if BLAS_THREADS not in os.environ:
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, BLAS_THREADS: "1"})
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument(
        "--set",
        choices=("clusters", "distinct"),
        default="clusters",
        help="base sentences: clusters (1,500, as before) or distinct (>= 20,000, <= 20 copies each)",
    )
    parser.add_argument(
        "--base", type=int, default=1500, help="distinct sentences embedded for real (at least)"
    )
    parser.add_argument("--home", type=Path, help="keep the server and embedding cache here")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="with --home: search the database an earlier run built when it has --chunks chunks",
    )
    parser.add_argument(
        "--embed-only",
        action="store_true",
        help="with --home: embed the set's base sentences into the cache, then stop",
    )
    parser.add_argument("--ef-search", default="40,100,200,400", help="hnsw.ef_search values")
    parser.add_argument(
        "--latency-only",
        action="store_true",
        help="skip recall@10, the rerank stage and the sizes (the latency figures only)",
    )
    args = parser.parse_args()
    base = base_sentences(args.set, args.chunks, args.base)
    queries = (shared_queries("pbl-questions") + shared_queries("heq")[:200])[: args.queries]
    inner = E5Local()
    efs = [int(x) for x in args.ef_search.split(",") if x.strip()]
    with tempfile.TemporaryDirectory(prefix="legal-ai-bench-") as tmp:
        pgdata = (args.home or Path(tmp)) / "pgdata"
        server = start_embedded(pgdata)
        if sized(server):  # restart once with the memory a search server is given
            stop_embedded(pgdata)
            server = start_embedded(pgdata)
        try:
            if args.embed_only:
                result = {"embedded": len(embed_base(server, inner, base)[0])}
            else:
                result = run(server, inner, base, queries, args, efs)
        finally:
            stop_embedded(pgdata)
    print(json.dumps(result, indent=2, ensure_ascii=False))


SHARED_BUFFERS = "1GB"  # the embedded server's default (128MB) holds a fraction of 100k chunks


def sized(server: str) -> bool:
    """Give the bench's own server SHARED_BUFFERS (as docs/scaling.md sizes a search server);
    True when it must restart for it."""
    import psycopg

    with psycopg.connect(server, autocommit=True) as conn:
        current = conn.execute("SHOW shared_buffers").fetchone()[0]
        if current == SHARED_BUFFERS:
            return False
        conn.execute(f"ALTER SYSTEM SET shared_buffers = '{SHARED_BUFFERS}'")
    return True


def count_chunks(store: Store) -> int:
    with store.pool.connection() as conn:
        return conn.execute(
            "SELECT (SELECT count(*) FROM case_law_chunks) + (SELECT count(*) FROM document_chunks) AS n"
        ).fetchone()["n"]


def embed_base(server: str, inner: E5Local, base: list[str]) -> tuple[np.ndarray, float, Store]:
    """The base sentences' embeddings through the cache (`bench_cache`), a slice at a time;
    returns them, the seconds spent, and the cache's store."""
    cache = Store(ensure_database(server, "bench_cache"), max_size=2)
    embedder = CachedEmbedder(inner, EmbeddingCache(cache))
    started = time.perf_counter()
    vectors = embed_in_slices(embedder.embed_passages, base)
    return vectors, time.perf_counter() - started, cache


def run(
    server: str,
    inner: E5Local,
    base: list[str],
    queries: list[str],
    args: argparse.Namespace,
    efs: list[int],
) -> dict:
    vectors, embed_s, cache = embed_base(server, inner, base)
    embedder = CachedEmbedder(inner, EmbeddingCache(cache))
    chunks, reuse = args.chunks, args.reuse and args.home
    database = "bench_search" if args.set == "clusters" else f"bench_search_{args.set}"
    store = Store(ensure_database(server, database), max_size=2)
    build = {"reused": True}
    if not (reuse and count_chunks(store) == sum(int(chunks * s) for s in SPLIT.values())):
        store.close()
        drop_database(server, database)
        store = Store(ensure_database(server, database), max_size=2)
        with store.transaction() as conn:
            set_active_embedder(conn, inner.id, inner.dim)
        started = time.perf_counter()
        build = load(store, base, vectors, chunks, spread=args.set == "distinct")
        build["total_seconds"] = round(time.perf_counter() - started, 1)
    app = App(Settings(database_url=store.url), store=store, embedder=inner)
    app._embedder = embedder
    settings = app.settings
    for query in queries:  # warm the model, the pool and the server's buffers for each query
        app.search("external", query, limit=10)

    # The headline, interleaved query by query so the noise of the machine hits each alike:
    # the query embedding alone, hybrid search, hybrid with the embedding first, the peer.
    ext_ids, ext_matrix, _, ext_texts = chunk_vectors(store, "external")
    import bm25s

    retriever = bm25s.BM25()
    retriever.index([t.split() for t in ext_texts], show_progress=False)
    alone, hybrid, hybrid_seq, peer, peer_beyond = [], [], [], [], []
    phases: dict[str, list[float]] = {}
    for query in queries:
        t0 = time.perf_counter()
        inner.embed_query(query)
        alone.append(time.perf_counter() - t0)

        # Hybrid now and as before (embedding first), each going first every other query.
        for concurrent in (True, False) if len(hybrid) % 2 == 0 else (False, True):
            embedder.forget_queries()  # every search timing includes embedding the query
            search_module._submit, saved = (
                search_module._submit if concurrent else sequential,
                search_module._submit,
            )
            try:
                t0 = time.perf_counter()
                result = app.search("external", query, limit=10, mode="hybrid")
                (hybrid if concurrent else hybrid_seq).append(time.perf_counter() - t0)
            finally:
                search_module._submit = saved
            if concurrent:
                for phase, ms in result.timings.items():
                    phases.setdefault(phase, []).append(ms / 1000)

        t0 = time.perf_counter()
        qvec = inner.embed_query(query)
        t1 = time.perf_counter()
        dense = ext_ids[np.argsort(-(ext_matrix @ qvec))[:50]].tolist()
        docs, _ = retriever.retrieve(
            bm25s.tokenize([query], stopwords=None, show_progress=False), k=50, show_progress=False
        )
        rrf({"semantic": dense, "lexical": ext_ids[docs[0]].tolist()})[:10]
        peer.append(time.perf_counter() - t0)
        peer_beyond.append(time.perf_counter() - t1)  # the peer's own work, after embedding

    timings: dict[str, list[float]] = {}
    full_k = {"checked": 0, "short": 0}
    for corpus, tool_filters in (
        ("external", Filters()),
        ("internal", Filters()),
        ("style", Filters(practice_area="betterment_levy")),
    ):
        for mode in ("hybrid", "semantic", "lexical"):
            key = f"{corpus}_{mode}{'' if corpus != 'style' else '_filtered5pct'}"
            for query in queries:
                embedder.forget_queries()
                t0 = time.perf_counter()
                hits = app.search(corpus, query, filters=tool_filters, limit=10, mode=mode).hits
                timings.setdefault(key, []).append(time.perf_counter() - t0)
                if corpus == "style" and mode != "lexical":
                    full_k["checked"] += 1
                    full_k["short"] += len(hits) < 10

    # Per corpus (and the 5 % filter): legs side by side against one after the other, each
    # leg, the embedding alone and the peer; then the bad input (search_corpora.py).
    # "now": as the search runs; "main": without the practice areas' own HNSW indexes (the
    # iterative scan, migration 0052 unused: main's behaviour); "sequential": the legs one after
    # the other on one connection (LEGAL_AI_SEARCH_PARALLEL_LEGS=false).
    variants = {"now": app}
    for variant, update in (
        ("main", {"search_area_indexes": False}),
        ("sequential", {"search_parallel_legs": False}),
    ):
        other = App(Settings(database_url=store.url, **update), store=store, embedder=inner)
        other._embedder = embedder
        variants[variant] = other
    per_corpus = measure_corpora(
        variants, inner, queries, lambda corpus: chunk_vectors(store, corpus)
    )
    bad_input = measure_bad_input(app, queries)

    hybrid_p = percentiles(hybrid)
    alone_p = percentiles(alone)
    peer_p = percentiles(peer)
    stats = {
        "hybrid": hybrid_p,
        "hybrid_sequential": percentiles(hybrid_seq),
        "query_embedding_alone": alone_p,
        "peer_bm25s_numpy_rrf": {**peer_p, "chunks": int(len(ext_ids))},
        "hybrid_phases": {
            phase: percentiles(values) for phase, values in phases.items() if phase != "parallel"
        },
        "by_corpus_and_mode": {key: percentiles(values) for key, values in timings.items()},
    }
    rerank, recall, sizes = {}, {}, {}
    if not args.latency_only:
        rerank = measure_rerank(app, queries)
        recall = measure_recall(app, inner, queries, ext_ids, ext_matrix, efs, settings)
        sizes = measure_sizes(store)
    total = count_chunks(store)
    cache.close()
    store.close()
    return {
        "benchmark": "search",
        "chunks": total,
        "queries": len(queries),
        "k": 10,
        "set": args.set,
        "embedded_for_real": len(base),
        "copies_per_sentence": round(total / len(base), 1),
        "embed_seconds": round(embed_s, 1),
        "peer_blas_threads": os.environ[BLAS_THREADS],
        "build": build,
        "latency": stats,
        "ratios": {
            "hybrid_p50_to_query_embedding_alone": round(hybrid_p["p50_ms"] / alone_p["p50_ms"], 2),
            "hybrid_p50_to_peer": round(hybrid_p["p50_ms"] / peer_p["p50_ms"], 2),
            # What each adds to the shared query embedding, in milliseconds at the median:
            # hybrid's p50 minus the embedding's, against the peer's own work after it.
            "hybrid_beyond_embedding_ms": round(hybrid_p["p50_ms"] - alone_p["p50_ms"], 2),
            "peer_beyond_embedding_ms": percentiles(peer_beyond)["p50_ms"],
            "hybrid_sequential_p50_to_query_embedding_alone": round(
                stats["hybrid_sequential"]["p50_ms"] / alone_p["p50_ms"], 2
            ),
        },
        "per_corpus": per_corpus,
        "bad_input": bad_input,
        "full_k_filtered": full_k,
        "rerank_stage": rerank,
        "recall_at_10": recall,
        "sizes": sizes,
        "targets": {"hybrid_p50_to_query_embedding_alone": 1.3, "hybrid_p50_to_peer": 0.3},
    }


def measure_recall(
    app: App,
    inner: E5Local,
    queries: list[str],
    ext_ids: np.ndarray,
    ext_matrix: np.ndarray,
    efs: list[int],
    settings: Settings,
) -> dict:
    """Recall@10 of the semantic leg (window 50, as search runs it) against exact cosine search
    over the partition's vectors, per hnsw.ef_search: each fixed value, and `scaled` (what search
    runs: the base setting grown by the partition's size, legs.scaled_ef_search); in the external
    and internal partitions, and in the style partition under the 5 % filter (the iterative scan
    fills the window)."""
    int_ids, int_matrix, _, _ = chunk_vectors(app.store, "internal")
    style_ids, style_matrix, style_areas, _ = chunk_vectors(app.store, "style")
    mask = style_areas == "betterment_levy"
    vectors = [inner.embed_query(q) for q in queries]
    cases = (
        ("external", "external", Filters(), ext_ids, ext_matrix),
        ("internal", "internal", Filters(), int_ids, int_matrix),
        (
            "style_filtered5pct",
            "style",
            Filters(practice_area="betterment_levy"),
            style_ids[mask],
            style_matrix[mask],
        ),
    )
    out: dict[str, dict] = {}
    with app.store.pool.connection() as conn:
        for name, key, filters, ids, matrix in cases:
            corpus = get_corpus(key)
            source = corpus.sources[0]
            out[name] = {"partition_rows": partition_rows(conn, source.table)}
            position = {int(i): n for n, i in enumerate(ids)}
            exact = []
            for vec in vectors:
                similarity = matrix @ vec
                best = np.argsort(-similarity)[:10]
                exact.append((similarity, best, set(ids[best].tolist())))
            for ef in [*efs, None]:
                if ef is None:
                    conn.execute("RESET hnsw.ef_search")
                    conn.execute(*legs.scaled_ef_search(source, settings.hnsw_ef_search))
                    label = (
                        f"scaled={conn.execute('SHOW hnsw.ef_search').fetchone()['hnsw.ef_search']}"
                    )
                else:
                    conn.execute(f"SET hnsw.ef_search = {int(ef)}")
                    label = f"ef_search={ef}"
                found, close, times = [], [], []
                for vec, (similarity, best, wanted) in zip(vectors, exact, strict=True):
                    t0 = time.perf_counter()
                    got = legs.semantic(
                        conn,
                        corpus,
                        source,
                        filters,
                        vec,
                        embedder=inner.id,
                        dim=inner.dim,
                        window=settings.leg_window,
                        max_scan_tuples=settings.hnsw_max_scan_tuples,
                        ef_search=None if ef is not None else settings.hnsw_ef_search,
                    )
                    times.append(time.perf_counter() - t0)
                    found.append(len(wanted & set(got[:10])) / 10)
                    # The clusters set's chunks are near-duplicates of one sentence (cosine
                    # distances apart in the 4th decimal), among which the exact top 10 is a
                    # coin toss: also count a hit as found within 1 % of the exact 10th's distance.
                    bound = (1 - similarity[best[-1]]) * 1.01
                    close.append(sum(1 - similarity[position[i]] <= bound for i in got[:10]) / 10)
                conn.rollback()  # the scaled setting was set for its transaction only
                out[name][label] = {
                    "recall_at_10": round(statistics.mean(found), 4),
                    "min": min(found),
                    "recall_at_10_within_1pct": round(statistics.mean(close), 4),
                    "min_within_1pct": min(close),
                    "semantic_leg": percentiles(times),
                }
        conn.execute("RESET hnsw.ef_search")
        conn.commit()
    return out


RERANK_NS = (20, 30, 50)


def measure_rerank(app: App, queries: list[str]) -> dict:
    """The rerank stage's latency (its own milliseconds, `timings["rerank"]`) and the whole
    hybrid search's, at each N of RERANK_NS: with the scripted reranker, and with the one
    LEGAL_AI_RERANKER names when set (a real model: its figures are the office's)."""
    out: dict = {}
    with scripted_reranker.serve() as url:
        out["scripted"] = _rerank_at(app, queries, scripted_reranker.spec(url))
    configured = Settings().reranker
    if configured:
        out["configured"] = _rerank_at(app, queries, configured)
    return out


def _rerank_at(app: App, queries: list[str], spec: str) -> dict:
    figures: dict = {}
    for n in RERANK_NS:
        settings = app.settings.model_copy(
            update={"reranker": spec, "rerank_top_n": n, "rerank_budget_ms": 60000}
        )
        reranker = make_reranker(settings)
        stage, total, skipped = [], [], 0
        for query in queries:
            app.embedder.forget_queries()  # each whole-search figure includes the embedding
            t0 = time.perf_counter()
            result = search_module.search(
                app.store, app.embedder, settings, "external", query, limit=10, reranker=reranker
            )
            total.append(time.perf_counter() - t0)
            stage.append(result.timings["rerank"] / 1000)
            skipped += result.rerank["skipped"] is not None
        figures[f"n{n}"] = {
            "n": n,
            "by": reranker.name.split("@")[0],
            "stage": percentiles(stage),
            "hybrid_with_rerank": percentiles(total),
            "skipped": skipped,
        }
    return figures


def partition_rows(conn, table: str) -> int:
    return int(
        conn.execute(
            "SELECT reltuples::bigint AS n FROM pg_class WHERE oid = %s::regclass", (table,)
        ).fetchone()["n"]
    )


def measure_sizes(store: Store) -> dict:
    """Bytes of each chunk partition (heap with TOAST) and each of its indexes, per row."""
    with store.pool.connection() as conn:
        rows = conn.execute(
            "SELECT c.relname AS partition, c.reltuples::bigint AS rows,"
            " pg_table_size(c.oid) AS table_bytes,"
            " (SELECT json_object_agg(i.relname, pg_relation_size(i.oid))"
            "  FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid"
            "  WHERE x.indrelid = c.oid) AS index_bytes"
            " FROM pg_class c WHERE c.relkind = 'r' AND (c.relname LIKE 'case_law_chunks_%'"
            "   OR c.relname LIKE 'document_chunks_%') ORDER BY c.relname"
        ).fetchall()
        version = conn.execute(
            "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
        ).fetchone()["extversion"]
    out = {"pgvector": version, "partitions": {}}
    for row in rows:
        n = max(row["rows"], 1)
        out["partitions"][row["partition"]] = {
            "rows": row["rows"],
            "table_bytes_per_row": round(row["table_bytes"] / n),
            "index_bytes_per_row": {
                name: round(size / n)
                for name, size in (row["index_bytes"] or {}).items()
                if size > 8192  # the empty voyage index of a partition is one page
            },
        }
    return out


if __name__ == "__main__":
    main()
