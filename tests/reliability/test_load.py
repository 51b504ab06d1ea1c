"""Concurrent load on 127.0.0.1, bounded in count and time: searches from concurrent MCP
clients (`legal-ai mcp` over stdio; the HTTP API has no search routes) while finals are uploaded
over HTTP (`legal-ai serve`) and `legal-ai ingest` runs; two finals citing the same authorities
uploaded at once, again and again; and an exhausted connection pool answered with a clear 503.
The figures (requests served, errors, p50/p95 latency) are printed; `bench/reliability.py` runs
the same load longer and wider."""

from __future__ import annotations

import json
import threading
import time

import httpx
import pytest
from harness import (
    AGENT_TOKEN,
    CHAIR_NAME,
    CHUNKS,
    CLI,
    Spawned,
    check_finals,
    check_items,
    environment,
    final_parts,
    final_text,
    free_port,
    holding,
    lock_waiters,
    own_database,
    post_final,
    rows,
    run_load,
    seed_load_world,
    wait_for,
)

from legal_ai.config import Settings
from legal_ai.services import App

pytestmark = [pytest.mark.db, pytest.mark.slow]

TIMEOUT = 120


def show(capsys, title: str, figures: dict) -> None:
    """Print the figures even when pytest captures output."""
    with capsys.disabled():
        print(f"\n[reliability] {title}: {json.dumps(figures, ensure_ascii=False)}")


@pytest.fixture(scope="module")
def world(server_url, e5, tmp_path_factory):
    """A database with a little of every corpus (the load's search targets)."""
    folder = tmp_path_factory.mktemp("load")
    with own_database(server_url, "load") as url:
        settings = Settings(database_url=url, home=folder / "home", committee_chair=CHAIR_NAME,
                            **CHUNKS)  # fmt: skip
        with App(settings, embedder=e5) as app:
            seed_load_world(app, folder / "seed")
        yield url, folder


def test_searches_while_finals_upload_and_ingest_runs(world, e5, tmp_path, capsys):
    url, _ = world
    figures = run_load(url, tmp_path, clients=8, mcp_servers=2, seconds=4.0, final_pairs=2,
                       ingest_files=4, think=0.05, timeout=TIMEOUT)  # fmt: skip
    show(capsys, "load", {k: v for k, v in figures.items() if k != "cases"})
    search, uploads = figures["search"], figures["final_upload"]
    assert search["errors"] == 0, search["first_errors"]
    assert search["served"] >= 8  # every client was answered
    assert uploads["errors"] == 0 and uploads["served"] == 4, uploads["first_errors"]
    assert figures["ingest"]["exit_code"] == 0, figures["ingest"]
    assert figures["ingest"]["report"]["ingested"] == 4, figures["ingest"]
    for case in figures["cases"]:
        parts = final_parts(url, case)
        assert parts["pair"] and (parts["style"], parts["internal"]) == (1, 1), (case, parts)
    assert check_finals(url)["finals"] >= 4
    check_items(url, count_tokens=e5.count_tokens, **CHUNKS)


