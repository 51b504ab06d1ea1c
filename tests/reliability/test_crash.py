"""kill -9, at points chosen to be reproducible, of every process that writes: the CLI mid-ingest,
`legal-ai serve` mid-upload, the embedded PostgreSQL itself, `legal-ai reindex` and
`legal-ai db migrate`. After each kill, checked from the database (reading only): every item is
wholly old or wholly new (its content hash is its text's, its chunks are its text's chunks,
embedded and analyzed from their own text, its searchable flag follows the rule), every final is
whole, a re-run completes and embeds nothing the killed run had embedded, and no temp folder
keeps anything.

Kill points: "after the first embedding reached the cache", "after N items committed" (the
database is polled), and "inside a write transaction": the test holds a table lock (no data
changed) that the writer's next statement waits for, sees it waiting, and kills it there.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path
from types import SimpleNamespace

import httpx
import numpy as np
import psutil
import psycopg
import pytest
from fastapi.testclient import TestClient
from harness import (
    AGENT_TOKEN,
    CHAIR_NAME,
    CHAIR_TOKEN,
    CHUNKS,
    CLI,
    Spawned,
    cached_hashes,
    check_finals,
    check_items,
    check_lexicon,
    connect,
    environment,
    final_parts,
    final_text,
    free_port,
    healthy,
    holding,
    item_text,
    leftovers,
    lock_waiters,
    own_database,
    post_final,
    quiesce,
    rows,
    scalar,
    wait_for,
)
from psycopg import sql

from helpers import DECISION_FIELDS, ScriptedHandler, local_server
from legal_ai.app import App
from legal_ai.config import Settings
from legal_ai.errors import StoreError
from legal_ai.ingest.pipeline import content_hash
from legal_ai.providers.embedders import text_hash
from legal_ai.store import migrations, start_embedded, stop_embedded
from legal_ai.store.db import with_database
from legal_ai.text.extract import extract

pytestmark = [pytest.mark.db, pytest.mark.slow]

KILLED = -signal.SIGKILL
TIMEOUT = 90  # seconds any one wait may take on a loaded two-core machine


def write_items(folder: Path, numbers: range, version: int = 1) -> dict[str, str]:
    """Files `d<n>.txt` of the given version; returns path -> the text ingest will store."""
    folder.mkdir(parents=True, exist_ok=True)
    texts = {}
    for n in numbers:
        path = folder / f"d{n}.txt"
        path.write_text(item_text(n, version), encoding="utf-8")
        texts[str(path)] = extract(path).text
    return texts


def stopped_at(url: str, holder: psycopg.Connection, table: str) -> list[str]:
    """Wait until a writer waits for the lock `holder` holds on `table` (its statement names
    the table: it is inside the write, not somewhere else); return the waiting statements."""
    waiting = wait_for(lambda: lock_waiters(url, holder), TIMEOUT, f"a write to {table} to wait")
    assert any(table in statement for statement in waiting), waiting
    return waiting


def hash_of(text: str) -> str:
    return content_hash(SimpleNamespace(text=text, page_starts=None))


def settings_for(url: str, home: Path, **changes) -> Settings:
    return Settings(
        database_url=url, home=home, committee_chair=CHAIR_NAME, **{**CHUNKS, **changes}
    )


def whole(url: str, e5, allowed: dict[str, set[str]] | None = None, **kwargs) -> dict:
    """check_items with the suite's chunking; `allowed`: source path -> texts it may hold."""
    by_path = None
    if allowed is not None:
        by_path = {}
        for row in rows(url, "SELECT doc_id, source_path FROM documents"):
            if row["source_path"] in allowed:
                by_path[row["doc_id"]] = allowed[row["source_path"]]
    return check_items(url, count_tokens=e5.count_tokens, allowed=by_path, **CHUNKS, **kwargs)


def chunk_hashes(url: str, case: str) -> set[str]:
    return {
        r["text_hash"]
        for r in rows(
            url,
            "SELECT c.text_hash FROM document_chunks c JOIN documents d ON d.id = c.document_id"
            " WHERE d.case_number = %s",
            (case,),
        )
    }


