"""Benchmark: every page of the chair's desk, timed at the server (issue 23 item 7: each under
300 ms with the demo data plus 1,000 lessons and 200 cases).

Builds a fresh database on the configured server (LEGAL_AI_DATABASE_URL, else the embedded one):
the demo's corpus and learning loop (demo.populate, embedded by the configured model), then
bench/desk_seed.py's cases and lessons (through the services the uploads and the learning stage
use; their vectors from a hash, nothing embedded). Then the desk (create_app over that database)
under an in-process client (Starlette's TestClient), signed in as the chair. The pages are found
from the app's routes, so a page added later is timed too: every GET page of the desk
(core.is_desk), its path parameters and required query parameters filled from the seeded data
(a route whose parameters cannot be filled is listed under `skipped`), plus every card's link of
"מה מחכה לי" (the queues, by ?lane=) and a search with a query. Each page is asked once first
(`first`: templates compiled, the plot drawn — what the first view after a start or a change
costs), then `--requests` rounds of every page in turn, so the machine's noise falls on all
alike; per page the median, p95, first, status and size; `over_target` lists the pages whose
p95 reaches 300 ms, `first_over_target` those whose first answer does, `failed` any answered
with an error.

The peers, in the same run: /login (the desk's template without a session or counts: what any
page costs at least; each page's `ratio` is its median over this one's) and the menu's counts
alone (menu.counts: what every signed-in page reads for the menu).

    .venv/bin/python bench/desk_pages.py [--cases 200] [--lessons 1000] [--requests 20]
        [--no-demo] [--keep]

Prints one JSON object (milliseconds)."""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import random
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

import desk_seed
from legal_ai import accounts, demo
from legal_ai.app import App
from legal_ai.auth import CHAIR
from legal_ai.config import Settings
from legal_ai.errors import NotFound
from legal_ai.learning.methodology import profiles as methodology
from legal_ai.store import Store, drop_database, ensure_database
from legal_ai.store.db import server_url
from legal_ai.store.server import stop_embedded
from legal_ai.web.app import create_app
from legal_ai.web.desk import core, menu

DB = "legal_ai_bench_desk"
PASSWORD = "bench-desk-password-1042"
TARGET_MS = 300
SEARCH = "/search?q=" + "הקלה בקו בניין"


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"p50": round(statistics.median(ordered) * 1000, 1), "p95": round(p95 * 1000, 1)}


def parameters(app: Any, seeded: desk_seed.Seeded) -> dict[str, str]:
    """What a page's parameters are filled with: a seeded case with its final (its internal
    decision's source page), the appeal type of the demo's promote, its first and last
    methodology versions."""
    case = (seeded.finals or seeded.cases or [""])[0]
    try:
        versions = sorted(v["version"] for v in methodology.history(app, "permit")["versions"])
    except NotFound:  # no profile of that type yet (no demo)
        versions = []
    return {
        "corpus": "internal",
        "doc_id": case,
        "case": case,
        "case_number": case,
        "appeal_type": "permit",
        "a": str(versions[0]) if versions else "1",
        "b": str(versions[-1]) if versions else "1",
    }


def pages(api: Any, filled: dict[str, str]) -> tuple[list[str], list[str]]:
    """The desk's GET pages (paths with their query), and the routes skipped (a parameter not
    known to `filled`)."""
    found, skipped = [], []
    for route in api.routes:
        if not isinstance(route, APIRoute) or "GET" not in route.methods:
            continue
        if not core.is_desk(route.path) or route.path == "/login":
            continue
        if route.path == "/original":  # a file, asked for by its case and kind (below)
            continue
        if route.path.startswith("/uploads/"):  # an upload on its way: lives while it waits
            continue
        names = [p.name for p in route.dependant.path_params]
        required = [p.alias for p in route.dependant.query_params if p.field_info.is_required()]
        if any(n not in filled for n in names + required):
            skipped.append(route.path)
            continue
        path = re.sub(r"\{(\w+)(?::\w+)?\}", lambda m: filled[m[1]], route.path)
        query = "&".join(f"{n}={filled[n]}" for n in required)
        found.append(path + (f"?{query}" if query else ""))
    for card in menu.CARDS:  # each queue by its link (?queue=...), the fragment dropped
        found.append(card.href.split("#")[0])
    found.append(SEARCH)
    found.append(f"/original?case={quote(filled['case'], safe='')}&kind=draft&version=1")
    return list(dict.fromkeys(found)), skipped


