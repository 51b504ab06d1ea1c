"""pgvector on the database server, asked before anything touches the schema: a server that
does not offer it (Debian's own PostgreSQL packages, say) is one line naming the package to
install, never migration 0001's traceback. `migrations.migrate`, `migrations.plan` (`db migrate
--dry-run`) and `migrations.check` (the MCP server) ask `require_pgvector` on their connection;
the doctor words its error line with `missing_pgvector`.
"""

from __future__ import annotations

import psycopg

from ..errors import StoreError
from .rows import one

GUIDE = 'docs/deployment.md, "PostgreSQL from the PostgreSQL project"'


def missing_pgvector(facts: dict, *, creating: bool = True) -> tuple[str, str] | None:
    """What is missing and what to do, or None when pgvector is there (created in this
    database, or offered by the server to a login that may create it). `facts`: "major" (the
    server's major version), "database", "login", "superuser", "created", "offered".
    `creating`: the login would run migration 0001 itself (migrate, `db migrate --dry-run`, the
    doctor judging the application's login); a process that only checks (the MCP server's
    agent login) is told what is pending instead."""
    if facts["created"]:
        return None
    if not facts["offered"]:
        major = facts["major"]
        return (
            f"the database server (PostgreSQL {major}) has no pgvector, which legal-ai needs",
            f"install the package postgresql-{major}-pgvector on it (Debian/Ubuntu: from the "
            f"PostgreSQL project's apt repository, apt.postgresql.org; {GUIDE}), then run the "
            "command again",
        )
    if creating and not facts["superuser"]:
        return (
            f"pgvector is not created in database {facts['database']} and login "
            f"{facts['login']} may not create it (only a superuser may)",
            "as a superuser: CREATE EXTENSION vector in template1 and in this database "
            '(docs/deployment.md, "Roles and logins"), then run the command again',
        )
    return None  # a superuser's migration 0001 creates it


def facts(conn: psycopg.Connection) -> dict:
    """What `missing_pgvector` judges, read from the server (pg_available_extensions only when
    the extension is not created: it lists the server's extension folder)."""
    row = one(
        conn.execute(
            "SELECT current_setting('server_version_num')::int / 10000,"
            " current_database(), session_user,"
            " (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = session_user),"
            " EXISTS (SELECT FROM pg_catalog.pg_extension WHERE extname = 'vector')"
        )
    )
    offered = row[4] or bool(
        one(
            conn.execute(
                "SELECT EXISTS (SELECT FROM pg_catalog.pg_available_extensions"
                " WHERE name = 'vector')"
            )
        )[0]
    )
    keys = ("major", "database", "login", "superuser", "created")
    return {**dict(zip(keys, row, strict=True)), "offered": offered}


def require_pgvector(conn: psycopg.Connection, *, creating: bool = True) -> None:
    """StoreError (one line, exit code 4) when the database cannot have pgvector as it stands
    (`creating`: as missing_pgvector)."""
    missing = missing_pgvector(facts(conn), creating=creating)
    if missing is not None:
        raise StoreError(f"{missing[0]}: {missing[1]}")
