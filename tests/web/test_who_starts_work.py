"""Who may start work (issue 19 item 6), against the real PostgreSQL with real threads:

- extraction over HTTP is queued, never run in the request: an agent queues one named item
  (fifty requests in a row: one job, no model called), `all` and a whole corpus are the
  chair's (403 for an agent; her `all` queues one job per item), an agent's open requests are
  bounded (429);
- running a scheduled job on demand is the chair's (403 for an agent) and is handed to the
  worker;
- with the nightly job and the three others running at once (each held mid-run by a barrier),
  no connection is idle in a transaction and searches over HTTP and over MCP (/mcp of the same
  web app, on the same pool) answer — no 503, no PoolTimeout — and every run is recorded ok."""

from __future__ import annotations

import asyncio
import datetime as dt
import threading
import time

import httpx
import pytest
from fastapi.testclient import TestClient

from helpers import DECISION_FIELDS, payload, remote_session, serving, write
from legal_ai.app import App
from legal_ai.learning.principles import jobs as principle_jobs
from legal_ai.learning.principles import requests as extraction_requests
from legal_ai.ops import scheduler as schedule
from legal_ai.ops.cron import next_after, timezone_of
from legal_ai.ops.scheduler import JOBS, Job
from legal_ai.web.app import create_app
from llm_servers import Reply, scripted_openai

pytestmark = pytest.mark.db

AGENT = "work-agent-token"
CHAIR = "work-chair-token"
RULING = "סטייה ניכרת מתכנית אינה יכולה להינתן כהקלה. הוועדה חייבת לנמק את החלטתה בכתב."


def web_settings(app, **update):
    return app.settings.model_copy(
        update={"agent_token": f"drafter={AGENT}", "chair_token": CHAIR, **update}
    )


def auth(token: str = AGENT) -> dict:
    return {"Authorization": f"Bearer {token}"}


def ruling(app, tmp_path, n: int, corpus: str = "external") -> str:
    doc_id = f"{corpus}-ruling-{n}"
    meta = (
        {"case_number": f'עע"מ {n}/05', "court": "העליון", "decided_on": "2005-03-01"}
        if corpus == "external"
        else {
            "case_number": f"ערר {n}/24",
            "practice_area": "planning",
            "decided_on": "2024-03-01",
            **DECISION_FIELDS,
        }
    )
    path = write(tmp_path / f"{doc_id}.txt", f"{RULING} ({n})")
    assert app.ingest([path], corpus, meta=meta, doc_id=doc_id).ingested == 1
    return doc_id


def principle_jobs_rows(app) -> list[dict]:
    with app.store.connection() as conn:
        return conn.execute(
            "SELECT id, key, status, result FROM jobs WHERE kind = 'principles' ORDER BY id"
        ).fetchall()


def forget_arrival_jobs(app) -> None:
    """The jobs the ingest queued on arrival, gone: items as if stored before the queue."""
    with app.store.transaction() as conn:
        conn.execute("DELETE FROM jobs WHERE kind = 'principles'")


