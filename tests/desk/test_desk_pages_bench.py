"""bench/desk_pages.py at a tiny scale (issue 23 item 7), so it cannot rot: its seeding (five cases
through the upload services, twenty lessons decided as the learning stage and the chair leave
them) and one timing pass over every desk page it finds in the app's routes, each answered.
The vectors are bench/desk_seed.Cheap's under a name of their own ("bench-cheap"): nothing is
embedded by a model, and the embedding cache's e5 entries are never touched."""

import importlib.util
import random
import sys

import pytest

from helpers import ROOT
from legal_ai.app import App
from legal_ai.web.desk import menu

pytestmark = pytest.mark.db


def _bench():
    spec = importlib.util.spec_from_file_location(
        "bench_desk_pages", ROOT / "bench" / "desk_pages.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_benchmark_seeds_and_times_every_desk_page(app):
    bench = _bench()
    seeding = App(app.settings, store=app.store, embedder=bench.desk_seed.Cheap("bench-cheap"))
    seeded = bench.desk_seed.seed(seeding, 5, 20, random.Random(7))
    summary = seeded.summary(seeding)
    assert (summary["cases"], summary["finals"], summary["lessons"]) == (5, 4, 20)
    rows = summary["rows"]
    assert rows["drafts"] == 5 and rows["style_distance_history"] == 4
    assert rows["decision_lessons"] == 20 and rows["learning_audit"] >= 8
    assert summary["decided"] == {"escalated": 2, "panel": 2, "approve": 3, "reject": 2}
    # Two finals of one decision date (the dashboard's same-day points).
    with app.store.connection() as conn:
        days = conn.execute(
            "SELECT decided_on, count(*) AS n FROM case_law WHERE source_kind ="
            " 'internal_committee' GROUP BY 1 ORDER BY 1"
        ).fetchall()
    assert [d["n"] for d in days] == [2, 1, 1]

    report = bench.measure(seeding, seeded, requests=1)
    pages = report["pages"]
    assert report["failed"] == [] and report["skipped"] == [], report
    # Found in the routes, the parameters filled from what was seeded: every page of the menu,
    # each card's link (its queue), a source page, a search with a query.
    for item in menu.NAV:
        assert any(p == item.href or p.startswith(item.href + "?") for p in pages), item.href
    for card in menu.CARDS:
        assert card.href.split("#")[0] in pages
    assert any(p.startswith("/source/internal/") for p in pages)
    assert bench.SEARCH in pages and "/learning" in pages and "/cases" in pages
    for path, figures in pages.items():
        assert figures["status"] in (200, 303), path
        assert figures["p50"] > 0 and figures["first"] > 0, path
    assert report["peer_login"]["p50"] > 0 and report["menu_counts"]["p50"] > 0
