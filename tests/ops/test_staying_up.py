"""Staying up through a database restart (issue 32 item 4), on a throwaway embedded PostgreSQL of
this module's own (the session's server is never stopped): the probes apart — `/healthz` alive
without the database, `/readyz` 503 naming it down or its pending migrations, `/metrics`
answering `legal_ai_database_up 0` within 2 s with the server really stopped — and a running
`legal-ai worker` subprocess through a stop and a start of the server with a job in hand: one
JSON line when the database is lost, one when it is back, no traceback, and the job, left under
its lease, claimed again and done."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time

import psycopg
import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from helpers import AGENT, TEST_CHAIR, TEST_HOME, until
from legal_ai.app import App
from legal_ai.config import Settings
from legal_ai.store import ensure_database, start_embedded, stop_embedded
from legal_ai.web.app import create_app
from llm_servers import Reply, scripted_openai
from scenarios import Enricher, ingest_decision

pytestmark = pytest.mark.db

METRICS_TOKEN = "staying-up-metrics-token"


@pytest.fixture(scope="module")
def throwaway(tmp_path_factory):
    """A PostgreSQL of this module's own: (its data directory, the application database's URL)."""
    pgdata = tmp_path_factory.mktemp("pg") / "pgdata"
    url = start_embedded(pgdata)
    try:
        yield pgdata, ensure_database(url, "legal_ai")
    finally:
        stop_embedded(pgdata)


@pytest.fixture(scope="module")
def legal(throwaway, e5):
    """An App on the throwaway database (migrated on opening)."""
    settings = Settings(home=TEST_HOME, database_url=throwaway[1], committee_chair=TEST_CHAIR)
    app = App(settings, embedder=e5)
    yield app
    app.close()


@pytest.fixture
def restart(throwaway):
    """stop() and start() the throwaway server; it is running again after the test."""
    pgdata = throwaway[0]

    class Server:
        @staticmethod
        def stop() -> None:
            assert stop_embedded(pgdata)

        @staticmethod
        def start() -> None:
            start_embedded(pgdata)

    yield Server
    start_embedded(pgdata)


def timed(call):
    started = time.monotonic()
    answer = call()
    return answer, time.monotonic() - started


def database_up(client) -> float:
    answer = client.get("/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
    assert answer.status_code == 200, answer.text
    [sample] = [
        s
        for family in text_string_to_metric_families(answer.text)
        for s in family.samples
        if s.name == "legal_ai_database_up"
    ]
    return sample.value


def test_probes_apart_and_metrics_in_time_with_the_database_stopped(legal, restart):
    settings = legal.settings.model_copy(
        update={"metrics_token": METRICS_TOKEN, "agent_token": f"writer={AGENT}"}
    )
    with TestClient(create_app(settings, legal=legal)) as client:
        ready = client.get("/readyz")
        assert (ready.status_code, ready.json()) == (
            200,
            {"ok": True, "database": "up", "migrations_pending": []},
        )
        assert database_up(client) == 1

        restart.stop()
        health, _ = timed(lambda: client.get("/healthz"))
        assert (health.status_code, health.json()) == (200, {"ok": True})  # alive all the same
        up, seconds = timed(lambda: database_up(client))
        assert up == 0 and seconds < 2.0, seconds  # was the pool's 10 s
        ready, seconds = timed(lambda: client.get("/readyz"))
        assert ready.status_code == 503 and seconds < 2.0, seconds
        body = ready.json()
        assert (body["ok"], body["database"], body["migrations_pending"]) == (False, "down", None)
        assert "the database did not answer within 1 s" in body["error"]
        # A second scrape with the pool empty and reconnecting: as quick.
        up, seconds = timed(lambda: database_up(client))
        assert up == 0 and seconds < 2.0, seconds

        restart.start()
        until(lambda: client.get("/readyz").status_code == 200, 15, "/readyz once it is back")
        assert database_up(client) == 1

        # A migration not applied: ready no longer, and the answer names it.
        with psycopg.connect(legal.store.url, autocommit=True) as conn:
            last = conn.execute(
                "DELETE FROM schema_migrations WHERE version = (SELECT max(version)"
                " FROM schema_migrations) RETURNING version, name"
            ).fetchone()
            try:
                ready = client.get("/readyz")
            finally:
                conn.execute("INSERT INTO schema_migrations (version, name) VALUES (%s, %s)", last)
        name = f"{last[0]:04d}_{last[1]}"
        assert ready.status_code == 503
        assert ready.json()["database"] == "up"
        assert ready.json()["migrations_pending"] == [name]
        assert name in ready.json()["error"] and "legal-ai db migrate" in ready.json()["error"]
        assert client.get("/readyz").status_code == 200


def test_the_worker_waits_out_a_database_restart_with_a_job_in_hand(legal, restart, tmp_path):
    ingest_decision(legal, tmp_path)  # an internal decision: its enrichment is queued
    script = Enricher()
    first = threading.Event()

    def slow_first(request: dict, path: str) -> Reply:
        reply = script(request, path)
        if not first.is_set():
            first.set()
            reply.delay = 6.0  # the database is stopped while the worker waits for this answer
        return reply

    with scripted_openai(slow_first) as model:
        env = {k: v for k, v in os.environ.items() if not k.startswith("LEGAL_AI_")}
        env.update(
            LEGAL_AI_HOME=str(TEST_HOME),
            LEGAL_AI_DATABASE_URL=legal.store.url,
            LEGAL_AI_COMMITTEE_CHAIR=TEST_CHAIR,
            LEGAL_AI_ENRICHER=f"openai:enricher@{model.url}",
            LEGAL_AI_MODEL_RETRIES="0",
            LEGAL_AI_JOB_LEASE_S="10",
        )
        worker = subprocess.Popen(
            [sys.executable, "-m", "legal_ai.cli", "worker", "--poll", "0.5"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        lines: queue.Queue[str] = queue.Queue()
        seen: list[str] = []
        reader = threading.Thread(
            target=lambda: [lines.put(line) for line in worker.stderr], daemon=True
        )
        reader.start()

        def line_with(event: str, timeout: float) -> dict:
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                try:
                    line = lines.get(timeout=0.5)
                except queue.Empty:
                    assert worker.poll() is None, "".join(seen)
                    continue
                seen.append(line)
                record = json.loads(line)
                if event in (record.get("event"), record["message"]):
                    return record
            raise AssertionError(f"no {event!r} line in time: {''.join(seen)}")

        try:
            assert first.wait(120), "the worker never called the enricher"
            restart.stop()  # while the model's answer is on its way
            lost = line_with("database_lost", 60)
            assert lost["level"] == "WARNING" and "database unreachable" in lost["message"]
            time.sleep(3)  # a few probes fail meanwhile, each silently
            restart.start()
            back = line_with("database_back", 60)
            assert back["level"] == "INFO" and back["outage_s"] >= 3

            def job() -> dict:
                with psycopg.connect(legal.store.url) as conn:
                    return conn.execute(
                        "SELECT status, attempts FROM jobs WHERE kind = 'enrichment'"
                    ).fetchone()

            # The job in hand was left running under its lease, then claimed again and done.
            assert until(lambda: job()[0] == "done", 60, "the job done") and job() == ("done", 2)
            worker.send_signal(signal.SIGTERM)
            assert worker.wait(60) == 0
        finally:
            if worker.poll() is None:
                worker.kill()
                worker.wait(10)
        reader.join(10)
        while not lines.empty():
            seen.append(lines.get())
    assert worker.stdout.read() == ""  # nothing but log lines, and those on stderr
    worker.stdout.close()
    worker.stderr.close()
    records = [json.loads(line) for line in seen]  # every line is JSON (logs.py's)
    events = [r.get("event") for r in records]
    assert events.count("database_lost") == 1 and events.count("database_back") == 1
    assert not [r for r in records if "exception" in r or r["level"] in ("ERROR", "CRITICAL")]
    assert not [r for r in records if "Traceback" in r["message"]]
    messages = [r["message"] for r in records]
    assert messages[0].startswith("worker ") and messages[0].endswith(": started")
    assert any(m.startswith("enrichment") or "d-1042" in m for m in messages), messages
    assert messages[-1].endswith("stopped after 1 job(s)")
