"""The learning engine's queue and wiring against the real database (issue 11 item 2): a final
upload enqueues one job per final; two workers never take one job; a stale worker's completion
changes nothing; a worker killed mid-job leaves a job that runs again after its lease and
completes once; without a model (or without its key) `learning run` succeeds and says what to
set; every model call is recorded, a failed stage's too; and, through the CLI, the issue's
"Done when" with a scripted OpenAI-compatible server."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import threading
import time
from typing import Literal

import pytest
from pydantic import BaseModel

import factories
from helpers import run, until, write
from legal_ai.app import App
from legal_ai.errors import ProviderError
from legal_ai.knowledge.brief import writing_brief
from legal_ai.learning.engine import jobs
from legal_ai.learning.engine import models as engine
from legal_ai.learning.lessons import lesson_panel, lessons
from legal_ai.learning.pairs import drafts, finals
from legal_ai.ops.worker import STAGES
from legal_ai.store import job_queue as store
from llm_servers import Reply, schema_name, scripted_openai
from scenarios import distiller_lesson
from system_panel import distilled

pytestmark = pytest.mark.db


# -- helpers ------------------------------------------------------------------------------------


@pytest.fixture
def legal(app):
    """The emptied test database, with the queue and the call record emptied too."""
    with app.store.transaction() as conn:
        # model_calls is append-only (its triggers refuse TRUNCATE): a test reset runs in
        # replica mode, as the conftest's reset of the other append-only tables does.
        conn.execute("SET LOCAL session_replication_role = replica")
        conn.execute("TRUNCATE jobs, model_calls RESTART IDENTITY CASCADE")
    return app


def with_models(app: App, **settings) -> App:
    """The same database and embedder under settings that name models (the scripted server)."""
    return App(
        app.settings.model_copy(update=settings), store=app.store, embedder=app._inner_embedder
    )


def upload_pair(app: App, tmp_path, index: int = 0, final_text: str | None = None) -> dict:
    record = factories.records()[index]
    slug = factories.slug(record["case_number"])
    draft = write(tmp_path / f"{slug}.draft.txt", record["draft_text"])
    final = write(tmp_path / f"{slug}.final.txt", final_text or record["final_text"])
    with app.store.connection() as conn:
        has_draft = conn.execute(
            "SELECT 1 FROM drafts WHERE case_number = %s", (record["case_number"],)
        ).fetchone()
    if not has_draft:
        drafts.add_draft(
            app,
            record["case_number"],
            draft,
            appeal_type=record["appeal_type"],
            outcome=record["outcome"],
            practice_area=record["practice_area"],
        )
    return finals.upload_final(app, record["case_number"], final)


def all_jobs(app: App) -> list[dict]:
    with app.store.connection() as conn:
        return store.list_jobs(conn)


def calls(app: App) -> list[dict]:
    with app.store.connection() as conn:
        return conn.execute("SELECT * FROM model_calls ORDER BY id").fetchall()


def sql(app: App, query: str, params=()) -> None:
    with app.store.transaction() as conn:
        conn.execute(query, params)


def cli(env: dict, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """`legal-ai ARGS` in this process (helpers.run); the worker that is killed runs apart."""
    return run(env, *args, check=check)


# Test doubles of the three stages (the real ones are tested in their own files): each asks the
# configured model through the real adapter and writes through the real lesson service.
class Said(BaseModel):
    text: str


class Vote(BaseModel):
    vote: Literal["approve", "reject"]


def double_stages(fail: str | None = None) -> jobs.Stages:
    def distill(app, case, model, *, job_id=None):
        said = model.ask("distill the pair", f"case {case}", Said, stage="distill")
        if fail == "distill":
            raise ProviderError("scripted failure of the distiller")
        row = distilled(app, case, "style", said.text)
        return {
            "proposed": [row["id"]],
            "routed_to_chair": 0,
            "dropped_evidence": 0,
            "corroborated": 0,
        }

    def vote(app, lesson_ids, panel):
        counts = {"auto_approved": 0, "needs_chair": 0, "rejected": 0}
        for lesson_id in lesson_ids:
            votes = [
                {
                    "model": m.spec.name,
                    "vote": m.ask("vote", str(lesson_id), Vote, stage="panel").vote,
                    "model_call_id": m.last_call,
                }
                for m in panel
            ]
            row = lesson_panel.decide_by_panel(app, lesson_id, votes)
            key = {"approved": "auto_approved", "rejected": "rejected"}.get(
                row["review_status"], "needs_chair"
            )
            counts[key] += 1
        return counts

    def curate(app, case, model):
        said = model.ask("curate", f"case {case}", Said, stage="curator")
        found = lessons.record_curator_findings(
            app, case, [f"[סגנון] {said.text}", "[מבנה] הדיון בבלוק אחד", "[טבלאי] טבלה לשטחים"]
        )
        return {"recorded": found["recorded"]}

    return jobs.Stages(distill=distill, vote=vote, curate=curate)


def doubles_script(request: dict, path: str) -> Reply:
    if schema_name(request) == "Vote":
        return Reply(json={"vote": "approve"}, tokens_in=50, tokens_out=5)
    return Reply(json={"text": "משפטים קצרים והצהרתיים"}, tokens_in=300, tokens_out=20)


# -- enqueue ------------------------------------------------------------------------------------


def test_final_upload_enqueues_one_job_per_final(legal, tmp_path):
    first = upload_pair(legal, tmp_path)
    [job] = all_jobs(legal)
    assert first["learning_job"] == job["id"] and job["status"] == "queued"
    assert job["kind"] == "learning" and job["case_number"] == first["case_number"]
    assert any("learning stage queued" in note for note in first["notes"])

    again = upload_pair(legal, tmp_path)  # the same final: nothing new
    assert again["changed"] is False and again["learning_job"] is None
    assert [j["id"] for j in all_jobs(legal)] == [job["id"]]

    record = factories.records()[0]
    changed = upload_pair(legal, tmp_path, final_text=record["final_text"] + "\nתוספת קטנה.\n")
    old, new = all_jobs(legal)
    assert changed["learning_job"] == new["id"] and new["status"] == "queued"
    assert new["key"] != old["key"]
    # The older job had not started: it would read the case as it now is, so it is closed.
    assert old["status"] == "done" and old["result"] == {"superseded_by": new["id"]}


def test_same_final_twice_in_one_transaction_race_enqueues_once(legal):
    with legal.store.transaction() as conn:
        a = jobs.enqueue(conn, "ערר 1/25", "h1")
        b = jobs.enqueue(conn, "ערר 1/25", "h1")
    assert a is not None and b is None
    assert len(all_jobs(legal)) == 1


# -- claim, lease, complete once ----------------------------------------------------------------


def test_two_workers_claim_each_job_once(legal):
    with legal.store.transaction() as conn:
        ids = [jobs.enqueue(conn, f"ערר {n}/25", "h")["id"] for n in range(1, 13)]
    taken: dict[str, list[int]] = {"A": [], "B": []}
    start = threading.Barrier(2)

    def drain(worker: str) -> None:
        start.wait()
        while True:
            with legal.store.transaction() as conn:
                job = store.claim(conn, worker, 60)
            if job is None:
                return
            taken[worker].append(job["id"])
            time.sleep(0.01)  # hold it a moment, as a real job does
            with legal.store.transaction() as conn:
                assert store.complete(conn, job["id"], worker, job["attempts"], {"ok": 1})

    threads = [threading.Thread(target=drain, args=(w,)) for w in taken]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(taken["A"] + taken["B"]) == ids  # every job once, none twice
    assert taken["A"] and taken["B"]  # both workers had work
    rows = all_jobs(legal)
    assert {r["status"] for r in rows} == {"done"} and {r["attempts"] for r in rows} == {1}


def test_stale_worker_changes_nothing(legal):
    with legal.store.transaction() as conn:
        jobs.enqueue(conn, "ערר 2/25", "h")
        first = store.claim(conn, "worker-a", 60)
    with legal.store.transaction() as conn:
        assert store.claim(conn, "worker-b", 60) is None  # leased: nobody else takes it
    sql(legal, "UPDATE jobs SET lease_until = now() - interval '1 second'")  # a's lease ends
    with legal.store.transaction() as conn:
        second = store.claim(conn, "worker-b", 60)
    assert second["id"] == first["id"] and second["attempts"] == 2
    with legal.store.transaction() as conn:  # worker a wakes up: its completion is refused
        assert store.complete(conn, first["id"], "worker-a", 1, {"by": "a"}) is None
        assert not store.save_progress(conn, first["id"], "worker-a", 1, {"by": "a"}, 60)
        assert store.complete(conn, first["id"], "worker-b", 2, {"by": "b"}) is not None
        assert store.complete(conn, first["id"], "worker-b", 2, {"by": "b"}) is None  # once
    [row] = all_jobs(legal)
    assert row["status"] == "done" and row["result"] == {"by": "b"} and row["worker"] == "worker-b"


def test_a_job_whose_worker_died_on_its_last_attempt_fails(legal):
    with legal.store.transaction() as conn:
        jobs.enqueue(conn, "ערר 3/25", "h")
    for attempt in range(1, 4):
        with legal.store.transaction() as conn:
            job = store.claim(conn, f"w{attempt}", 60)
        assert job["attempts"] == attempt
        sql(legal, "UPDATE jobs SET lease_until = now() - interval '1 second'")
    report = jobs.run(legal, stages=STAGES)
    [row] = all_jobs(legal)
    assert row["status"] == "failed" and "stopped without finishing it 3 times" in row["error"]
    assert report["failed"][0]["job_id"] == row["id"] and report["pending"] == []


# -- without models -----------------------------------------------------------------------------


def test_without_models_learning_run_says_what_to_set(legal, tmp_path, cli_env):
    upload_pair(legal, tmp_path)
    env = {k: v for k, v in cli_env.items() if not k.endswith("_API_KEY")}
    result = json.loads(cli(env, "learning", "run", "--json").stdout)
    for key in (
        "cases",
        "proposed",
        "auto_approved",
        "needs_chair",
        "rejected",
        "pending",
        "model_calls",
    ):
        assert key in result
    assert result["proposed"] == result["auto_approved"] == result["model_calls"] == 0
    [pending] = result["pending"]
    assert pending["case_number"] == factories.records()[0]["case_number"]
    for variable in ("LEGAL_AI_DISTILLER", "LEGAL_AI_STYLE_PANEL", "LEGAL_AI_CURATOR"):
        assert variable in pending["reason"]
        assert any(variable in m for m in result["missing"])
    [job] = all_jobs(legal)
    assert job["status"] == "waiting" and job["attempts"] == 0 and job["waiting_for"]

    # The human form says the same; a second pass leaves the job waiting (nothing changed).
    text = cli(env, "learning", "run").stdout
    assert "pending: job" in text and "to enable: set LEGAL_AI_DISTILLER" in text
    assert all_jobs(legal)[0]["status"] == "waiting"

    # A provider named without its key: the job is re-checked and says which key to set.
    keyless = {**env, "LEGAL_AI_DISTILLER": "openai:gpt-4.1-mini"}
    result = json.loads(cli(keyless, "learning", "run", "--json").stdout)
    [pending] = result["pending"]
    assert "set OPENAI_API_KEY for LEGAL_AI_DISTILLER=openai:gpt-4.1-mini" in pending["reason"]
    assert "LEGAL_AI_STYLE_PANEL" in pending["reason"] and result["model_calls"] == 0

    # A malformed spec is refused with the variable and the form (exit 2), nothing run.
    bad = cli({**env, "LEGAL_AI_CURATOR": "gpt-4"}, "learning", "run", check=False)
    assert bad.returncode == 2 and "LEGAL_AI_CURATOR" in bad.stderr
    assert "PROVIDER:MODEL" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_missing_lists_keys_per_provider(legal):
    configured = with_models(
        legal,
        distiller="anthropic:claude-sonnet-4-5",
        style_panel="openai:gpt-4.1-mini,gemini:gemini-2.5-flash",
        curator="openai:qwen2.5@http://127.0.0.1:9/v1",
    )
    models = engine.configured(configured, environ={"OPENAI_API_KEY": "sk-test"})
    assert models.distiller is None and models.panel == []
    assert models.reasons == {
        "distiller": "set ANTHROPIC_API_KEY for LEGAL_AI_DISTILLER=anthropic:claude-sonnet-4-5",
        "style_panel": "set GEMINI_API_KEY for LEGAL_AI_STYLE_PANEL=gemini:gemini-2.5-flash",
    }
    # an endpoint named by its URL (a local server) needs no key
    assert models.curator is not None and models.curator.spec.name == "openai:qwen2.5"
    local = with_models(legal, distiller="anthropic:claude-sonnet-4-5@http://127.0.0.1:9")
    assert engine.configured(local, environ={}).distiller is not None


# -- with (scripted) models: the stages, their calls, retries -----------------------------------


def test_waiting_job_runs_once_configured_and_records_its_calls(legal, tmp_path):
    upload = upload_pair(legal, tmp_path)
    case = upload["case_number"]
    report = jobs.run(legal, stages=double_stages(), environ={})
    assert report["pending"][0]["status"] == "waiting" and report["model_calls"] == 0

    with scripted_openai(doubles_script) as server:
        # the distiller alone: it runs, the panel and the curator are still awaited
        partial = with_models(legal, distiller=f"openai:scripted-a@{server.url}")
        report = jobs.run(partial, stages=double_stages(), environ={})
        assert report["proposed"] == 1 and report["auto_approved"] == 0
        [pending] = report["pending"]
        assert "LEGAL_AI_STYLE_PANEL" in pending["reason"]
        assert "LEGAL_AI_DISTILLER" not in pending["reason"]
        # all three: the job resumes; the distiller is not asked again (its stage is done)
        full = with_models(
            legal,
            distiller=f"openai:scripted-a@{server.url}",
            style_panel=f"openai:scripted-a@{server.url},openai:scripted-b@{server.url}",
            curator=f"openai:scripted-c@{server.url}",
        )
        report = jobs.run(full, stages=double_stages(), environ={})
    assert report["cases"] == [case] and report["pending"] == []
    assert report["proposed"] == 0 and report["auto_approved"] == 1  # proposed in the last pass
    assert report["model_calls"] == 3  # two votes and the curator, this pass
    assert report["tokens"] == {"in": 50 + 50 + 300, "out": 5 + 5 + 20}
    [job] = all_jobs(legal)
    assert job["status"] == "done" and job["attempts"] == 1
    assert set(job["result"]["stages"]) == {"distill", "panel", "curator"}

    rows = calls(legal)
    assert [(r["stage"], r["model"]) for r in rows] == [
        ("distill", "scripted-a"),
        ("panel", "scripted-a"),
        ("panel", "scripted-b"),
        ("curator", "scripted-c"),
    ]
    assert {r["job_id"] for r in rows} == {job["id"]} and {r["case_number"] for r in rows} == {case}
    assert all(r["outcome"] == "ok" and len(r["prompt_hash"]) == 64 for r in rows)
    assert rows[0]["base_url"] == server.url
    # The panel's approval is the panel's, and the engine acted as an agent, never the chair.
    with legal.store.connection() as conn:
        [approved] = conn.execute(
            "SELECT * FROM decision_lessons WHERE source = 'distillation'"
        ).fetchall()
    assert approved["review_status"] == "approved" and approved["reviewed_by"] == "panel"
    assert approved["proposed_by"] == "system:learning-engine"


def test_failed_stage_keeps_its_calls_and_is_retried_then_failed(legal, tmp_path):
    upload_pair(legal, tmp_path)

    def script(request, path):
        return Reply(status=500)

    with scripted_openai(script) as server:
        broken = with_models(legal, distiller=f"openai:scripted@{server.url}", model_retries=1)
        report = jobs.run(broken, stages=double_stages(), environ={})
        [job] = all_jobs(legal)
        assert job["status"] == "queued" and job["attempts"] == 1
        assert "failed at distill after 2 attempt(s)" in job["error"]
        assert report["pending"][0]["reason"].startswith("retry 2 of 3 after")
        # the failed stage's calls are recorded: two attempts, both answered 500
        assert [(c["outcome"], c["attempt"]) for c in calls(legal)] == [("error", 1), ("error", 2)]
        assert report["model_calls"] == 2
        for _ in (2, 3):  # due again now (the backoff passed)
            sql(broken, "UPDATE jobs SET run_after = now()")
            report = jobs.run(broken, stages=double_stages(), environ={})
    [job] = all_jobs(legal)
    assert job["status"] == "failed" and job["attempts"] == 3 and job["finished_at"]
    assert report["failed"][0]["error"].startswith("openai:scripted failed at distill")
    assert len(calls(legal)) == 6
    assert lessons.list_lessons(legal)["lessons"] == []  # nothing proposed, nothing approved


def test_a_stage_error_after_its_calls_is_retried(legal, tmp_path):
    """The stage fails after its model answered: the calls stay, the job is retried."""
    upload_pair(legal, tmp_path)
    with scripted_openai(doubles_script) as server:
        models = with_models(legal, distiller=f"openai:scripted@{server.url}")
        jobs.run(models, stages=double_stages(fail="distill"), environ={})
        [job] = all_jobs(legal)
        assert job["status"] == "queued" and "scripted failure" in job["error"]
        assert [c["outcome"] for c in calls(legal)] == ["ok"]
        sql(models, "UPDATE jobs SET run_after = now()")
        report = jobs.run(models, stages=double_stages(), environ={})
    [job] = all_jobs(legal)
    assert job["status"] == "waiting" and job["attempts"] == 1 and report["proposed"] == 1
    assert job["result"]["stages"]["distill"]["proposed"]


def test_a_worker_asked_to_stop_gives_the_job_back_with_its_finished_stages(legal, tmp_path):
    upload_pair(legal, tmp_path)
    with scripted_openai(doubles_script) as server:
        full = with_models(
            legal,
            distiller=f"openai:scripted-a@{server.url}",
            style_panel=f"openai:scripted-a@{server.url},openai:scripted-b@{server.url}",
            curator=f"openai:scripted-c@{server.url}",
        )
        stop = {"now": False}

        def distill_then_stop(app, case, model, *, job_id=None):
            result = double_stages().distill(app, case, model, job_id=job_id)
            stop["now"] = True  # SIGTERM arrives while the distiller works
            return result

        stages = jobs.Stages(
            distill=distill_then_stop, vote=double_stages().vote, curate=double_stages().curate
        )
        report = jobs.run(full, stages=stages, should_stop=lambda: stop["now"], environ={})
        [job] = all_jobs(legal)
        assert report["jobs"][0]["status"] == "released"
        assert job["status"] == "queued" and job["attempts"] == 0 and job["worker"] is None
        assert set(job["result"]["stages"]) == {"distill"}
        report = jobs.run(full, stages=double_stages(), environ={})  # the next pass resumes
    [job] = all_jobs(legal)
    assert job["status"] == "done" and job["attempts"] == 1
    assert [c["stage"] for c in calls(legal)] == ["distill", "panel", "panel", "curator"]
    assert report["auto_approved"] == 1


# -- the worker process -------------------------------------------------------------------------


def test_worker_stops_cleanly_on_sigterm(legal, cli_env):
    process = subprocess.Popen(
        [sys.executable, "-m", "legal_ai.cli", "worker", "--poll", "0.2"],
        env=cli_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert json.loads(process.stderr.readline())["message"].endswith(": started")
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    # Its lines are JSON log records on stderr, like the server's (logs.py); nothing on stdout.
    messages = [json.loads(line)["message"] for line in err.splitlines()]
    assert out == "" and messages[-1].endswith("stopped after 0 job(s)"), err


# -- end to end through the CLI, with the real stages and a scripted OpenAI-compatible server --

_BLOCK_RE = re.compile(
    r"## block: (\w+)[^\n]*\n<<<DRAFT\n(.*?)\nDRAFT>>>\n<<<FINAL\n(.*?)\nFINAL>>>", re.S
)
APPROVED_TEXT = "משפטים קצרים והצהרתיים, בלי הקדמות ובלי מילות מילוי"


def engine_script(request: dict, path: str) -> Reply:
    """The scripted models of the end-to-end run: a distiller that quotes its own prompt (so its
    spans are verbatim), adds one lesson whose evidence is nowhere and one that carries
    substance; a panel whose second model approves only the first lesson; a curator."""
    name = schema_name(request)
    user = request["messages"][-1]["content"]
    if name == "DistilledLessons":
        blocks = _BLOCK_RE.findall(user)
        (b1, d1, f1), (b2, d2, f2) = blocks[0], blocks[1]

        def span(text: str) -> str:
            return " ".join(text.split()[:6])

        return Reply(
            json={
                "lessons": [
                    distiller_lesson("style", b1, APPROVED_TEXT, span(d1), span(f1)),
                    distiller_lesson(
                        "anti_pattern", b2, "להשמיט ביטויי מילוי בפתיחת פסקה", span(d2), span(f2)
                    ),
                    distiller_lesson(
                        "style", b1, "לקצר את הפתיחה", "משפט שאינו מופיע בטיוטה כלל ועיקר", span(f1)
                    ),
                    distiller_lesson(
                        "style", b1, "בתכנית 1234 נקבע קו בניין של 3 מטרים", span(d1), span(f1)
                    ),
                ]
            },
            tokens_in=2400,
            tokens_out=420,
        )
    if name == "PanelVote":
        approve = request["model"] == "panel-a" or APPROVED_TEXT in user
        return Reply(
            json={
                "vote": "approve" if approve else "reject",
                "reason": "סגנון כללי" if approve else "לא ברור",
            },
            tokens_in=600,
            tokens_out=30,
        )
    if name == "CuratorFindings":
        return Reply(
            json={
                "findings": [
                    {"tag": "סגנון", "finding": "משפטי הדיון קצרים ועניינים"},
                    {"tag": "מבנה", "finding": "הסיור במקום מתואר בתוך הדיון"},
                    {"tag": "לקסיקון משפטי", "finding": "אין צו להוצאות ולא נוסח אחר"},
                ]
            },
            tokens_in=3500,
            tokens_out=150,
        )
    return Reply(status=400)


def engine_env(env: dict, url: str) -> dict:
    return {
        **env,
        "LEGAL_AI_DISTILLER": f"openai:distiller@{url}",
        "LEGAL_AI_STYLE_PANEL": f"openai:panel-a@{url},openai:panel-b@{url}",
        "LEGAL_AI_CURATOR": f"openai:curator@{url}",
        "LEGAL_AI_MODEL_RETRIES": "0",
    }


def test_done_when_learning_run_end_to_end_through_the_cli(legal, tmp_path, cli_env):
    """Issue 11's "Done when": the three variables point at an OpenAI-compatible endpoint (the
    scripted one); a draft and its final are uploaded; `learning run CASE --json` reports
    the keys; lessons carry verbatim evidence; panel verdicts are recorded; the brief changes
    only by approved lessons."""
    record = factories.records()[0]
    case = record["case_number"]
    upload_pair(legal, tmp_path)
    before = writing_brief(legal, record["appeal_type"], record["outcome"])["lessons"]
    assert before == []
    with scripted_openai(engine_script) as server:
        result = json.loads(
            cli(engine_env(cli_env, server.url), "learning", "run", case, "--json").stdout
        )
        requests = list(server.requests)
    for key in (
        "cases",
        "proposed",
        "auto_approved",
        "needs_chair",
        "rejected",
        "pending",
        "model_calls",
    ):
        assert key in result
    assert result["cases"] == [case] and result["pending"] == [] and result["missing"] == []
    assert result["proposed"] == 2  # the two style lessons with their evidence
    assert result["auto_approved"] == 1 and result["rejected"] == 0
    assert result["needs_chair"] == 2  # the split, and the substance routed to the chair
    [job] = result["jobs"]
    assert job["status"] == "done"
    assert job["ran"]["distill"]["dropped_evidence"] == 1
    assert job["ran"]["distill"]["routed_to_chair"] == 1
    assert job["ran"]["curator"]["recorded"] == 3
    # 1 distillation + 2 lessons x 2 panel models + 1 curator; the scripted token counts
    assert result["model_calls"] == 6 == len(requests)
    assert result["tokens"] == {"in": 2400 + 4 * 600 + 3500, "out": 420 + 4 * 30 + 150}
    rows = calls(legal)
    assert [r["stage"] for r in rows] == ["distill"] + ["panel"] * 4 + ["curator"]
    assert {r["job_id"] for r in rows} == {job["id"]} and {r["outcome"] for r in rows} == {"ok"}

    with legal.store.connection() as conn:
        lessons_of = conn.execute(
            "SELECT l.*, c.kind FROM decision_lessons l JOIN lesson_categories c USING (category)"
            " WHERE l.source = 'distillation' ORDER BY l.id"
        ).fetchall()
        verdicts = conn.execute(
            "SELECT lesson_id, model, vote FROM panel_verdicts ORDER BY lesson_id, model"
        ).fetchall()
        draft = conn.execute(
            "SELECT blocks FROM drafts WHERE case_number = %s", (case,)
        ).fetchone()["blocks"]
        final = conn.execute(
            "SELECT final_blocks FROM draft_final_pairs WHERE case_number = %s", (case,)
        ).fetchone()["final_blocks"]
    style = [r for r in lessons_of if r["kind"] == "style"]
    substance = [r for r in lessons_of if r["kind"] == "substance"]
    assert len(style) == 2 and len(substance) == 1
    for lesson in lessons_of:  # verbatim evidence, in the right block of each text
        evidence = lesson["evidence"]
        block = evidence["block"]
        for side, blocks in (("draft", draft), ("final", final)):
            span = evidence[side]
            assert blocks[block][span["start"] : span["end"]] == span["text"]
        assert lesson["job_id"] == job["id"] and lesson["proposed_by"] == "system:learning-engine"
    approved = [r for r in style if r["review_status"] == "approved"]
    assert [r["text"] for r in approved] == [APPROVED_TEXT]
    assert approved[0]["reviewed_by"] == "panel"
    assert approved[0]["panel_models"] == "panel:openai:panel-a+openai:panel-b"
    split = next(r for r in style if r["review_status"] == "proposed")
    assert split["needs_chair"]
    assert substance[0]["needs_chair"] and substance[0]["routed_reason"]
    assert substance[0]["review_status"] == "proposed"  # substance never auto-approves
    assert {(v["lesson_id"], v["model"], v["vote"]) for v in verdicts} == {
        (approved[0]["id"], "openai:panel-a", "approve"),
        (approved[0]["id"], "openai:panel-b", "approve"),
        (split["id"], "openai:panel-a", "approve"),
        (split["id"], "openai:panel-b", "reject"),
    }
    # The brief changed by the approved lesson only (not the split, the substance or the
    # curator's proposals).
    after = writing_brief(legal, record["appeal_type"], record["outcome"])["lessons"]
    assert [item["text"] for item in after] == [APPROVED_TEXT]

    # Run again: nothing is ready, nothing is asked, nothing changes.
    with scripted_openai(engine_script) as server:
        again = json.loads(
            cli(engine_env(cli_env, server.url), "learning", "run", case, "--json").stdout
        )
        assert server.requests == []
    assert again["jobs"] == [] and again["model_calls"] == 0 and again["pending"] == []


def test_worker_killed_mid_job_runs_again_after_its_lease_and_completes_once(
    legal, tmp_path, cli_env
):
    """`legal-ai worker --once` is killed (SIGKILL) while the distiller answers slowly; the job
    stays running under its lease; nobody takes it before the lease ends; then the next pass
    runs it again and it completes once."""
    case = upload_pair(legal, tmp_path)["case_number"]
    slow = {"first": True}

    def script(request: dict, path: str) -> Reply:
        reply = engine_script(request, path)
        if schema_name(request) == "DistilledLessons" and slow.pop("first", False):
            reply.delay = 60.0  # the first worker is killed while it waits for this answer
        return reply

    with scripted_openai(script) as server:
        env = {**engine_env(cli_env, server.url), "LEGAL_AI_JOB_LEASE_S": "10"}
        worker = subprocess.Popen(
            [sys.executable, "-m", "legal_ai.cli", "worker", "--once"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            until(lambda: server.requests, 120, "the worker's first model call")
            killed_at = time.monotonic()
            worker.send_signal(signal.SIGKILL)
            worker.wait(30)
        finally:
            if worker.poll() is None:
                worker.kill()
        [job] = all_jobs(legal)
        assert job["status"] == "running" and job["attempts"] == 1 and job["worker"]
        assert calls(legal) == []  # the call in flight was never answered, so never recorded

        models = with_models(
            legal,
            job_lease_s=10,
            model_retries=0,
            distiller=f"openai:distiller@{server.url}",
            style_panel=f"openai:panel-a@{server.url},openai:panel-b@{server.url}",
            curator=f"openai:curator@{server.url}",
        )
        if time.monotonic() - killed_at < 8:  # still leased: the job is not taken again
            early = jobs.run(models, case, stages=STAGES, environ={})
            assert early["jobs"] == [] and early["pending"][0]["status"] == "running"
            assert early["pending"][0]["reason"].startswith("running on worker")
        until(lambda: _lease_ended(legal), 30, "the dead worker's lease to end")
        report = jobs.run(models, case, stages=STAGES, environ={})
    [outcome] = report["jobs"]
    assert outcome["status"] == "done" and outcome["attempt"] == 2
    [job] = all_jobs(legal)
    assert job["status"] == "done" and job["attempts"] == 2 and job["finished_at"]
    assert report["proposed"] == 2 and report["auto_approved"] == 1
    with legal.store.connection() as conn:
        counts = conn.execute(
            "SELECT source, count(*) AS n FROM decision_lessons GROUP BY source ORDER BY source"
        ).fetchall()
    assert {r["source"]: r["n"] for r in counts} == {"curator": 3, "distillation": 3}
    assert [r["stage"] for r in calls(legal)] == ["distill"] + ["panel"] * 4 + ["curator"]


def _lease_ended(app: App) -> bool:
    with app.store.connection() as conn:
        row = conn.execute(
            "SELECT lease_until < now() AS ended FROM jobs WHERE kind = 'learning'"
        ).fetchone()
    return bool(row and row["ended"])