def test_two_finals_citing_the_same_authorities_at_once(world, tmp_path, capsys):
    """Rounds of two finals sent at the same moment, each citing the same four authorities (two
    statute sections, a ruling in the library, a ruling not in it) in the opposite order: both
    are answered 200 (no deadlock), both are stored whole, each authority is one row, and its
    corroboration counts both decisions."""
    url, _ = world
    port = free_port()
    env = environment(url, tmp_path / "home", tmp_path / "tmp", chair_token="c",
                      agent_token=AGENT_TOKEN, **CHUNKS)  # fmt: skip
    serve = Spawned(CLI + ["serve", "--port", str(port)], env, tmp_path, "serve")
    base = f"http://127.0.0.1:{port}"
    rounds, answers = 3, []
    try:
        wait_for(lambda: _healthy(base, serve), TIMEOUT, "serve to answer", interval=0.1)
        for round_ in range(rounds):
            barrier, replies = threading.Barrier(2), {}
            cases = [f"ערר (מרכז) {8500 + 2 * round_ + m}/25" for m in range(2)]

            def send(member: int, cases=cases, barrier=barrier, replies=replies, round_=round_):
                text = final_text(8500 + 2 * round_ + member, ruling=8600 + round_,
                                  reverse=bool(member))  # fmt: skip
                with httpx.Client(base_url=base, timeout=TIMEOUT) as client:
                    barrier.wait(TIMEOUT)
                    replies[member] = post_final(client, cases[member], text, token="c")

            threads = [threading.Thread(target=send, args=(m,), daemon=True) for m in range(2)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(TIMEOUT)
            answers += [(r.status_code, r.text[:300]) for r in replies.values()]
            assert [r.status_code for r in replies.values()] == [200, 200], answers
            for case in cases:
                parts = final_parts(url, case)
                assert parts["pair"] and (parts["style"], parts["internal"]) == (1, 1), parts
            shared = rows(
                url,
                "SELECT a.ref, a.corroboration, count(DISTINCT dc.citing_case_law_id) AS citing,"
                " a.case_law_id IS NOT NULL AS linked FROM authorities a JOIN decision_citations"
                " dc ON dc.authority_id = a.id JOIN case_law c ON c.id = dc.citing_case_law_id"
                " WHERE c.case_number = ANY(%s) GROUP BY a.id",
                (cases,),
            )
            assert len(shared) == 4 and all(r["citing"] == 2 for r in shared), shared
            assert all(r["corroboration"] >= 2 for r in shared), shared
            missing = rows(url, "SELECT count(*) AS n FROM missing_precedents m JOIN authorities a"
                                " ON a.id = m.authority_id WHERE a.ref LIKE %s",
                           (f"%{8600 + round_}/21%",))  # fmt: skip
            assert missing[0]["n"] == 1  # one open missing precedent, not two
        check_finals(url)
    finally:
        serve.kill9()
    show(capsys, "two finals at once", {"rounds": rounds, "answers": [a[0] for a in answers]})


def test_pool_exhaustion_is_a_clear_503(server_url, tmp_path, capsys):
    """`legal-ai serve` with a pool of one connection and a 0.5 s pool timeout: while its one
    connection is held by an upload waiting on a lock, every other request is answered 503 with
    a message that says what happened (and no internals) within a bounded time; once the lock
    goes, the upload completes and the server answers normally."""
    port = free_port()
    agent = {"Authorization": f"Bearer {AGENT_TOKEN}"}
    with own_database(server_url, "pool") as url:
        env = environment(url, tmp_path / "home", tmp_path / "tmp", agent_token=AGENT_TOKEN,
                          pool_max_size=1, pool_timeout_s=0.5, **CHUNKS)  # fmt: skip
        serve = Spawned(CLI + ["serve", "--port", str(port)], env, tmp_path, "serve")
        base = f"http://127.0.0.1:{port}"
        try:
            wait_for(lambda: _healthy(base, serve), TIMEOUT, "serve to answer", interval=0.1)
            with httpx.Client(base_url=base, timeout=TIMEOUT, headers=agent) as client:
                assert client.get("/api/learning/pairs").status_code == 200
                held: dict = {}
                with holding(url, ["cases"]):  # a draft's case write waits, holding the pool
                    thread = threading.Thread(target=_draft, args=(base, held), daemon=True)
                    thread.start()
                    wait_for(lambda: lock_waiters(url), TIMEOUT, "the draft to hold the pool")
                    started = time.perf_counter()
                    replies: list = [None] * 12

                    def ask(index: int) -> None:
                        with httpx.Client(base_url=base, timeout=TIMEOUT, headers=agent) as c:
                            replies[index] = c.get("/api/learning/pairs")

                    askers = [threading.Thread(target=ask, args=(i,)) for i in range(12)]
                    for asker in askers:
                        asker.start()
                    for asker in askers:
                        asker.join(TIMEOUT)
                    waited = time.perf_counter() - started
                    assert "response" not in held  # still waiting for the lock
                thread.join(TIMEOUT)
                assert held["response"].status_code == 200, held["response"].text
                after = client.get("/api/learning/pairs")
        finally:
            serve.kill9()
    statuses = [r.status_code for r in replies]
    assert statuses == [503] * 12, [(r.status_code, r.text) for r in replies]
    for reply in replies:
        message = reply.json()["error"]
        assert "busy" in message and "try again" in message, message
        assert reply.headers.get("Retry-After")
        for internal in ("postgres", "psycopg", "pgdata", str(tmp_path), "Traceback"):
            assert internal not in reply.text
    assert waited < 10, f"12 refusals took {waited:.1f} s"  # each waits the 0.5 s pool timeout
    assert after.status_code == 200 and after.json()["pairs"]
    show(capsys, "pool exhaustion", {"requests": 12, "answered_503": statuses.count(503),
                                     "seconds": round(waited, 2)})  # fmt: skip


def _draft(base: str, held: dict) -> None:
    """An agent's draft upload (the demo's fictional draft) for a new case."""
    from importlib import resources
    from urllib.parse import quote

    text = (
        resources.files("legal_ai")
        .joinpath("demo_data/learning-draft-7001.txt")
        .read_text(encoding="utf-8")
    )
    case = "ערר (מרכז) 8700/25"
    with httpx.Client(base_url=base, timeout=TIMEOUT) as client:
        held["response"] = client.post(
            f"/api/cases/{quote(case, safe='')}/draft/upload",
            headers={"Authorization": f"Bearer {AGENT_TOKEN}"},
            files={"file": ("draft.txt", text.replace("7001/25", "8700/25").encode(), "text/plain")},
            data={"appeal_type": "permit", "outcome": "partially_accepted",
                  "practice_area": "planning"},
        )  # fmt: skip


def _healthy(base: str, serve: Spawned) -> bool:
    assert serve.alive(), serve.output()
    try:
        return httpx.get(f"{base}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False
