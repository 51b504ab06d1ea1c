"""Principles on arrival, the cull and the chair's gate (issue 13, items 1 and 4): ingesting a
ruling queues its extraction, which waits for a panel and then runs with its job id on every
principle and model call; a model failing mid-extraction writes nothing and is retried; the cull
reports before it removes and is the chair's; canonical principles are approved, edited and
reverted by the chair only (services, HTTP and SQL as the agent's role); a reverted principle
leaves search at once; corroboration counts the decisions citing the ruling. The models are
scripted OpenAI-compatible servers on 127.0.0.1 (conftest.py's `panel`, tests/llm_servers.py)."""

import json

import psycopg
import pytest
from fastapi.testclient import TestClient

from helpers import register_chair_token, run
from legal_ai.auth import CHAIR, agent
from legal_ai.errors import Forbidden, InvalidInput
from legal_ai.learning.principles import canonical
from legal_ai.learning.principles import cull as principle_cull
from legal_ai.learning.principles import extraction as principles
from legal_ai.learning.principles import jobs as principle_jobs
from legal_ai.learning.principles import review as principle_review
from legal_ai.web.app import create_app
from scenarios import PANEL_RULING as RULING
from scenarios import Q1, Q2, R1, R2, cand, ingest

pytestmark = pytest.mark.db


def jobs_of(app):
    with app.store.connection() as conn:
        return conn.execute("SELECT * FROM jobs WHERE kind = 'principles' ORDER BY id").fetchall()


def search_principles(app, query=R1[0]):
    return [h for h in app.search("external", query, limit=20).hits if h["kind"] == "principle"]


def test_ingest_queues_extraction_that_waits_then_runs_with_its_job_id(
    app, tmp_path, panel, monkeypatch
):
    script, value = panel
    monkeypatch.setattr(app, "settings", app.settings.model_copy(update={"principle_panel": None}))
    ingest(app, tmp_path, "ruling-1", RULING)
    ingest(app, tmp_path, "ruling-1", RULING, expect="unchanged")  # the same text: no new job
    [job] = jobs_of(app)
    assert job["status"] == "queued" and job["key"].startswith("principles:")

    waiting = principle_jobs.run(app)
    assert waiting["extracted"] == 0 and "LEGAL_AI_PRINCIPLE_PANEL" in waiting["waiting_for"]
    [pending] = waiting["pending"]
    assert pending["status"] == "waiting" and "LEGAL_AI_PRINCIPLE_PANEL" in pending["reason"]

    monkeypatch.setattr(app, "settings", app.settings.model_copy(update={"principle_panel": value}))
    script.answers = {m: [cand(R1[0], Q1, 0.9)] for m in "abc"}
    done = principle_jobs.run(app)
    assert (done["extracted"], done["approved"], done["pending"], done["waiting_for"]) == (
        1,
        1,
        [],
        None,
    )
    assert jobs_of(app)[0]["status"] == "done"
    with app.store.connection() as conn:
        row = conn.execute("SELECT job_id FROM case_law_principles").fetchone()
        calls = conn.execute(
            "SELECT count(*) AS n FROM model_calls WHERE job_id = %s", (job["id"],)
        ).fetchone()["n"]
    assert row["job_id"] == job["id"] and calls == 3
    assert [h["snippet"] for h in search_principles(app)] == [R1[0]]

    # A changed text queues a new job; a direct extract closes it (nothing left to do).
    ingest(app, tmp_path, "ruling-1", RULING + " ועוד משפט.")
    assert [j["status"] for j in jobs_of(app)] == ["done", "queued"]
    principles.extract(app, doc_id="ruling-1")
    assert [j["status"] for j in jobs_of(app)] == ["done", "done"]
    assert jobs_of(app)[1]["result"] == {"done_by": "legal-ai principles extract"}


def test_the_worker_extracts_a_missing_precedent_arriving(app, tmp_path, panel, cli_env):
    script, value = panel
    script.answers = {m: [cand(R2[0], Q2, 0.95)] for m in "abc"}
    ingest(app, tmp_path, "ruling-late", RULING)
    env = {**cli_env, "LEGAL_AI_PRINCIPLE_PANEL": value, "LEGAL_AI_MODEL_RETRIES": "0"}
    out = run(env, "worker", "--once")
    assert "principles job" in out.stderr and "approved 1" in out.stderr  # its log lines
    assert [
        p["rule_text"] for p in principle_review.list_principles(app, "approved")["principles"]
    ] == [R2[0]]


