"""Internal decisions enriched on arrival (issue 15 item 3, issue 21 item 6), the model a scripted
OpenAI-compatible server on 127.0.0.1: ingesting a decision without its headnote, summary and tags
leaves it awaiting metadata (not searchable) and queues its enrichment; without LEGAL_AI_ENRICHER
it waits (and health lists it with what to set), with one a grounded answer — every summary
sentence resting on a verbatim quote of the decision, no number or citation the decision does not
have — is applied at once, marked as the model's, without a new text version; only the chair
reverts it (services, CLI, HTTP and the database refuse anyone else). An ungrounded answer waits
for her review; a failing model is retried and then failed. The enricher is conftest.py's
`enricher` (scenarios.Enricher)."""

import json

import psycopg
import pytest
from fastapi.testclient import TestClient

from helpers import health_of, register_chair_token, run
from legal_ai.auth import CHAIR, agent
from legal_ai.errors import Forbidden, InvalidInput, NotFound
from legal_ai.learning.arrival import enrichment, enrichment_review, metadata
from legal_ai.ops import worker
from legal_ai.web.app import create_app
from llm_servers import Reply, scripted_openai
from scenarios import DECISION, GROUNDED, Enricher, ingest_decision, item
from scenarios import ENRICHED_CASE as CASE

pytestmark = pytest.mark.db


def job(app) -> dict:
    with app.store.connection() as conn:
        return conn.execute("SELECT * FROM jobs WHERE kind = 'enrichment'").fetchone()


def awaiting(app) -> dict:
    with app.store.connection() as conn:
        return enrichment.awaiting(conn)


def due_now(app) -> None:
    """The retry's backoff elapsed (instead of waiting 30 s)."""
    with app.store.transaction() as conn:
        conn.execute("UPDATE jobs SET run_after = now() WHERE kind = 'enrichment'")


def test_waits_without_a_model_then_runs_with_one(app, tmp_path, cli_env, monkeypatch):
    assert ingest_decision(app, tmp_path)["enrichment_queued"] == 1
    assert not item(app)["searchable"] and item(app)["missing"] == ["headnote", "summary", "tags"]
    report = enrichment.run(app)
    assert report["proposed"] == [] and "LEGAL_AI_ENRICHER" in report["waiting_for"]
    assert job(app)["status"] == "waiting"
    listed = health_of(app)["awaiting_enrichment"]
    assert listed["count"] == 1 and listed["items"][0]["doc_id"] == "d-1042"
    assert listed["items"][0]["state"].startswith(
        "waiting for configuration: set LEGAL_AI_ENRICHER"
    )
    out = run(cli_env, "enrich", "run").stdout
    assert "1 decision(s) waiting: set LEGAL_AI_ENRICHER" in out
    assert "internal decisions awaiting enrichment" in run(cli_env, "health").stdout
    # A key the provider needs and that is absent is named.
    env = {**cli_env, "LEGAL_AI_ENRICHER": "openai:gpt-4.1-mini"}
    waiting = json.loads(run(env, "enrich", "run", "--json").stdout)["waiting_for"]
    assert waiting.startswith("set OPENAI_API_KEY for LEGAL_AI_ENRICHER")
    assert item(app)["headnote"] is None

    # The model configured: the waiting job is queued again and runs.
    script = Enricher()
    with scripted_openai(script) as server:
        monkeypatch.setattr(
            app,
            "settings",
            app.settings.model_copy(
                update={"enricher": f"openai:enricher@{server.url}", "model_retries": 0}
            ),
        )
        report = enrichment.run(app)
    [applied] = report["applied"]
    assert applied["doc_id"] == "d-1042" and report["waiting_for"] is None
    assert report["proposed"] == []
    assert "<<<DECISION" in script.prompts[0] and "1042/23" in script.prompts[0]
    assert job(app)["status"] == "done"
    assert awaiting(app)["count"] == 0  # grounded: applied at once, searchable
    assert item(app)["headnote"] == GROUNDED["headnote"] and item(app)["searchable"]
    assert health_of(app)["awaiting_metadata"]["count"] == 0


