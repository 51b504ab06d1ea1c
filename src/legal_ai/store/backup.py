"""Backup and restore of the whole application database (`legal-ai db backup|restore FILE`).

A backup is one `pg_dump` archive in PostgreSQL's custom format: every table (items, chunks and
their embeddings, the embedding cache, the learning loop, audit and history), its schema, its
triggers and the roles' privileges. The binaries are the PostgreSQL 18 `pg_dump`/`pg_restore`
that the embedded package ships (they dump and restore older servers too); without them, the
ones on PATH (store/pg_programs.py). Beside each archive its manifest, `FILE.json`
(store/backup_manifest.py): every table's rows as dumped, counted in the snapshot pg_dump dumps,
and the archive's size and SHA-256 — what a restore proof (store/backup_check.py, `legal-ai db
restore --check`, the scheduled `nightly-backup`) checks the restored database against. An
archive of another database (no schema_migrations table) is refused, and so is one holding a
function, trigger, constraint or any schema object the migrations do not make
(store/archive_contents.py), before anything is restored.

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

import datetime as dt
import os
import re
import secrets
import tempfile
import time
from pathlib import Path

import psycopg
from psycopg import conninfo, sql

from ..errors import InvalidInput, NotFound, StoreError
from ..progress import QUIET, Progress
from . import archive_contents
from .archive_contents import TOC_LINE
from .backup_manifest import (
    is_archive,
    manifest_path,
    manifest_values,
    row_counts,
    schema_version,
    write_manifest,
)
from .pg_programs import MAINTENANCE_DATABASE, connect, one_line, run, run_watched, split
from .rows import one
from .scratch_server import scratch_server

# pg_dump --verbose, as a table's rows begin: `pg_dump: dumping contents of table "public.x"`
_DUMPING = re.compile(r'pg_dump: dumping contents of table "(?:public\.)?([^"]+)"')


def backup(url: str, file: Path, *, overwrite: bool = False, progress: Progress = QUIET) -> dict:
    """Dump the database of `url` into `file` (custom format) with its manifest beside it
    (`FILE.json`: every table's rows as dumped, the archive's size and SHA-256); both written
    whole or not at all. The rows are counted in the transaction whose snapshot pg_dump dumps
    (pg_export_snapshot), so they are the archive's own, whatever is written meanwhile.
    `progress` hears the tables dumped of all of them (pg_dump's `--verbose` steps)."""
    file = file.expanduser()
    if file.is_dir():
        raise InvalidInput(f"{file.name}: is a folder; name the backup file")
    if file.exists() and not overwrite:
        raise InvalidInput(f"{file.name} exists; choose another name or add --force to replace it")
    if not file.parent.is_dir():
        raise InvalidInput(f"{file.name}: its folder does not exist; create it first")
    partial = _partial(file)
    partial_manifest = _partial(manifest_path(file))
    try:
        values, tables = _dump(url, partial, progress)
        try:
            write_manifest(partial_manifest, partial, file.name, values)
        except OSError as exc:
            raise StoreError(f"backup failed: cannot write its manifest: {exc.strerror}") from None
        os.replace(partial, file)
        os.replace(partial_manifest, manifest_path(file))
    finally:
        partial.unlink(missing_ok=True)
        partial_manifest.unlink(missing_ok=True)
    return {
        "file": str(file),
        "bytes": file.stat().st_size,
        "tables": tables,
        "rows": values["rows"],
        "manifest": str(manifest_path(file)),
    }


def _partial(file: Path) -> Path:
    """An empty file beside `file` to write it into (`.NAME.*.partial`: never taken for it)."""
    try:
        fd, name = tempfile.mkstemp(prefix=f".{file.name}.", suffix=".partial", dir=file.parent)
    except OSError as exc:
        raise StoreError(
            f"backup failed: cannot write in the backup folder: {exc.strerror}"
        ) from None
    os.close(fd)
    return Path(name)


def _dump(url: str, partial: Path, progress: Progress) -> tuple[dict, int]:
    """pg_dump of `url` into `partial` in a snapshot whose rows are counted: (the manifest's
    values, the tables dumped)."""
    dsn, env = split(url)
    try:
        conn = psycopg.connect(url, autocommit=True, connect_timeout=15)
    except psycopg.OperationalError as exc:
        raise StoreError(f"backup failed: {one_line(str(exc))}") from None
    with conn:
        conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        with conn.transaction():
            snapshot = one(conn.execute("SELECT pg_export_snapshot()"))[0]
            counts = row_counts(conn)
            version = schema_version(conn)
            database = one(conn.execute("SELECT current_database()"))[0]
            at = dt.datetime.now(dt.UTC)
            progress.start("db backup", len(counts), "tables")
            dumped = 0

            def step(line: str) -> None:
                nonlocal dumped
                if found := _DUMPING.match(line):
                    progress.update(dumped, current=found[1])
                    dumped += 1

            done = run_watched(
                "pg_dump",
                [
                    "--format=custom",
                    "--no-password",
                    "--verbose",
                    f"--snapshot={snapshot}",
                    f"--file={partial}",
                    "-d",
                    dsn,
                ],
                env,
                step,
            )
            progress.update(dumped)
    if done.returncode != 0:
        raise StoreError(f"backup failed: {one_line(done.stderr)}")
    tables = sum(1 for _, desc, _ in _toc(partial, env, ours=False) if desc == "TABLE DATA")
    return manifest_values(database, counts, version, at), tables


def _toc(file: Path, env: dict[str, str], *, ours: bool = True) -> list[tuple[str, str, str]]:
    """The archive's table of contents as (line, description, rest of the line); refuses a file
    that is not a pg_dump custom-format archive, or (`ours`) the archive of a database that is
    not legal-ai's."""
    listed = run("pg_restore", ["--list", str(file)], env)
    if listed.returncode != 0:
        if is_archive(file):  # it begins as an archive does: cut short or damaged
            why = one_line(listed.stderr)
            raise InvalidInput(
                f"{file.name} is a damaged or incomplete backup: its table of contents cannot be "
                "read" + (f" ({why})" if why != "no message" else "")
            )
        raise InvalidInput(
            f"{file.name} is not a backup made by `legal-ai db backup` (a pg_dump custom-format "
            "archive); name the right file"
        )
    entries = []
    for line in listed.stdout.splitlines():
        match = TOC_LINE.match(line)
        if match:
            entries.append((line, match["desc"], match["rest"]))
    if ours and not any(
        desc == "TABLE" and rest.split()[1:2] == ["schema_migrations"] for _, desc, rest in entries
    ):
        raise InvalidInput(
            f"{file.name} is a PostgreSQL backup of another database, not of legal-ai's (it "
            "holds no schema_migrations table); name the right file"
        )
    return entries


def _tables_in(conn: psycopg.Connection) -> int:
    """User tables in the connected database (tables of extensions not counted)."""
    row = one(
        conn.execute(
            "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE c.relkind IN ('r', 'p')"
            " AND n.nspname NOT IN ('pg_catalog', 'information_schema')"
            " AND n.nspname NOT LIKE 'pg\\_toast%%'"
            " AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass"
            "   AND d.objid = c.oid AND d.deptype = 'e')"
        )
    )
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
    _, env = split(url)
    entries = _toc(file, env)
    target = conninfo.conninfo_to_dict(url).get("dbname")
    if not target:
        raise InvalidInput("the database URL names no database; add its name to the URL")
    target = str(target)
    # What the archive holds is compared with what the migrations make, on a scratch server of
    # its own, before anything on this server is touched (store/archive_contents.py).
    with scratch_server() as server:
        archive_contents.check(file, entries, server)

    with connect(url, MAINTENANCE_DATABASE) as admin:
        exists = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (target,)).fetchone()
        if exists:
            with connect(url) as conn:
                tables = _tables_in(conn)
            if tables and not force:
                raise InvalidInput(
                    f"database {target} already holds {tables} tables; add --force to replace "
                    "everything in it with the backup"
                )
        fresh = f"{target[:40]}_restore_{secrets.token_hex(4)}"
        create_database(admin, fresh)
        try:
            notes = fill(url, admin, fresh, file, entries)
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