class Panel:
    """A scripted model server that counts the calls it receives (any call is a model run)."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, request: dict, path: str) -> Reply:
        self.calls += 1
        return Reply(json={"principles": []})


def test_an_agent_queues_one_named_item_and_fifty_requests_queue_one_job(app, tmp_path):
    doc_id = ruling(app, tmp_path, 1)
    forget_arrival_jobs(app)
    panel = Panel()
    with scripted_openai(panel) as server:
        spec = ",".join(f"openai:{m}@{server.url}" for m in "abc")
        legal = App(
            web_settings(app, principle_panel=spec, model_retries=0),
            store=app.store,
            embedder=app._inner_embedder,
        )
        with TestClient(create_app(legal.settings, legal=legal)) as client:
            answers = [
                client.post(
                    "/api/principles/extract",
                    headers=auth(),
                    json={"doc_id": doc_id, "corpus": "external"},
                )
                for _ in range(50)
            ]
        assert {a.status_code for a in answers} == {202}
        first, *rest = (a.json() for a in answers)
        assert first["queued"] == 1 and first["jobs"][0]["new"] is True
        job_id = first["jobs"][0]["job_id"]
        assert "queued as job" in first["note"] and "never this request" in first["note"]
        assert all(r["queued"] == 0 and r["jobs"][0]["job_id"] == job_id for r in rest)
        assert "already asked for this text" in rest[0]["note"]
        assert panel.calls == 0  # no model ran in any request
        [row] = principle_jobs_rows(app)
        assert row["id"] == job_id and row["status"] == "queued"
        assert row["result"] == {"requested_by": "agent:drafter"}
        # The worker runs it (the panel is called there, never in the request).
        report = principle_jobs.run(legal)
        assert [j["id"] for j in report["jobs"]] == [job_id] and panel.calls == 3
    [row] = principle_jobs_rows(app)
    assert row["status"] == "done"
    with TestClient(create_app(legal.settings, legal=legal)) as client:
        after = client.post(
            "/api/principles/extract", headers=auth(), json={"doc_id": doc_id, "corpus": "external"}
        ).json()
    assert after["jobs"][0] == {
        "job_id": job_id,
        "doc_id": doc_id,
        "corpus": "external",
        "status": "done",
        "new": False,
    }


def test_all_and_a_corpus_are_the_chairs_and_her_all_queues_one_job_per_item(app, tmp_path):
    external = [ruling(app, tmp_path, n) for n in (1, 2)]
    internal = ruling(app, tmp_path, 3, corpus="internal")
    forget_arrival_jobs(app)
    with TestClient(create_app(web_settings(app), legal=app)) as client:
        for body in ({"all": True}, {"corpus": "external"}, {"corpus": "internal", "all": True}):
            refused = client.post("/api/principles/extract", headers=auth(), json=body)
            assert refused.status_code == 403, body
            assert "is the chair's" in refused.json()["error"]
            assert "may queue one named item" in refused.json()["error"]
        assert principle_jobs_rows(app) == []
        bad = client.post("/api/principles/extract", headers=auth(), json={})
        assert bad.status_code == 400
        unknown = client.post(
            "/api/principles/extract", headers=auth(), json={"doc_id": "nope", "corpus": "external"}
        )
        assert unknown.status_code == 404
        everything = client.post("/api/principles/extract", headers=auth(CHAIR), json={"all": True})
        assert everything.status_code == 202, everything.text
        answer = everything.json()
        assert answer["queued"] == 3 and answer["already_queued"] == 0
        assert sorted(j["doc_id"] for j in answer["jobs"]) == sorted([*external, internal])
        again = client.post(
            "/api/principles/extract", headers=auth(CHAIR), json={"all": True}
        ).json()
        assert again["queued"] == 0 and again["already_queued"] == 3
    rows = principle_jobs_rows(app)
    assert len(rows) == 3 and {r["result"]["requested_by"] for r in rows} == {"chair"}


def test_an_agents_open_requests_are_bounded(app, tmp_path, monkeypatch):
    monkeypatch.setattr(extraction_requests, "MAX_OPEN_PER_AGENT", 3)
    items = [ruling(app, tmp_path, n) for n in range(1, 6)]
    forget_arrival_jobs(app)
    with TestClient(create_app(web_settings(app), legal=app)) as client:

        def ask(doc_id: str, token: str = AGENT):
            return client.post(
                "/api/principles/extract",
                headers=auth(token),
                json={"doc_id": doc_id, "corpus": "external"},
            )

        assert [ask(d).status_code for d in items[:3]] == [202, 202, 202]
        refused = ask(items[3])
        assert refused.status_code == 429 and refused.headers.get("Retry-After")
        assert "3 extraction requests not yet run (at most 3)" in refused.json()["error"]
        assert ask(items[0]).status_code == 202  # asked again: queues nothing, never refused
        assert ask(items[3], CHAIR).status_code == 202  # the chair is not bounded
    assert len(principle_jobs_rows(app)) == 4


def test_all_jobs_at_once_starve_no_search_over_http_or_mcp(app, tmp_path, monkeypatch):
    """The chair asks for every job over HTTP (queued, 202); a worker thread per job runs them
    on the web app's own App (one pool of 4 connections, 3 s to get one), each job held mid-run
    at a barrier. Then nothing is idle in a transaction, and searches answer."""
    ruling(app, tmp_path, 7)
    barrier, release = threading.Barrier(len(JOBS) + 1, timeout=120), threading.Event()

    def held(job: Job) -> Job:
        def run(runner, now):
            result = job.run(runner, now)  # the real job's work
            barrier.wait()  # all are running now, none recorded yet
            assert release.wait(120)
            return result

        return Job(job.name, job.cron, job.about, run)

    monkeypatch.setattr(schedule, "JOBS", tuple(held(j) for j in JOBS))
    settings = web_settings(app, pool_max_size=4, pool_timeout_s=3.0)
    legal = App(settings, embedder=app._inner_embedder)  # its own pool, as `legal-ai serve`
    reports: list[dict] = []
    began = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)  # the schedule rows were made
    try:
        with serving(create_app(settings, legal=legal), lifespan="on") as url:
            with httpx.Client(base_url=url, timeout=60) as http:
                for job in JOBS:
                    asked = http.post(f"/api/jobs/{job.name}/run", headers=auth(CHAIR))
                    assert asked.status_code == 202 and asked.json()["outcome"] == "queued"
                workers = [
                    threading.Thread(
                        target=lambda i=i: reports.extend(
                            schedule.run_due(legal, worker=f"worker-{i}")
                        )
                    )
                    for i in range(len(JOBS))
                ]
                for worker in workers:
                    worker.start()
                try:
                    barrier.wait()  # every job is mid-run
                    with legal.store.connection() as conn:
                        idle = conn.execute(
                            "SELECT count(*) AS n FROM pg_stat_activity WHERE datname ="
                            " current_database() AND state LIKE 'idle in transaction%'"
                        ).fetchone()["n"]
                        running = {
                            r["name"] for r in conn.execute("SELECT name FROM schedules")
                        } & schedule.store.leased(conn)
                    assert idle == 0
                    assert running == {j.name for j in JOBS}
                    started = time.monotonic()
                    searches = [
                        http.get(
                            "/api/search",
                            headers=auth(),
                            params={"query": "סטייה ניכרת", "corpus": corpus},
                        )
                        for corpus in ("external", "internal", "digests") * 4
                    ]
                    assert [s.status_code for s in searches] == [200] * 12, searches[-1].text
                    _, results = asyncio.run(
                        remote_session(
                            url,
                            AGENT,
                            [
                                ("search_precedent_library", {"query": "סטייה ניכרת"}),
                                ("search_internal_decisions", {"query": "הקלה"}),
                                ("search_digests", {"query": "הקלה"}),
                            ],
                        )
                    )
                    assert not any(r.is_error for r in results), [r.content for r in results]
                    assert payload(results[0])["hits"][0]["doc_id"] == "external-ruling-7"
                    assert time.monotonic() - started < 3.0 * 4  # none waited out the pool
                finally:
                    release.set()
                    for worker in workers:
                        worker.join(120)
    finally:
        legal.close()
    ran = {r["name"]: r for r in reports if r.get("ran")}
    assert set(ran) == {j.name for j in JOBS}
    # Each ran on her request — but a job whose own slot came while the test ran (a quarter
    # hour's boundary, say) may have run on schedule first, its request then left for the next pass.
    ended, zone = dt.datetime.now(dt.UTC), timezone_of(app)
    slotted = {j.name for j in JOBS if next_after(j.cron, zone, began) <= ended}
    triggers = {n: r["trigger"] for n, r in ran.items()}
    assert {n: t for n, t in triggers.items() if n not in slotted} == {
        n: "manual" for n in ran if n not in slotted
    }
    assert set(triggers.values()) <= {"manual", "schedule"}
    assert {n: r["outcome"] for n, r in ran.items()} == {
        "weekly-feedback-analysis": "skipped",
        "stale-case-reminder": "ok",
        "sync-case-status": "ok",
        "nightly-upkeep": "ok",
        "nightly-backup": "skipped",  # no LEGAL_AI_BACKUP_DIR
    }, {n: r["error"] for n, r in ran.items()}
    with app.store.connection() as conn:
        recorded = conn.execute("SELECT name, requested_by FROM schedule_runs").fetchall()
    assert sorted((r["name"], r["requested_by"]) for r in recorded) == sorted(
        (j.name, "chair") for j in JOBS
    )
