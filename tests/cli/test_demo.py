"""`legal-ai demo` on the embedded server: every corpus loads, searches return provenance, the
incomplete item is reported and never searched, and nothing leaks."""

import pytest

from helpers import DEMO_SEARCH_TOOLS
from legal_ai.config import Settings
from legal_ai.demo import run_demo

pytestmark = pytest.mark.db


@pytest.mark.server_db("legal_ai_demo")
def test_demo_loads_every_corpus_and_searches(server_url, settings):
    lines: list[str] = []
    # the embedded server of the test home; the demo builds its own database on it
    summary = run_demo(Settings(home=settings.home), echo=lines.append)
    states = summary["ingest"]
    assert states["demo-ext-incomplete"].startswith("NOT searchable, missing: case_number")
    assert all(v == "searchable" for k, v in states.items() if k != "demo-ext-incomplete")
    assert all(s["hits"] > 0 for s in summary["searches"])
    assert summary["health"]["isolation"]["leaks"] == 0
    assert summary["health"]["unsearchable"] == 1
    text = "\n".join(lines)
    assert "chars " in text and "digest: a pointer, not citable" in text
    assert {s["tool"] for s in summary["searches"]} == set(DEMO_SEARCH_TOOLS)
    assert "principle" in text and 'quote: "' in text
    learning = summary["learning"]
    assert learning["pair_status"] == "lessons_folded"
    assert learning["history_row"]["anti_pattern_total"] >= 5
    assert learning["history_row"]["final_anti_pattern_total"] == 0
    assert learning["citations"] == {
        "linked": 1,
        "missing": 1,
        "ambiguous": 0,
    }  # עע"מ 9101/20 is in the library
    assert learning["brief_lessons"] == 1
    assert learning["internal_hit"] == "ערר (מרכז) 7001/25"
    # Both paths of an internal decision's metadata: given at ingest (7550 searchable at once);
    # the final's copy awaiting it, then filled by the (scripted) enricher.
    assert summary["ingest"]["demo-int-7550"] == "searchable"
    assert "internal decision awaits metadata (headnote, summary, tags)" in text
    assert "enricher (SCRIPTED model, not a real one): grounded proposal" in text
    assert "learning loop" in text
    # No panel configured: the rulings and decisions queued on arrival wait, saying what to set.
    assert summary["principles"]["extracted"] == 0 and summary["principles"]["waiting"] >= 3
    assert "LEGAL_AI_PRINCIPLE_PANEL" in summary["principles"]["waiting_for"]
    assert "legal principles (עקרונות משפטיים)" in text
    # What the writer reads: the demo finals' shared formulas (header, opening, hearing, ...).
    assert summary["writer"]["templates"] >= 3 and "what the writer reads" in text