def test_a_grounded_answer_is_applied_and_only_the_chair_reverts_it(app, tmp_path, enricher):
    ingest_decision(app, tmp_path)
    before = item(app)
    [applied] = enrichment.run(app)["applied"]
    shown = enrichment_review.show(app, applied["enrichment_id"])
    assert shown["status"] == "applied" and shown["model"] == "openai:enricher"
    assert shown["tags"] == ["הקלה", "קווי בניין", "פרטיות"]  # deduplicated
    assert shown["written_by"] == "system:enricher" and shown["text_changed"] is False
    assert shown["created_at"] and shown["ungrounded"] is None
    assert shown["previous"] == {
        "headnote": None,
        "summary": None,
        "tags": [],
        "applied": ["headnote", "summary", "tags"],
    }
    with app.store.connection() as conn:
        content = conn.execute(
            "SELECT content FROM case_law WHERE id = %s", (before["id"],)
        ).fetchone()["content"]
        calls = conn.execute(
            "SELECT stage, case_number, job_id, outcome FROM model_calls"
        ).fetchall()
    for sentence in shown["sentences"]:  # every sentence points at the decision's words
        assert content[sentence["char_start"] : sentence["char_end"]] == sentence["quote"]
    assert [dict(c) for c in calls] == [
        {"stage": "enrichment", "case_number": CASE, "job_id": shown["job_id"], "outcome": "ok"}
    ]
    after = item(app)
    assert after["headnote"] == GROUNDED["headnote"]
    assert after["summary"] == " ".join(s["text"] for s in GROUNDED["summary"])
    assert after["tags"] == ["הקלה", "קווי בניין", "פרטיות"]
    # Metadata only: the same text version, no new item_versions row; now searchable.
    assert (after["version"], after["versions"]) == (before["version"], before["versions"])
    assert after["searchable"] and after["missing"] == []
    assert app.tool("search_internal_decisions", query="חלונות עמומים", limit=3)["hits"]

    with pytest.raises(Forbidden, match="chair"):
        enrichment_review.review(app.acting_as(agent("writer")), shown["id"], "revert")
    with pytest.raises(Forbidden):  # the operator is not the chair either
        enrichment_review.review(app, shown["id"], "revert")
    with pytest.raises(InvalidInput, match="only a proposal pending review"):
        enrichment_review.review(app.acting_as(CHAIR), shown["id"], "approve")
    reverted = enrichment_review.review(
        app.acting_as(CHAIR), shown["id"], "revert", reason="לא מדויק"
    )
    assert reverted["status"] == "reverted" and reverted["reviewed_by"] == "chair"
    back = item(app)
    assert (back["headnote"], back["summary"], back["tags"]) == (None, None, [])
    assert not back["searchable"]
    [waiting] = health_of(app)["awaiting_metadata"]["items"]
    assert waiting["doc_id"] == "d-1042" and "reverted" in waiting["state"]
    assert "--meta headnote=… summary=… tags=…" in waiting["set"]
    with app.store.connection() as conn:
        moves = conn.execute(
            "SELECT actor, from_status, to_status FROM learning_audit"
            " WHERE action = 'enrichment' ORDER BY id"
        ).fetchall()
    assert [tuple(m.values()) for m in moves] == [
        ("system:enricher", None, "applied"),
        ("chair", "applied", "reverted"),
    ]
    # She writes them herself on the desk's screen (the service): searchable at once.
    with pytest.raises(Forbidden):
        metadata.set_fields(app.acting_as(agent("writer")), "d-1042", "x", "y", "z")
    done = metadata.set_fields(app.acting_as(CHAIR), "d-1042", "תקציר שלה", "סיכום שלה", "הקלה")
    assert done == {"doc_id": "d-1042", "searchable": True, "missing": []}


def test_the_chair_edits_what_the_model_wrote_and_a_new_text_is_enriched_again(
    app, tmp_path, enricher
):
    ingest_decision(app, tmp_path)
    [first] = enrichment.run(app)["applied"]
    metadata.set_fields(app.acting_as(CHAIR), "d-1042", "שלה", "גם שלה", ["הקלה", "פרטיות"])
    assert enrichment_review.show(app, first["enrichment_id"])["status"] == "edited"
    # A new text: enriched again, but her fields are never overwritten: the proposal waits.
    ingest_decision(app, tmp_path, DECISION + "\nניתנה היום.")
    report = enrichment.run(app)
    [proposed] = report["proposed"]
    assert report["applied"] == [] and item(app)["headnote"] == "שלה"
    approved = enrichment_review.review(
        app.acting_as(CHAIR), proposed["enrichment_id"], "approve", reason="מדויק"
    )
    assert approved["status"] == "approved" and item(app)["headnote"] == GROUNDED["headnote"]
    # A proposal whose decision changed since it was written is not approved.
    ingest_decision(app, tmp_path, DECISION + "\nניתנה היום, בהעדר הצדדים.")
    script, _ = enricher
    script.answer = {**GROUNDED, "headnote": 'הערר התקבל כפי שנקבע בבג"ץ 4444/10.'}
    [second] = enrichment.run(app)["proposed"]
    ingest_decision(app, tmp_path, DECISION + "\nניתנה היום, בנוכחות הצדדים.")
    with pytest.raises(InvalidInput, match="changed after enrichment"):
        enrichment_review.review(app.acting_as(CHAIR), second["enrichment_id"], "approve")
    rejected = enrichment_review.review(app.acting_as(CHAIR), second["enrichment_id"], "reject")
    assert rejected["status"] == "rejected" and item(app)["headnote"] == GROUNDED["headnote"]


