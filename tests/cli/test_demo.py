"""`legal-ai demo` on the embedded server: every corpus loads, searches return provenance, the
incomplete item is reported and never searched, and nothing leaks."""

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

import factories
from helpers import DEMO_SEARCH_TOOLS, csrf_of
from legal_ai.config import Settings
from legal_ai.demo import DEMO_CHAIR, DEMO_DESK_PASSWORD, run_demo

pytestmark = pytest.mark.db


@pytest.mark.server_db("legal_ai_demo")
def test_demo_loads_every_corpus_and_searches(server_url, settings):
    lines: list[str] = []
    # the embedded server of the test home; the demo builds its own database on it (the run's
    # folder of embeddings: the README's demo and the wheel's read what this one embedded)
    demo = Settings(home=settings.home, embedding_cache_dir=settings.embedding_cache_dir)
    summary = run_demo(demo, echo=lines.append)
    states = summary["ingest"]
    assert states["demo-ext-incomplete"].startswith("NOT searchable, missing: case_number")
    assert all(v == "searchable" for k, v in states.items() if k != "demo-ext-incomplete")
    assert all(s["hits"] > 0 for s in summary["searches"])
    assert summary["health"]["isolation"]["leaks"] == 0
    assert summary["health"]["unsearchable"] == 1
    text = "\n".join(lines)
    assert "chars " in text and "digest: a pointer, not citable" in text
    assert {s["tool"] for s in summary["searches"]} == set(DEMO_SEARCH_TOOLS)
    assert "principle" in text and 'quote: "' in text
    learning = summary["learning"]
    assert learning["pair_status"] == "lessons_folded"
    assert learning["history_row"]["anti_pattern_total"] >= 5
    assert learning["history_row"]["final_anti_pattern_total"] == 0
    assert learning["citations"] == {
        "linked": 1,
        "missing": 1,
        "ambiguous": 0,
    }  # עע"מ 9101/20 is in the library
    assert learning["brief_lessons"] == 1
    assert learning["internal_hit"] == "ערר (מרכז) 7001/25"
    # Both paths of an internal decision's metadata: given at ingest (7550 searchable at once);
    # the final's copy awaiting it, then filled by the (scripted) enricher.
    assert summary["ingest"]["demo-int-7550"] == "searchable"
    assert "internal decision awaits metadata (headnote, summary, tags)" in text
    assert "enricher (SCRIPTED model, not a real one): grounded proposal" in text
    assert "learning loop" in text
    # No panel configured: the rulings and decisions queued on arrival wait, saying what to set.
    assert summary["principles"]["extracted"] == 0 and summary["principles"]["waiting"] >= 3
    assert "LEGAL_AI_PRINCIPLE_PANEL" in summary["principles"]["waiting_for"]
    assert "legal principles (עקרונות משפטיים)" in text
    # What the writer reads: the demo finals' shared formulas (header, opening, hearing, ...).
    assert summary["writer"]["templates"] >= 3 and "what the writer reads" in text

    serves_the_desk(text, settings.home)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serves_the_desk(printed: str, home: Path) -> None:
    """The serve line the demo prints, run as printed (on a free port): the desk answers, the
    chair signs in with the printed password, and her first signed final of a new case is taken
    (the committee's chair is on the line; the API's credential too); her cases list shows the
    demo's pairs and a search finds the demo's rulings."""
    [line] = [x.strip() for x in printed.splitlines() if x.strip().endswith("legal-ai serve")]
    assert "LEGAL_AI_COMMITTEE_CHAIR=" in line and DEMO_CHAIR in line
    assert "http://127.0.0.1:8765/login" in printed and DEMO_DESK_PASSWORD in printed
    port = free_port()
    env = {**os.environ, "LEGAL_AI_HOME": str(home)}
    env["PATH"] = f"{Path(sys.executable).parent}:{env['PATH']}"
    for name in ("LEGAL_AI_DATABASE_URL", "LEGAL_AI_COMMITTEE_CHAIR", "LEGAL_AI_AGENT_TOKEN"):
        env.pop(name, None)  # only what the line sets
    with (
        subprocess.Popen(
            ["bash", "-c", f"exec env {line} --port {port}"],  # as typed; exec: one process
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        ) as server,
        httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client,
    ):
        try:
            deadline = time.monotonic() + 60
            while True:
                assert server.poll() is None, server.stderr.read().decode()[-2000:]
                try:
                    form = client.get("/login")
                    break
                except httpx.TransportError:
                    assert time.monotonic() < deadline, "the printed serve line never answered"
                    time.sleep(0.3)
            password = {"name": "chair", "password": DEMO_DESK_PASSWORD}
            signed = client.post("/login", data={**password, "csrf": csrf_of(form.text)})
            assert signed.status_code == 303
            assert 'data-status="' in client.get("/cases").text  # the demo's pairs on the page
            hits = client.get("/search", params={"corpus": "external", "q": "הקלה"}).text
            assert 'class="hit"' in hits
            record = factories.records()[1]  # a case the demo does not hold
            fields = {k: record[k] for k in ("appeal_type", "outcome", "practice_area")}
            fields |= {"csrf": csrf_of(client.get("/cases").text)}
            sent = client.post(
                "/cases/final/upload",
                data={"case_number": record["case_number"], **fields},
                files={"file": ("final.txt", record["final_text"].encode(), "text/plain")},
            )
            assert sent.status_code == 303, re.sub(r"<[^>]+>", " ", sent.text)[:2000]
            stages = sent.headers["location"]  # answered at once: the upload's stages
            assert stages.startswith("/uploads/final/")
            for _ in range(600):
                ended = client.get(stages)
                if ended.status_code != 200:
                    break
                time.sleep(0.1)
            assert ended.status_code == 303, re.sub(r"<[^>]+>", " ", ended.text)[:2000]
            assert ended.headers["location"].endswith("?uploaded=final")
        finally:
            server.terminate()
            server.wait(20)
