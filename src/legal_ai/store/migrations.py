"""Plain, numbered SQL migrations (`migrations/NNNN_name.sql`), applied in order, each in its own
transaction, recorded in `schema_migrations`. A merged migration is never edited: change the
schema with a new file. Concurrent migrators serialise on an advisory lock.

Both ask first whether the server has pgvector (store/extension.py): without it, one line naming
what to install, before any migration runs or is listed.

A process that may not migrate (the MCP server, which runs with an agent-only login) calls
`check` instead: it only reads `schema_migrations` and refuses, in one line naming what to run,
a database with migrations pending.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from typing import Any

import psycopg

from ..errors import StoreError
from .extension import require_pgvector
from .rows import one

_MIGRATION_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
_LOCK_KEY = 0x1E6A1A1  # advisory lock id for migrations


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def available() -> list[Migration]:
    """The migrations shipped with the package, in version order."""
    found = []
    for entry in resources.files(__package__).joinpath("migrations").iterdir():
        match = _MIGRATION_NAME.match(entry.name)
        if match:
            found.append(Migration(int(match[1]), match[2], entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if len(set(versions)) != len(versions):
        raise RuntimeError(f"duplicate migration versions: {versions}")
    return found


def applied(conn: psycopg.Connection) -> set[int]:
    # Created only when missing: a login without CREATE on the schema (an agent's) may still
    # open a migrated database.
    if one(conn.execute("SELECT to_regclass('schema_migrations') IS NULL"))[0]:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version integer PRIMARY KEY, name text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
    return {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}


def pending(url: str) -> list[str]:
    """The shipped migrations the database at `url` has not applied, read without writing
    anything (no table created, no lock taken): names like `0027_worker_role`. A database
    without `schema_migrations` has every migration pending."""
    return [f"{m.version:04d}_{m.name}" for m in _unapplied(url, creating=False)]


def plan(url: str) -> list[Migration]:
    """What `migrate(url)` would apply, in order, read without writing anything (`legal-ai db
    migrate --dry-run`); a database it cannot reach is a StoreError saying why."""
    try:
        return _unapplied(url, creating=True)
    except psycopg.OperationalError as exc:
        reason = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
        raise StoreError(f"cannot read the database's migrations: {reason}") from None


def _unapplied(url: str, *, creating: bool) -> list[Migration]:
    """`creating`: the login reading is the one that would migrate (plan), not a checker."""
    with psycopg.connect(url, autocommit=True) as conn:
        require_pgvector(conn, creating=creating)  # a server without it: one line
        return _unapplied_on(conn)


def pending_on(conn: psycopg.Connection[Any]) -> list[str]:
    """`pending`, read on a connection the caller holds (/readyz: a pooled one)."""
    return [f"{m.version:04d}_{m.name}" for m in _unapplied_on(conn)]


def _unapplied_on(conn: psycopg.Connection[Any]) -> list[Migration]:
    if _first(conn.execute("SELECT to_regclass('schema_migrations') IS NULL").fetchone()):
        have: set[int] = set()
    else:
        have = {_first(row) for row in conn.execute("SELECT version FROM schema_migrations")}
    return [m for m in available() if m.version not in have]


def _first(row: Any) -> Any:
    """The first column of a row, a tuple's or a dict_row's (the pool's connections)."""
    return next(iter(row.values())) if isinstance(row, dict) else row[0]


def summary(migration: Migration, width: int = 90) -> str:
    """What a migration does: the first sentence of its opening comment (`-- 0010_name: ...`),
    without the name, cut to `width` characters."""
    said = []
    for line in migration.sql.lstrip().splitlines():
        if not line.startswith("--") or not line[2:].strip():
            break
        said.append(line[2:].strip())
    text = re.sub(rf"^{migration.version:04d}(_{migration.name})?:\s*", "", " ".join(said))
    end = text.find(". ")
    text = text[: end + 1] if end >= 0 else text
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def check(url: str) -> None:
    """Refuse (StoreError, one line) a database with migrations pending; apply nothing."""
    try:
        missing = pending(url)
    except psycopg.errors.InsufficientPrivilege:
        raise StoreError(
            "this login may not read the database's schema_migrations: grant it a legal-ai "
            "role (legal_ai_agent), or run `legal-ai db migrate` with the application's login "
            "to grant the roles their privileges"
        ) from None
    if missing:
        shown = ", ".join(missing[:3]) + (
            f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        )
        raise StoreError(
            f"the database needs {len(missing)} migration(s) ({shown}), which this process does "
            "not apply: run `legal-ai db migrate` with the application's login (legal_ai_app), "
            "then start it again"
        )


ALLOWLIST = 33  # the migration whose apply_role_grants is an allowlist


def migrate(url: str, *, until: int | None = None) -> list[str]:
    """Apply pending migrations to the database at `url` (those up to version `until` only,
    when given: an upgrade test builds a database as an earlier release left it); return the
    names applied."""
    done: list[str] = []
    with psycopg.connect(url, autocommit=True) as conn:
        require_pgvector(conn)
        conn.execute("SELECT pg_advisory_lock(%s)", (_LOCK_KEY,))
        try:
            have = applied(conn)
            newest = max(have, default=0)
            for migration in available():
                if migration.version in have or (until is not None and migration.version > until):
                    continue
                with conn.transaction():
                    try:
                        conn.execute(migration.sql.encode())
                    except psycopg.errors.InsufficientPrivilege:
                        raise StoreError(
                            f"the database needs migration {migration.version:04d}_"
                            f"{migration.name}, which this login may not apply; run `legal-ai db "
                            "migrate` as the database's owner"
                        ) from None
                    conn.execute(
                        "INSERT INTO schema_migrations (version, name) VALUES (%s, %s)",
                        (migration.version, migration.name),
                    )
                done.append(f"{migration.version:04d}_{migration.name}")
                newest = max(newest, migration.version)
            if done and newest >= ALLOWLIST:
                # Every new function's search_path pinned, and the roles' privileges from the
                # one list (0033) over what the migrations just made: a new table is readable
                # and written by no role the list does not name.
                conn.execute("SELECT pin_search_paths()")
                conn.execute("SELECT apply_role_grants()")
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_LOCK_KEY,))
    return done


def practice_area_indexes(url: str) -> int:
    """Make the partial HNSW index of every practice area that has none (migration 0052:
    `practice_area_indexes()`, the areas holding at most half of a chunk partition); the
    database's owner only. Returns how many it made."""
    with psycopg.connect(url, autocommit=True) as conn:
        try:
            return int(one(conn.execute("SELECT practice_area_indexes()"))[0])
        except psycopg.errors.InsufficientPrivilege as error:
            raise StoreError(
                "only the database's owner can make indexes: run it with the URL"
                " `legal-ai db migrate` uses"
            ) from error


def apply_role_grants(url: str) -> bool:
    """Grant the legal-ai roles their privileges again (idempotent): for a server whose roles a
    superuser created after the migrations ran. False when the roles do not exist."""
    with psycopg.connect(url, autocommit=True) as conn:
        return bool(one(conn.execute("SELECT apply_role_grants()"))[0])
