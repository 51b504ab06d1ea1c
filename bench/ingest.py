"""Benchmark: ingest the Planning and Building Law (Akoma Ntoso, ../shared/data/il-laws-akn) into
a fresh embedded database, cold (empty embedding cache) and then warm (a second fresh database,
same cache; `--warm-runs` of them, each after a CHECKPOINT so the cold run's writes are not
billed to it, reported by their median). Prints one JSON object: chunks, seconds, chunks/s, and
the share of wall time spent outside the embedder, for both, and the warm/cold speed-up.

    .venv/bin/python bench/ingest.py [--law PATH] [--sections N] [--warm-runs 3]

Targets (issue 2): outside-embedder share <= 15 % (cold); warm run >= 20x faster than cold.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from legal_ai.app import App
from legal_ai.config import Settings
from legal_ai.corpora import get_corpus
from legal_ai.ingest import Ingestor
from legal_ai.ingest.sources import IngestItem
from legal_ai.providers.embedders import CachedEmbedder, E5Local
from legal_ai.store import Store, ensure_database, start_embedded, stop_embedded
from legal_ai.store.cache import EmbeddingCache
from legal_ai.text.akn import parse_law

PBL = (
    Path(__file__).resolve().parents[2]
    / "shared/data/il-laws-akn/akn/il/act/PrimaryLegislation/1965-08-12/148917/he@/main.xml"
)


def run(server: str, dbname: str, cache_store: Store, inner: E5Local, items: list) -> dict:
    store = Store(ensure_database(server, dbname), max_size=2)
    settings = Settings(database_url=store.url)
    embedder = CachedEmbedder(inner, EmbeddingCache(cache_store))
    app = App(settings, store=store, embedder=inner)
    app._embedder = embedder  # measure this run's embedder time
    _ = app.embedder
    with store.transaction() as conn:
        conn.execute(
            "INSERT INTO embedding_config (embedder, dim) VALUES (%s, %s)"
            " ON CONFLICT (singleton) DO NOTHING",
            (inner.id, inner.dim),
        )
    started = time.perf_counter()
    report = Ingestor(store, embedder, settings).ingest_items(items, get_corpus("external"))
    wall = time.perf_counter() - started
    health = app.health()
    with store.pool.connection() as conn:
        chunks = conn.execute("SELECT count(*) AS n FROM case_law_chunks").fetchone()["n"]
    store.close()
    return {
        "sections": len(items),
        "ingested": report.ingested,
        "unsearchable": len(report.unsearchable),
        "failed": len(report.failed),
        "chunks": chunks,
        "seconds": round(wall, 2),
        "chunks_per_s": round(chunks / wall, 2),
        "embedder_seconds": round(embedder.seconds, 2),
        "texts_embedded": embedder.calls,
        "outside_embedder_share": round((wall - embedder.seconds) / wall, 4),
        "stale_embeddings_after": health["stale_embeddings"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--law", type=Path, default=PBL)
    parser.add_argument("--sections", type=int, default=0, help="only the first N (0: all)")
    parser.add_argument(
        "--warm-runs", type=int, default=3, help="warm runs; the median is reported"
    )
    args = parser.parse_args()
    sections = list(parse_law(args.law))
    if args.sections:
        sections = sections[: args.sections]
    items = [
        IngestItem(
            doc_id=s["doc_id"],
            text=s["text"],
            source_path=f"{args.law}#{s['eid']}",
            source_format="akn",
            doc_type="legislation",
            fields={k: s[k] for k in ("title", "law_title", "section_num", "eid")},
            metadata=s["metadata"],
        )
        for s in sections
    ]
    inner = E5Local()
    with tempfile.TemporaryDirectory(prefix="legal-ai-bench-") as home:
        pgdata = Path(home) / "pgdata"
        server = start_embedded(pgdata)
        try:
            cache_store = Store(ensure_database(server, "bench_cache"), max_size=2)
            cold = run(server, "bench_cold", cache_store, inner, items)
            warms = []
            for i in range(args.warm_runs):
                with cache_store.pool.connection() as conn:
                    conn.execute("CHECKPOINT")
                warms.append(run(server, f"bench_warm_{i}", cache_store, inner, items))
            warm = sorted(warms, key=lambda r: r["seconds"])[len(warms) // 2]
            warm["runs_seconds"] = [r["seconds"] for r in warms]
            cache_store.close()
        finally:
            stop_embedded(pgdata)
    print(
        json.dumps(
            {
                "benchmark": "ingest",
                "law": args.law.name if args.law != PBL else "PBL 148917",
                "cold": cold,
                "warm": warm,
                "warm_speedup": round(cold["seconds"] / warm["seconds"], 1),
                "targets": {"outside_embedder_share_max": 0.15, "warm_speedup_min": 20},
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
