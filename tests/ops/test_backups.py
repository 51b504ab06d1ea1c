"""Backups on a schedule, each proven (issue 24 item 2): the job `nightly-backup` runs at its slot
in the scheduler's controlled clock, writes an archive and its manifest into LEGAL_AI_BACKUP_DIR,
restores it into a scratch database (rows counted against the manifest, health run, the scratch
dropped) and keeps the newest LEGAL_AI_BACKUP_KEEP of its own archives, never another file.
`legal-ai db restore --check FILE` proves a file by hand, a line per step. Bad input: a backup
folder that is a file, under a file, read-only or full (a real tmpfs: read-only, or too small
for a second archive); a corrupt file given to the proof (random bytes, truncated with and
without its manifest, a valid archive of another database): each a one-line error, nothing left
behind (no scratch database, no partial file), the previous backups kept, the job failed with
its reason in `jobs list`, health and the desk's system page (red)."""

from __future__ import annotations

import contextlib
import datetime as dt
import importlib.util
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import psycopg
import pytest
from psycopg import conninfo

from helpers import PROOF_STEPS, TEST_DB, TEST_HOME, run, text_of, write
from legal_ai.app import App
from legal_ai.ops import backups
from legal_ai.ops import scheduler as schedule
from legal_ai.ops.health import report as health_report
from legal_ai.ops.job_runs import Job
from legal_ai.store import drop_database, ensure_database, start_embedded, stop_embedded
from legal_ai.store.backup import backup
from legal_ai.store.backup_manifest import manifest_path, row_counts
from legal_ai.store.db import with_database
from legal_ai.store.scratch_server import PREFIX as SCRATCH_PREFIX
from scenarios import ingest, local

pytestmark = pytest.mark.db