def test_a_model_failing_mid_extraction_writes_nothing_and_is_retried(app, tmp_path, panel):
    script, _ = panel
    ingest(app, tmp_path, "ruling-1", RULING)
    ingest(app, tmp_path, "ruling-2", RULING + " ב.")
    script.answers = {m: [cand(R1[0], Q1, 0.9)] for m in "abc"}
    script.failing = {"b"}
    report = principle_jobs.run(app)
    assert report["extracted"] == 0 and len(report["jobs"]) == 2
    assert {j["status"] for j in report["jobs"]} == {"queued"}  # retried later, with backoff
    assert all("500" in j["error"] or "error" in j["error"].lower() for j in report["jobs"])
    assert principle_review.list_principles(app)["principles"] == []
    # The direct path reports the failure per item and goes on with the next.
    direct = principles.extract(app, corpus="external")
    assert [f["doc_id"] for f in direct["failed"]] == ["ruling-1", "ruling-2"]
    script.failing = set()
    direct = principles.extract(app, corpus="external")
    assert direct["failed"] == [] and direct["approved"] + direct["linked"] == 2


def test_cull_reports_first_and_is_the_chairs(app, tmp_path, panel, monkeypatch):
    script, _ = panel
    ingest(app, tmp_path, "ruling-1", RULING)
    script.answers = {
        "a": [cand(R1[0], Q1, 0.9), cand(R2[0], Q2, 0.9)],
        "b": [cand(R1[0], Q1, 0.9), cand(R2[1], Q2, 0.86)],
        "c": [cand(R1[0], Q1, 0.9)],
    }
    principles.extract(app, doc_id="ruling-1")
    by_rule = {p["rule_text"]: p for p in principle_review.list_principles(app)["principles"]}
    assert by_rule[R2[0]]["votes"] == 2 and by_rule[R2[0]]["review_status"] == "approved"
    assert principle_cull.cull(app) == {"checked": 2, "remove": [], "reopen": [], "applied": False}

    # Stricter settings: the 2-vote principle goes back to the chair, and a cap of 0 new
    # principles per ruling would remove the other.
    monkeypatch.setattr(
        app,
        "settings",
        app.settings.model_copy(
            update={"halacha_panel_approve_score": 0.95, "halacha_panel_max_new": 1}
        ),
    )
    plan = principle_cull.cull(app)
    assert [p["rule_text"] for p in plan["reopen"]] == [R2[0]]
    assert plan["remove"] == [] and plan["applied"] is False
    assert by_rule[R2[0]]["review_status"] == "approved"  # nothing changed yet
    monkeypatch.setattr(
        app, "settings", app.settings.model_copy(update={"halacha_panel_max_new": 0})
    )
    plan = principle_cull.cull(app)
    assert [p["rule_text"] for p in plan["remove"]] == [R1[0]]
    assert "HALACHA_PANEL_MAX_NEW" in plan["remove"][0]["reason"]

    with pytest.raises(Forbidden):
        principle_cull.cull(app.acting_as(agent("cleaner")), apply=True)
    applied = principle_cull.cull(app.acting_as(CHAIR), apply=True)
    assert applied["applied"] is True
    after = {
        p["rule_text"]: p["review_status"]
        for p in principle_review.list_principles(app)["principles"]
    }
    assert after == {R1[0]: "vetoed", R2[0]: "pending_review"}
    assert search_principles(app) == []  # withdrawn from search at once
    # Applied twice: nothing more (the chair's decisions are never culled).
    assert principle_cull.cull(app.acting_as(CHAIR), apply=True)["remove"] == []


def _canonical(app, tmp_path, script):
    ingest(app, tmp_path, "ruling-1", RULING)
    script.answers = {m: [cand(R1[0], Q1, 0.9)] for m in "abc"}
    principles.extract(app, doc_id="ruling-1")
    [k] = canonical.list_canonicals(app)["canonical_principles"]
    return k


