"""Agents over the network: the MCP tools over streamable HTTP at /mcp of the web app that
`legal-ai serve` runs (here under uvicorn on 127.0.0.1, a free port, lifespan on), driven by the
SDK's own streamable HTTP client with an agent's bearer token; and GET /api/search with the
CLI's parameters and its --json."""

import asyncio
import json
import subprocess
import sys

import httpx
import pytest
from fastapi.testclient import TestClient

from helpers import DECISION_FIELDS, payload, remote_session, serving, write
from legal_ai.mcp_server import build_server
from legal_ai.web.app import create_app

pytestmark = pytest.mark.db

AGENT = "remote-agent-token"
CHAIR = "remote-chair-token"
TEXT = "הקלה בקו בניין צדדי פוגעת בפרטיות השכנים ובאור."


def seed(app, tmp_path) -> None:
    for corpus, meta in [
        ("style", {"case_number": "ערר 31/25", "practice_area": "planning"}),
        ("external", {"case_number": 'עע"מ 32/20', "court": "העליון", "decided_on": "2020-02-02"}),
        ("external", {"case_number": 'עת"מ 33/21', "court": "המחוזי", "decided_on": "2021-03-03"}),
        (
            "internal",
            {
                "case_number": "ערר 34/24",
                "decided_on": "2024-03-03",
                "practice_area": "planning",
                **DECISION_FIELDS,
            },
        ),
        ("case", {"case_number": "ערר 35/25", "practice_area": "planning"}),
    ]:
        name = meta["case_number"].replace("/", "-").replace('"', "")
        path = write(tmp_path / f"{name}.txt", f"{TEXT} ({meta['case_number']})")
        report = app.ingest([path], corpus, meta=meta, doc_id=f"{corpus}-{name}")
        assert report.ingested == 1


def remote_settings(app):
    return app.settings.model_copy(
        update={
            "agent_token": f"drafter={AGENT}",
            "chair_token": CHAIR,
            "committee_chair": 'עו"ד בדיקה',
        }
    )


@pytest.fixture
def served(app):
    with serving(create_app(remote_settings(app), legal=app), lifespan="on") as url:
        yield url


def test_a_remote_agent_lists_and_calls_the_tools_over_http(app, tmp_path, served):
    seed(app, tmp_path)
    findings = ["[סגנון] משפטים קצרים", "[מבנה] מסגרת נורמטיבית נפרדת", "[טבלאי] טבלת מועדים"]
    calls = [
        ("search_precedent_library", {"query": "הקלה בקו בניין", "court": "העליון"}),
        ("search_precedent_library", {"query": "פרטיות השכנים", "mode": "lexical"}),
        ("search_decisions", {"query": "הקלה", "practice_area": "planning"}),
        ("search_internal_decisions", {"query": "הקלה", "date_from": "2024-01-01"}),
        ("search_decisions", {"query": "הקלה", "practice_area": ""}),
        ("search_internal_decisions", {"query": "הקלה", "date_from": "2024-13-01"}),
        ("record_curator_findings", {"case_number": "ערר 31/25", "findings": findings}),
    ]
    names, results = asyncio.run(remote_session(served, AGENT, calls))
    # The same tools as over stdio (`legal-ai mcp`), in the same order.
    local = asyncio.run(build_server(app.settings).list_tools())
    assert names == [t.name for t in local] and len(names) >= 20
    by_court, lexical, decisions, internal, no_area, bad_date, curator = results
    assert [h["doc_id"] for h in payload(by_court)["hits"]] == ["external-עעמ 32-20"]
    assert payload(by_court)["tool"] == "search_precedent_library"
    hit = payload(by_court)["hits"][0]
    assert hit["court"] == "העליון" and hit["chunk_id"] and hit["snippet"].startswith("הקלה")
    assert {h["doc_id"] for h in payload(lexical)["hits"]} == {
        "external-עעמ 32-20",
        "external-עתמ 33-21",
    }
    assert [h["doc_id"] for h in payload(decisions)["hits"]] == ["style-ערר 31-25"]
    assert [h["doc_id"] for h in payload(internal)["hits"]] == ["internal-ערר 34-24"]
    assert no_area.is_error and "needs practice_area" in no_area.content[0].text
    assert bad_date.is_error and "is not a date" in bad_date.content[0].text
    # each error ends with its code (catalog.py): the same `code` as the API's JSON
    assert no_area.content[0].text.endswith("[code: search.practice_area_needed]")
    assert bad_date.content[0].text.endswith("[code: date.invalid]")
    # The call ran as the agent whose token it carried, under the agent's database role.
    assert payload(curator)["recorded"] == 3
    with app.store.pool.connection() as conn:
        rows = conn.execute(
            "SELECT DISTINCT l.proposed_by, l.review_status, a.db_role"
            " FROM decision_lessons l JOIN learning_audit a ON a.lesson_id = l.id"
        ).fetchall()
    assert [dict(r) for r in rows] == [
        {"proposed_by": "agent:drafter", "review_status": "proposed", "db_role": "legal_ai_agent"}
    ]


