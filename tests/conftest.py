"""Test worlds: one real embedded PostgreSQL (pgvector) per session, started here and stopped at
the end (shared by pytest-xdist's workers, stopped by its controller after both); a fresh
database per session (per worker, with a home of its own); every table but the embedding cache
emptied per test.
The embedder is the real local model (retrieval quality is what we sell).

Every fixture that tests in more than one folder use is here (pytest offers a conftest.py's
fixtures to every test below it; a module that needs other settings defines its own under the
same name): the database and App (`app`, `settings`, `cli_env`, `agent_db_url`), the desk
(`desk_app`, `client`, `chair`) and the scripted models (`panel`, `voice_writer`, `enricher`,
`multimodal_url`). Nothing is imported from here: the functions and constants tests share are in
helpers.py and scenarios.py."""

from __future__ import annotations

import gc
import os
from pathlib import Path

import psycopg
import pytest
from fastapi.testclient import TestClient
from psycopg import conninfo, sql

from helpers import (
    AGENT,
    CHAIR_TOKEN,
    PASSWORD,
    SERVER_HOME,
    SHARED,
    TEST_CHAIR,
    TEST_DB,
    TEST_HOME,
    WORKER,
    local_server,
    set_chair_password,
    sign_in,
)
from legal_ai import accounts
from legal_ai.app import App
from legal_ai.config import Settings
from legal_ai.providers.embedders import E5Local
from legal_ai.store import accounts as account_rows
from legal_ai.store import drop_database, ensure_database, start_embedded, stop_embedded
from legal_ai.store.cache import set_active_embedder
from legal_ai.store.db import with_database
from legal_ai.web.app import create_app
from llm_servers import scripted_openai
from scenarios import Enricher, PanelScript, ScriptedMultimodal, Writer

# A session started with LEGAL_AI_TEST_KEEP_SERVER=1 leaves the test server up for the next (several
# sessions may share it, each in its own database: LEGAL_AI_TEST_DB, helpers.TEST_DB).
KEEP_SERVER = os.environ.get("LEGAL_AI_TEST_KEEP_SERVER") == "1"
# Another server instead of the embedded one (CI's second PostgreSQL, scripts/second-postgres):
# a URL of the non-superuser application login, and of a login that is only an agent.
EXTERNAL_URL = os.environ.get("LEGAL_AI_TEST_DATABASE_URL")
EXTERNAL_AGENT_URL = os.environ.get("LEGAL_AI_TEST_AGENT_DATABASE_URL")
IN_CI = os.environ.get("CI") == "true"
# `make test-fast` (scripts/test --fast): only what needs no PostgreSQL (text/, the pure rules).
FAST = os.environ.get("LEGAL_AI_TEST_FAST") == "1"

ITEM_TABLES = (
    "documents, case_law, digests, cases, case_precedents, learning_audit, item_versions,"
    " style_distance_history, panel_verdicts, jobs, model_calls, desk_users, desk_sessions,"
    " desk_login_failures, canonical_principles, synthesis_attempts,"
    " canonical_statement_versions, voice_documents, block_exemplars, block_templates,"
    " template_state, search_log, search_marks, scanned_files,"
    " case_law_enrichments, schedules, schedule_runs, case_status, eval_history,"
    " copy_fingerprints, principle_votes, original_files"
)
# Methodology profiles go back to their seed (version 1) between tests.
RESET_PROFILES = (
    "UPDATE methodology_profiles p SET profile = v.profile, version = 1, updated_by = 'seed'"
    " FROM methodology_profile_versions v WHERE v.appeal_type = p.appeal_type AND v.version = 1;"
    " DELETE FROM methodology_profile_versions WHERE version > 1"
)

