"""Her final withdrawn from what the writer reads (knowledge/withdrawn.py, docs/desk.md's
portrait): its paragraphs are no block exemplar, it supports no template (measured again without
it) and its pair is no contrastive example — until she restores it. Only the chair decides: an
agent's token is refused over HTTP, and the agent-only database login can write no audit row
(so no withdrawal in her name); every decision is an audit row in her name."""

from __future__ import annotations

from urllib.parse import quote

import psycopg
import pytest

from helpers import AGENT, CHAIR_TOKEN, csrf_of, text_of
from legal_ai.auth import CHAIR, agent
from legal_ai.errors import Forbidden, InvalidInput, NotFound
from legal_ai.knowledge import brief, templates, withdrawn
from scenarios import permit_world as world

pytestmark = pytest.mark.db

CASE = "ערר (מרכז) 7001/25"  # the case being written
OUT = "ערר (מרכז) 7014/25"  # the final she withdraws


def examples_from(app) -> dict[str, set[str]]:
    full = brief.writing_brief(app, "permit", case=CASE)
    return {
        "exemplars": {e["case_number"] for e in full["exemplars"]},
        "templates": {
            s["case_number"] for t in full["templates"] for s in t["provenance"]["sources"]
        },
        "contrastive": {e["case_number"] for e in full["contrastive_examples"]},
    }


def test_a_withdrawn_final_reaches_the_writer_nowhere_until_restored(app, tmp_path):
    world(app, tmp_path)
    before = examples_from(app)
    assert all(OUT in cases for cases in before.values()), before
    chair = app.acting_as(CHAIR)

    said = withdrawn.withdraw(chair, OUT, "החלטה חריגה")
    assert said == {"case_number": OUT, "withdrawn": True, "changed": True}
    assert withdrawn.withdraw(chair, OUT)["changed"] is False  # once is enough
    after = examples_from(app)
    assert all(OUT not in cases for cases in after.values()), after
    assert after["exemplars"] and after["contrastive"]  # the others still serve
    [listed] = withdrawn.withdrawn(app)
    assert listed["case_number"] == OUT and listed["reason"] == "החלטה חריגה"
    assert templates.refresh(app)["recomputed"] is False  # measured again once, then current

    assert withdrawn.restore(chair, OUT)["changed"] is True
    assert examples_from(app) == before
    assert withdrawn.withdrawn(app) == []
    with app.store.connection() as conn:
        rows = conn.execute(
            "SELECT actor, action FROM learning_audit WHERE action LIKE '%%_final' ORDER BY id"
        ).fetchall()
    assert [(r["actor"], r["action"]) for r in rows] == [
        ("chair", "withdraw_final"),
        ("chair", "restore_final"),
    ]


def test_only_the_chair_and_only_her_finals(app, tmp_path):
    world(app, tmp_path)
    with pytest.raises(Forbidden, match="withdrawing or restoring"):
        withdrawn.withdraw(app.acting_as(agent("writer")), OUT)
    with pytest.raises(NotFound, match="no final of"):
        withdrawn.withdraw(app.acting_as(CHAIR), "ערר (מרכז) 9999/25")
    with pytest.raises(InvalidInput):
        withdrawn.withdraw(app.acting_as(CHAIR), "not a case")
    assert withdrawn.withdrawn(app) == []


def test_over_http_the_chair_withdraws_an_agent_is_refused(app, tmp_path, client):
    world(app, tmp_path)
    path = f"/api/finals/{quote(OUT, safe='')}"
    agent = client.post(f"{path}/withdraw", headers={"Authorization": f"Bearer {AGENT}"})
    assert agent.status_code == 403
    forged = client.post(
        f"{path}/withdraw",
        headers={"Authorization": f"Bearer {CHAIR_TOKEN}"},
        json={"reason": "x", "actor": "chair"},
    )
    assert forged.status_code == 400  # no actor from a body
    done = client.post(
        f"{path}/withdraw", headers={"Authorization": f"Bearer {CHAIR_TOKEN}"}, json={}
    )
    assert done.status_code == 200 and done.json()["withdrawn"] is True
    listed = client.get("/api/finals/withdrawn", headers={"Authorization": f"Bearer {AGENT}"})
    assert [w["case_number"] for w in listed.json()["withdrawn"]] == [OUT]
    back = client.post(f"{path}/restore", headers={"Authorization": f"Bearer {CHAIR_TOKEN}"})
    assert back.status_code == 200 and back.json()["withdrawn"] is False


def test_on_her_portrait_page(app, tmp_path, chair):
    world(app, tmp_path)
    page = chair.get("/training/portrait?type=permit")
    assert f'data-final="{OUT}"' in page.text and "הוצאה מהכותב" in page.text
    sent = chair.post(
        "/training/portrait/finals",
        data={"csrf": csrf_of(page.text), "type": "permit", "case_number": OUT, "act": "withdraw"},
        follow_redirects=False,
    )
    assert sent.status_code == 303 and sent.headers["location"].endswith("said=withdrawn#examples")
    shown = text_of(chair.get(sent.headers["location"]).text)
    assert "ההחלטה הוצאה: הכותב אינו מקבל עוד קטעים ממנה" in shown and "החזרה לכותב" in shown
    assert OUT not in examples_from(app)["exemplars"]
    stranger = chair.post(
        "/training/portrait/finals",
        data={
            "csrf": csrf_of(page.text),
            "type": "permit",
            "case_number": "ערר (מרכז) 9999/25",
            "act": "withdraw",
        },
    )
    assert stranger.status_code == 404 and "אין בהחלטותייך" in text_of(stranger.text)
    no_token = chair.post("/training/portrait/finals", data={"case_number": OUT, "act": "restore"})
    assert no_token.status_code in (400, 403)
    assert withdrawn.withdrawn(app)[0]["case_number"] == OUT  # unchanged without her token


def test_the_agent_only_login_writes_no_withdrawal(agent_db_url):
    with psycopg.connect(agent_db_url) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="not by an agent"):
            conn.execute(
                "INSERT INTO learning_audit (actor, action, details) VALUES"
                " ('chair', 'withdraw_final', '{\"case_number\": \"ערר (מרכז) 7014/25\"}')"
            )