def test_the_chairs_canonical_gate_edit_revert_and_search(app, tmp_path, panel):
    script, _ = panel
    k = _canonical(app, tmp_path, script)
    assert (k["status"], k["version"], k["statement"], k["occurrences"]) == (
        "pending_synthesis",
        1,
        R1[0],
        1,
    )
    chair = app.acting_as(CHAIR)
    with pytest.raises(Forbidden):
        canonical.review(app.acting_as(agent("writer")), k["id"], "approve")
    with pytest.raises(InvalidInput, match="pending synthesis"):
        canonical.review(chair, k["id"], "approve")

    wording = "אין לאשר סטייה ניכרת מתכנית בדרך של הקלה"
    edited = canonical.edit(chair, k["id"], wording, "ניסוח שלי")
    assert (edited["statement"], edited["version"], edited["statement_by"], edited["status"]) == (
        wording,
        2,
        "chair",
        "pending_review",
    )
    with app.store.connection() as conn:
        stored = conn.execute(
            "SELECT embedding IS NOT NULL AS has, embedder FROM canonical_principles WHERE id = %s",
            (k["id"],),
        ).fetchone()
    assert stored["has"] and stored["embedder"] == app.embedder.id

    approved = canonical.review(chair, k["id"], "approve", "מאושר")
    assert approved["status"] == "approved" and approved["reviewed_by"] == "chair"
    [hit] = search_principles(app)
    assert hit["canonical_statement"] == wording and hit["term_once_confirmed"] == "הלכה"
    # The principle itself is still the panel's until she confirms it (issue 37 item 10).
    assert hit["term"] == "הצעת הפאנל" and hit["unconfirmed"] is True

    reverted = canonical.revert(chair, k["id"])  # back to version 1, the source wording
    assert (reverted["statement"], reverted["version"]) == (R1[0], 3)
    assert [v["author"] for v in reverted["versions"]] == ["source", "chair", "chair"]
    with pytest.raises(InvalidInput, match="versions 1-3"):
        canonical.revert(chair, k["id"], version=9)
    with app.store.connection() as conn:
        audit = conn.execute(
            "SELECT action FROM learning_audit WHERE details->>'canonical_id' = %s ORDER BY id",
            (str(k["id"]),),
        ).fetchall()
    assert [a["action"] for a in audit].count("edit_canonical_statement") == 2
    assert "update_canonical" in [a["action"] for a in audit]

    # The principle itself: the chair reverts it and it leaves search at once.
    principle_id = hit["principle_id"]
    assert chair.review_principle(principle_id, "revert")["review_status"] == "vetoed"
    assert search_principles(app) == []


def test_sql_as_the_agents_role_cannot_act_as_the_chair(app, tmp_path, panel, agent_db_url):
    script, _ = panel
    k = _canonical(app, tmp_path, script)
    [p] = principle_review.list_principles(app)["principles"]
    with psycopg.connect(agent_db_url, autocommit=True) as conn:
        for statement, args in (
            (
                "UPDATE canonical_principles SET canonical_statement = 'אחר', statement_by = 'chair'"
                " WHERE id = %s",
                (k["id"],),
            ),
            (
                "UPDATE canonical_principles SET status = 'approved', reviewed_by = 'chair'"
                " WHERE id = %s",
                (k["id"],),
            ),
            (
                "UPDATE case_law_principles SET review_status = 'proposed', reviewed_by = NULL"
                " WHERE id = %s",
                (p["id"],),
            ),
            ("UPDATE canonical_statement_versions SET statement = 'x'", ()),
            ("DELETE FROM canonical_statement_versions", ()),
        ):
            with pytest.raises(psycopg.Error):
                conn.execute(statement, args)
    assert canonical.show(app, k["id"])["statement"] == R1[0]
    assert principle_review.list_principles(app)["principles"][0]["review_status"] == "approved"


def test_corroboration_counts_decisions_citing_the_ruling(app, tmp_path, panel):
    script, _ = panel
    _canonical(app, tmp_path, script)
    with app.store.transaction() as conn:
        ruling = conn.execute("SELECT id FROM case_law WHERE doc_id = 'ruling-1'").fetchone()["id"]
        conn.execute(
            "INSERT INTO authorities (ref, kind, case_law_id, corroboration)"
            " VALUES ('עעמ 1234/05', 'ruling', %s, 3)",
            (ruling,),
        )
    [p] = principle_review.list_principles(app)["principles"]
    assert p["corroboration"] == 3
    [hit] = search_principles(app)
    assert hit["corroboration"] == 3
    assert canonical.list_canonicals(app)["canonical_principles"][0]["corroboration"] == 3