def _hebrew_checker():
    """tests/desk/test_desk_hebrew.problems: the desk's Hebrew-only checker (tests/desk is not
    on the path of a test outside it)."""
    path = Path(__file__).parents[1] / "desk" / "test_desk_hebrew.py"
    spec = importlib.util.spec_from_file_location("desk_hebrew_checker", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.problems


problems = _hebrew_checker()
JOB = schedule.find("nightly-backup")
RULING = "פסק דין בעניין הקלה בקו בניין. סטייה ניכרת מתוכנית אינה הקלה, ולכן הערר נדחה."
NIGHT = local(2026, 5, 3, 3, 0)  # the job's first slot after Saturday noon, 2 May


def with_settings(app: App, **update) -> App:
    """The same database and embedder under other settings."""
    return App(
        app.settings.model_copy(update=update), store=app.store, embedder=app._inner_embedder
    )


def scratch_left() -> list[str]:
    """Scratch servers' folders of proofs still in the temporary folder (a proof runs on a
    server of its own there: store/scratch_server.py)."""
    return sorted(p.name for p in Path(tempfile.gettempdir()).glob(f"{SCRATCH_PREFIX}*"))


def live_counts(app: App) -> dict[str, int]:
    with psycopg.connect(app.store.url) as conn:
        return row_counts(conn)


def cli(env: dict, *args: str, **extra: str) -> subprocess.CompletedProcess:
    """`legal-ai ARGS` in this process (helpers.run) with `extra` settings; any exit code."""
    return run({**env, **extra}, *args, check=False)


def run_at(app: App, now: dt.datetime) -> dict:
    [report] = schedule.run_due(app, now=now, jobs=[JOB])
    return report


@contextlib.contextmanager
def tmpfs(path: Path, size: int):
    """A real tmpfs of `size` bytes mounted at `path` (root only: skipped otherwise)."""
    if os.geteuid() != 0:
        pytest.skip("a full or read-only folder is a tmpfs mount here, which needs root")
    path.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {done.stderr.decode().strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", str(path)], check=True)


def remount_read_only(path: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(path)], check=True)


# -- on schedule ----------------------------------------------------------------------------------


def test_the_nightly_backup_runs_on_schedule_proves_and_keeps_the_newest(app, tmp_path):
    ingest(app, tmp_path, "ruling-1", RULING)
    folder = tmp_path / "backups"
    folder.mkdir()
    legal = with_settings(app, backup_dir=folder, backup_keep=2)
    # What is not ours is never deleted: a note, a manual backup, a file named like ours
    # that is not an archive.
    write(folder / "notes.txt", "הערות")
    backup(app.store.url, folder / "manual.backup")
    write(folder / "legal-ai-20200101T000000Z.backup", "not an archive")
    foreign = sorted(p.name for p in folder.iterdir())

    assert schedule.run_due(legal, now=local(2026, 5, 2, 12), jobs=[JOB]) == []  # first sight
    listed = {j["name"]: j for j in schedule.list_jobs(legal, now=local(2026, 5, 2, 12))["jobs"]}
    assert listed["nightly-backup"]["next_run_at"] == "2026-05-03T03:00:00+03:00"
    assert listed["nightly-backup"]["cron"] == "0 3 * * *"

    report = run_at(legal, NIGHT)
    assert report["outcome"] == "ok" and report["trigger"] == "schedule", report
    result = report["result"]
    name = "legal-ai-20260503T000000Z.backup"  # 03:00 in Jerusalem, in UTC
    assert result["backup"]["file"] == name and result["kept"] == [name]
    manifest = json.loads(manifest_path(folder / name).read_text(encoding="utf-8"))
    # The source's rows when the backup was taken: only the run's own record came after.
    assert manifest["tables"] == live_counts(app) | {"schedule_runs": 0}
    assert manifest["tables"]["case_law"] == 1 and manifest["rows"] == result["backup"]["rows"]
    proof = result["proof"]
    assert proof["rows"] == manifest["rows"] and proof["tables"] == len(manifest["tables"])
    assert proof["health"]["isolation_checked"] > 0 and proof["health"]["isolation_leaks"] == 0
    assert proof["health"]["unsearchable"] == 0
    assert "proven: restored, rows as at backup, health clean" in result["summary"]
    assert scratch_left() == []

    # Three more nights with two kept: the oldest two of ours go, with their manifests.
    for day in (4, 5, 6):
        assert run_at(legal, local(2026, 5, day, 3, 0))["outcome"] == "ok"
    newest = ["legal-ai-20260505T000000Z.backup", "legal-ai-20260506T000000Z.backup"]
    assert [p.name for p in backups.ours(folder)] == newest
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        foreign + newest + [n + ".json" for n in newest]
    )
    [last] = schedule.runs(legal, "nightly-backup", limit=1)["runs"]
    assert last["result"]["deleted"] == ["legal-ai-20260504T000000Z.backup"]

    found = health_report(legal)["backup"]
    assert found["last_run"]["outcome"] == "ok"
    assert found["last_proven"]["file"] == newest[-1]
    assert found["last_proven"]["at"].utcoffset() == dt.timedelta(hours=3)  # Jerusalem time
    assert backups.health_line(found).startswith("backup: nightly-backup ok at 2026-05-06 03:00")


def test_without_a_backup_folder_the_job_is_skipped(app):
    report = schedule.run_now(app, "nightly-backup", now=NIGHT)
    assert report["outcome"] == "skipped"
    assert report["result"]["skipped"] == "LEGAL_AI_BACKUP_DIR is not set: no scheduled backup"


# -- by hand --------------------------------------------------------------------------------------


def test_restore_check_proves_a_backup_by_hand(app, tmp_path, cli_env):
    ingest(app, tmp_path, "ruling-1", RULING)
    made = cli(cli_env, "db", "backup", str(tmp_path / "state.backup"))
    assert made.returncode == 0, made.stderr
    assert manifest_path(tmp_path / "state.backup").is_file()
    before = live_counts(app)
    # A scratch folder a killed proof left behind (its process gone): the next proof deletes it.
    with subprocess.Popen(["true"]) as gone:
        pass
    killed = Path(tempfile.mkdtemp(prefix=SCRATCH_PREFIX))
    (killed / "owner").write_text(str(gone.pid), encoding="utf-8")
    assert scratch_left() == [killed.name]
    done = cli(cli_env, "db", "restore", "--check", str(tmp_path / "state.backup"))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == PROOF_STEPS
    assert "size and SHA-256 match" in lines[1]
    assert "each as migrations up to" in lines[2]
    assert f"{sum(before.values())} rows, each as counted at backup time" in lines[4]
    assert ", 0 leaks" in lines[5]
    assert live_counts(app) == before  # the live database untouched
    assert scratch_left() == []
    # --json: the steps and figures
    done = cli(cli_env, "db", "restore", "--check", "--json", str(tmp_path / "state.backup"))
    proof = json.loads(done.stdout)
    assert proof["rows"] == sum(before.values()) and proof["manifest"] is True
    assert len(proof["steps"]) == 7


