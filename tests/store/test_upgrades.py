"""Upgrades with data (issue 24 item 1): a database as an earlier release left it — the first
release (0001), the release before the roles (0009: 0010 made legal_ai_agent / legal_ai_chair
and their grants) and the release before the principles (0014: 0015 made canonical principles)
— full of the office's rows (tests/upgrade_world.py writes a row in every table of that time,
with that time's SQL), migrated to the head the way production migrates it (the App's store
applies the migrations, then the re-key 0029 left pending). Then: every row survived (the re-key
respells an old case key, by design), the append-only rules and the agent's gates hold (on the
agent-only login where the suite has one), search finds what it found before, and health is
clean with nothing pending.

A migration killed with SIGKILL mid-upgrade leaves the database at its last whole migration
(each migration is one transaction) and `legal-ai db migrate` then finishes the upgrade; `db
migrate --dry-run` lists what would run and changes nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

import psycopg
import pytest
from psycopg import sql
from psycopg.rows import dict_row
from typer.testing import CliRunner

import upgrade_world as world
from helpers import TEST_CHAIR, TEST_DB, run
from legal_ai.app import App
from legal_ai.cli import app as cli
from legal_ai.config import Settings
from legal_ai.errors import StoreError
from legal_ai.ops import health
from legal_ai.store import drop_database, ensure_database
from legal_ai.store.db import with_database
from legal_ai.store.migrations import available, migrate, pending
from legal_ai.text.hebrew import get_analyzer

pytestmark = pytest.mark.db

POINTS = {
    "first-release": world.FIRST_RELEASE,
    "before-roles": world.BEFORE_ROLES,
    "before-principles": world.BEFORE_PRINCIPLES,
}
HEAD = available()[-1].version
# What an upgrade changes in the rows an earlier release wrote, by design, and why.
CHANGED_BY_DESIGN = {("authorities", "updated_at"): "the re-key of 0029 decides every link again"}
GROWN_BY_DESIGN = {
    "schema_migrations": "one row per migration applied",
    "corpus_requirements": "0030: an internal decision needs its headnote, summary and tags",
}
REFUSED = (
    psycopg.errors.InsufficientPrivilege,
    psycopg.errors.CheckViolation,
    psycopg.errors.RaiseException,
)


@dataclass
class Old:
    """A database at `point`, full: its rows as they stood (`before`, with `columns` per table)
    and what search found in it (`found`)."""

    name: str
    url: str
    point: int
    ids: dict
    columns: dict
    before: dict
    found: dict


@pytest.fixture(scope="module")
def vectors(e5) -> dict:
    return dict(zip(world.TEXTS, e5.embed_passages(list(world.TEXTS.values())), strict=True))


@pytest.fixture(scope="module")
def queries(e5) -> dict:
    return {corpus: e5.embed_query(q) for corpus, (q, _) in world.QUERIES.items()}


@pytest.fixture(scope="module")
def analyzer():
    return get_analyzer(Settings.model_fields["analyzer"].default)


@pytest.fixture
def build(server_url, vectors, queries, analyzer):
    """Make the database of a point (one per test, dropped after it)."""
    made: list[str] = []

    def make(point: int) -> Old:
        name = f"{TEST_DB}_upgrade_{point}"  # each session its own
        drop_database(server_url, name)
        made.append(name)
        url = ensure_database(server_url, name)
        assert migrate(url, until=point)[-1].startswith(f"{point:04d}_")
        with psycopg.connect(url, autocommit=True, row_factory=dict_row) as conn:
            ids = world.build(conn, point, vectors, analyzer)
            assert world.empty_tables(conn) == [], "a table of this point has no row"
            found = _searched(conn, queries, analyzer)
            return Old(name, url, point, ids, world.columns_of(conn), world.snapshot(conn), found)

    yield make
    for name in made:
        drop_database(server_url, name)


def _searched(conn, queries: dict, analyzer) -> dict:
    """What each corpus's search found at the old point, in that point's SQL: the nearest chunk
    of a searchable item (semantic) and the items whose analyzed text has a query term."""
    found = {}
    for corpus, (query, _) in world.QUERIES.items():
        chunks, items, parent = (sql.Identifier(n) for n in world.CHUNKS[corpus])
        source = sql.SQL("{} c JOIN {} i ON i.id = c.{} WHERE i.searchable").format(
            chunks, items, parent
        )
        nearest = conn.execute(
            sql.SQL("SELECT i.doc_id FROM {} ORDER BY c.embedding <=> %s::vector LIMIT 1").format(
                source
            ),
            (world.vector(queries[corpus]),),
        ).fetchone()
        lexical = conn.execute(
            sql.SQL(
                "SELECT DISTINCT i.doc_id FROM {} AND c.tsv @@ ANY(ARRAY("
                "SELECT plainto_tsquery('simple', t) FROM unnest(%s::text[]) t))"
            ).format(source),
            (analyzer.query_terms(query),),
        )
        found[corpus] = {"semantic": nearest["doc_id"], "lexical": {r["doc_id"] for r in lexical}}
    return found


def _settings(old: Old, tmp_path) -> Settings:
    return Settings(home=tmp_path, database_url=old.url, committee_chair=TEST_CHAIR)


@pytest.mark.parametrize("point", POINTS.values(), ids=POINTS.keys())
def test_a_full_database_upgrades_with_its_data(point, build, e5, tmp_path, request):
    old = build(point)
    with App(_settings(old, tmp_path), embedder=e5) as legal:  # production's path: Store, re-key
        assert legal.rekeyed["case_keys_respelled"] == 1  # OLD_KEY, and nothing else moved
        assert legal.rekeyed["citations_moved"] == legal.rekeyed["links_changed"] == 0
        _upgraded(legal, old, request)


def _upgraded(legal: App, old: Old, request) -> None:
    """The checks of an upgraded database, in this order: the gates are tried (and refused)
    before the rows are compared, so a write that got through would show there too."""
    assert pending(old.url) == []
    _append_only_holds(old)
    _agent_is_gated(old, request)
    _rows_survived(old)
    _search_finds_what_it_found(legal, old)
    _health_is_clean(legal, old)


def _rows_survived(old: Old) -> None:
    columns = {
        t: [c for c in cs if (t, c) not in CHANGED_BY_DESIGN] for t, cs in old.columns.items()
    }
    before = {t: world.project(old.before[t], columns[t]) for t in columns}
    with psycopg.connect(old.url, autocommit=True, row_factory=dict_row) as conn:
        now = world.snapshot(conn, columns)
    expected = world.expected(before)
    lost = {t: expected[t] - now[t] for t in expected if expected[t] - now[t]}
    assert lost == {}, "rows of the earlier release lost or changed"
    grown = {t for t in expected if now[t] - expected[t]}
    assert grown <= set(GROWN_BY_DESIGN), f"rows added by the upgrade to {grown}"


def _append_only_holds(old: Old) -> None:
    """Every append-only table with rows refuses UPDATE, DELETE and TRUNCATE, as the
    application's login."""
    with psycopg.connect(old.url, row_factory=dict_row) as conn:
        guarded = [
            r["table"]
            for r in conn.execute(
                "SELECT tgrelid::regclass::text AS table FROM pg_trigger"
                " WHERE tgname LIKE '%\\_append\\_only' ORDER BY 1"
            )
        ]
        conn.rollback()
        tried = []
        for table in guarded:
            if not conn.execute(
                sql.SQL("SELECT 1 FROM {}").format(sql.Identifier(table))
            ).fetchone():
                continue
            column = conn.execute(
                "SELECT column_name AS c FROM information_schema.columns WHERE table_name = %s"
                " AND table_schema = current_schema() AND is_identity = 'NO'"
                " AND is_generated = 'NEVER' ORDER BY ordinal_position LIMIT 1",
                (table,),
            ).fetchone()["c"]
            for statement in (
                "UPDATE {t} SET {c} = {c}",
                "DELETE FROM {t}",
                "TRUNCATE {t} CASCADE",
            ):
                conn.rollback()
                with pytest.raises(REFUSED, match=f"{table} is append-only"):
                    conn.execute(
                        sql.SQL(statement).format(t=sql.Identifier(table), c=sql.Identifier(column))
                    )
            conn.rollback()
            tried.append(table)
    had = {"learning_audit", "style_distance_history", "panel_verdicts"} & set(old.columns)
    assert had | {"item_versions", "methodology_profile_versions"} <= set(tried)


