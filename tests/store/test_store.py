"""Schema and server: migrations on an empty database and as a no-op upgrade, the constraints the
contract relies on, two processes starting the embedded server at once, and a probe's bounded
transaction."""

import subprocess
import sys
import time

import psycopg
import pytest

from legal_ai.store import drop_database, ensure_database
from legal_ai.store.migrations import available, migrate

pytestmark = pytest.mark.db


def test_migrations_apply_in_order_and_are_idempotent(server_url):
    url = ensure_database(server_url, "legal_ai_migrate_test")
    try:
        applied = migrate(url)
        assert applied == [f"{m.version:04d}_{m.name}" for m in available()]
        assert migrate(url) == []  # second run: nothing to do
        with psycopg.connect(url) as conn:
            versions = [r[0] for r in conn.execute("SELECT version FROM schema_migrations")]
            assert versions == sorted(versions) and versions[0] == 1
            parts = conn.execute(
                "SELECT inhrelid::regclass::text FROM pg_inherits"
                " WHERE inhparent = 'case_law_chunks'::regclass ORDER BY 1"
            ).fetchall()
            assert [p[0] for p in parts] == ["case_law_chunks_external", "case_law_chunks_internal"]
            hnsw = conn.execute(
                "SELECT count(*) FROM pg_indexes WHERE indexdef ILIKE '%%USING hnsw%%'"
            ).fetchone()[0]
            # 8 searchable tables x (e5-local, voyage) + 4 page-image partitions (voyage-multimodal)
            assert hnsw == 20
    finally:
        drop_database(server_url, "legal_ai_migrate_test")


def test_internal_decision_needs_a_chair(app):
    with pytest.raises(psycopg.errors.CheckViolation), app.store.transaction() as conn:
        conn.execute(
            "INSERT INTO case_law (source_kind, doc_type, doc_id, content_hash, chair_name)"
            " VALUES ('internal_committee', 'decision', 'x', 'h', '  ')"
        )


def test_chunk_cannot_sit_in_another_corpus_partition(app):
    with app.store.transaction() as conn:
        ruling = conn.execute(
            "INSERT INTO case_law (source_kind, doc_type, doc_id, content_hash, title)"
            " VALUES ('external_upload', 'reference', 'r1', 'h', 't') RETURNING id"
        ).fetchone()["id"]
    with pytest.raises(psycopg.errors.ForeignKeyViolation), app.store.transaction() as conn:
        conn.execute(
            "INSERT INTO case_law_chunks (source_kind, case_law_id, ordinal, char_start, char_end,"
            " text, text_hash, analyzed, analyzer)"
            " VALUES ('internal_committee', %s, 0, 0, 1, 'x', 'h', 'x', 'a')",
            (ruling,),
        )


def test_two_processes_start_one_server(tmp_path):
    pgdata = tmp_path / "pgdata"
    code = (
        "import sys; from pathlib import Path; from legal_ai.store import start_embedded;"
        "print(start_embedded(Path(sys.argv[1])))"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(pgdata)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    try:
        outs = [p.communicate(timeout=120) for p in procs]
        assert [p.returncode for p in procs] == [0, 0], [o[1] for o in outs]
        urls = {o[0].strip() for o in outs}
        assert len(urls) == 1
        with psycopg.connect(urls.pop()) as conn:
            assert conn.execute("SELECT 1").fetchone()[0] == 1
        postmasters = subprocess.run(
            ["pgrep", "-f", f"postgres -D {pgdata}"], capture_output=True, text=True
        ).stdout.split()
        assert len(postmasters) == 1
    finally:
        from legal_ai.store import stop_embedded

        stop_embedded(pgdata)
    assert not (pgdata / "postmaster.pid").exists()


def test_searchability_follows_chunk_statements(app):
    """Chunk writes re-check their parents once per statement (0009): one INSERT of chunks for
    two items makes both searchable; an UPDATE whose text no longer matches the item's content
    and a DELETE of every chunk make the item unsearchable again."""
    active = app.embedder.id
    with app.store.transaction() as conn:
        ids = [
            conn.execute(
                "INSERT INTO case_law (source_kind, doc_type, doc_id, content_hash, title, content)"
                " VALUES ('external_upload', 'reference', %s, %s, 't', 'אבג דהו') RETURNING id",
                (doc_id, doc_id),
            ).fetchone()["id"]
            for doc_id in ("a", "b")
        ]
        rows = [(i, o) for i in ids for o in (0, 1)]
        conn.execute(
            "INSERT INTO case_law_chunks (source_kind, case_law_id, ordinal, char_start, char_end,"
            " text, text_hash, analyzed, analyzer, embedding, embedder, embedded_hash)"
            " SELECT 'external_upload', i, o, 0, 3, 'אבג', 'h', 'אבג', 'a',"
            " array_fill(0.1, ARRAY[384])::vector, %s, 'h'"
            " FROM unnest(%s::bigint[], %s::int[]) AS r(i, o)",
            (active, [r[0] for r in rows], [r[1] for r in rows]),
        )

    def searchable() -> list[bool]:
        with app.store.pool.connection() as conn:
            found = conn.execute("SELECT searchable FROM case_law ORDER BY doc_id").fetchall()
        return [r["searchable"] for r in found]

    assert searchable() == [True, True]
    with app.store.transaction() as conn:
        conn.execute(
            "UPDATE case_law_chunks SET text = 'זזז', text_hash = 'z', embedded_hash = 'z'"
            " WHERE case_law_id = %s",
            (ids[0],),
        )
    assert searchable() == [False, True]
    with app.store.transaction() as conn:
        conn.execute("DELETE FROM case_law_chunks WHERE case_law_id = %s", (ids[1],))
    assert searchable() == [False, False]


def test_a_probes_transaction_ends_each_statement_in_time(app):
    """Store.transaction(statements=S), what /readyz and /metrics read through: a statement
    past S seconds is cancelled (the probe answers in time), the bound is the transaction's own
    (SET LOCAL: the pooled connection lends no bound to the next caller), and
    App.pending_migrations reads a migrated database as lacking nothing."""
    started = time.perf_counter()
    with pytest.raises(psycopg.errors.QueryCanceled):
        with app.store.transaction(statements=0.2) as conn:
            conn.execute("SELECT pg_sleep(5)")
    assert time.perf_counter() - started < 3
    with app.store.transaction() as conn:
        assert conn.execute("SHOW statement_timeout").fetchone()["statement_timeout"] != "200ms"
        conn.execute("SELECT pg_sleep(0.3)")  # unbounded again
    assert app.pending_migrations(1.0) == []