@pytest.fixture
def other_archive(server_url, tmp_path) -> Path:
    """A valid archive of another database (a table of its own, no legal-ai schema)."""
    name = f"{TEST_DB}_other"
    drop_database(server_url, name)
    url = ensure_database(server_url, name)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE invoices (id int PRIMARY KEY, total numeric)")
        conn.execute("INSERT INTO invoices VALUES (1, 100), (2, 250)")
    try:
        backup(url, tmp_path / "other.backup")
    finally:
        drop_database(server_url, name)
    return tmp_path / "other.backup"


def test_restore_check_refuses_a_corrupt_file_in_one_line(app, tmp_path, cli_env, other_archive):
    good = tmp_path / "good.backup"
    backup(app.store.url, good)
    data = good.read_bytes()
    write(tmp_path / "random.backup", "")
    (tmp_path / "random.backup").write_bytes(os.urandom(4096))
    # Cut inside its table of contents (which comes first; half of a large archive may hold it
    # whole), no manifest beside it.
    (tmp_path / "cut.backup").write_bytes(data[:1024])
    (tmp_path / "cut-end.backup").write_bytes(data[:-200])  # its table of contents readable
    (tmp_path / "cut-end.backup.json").write_text(
        manifest_path(good).read_text(encoding="utf-8"), encoding="utf-8"
    )
    # Without a manifest, cut by 2,000 bytes: its table of contents whole, the data of the last
    # tables, schema_migrations among them, cut (200 bytes no longer reach it: the tables that
    # sort after it grew in number).
    (tmp_path / "cut-tail.backup").write_bytes(data[:-2000])
    before = sorted((p.name, p.stat().st_size) for p in tmp_path.iterdir())
    expected = {
        "random.backup": "random.backup is not a backup: it does not begin as a pg_dump "
        "custom-format archive does (PGDMP)",
        "cut.backup": "cut.backup is a damaged or incomplete backup: its table of contents "
        "cannot be read",
        "cut-end.backup": f"cut-end.backup is {len(data) - 200} bytes where its manifest says "
        f"{len(data)}: the archive was truncated or altered after it was written",
        # its record of migrations (read before anything is restored) is in the cut-off tail
        "cut-tail.backup": "cut-tail.backup is a damaged or incomplete backup: its contents "
        "cannot be read (",  # then pg_restore's own words
        "other.backup": "other.backup is a PostgreSQL backup of another database, not of "
        "legal-ai's (it holds no schema_migrations table)",
    }
    for name, said in expected.items():
        done = cli(cli_env, "db", "restore", "--check", str(tmp_path / name))
        assert done.returncode != 0, name
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert done.stderr.startswith(f"error: {said}"), done.stderr
        assert str(tmp_path) not in done.stderr and "postgresql://" not in done.stderr
        assert "proven" not in done.stdout
    assert scratch_left() == []  # nothing created left behind
    assert sorted((p.name, p.stat().st_size) for p in tmp_path.iterdir()) == before
    # A plain restore refuses another database's archive too, before touching anything.
    refused = cli(cli_env, "db", "restore", "--force", str(other_archive))
    assert refused.returncode == 2 and "of another database" in refused.stderr


# -- a folder that cannot take a backup -----------------------------------------------------------


