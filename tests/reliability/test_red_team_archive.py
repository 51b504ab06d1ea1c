"""The red team (issue 31, items 3 and 10): an archive that runs the attacker's code when the
office proves or restores it.

The attacker builds it as she did: a database of her own migrated by legal-ai, one more table
whose CHECK calls a function that runs `COPY … TO PROGRAM` (the program writes a marker file and,
through psql as the server's superuser, rewrites the chair's approved lesson on the live
database; the function also makes the restoring login read-only), then `legal-ai db backup`:
the manifest, SHA-256 and row counts all match. `legal-ai db restore --check` and `db restore`
refuse it in one line naming the function, before anything is restored; the marker never
appears; the live database, her lesson included, is unchanged and still writable. A clean
archive of the same live database is still proven. Every proof runs on a scratch server of its
own, in TMPDIR, and leaves nothing there — no folder, no postgres process — also when it fails
midway or its process is killed (the next proof sweeps it). The scratch server's login may not
run programs or touch the server's files."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import psycopg
import pytest
from psycopg import sql

from helpers import PROOF_STEPS, TEST_DB, TEST_HOME, table_fingerprints
from legal_ai.app import App
from legal_ai.auth import CHAIR
from legal_ai.config import Settings
from legal_ai.learning.lessons import lessons
from legal_ai.store import drop_database, ensure_database
from legal_ai.store.backup_manifest import manifest_path
from legal_ai.store.pg_programs import pg_binary
from legal_ai.store.scratch_server import SERVER_PROGRAMS, scratch_server

pytestmark = pytest.mark.db

HERS = "המועד הנכון להגשת ערר הוא שלושים יום מיום ההחלטה"
FORGED = "the agent's text, approved"


def open_app(url: str, settings) -> App:
    return App(Settings(home=TEST_HOME, database_url=url, committee_chair=settings.committee_chair))


@pytest.fixture
def live(server_url, settings):
    """The office's database (one of this test's own) with the chair's approved lesson."""
    name = f"{TEST_DB}_office"
    drop_database(server_url, name)
    url = ensure_database(server_url, name)
    legal = open_app(url, settings)
    lesson = lessons.propose(legal.acting_as(CHAIR), None, "fact", HERS, source="chair")
    assert lesson["review_status"] == "approved"
    legal.store.close()
    yield url, lesson["id"]
    drop_database(server_url, name)


