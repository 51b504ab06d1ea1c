"""A long query is answered, not refused (docs/search.md, "A long query"): up to 20,000
characters, its every word searched by the lexical and reference legs, the meaning of its first
200 characters (SEMANTIC_QUERY_CHARS) by the semantic legs, which the answer says
(`semantic_query_chars`); a case number at its end is still found exactly. Stop words alone, a
filter matching nothing and a practice area matching everything each answer as a search does:
full k where k exist, empty (no error) where none do."""

from __future__ import annotations

import httpx
import pytest

from helpers import CHAIR_TOKEN, run, serving
from legal_ai.errors import InvalidInput
from legal_ai.retrieval.arguments import MAX_QUERY_CHARS, SEMANTIC_QUERY_CHARS, semantic_text
from legal_ai.web import clients
from legal_ai.web.app import create_app
from scenarios import committee_decisions

DECISIONS = [(f"dec-{n}", f"ערר (מרכז) {8090 + n}/24") for n in range(7)]
FILLER = "הוועדה המקומית דנה בבקשה להקלה בקו בניין ובתוספת קומה לפי התכנית החלה "


def long_query(length: int = 5000, named: str = "ערר (מרכז) 8092/24", at: int = 4500) -> str:
    """`length` characters of planning prose with the case number `named` near character `at`."""
    prose = (FILLER * (length // len(FILLER) + 2))[:at].rsplit(" ", 1)[0]
    text = f"{prose} {named} {FILLER * (length // len(FILLER) + 2)}"
    return text[:length].rsplit(" ", 1)[0]


@pytest.fixture
def decisions(app, tmp_path):
    committee_decisions(
        app,
        tmp_path,
        DECISIONS,
        "החלטת ועדת הערר {doc_id}: הקלה בקו בניין ותוספת קומה; הוועדה המקומית דחתה את הבקשה.",
        "2024-03-01",
    )
    return app


def test_the_semantic_legs_read_the_start_cut_at_a_space():
    assert semantic_text("הקלה בקו בניין") == "הקלה בקו בניין"
    long = long_query()
    cut = semantic_text(long)
    assert len(cut) <= SEMANTIC_QUERY_CHARS and long.startswith(cut)
    assert long[len(cut)] == " "  # the last word whole
    assert semantic_text("א" * 400) == "א" * SEMANTIC_QUERY_CHARS  # one word: cut where it must
    assert semantic_text(long, 2000) == long[: len(semantic_text(long, 2000))]


@pytest.mark.db
def test_a_long_query_finds_full_k_and_the_case_number_near_its_end(decisions):
    query = long_query()
    assert len(query) > 4900 and query.index("8092/24") > 4400
    answer = decisions.tool("search_internal_decisions", query=query, limit=5)
    assert len(answer["hits"]) == 5
    assert answer["hits"][0]["case_number"] == "ערר (מרכז) 8092/24" and answer["hits"][0]["exact"]
    assert answer["identifiers"] == [
        {"identifier": "ערר (מרכז) 8092/24", "kind": "case_number", "found": True}
    ]
    assert 0 < answer["semantic_query_chars"] <= SEMANTIC_QUERY_CHARS
    for mode in ("semantic", "lexical"):
        alone = decisions.tool("search_internal_decisions", query=query, limit=5, mode=mode)
        assert len(alone["hits"]) == 5
        assert ("semantic_query_chars" in alone) is (mode == "semantic")
    short = decisions.tool("search_internal_decisions", query="הקלה בקו בניין", limit=5)
    assert "semantic_query_chars" not in short  # read whole: nothing to say


@pytest.mark.db
def test_stop_words_a_filter_of_nothing_and_an_area_of_everything(decisions):
    stop_words = decisions.tool("search_internal_decisions", query="של את על עם כי", limit=5)
    assert len(stop_words["hits"]) == 5  # the semantic leg still answers
    nothing = decisions.tool(
        "search_internal_decisions", query=long_query(), practice_area="compensation", limit=5
    )
    assert nothing["hits"] == []
    everything = decisions.tool(
        "search_internal_decisions", query=long_query(), practice_area="planning", limit=5
    )
    assert len(everything["hits"]) == 5


@pytest.mark.db
def test_over_http_and_the_cli_and_refused_past_the_bound(decisions, client, cli_env):
    query = long_query()
    auth = {"Authorization": f"Bearer {CHAIR_TOKEN}"}
    answered = client.post(
        "/api/search",
        json={"corpus": "internal", "query": query, "limit": 5},
        headers=auth,
    )
    assert answered.status_code == 200, answered.text
    body = answered.json()
    assert len(body["hits"]) == 5 and body["semantic_query_chars"] <= SEMANTIC_QUERY_CHARS
    too_long = client.post(
        "/api/search",
        json={"corpus": "internal", "query": "א " * (MAX_QUERY_CHARS // 2 + 1), "limit": 5},
        headers=auth,
    )
    assert too_long.status_code == 400 and too_long.json()["code"] == "query.too_long"
    printed = run(cli_env, "search", query, "--corpus", "internal", "--limit", "5", "--json")
    assert '"semantic_query_chars"' in printed.stdout
    with pytest.raises(InvalidInput, match="shorten it to at most 20000"):
        decisions.tool("search_internal_decisions", query="א " * MAX_QUERY_CHARS)


@pytest.mark.db
def test_the_desk_answers_a_long_query_and_says_what_was_read(decisions, chair):
    page = chair.get("/search", params={"corpus": "internal", "q": long_query(), "go": "1"})
    assert page.status_code == 200
    assert 'data-note="long-query"' in page.text and "התווים הראשונים שלה" in page.text
    assert 'aria-invalid="true"' not in page.text and 'class="hit"' in page.text
    everywhere = chair.get("/search", params={"q": long_query()})
    assert 'data-note="long-query"' in everywhere.text
    short = chair.get("/search", params={"corpus": "internal", "q": "הקלה בקו בניין"})
    assert 'data-note="long-query"' not in short.text


@pytest.mark.db
def test_a_real_server_takes_a_long_query_in_its_address(decisions, client):
    """`legal-ai serve`'s options admit a 5,000-letter query in the address (~30 KB: the desk's
    search form sends it there); uvicorn's own limit of a request's head is 16 KB, which a
    request arriving in more than one piece would meet."""
    settings = client.app.state.settings
    options = clients.uvicorn_options(settings)
    assert options["h11_max_incomplete_event_size"] >= 6 * MAX_QUERY_CHARS + 16 * 1024
    params = {"corpus": "internal", "query": long_query(), "limit": 5}
    auth = {"Authorization": f"Bearer {CHAIR_TOKEN}"}
    with serving(create_app(settings, legal=decisions), **options) as base:
        answer = httpx.get(f"{base}/api/search", params=params, headers=auth, timeout=60)
    assert answer.status_code == 200, answer.text[:300]
    assert len(answer.json()["hits"]) == 5 and len(answer.request.url.raw_path) > 16 * 1024
