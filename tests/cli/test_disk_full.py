"""A full disk is one line and exit code 4, and loses nothing (issue 32 item 5): the database
server's own "could not extend file" (SQLSTATE 53100, raised here by the real server from a
trigger the test adds, in the middle of an ingest) and a local write that finds no space
(stdout sent to /dev/full, which answers every write with ENOSPC)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from psycopg import sql

from helpers import run, write

pytestmark = pytest.mark.db

FULL = "error: the disk is full ("
# The server's answer when its disk is full, as PostgreSQL words it (errcode disk_full).
DISK_FULL_TRIGGER = """
CREATE FUNCTION test_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'could not extend file "base/16384/24576": No space left on device'
    USING ERRCODE = 'disk_full', HINT = 'Check free disk space.';
END $$;
CREATE TRIGGER test_disk_full BEFORE INSERT ON document_chunks
  FOR EACH ROW EXECUTE FUNCTION test_disk_full();
"""
UNDO = """
DROP TRIGGER IF EXISTS test_disk_full ON document_chunks;
DROP FUNCTION IF EXISTS test_disk_full();
"""


@contextmanager
def planted(app, create: str, undo: str) -> Iterator[None]:
    """A trigger of the test's own in the database while the block runs, dropped after."""
    with app.store.transaction() as conn:
        conn.execute(create)
    try:
        yield
    finally:
        with app.store.transaction() as conn:
            conn.execute(undo)


def counts(app) -> dict[str, int]:
    with app.store.connection() as conn:
        return {
            table: conn.execute(
                sql.SQL("SELECT count(*) AS n FROM {}").format(sql.Identifier(table))
            ).fetchone()["n"]
            for table in ("documents", "document_chunks", "cases")
        }


def test_the_database_servers_full_disk_mid_ingest_is_one_line(app, cli_env, tmp_path):
    first = write(tmp_path / "a.txt", "פרוטוקול דיון ראשון: הוחלט לערוך סיור במקום.")
    second = write(tmp_path / "b.txt", "פרוטוקול דיון שני: הוחלט לדחות את הדיון.")
    args = ["ingest", str(first), str(second), "--corpus", "case", "--case-number", "ערר 12/25"]
    args += ["--practice-area", "planning", "--json"]
    before = counts(app)
    with planted(app, DISK_FULL_TRIGGER, UNDO):
        done = run(cli_env, *args, check=False)
    assert done.returncode == 4, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(FULL), done.stderr
    assert "database server" in lines[0] and "run the command again" in lines[0]
    assert "Traceback" not in done.stderr and "base/16384" not in done.stderr
    assert counts(app) == before  # the item's transaction rolled back whole
    # Space freed (the trigger gone): the same command carries on and stores both.
    again = json.loads(run(cli_env, *args).stdout)
    assert again["ingested"] == 2 and not again["failed"]


def test_a_full_local_disk_is_one_line(cli_env):
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "legal_ai.cli", "--version"],
            env=cli_env,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 4
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(FULL), done.stderr
    assert "no space left" in lines[0]


# A refusal by one of the database's gates, raised by the real server in the middle of a command
# the CLI does not expect refused (a rule of the catalog, so its code is named).
REFUSING_TRIGGER = """
CREATE FUNCTION test_refuses() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'chair feedback is kept as it was written (running as x)'
    USING ERRCODE = 'check_violation', CONSTRAINT = 'feedback_kept';
END $$;
CREATE TRIGGER test_refuses BEFORE INSERT ON chair_feedback
  FOR EACH ROW EXECUTE FUNCTION test_refuses();
"""
UNDO_REFUSING = """
DROP TRIGGER IF EXISTS test_refuses ON chair_feedback;
DROP FUNCTION IF EXISTS test_refuses();
"""


def test_a_statement_the_database_refuses_is_one_line_naming_its_rule(app, cli_env):
    with planted(app, REFUSING_TRIGGER, UNDO_REFUSING):
        done = run(cli_env, "feedback", "add", "style", "קצר יותר", check=False)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith("error: the database refused it: chair feedback is kept")
    assert lines[0].endswith("[code: gate.feedback_kept]")