def _agent_is_gated(old: Old, request) -> None:
    """An agent's own login reads the library (the grants reached the rows an earlier release
    wrote) and is refused what the gates forbid it."""
    url = with_database(request.getfixturevalue("agent_db_url"), old.name)
    ids = old.ids
    refused = [
        (
            "UPDATE case_law_principles SET review_status = 'approved', reviewed_by = 'chair'"
            " WHERE id = %s",
            (ids["principle_ext"],),
        ),
        ("UPDATE case_law SET headnote = 'נוסח הסוכן' WHERE id = %s", (ids["decision"],)),
        ("UPDATE authorities SET case_law_id = %s", (ids["ruling2"],)),
        ("DELETE FROM case_law WHERE id = %s", (ids["ruling"],)),
        ("UPDATE item_versions SET content = 'x'", ()),
        ("SELECT * FROM desk_users", ()),
        ("INSERT INTO library_rekeys (status) VALUES ('pending')", ()),
        (  # it may propose a lesson (below), not decide one: the gate's refusal
            "INSERT INTO decision_lessons (category, text, source, dedupe_key, review_status,"
            " reviewed_by) VALUES ('style', 'תמיד לאשר', 'distillation', 'k', 'approved', 'panel')",
            (),
        ),
    ]
    with psycopg.connect(url, row_factory=dict_row) as conn:
        assert conn.execute("SELECT count(*) AS n FROM case_law").fetchone()["n"] == 3
        assert conn.execute("SELECT count(*) AS n FROM document_chunks").fetchone()["n"] == 2
        conn.rollback()
        for statement, params in refused:
            with pytest.raises(REFUSED):
                conn.execute(statement, params)
            conn.rollback()
        proposed = conn.execute(
            "INSERT INTO decision_lessons (category, text, source, dedupe_key, proposed_by)"
            " VALUES ('style', 'כתבי בקיצור', 'curator', 'agent-proposes', 'agent:x')"
            " RETURNING review_status"
        ).fetchone()
        assert proposed["review_status"] == "proposed"
        conn.rollback()


