"""Deep-read voice documents (issue 14 item 4, channel C) on the project's fictional pairs, the
writer model a scripted OpenAI-compatible server on 127.0.0.1: the chair marks a case, the case
waits without a model (and `voice run` says what to set), a document is written with every claim
pointing at a verbatim span of the final (a claim that does not is dropped and counted, one that
carries substance too), a document whose claims do not point at the final is refused (the case
stays queued), only the chair approves — the services, the HTTP routes, the CLI and the database
refuse anyone else — and only an approved document reaches the writer's brief. The writer is
conftest.py's `voice_writer` (scenarios.Writer)."""

import json

import psycopg
import pytest
from fastapi.testclient import TestClient

import factories
from helpers import register_chair_token, run
from legal_ai.auth import CHAIR, agent
from legal_ai.errors import Forbidden, InvalidInput, NotFound
from legal_ai.knowledge import brief, voice, voice_review
from legal_ai.ops import worker
from legal_ai.web.app import create_app
from llm_servers import Reply
from scenarios import blocks_of, claims, span, upload

pytestmark = pytest.mark.db


def test_marked_written_grounded_approved_and_in_the_brief(app, tmp_path, voice_writer):
    script, _ = voice_writer
    rec = upload(app, tmp_path, 0)
    case = rec["case_number"]
    chair = app.acting_as(CHAIR)
    with pytest.raises(Forbidden, match="chair"):
        voice_review.mark(app.acting_as(agent("writer")), case)
    marked = voice_review.mark(chair, case, note="פתיחה ומבנה לדוגמה")
    assert (marked["status"], marked["marked_by"], marked["claims"]) == ("queued", "chair", None)

    blocks = blocks_of(app, rec["final_text"])
    script.document = claims(blocks)
    report = voice.run(app)
    [written] = report["written"]
    assert report["refused"] == report["failed"] == report["waiting"] == []
    assert (
        written["claims"],
        written["kept"],
        written["dropped_claims"],
        written["substance_claims"],
    ) == (6, 4, 1, 1)
    # The prompt: her final block by block, with how much of our draft changed and a diff.
    assert "<<<FINAL" in script.prompts[0] and "<<<DIFF" in script.prompts[0]
    assert "of our draft's words changed" in script.prompts[0]

    doc = voice_review.show(app, marked["id"])
    assert doc["status"] == "pending_review" and doc["model"] == "openai:voice"
    assert [b["block"] for b in doc["blocks"]] == ["opening", "hearing", "discussion", "conclusion"]
    with app.store.connection() as conn:
        content = conn.execute(
            "SELECT content FROM documents WHERE corpus = 'style' AND case_number = %s", (case,)
        ).fetchone()["content"]
        calls = conn.execute("SELECT stage, case_number, outcome FROM model_calls").fetchall()
    for block in doc["blocks"]:
        for claim in block["claims"]:  # every kept claim points at her words in the final
            assert content[claim["char_start"] : claim["char_end"]] == claim["span"]
            assert claim["span"] in blocks[block["block"]]
    kept = [c["claim"] for b in doc["blocks"] for c in b["claims"]]
    assert not any("3 קומות" in c for c in kept)  # substance dropped
    assert [dict(c) for c in calls] == [
        {"stage": "voice_document", "case_number": case, "outcome": "ok"}
    ]

    # Pending review: not in the brief. An agent may not approve; the chair does.
    assert brief.writing_brief(app, rec["appeal_type"], rec["outcome"])["voice_documents"] == []
    with pytest.raises(Forbidden):
        voice_review.review(app.acting_as(agent("writer")), marked["id"], "approve")
    approved = voice_review.review(chair, marked["id"], "approve", reason="מבנה מופתי")
    assert approved["status"] == "approved" and approved["reviewed_by"] == "chair"
    shown = brief.writing_brief(app, rec["appeal_type"], rec["outcome"])
    [published] = shown["voice_documents"]
    assert published["id"] == marked["id"] and published["provenance"]["channel"] == "C"
    assert published["provenance"]["approved_by"] == "chair"
    assert published["provenance"]["doc_id"] == case
    # Never to the case it was written from, nor to another appeal type.
    assert brief.writing_brief(app, rec["appeal_type"], case=case)["voice_documents"] == []
    assert brief.writing_brief(app, "betterment_levy")["voice_documents"] == []
    # She takes it back: out of the brief; the audit holds every move.
    assert voice_review.review(chair, marked["id"], "reject")["status"] == "rejected"
    assert brief.writing_brief(app, rec["appeal_type"])["voice_documents"] == []
    with app.store.connection() as conn:
        moves = conn.execute(
            "SELECT actor, from_status, to_status FROM learning_audit WHERE"
            " action = 'voice_document' ORDER BY id"
        ).fetchall()
    assert [tuple(m.values()) for m in moves] == [
        ("chair", None, "queued"),
        ("system:voice-writer", "queued", "pending_review"),
        ("chair", "pending_review", "approved"),
        ("chair", "approved", "rejected"),
    ]