# ITEM_TABLES (by name) and the tables that reference them, by their foreign keys, transitively.
EMPTIED = (
    "WITH RECURSIVE t(oid) AS (SELECT unnest(%s::text[])::regclass::oid UNION"
    " SELECT f.conrelid FROM pg_constraint f JOIN t ON f.confrelid = t.oid WHERE f.contype = 'f')"
    " SELECT c.oid, n.nspname, c.relname, EXISTS (SELECT FROM pg_attribute a"
    " JOIN pg_type ty ON ty.oid = a.atttypid WHERE a.attrelid = c.oid AND a.attnum > 0"
    " AND NOT a.attisdropped AND ty.typname = 'vector') AS vectors"
    " FROM t JOIN pg_class c ON c.oid = t.oid"
    " JOIN pg_namespace n ON n.oid = c.relnamespace ORDER BY c.relname"
)
# The sequences those tables own (serial and identity columns).
OWNED = (
    "SELECT d.objid::regclass::text AS name FROM pg_depend d JOIN pg_class s ON s.oid = d.objid"
    " WHERE s.relkind = 'S' AND d.refobjid = ANY(%s::oid[]) AND d.deptype IN ('a', 'i')"
)
# Each of them that was used starts again where it starts (TRUNCATE ... RESTART IDENTITY).
RESTART = (
    "SELECT setval(s.seqrelid, s.seqstart, false) FROM pg_sequence s"
    " WHERE s.seqrelid = ANY(%s::regclass[]) AND pg_sequence_last_value(s.seqrelid) IS NOT NULL"
)

_SHARED_DESELECTED = pytest.StashKey[int]()
# What the fast tier leaves out: the markers of the slow or the database's tests.
NOT_FAST = ("db", "slow", "shared", "live")


def pytest_configure(config):
    """A pytest-xdist worker's home (helpers.TEST_HOME, SERVER_HOME/gw0) has its own files and
    a link to the one server's cluster, so that what starts the server of a home
    (Settings.pgdata, the demo, `legal-ai db`) joins the suite's."""
    if WORKER:
        TEST_HOME.mkdir(parents=True, exist_ok=True)
        if not (TEST_HOME / "pgdata").is_symlink():
            (TEST_HOME / "pgdata").symlink_to(SERVER_HOME / "pgdata")


def pytest_collection_modifyitems(config, items):
    """Without the shared data, outside CI, the larger runs marked `shared` are deselected and
    the summary says how many (their features are tested on the project's own fixtures); asked
    for with `-m shared`, they stay and skip with the reason. The fast tier deselects every
    test marked db, slow, shared or live, and every one that reaches the test server."""
    if FAST:
        left = [
            item
            for item in items
            if any(item.get_closest_marker(m) for m in NOT_FAST)
            or "server_url" in getattr(item, "fixturenames", ())
        ]
        if left:
            config.hook.pytest_deselected(items=left)
            items[:] = [item for item in items if item not in left]
        return
    if SHARED.is_dir() or os.environ.get("CI") == "true" or "shared" in config.option.markexpr:
        return
    larger = [item for item in items if item.get_closest_marker("shared")]
    if larger:
        config.hook.pytest_deselected(items=larger)
        items[:] = [item for item in items if not item.get_closest_marker("shared")]
        config.stash[_SHARED_DESELECTED] = len(larger)


def pytest_sessionfinish(session):
    """Under pytest-xdist the workers share the embedded server, each in a database of its own
    (helpers.TEST_DB); the controller stops it once every worker is done. A worker sends back
    how many runs it deselected, for the controller's summary."""
    config = session.config
    if WORKER:
        config.workeroutput["shared_deselected"] = config.stash.get(_SHARED_DESELECTED, 0)
    elif config.pluginmanager.hasplugin("dsession") and not (KEEP_SERVER or EXTERNAL_URL):
        stop_embedded(SERVER_HOME / "pgdata")


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """(pytest-xdist, on the controller) a worker is done: its count of deselected runs."""
    count = getattr(node, "workeroutput", {}).get("shared_deselected", 0)
    node.config.stash[_SHARED_DESELECTED] = max(node.config.stash.get(_SHARED_DESELECTED, 0), count)


def pytest_terminal_summary(terminalreporter, config):
    if count := config.stash.get(_SHARED_DESELECTED, 0):
        terminalreporter.write_line(
            f"{count} larger runs on shared data (marked shared) deselected: no {SHARED}"
            " (LEGAL_AI_SHARED_DATA); every feature was tested on the project's own fixtures"
        )