@pytest.fixture
def scratch_tmp():
    """A short TMPDIR of the test's own (a Unix socket's path is at most 107 bytes)."""
    folder = Path(tempfile.mkdtemp(prefix="lp-", dir="/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def cli(env: dict, url: str, tmp: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "legal_ai.cli", "db", *args],
        env={**env, "LEGAL_AI_DATABASE_URL": url, "TMPDIR": str(tmp)},
        capture_output=True,
        text=True,
        timeout=300,
    )


def servers_in(folder: Path) -> list[int]:
    """PostgreSQL processes whose command line names a path under `folder`."""
    found = []
    for proc in psutil.process_iter(["name", "cmdline"]):
        cmdline = " ".join(proc.info["cmdline"] or [])
        if proc.info["name"] == "postgres" and str(folder) in cmdline:
            found.append(proc.pid)
    return found


def nothing_left(tmp: Path) -> None:
    assert list(tmp.iterdir()) == [], "the scratch server's folder was left behind"
    assert servers_in(tmp) == [], "a scratch postgres process was left running"


@pytest.fixture
def marker_dir():
    """A folder the database server's OS user may write in: where the program's marker goes."""
    folder = Path(tempfile.mkdtemp(prefix="lm-", dir="/tmp"))
    folder.chmod(0o777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def crafted(server_url, settings, live, tmp_path, cli_env, scratch_tmp, marker_dir):
    """The attacker's archive (the module's doc) and the marker file its program would write."""
    live_url, lesson_id = live
    marker = marker_dir / "pwned"
    name = f"{TEST_DB}_attacker"
    drop_database(server_url, name)
    url = ensure_database(server_url, name)
    open_app(url, settings).store.close()  # migrated by legal-ai, as `db migrate` does
    psql = pg_binary("psql")
    forge = f"UPDATE decision_lessons SET text = '{FORGED}' WHERE id = {lesson_id}"  # noqa: S608 the attacker's, run by psql
    program = f"touch {shlex.quote(str(marker))}; " + shlex.join([str(psql), live_url, "-c", forge])
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            sql.SQL(
                "CREATE FUNCTION public.restore_note_ok(note text) RETURNS boolean"
                " LANGUAGE plpgsql AS $f$ BEGIN"
                # Only where it is restored, never in her own database.
                "  IF current_database() <> {source} THEN"
                "    EXECUTE format('COPY (SELECT 1) TO PROGRAM %L', {program});"
                "    EXECUTE format('ALTER ROLE %I SET default_transaction_read_only = on',"
                "                   current_user);"
                "  END IF;"
                "  RETURN true;"
                " END $f$"
            ).format(source=sql.Literal(name), program=sql.Literal(program))
        )
        conn.execute(
            "CREATE TABLE public.restore_notes (id int PRIMARY KEY,"
            " note text CHECK (public.restore_note_ok(note)))"
        )
        conn.execute("INSERT INTO restore_notes VALUES (1, 'ok')")
    archive = tmp_path / "crafted.backup"
    try:
        made = cli(cli_env, url, scratch_tmp, "backup", str(archive))
        assert made.returncode == 0, made.stderr
    finally:
        drop_database(server_url, name)
    listed = subprocess.run(
        [str(pg_binary("pg_restore")), "--list", str(archive)], capture_output=True, text=True
    ).stdout
    assert "FUNCTION public restore_note_ok(text)" in listed  # what the attack rests on
    assert not marker.exists()
    return archive, marker


def test_a_crafted_archive_is_refused_before_anything_runs(
    live, crafted, cli_env, scratch_tmp, tmp_path
):
    live_url, lesson_id = live
    archive, marker = crafted
    before = table_fingerprints(live_url)
    said = (
        "error: crafted.backup holds FUNCTION public.restore_note_ok(text), which the migrations "
        "do not make: refused, nothing restored"
    )

    proof = cli(cli_env, live_url, scratch_tmp, "restore", "--check", str(archive))
    assert proof.returncode == 2, proof.stderr
    assert len(proof.stderr.strip().splitlines()) == 1 and proof.stderr.startswith(said)
    assert "proven" not in proof.stdout and "restore:" not in proof.stdout
    assert str(tmp_path) not in proof.stderr
    nothing_left(scratch_tmp)

    restore = cli(cli_env, live_url, scratch_tmp, "restore", "--force", str(archive))
    assert restore.returncode == 2, restore.stderr
    assert len(restore.stderr.strip().splitlines()) == 1 and restore.stderr.startswith(said)
    nothing_left(scratch_tmp)

    time.sleep(0.5)  # a program started in the background would have written by now
    assert not marker.exists(), "the archive's program ran"
    assert table_fingerprints(live_url) == before  # every table, row for row
    with psycopg.connect(live_url) as conn:
        text, status = conn.execute(
            "SELECT text, review_status FROM decision_lessons WHERE id = %s", (lesson_id,)
        ).fetchone()
        assert (text, status) == (HERS, "approved")
        assert conn.execute("SHOW default_transaction_read_only").fetchone()[0] == "off"
        assert conn.execute("SELECT count(*) FROM pg_db_role_setting").fetchone()[0] == 0
        conn.execute(  # still writable by the application's login
            "UPDATE decision_lessons SET text = text WHERE id = %s", (lesson_id,)
        )


def test_a_clean_archive_is_still_proven_and_restored(live, cli_env, scratch_tmp, tmp_path):
    live_url, lesson_id = live
    archive = tmp_path / "clean.backup"
    assert cli(cli_env, live_url, scratch_tmp, "backup", str(archive)).returncode == 0
    before = table_fingerprints(live_url)
    proof = cli(cli_env, live_url, scratch_tmp, "restore", "--check", str(archive))
    assert proof.returncode == 0, proof.stderr
    lines = proof.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == PROOF_STEPS
    assert "by an unprivileged login" in lines[3]
    nothing_left(scratch_tmp)
    restored = cli(cli_env, live_url, scratch_tmp, "restore", "--force", str(archive))
    assert restored.returncode == 0, restored.stderr
    assert table_fingerprints(live_url) == before
    nothing_left(scratch_tmp)


def test_a_proof_that_fails_midway_or_is_killed_leaves_no_server(
    live, cli_env, scratch_tmp, tmp_path
):
    live_url, _ = live
    good = tmp_path / "good.backup"
    assert cli(cli_env, live_url, scratch_tmp, "backup", str(good)).returncode == 0
    cut = tmp_path / "cut.backup"  # its table of contents whole, its data cut; no manifest
    cut.write_bytes(good.read_bytes()[:-2000])  # schema_migrations' data among what is cut
    failed = cli(cli_env, live_url, scratch_tmp, "restore", "--check", str(cut))
    assert failed.returncode == 2 and "proven" not in failed.stdout
    assert "cut.backup is a damaged or incomplete backup" in failed.stderr
    nothing_left(scratch_tmp)
    # Restored, then failed: the manifest beside it (its size and digest right) says other rows.
    manifest = json.loads(manifest_path(good).read_text(encoding="utf-8"))
    manifest["tables"]["decision_lessons"] += 1
    manifest_path(good).write_text(json.dumps(manifest), encoding="utf-8")
    failed = cli(cli_env, live_url, scratch_tmp, "restore", "--check", str(good))
    assert failed.returncode == 4 and "restore:" in failed.stdout
    assert len(failed.stderr.strip().splitlines()) == 1
    assert "rows differ from the manifest in 1 table(s): decision_lessons" in failed.stderr
    nothing_left(scratch_tmp)
    manifest["tables"]["decision_lessons"] -= 1
    manifest_path(good).write_text(json.dumps(manifest), encoding="utf-8")

    # A proof's process killed while its scratch server runs: the server and its folder stay…
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time\n"
            "from legal_ai.store.scratch_server import scratch_server\n"
            "with scratch_server() as s:\n"
            "    print(s.folder, flush=True)\n"
            "    time.sleep(600)\n",
        ],
        env={**cli_env, "TMPDIR": str(scratch_tmp)},
        stdout=subprocess.PIPE,
        text=True,
    )
    with holder:
        folder = Path(holder.stdout.readline().strip())
        os.kill(holder.pid, signal.SIGKILL)
    assert folder.is_dir() and servers_in(folder)
    # … until the next proof, which stops that server and deletes its folder.
    proof = cli(cli_env, live_url, scratch_tmp, "restore", "--check", str(good))
    assert proof.returncode == 0, proof.stderr
    nothing_left(scratch_tmp)


def test_the_scratch_servers_login_may_run_no_program_and_touch_no_file(scratch_tmp, tmp_path):
    marker = tmp_path / "pwned"
    tempfile.tempdir, saved = str(scratch_tmp), tempfile.tempdir
    try:
        with scratch_server() as server:
            url = server.create_database("proof")
            with psycopg.connect(url, autocommit=True) as conn:
                row = conn.execute(
                    "SELECT rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls"
                    " FROM pg_roles WHERE rolname = current_user"
                ).fetchone()
                assert row == (False, False, False, False, False)
                for role in SERVER_PROGRAMS:
                    held = conn.execute("SELECT pg_has_role(%s, 'MEMBER')", (role,)).fetchone()
                    assert held == (False,), role
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    conn.execute(
                        sql.SQL("COPY (SELECT 1) TO PROGRAM {}").format(
                            sql.Literal(f"touch {marker}")
                        )
                    )
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    conn.execute(sql.SQL("COPY (SELECT 1) TO {}").format(sql.Literal(str(marker))))
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    conn.execute("SELECT pg_read_file('postgresql.conf')")
    finally:
        tempfile.tempdir = saved
    assert not marker.exists()
    nothing_left(scratch_tmp)