def test_http_routes_chair_only_where_she_decides(app, settings, tmp_path, panel, monkeypatch):
    script, _ = panel
    k = _canonical(app, tmp_path, script)
    [p] = principle_review.list_principles(app)["principles"]
    configured = settings.model_copy(
        update={"chair_token": "chair-secret", "agent_token": "agent-secret"}
    )
    client = TestClient(create_app(configured, legal=app))
    as_chair = {"Authorization": "Bearer chair-secret"}
    as_agent = {"Authorization": "Bearer agent-secret"}
    listed = client.get("/api/principles?status=approved", headers=as_agent).json()
    assert [x["id"] for x in listed["principles"]] == [p["id"]]
    for path, body in (
        (f"/api/principles/{p['id']}/review", {"decision": "revert"}),
        (f"/api/canonical-principles/{k['id']}/review", {"decision": "approve"}),
        (f"/api/canonical-principles/{k['id']}/statement", {"statement": "נוסח"}),
        (f"/api/canonical-principles/{k['id']}/revert", {}),
    ):
        assert client.post(path, json=body, headers=as_agent).status_code == 403
    assert (
        client.post("/api/principles/cull", json={"apply": True}, headers=as_agent).status_code
        == 403
    )
    assert client.post("/api/principles/cull", json={}, headers=as_agent).json()["applied"] is False
    edited = client.post(
        f"/api/canonical-principles/{k['id']}/statement",
        json={"statement": "נוסח היושבת ראש", "actor": "x"},
        headers=as_chair,
    )
    assert edited.status_code == 400 and "actor" in edited.text  # no `actor` in a body
    edited = client.post(
        f"/api/canonical-principles/{k['id']}/statement",
        json={"statement": "נוסח היושבת ראש"},
        headers=as_chair,
    )
    assert edited.status_code == 200 and edited.json()["version"] == 2
    shown = client.get(f"/api/canonical-principles/{k['id']}", headers=as_agent).json()
    assert shown["occurrences"][0]["supporting_quote"] == Q1
    assert shown["occurrences"][0]["votes"] == 3
    missing = client.post(
        "/api/canonical-principles/999999/review", json={"decision": "approve"}, headers=as_chair
    )
    assert missing.status_code == 404
    out = client.post(
        f"/api/principles/{p['id']}/review", json={"decision": "revert"}, headers=as_chair
    )
    assert out.status_code == 200 and out.json()["review_status"] == "vetoed"
    # A decision carrying the status its caller saw, when another already changed it: 409.
    stale = client.post(
        f"/api/principles/{p['id']}/review",
        headers=as_chair,
        json={"decision": "approve", "expected_status": "approved"},
    )
    assert stale.status_code == 409
    assert stale.json()["error"].startswith(f"principle {p['id']} was already vetoed (by chair)")
    stale = client.post(
        f"/api/canonical-principles/{k['id']}/review",
        headers=as_chair,
        json={"decision": "reject", "expected_status": "pending_synthesis"},
    )
    assert stale.status_code == 409 and "was already" in stale.json()["error"]
    unknown = client.post(
        f"/api/principles/{p['id']}/review",
        headers=as_chair,
        json={"decision": "approve", "expected_status": "done"},
    )
    assert unknown.status_code == 400 and "unknown expected status" in unknown.json()["error"]


def test_cli_cull_and_canonical_commands(app, tmp_path, panel, cli_env):
    script, _ = panel
    k = _canonical(app, tmp_path, script)
    shown = json.loads(
        run(cli_env, "principles", "canonical", "show", str(k["id"]), "--json").stdout
    )
    assert shown["versions"][0]["statement"] == R1[0]
    refused = run(
        cli_env, "principles", "canonical", "edit", str(k["id"]), "--statement", "נוסח", check=False
    )
    assert refused.returncode != 0 and "chair" in refused.stderr
    chair_env = {**cli_env, "LEGAL_AI_CHAIR_TOKEN": register_chair_token(app, "chair-secret")}
    edited = json.loads(
        run(
            chair_env,
            "principles",
            "canonical",
            "edit",
            str(k["id"]),
            "--statement",
            "נוסח חדש",
            "--json",
        ).stdout
    )
    assert edited["version"] == 2
    cull = run(cli_env, "principles", "cull")
    assert "checked 1: 0 would be removed" in cull.stdout