@pytest.fixture(autouse=True)
def collect_what_the_test_left():
    """A collection after every test, so that a resource a test leaves to the garbage collector
    (an unclosed socket, say: `filterwarnings = error` turns its ResourceWarning into an error)
    is reported at the test that left it, every run, instead of at whichever later test the
    collector happens to run in. What survives is frozen (moved out of the collector's sight),
    so each collection looks only at what the next test makes: ~1 ms instead of ~50."""
    yield
    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True)
def server_db(request):
    """A test marked server_db(NAME) uses a database named for the whole server (the demo's
    legal_ai_demo, an evaluation's legal_ai_eval_<dataset>), which another worker (pytest-xdist)
    or session could drop under it: it holds an advisory lock of that name in the server's
    postgres database while it runs."""
    marker = request.node.get_closest_marker("server_db")
    if marker is None:
        yield
        return
    url = with_database(request.getfixturevalue("server_url"), "postgres")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(hashtext(%s))", (marker.args[0],))
        yield  # released with the connection


@pytest.fixture(autouse=True)
def clean_environ(monkeypatch):
    """No setting leaks in from the environment; the suite's own LEGAL_AI_TEST_* stay (a test
    may read the agent login's URL of the second server, say)."""
    for key in list(os.environ):
        if key.startswith("LEGAL_AI_TEST_"):
            continue
        if key.startswith("LEGAL_AI_") or key in (
            "VOYAGE_API_KEY",
            "RRF_K",
            "MAX_PER_CASE_LAW",
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
            "GEMINI_API_KEY",
            "GOOGLE_API_KEY",
            "OPENAI_BASE_URL",
            "ANTHROPIC_BASE_URL",
        ):
            monkeypatch.delenv(key, raising=False)


@pytest.fixture(scope="session")
def server_url():
    if EXTERNAL_URL:  # a server someone else runs: neither started nor stopped here
        if IN_CI and not EXTERNAL_AGENT_URL:
            pytest.fail("CI: LEGAL_AI_TEST_DATABASE_URL is set without the agent login's URL")
        yield EXTERNAL_URL
        return
    url = start_embedded(SERVER_HOME / "pgdata")  # joined when another worker started it
    yield url
    if not KEEP_SERVER and not WORKER:  # under pytest-xdist the controller stops it
        stop_embedded(SERVER_HOME / "pgdata")


@pytest.fixture(scope="session")
def db_url(server_url):
    drop_database(server_url, TEST_DB)
    return ensure_database(server_url, TEST_DB)


@pytest.fixture(scope="session")
def agent_db_url(db_url) -> str:
    """The test database as an agent's own login (member of legal_ai_agent only): what SQL an
    agent's database credentials can run. CI's second server has one (its URL in
    LEGAL_AI_TEST_AGENT_DATABASE_URL); on the embedded test server (a superuser login, trust
    authentication on its own socket) the suite makes one, `legal_ai_agent_test`."""
    if EXTERNAL_AGENT_URL:
        return with_database(EXTERNAL_AGENT_URL, TEST_DB)
    if IN_CI and EXTERNAL_URL:
        pytest.fail("CI: LEGAL_AI_TEST_AGENT_DATABASE_URL must be set with the second server")
    if EXTERNAL_URL:
        pytest.skip("no agent login: LEGAL_AI_TEST_AGENT_DATABASE_URL is unset")
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(
            "DO $$ BEGIN CREATE ROLE legal_ai_agent_test LOGIN NOSUPERUSER NOCREATEDB"
            " NOCREATEROLE IN ROLE legal_ai_agent; EXCEPTION WHEN duplicate_object OR"
            " unique_violation THEN NULL; END $$"  # or another worker made it at that moment
        )
    params = conninfo.conninfo_to_dict(db_url)
    params["user"] = "legal_ai_agent_test"
    return conninfo.make_conninfo(**params)