def rerun(url: str, home: Path, e5, work, **changes) -> tuple[object, int, set[str], set[str]]:
    """Run `work(app)` in this process on an App whose embedder counts what it sends to the
    model; returns the result, that count, and the cache before and after."""
    before = cached_hashes(url, "e5-local")
    with App(settings_for(url, home, **changes), embedder=e5) as app:
        result = work(app)
        calls = app.embedder.calls
    return result, calls, before, cached_hashes(url, "e5-local")


def assert_embedded_once(calls: int, before: set[str], after: set[str]) -> None:
    """Every text the re-run sent to the model is a new cache entry: nothing the killed run had
    embedded (and cached) was embedded again."""
    assert calls == len(after - before), (calls, len(after - before))


SURVIVED: list[str] = []  # the kills whose aftermath passed every check


@pytest.fixture(scope="module", autouse=True)
def tally(request):
    """Print how many kills were survived (even when pytest captures output)."""
    yield
    plugins = request.config.pluginmanager
    reporter, capture = plugins.get_plugin("terminalreporter"), plugins.get_plugin("capturemanager")
    if reporter is not None and capture is not None and SURVIVED:
        with capture.global_and_fixture_disabled():
            reporter.write_line(
                f"\n[reliability] crashes survived: {len(SURVIVED)} kills ({', '.join(SURVIVED)})"
            )


@pytest.fixture(scope="module")
def ingest_db(server_url):
    with own_database(server_url, "ingest") as url:
        migrations.migrate(url)
        yield url


# -- the CLI, mid-ingest --------------------------------------------------------------------------

INGEST_POINTS = {"embedded": 0, "committed": 1, "mid-transaction": 2}


@pytest.mark.parametrize("point", list(INGEST_POINTS))
def test_cli_ingest_killed(point, ingest_db, e5, tmp_path):
    url, case = ingest_db, f"ערר {4100 + INGEST_POINTS[point]}/25"
    base = 100 * (INGEST_POINTS[point] + 1)
    texts = write_items(tmp_path / "docs", range(base, base + 8))
    tmp = tmp_path / "tmp"
    env = environment(url, tmp_path / "home", tmp, **CHUNKS)

    def committed() -> int:
        return scalar(url, "SELECT count(*) FROM documents WHERE case_number = %s", (case,))

    cached = len(cached_hashes(url, "e5-local"))
    cli = Spawned(
        CLI
        + [
            "ingest",
            str(tmp_path / "docs"),
            "--corpus",
            "case",
            "--case-number",
            case,
            "--practice-area",
            "planning",
            "--json",
        ],
        env,
        tmp_path,
        "ingest",
    )
    try:
        if point == "embedded":
            wait_for(lambda: len(cached_hashes(url, "e5-local")) > cached, TIMEOUT, "an embedding")
        elif point == "committed":
            wait_for(lambda: committed() >= 1, TIMEOUT, "the first item")
        else:
            wait_for(lambda: committed() >= 3, TIMEOUT, "three items")
            with holding(
                url, ["documents"]
            ) as holder:  # the next item's INSERT waits inside its transaction
                stopped_at(url, holder, "documents")
                cli.kill9()
        cli.kill9()
    finally:
        cli.kill9()
    assert cli.proc.returncode == KILLED, cli.output()
    quiesce(url)
    done = committed()
    assert done < len(texts), "the ingest finished before it was killed"
    allowed = {path: {text} for path, text in texts.items()}
    whole(url, e5, allowed)
    assert leftovers(tmp) == []

    def ingest(app):
        return app.ingest(
            [tmp_path / "docs"], "case", meta={"case_number": case, "practice_area": "planning"}
        )

    report, calls, before, after = rerun(url, tmp_path / "home", e5, ingest)
    assert report.failed == [] and report.unsearchable == []
    assert (report.ingested, report.unchanged) == (len(texts) - done, done)
    assert_embedded_once(calls, before, after)
    assert chunk_hashes(url, case) & before, "the re-run reused nothing the killed run embedded"
    assert whole(url, e5, allowed)["items"] >= len(texts)
    check_lexicon(url)
    SURVIVED.append(f"ingest@{point}")