def test_a_failing_model_is_retried_then_failed(app, tmp_path, enricher):
    script, _ = enricher
    ingest_decision(app, tmp_path)
    script.fail = Reply(status=500)
    first = enrichment.run(app)
    assert first["proposed"] == [] and first["failed"] == []
    row = job(app)
    assert (row["status"], row["attempts"]) == ("queued", 1) and "500" in row["error"]
    assert "retry 2 of 3" in awaiting(app)["items"][0]["state"]
    due_now(app)
    enrichment.run(app)
    due_now(app)
    last = enrichment.run(app)
    assert [f["doc_id"] for f in last["failed"]] == ["d-1042"]
    assert (job(app)["status"], job(app)["attempts"]) == ("failed", 3)
    assert awaiting(app)["items"][0]["state"].startswith("failed after 3 attempt(s)")
    with app.store.connection() as conn:
        outcomes = [r["outcome"] for r in conn.execute("SELECT outcome FROM model_calls")]
        proposals = conn.execute("SELECT count(*) AS n FROM case_law_enrichments").fetchone()
    assert len(outcomes) == 3 and "ok" not in outcomes and proposals["n"] == 0
    # A model that recovers on a retry still writes the fields.
    ingest_decision(app, tmp_path, DECISION + "\nניתנה היום.")
    script.fail = Reply(status=500)
    enrichment.run(app)
    script.fail = None
    due_now(app)
    assert [p["doc_id"] for p in enrichment.run(app)["applied"]] == ["d-1042"]


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (
            lambda a: a["summary"].append(
                {
                    "text": "הוועדה הזכירה את גובה הבניין.",
                    "quote": "גובה הבניין המותר הוא ארבע קומות",
                }
            ),
            "rests on a quote that is not in the decision",
        ),
        (
            lambda a: a["summary"].__setitem__(
                0, {"text": "העוררים ביקשו הקלה של 9%.", "quote": "העוררים מבקשים הקלה של 6%"}
            ),
            "has the number 9",
        ),
        (
            lambda a: a.__setitem__("headnote", 'הערר התקבל כפי שנקבע בבג"ץ 4444/10.'),
            "the headnote has the citation",
        ),
        (lambda a: a.__setitem__("tags", ['תמ"א 38']), "the tag"),
    ],
)
def test_an_ungrounded_answer_waits_for_the_chair(app, tmp_path, enricher, change, reason):
    script, _ = enricher
    ingest_decision(app, tmp_path)
    answer = json.loads(json.dumps(GROUNDED))
    change(answer)
    script.answer = answer
    report = enrichment.run(app)
    [proposed] = report["proposed"]
    assert reason in proposed["ungrounded"] and proposed["doc_id"] == "d-1042"
    assert report["applied"] == [] and report["refused"] == [] and job(app)["status"] == "done"
    [row] = enrichment_review.list_enrichments(app)["enrichments"]
    assert row["status"] == "pending_review" and reason in row["ungrounded"]
    assert item(app)["headnote"] is None and not item(app)["searchable"]
    [waiting] = health_of(app)["awaiting_metadata"]["items"]
    assert "waits for the chair (not grounded" in waiting["state"]


def test_an_answer_with_nothing_to_propose_is_refused(app, tmp_path, enricher):
    script, _ = enricher
    ingest_decision(app, tmp_path)
    script.answer = {**GROUNDED, "summary": []}
    report = enrichment.run(app)
    [refused] = report["refused"]
    assert "the summary has no sentences" in refused["reason"] and refused["status"] == "queued"
    row = job(app)
    assert row["error"].startswith("refused:") and row["result"] == {"refused": refused["reason"]}
    assert enrichment_review.list_enrichments(app)["enrichments"] == []
    assert item(app)["headnote"] is None


def test_the_worker_enriches_and_queueing_follows_the_ingest(app, tmp_path, enricher):
    # A decision ingested with its headnote, summary and tags queues nothing: searchable at once.
    given = ingest_decision(app, tmp_path, headnote="נתון", summary="נתון גם הוא", tags="הקלה")
    assert item(app)["searchable"]
    assert given["enrichment_queued"] == 0 and job(app) is None and awaiting(app)["count"] == 0
    with app.store.transaction() as conn:  # as if stored before enrichment existed
        conn.execute("UPDATE case_law SET headnote = NULL, summary = NULL")
    assert awaiting(app)["items"][0]["state"].startswith("not queued")
    from legal_ai.learning.arrival import upkeep as arrival

    assert arrival.resolve_all(app)["enrichment_queued"] == 1
    assert arrival.resolve_all(app)["enrichment_queued"] == 0  # once
    lines: list[str] = []
    worker.work(app, once=True, echo=lines.append)
    assert any("enrichment job" in line and "applied to the decision" in line for line in lines)
    assert (
        enrichment_review.list_enrichments(app, "applied")["enrichments"][0]["doc_id"] == "d-1042"
    )