@pytest.fixture(scope="session")
def settings(db_url, embedding_folder) -> Settings:
    return Settings(
        home=TEST_HOME,
        database_url=db_url,
        committee_chair=TEST_CHAIR,
        embedding_cache_dir=embedding_folder,
    )


@pytest.fixture(scope="session")
def embedding_folder(tmp_path_factory) -> Path:
    """The run's one folder of embeddings (LEGAL_AI_EMBEDDING_CACHE_DIR): the session's
    settings, the CLI's environment and the tests that start legal-ai in a fresh home (the
    README's, the wheel's demo) name it, so a text embedded in one home or worker database is
    read by the next instead of embedded again. Both pytest-xdist workers share it (the run's
    base temporary folder; theirs are under it); each run starts empty."""
    base = tmp_path_factory.getbasetemp()
    return (base.parent if WORKER else base) / "embeddings"


@pytest.fixture(scope="session")
def e5() -> E5Local:
    return E5Local()


@pytest.fixture(scope="session")
def session_app(settings, e5):
    legal = App(settings, embedder=e5)
    yield legal
    legal.store.close()


@pytest.fixture(scope="session")
def emptied(session_app) -> tuple[list[sql.Identifier], list[bool], sql.Composed, list[str]]:
    """What `app` empties: ITEM_TABLES and every table that references one of them (what
    TRUNCATE ... CASCADE empties), with whether each has a vector column; one query that tells
    which of them hold a row (their places in that list); the sequences they own."""
    with session_app.store.transaction() as conn:
        tables = conn.execute(EMPTIED, ([t.strip() for t in ITEM_TABLES.split(",")],)).fetchall()
        owned = conn.execute(OWNED, ([t["oid"] for t in tables],)).fetchall()
    names = [sql.Identifier(t["nspname"], t["relname"]) for t in tables]
    probe = sql.SQL(" UNION ALL ").join(
        sql.SQL("SELECT {} AS i WHERE EXISTS (SELECT FROM {})").format(sql.Literal(i), name)
        for i, name in enumerate(names)
    )
    return names, [t["vectors"] for t in tables], probe, [s["name"] for s in owned]


@pytest.fixture
def app(session_app, emptied):
    """The session's App over an emptied database (the embedding cache is kept). Only the
    tables that hold a row are emptied, and the sequences they own that were used restart:
    a truncation makes new files for a table and its indexes (truncating all 54 took 50-90 ms
    a test), so a table's few rows are deleted (1-4 ms for 20 tables, where truncating them
    took 50-90); only the tables with a vector column are truncated, so that no search walks
    an index graph of the rows an earlier test left dead."""
    names, vectors, probe, sequences = emptied
    with session_app.store.transaction() as conn:
        # Append-only tables refuse TRUNCATE and DELETE by trigger, and foreign keys are
        # triggers too: a test reset is the one place that empties them, as a superuser in
        # replica mode (ordinary triggers do not fire; every table that references another of
        # the list is in it, so none is left pointing at a deleted row).
        conn.execute("SET LOCAL session_replication_role = replica")
        full = [row["i"] for row in conn.execute(probe)]
        if graphs := [names[i] for i in full if vectors[i]]:
            conn.execute(sql.SQL("TRUNCATE {} CASCADE").format(sql.SQL(", ").join(graphs)))
        for i in full:
            if not vectors[i]:
                conn.execute(sql.SQL("DELETE FROM {}").format(names[i]))
        conn.execute(RESTART, (sequences,))
        conn.execute(RESET_PROFILES)
        conn.execute("SELECT lexicon_rebuild()")  # no DELETE trigger fired
        set_active_embedder(conn, "e5-local", 384)
    return session_app


