"""The database's administration (`legal-ai db`): its URL, the migrations and what a dry run of
them would do, the roles' grants, the practice areas' own indexes, the embedded server's stop,
and a whole backup or restore (store/migrations.py, store/server.py, store/backup.py; the proof
of a backup is ops/backups.py). Each takes the settings and finds the server from them."""

from __future__ import annotations

from pathlib import Path

from ..config import Settings
from ..learning.arrival import planned
from ..progress import QUIET, Progress
from ..store import backup as archive
from ..store import database_url, migrations, stop_embedded
from ..store.db import other_database


def url(settings: Settings, database: str | None = None) -> str:
    """The application database's URL, or that of another database `database` of the same
    server (NotFound naming it when there is none); starts the embedded server if needed."""
    return other_database(settings, database) if database else database_url(settings)


def migrate(settings: Settings) -> list[str]:
    """The pending migrations applied, each in its own transaction: their names."""
    return migrations.migrate(database_url(settings))


def grant_roles(settings: Settings) -> bool:
    """The roles' privileges granted again (idempotent); False when the roles do not exist."""
    return migrations.apply_role_grants(database_url(settings))


def dry_run(settings: Settings) -> list[str]:
    """What `migrate` would do, in lines, read without writing anything (nor creating the
    database): the schema's version, each pending migration with what it does, the one-off
    steps after them."""
    at_url = database_url(settings, create=False)
    todo = migrations.plan(at_url)
    versions = [m.version for m in todo]
    done = [m for m in migrations.available() if m.version not in versions]
    at = f"{done[-1].version:04d}_{done[-1].name}" if done else "no schema yet"
    if todo:
        lines = [
            f"the database is at {at}; `legal-ai db migrate` would apply {len(todo)}"
            " migration(s), each in its own transaction:"
        ]
        width = max(len(f"{m.version:04d}_{m.name}") for m in todo)
        for m in todo:
            name = f"{m.version:04d}_{m.name}"
            lines.append(f"  {name:<{width}}  {migrations.summary(m)}".rstrip())
    else:
        lines = [f"schema is up to date ({at}): no migration would run"]
    step = planned(at_url, versions)
    if step:
        lines.append(f"then, once: {step}")
    lines.append(
        "then, as every run does: the roles' privileges granted again (legal_ai_chair / "
        "legal_ai_agent / legal_ai_worker, where they exist)"
    )
    lines.append("dry run: nothing was changed")
    return lines


def area_indexes(settings: Settings) -> int:
    """Each practice area that needs its own search index given one: how many were made."""
    return migrations.practice_area_indexes(database_url(settings))


def stop(settings: Settings) -> bool:
    """The embedded server stopped: False when it was not running."""
    return stop_embedded(settings.pgdata)


def backup(settings: Settings, file: Path, *, force: bool, progress: Progress = QUIET) -> dict:
    """The whole database dumped into `file` with its manifest (store/backup.py)."""
    return archive.backup(database_url(settings), file, overwrite=force, progress=progress)


def restore(settings: Settings, file: Path, *, force: bool) -> dict:
    """The database replaced by the backup in `file`: all of it or, on any error, nothing."""
    return archive.restore(database_url(settings), file, force=force)