def test_changed_reingest_killed_between_item_and_chunks(ingest_db, e5, tmp_path):
    """A changed text is being written: its item row holds the new text, its chunks are not yet
    replaced; killed there, the item keeps its old text and chunks."""
    url, case = ingest_db, "ערר 4200/25"
    folder, home, tmp = tmp_path / "docs", tmp_path / "home", tmp_path / "tmp"
    old = write_items(folder, range(500, 506), version=1)
    meta = {"case_number": case, "practice_area": "planning"}
    report, *_ = rerun(url, home, e5, lambda app: app.ingest([folder], "case", meta=meta))
    assert report.ingested == len(old)
    new = write_items(folder, range(500, 506), version=2)
    new_hashes = [hash_of(t) for t in new.values()]

    def changed() -> int:
        return scalar(
            url, "SELECT count(*) FROM documents WHERE content_hash = ANY(%s)", (new_hashes,)
        )

    cli = Spawned(
        CLI
        + [
            "ingest",
            str(folder),
            "--corpus",
            "case",
            "--case-number",
            case,
            "--practice-area",
            "planning",
            "--json",
        ],
        environment(url, home, tmp, **CHUNKS),
        tmp_path,
        "reingest",
    )
    try:
        wait_for(lambda: changed() >= 2, TIMEOUT, "two changed items")
        # the next changed item: its row is updated, then its old chunks' DELETE waits
        with holding(url, ["document_chunks"]) as holder:
            stopped_at(url, holder, "document_chunks")
            cli.kill9()
    finally:
        cli.kill9()
    assert cli.proc.returncode == KILLED, cli.output()
    quiesce(url)
    done = changed()
    assert 2 <= done < len(new)
    allowed = {path: {old[path], new[path]} for path in old}
    whole(url, e5, allowed)
    assert leftovers(tmp) == []

    report, calls, before, after = rerun(
        url, home, e5, lambda app: app.ingest([folder], "case", meta=meta)
    )
    assert (report.ingested, report.unchanged, report.failed) == (len(new) - done, done, [])
    assert_embedded_once(calls, before, after)
    assert calls <= len(new) - done  # only the changed paragraph of each item not yet written
    whole(url, e5, {path: {new[path]} for path in new})
    check_lexicon(url)
    versions = scalar(
        url,
        "SELECT count(*) FROM item_versions WHERE doc_id = ANY(%s)",
        (
            [
                r["doc_id"]
                for r in rows(url, "SELECT doc_id FROM documents WHERE case_number = %s", (case,))
            ],
        ),
    )
    if versions is not None:  # every text each item ever had, once
        assert versions == 2 * len(new)
    SURVIVED.append("ingest@between-item-and-chunks")


# -- legal-ai serve, mid-upload -------------------------------------------------------------------


def upload(client, case: str, text: str):
    """POST a final as the chair (an httpx client to a live server, or a TestClient)."""
    return post_final(
        client, case, text, **({} if isinstance(client, TestClient) else {"timeout": TIMEOUT})
    )


SERVE_POINTS = {"receiving": 0, "mid-transaction": 1, "changed-final": 2}


