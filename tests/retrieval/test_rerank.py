"""The second phase of a search (LEGAL_AI_RERANKER): the fused list's first N reordered by the
reranker's relevance — the RRF scores untouched, each hit carrying its rerank score and its rank
before reranking — and a reranker that fails or runs past its budget leaving the fused order,
the hits saying so, the search never failing. The scripted rerankers speak Voyage's wire format
(through the real SDK) on a local server."""

import time

import pytest

from helpers import ScriptedHandler, local_server, write
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


class Reversing(ScriptedHandler):
    """Voyage's /v1/rerank, scripted: passage i of n scores (i + 1) / n, so the reranked order
    is the fused order reversed."""

    def do_POST(self):
        body = self.read_json()
        n = len(body["documents"])
        data = [{"index": i, "relevance_score": (i + 1) / n} for i in reversed(range(n))]
        self.send_json({"object": "list", "data": data, "usage": {"total_tokens": n}})


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
        meta = {"court": "העליון", "decided_on": "2021-02-01", "case_number": f'עע"מ {70 + n}/20'}
        assert app.ingest([path], "external", meta=meta, doc_id=f"d{n}").ingested == 1
    return app


def _search(app, settings, reranker=None):
    return search(app.store, app.embedder, settings, "external", QUERY, limit=6, reranker=reranker)


def test_the_reranker_reorders_the_fused_list_and_says_how(library, settings, e5):
    fused = _search(library, settings)
    assert "rerank" not in fused.hits[0] and "rerank" not in fused.as_dict()  # off by default
    assert len(fused.hits) == len(TEXTS)  # one chunk each, none capped
    with local_server(Reversing) as url:
        configured = settings.model_copy(update={"reranker": f"voyage:rerank-2.5@{url}"})
        reranked = _search(library, configured, make_reranker(configured))
        # The composition root hands its reranker to every search (the tools, MCP, HTTP, desk).
        legal = App(configured, store=library.store, embedder=e5)
        through_app = legal.search("external", QUERY, limit=6)
    assert through_app.hits == reranked.hits
    n = len(TEXTS)
    assert [h["doc_id"] for h in reranked.hits] == [h["doc_id"] for h in reversed(fused.hits)]
    for rank, hit in enumerate(reranked.hits, 1):
        fused_rank = n + 1 - rank
        assert hit["rerank"] == {
            "score": round(fused_rank / n, 6),
            "fused_rank": fused_rank,
            "by": f"voyage:rerank-2.5@{url}",
        }
        # Fusion untouched: each hit keeps its RRF score.
        assert hit["score"] == fused.hits[fused_rank - 1]["score"]
    stage = reranked.as_dict()["rerank"]
    assert stage["by"] == f"voyage:rerank-2.5@{url}" and stage["skipped"] is None
    assert stage["candidates"] == n and "rerank" in reranked.timings
    # Only the first N are reordered: with N = 2 the first two swap, the rest keep their place.
    with local_server(Reversing) as url2:
        two = settings.model_copy(
            update={"reranker": f"voyage:rerank-2.5@{url2}", "rerank_top_n": 2}
        )
        partial = _search(library, two, make_reranker(two))
    order = [h["doc_id"] for h in fused.hits]
    assert [h["doc_id"] for h in partial.hits] == [order[1], order[0], *order[2:]]
    assert [h["rerank"]["score"] for h in partial.hits[2:]] == [None] * (n - 2)


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