def failed_everywhere(legal: App, client_chair, cli_env, reason: str) -> None:
    """The job's failure with `reason` in `jobs list`, health and the desk's system page."""
    listed = cli(cli_env, "jobs", "list")
    [line] = [ln for ln in listed.stdout.splitlines() if ln.startswith("nightly-backup")]
    assert "last: failed at" in line and reason in line, line
    found = health_report(legal)["backup"]
    assert found["last_run"]["outcome"] == "failed" and reason in found["last_run"]["error"]
    assert "FAILED" in backups.health_line(found)
    health = cli(cli_env, "health")
    assert "backup: nightly-backup FAILED at" in health.stdout and reason in health.stdout
    page = client_chair.get("/system")
    assert page.status_code == 200 and problems(page.text) == []
    assert '<b class="field-error">הגיבוי האחרון נכשל' in page.text


def test_a_backup_folder_that_is_a_file_or_under_one(app, tmp_path, chair, cli_env):
    a_file = write(tmp_path / "backups", "a file, not a folder")
    for folder, what in ((a_file, "is not a folder"), (a_file / "sub", "does not exist")):
        report = schedule.run_now(
            with_settings(app, backup_dir=folder), "nightly-backup", now=NIGHT
        )
        assert report["outcome"] == "failed"
        assert report["error"] == f"the backup folder (LEGAL_AI_BACKUP_DIR) {what}; create it"
        assert report["result"]["step"] == "backup"
    failed_everywhere(app, chair, cli_env, "does not exist; create it")
    assert a_file.read_text(encoding="utf-8") == "a file, not a folder"


def test_a_read_only_backup_folder_keeps_the_backups_and_fails_the_job(
    app, tmp_path, chair, cli_env
):
    with tmpfs(tmp_path / "backups", 64 * 1024 * 1024) as folder:
        legal = with_settings(app, backup_dir=folder)
        schedule.run_due(legal, now=local(2026, 5, 2, 12), jobs=[JOB])
        assert run_at(legal, NIGHT)["outcome"] == "ok"
        kept = sorted((p.name, p.stat().st_size) for p in folder.iterdir())
        remount_read_only(folder)
        report = run_at(legal, local(2026, 5, 4, 3, 0))
        assert report["outcome"] == "failed"
        reason = "backup failed: cannot write in the backup folder: Read-only file system"
        assert report["error"] == reason
        assert sorted((p.name, p.stat().st_size) for p in folder.iterdir()) == kept
        assert utc(report["next_run_at"]) == utc(local(2026, 5, 4, 3, 5))  # retried in 5 min
        failed_everywhere(legal, chair, cli_env, reason)
        page = text_of(chair.get("/system").text)
        assert "הגיבוי האחרון שנבדק ושוחזר בהצלחה: 3.5.2026 03:00" in page


def utc(value: str | dt.datetime) -> dt.datetime:
    value = dt.datetime.fromisoformat(value) if isinstance(value, str) else value
    return value.astimezone(dt.UTC)


def test_a_full_backup_folder_keeps_the_backups_and_fails_the_job(app, tmp_path, chair, cli_env):
    ingest(app, tmp_path, "ruling-1", RULING)
    size = backup(app.store.url, tmp_path / "probe.backup")["bytes"]
    room = (size + 64 * 1024) // 4096 * 4096 + 4096  # one archive and its manifest, not two
    with tmpfs(tmp_path / "backups", room) as folder:
        legal = with_settings(app, backup_dir=folder)
        schedule.run_due(legal, now=local(2026, 5, 2, 12), jobs=[JOB])
        assert run_at(legal, NIGHT)["outcome"] == "ok"
        kept = sorted((p.name, p.stat().st_size) for p in folder.iterdir())
        report = run_at(legal, local(2026, 5, 4, 3, 0))
        assert report["outcome"] == "failed"
        # pg_dump's own write failed (ENOSPC): its partial file removed
        assert (
            report["error"]
            == "backup failed: could not write to output file: No space left on device"
        )
        assert sorted((p.name, p.stat().st_size) for p in folder.iterdir()) == kept
        failed_everywhere(legal, chair, cli_env, "No space left on device")
        # By hand: one line, exit 4, no partial file.
        done = cli(cli_env, "db", "backup", str(folder / "manual.backup"))
        assert done.returncode == 4 and len(done.stderr.strip().splitlines()) == 1
        assert "No space left on device" in done.stderr
        assert sorted((p.name, p.stat().st_size) for p in folder.iterdir()) == kept