def test_mcp_over_http_without_a_valid_token_is_refused(app, served):
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "probe", "version": "0"},
        },
    }
    accept = {"Accept": "application/json, text/event-stream"}
    for headers in (
        {},
        {"Authorization": "Bearer wrong"},
        {"Authorization": AGENT},
        {"Authorization": "Bearer"},
    ):
        response = httpx.post(f"{served}/mcp", json=initialize, headers={**accept, **headers})
        assert response.status_code == 401, headers
        assert response.headers["www-authenticate"] == "Bearer"
        assert "token" in response.json()["error"]
    # The SDK's client without a token gets no session, let alone a tool.
    statuses: list[int] = []
    with pytest.raises(Exception):  # noqa: B017 - the SDK wraps the refusal in task groups
        asyncio.run(remote_session(served, None, [], statuses))
    assert statuses and set(statuses) == {401}
    # The same request with the agent's token is answered by the MCP layer.
    answered = httpx.post(
        f"{served}/mcp", json=initialize, headers={**accept, "Authorization": f"Bearer {AGENT}"}
    )
    assert answered.status_code == 200 and answered.json()["result"]["serverInfo"]["name"]


def test_mcp_over_http_answers_503_when_the_transport_is_not_running(app):
    """A server run without its lifespan (the transport's task group never started) says so
    instead of failing with an internal error."""
    client = TestClient(create_app(remote_settings(app), legal=app))  # no `with`: no lifespan
    response = client.post("/mcp", json={}, headers={"Authorization": f"Bearer {AGENT}"})
    assert response.status_code == 503 and "lifespan" in response.json()["error"]
    assert client.post("/mcp", json={}).status_code == 401  # the token is checked first


@pytest.fixture
def client(app):
    with TestClient(create_app(remote_settings(app), legal=app)) as c:
        yield c


def test_api_search_answers_the_cli_json(app, tmp_path, client, cli_env):
    seed(app, tmp_path)
    params = {"query": "הקלה בקו בניין", "corpus": "external", "court": "העליון", "limit": 5}
    response = client.get(
        "/api/search", params=params, headers={"Authorization": f"Bearer {AGENT}"}
    )
    assert response.status_code == 200, response.text
    over_http = response.json()
    cli = subprocess.run(
        [
            sys.executable,
            "-m",
            "legal_ai.cli",
            "search",
            params["query"],
            "--corpus",
            "external",
            "--court",
            "העליון",
            "--limit",
            "5",
            "--json",
        ],
        env=cli_env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    from_cli = json.loads(cli.stdout)
    for answer in (over_http, from_cli):
        answer.pop("search_id", None)  # each surface's own telemetry row
    assert over_http == from_cli
    assert over_http["tool"] == "search_precedent_library"
    assert [h["doc_id"] for h in over_http["hits"]] == ["external-עעמ 32-20"]
    # Every parameter of the CLI: corpus by corpus, with the modes.
    chair = {"Authorization": f"Bearer {CHAIR}"}
    style = client.get(
        "/api/search",
        headers=chair,
        params={
            "query": "הקלה",
            "corpus": "style",
            "practice_area": "planning",
            "mode": "semantic",
        },
    )
    assert [h["doc_id"] for h in style.json()["hits"]] == ["style-ערר 31-25"]
    dated = client.get(
        "/api/search",
        headers=chair,
        params={
            "query": "הקלה",
            "corpus": "internal",
            "date_from": "2024-01-01",
            "date_to": "2024-12-31",
            "mode": "lexical",
        },
    )
    assert [h["doc_id"] for h in dated.json()["hits"]] == ["internal-ערר 34-24"]
    numbered = client.get(
        "/api/search",
        headers=chair,
        params={"query": "הקלה", "corpus": "case", "case_number": "ערר 35/25"},
    )
    assert [h["doc_id"] for h in numbered.json()["hits"]] == ["case-ערר 35-25"]


@pytest.mark.parametrize(
    ("params", "status", "message"),
    [
        ({"corpus": "external"}, 400, "query"),
        ({"query": "הקלה"}, 400, "corpus"),
        ({"query": "הקלה", "corpus": "nowhere"}, 400, "nowhere"),
        (
            {"query": "הקלה", "corpus": "style", "practice_area": "planning", "court": "העליון"},
            400,
            "court does not apply to corpus style",
        ),
        (
            {"query": "הקלה", "corpus": "external", "case_number": "ערר 1/25"},
            400,
            "case_number does not apply to corpus external",
        ),
        ({"query": "הקלה", "corpus": "style"}, 400, "needs practice_area"),
        ({"query": "הקלה", "corpus": "case"}, 400, "needs the case_number"),
        ({"query": "הקלה", "corpus": "external", "limit": 0}, 400, "limit"),
        ({"query": "הקלה", "corpus": "external", "limit": 101}, 400, "limit"),
        ({"query": "הקלה", "corpus": "external", "limit": "ten"}, 400, "limit"),
        ({"query": "הקלה", "corpus": "external", "mode": "fuzzy"}, 400, "unknown mode"),
        ({"query": "הקלה", "corpus": "external", "date_from": "1/2/2024"}, 400, "not a date"),
        ({"query": "   ", "corpus": "external"}, 400, "empty"),
        ({"query": "a" * 20_001, "corpus": "external"}, 400, "shorten"),
    ],
)
def test_api_search_validates_its_parameters(client, params, status, message):
    response = client.get(
        "/api/search", params=params, headers={"Authorization": f"Bearer {AGENT}"}
    )
    assert response.status_code == status, response.text
    assert message in response.json()["error"]


def test_api_search_needs_a_token(client):
    params = {"query": "הקלה", "corpus": "external"}
    for headers in ({}, {"Authorization": "Bearer wrong"}):
        response = client.get("/api/search", params=params, headers=headers)
        assert response.status_code == 401 and "token" in response.json()["error"]