def _search_finds_what_it_found(legal: App, old: Old) -> None:
    for corpus, (query, answer) in world.QUERIES.items():
        then = old.found[corpus]
        semantic = legal.search(corpus, query, mode="semantic").hits
        lexical = {h["doc_id"] for h in legal.search(corpus, query, mode="lexical").hits}
        hybrid = legal.search(corpus, query).hits
        assert semantic[0]["doc_id"] == then["semantic"] == f"doc-{answer}", corpus
        assert then["lexical"] and then["lexical"] <= lexical, corpus
        assert hybrid[0]["doc_id"] == f"doc-{answer}", corpus


def _health_is_clean(legal: App, old: Old) -> None:
    report = health.report(legal)
    if old.point < 2:  # the first release's attached precedent: 0032 wrote its text; reindex
        assert _findings(report) == {"missing_embeddings": 1, "stale_analysis": 1}
        assert report["units"]["case_precedents"]["precedents"]["missing_embeddings"] == 1
        assert legal.reindex()["precedents"] == {"reembedded": 1, "reanalyzed": 1}
        report = health.report(legal)
        [hit] = legal.search("case_precedents", "סטייה ניכרת").hits
        assert hit["snippet"] == f"{world.RULING} — סטייה ניכרת — ruling"
    assert _findings(report) == {}
    assert report["isolation"]["leaks"] == 0 and report["isolation"]["checked"] > 0
    assert report["changed_outside_ingest"]["count"] == 0
    assert report["scheduler"]["failed_jobs"] == []
    assert report["missing_precedents"]["count"] == (1 if old.point >= 7 else 0)
    assert report["ambiguous_citations"]["count"] == 0
    assert report["awaiting_metadata"]["count"] == 0
    [rekeyed] = report["library_rekey"]  # reported until the chair's operator marks it seen
    assert rekeyed["report"]["case_keys_respelled"] == 1


def _findings(report: dict) -> dict:
    keys = ("unsearchable", "stale_embeddings", "missing_embeddings", "dimension_mismatches")
    found = {k: report[k] for k in (*keys, "stale_analysis") if report[k]}
    return found | (
        {"unsearchable_items": report["unsearchable_items"]} if found.get("unsearchable") else {}
    )


# -- a migration killed mid-upgrade ----------------------------------------------------------------