@pytest.fixture
def no_createdb(app, tmp_path):
    """An App on a private embedded cluster whose application login owns its database but may
    not create databases (NOCREATEDB), nor is a superuser: a proof needs neither (it runs on a
    scratch server of its own). The shared test server's roles are never touched."""
    pgdata = TEST_HOME / f"backups-{TEST_DB}" / "pgdata"
    shutil.rmtree(pgdata.parent, ignore_errors=True)
    root = start_embedded(pgdata)
    legal = None
    try:
        with psycopg.connect(root, autocommit=True) as conn:
            conn.execute("CREATE ROLE backup_app LOGIN NOCREATEDB NOSUPERUSER NOCREATEROLE")
            conn.execute("CREATE DATABASE legal_ai OWNER backup_app")
        with psycopg.connect(with_database(root, "legal_ai"), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION vector")  # pgvector is the superuser's to create
        params = conninfo.conninfo_to_dict(with_database(root, "legal_ai"))
        url = conninfo.make_conninfo(**{**params, "user": "backup_app"})
        folder = tmp_path / "backups"
        folder.mkdir()
        settings = app.settings.model_copy(
            update={"database_url": url, "backup_dir": folder, "backup_keep": 1}
        )
        legal = App(settings, embedder=app._inner_embedder)
        yield legal, folder
    finally:
        if legal is not None:
            legal.close()
        stop_embedded(pgdata)
        shutil.rmtree(pgdata.parent, ignore_errors=True)


def test_a_failed_proof_keeps_the_backups_and_fails_the_job(app, no_createdb, chair):
    """The proof fails on a real fault of the deployment: someone added a function of their own
    to the live database (as its owner), so the archive holds an object the migrations do not
    make and the proof refuses it before restoring anything. The archive just written and the
    older one stay (keep=1 would have deleted the older after a proof), the job fails with the
    step and the reason, and the desk's system page says the backup was written but its
    restore failed. The application's login has neither CREATEDB nor superuser: the proof of
    the older archive, on a scratch server of its own, needed neither."""
    legal, folder = no_createdb
    older = folder / "legal-ai-20260501T000000Z.backup"
    backup(legal.store.url, older)
    assert backups.prove(legal, older)["rows"] >= 0
    assert scratch_left() == []
    with psycopg.connect(legal.store.url, autocommit=True) as conn:
        conn.execute(
            "CREATE FUNCTION public.cleanup_notes() RETURNS void LANGUAGE sql AS $$ SELECT $$"
        )
    report = schedule.run_now(legal, "nightly-backup", now=NIGHT)
    assert report["outcome"] == "failed" and report["result"]["step"] == "proof"
    assert report["error"] == (
        "proof of legal-ai-20260503T000000Z.backup failed: legal-ai-20260503T000000Z.backup "
        "holds FUNCTION public.cleanup_notes(), which the migrations do not make: refused, "
        "nothing restored (a legal-ai backup holds only its migrations' schema and data)"
    )
    assert scratch_left() == []
    assert [p.name for p in backups.ours(folder)] == [
        older.name,
        "legal-ai-20260503T000000Z.backup",
    ]
    found = health_report(legal)["backup"]
    assert found["last_run"]["step"] == "proof" and found["last_proven"] is None
    assert "FAILED" in backups.health_line(found)
    assert "no backup proven yet" in backups.health_line(found)
    # The same run's result, recorded in the desk's database through the scheduler's own
    # bookkeeping (a job is any function returning its result: ops/job_runs.Job).
    replay = Job(JOB.name, JOB.cron, JOB.about, lambda a, now: report["result"])
    assert schedule.run_now(app, JOB.name, now=NIGHT, jobs=[replay])["outcome"] == "failed"
    page = chair.get("/system")
    assert page.status_code == 200 and problems(page.text) == []
    assert '<b class="field-error">הגיבוי נכתב אך שחזורו לבדיקה נכשל' in page.text
    assert "טרם נלקח גיבוי שנבדק" in text_of(page.text)
