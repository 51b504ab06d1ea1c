"""`legal-ai db backup` / `db restore`: a round trip of the whole state (an ingested item and its
versions, a draft/final pair with its append-only history row, a decided lesson and its audit)
through the CLI, with data changed and deleted in between; restore refuses a database that holds
data unless --force, refuses a file that is not a backup, and fails in one line without
connection details. Runs in a database of its own (a restore swaps databases, which would cut the
session's pool)."""

import subprocess
from importlib import resources
from pathlib import Path

import psycopg
import pytest

from helpers import TEST_DB, TEST_HOME, run, table_fingerprints, write
from legal_ai.app import App
from legal_ai.auth import CHAIR
from legal_ai.config import Settings
from legal_ai.learning.lessons import lessons
from legal_ai.learning.pairs import drafts, finals
from legal_ai.store import drop_database, ensure_database
from legal_ai.store.migrations import practice_area_indexes

pytestmark = pytest.mark.db

DEMO = Path(str(resources.files("legal_ai").joinpath("demo_data")))
CASE = "ערר (מרכז) 7001/25"


@pytest.fixture
def own_db(server_url, settings):
    """A database of this test's own, with an App on it; dropped afterwards."""
    name = f"{TEST_DB}_backup"
    drop_database(server_url, name)
    url = ensure_database(server_url, name)
    legal = App(
        Settings(home=TEST_HOME, database_url=url, committee_chair=settings.committee_chair)
    )
    yield url, legal
    legal.store.close()
    drop_database(server_url, name)


def cli(env: dict, url: str, *args: str) -> subprocess.CompletedProcess:
    return run({**env, "LEGAL_AI_DATABASE_URL": url}, "db", *args, check=False)


def test_backup_and_restore_round_trip(own_db, cli_env, tmp_path):
    url, legal = own_db
    ruling = write(tmp_path / "ruling.txt", "החלטה בעניין הקלה בקו בניין צדדי ברחוב הרצל 12.")
    meta = {"title": "הקלה בקו בניין", "doc_type": "reference"}
    assert legal.ingest([ruling], "external", meta=meta, doc_id="ruling-1").ingested == 1
    # A second practice area, and its own HNSW index (migration 0052): made from the data, not
    # by a migration, and still restored (store/archive_contents.py lets exactly it through).
    levy = write(tmp_path / "levy.txt", "שומה מכרעת של היטל השבחה בגין אישור תכנית מפורטת.")
    area = {"title": "היטל השבחה", "doc_type": "reference", "practice_area": "betterment_levy"}
    assert legal.ingest([levy], "external", meta=area, doc_id="ruling-2").ingested == 1
    assert practice_area_indexes(url) >= 1
    drafts.add_draft(
        legal,
        CASE,
        DEMO / "learning-draft-7001.txt",
        appeal_type="permit",
        outcome="partially_accepted",
        practice_area="planning",
    )
    final = finals.upload_final(legal, CASE, DEMO / "learning-final-7001.txt")
    assert final["history_row"]  # one append-only style_distance_history row
    lesson = lessons.propose(legal, CASE, "fact", "המועד הנכון הוא 5.7.2023")
    lessons.review(legal.acting_as(CHAIR), lesson["id"], "approve")  # a learning_audit row
    before = table_fingerprints(url)
    assert before["style_distance_history"][0] == 1
    assert before["learning_audit"][0] >= 1 and before["decision_lessons"][0] == 1
    assert before["item_versions"][0] >= 2  # the ruling and the final

    backup = tmp_path / "state.backup"
    done = cli(cli_env, url, "backup", str(backup))
    assert done.returncode == 0, done.stderr
    assert backup.stat().st_size > 0 and "backed up" in done.stdout
    again = cli(cli_env, url, "backup", str(backup))  # never overwritten silently
    assert again.returncode == 2 and "--force" in again.stderr

    # Change and delete data after the backup.
    write(ruling, "החלטה בעניין הקלה בקו בניין אחורי ברחוב ויצמן 3.")
    assert not legal.ingest([ruling], "external", meta=meta, doc_id="ruling-1").failed
    lessons.propose(legal, CASE, "style", "משפטים קצרים בפתח הדבר")
    with legal.store.transaction() as conn:
        conn.execute("DELETE FROM case_law WHERE doc_id = 'ruling-1'")  # and its chunks
    assert table_fingerprints(url) != before
    legal.store.close()  # the restore closes every session on the database anyway

    refused = cli(cli_env, url, "restore", str(backup))
    assert refused.returncode == 2 and "--force" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    restored = cli(cli_env, url, "restore", str(backup), "--force")
    assert restored.returncode == 0, restored.stderr
    assert table_fingerprints(url) == before  # every table, row for row

    # The restored database works: its triggers hold, its sequences go on, search finds the item.
    chair_name = legal.settings.committee_chair
    after = App(Settings(home=TEST_HOME, database_url=url, committee_chair=chair_name))
    try:
        with pytest.raises(psycopg.Error, match="append-only"), after.store.transaction() as conn:
            conn.execute("UPDATE style_distance_history SET change_percent = 0")
        with pytest.raises(psycopg.Error, match="append-only"), after.store.transaction() as conn:
            conn.execute("TRUNCATE learning_audit")
        newer = lessons.propose(after, CASE, "phrase", "אשר על כן")
        assert newer["created"] and newer["id"] > lesson["id"]
        hits = after.search("external", "קו בניין צדדי", limit=3).hits
        assert hits and hits[0]["doc_id"] == "ruling-1"
        with after.store.connection() as conn:
            indexes = conn.execute(
                "SELECT count(*) AS n FROM pg_indexes WHERE indexname LIKE %s",
                ("case_law_chunks_external_area_%",),
            ).fetchone()["n"]
        assert indexes >= 1
    finally:
        after.store.close()


def test_restore_refuses_what_is_not_a_backup_and_fails_in_one_line(own_db, cli_env, tmp_path):
    url, _ = own_db
    not_a_backup = write(tmp_path / "notes.txt", "not a dump")
    done = cli(cli_env, url, "restore", str(not_a_backup), "--force")
    assert done.returncode == 2
    assert done.stderr.startswith("error: notes.txt is not a backup made by `legal-ai db backup`")
    missing = cli(cli_env, url, "restore", str(tmp_path / "absent.backup"))
    assert missing.returncode == 3 and "no such backup file" in missing.stderr

    # Nothing listens on port 1: one line, without the password, the login or the URL.
    secret = "postgresql://someone:s3cr3t-pw@127.0.0.1:1/legal_ai"
    failed = cli(cli_env, secret, "backup", str(tmp_path / "x.backup"))
    assert failed.returncode == 4
    line = failed.stderr.strip()
    assert len(line.splitlines()) == 1 and line.startswith("error: backup failed")
    assert "s3cr3t" not in line and "someone" not in line and "127.0.0.1" not in line
    assert not (tmp_path / "x.backup").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]  # no partial file left