def test_a_document_whose_claims_do_not_point_at_the_final_is_refused(app, tmp_path, voice_writer):
    script, _ = voice_writer
    rec = upload(app, tmp_path, 0)
    other = blocks_of(app, factories.records()[1]["final_text"])  # another decision's final
    marked = voice_review.mark(app.acting_as(CHAIR), rec["case_number"])
    script.document = [
        {"block": b, "claims": [{"claim": "היא פותחת בתוצאה.", "span": span(other, b, 8)}]}
        for b in ("opening", "background", "discussion", "conclusion")
    ]
    report = voice.run(app)
    [refused] = report["refused"]
    assert report["written"] == [] and refused["id"] == marked["id"]
    assert refused["dropped_claims"] >= 3 and "do not point at the final" in refused["reason"]
    row = voice_review.show(app, marked["id"])
    assert row["status"] == "queued" and row["refusals"] == 1 and row["blocks"] == []
    assert "do not point at the final" in row["last_refusal"]
    assert report["waiting"] == [{"id": marked["id"], "case_number": rec["case_number"]}]
    # Too few grounded claims is refused too; a grounded document on the next run is written.
    blocks = blocks_of(app, rec["final_text"])
    script.document = [
        {
            "block": "opening",
            "claims": [{"claim": "היא פותחת בתוצאה.", "span": span(blocks, "opening")}],
        }
    ]
    assert "only 1 grounded claim" in voice.run(app)["refused"][0]["reason"]
    script.document = claims(blocks)
    assert [d["id"] for d in voice.run(app)["written"]] == [marked["id"]]
    assert voice_review.show(app, marked["id"])["refusals"] == 2


def test_without_a_model_the_case_waits_and_run_says_what_to_set(app, tmp_path, cli_env):
    rec = upload(app, tmp_path, 1, draft=False)  # a final without our draft
    marked = voice_review.mark(app.acting_as(CHAIR), rec["case_number"])
    report = voice.run(app)
    assert report["written"] == [] and "LEGAL_AI_VOICE_WRITER" in report["missing"]
    assert report["waiting"] == [{"id": marked["id"], "case_number": rec["case_number"]}]
    out = run(cli_env, "voice", "run")
    assert "1 case(s) waiting: set LEGAL_AI_VOICE_WRITER" in out.stdout
    # A key the provider needs and that is absent is named.
    env = {**cli_env, "LEGAL_AI_VOICE_WRITER": "openai:gpt-4.1-mini"}
    missing = json.loads(run(env, "voice", "run", "--json").stdout)["missing"]
    assert missing.startswith("set OPENAI_API_KEY for LEGAL_AI_VOICE_WRITER")
    with pytest.raises(InvalidInput, match="only a written document"):
        voice_review.review(app.acting_as(CHAIR), marked["id"], "approve")
    assert voice_review.show(app, marked["id"])["status"] == "queued"


def test_a_failing_model_leaves_the_case_queued(app, tmp_path, voice_writer):
    script, _ = voice_writer
    rec = upload(app, tmp_path, 0)
    marked = voice_review.mark(app.acting_as(CHAIR), rec["case_number"])
    script.fail = Reply(status=500)
    report = voice.run(app)
    assert [f["id"] for f in report["failed"]] == [marked["id"]] and report["written"] == []
    assert voice_review.show(app, marked["id"])["status"] == "queued"
    with app.store.connection() as conn:
        outcomes = [r["outcome"] for r in conn.execute("SELECT outcome FROM model_calls")]
    assert outcomes and "ok" not in outcomes


def test_bad_input(app, tmp_path):
    chair = app.acting_as(CHAIR)
    with pytest.raises(InvalidInput, match="malformed case number"):
        voice_review.mark(chair, "1042/23")
    with pytest.raises(NotFound, match="no final of"):
        voice_review.mark(chair, "ערר (מרכז) 9999/25")
    rec = upload(app, tmp_path, 0, draft=False)
    first = voice_review.mark(chair, rec["case_number"])
    with pytest.raises(InvalidInput, match="already marked"):
        voice_review.mark(chair, rec["case_number"])
    with pytest.raises(InvalidInput, match="unknown decision"):
        voice_review.review(chair, first["id"], "maybe")
    with pytest.raises(NotFound):
        voice_review.show(app, 999)
    with pytest.raises(InvalidInput, match="unknown status"):
        voice_review.list_documents(app, "done")
    # The chair drops a queued case; it may then be marked again.
    dropped = voice_review.review(chair, first["id"], "reject", reason="לא מופתי")
    assert (dropped["status"], dropped["dropped_from_queue"], dropped["claims"]) == (
        "rejected",
        True,
        0,
    )
    again = voice_review.mark(chair, rec["case_number"])
    statuses = [(d["id"], d["status"]) for d in voice_review.list_documents(app)["voice_documents"]]
    assert statuses == [(first["id"], "rejected"), (again["id"], "queued")]


