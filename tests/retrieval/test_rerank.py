"""The second phase of a search (LEGAL_AI_RERANKER): the fused list's first N reordered by the
reranker's relevance — the RRF scores untouched, each hit carrying its rerank score and its rank
before reranking — and a reranker that fails or runs past its budget leaving the fused order,
the hits saying so, the search never failing. The scripted reranker (bench/scripted_reranker.py)
speaks Voyage's wire format through the real SDK."""

import importlib.util
import time

import pytest

from helpers import ROOT, ScriptedHandler, local_server, write
from legal_ai.app import App
from legal_ai.ops import health
from legal_ai.providers.rerankers import make_reranker
from legal_ai.retrieval.search import search

pytestmark = pytest.mark.db

QUERY = "היטל השבחה בתכנית רחביה"
TEXTS = [
    "ערר על שומת היטל השבחה שנערכה לאחר אישור תכנית מפורטת במרכז העיר.",
    "הקלה בקו בניין צדדי מחייבת פרסום לשכנים ושמיעת התנגדויות.",
    "היטל השבחה בתכנית רחביה: הוועדה קבעה כי זכויות שמומשו קודם לכן לא ייכללו.",
    "שימוש חורג לגן ילדים בדירת מגורים לתקופה קצובה.",
    "תביעת פיצויים לפי סעיף 197 בשל פגיעה מתכנית רחביה.",
    "היטל השבחה נגבה במימוש זכויות, במכר או בהיתר בנייה.",
]


def _scripted():
    spec = importlib.util.spec_from_file_location(
        "scripted_reranker", ROOT / "bench" / "scripted_reranker.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Failing(ScriptedHandler):
    slow = False

    def do_POST(self):
        self.read_json()
        if type(self).slow:
            time.sleep(1.0)
            self.send_json({"object": "list", "data": [], "usage": {"total_tokens": 0}})
        else:
            self.send_json({"detail": "overloaded"}, status=500)


@pytest.fixture
def library(app, tmp_path):
    for n, text in enumerate(TEXTS):
        path = write(tmp_path / f"d{n}.txt", text)
        assert app.ingest([path], "external", doc_id=f"d{n}").ingested == 1
    return app


def _search(app, settings, reranker=None):
    return search(app.store, app.embedder, settings, "external", QUERY, limit=6, reranker=reranker)


def test_the_reranker_reorders_the_fused_list_and_says_how(library, settings, e5):
    scripted = _scripted()
    fused = _search(library, settings)
    assert "rerank" not in fused.hits[0] and "rerank" not in fused.as_dict()  # off by default
    with scripted.serve() as url:
        configured = settings.model_copy(
            update={"reranker": scripted.spec(url), "rerank_top_n": 30}
        )
        reranked = _search(library, configured, make_reranker(configured))
        # The composition root hands its reranker to every search (the tools, MCP, HTTP, desk).
        legal = App(configured, store=library.store, embedder=e5)
        through_app = legal.search("external", QUERY, limit=6)
    assert through_app.hits == reranked.hits
    relevance = [scripted.scripted_score(QUERY, hit["snippet"]) for hit in reranked.hits]
    assert relevance == sorted(relevance, reverse=True) and relevance != [
        scripted.scripted_score(QUERY, hit["snippet"]) for hit in fused.hits
    ]
    before = {hit["doc_id"]: (rank, hit["score"]) for rank, hit in enumerate(fused.hits, 1)}
    for hit, score in zip(reranked.hits, relevance, strict=True):
        assert hit["rerank"] == {
            "score": score,
            "fused_rank": before[hit["doc_id"]][0],
            "by": f"voyage:scripted@{url}",
        }
        assert hit["score"] == before[hit["doc_id"]][1]  # fusion untouched: RRF's score
    stage = reranked.as_dict()["rerank"]
    assert stage["by"] == f"voyage:scripted@{url}" and stage["skipped"] is None
    assert stage["candidates"] == len(TEXTS) and "rerank" in reranked.timings


@pytest.mark.parametrize("slow", [False, True], ids=["http-500", "past-the-budget"])
def test_a_failing_or_slow_reranker_leaves_the_fused_order(library, settings, e5, slow):
    fused = _search(library, settings)
    Failing.slow = slow
    with local_server(Failing) as url:
        configured = settings.model_copy(
            update={"reranker": f"voyage:rerank-2.5@{url}", "rerank_budget_ms": 300}
        )
        started = time.perf_counter()
        result = _search(library, configured, make_reranker(configured))
        elapsed = time.perf_counter() - started
        # `legal-ai health` warns in one line (the CLI prints it; the JSON carries it).
        stage = health.reranker(App(configured, store=library.store, embedder=e5))
    assert [h["doc_id"] for h in result.hits] == [h["doc_id"] for h in fused.hits]
    why = "no answer within 300 ms" if slow else "ServerError"
    assert why in result.rerank["skipped"]
    for rank, hit in enumerate(result.hits, 1):
        assert hit["rerank"]["score"] is None and hit["rerank"]["fused_rank"] == rank
        assert why in hit["rerank"]["skipped"]
    assert stage["by"] == f"voyage:rerank-2.5@{url}" and why in stage["warning"]
    assert "\n" not in stage["warning"]
    if slow:
        assert elapsed < 0.9  # the search did not wait for the reranker's answer