@pytest.mark.parametrize("point", list(SERVE_POINTS))
def test_serve_killed_mid_upload(point, server_url, e5, tmp_path):
    number = 7100 + SERVE_POINTS[point]
    case = f"ערר (מרכז) {number}/25"
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    port = free_port()
    env = environment(None, home, tmp, chair_token=CHAIR_TOKEN, agent_token=AGENT_TOKEN, **CHUNKS)
    first, second = final_text(number), final_text(number, "הערר נדחה")
    with own_database(server_url, f"serve{SERVE_POINTS[point]}") as url:
        env["LEGAL_AI_DATABASE_URL"] = url
        with App(settings_for(url, home), embedder=e5) as app:
            app.embedder  # migrated, and e5 recorded as the embedder in force  # noqa: B018
        serve = Spawned(CLI + ["serve", "--port", str(port)], env, tmp_path, "serve")
        base = f"http://127.0.0.1:{port}"
        sent: dict = {}
        try:
            wait_for(lambda: healthy(base, serve), TIMEOUT, "serve to answer", interval=0.1)
            with httpx.Client(base_url=base) as client:
                if point == "changed-final":
                    assert upload(client, case, first).status_code == 200
                    assert final_parts(url, case)["pair"]
                sending = second if point == "changed-final" else first
                if point == "receiving":
                    thread = _send(base, case, sending, sent)
                    wait_for(
                        lambda: list((home / "uploads").glob("up-*/final.txt")),
                        TIMEOUT,
                        "the upload to reach its folder",
                    )
                    serve.kill9()
                else:
                    # killed inside the final's one transaction: the style document is written,
                    # the internal decision waits (mid-transaction), or — a changed final —
                    # both are written and its citations wait
                    table = "case_law" if point == "mid-transaction" else "decision_citations"
                    with holding(url, [table]) as holder:
                        thread = _send(base, case, sending, sent)
                        stopped_at(url, holder, table)
                        serve.kill9()
                thread.join(TIMEOUT)
        finally:
            serve.kill9()
        assert serve.proc.returncode == KILLED, serve.output()
        assert "response" not in sent, sent  # the upload never completed
        quiesce(url)
        parts = final_parts(url, case)
        if point == "changed-final":  # wholly the first final
            assert parts["pair"] and (parts["style"], parts["internal"]) == (1, 1)
            content = scalar(url, "SELECT content FROM case_law WHERE case_number = %s", (case,))
            assert "הערר מתקבל בחלקו" in content
        else:  # nothing of it
            assert parts == {"style": 0, "internal": 0, "citations": 0, "pair": False}, parts
        check_finals(url)
        whole(url, e5)
        assert leftovers(tmp) == []  # the system temp folder was never used
        assert leftovers(home / "uploads"), "the killed upload left no folder to sweep"
        # the same upload again, through the same API (in this process, to count embeddings);
        # starting it sweeps the upload folder the killed server left
        settings = settings_for(url, home, chair_token=CHAIR_TOKEN, agent_token=AGENT_TOKEN)
        from legal_ai.web.app import create_app

        before = cached_hashes(url, "e5-local")
        with App(settings, embedder=e5) as app, TestClient(create_app(settings, legal=app)) as c:
            assert leftovers(home / "uploads") == [], "the killed upload's folder was not swept"
            answer = upload(c, case, sending)
            assert answer.status_code == 200, answer.text
            calls = app.embedder.calls
        assert_embedded_once(calls, before, cached_hashes(url, "e5-local"))
        if point != "receiving":  # it was killed after staging: its embeddings were all kept
            assert calls == 0
        assert leftovers(home / "uploads") == []
        parts = final_parts(url, case)
        assert parts["pair"] and (parts["style"], parts["internal"]) == (1, 1)
        assert check_finals(url)["finals"] == 1
        whole(url, e5)
    SURVIVED.append(f"serve@{point}")