def signed_in(api: Any) -> TestClient:
    client = TestClient(api)
    form = client.get("/login")
    csrf = re.search(r'name="csrf" value="([^"]+)"', form.text)[1]
    answer = client.post(
        "/login",
        data={"name": "chair", "password": PASSWORD, "csrf": csrf},
        follow_redirects=False,
    )
    assert answer.status_code == 303, answer.text[:500]
    return client


def timed(client: TestClient, path: str) -> tuple[float, Any]:
    started = time.perf_counter()
    answer = client.get(path, follow_redirects=False)
    return time.perf_counter() - started, answer


def measure(app: Any, seeded: desk_seed.Seeded, requests: int) -> dict:
    """Every page once (`first`), then `requests` rounds of all; the peers the same way."""
    settings = app.settings.model_copy(
        update={"chair_token": "bench-chair-token-0001", "agent_token": "bench-agent-token-01"}
    )
    accounts.set_password(app, "chair", PASSWORD)
    api = create_app(settings, legal=app)
    paths, skipped = pages(api, parameters(app, seeded))
    samples: dict[str, list[float]] = {p: [] for p in paths}
    first: dict[str, float] = {}
    answers: dict[str, Any] = {}
    peer, counts = [], []
    view = app.acting_as(CHAIR)
    # Not entered (`with`): the app's lifespan (the MCP transport) is not the desk's.
    client, anonymous = signed_in(api), TestClient(api)
    quiet = logging.root.manager.disable
    logging.disable(logging.INFO)  # no line per request: the server's work is what is timed
    try:
        for path in paths:
            first[path], answers[path] = timed(client, path)
        for _ in range(requests):
            for path in paths:
                samples[path].append(timed(client, path)[0])
            peer.append(timed(anonymous, "/login")[0])
            started = time.perf_counter()
            menu.counts(view)
            counts.append(time.perf_counter() - started)
    finally:
        logging.disable(quiet)
    base = percentiles(peer)["p50"]
    shown = {}
    for path in paths:
        figures = percentiles(samples[path]) if samples[path] else {"p50": None, "p95": None}
        shown[path] = {
            **figures,
            "first": round(first[path] * 1000, 1),
            "ratio": round(figures["p50"] / base, 1) if figures["p50"] and base else None,
            "status": answers[path].status_code,
            "kb": round(len(answers[path].content) / 1024, 1),
        }
    slow = [p for p, f in shown.items() if f["p95"] is not None and f["p95"] >= TARGET_MS]
    slow_first = [p for p, f in shown.items() if f["first"] >= TARGET_MS]
    failed = [p for p, f in shown.items() if f["status"] >= 400]
    return {
        "requests": requests,
        "pages": shown,
        "skipped": skipped,
        "peer_login": percentiles(peer),
        "menu_counts": percentiles(counts),
        "target_ms": TARGET_MS,
        "over_target": slow,  # by p95
        "first_over_target": slow_first,  # the first answer (after a start or a change)
        "failed": failed,
    }


def machine() -> dict:
    return {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--lessons", type=int, default=1000)
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--no-demo", dest="demo", action="store_false")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    args = parser.parse_args()
    settings = Settings()
    if not settings.committee_chair:
        settings = settings.model_copy(update={"committee_chair": demo.DEMO_CHAIR})
    # The embedded server, when none is configured: stopped at the end if this run started it.
    started_here = not settings.database_url and not (settings.pgdata / "postmaster.pid").exists()
    server = server_url(settings)
    drop_database(server, DB)
    url = ensure_database(server, DB)
    store = Store(url, max_size=4)
    report: dict = {"machine": machine()}
    try:
        settings = settings.model_copy(update={"database_url": url})
        # The demo embeds with the configured model (its cache: this database only); the seeded
        # cases get Cheap vectors under the same embedder's name, so nothing is stale.
        app = App(settings, store=store) if args.demo else None
        started = time.perf_counter()
        if app is not None:
            demo.populate(app, echo=lambda line: None)
            cheap = desk_seed.Cheap(app.embedder.id, app.embedder.dim)
        else:
            cheap = desk_seed.Cheap()
        seeding = App(settings, store=store, embedder=cheap)
        seeded = desk_seed.seed(seeding, args.cases, args.lessons, random.Random(1042))
        report["seeding_s"] = round(time.perf_counter() - started, 1)
        report["seeded"] = seeded.summary(seeding)
        report.update(measure(app or seeding, seeded, args.requests))
        report["machine"]["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
        print(json.dumps(report, indent=2, ensure_ascii=False))
    finally:
        store.close()
        if not args.keep:
            drop_database(server, DB)
        if started_here:
            stop_embedded(settings.pgdata)


if __name__ == "__main__":
    main()