def test_the_database_holds_the_gate(app, tmp_path, voice_writer, agent_db_url):
    script, _ = voice_writer
    rec = upload(app, tmp_path, 0)
    blocks = blocks_of(app, rec["final_text"])
    marked = voice_review.mark(app.acting_as(CHAIR), rec["case_number"])
    script.document = claims(blocks)
    voice.run(app)
    with psycopg.connect(agent_db_url, autocommit=True) as conn:
        for statement, args in (
            (
                "UPDATE voice_documents SET status = 'approved', reviewed_by = 'chair' WHERE id = %s",
                (marked["id"],),
            ),
            (
                "INSERT INTO voice_documents (case_number, marked_by) VALUES (%s, 'chair')",
                (rec["case_number"],),
            ),
            (
                "UPDATE voice_documents SET document = '{\"blocks\": []}' WHERE id = %s",
                (marked["id"],),
            ),
            ("DELETE FROM voice_documents WHERE id = %s", (marked["id"],)),
        ):
            with pytest.raises(
                (psycopg.errors.CheckViolation, psycopg.errors.InsufficientPrivilege)
            ):
                conn.execute(statement, args)
    chair = app.acting_as(CHAIR)
    with pytest.raises(psycopg.errors.CheckViolation, match="frozen"):
        with chair.store.transaction() as conn:  # not even the chair rewrites a written one
            conn.execute("UPDATE voice_documents SET claims = 0 WHERE id = %s", (marked["id"],))
    with pytest.raises(psycopg.errors.CheckViolation, match="not a move"):
        with chair.store.transaction() as conn:
            conn.execute(
                "UPDATE voice_documents SET status = 'queued' WHERE id = %s", (marked["id"],)
            )
    row = voice_review.show(app, marked["id"])
    assert row["status"] == "pending_review" and row["claims"] == 4


def test_cli_and_http_are_the_chairs_where_she_decides(
    app, settings, tmp_path, voice_writer, cli_env
):
    script, server = voice_writer
    rec = upload(app, tmp_path, 0)
    case = rec["case_number"]
    denied = run(cli_env, "voice", "mark", case, check=False)
    assert denied.returncode == 7 and "chair" in denied.stderr
    as_chair = {**cli_env, "LEGAL_AI_CHAIR_TOKEN": register_chair_token(app, "chair-secret")}
    marked = json.loads(run(as_chair, "voice", "mark", case, "--note", "מופתי", "--json").stdout)
    assert marked["status"] == "queued" and marked["note"] == "מופתי"
    script.document = claims(blocks_of(app, rec["final_text"]))
    env = {**cli_env, "LEGAL_AI_VOICE_WRITER": f"openai:voice@{server.url}"}
    assert "written: #" in run(env, "voice", "run").stdout
    listed = json.loads(
        run(cli_env, "voice", "list", "--status", "pending_review", "--json").stdout
    )["voice_documents"]
    assert [d["id"] for d in listed] == [marked["id"]]
    shown = run(cli_env, "voice", "show", str(marked["id"])).stdout
    assert "פתח דבר" in shown and "[pending_review]" in shown

    configured = settings.model_copy(
        update={"chair_token": "chair-secret", "agent_token": "agent-secret"}
    )
    client = TestClient(create_app(configured, legal=app))
    chair_h = {"Authorization": "Bearer chair-secret"}
    agent_h = {"Authorization": "Bearer agent-secret"}
    review = f"/api/voice-documents/{marked['id']}/review"
    assert client.post(review, headers=agent_h, json={"decision": "approve"}).status_code == 403
    assert (
        client.post(f"/api/cases/{case}/mark-exemplary", headers=agent_h, json={}).status_code
        == 403
    )
    assert client.get(f"/api/voice-documents/{marked['id']}", headers=agent_h).json()["blocks"]
    ok = client.post(review, headers=chair_h, json={"decision": "approve"})
    assert ok.status_code == 200 and ok.json()["status"] == "approved"
    listed = client.get(
        "/api/voice-documents", headers=agent_h, params={"status": "approved"}
    ).json()["voice_documents"]
    assert [d["id"] for d in listed] == [marked["id"]]
    got = client.get(
        "/api/brief",
        headers=agent_h,
        params={"appeal_type": rec["appeal_type"], "outcome": rec["outcome"]},
    ).json()
    assert [d["id"] for d in got["voice_documents"]] == [marked["id"]]
    again = client.post(f"/api/cases/{case}/mark-exemplary", headers=chair_h, json={"note": "x"})
    assert again.status_code == 400 and "already marked" in again.json()["error"]


def test_the_worker_writes_what_the_chair_marked(app, tmp_path, voice_writer):

    script, _ = voice_writer
    rec = upload(app, tmp_path, 0)
    marked = voice_review.mark(app.acting_as(CHAIR), rec["case_number"])
    script.document = claims(blocks_of(app, rec["final_text"]))
    lines: list[str] = []
    worker.work(app, once=True, echo=lines.append)
    assert "voice documents: written 1, refused 0, failed 0" in "\n".join(lines)
    assert voice_review.show(app, marked["id"])["status"] == "pending_review"
