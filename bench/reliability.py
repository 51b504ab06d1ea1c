"""Benchmark: the reliability suite's long mode (tests/reliability runs the quick one in
`make test`). In a fresh embedded PostgreSQL of its own (a temp folder, stopped at the end):

- load: `--clients` concurrent MCP clients over `--mcp-servers` `legal-ai mcp` processes search
  every corpus for at least `--seconds`, while `--final-pairs` pairs of finals (the two of a pair
  at once, citing the same authorities in opposite orders) are uploaded over HTTP to
  `legal-ai serve` and `legal-ai ingest` loads `--ingest-files` files;
- pool exhaustion: `--pool-requests` concurrent requests to a server whose one pooled connection
  is held (each must be answered 503 within its 0.5 s pool timeout);
- crashes: `--crash-rounds` times, `legal-ai ingest` of a fresh folder is killed with SIGKILL at
  a random moment; every item is checked wholly old or new, and the re-run must embed only what
  the killed run had not cached.

    .venv/bin/python bench/reliability.py [--clients 16] [--seconds 60] [--crash-rounds 10]

Prints one JSON object (requests served, errors, p50/p95/max latency, crashes survived).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "reliability"))

from harness import (
    CHAIR_NAME,
    CHUNKS,
    CLI,
    Spawned,
    cached_hashes,
    check_finals,
    check_items,
    check_lexicon,
    environment,
    item_text,
    pool_exhaustion,
    quiesce,
    run_load,
    scalar,
    seed_load_world,
)

from legal_ai.app import App
from legal_ai.config import Settings
from legal_ai.providers.embedders import E5Local
from legal_ai.store import ensure_database, start_embedded, stop_embedded
from legal_ai.store.migrations import migrate


def crash_rounds(url: str, work: Path, e5: E5Local, rounds: int, files: int, seed: int) -> dict:
    """Kill `legal-ai ingest` at random moments; check, re-run, check again."""
    rng = random.Random(seed)
    settings = Settings(database_url=url, home=work / "home", committee_chair=CHAIR_NAME, **CHUNKS)
    out = {
        "rounds": rounds,
        "killed_mid_run": 0,
        "finished_first": 0,
        "items_checked": 0,
        "reembedded_after_kill": 0,
        "reused_from_killed_run": 0,
    }
    for round_ in range(rounds):
        folder = work / f"crash{round_}"
        folder.mkdir(parents=True)
        case = f"ערר {9000 + round_}/25"
        for n in range(files):
            (folder / f"d{n}.txt").write_text(item_text(10_000 * (round_ + 1) + n), "utf-8")
        env = environment(url, work / "home", work / f"tmp{round_}", **CHUNKS)
        cli = Spawned(
            [
                *CLI,
                "ingest",
                str(folder),
                "--corpus",
                "case",
                "--case-number",
                case,
                "--practice-area",
                "planning",
                "--json",
            ],
            env,
            work,
            f"crash{round_}",
        )
        time.sleep(rng.uniform(0.5, 2.0 + 0.3 * files))
        if cli.alive():
            cli.kill9()
            out["killed_mid_run"] += 1
        else:
            out["finished_first"] += 1
        quiesce(url)
        check_items(url, count_tokens=e5.count_tokens, **CHUNKS)
        before = cached_hashes(url, "e5-local")
        with App(settings, embedder=e5) as app:
            report = app.ingest(
                [folder], "case", meta={"case_number": case, "practice_area": "planning"}
            )
            calls = app.embedder.calls
        after = cached_hashes(url, "e5-local")
        assert not report.failed and calls == len(after - before), (report.as_dict(), calls)
        chunk_hashes = scalar(
            url,
            "SELECT array_agg(c.text_hash) FROM document_chunks c JOIN documents d"
            " ON d.id = c.document_id WHERE d.case_number = %s",
            (case,),
        )
        out["reembedded_after_kill"] += calls
        out["reused_from_killed_run"] += len(set(chunk_hashes) & before)
        out["items_checked"] += check_items(url, count_tokens=e5.count_tokens, **CHUNKS)["items"]
    check_lexicon(url)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--mcp-servers", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument(
        "--think", type=float, default=0.0, help="pause between a client's requests"
    )
    parser.add_argument("--final-pairs", type=int, default=8)
    parser.add_argument("--ingest-files", type=int, default=40)
    parser.add_argument("--pool-requests", type=int, default=50)
    parser.add_argument("--crash-rounds", type=int, default=10)
    parser.add_argument("--crash-files", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    e5 = E5Local()
    figures: dict = {"arguments": vars(args)}
    with tempfile.TemporaryDirectory(prefix="legal-ai-reliability-") as tmp:
        work = Path(tmp)
        pgdata = work / "pgdata"
        server = start_embedded(pgdata)
        try:
            load_url = ensure_database(server, "legal_ai_rel_bench_load")
            settings = Settings(
                database_url=load_url, home=work / "home", committee_chair=CHAIR_NAME, **CHUNKS
            )
            with App(settings, embedder=e5) as app:
                seed_load_world(app, work / "seed")
            load = run_load(
                load_url,
                work / "load",
                clients=args.clients,
                mcp_servers=args.mcp_servers,
                seconds=args.seconds,
                final_pairs=args.final_pairs,
                ingest_files=args.ingest_files,
                think=args.think,
                timeout=max(600.0, 4 * args.seconds),
            )
            load["finals_checked"] = check_finals(load_url)["finals"]
            load.pop("cases")
            figures["load"] = load
            pool_url = ensure_database(server, "legal_ai_rel_bench_pool")
            migrate(pool_url)
            pool = pool_exhaustion(pool_url, work / "pool", requests=args.pool_requests)
            figures["pool_exhaustion"] = {
                "requests": args.pool_requests,
                "answered_503": pool["statuses"].count(503),
                "other_statuses": sorted({s for s in pool["statuses"] if s != 503}),
                "seconds": pool["seconds"],
                "draft_after_lock": pool["draft"][0],
            }
            crash_url = ensure_database(server, "legal_ai_rel_bench_crash")
            migrate(crash_url)
            figures["crashes"] = crash_rounds(
                crash_url, work / "crash", e5, args.crash_rounds, args.crash_files, args.seed
            )
        finally:
            stop_embedded(pgdata)
    print(json.dumps(figures, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