def _send(base: str, case: str, text: str, sent: dict):
    """Upload in a thread (the server is killed while it works on it)."""
    import threading

    def run() -> None:
        try:
            with httpx.Client(base_url=base) as client:
                sent["response"] = upload(client, case, text)
        except httpx.HTTPError as exc:
            sent["error"] = repr(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


# -- the embedded PostgreSQL itself ---------------------------------------------------------------


def kill_cluster(pgdata: Path) -> int:
    """SIGKILL the postmaster of *this* cluster and every process it started (a power cut);
    returns how many processes were killed."""
    pid = int((pgdata / "postmaster.pid").read_text().split()[0])
    master = psutil.Process(pid)
    assert str(pgdata) in " ".join(master.cmdline()), "not our cluster's postmaster"
    victims = [master, *master.children(recursive=True)]
    for victim in victims:
        try:
            victim.kill()
        except psutil.NoSuchProcess:
            pass
    gone, alive = psutil.wait_procs(victims, timeout=15)
    assert not alive, alive
    return len(victims)


def restart_cluster(env: dict, logs: Path, pgdata: Path, round_: int) -> None:
    """Start the killed cluster again as any legal-ai command would (crash recovery runs). The
    embedded server's start gives pg_ctl 10 s; on a loaded machine recovery can take longer,
    so the command is tried up to three times (the server goes on starting meanwhile)."""
    for attempt in range(3):
        restart = Spawned(CLI + ["db", "url"], env, logs, f"restart{round_}-{attempt}")
        if restart.wait(TIMEOUT) == 0:
            return
    log = (pgdata / "log").read_text(errors="replace")[-3000:]
    raise AssertionError(f"the cluster did not restart: {restart.output()}\n{log}")


def test_postgres_killed_mid_ingest(e5, tmp_path):
    """The whole server dies (postmaster and backends, kill -9) twice: while an item's
    transaction is open, and while a changed item is between its row and its chunks. It
    restarts with crash recovery; every item is whole; the re-run completes."""
    home, tmp = tmp_path / "pg", tmp_path / "tmp"
    pgdata = home / "pgdata"
    server = start_embedded(pgdata)
    url = with_database(server, "legal_ai")  # the database the CLI makes on the embedded server
    env = environment(None, home, tmp, **CHUNKS)
    case, folder = "ערר 4300/25", tmp_path / "docs"
    meta = {"case_number": case, "practice_area": "planning"}
    first: dict[str, str] = {}
    recoveries = 0
    try:
        for round_, (version, table) in enumerate([(1, "documents"), (2, "document_chunks")]):
            texts = write_items(folder, range(600, 606), version=version)
            first = first or texts
            hashes = [hash_of(t) for t in texts.values()]

            def written(hashes: list[str] = hashes) -> int:
                try:
                    return (
                        scalar(
                            url,
                            "SELECT count(*) FROM documents WHERE content_hash = ANY(%s)",
                            (hashes,),
                        )
                        or 0
                    )
                except psycopg.OperationalError:
                    return 0  # the CLI has not created its database yet

            cli = Spawned(
                CLI
                + [
                    "ingest",
                    str(folder),
                    "--corpus",
                    "case",
                    "--case-number",
                    case,
                    "--practice-area",
                    "planning",
                    "--json",
                ],
                env,
                tmp_path,
                f"ingest{round_}",
            )
            try:
                wait_for(written, TIMEOUT, "an item")
                wait_for(lambda: written() >= 2, TIMEOUT, "two items")
                with holding(url, [table]) as holder:
                    stopped_at(url, holder, table)
                    assert kill_cluster(pgdata) >= 2
                # the CLI has lost its database: it stops on its own with a one-line error
                assert cli.wait(TIMEOUT) == StoreError.exit_code, cli.output()
                err = cli.output()[1]  # (psycopg_pool's own warnings may come first)
                assert "Traceback" not in err, err
                assert err.strip().splitlines()[-1].startswith("error: lost the connection"), err
            finally:
                cli.kill9()
            restart_cluster(env, tmp_path, pgdata, round_)
            log = (pgdata / "log").read_text(errors="replace")
            recoveries, seen = log.count("database system was not properly shut down"), recoveries
            assert recoveries > seen  # it restarted through crash recovery
            done = written()
            assert 2 <= done < len(texts)
            # each item is its text of this round, or (a changed item) of the round before
            whole(url, e5, {path: {first[path], text} for path, text in texts.items()})
            check_lexicon(url)
            report, calls, before, after = rerun(
                url, home, e5, lambda app: app.ingest([folder], "case", meta=meta)
            )
            assert (report.ingested, report.unchanged, report.failed) == (
                len(texts) - done,
                done,
                [],
            )
            assert_embedded_once(calls, before, after)
            whole(url, e5, {path: {text} for path, text in texts.items()})
            check_lexicon(url)
            SURVIVED.append(f"postgres@{table}")
        # the embedded server's start-up lock (one fixed file, reused by every start) is all
        assert leftovers(tmp) == [".lockfile"]
    finally:
        stop_embedded(pgdata)


# -- legal-ai reindex -----------------------------------------------------------------------------


class ScriptedVoyage(ScriptedHandler):
    """Voyage's embeddings endpoint: a vector from the text's hash, each text recorded, each
    request taking `delay` seconds (a remote model's latency, so a kill can land between
    batches)."""

    texts: list[str] = []
    delay = 0.0

    def do_POST(self):
        body = self.read_json()
        type(self).texts.extend(body["input"])  # recorded as it arrives
        time.sleep(type(self).delay)
        data = []
        for index, text in enumerate(body["input"]):
            seed = int(text_hash(text)[:16], 16)
            vector = np.random.default_rng(seed).standard_normal(1024)
            data.append({"object": "embedding", "index": index, "embedding": vector.tolist()})
        try:
            self.send_json(
                {
                    "object": "list",
                    "data": data,
                    "model": body["model"],
                    "usage": {"total_tokens": 1},
                }
            )
        except BrokenPipeError:
            pass  # the client was killed while it waited


OLD_ANALYZER, NEW_ANALYZER = "he-plain-v1", Settings().analyzer


def test_reindex_killed(server_url, e5, tmp_path):
    """Items of three corpora, embedded by e5 and analyzed by one analyzer; `legal-ai reindex`
    under another embedder (Voyage, scripted here) and analyzer, killed between two corpora's
    batches; re-run; then reindex back, killed inside a batch's UPDATE; re-run. Each chunk is
    wholly old or wholly new, and no text is ever embedded twice."""
    pytest.importorskip("voyageai")
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    ScriptedVoyage.texts, ScriptedVoyage.delay = [], 0.5
    with own_database(server_url, "reindex") as url, local_server(ScriptedVoyage) as voyage_url:
        corpora = {
            "case": {"case_number": "ערר 4400/25", "practice_area": "planning"},
            "style": {"case_number": "ערר 4401/25", "practice_area": "planning"},
            "internal": {
                "case_number": "ערר 4402/25",
                "practice_area": "planning",
                "decided_on": "2025-01-01",
                **DECISION_FIELDS,
            },
        }
        with App(settings_for(url, home, analyzer=OLD_ANALYZER), embedder=e5) as app:
            for index, (corpus, meta) in enumerate(corpora.items()):
                folder = tmp_path / corpus
                write_items(folder, range(700 + 10 * index, 702 + 10 * index))
                assert app.ingest([folder], corpus, meta=meta).ingested == 2
        total = scalar(url, "SELECT count(*) FROM document_chunks") + scalar(
            url, "SELECT count(*) FROM case_law_chunks"
        )
        voyage = {"embedder": "voyage", "voyage_base_url": voyage_url}
        env = environment(url, home, tmp, **CHUNKS, **voyage)
        env["VOYAGE_API_KEY"] = "k"

        def states() -> set[tuple[str, str]]:
            return {
                (r["embedder"], r["analyzer"])
                for r in rows(
                    url,
                    "SELECT embedder, analyzer FROM document_chunks UNION ALL"
                    " SELECT embedder, analyzer FROM case_law_chunks",
                )
            }

        # 1. to Voyage and the new analyzer, killed after the first corpus's batch
        cli = Spawned(CLI + ["reindex", "--json"], env, tmp_path, "reindex1")
        try:
            wait_for(
                lambda: scalar(
                    url, "SELECT count(*) FROM document_chunks WHERE embedder = 'voyage'"
                ),
                TIMEOUT,
                "the first batch",
            )
            cli.kill9()
        finally:
            cli.kill9()
        assert cli.proc.returncode == KILLED, cli.output()
        quiesce(url)
        assert states() == {("e5-local", OLD_ANALYZER), ("voyage", NEW_ANALYZER)}
        check_items(url, count_tokens=e5.count_tokens, complete=False, **CHUNKS)
        check_lexicon(url)
        searchable = rows(
            url,
            "SELECT corpus, searchable FROM documents UNION ALL SELECT"
            " 'internal', searchable FROM case_law",
        )
        assert {(r["corpus"], r["searchable"]) for r in searchable} >= {("case", True)}
        assert ("internal", False) in {(r["corpus"], r["searchable"]) for r in searchable}
        # the re-run sends the model exactly the texts the cache lacks: a batch whose answer
        # the killed process had not stored is the only work done twice
        cached = cached_hashes(url, "voyage")
        sent_before = len(ScriptedVoyage.texts)
        again = Spawned(CLI + ["reindex", "--json"], env, tmp_path, "reindex1b")
        assert again.wait(TIMEOUT) == 0, again.output()
        assert states() == {("voyage", NEW_ANALYZER)}
        resent = [text_hash(t) for t in ScriptedVoyage.texts[sent_before:]]
        assert len(resent) == len(set(resent)) and not set(resent) & cached
        assert set(resent) | cached >= {
            r["text_hash"]
            for r in rows(
                url,
                "SELECT text_hash FROM document_chunks UNION SELECT text_hash FROM case_law_chunks",
            )
        }
        # every chunk once, and a decision's first chunk once more with its headnote, summary
        # and tags (the fold after the chunks, migration 0041)
        folded = scalar(url, "SELECT count(*) FROM case_law_chunks WHERE meta_hash IS NOT NULL")
        assert folded == 2 and len(set(ScriptedVoyage.texts)) == total + folded
        check_items(url, count_tokens=e5.count_tokens, **CHUNKS)
        SURVIVED.append("reindex@between-batches")

        # 2. back to e5 and the old analyzer (every vector is in the cache), killed inside the
        # internal corpus's UPDATE
        env_back = environment(url, home, tmp, analyzer=OLD_ANALYZER, **CHUNKS)
        with holding(url, ["case_law_chunks"]) as holder:
            cli = Spawned(CLI + ["reindex", "--json"], env_back, tmp_path, "reindex2")
            try:
                stopped_at(url, holder, "case_law_chunks")
                cli.kill9()
            finally:
                cli.kill9()
        quiesce(url)
        assert states() == {("e5-local", OLD_ANALYZER), ("voyage", NEW_ANALYZER)}
        assert {r["embedder"] for r in rows(url, "SELECT embedder FROM case_law_chunks")} == {
            "voyage"
        }
        check_items(url, count_tokens=e5.count_tokens, complete=False, **CHUNKS)

        def reindex(app):
            return app.reindex()

        result, calls, before, after = rerun(url, home, e5, reindex, analyzer=OLD_ANALYZER)
        assert calls == 0, "a vector the cache held was computed again"
        assert result["reembedded"] == scalar(url, "SELECT count(*) FROM case_law_chunks")
        assert states() == {("e5-local", OLD_ANALYZER)}
        check_items(url, count_tokens=e5.count_tokens, **CHUNKS)
        check_lexicon(url)
        assert leftovers(tmp) == []
        SURVIVED.append("reindex@inside-update")


# -- legal-ai db migrate --------------------------------------------------------------------------


def catalog(url: str) -> dict:
    """The schema as the catalog describes it, and each table's row count."""
    with connect(url) as conn:
        tables = [
            r["relname"]
            for r in conn.execute(
                "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                " WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY 1"
            )
        ]
        queries = {
            "relations": "SELECT c.relname, c.relkind, c.relacl::text AS acl FROM pg_class c JOIN pg_namespace n"
            " ON n.oid = c.relnamespace WHERE n.nspname = 'public' ORDER BY 1",
            "columns": "SELECT table_name, column_name, data_type, is_nullable, column_default"
            " FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, 2",
            "triggers": "SELECT tgrelid::regclass::text AS t, tgname FROM pg_trigger"
            " WHERE NOT tgisinternal ORDER BY 1, 2",
            "functions": "SELECT p.proname, pg_get_function_identity_arguments(p.oid) AS args,"
            " md5(p.prosrc) AS body FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
            " WHERE n.nspname = 'public' ORDER BY 1, 2",
            "constraints": "SELECT conrelid::regclass::text AS t, conname,"
            " pg_get_constraintdef(c.oid) AS def FROM pg_constraint c JOIN pg_namespace n"
            " ON n.oid = c.connamespace WHERE n.nspname = 'public' ORDER BY 1, 2",
            "extensions": "SELECT extname FROM pg_extension ORDER BY 1",
        }
        found = {key: [tuple(r.values()) for r in conn.execute(q)] for key, q in queries.items()}
        found["rows"] = {
            t: conn.execute(
                sql.SQL("SELECT count(*) AS n FROM {}").format(sql.Identifier(t))
            ).fetchone()["n"]
            for t in tables
        }
        found["versions"] = [
            r["version"] for r in conn.execute("SELECT version FROM schema_migrations ORDER BY 1")
        ]
    return found


def migrate_to(url: str, count: int) -> None:
    """Apply exactly the first `count` migrations, through the real migrator."""
    every = migrations.available()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(migrations, "available", lambda: every[:count])
        migrations.migrate(url)


@pytest.fixture(scope="module")
def schemas(server_url) -> dict[int, dict]:
    """The catalog after exactly the first k migrations, for every k (one reference database
    migrated step by step)."""
    out = {}
    with own_database(server_url, "schema") as url:
        for count in range(len(migrations.available()) + 1):
            migrate_to(url, count)
            out[count] = catalog(url)
    return out


MIGRATION_POINTS = {"fresh": lambda n: 0, "middle": lambda n: n // 2, "newest": lambda n: n - 1}


@pytest.mark.parametrize("point", list(MIGRATION_POINTS))
def test_migration_killed_mid_transaction(point, schemas, server_url, tmp_path):
    """`legal-ai db migrate` killed inside a migration's transaction (after some of its
    statements ran; the test holds a SHARE lock on every table, so the migration waits at its
    first write to an existing table or at recording itself): the schema is wholly the one
    before that migration, and running migrate again completes it."""
    count = len(migrations.available())
    done = MIGRATION_POINTS[point](count)
    with own_database(server_url, f"migrate{done}") as url:
        migrate_to(url, done)  # 0: only the ledger table
        assert catalog(url) == schemas[done]
        tables = [
            r["relname"]
            for r in rows(
                url,
                "SELECT c.relname FROM pg_class c JOIN"
                " pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'"
                " AND c.relkind IN ('r', 'p')",
            )
        ]
        env = environment(url, tmp_path / "home", tmp_path / "tmp")
        with holding(url, tables) as holder:
            cli = Spawned(CLI + ["db", "migrate"], env, tmp_path, "migrate")
            try:
                # it waits for the test's lock on a table (not for another migrator's advisory
                # lock): it is inside a migration, not before one
                wait_for(lambda: lock_waiters(url, holder), TIMEOUT, "the migration to wait")
                cli.kill9()
            finally:
                cli.kill9()
        assert cli.proc.returncode == KILLED, cli.output()
        quiesce(url)
        assert catalog(url) == schemas[done], "a killed migration left part of itself"
        again = Spawned(CLI + ["db", "migrate"], env, tmp_path, "migrate-again")
        assert again.wait(TIMEOUT) == 0, again.output()
        after = catalog(url)
        # `db migrate` also records the deployment's settings the database enforces (0040)
        assert after["rows"].pop("deployment_settings") == 1
        expected = {**schemas[count], "rows": dict(schemas[count]["rows"])}
        assert expected["rows"].pop("deployment_settings") == 0
        assert after == expected
        killed = migrations.available()[done]  # numbers may skip one: its own number
        assert f"{killed.version:04d}_" in again.output()[0]
        assert leftovers(tmp_path / "tmp") == []
    SURVIVED.append(f"migrate@{point}")