def create_database(admin: psycopg.Connection, name: str) -> None:
    """A new, empty database `name` beside the target (`admin`: on the maintenance database)."""
    try:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    except psycopg.errors.InsufficientPrivilege:
        raise StoreError(
            "restore needs a login that may create databases (CREATEDB) and owns the "
            "target database; see docs/deployment.md"
        ) from None


def fill(
    url: str,
    admin: psycopg.Connection,
    dbname: str,
    file: Path,
    entries: list[tuple[str, str, str]],
) -> list[str]:
    """The archive `file` (its table of contents `entries`) restored in one transaction into
    the new, empty database `dbname` of `url`'s server; what the restore notes."""
    _, env = split(url)
    roles = {
        r[0]
        for r in admin.execute(
            "SELECT rolname FROM pg_roles WHERE rolname IN ('legal_ai_agent', 'legal_ai_chair')"
        )
    }
    extensions = [rest.split()[1] for _, desc, rest in entries if desc == "EXTENSION"]
    notes: list[str] = []
    _restore_into(url, dbname, file, entries, extensions, env, roles, notes)
    return notes


def _create_extensions(url: str, dbname: str, extensions: list[str]) -> None:
    """The backup's extensions, made in the new database first (refused: a superuser's)."""
    with connect(url, dbname) as conn:
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
    with connect(url, dbname) as conn:
        regrant = one(conn.execute("SELECT to_regproc('apply_role_grants')"))[0]
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
    with connect(url, dbname) as conn:
        login = one(conn.execute("SELECT current_user"))[0]
    # Default privileges belong to the login that set them (ALTER DEFAULT PRIVILEGES FOR ROLE
    # x): another login may not set them for x. Those of the login that made the backup are
    # left out when another login restores, and the roles' grants are applied again for this one.
    with tempfile.NamedTemporaryFile("w", suffix=".list", encoding="utf-8") as listing:
        foreign_defaults = _write_listing(listing, entries, skip, login)
        dsn, _ = split(url)
        params = conninfo.conninfo_to_dict(dsn)
        params["dbname"] = dbname
        done = run(
            "pg_restore",
            [
                "--no-owner",
                "--no-password",
                "--exit-on-error",
                "--single-transaction",
                f"--use-list={listing.name}",
                "-d",
                conninfo.make_conninfo("", **params),
                str(file),
            ],
            env,
        )
    if done.returncode != 0:
        raise StoreError(f"restore failed, nothing changed: {one_line(done.stderr)}")
    if foreign_defaults:
        _regrant(url, dbname, notes)