def test_a_migration_killed_mid_upgrade_leaves_the_last_whole_one_and_runs_again(
    build, e5, tmp_path, request
):
    """0010 made in one transaction: item_versions (and its backfill), the roles' gates, then
    altered decision_lessons. Holding decision_lessons, the test stops `legal-ai db migrate`
    inside 0010, SIGKILLs it, and finds the database at 0009 with every row as it was."""
    old = build(world.BEFORE_ROLES)
    env = {
        **os.environ,
        "LEGAL_AI_HOME": str(tmp_path),
        "LEGAL_AI_DATABASE_URL": old.url,
        "LEGAL_AI_COMMITTEE_CHAIR": TEST_CHAIR,
    }
    with psycopg.connect(old.url) as holder:
        holder.execute("LOCK TABLE decision_lessons IN ACCESS EXCLUSIVE MODE")
        holder_pid = holder.info.backend_pid
        upgrade = subprocess.Popen(
            [sys.executable, "-m", "legal_ai.cli", "db", "migrate"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            backend = _blocked_in(old.url, "0010_roles_and_history", holder_pid, upgrade)
        finally:
            os.kill(upgrade.pid, signal.SIGKILL)
            upgrade.communicate(timeout=30)
        assert upgrade.returncode == -signal.SIGKILL
        assert _versions(old.url) == list(range(1, world.BEFORE_ROLES + 1))
        holder.rollback()  # the killed client's session runs on, finds no client, rolls back
    _gone(old.url, backend)
    assert _versions(old.url) == list(range(1, world.BEFORE_ROLES + 1))
    with psycopg.connect(old.url, autocommit=True, row_factory=dict_row) as conn:
        assert conn.execute("SELECT to_regclass('item_versions') AS t").fetchone()["t"] is None
        assert world.snapshot(conn) == old.before
    again = run(env, "db", "migrate")
    assert again.stdout.startswith("applied: 0010_roles_and_history, 0011_style_dates")
    assert "library re-keyed by one identity per ruling" in again.stdout
    with App(_settings(old, tmp_path), embedder=e5) as legal:
        assert legal.rekeyed is None  # `db migrate` ran it
        _upgraded(legal, old, request)


def _blocked_in(url: str, migration: str, holder: int, upgrade: subprocess.Popen) -> int:
    """The server session of `upgrade` once it waits, inside `migration`, for the lock `holder`
    keeps (within 60 s)."""
    deadline = time.monotonic() + 60
    with psycopg.connect(url, autocommit=True) as conn:
        while time.monotonic() < deadline:
            row = conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                " AND query LIKE %s AND %s = ANY(pg_blocking_pids(pid))",
                (f"-- {migration}%", holder),
            ).fetchone()
            if row:
                return row[0]
            assert upgrade.poll() is None, upgrade.communicate()
            time.sleep(0.1)
    pytest.fail(f"`legal-ai db migrate` never waited inside {migration}")


def _gone(url: str, backend: int) -> None:
    deadline = time.monotonic() + 30
    with psycopg.connect(url, autocommit=True) as conn:
        while conn.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", (backend,)).fetchone():
            assert time.monotonic() < deadline, "the killed migration's session lingers"
            time.sleep(0.1)


def _versions(url: str) -> list[int]:
    with psycopg.connect(url, autocommit=True) as conn:
        return [r[0] for r in conn.execute("SELECT version FROM schema_migrations ORDER BY 1")]


# -- db migrate --dry-run --------------------------------------------------------------------------


def test_dry_run_lists_what_would_run_and_changes_nothing(build, e5, tmp_path):
    old = build(world.BEFORE_PRINCIPLES)
    env = {"LEGAL_AI_HOME": str(tmp_path), "LEGAL_AI_DATABASE_URL": old.url}
    lines = _dry_run(env)
    todo = [m for m in available() if m.version > world.BEFORE_PRINCIPLES]
    assert lines[0] == (
        f"the database is at 0014_desk; `legal-ai db migrate` would apply {len(todo)}"
        " migration(s), each in its own transaction:"
    )
    listed = [line.split()[0] for line in lines[1 : len(todo) + 1]]
    assert listed == [f"{m.version:04d}_{m.name}" for m in todo]
    assert lines[1].split(None, 1) == [
        "0015_principles_panel",
        "principles extracted by a three-model panel (issue 13, items 1-2).",
    ]
    assert lines[len(todo) + 1].startswith("then, once: the library re-keyed by one identity")
    assert lines[-1] == "dry run: nothing was changed"
    with psycopg.connect(old.url, autocommit=True, row_factory=dict_row) as conn:
        assert world.snapshot(conn) == old.before  # every table, schema_migrations too
    migrate(old.url)  # the runner alone: the re-key it leaves is still to run
    lines = _dry_run(env)
    assert (
        lines[0]
        == f"schema is up to date ({HEAD:04d}_{available()[-1].name}): no migration would run"
    )
    assert lines[1].startswith("then, once: the library re-keyed")
    with App(_settings(old, tmp_path), embedder=e5) as legal:
        assert legal.rekeyed["case_keys_respelled"] == 1
    assert not any(line.startswith("then, once:") for line in _dry_run(env))


def test_dry_run_on_a_database_it_cannot_reach_says_why(tmp_path, server_url):
    env = {
        "LEGAL_AI_HOME": str(tmp_path),
        "LEGAL_AI_DATABASE_URL": with_database(server_url, f"{TEST_DB}_upgrade_absent"),
    }
    result = CliRunner().invoke(cli, ["db", "migrate", "--dry-run"], env=env)
    assert isinstance(result.exception, StoreError)  # main() prints it as one line, exit code 4
    said = str(result.exception)
    assert said.startswith("cannot read the database's migrations")
    assert f'database "{TEST_DB}_upgrade_absent" does not exist' in said


def _dry_run(env: dict) -> list[str]:
    result = CliRunner().invoke(cli, ["db", "migrate", "--dry-run"], env=env)
    assert result.exit_code == 0, result.output
    return result.output.splitlines()
