"""Plain, numbered SQL migrations (`migrations/NNNN_name.sql`), applied in order, each in its own
transaction, recorded in `schema_migrations`. A merged migration is never edited: change the
schema with a new file. Concurrent migrators serialise on an advisory lock.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

import psycopg

from ..errors import StoreError

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
    if conn.execute("SELECT to_regclass('schema_migrations') IS NULL").fetchone()[0]:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version integer PRIMARY KEY, name text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
    return {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}


def migrate(url: str) -> list[str]:
    """Apply pending migrations to the database at `url`; return the names applied."""
    done: list[str] = []
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (_LOCK_KEY,))
        try:
            have = applied(conn)
            for migration in available():
                if migration.version in have:
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
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_LOCK_KEY,))
    return done


def apply_role_grants(url: str) -> bool:
    """Grant the legal-ai roles their privileges again (idempotent): for a server whose roles a
    superuser created after the migrations ran. False when the roles do not exist."""
    with psycopg.connect(url, autocommit=True) as conn:
        return bool(conn.execute("SELECT apply_role_grants()").fetchone()[0])
