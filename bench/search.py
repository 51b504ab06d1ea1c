"""Benchmark: search latency on >= 100,000 chunks split across corpora, against an in-memory peer.

Builds a fresh embedded database with real Hebrew text from ../shared/data (Planning and
Building Law sections, HeQ paragraphs), cut into sentences; about 1,500 distinct sentences are
embedded for real (cached), and the rest of the 100k chunks reuse those embeddings with small
random perturbations and recombined sentence text (this measures latency, not quality). Loads
in bulk, builds the HNSW indexes, then times p50/p95 of hybrid, semantic and lexical search at
k=10 with the corpus filter (and a 5 % practice-area filter), including query embedding. In the
same process, the peer: bm25s over whitespace tokens + exact numpy cosine, fused by the same RRF.

    .venv/bin/python bench/search.py [--chunks 100000] [--queries 60]

Prints one JSON object. Targets (issue 3): hybrid p50 <= 60 ms, p95 <= 150 ms; full k on every
filtered query.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from legal_ai.config import Settings
from legal_ai.providers.embedders import CachedEmbedder, E5Local
from legal_ai.retrieval.fusion import rrf
from legal_ai.retrieval.legs import Filters
from legal_ai.services import App
from legal_ai.store import Store, drop_database, ensure_database, start_embedded, stop_embedded
from legal_ai.store.cache import EmbeddingCache, set_active_embedder
from legal_ai.text.akn import parse_law
from legal_ai.text.hebrew import DEFAULT_ANALYZER, analyze, get_analyzer

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
PBL = SHARED / "il-laws-akn/akn/il/act/PrimaryLegislation/1965-08-12/148917/he@/main.xml"
SPLIT = {"external": 0.4, "internal": 0.3, "style": 0.2, "case": 0.1}


def sentences() -> list[str]:
    texts = [s["text"] for s in parse_law(PBL)]
    for line in (SHARED / "heq" / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
        texts.append(json.loads(line)["text"])
    out = []
    for text in texts:
        for sentence in re.split(r"(?<=[.;:])\s+|\n", text):
            words = sentence.split()
            if 6 <= len(words) <= 60:
                out.append(" ".join(words))
    return out


def load(store: Store, texts: list[str], vectors: np.ndarray, total: int, seed: int = 7) -> dict:
    """Bulk-load `total` chunks (one item per 10 chunks) across the corpora with COPY."""
    rng = np.random.default_rng(seed)
    pick = random.Random(seed)
    plan = {corpus: int(total * share) for corpus, share in SPLIT.items()}
    with store.transaction() as conn:
        conn.execute("SET LOCAL session_replication_role = replica")  # bulk: no row triggers
        for corpus, count in plan.items():
            items = count // 10
            if corpus in ("external", "internal"):
                kind = "external_upload" if corpus == "external" else "internal_committee"
                doc_type = "ruling" if corpus == "external" else "decision"
                with conn.cursor().copy(
                    "COPY case_law (source_kind, doc_type, doc_id, case_number, title, court,"
                    " decided_on, chair_name, practice_area, content, content_hash, searchable)"
                    " FROM STDIN"
                ) as copy:
                    for i in range(items):
                        area = "betterment_levy" if i % 20 == 0 else "planning"
                        copy.write_row((kind, doc_type, f"{corpus}-{i}", f"ערר {i}/24", f"{corpus} {i}",
                                        "העליון", "2024-01-01", "יו\"ר", area, "", "h", True))  # fmt: skip
                ids = [r["id"] for r in conn.execute(
                    "SELECT id FROM case_law WHERE source_kind = %s ORDER BY id", (kind,))]  # fmt: skip
                table, parent, scope = "case_law_chunks", "case_law_id", kind
            else:
                conn.execute(
                    "INSERT INTO cases (case_number) VALUES (%s) ON CONFLICT DO NOTHING",
                    (f"bench-{corpus}",),
                )
                with conn.cursor().copy(
                    "COPY documents (corpus, doc_id, case_number, practice_area, title, content,"
                    " content_hash, searchable) FROM STDIN"
                ) as copy:
                    for i in range(items):
                        area = "betterment_levy" if i % 20 == 0 else "planning"
                        copy.write_row(
                            (
                                corpus,
                                f"{corpus}-{i}",
                                f"bench-{corpus}",
                                area,
                                f"{corpus} {i}",
                                "",
                                "h",
                                True,
                            )
                        )
                ids = [r["id"] for r in conn.execute(
                    "SELECT id FROM documents WHERE corpus = %s ORDER BY id", (corpus,))]  # fmt: skip
                table, parent, scope = "document_chunks", "document_id", corpus
            scope_col = "source_kind" if table == "case_law_chunks" else "corpus"
            with conn.cursor().copy(
                f"COPY {table} ({parent}, {scope_col}, ordinal, char_start, char_end, text,"
                " text_hash, analyzed, analyzer, embedding, embedder, embedded_hash) FROM STDIN"
            ) as copy:
                for n in range(items * 10):
                    a, b = pick.randrange(len(texts)), pick.randrange(len(texts))
                    text = texts[a] if n % 3 else texts[a] + " " + texts[b]
                    vec = vectors[a] + rng.normal(0, 0.01, vectors.shape[1]).astype(np.float32)
                    vec /= np.linalg.norm(vec)
                    copy.write_row((ids[n // 10], scope, n % 10, 0, len(text), text, "t",
                                    analyze(text), get_analyzer(DEFAULT_ANALYZER).id, "[" + ",".join(f"{x:.5f}" for x in vec) + "]",
                                    "e5-local", "t"))  # fmt: skip
    import psycopg

    with psycopg.connect(store.url, autocommit=True) as conn:
        conn.execute("SET maintenance_work_mem = '1GB'")
        conn.execute("REINDEX TABLE case_law_chunks")
        conn.execute("REINDEX TABLE document_chunks")
        conn.execute("SELECT lexicon_rebuild()")
        conn.execute("VACUUM ANALYZE")
    return plan


def percentiles(samples: list[float]) -> dict:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return {"p50_ms": round(statistics.median(ordered) * 1000, 2), "p95_ms": round(p95 * 1000, 2)}


def peer_index(store: Store, corpus_kind: tuple[str, str]):
    import bm25s

    table, scope = corpus_kind
    with store.pool.connection() as conn:
        if table == "case_law_chunks":
            rows = conn.execute(
                "SELECT id, text, embedding FROM case_law_chunks WHERE source_kind = %s", (scope,)
            ).fetchall()
        else:
            rows = conn.execute(
                "SELECT id, text, embedding FROM document_chunks WHERE corpus = %s", (scope,)
            ).fetchall()
    ids = np.array([r["id"] for r in rows])
    matrix = np.stack([np.asarray(r["embedding"].to_numpy(), dtype=np.float32) for r in rows])
    retriever = bm25s.BM25()
    retriever.index([r["text"].split() for r in rows], show_progress=False)
    return ids, matrix, retriever


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument(
        "--base", type=int, default=1500, help="distinct sentences embedded for real"
    )
    parser.add_argument("--home", type=Path, help="keep the server and embedding cache here")
    args = parser.parse_args()
    pool = sentences()
    random.Random(3).shuffle(pool)
    base = pool[: args.base]
    queries = [
        json.loads(x)["text"]
        for x in (SHARED / "pbl-questions" / "queries.jsonl")
        .read_text(encoding="utf-8")
        .splitlines()
    ]
    queries += [
        json.loads(x)["text"]
        for x in (SHARED / "heq" / "queries.jsonl").read_text(encoding="utf-8").splitlines()[:200]
    ]
    queries = queries[: args.queries]
    inner = E5Local()
    with tempfile.TemporaryDirectory(prefix="legal-ai-bench-") as tmp:
        pgdata = (args.home or Path(tmp)) / "pgdata"
        server = start_embedded(pgdata)
        try:
            result = run(server, inner, base, queries, args.chunks)
        finally:
            stop_embedded(pgdata)
    print(json.dumps(result, indent=2, ensure_ascii=False))


def run(server: str, inner: E5Local, base: list[str], queries: list[str], chunks: int) -> dict:
    cache = Store(ensure_database(server, "bench_cache"), max_size=2)
    drop_database(server, "bench_search")
    store = Store(ensure_database(server, "bench_search"), max_size=2)
    embedder = CachedEmbedder(inner, EmbeddingCache(cache))
    started = time.perf_counter()
    vectors = embedder.embed_passages(base)
    embed_s = time.perf_counter() - started
    with store.transaction() as conn:
        set_active_embedder(conn, inner.id, inner.dim)
    started = time.perf_counter()
    plan = load(store, base, vectors, chunks)
    load_s = time.perf_counter() - started
    app = App(Settings(database_url=store.url), store=store, embedder=inner)
    app._embedder = embedder
    timings: dict[str, list[float]] = {}
    full_k = {"checked": 0, "short": 0}
    for corpus, tool_filters in (("external", Filters()), ("internal", Filters()),
                                 ("style", Filters(practice_area="betterment_levy"))):  # fmt: skip
        for mode in ("hybrid", "semantic", "lexical"):
            key = f"{mode}{'' if corpus != 'style' else '_filtered5pct'}"
            for query in queries:
                embedder._queries.clear()  # include query embedding in every timing
                t0 = time.perf_counter()
                hits = app.search(corpus, query, filters=tool_filters, limit=10, mode=mode).hits
                timings.setdefault(key, []).append(time.perf_counter() - t0)
                if corpus == "style" and mode != "lexical":
                    full_k["checked"] += 1
                    full_k["short"] += len(hits) < 10
    # The peer: bm25s + exact numpy cosine + the same RRF, in memory, on the external corpus.
    ids, matrix, retriever = peer_index(store, ("case_law_chunks", "external_upload"))
    import bm25s

    peer = []
    for query in queries:
        t0 = time.perf_counter()
        qvec = inner.embed_query(query)
        dense = ids[np.argsort(-(matrix @ qvec))[:50]].tolist()
        docs, _ = retriever.retrieve(bm25s.tokenize([query], stopwords=None, show_progress=False),
                                     k=50, show_progress=False)  # fmt: skip
        lexical = ids[docs[0]].tolist()
        rrf({"semantic": dense, "lexical": lexical})[:10]
        peer.append(time.perf_counter() - t0)
    with store.pool.connection() as conn:
        total = conn.execute(
            "SELECT (SELECT count(*) FROM case_law_chunks) + (SELECT count(*) FROM document_chunks) AS n"
        ).fetchone()["n"]
    embedding = []
    for query in queries:
        t0 = time.perf_counter()
        inner.embed_query(query)
        embedding.append(time.perf_counter() - t0)
    stats = {key: percentiles(values) for key, values in timings.items()}
    stats["query_embedding_alone"] = percentiles(embedding)
    peer_stats = percentiles(peer)
    cache.close()
    store.close()
    return {
        "benchmark": "search",
        "chunks": total,
        "split": plan,
        "queries": len(queries),
        "embedded_for_real": len(base),
        "embed_seconds": round(embed_s, 1),
        "load_seconds": round(load_s, 1),
        "latency": stats,
        "peer_bm25s_numpy_rrf": {**peer_stats, "chunks": int(len(ids))},
        "hybrid_p50_ratio_to_peer": round(stats["hybrid"]["p50_ms"] / peer_stats["p50_ms"], 2),
        "full_k_filtered": full_k,
        "targets": {"hybrid_p50_ms": 60, "hybrid_p95_ms": 150},
    }


if __name__ == "__main__":
    main()
