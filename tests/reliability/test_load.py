"""Concurrent load on 127.0.0.1, bounded in count and time: searches from concurrent MCP
clients (`legal-ai mcp` over stdio; the HTTP API has no search routes) while finals are uploaded
over HTTP (`legal-ai serve`) and `legal-ai ingest` runs; two finals citing the same authorities
uploaded at once, again and again; and an exhausted connection pool answered with a clear 503.
The figures (requests served, errors, p50/p95 latency) are printed; `bench/reliability.py` runs
the same load longer and wider."""

from __future__ import annotations

import json
import threading

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
    healthy,
    own_database,
    pool_exhaustion,
    post_final,
    rows,
    run_load,
    seed_load_world,
    wait_for,
)

from legal_ai.app import App
from legal_ai.config import Settings

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
        settings = Settings(
            database_url=url, home=folder / "home", committee_chair=CHAIR_NAME, **CHUNKS
        )
        with App(settings, embedder=e5) as app:
            seed_load_world(app, folder / "seed")
        yield url, folder


def test_searches_while_finals_upload_and_ingest_runs(world, e5, tmp_path, capsys):
    url, _ = world
    figures = run_load(
        url,
        tmp_path,
        clients=8,
        mcp_servers=2,
        seconds=4.0,
        final_pairs=2,
        ingest_files=4,
        think=0.05,
        timeout=TIMEOUT,
    )
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
    env = environment(
        url, tmp_path / "home", tmp_path / "tmp", chair_token="c", agent_token=AGENT_TOKEN, **CHUNKS
    )
    serve = Spawned(CLI + ["serve", "--port", str(port)], env, tmp_path, "serve")
    base = f"http://127.0.0.1:{port}"
    rounds, answers = 3, []
    try:
        wait_for(lambda: healthy(base, serve), TIMEOUT, "serve to answer", interval=0.1)
        for round_ in range(rounds):
            barrier, replies = threading.Barrier(2), {}
            cases = [f"ערר (מרכז) {8500 + 2 * round_ + m}/25" for m in range(2)]

            def send(member: int, cases=cases, barrier=barrier, replies=replies, round_=round_):
                text = final_text(
                    8500 + 2 * round_ + member, ruling=8600 + round_, reverse=bool(member)
                )
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
            missing = rows(
                url,
                "SELECT count(*) AS n FROM missing_precedents m JOIN authorities a"
                " ON a.id = m.authority_id WHERE a.ref LIKE %s",
                (f"%{8600 + round_}/21%",),
            )
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
    with own_database(server_url, "pool") as url:
        found = pool_exhaustion(url, tmp_path, requests=12, timeout=TIMEOUT)
    assert found["before"] == 200
    assert found["statuses"] == [503] * 12, list(
        zip(found["statuses"], found["bodies"], strict=True)
    )
    assert found["draft_waited_for_the_lock"] and found["draft"][0] == 200, found["draft"]
    for body, retry in zip(found["bodies"], found["retry_after"], strict=True):
        message = json.loads(body)["error"]
        assert "busy" in message and "try again" in message, message
        assert retry
        for internal in ("postgres", "psycopg", "pgdata", str(tmp_path), "Traceback"):
            assert internal not in body
    assert found["seconds"] < 10, found["seconds"]  # each waits the 0.5 s pool timeout
    assert found["after"][0] == 200 and found["after"][1]["pairs"]
    show(
        capsys,
        "pool exhaustion",
        {"requests": 12, "answered_503": found["statuses"].count(503), "seconds": found["seconds"]},
    )
