"""Benchmark: what search telemetry costs (issue 15 item 2; legal_ai/telemetry.py).

Loads a small Hebrew corpus into a fresh database on the configured server (LEGAL_AI_DATABASE_URL,
else the embedded one), then times N searches through `App.search` with logging (surface `cli`)
and N without (no surface), interleaved query by query and alternating which goes first, so the
machine's noise falls on both alike; and the logging alone (`telemetry.log_search`: one INSERT
of the row with its hits) N times. Queries repeat, so their embeddings come from the cache: the
search is as fast as it gets and the overhead shows at its largest share.

    .venv/bin/python bench/telemetry.py [--searches 200] [--mode hybrid]

Prints one JSON object (milliseconds)."""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from legal_ai import telemetry
from legal_ai.app import App
from legal_ai.config import Settings
from legal_ai.store import Store, drop_database, ensure_database
from legal_ai.store.db import server_url

DB = "legal_ai_bench_telemetry"
TOPICS = [
    "היטל השבחה על תכנית מפורטת שהגדילה את זכויות הבנייה",
    "הקלה בקו בניין צדדי ופגיעה בפרטיות השכנים",
    "שימוש חורג לגן ילדים בדירת מגורים",
    "פיצויים לפי סעיף 197 בשל פגיעה מתכנית",
    "סטייה ניכרת מתכנית אינה יכולה להינתן כהקלה",
    "ערר על החלטת הוועדה המקומית שהוגש באיחור",
    "שומת השמאי המכריע ועסקאות השוואה",
    "תוספת קומה ומרפסות בבניין משותף",
]


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"p50": round(statistics.median(ordered) * 1000, 3), "p95": round(p95 * 1000, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--searches", type=int, default=200)
    parser.add_argument("--mode", default="hybrid")
    args = parser.parse_args()
    settings = Settings()
    server = server_url(settings)
    drop_database(server, DB)
    url = ensure_database(server, DB)
    store = Store(url, max_size=2)
    try:
        app = App(settings.model_copy(update={"database_url": url}), store=store)
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for i in range(48):
                text = ". ".join(TOPICS[(i + j) % len(TOPICS)] for j in range(4)) + f". תיק {i}."
                path = Path(tmp) / f"d{i}.txt"
                path.write_text(text, encoding="utf-8")
                paths.append(path)
            for i, path in enumerate(paths):
                meta = {
                    "court": "העליון",
                    "case_number": f'עע"מ {i}/20',
                    "decided_on": "2020-01-01",
                }
                report = app.ingest([path], "external", doc_id=f"d{i}", meta=meta)
                assert not report.unsearchable, report
        logged, plain = app.on_surface("cli"), app
        queries = [t.split(" על ")[0] for t in TOPICS] + TOPICS
        for q in queries:  # warm: the query embeddings are cached from here on
            plain.search("external", q, mode=args.mode)
        with_log, without, alone = [], [], []
        for i in range(args.searches):
            q = queries[i % len(queries)]
            order = ((logged, with_log), (plain, without))
            for view, samples in order if i % 2 else reversed(order):
                t0 = time.perf_counter()
                result = view.search("external", q, mode=args.mode)
                samples.append(time.perf_counter() - t0)
        for i in range(args.searches):
            t0 = time.perf_counter()
            telemetry.log_search(
                logged,
                corpus="external",
                query=queries[i % len(queries)],
                filters=None,
                mode=args.mode,
                limit=10,
                result=result,
                latency_ms=1.0,
            )
            alone.append(time.perf_counter() - t0)
        on, off = percentiles(with_log), percentiles(without)
        report = {
            "searches": args.searches,
            "mode": args.mode,
            "k": 10,
            "hits": len(result.hits),
            "with_logging": on,
            "without_logging": off,
            "overhead_p50_ms": round(on["p50"] - off["p50"], 3),
            "overhead_p50_share": round((on["p50"] - off["p50"]) / off["p50"], 4),
            # the median of each pair's difference (same query, back to back): steadier
            "paired_median_diff_ms": round(
                statistics.median(a - b for a, b in zip(with_log, without, strict=True)) * 1000, 3
            ),
            "log_search_alone": percentiles(alone),
        }
        print(json.dumps(report, indent=2))
    finally:
        store.close()
        drop_database(server, DB)


if __name__ == "__main__":
    main()