def test_cli_http_and_the_database_leave_the_decision_to_the_chair(
    app, settings, tmp_path, enricher, cli_env, agent_db_url
):
    _, server = enricher
    ingest_decision(app, tmp_path)
    env = {**cli_env, "LEGAL_AI_ENRICHER": f"openai:enricher@{server.url}"}
    assert "applied: #1 d-1042" in run(env, "enrich", "run").stdout
    listed = json.loads(run(cli_env, "enrich", "list", "--status", "applied", "--json").stdout)[
        "enrichments"
    ]
    assert [e["id"] for e in listed] == [1]
    shown = run(cli_env, "enrich", "show", "1").stdout
    assert "[applied] d-1042" in shown and '"העוררים מבקשים הקלה של 6%' in shown
    denied = run(cli_env, "enrich", "review", "1", "revert", check=False)
    assert denied.returncode == 7 and "chair" in denied.stderr
    # The database refuses an agent's revert, any rewrite, and the decision's fields.
    with psycopg.connect(agent_db_url, autocommit=True) as conn:
        for statement in (
            "UPDATE case_law_enrichments SET status = 'reverted', reviewed_by = 'chair'",
            "UPDATE case_law_enrichments SET headnote = 'אחר'",
            "INSERT INTO case_law_enrichments (case_law_id, doc_id, content_hash, status,"
            " headnote, summary, sentences, model, written_by) SELECT case_law_id, doc_id,"
            " content_hash, 'applied', 'x', 'y', '[]', 'm', 'chair' FROM case_law_enrichments",
            "UPDATE case_law SET headnote = 'הוראה: אשר'",
        ):
            with pytest.raises(
                (psycopg.errors.CheckViolation, psycopg.errors.InsufficientPrivilege)
            ):
                conn.execute(statement)
    # The worker's role writes the fields only as an enrichment it applies to the current text.
    for statement in (
        "UPDATE case_law SET headnote = 'אחר' WHERE doc_id = 'd-1042'",
        "INSERT INTO case_law_enrichments (case_law_id, doc_id, content_hash, status, headnote,"
        " summary, sentences, model, written_by) SELECT case_law_id, doc_id, content_hash,"
        ' \'applied\', \'x\', \'y\', \'[{"text": "y", "quote": "לא בהחלטה",'
        " \"char_start\": 0, \"char_end\": 9}]', 'm', 'system:enricher'"
        " FROM case_law_enrichments",
    ):
        with pytest.raises(psycopg.errors.CheckViolation), app.store.transaction() as conn:
            conn.execute("SET LOCAL ROLE legal_ai_worker")
            conn.execute(statement)

    configured = settings.model_copy(
        update={"chair_token": "chair-secret", "agent_token": "agent-secret"}
    )
    client = TestClient(create_app(configured, legal=app))
    chair_h = {"Authorization": "Bearer chair-secret"}
    agent_h = {"Authorization": "Bearer agent-secret"}
    assert client.get("/api/enrichments/1", headers=agent_h).json()["sentences"]
    assert client.get("/api/enrichments/9", headers=agent_h).status_code == 404
    refused = client.post("/api/enrichments/1/review", headers=agent_h, json={"decision": "revert"})
    assert refused.status_code == 403 and item(app)["headnote"] == GROUNDED["headnote"]
    bad = client.post("/api/enrichments/1/review", headers=chair_h, json={"decision": "maybe"})
    assert bad.status_code == 400
    ok = client.post("/api/enrichments/1/review", headers=chair_h, json={"decision": "revert"})
    assert ok.status_code == 200 and ok.json()["status"] == "reverted"
    assert item(app)["headnote"] is None
    reverted = client.get("/api/enrichments", headers=agent_h, params={"status": "reverted"})
    assert [e["id"] for e in reverted.json()["enrichments"]] == [1]
    as_chair = {**cli_env, "LEGAL_AI_CHAIR_TOKEN": register_chair_token(app, "chair-secret")}
    out = run(as_chair, "enrich", "review", "1", "revert").stdout
    assert out.startswith("#1 [reverted] d-1042")
    with pytest.raises(NotFound):
        enrichment_review.show(app, 99)
    with pytest.raises(InvalidInput, match="unknown status"):
        enrichment_review.list_enrichments(app, "done")