@pytest.fixture
def cli_env(settings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEGAL_AI_")}
    env.update(
        LEGAL_AI_HOME=str(TEST_HOME),
        LEGAL_AI_DATABASE_URL=settings.database_url,
        LEGAL_AI_COMMITTEE_CHAIR=TEST_CHAIR,
        LEGAL_AI_EMBEDDING_CACHE_DIR=str(settings.embedding_cache_dir),
    )
    return env


# --- Fixtures tests of more than one part use ------------------------------------------------


@pytest.fixture
def desk_app(app):
    """The test App (the desk's tables emptied with the rest) with the chair's password
    (PASSWORD) set (helpers.set_chair_password: hashed once per session)."""
    set_chair_password(app, PASSWORD)
    return app


@pytest.fixture
def client(desk_app):
    """The web app (the desk's pages and the API) under FastAPI's TestClient, an agent's token
    (writer=AGENT) and the chair's (CHAIR_TOKEN) set, uploads capped at 1 MB. A module whose
    tests need other settings defines its own `client`."""
    settings = desk_app.settings.model_copy(
        update={
            "agent_token": f"writer={AGENT}",
            "chair_token": CHAIR_TOKEN,
            "max_file_mb": 1,
            "max_decision_mb": 1,
            "max_decision_text_mb": 1,
        }
    )
    with TestClient(create_app(settings, legal=desk_app)) as c:
        yield c


# The cookie and the session row of the session's first sign-in through /login (`chair`).
_SIGNED_IN: dict = {}


@pytest.fixture
def chair(client, desk_app):
    """`client` signed in to the desk as the chair. The session's first `chair` signs in through
    /login (helpers.sign_in; its answer checked); later ones get that sign-in's cookie and its
    session row written back as accounts.sign_in writes it (the token's SHA-256, her CSRF token,
    24 hours to live), without argon2's check (~0.15 s by design) per test. Tests of signing in
    sign in themselves."""
    if not _SIGNED_IN:
        response = sign_in(client)
        assert response.status_code == 303 and response.headers["location"] == "/"  # today
        with desk_app.store.as_role(None).connection() as conn:
            row = conn.execute("SELECT token_hash, csrf FROM desk_sessions").fetchone()
        _SIGNED_IN.update(cookies=list(client.cookies.jar), row=row)
        return client
    with desk_app.store.as_role(None).transaction() as conn:
        row = _SIGNED_IN["row"]
        account_rows.insert_session(
            conn, row["token_hash"], "chair", row["csrf"], accounts.ABSOLUTE_S
        )
    for cookie in _SIGNED_IN["cookies"]:
        client.cookies.jar.set_cookie(cookie)
    return client


@pytest.fixture
def panel(app, monkeypatch):
    """The principle panel: three scripted models (a, b, c) on one local server
    (scenarios.PanelScript); yields the script and the LEGAL_AI_PRINCIPLE_PANEL value."""
    script = PanelScript()
    with scripted_openai(script) as server:
        value = ",".join(f"openai:{m}@{server.url}" for m in "abc")
        monkeypatch.setattr(
            app,
            "settings",
            app.settings.model_copy(update={"principle_panel": value, "model_retries": 0}),
        )
        yield script, value


@pytest.fixture
def voice_writer(app, monkeypatch):
    """The scripted voice writer (scenarios.Writer) as LEGAL_AI_VOICE_WRITER; yields the script
    and its server."""
    script = Writer()
    with scripted_openai(script) as server:
        monkeypatch.setattr(
            app,
            "settings",
            app.settings.model_copy(
                update={"voice_writer": f"openai:voice@{server.url}", "model_retries": 0}
            ),
        )
        yield script, server


@pytest.fixture
def enricher(app, monkeypatch):
    """The scripted enricher (scenarios.Enricher) as LEGAL_AI_ENRICHER; yields the script and its
    server."""
    script = Enricher()
    with scripted_openai(script) as server:
        monkeypatch.setattr(
            app,
            "settings",
            app.settings.model_copy(
                update={"enricher": f"openai:enricher@{server.url}", "model_retries": 0}
            ),
        )
        yield script, server


@pytest.fixture
def multimodal_url():
    """The scripted multimodal embedder (scenarios.ScriptedMultimodal), emptied; its /v1 URL."""
    ScriptedMultimodal.images = {}
    ScriptedMultimodal.requests = []
    with local_server(ScriptedMultimodal) as url:
        yield url
