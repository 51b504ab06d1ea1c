"""The HTTP API (FastAPI) against the real database: a token guards every /api route (the chair's
or an agent's), uploads go through the same services as the CLI, errors come back as one clear
message. Roles, limits and hostile input at the edge: tests/web/test_web_security.py."""

from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

import factories
from legal_ai.errors import InvalidInput
from legal_ai.web.app import create_app

pytestmark = pytest.mark.db
TOKEN = "s3cret-agent-token"
CHAIR = "s3cret-chair-token"


@pytest.fixture
def client(app):
    settings = app.settings.model_copy(
        update={
            "agent_token": f"writer={TOKEN}",
            "chair_token": CHAIR,
            "committee_chair": 'עו"ד בדיקה',
        }
    )
    with TestClient(create_app(settings, legal=app)) as c:
        yield c


def auth(token: str = TOKEN) -> dict:
    return {"Authorization": f"Bearer {token}"}


def test_the_api_refuses_to_run_without_a_credential(app):
    none = {"api_token": None, "agent_token": None, "chair_token": None}
    with pytest.raises(InvalidInput, match="LEGAL_AI_CHAIR_TOKEN"):
        create_app(app.settings.model_copy(update=none), legal=app)


def test_every_api_route_needs_the_token(client):
    routes = [r for r in client.app.routes if getattr(r, "path", "").startswith("/api/")]
    assert len(routes) >= 15
    for route in routes:
        path = route.path.replace("{case:path}", quote("ערר 1/25")).replace("{lesson_id}", "1")
        path = path.replace("{appeal_type}", "permit")
        for method in route.methods:
            for headers in ({}, auth("wrong"), {"Authorization": TOKEN}, auth("")):
                response = client.request(method, path, headers=headers)
                assert response.status_code == 401, (method, path)
    assert client.get("/healthz").json() == {"ok": True}


def test_upload_pair_history_feedback_over_http(client):
    record = factories.records()[0]
    case = quote(record["case_number"])
    draft = client.post(
        f"/api/cases/{case}/draft/upload",
        headers=auth(),
        files={"file": ("d.txt", record["draft_text"].encode(), "text/plain")},
        data={
            "appeal_type": record["appeal_type"],
            "outcome": record["outcome"],
            "practice_area": record["practice_area"],
        },
    )
    assert draft.status_code == 200, draft.text
    assert draft.json()["pair_status"] == "draft_done"
    final = client.post(
        f"/api/cases/{case}/final/upload",
        headers=auth(CHAIR),
        files={"file": ("f.txt", record["final_text"].encode(), "text/plain")},
        data={"appeal_type": record["appeal_type"], "outcome": record["outcome"]},  # hers
    )
    assert final.status_code == 200, final.text
    body = final.json()
    assert body["pair_status"] == "analyzed" and body["history_row"]["anti_pattern_total"] > 0
    rows = client.get("/api/learning/style-distance-history", headers=auth()).json()["rows"]
    assert [r["case_number"] for r in rows] == [record["case_number"]]

    sent = client.post(
        "/api/chair-feedback",
        headers=auth(),
        json={
            "category": "missing_content",
            "text": "חסר סיור",
            "case_number": record["case_number"],
            "block": "hearing",
        },
    )
    assert sent.status_code == 200
    summary = client.get("/api/chair-feedback/weekly-summary", headers=auth()).json()
    assert summary["by_category"] == {"missing_content": 1} and summary["by_block"] == {
        "hearing": 1
    }
    bad = client.post("/api/chair-feedback", headers=auth(), json={"category": "x", "text": "y"})
    assert bad.status_code == 400 and "unknown feedback category" in bad.json()["error"]

    found = client.post(
        f"/api/cases/{case}/curator-findings",
        headers=auth(),
        json={"findings": ["[סגנון] א", "[מבנה] ב", "[טבלאי] ג"]},
    ).json()
    lesson = found["lessons"][0]["id"]
    approved = client.post(
        f"/api/lessons/{lesson}/review", headers=auth(CHAIR), json={"decision": "approve"}
    ).json()
    assert approved["review_status"] == "approved" and approved["reviewed_by"] == "chair"
    promoted = client.post(
        f"/api/cases/{case}/promote",
        headers=auth(CHAIR),
        json={"lesson_ids": [lesson], "phrases": []},
    ).json()
    assert promoted["pair_status"] == "lessons_folded"
    brief = client.get(
        "/api/brief", headers=auth(), params={"appeal_type": record["appeal_type"]}
    ).json()
    assert [item["id"] for item in brief["folded_lessons"]] == [lesson]

    empty = client.post(
        f"/api/cases/{case}/final/upload",
        headers=auth(CHAIR),
        files={"file": ("f.txt", b"", "text/plain")},
    )
    assert empty.status_code == 400 and "empty" in empty.json()["error"]
    malformed = client.post(
        f"/api/cases/{quote('8046/24')}/draft/upload",
        headers=auth(),
        files={"file": ("d.txt", b"x", "text/plain")},
    )
    assert malformed.status_code == 400 and "malformed case number" in malformed.json()["error"]


def test_a_refusal_carries_its_code_field_and_hebrew(client):
    """A refusal's JSON keeps `error` (English) and adds its stable `code`, the `field` it
    concerns and the catalog's Hebrew (`message_he`); a database gate's refusal names its rule
    (migration 0044's CONSTRAINT) as `gate.<rule>`."""
    record = factories.records()[0]
    case = quote(record["case_number"])
    draft = client.post(
        f"/api/cases/{case}/draft/upload",
        headers=auth(),
        files={"file": ("d.txt", record["draft_text"].encode(), "text/plain")},
        data={"appeal_type": record["appeal_type"], "practice_area": record["practice_area"]},
    )
    assert draft.status_code == 200, draft.text
    found = client.post(
        f"/api/cases/{case}/curator-findings",
        headers=auth(),
        json={"findings": ["[סגנון] א", "[מבנה] ב", "[טבלאי] ג"]},
    ).json()
    lesson = found["lessons"][0]["id"]
    # A veto of a lesson still proposed: the page's status unsent, the database's gate refuses.
    vetoed = client.post(
        f"/api/lessons/{lesson}/review", headers=auth(CHAIR), json={"decision": "veto"}
    )
    said = vetoed.json()
    assert vetoed.status_code == 400, said
    assert "only the chair vetoes, and only an approved lesson" in said["error"]
    assert said["code"] == "gate.lesson_veto_chair"
    assert said["message_he"] == 'וטו אפשרי רק בלקח שאושר, ורק בידי היו"ר'
    listed = client.get("/api/lessons", headers=auth(), params={"case": record["case_number"]})
    assert {row["review_status"] for row in listed.json()["lessons"]} == {"proposed"}
    empty = client.get("/api/search", headers=auth(), params={"query": " ", "corpus": "external"})
    assert empty.status_code == 400, empty.text
    assert empty.json()["code"] == "query.empty" and empty.json()["field"] == "query"
    assert empty.json()["message_he"] == "השאילתה ריקה: כתבי מה לחפש"
    missing = client.post(
        "/api/lessons/999999/review", headers=auth(CHAIR), json={"decision": "veto"}
    )
    assert missing.status_code == 404 and missing.json()["code"] == "not_found", missing.text
    assert missing.json()["message_he"] == "הפריט לא נמצא (אולי נמחק בינתיים)"
