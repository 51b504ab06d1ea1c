"""What a backup says about itself: the manifest written beside each archive (`FILE.json`) with
the archive's size and SHA-256 and every table's row count as pg_dump saw it (counted in the
snapshot pg_dump dumps: store/backup.py), and the reading of an archive's first bytes.

A restore proof (store/backup_check.py) counts the restored tables against the manifest; the
size and digest tell a truncated or altered archive before anything is restored."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
from pathlib import Path

import psycopg
from psycopg import sql

from ..errors import InvalidInput
from .rows import one

ARCHIVE_MAGIC = b"PGDMP"  # the first bytes of every pg_dump custom-format archive
MANIFEST_FORMAT = "legal-ai backup manifest"
MANIFEST_VERSION = 1


def manifest_path(archive: Path) -> Path:
    """`NAME.backup` -> `NAME.backup.json`, beside it."""
    return archive.with_name(archive.name + ".json")


def is_archive(path: Path) -> bool:
    """Whether `path` is a file beginning as a pg_dump custom-format archive does."""
    try:
        with path.open("rb") as f:
            return f.read(len(ARCHIVE_MAGIC)) == ARCHIVE_MAGIC
    except OSError:
        return False


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def row_counts(conn: psycopg.Connection) -> dict[str, int]:
    """Rows of every table the dump holds (user tables and partitions; extensions' own tables
    left out), by name (`schema.name` outside the public schema), read in `conn`'s snapshot;
    `conn` returns tuples (store/pg_programs.connect)."""
    tables = conn.execute(
        "SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema')"
        " AND n.nspname NOT LIKE 'pg\\_toast%%' AND n.nspname NOT LIKE 'pg\\_temp%%'"
        " AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass"
        "   AND d.objid = c.oid AND d.deptype = 'e')"
        " ORDER BY 1, 2"
    ).fetchall()
    counts = {}
    for schema, name in tables:
        query = sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(schema, name))
        key = name if schema == "public" else f"{schema}.{name}"
        counts[key] = int(one(conn.execute(query))[0])
    return counts


def schema_version(conn: psycopg.Connection) -> int | None:
    """The newest migration applied (None: no schema_migrations)."""
    if one(conn.execute("SELECT to_regclass('schema_migrations') IS NULL"))[0]:
        return None
    return one(conn.execute("SELECT max(version) FROM schema_migrations"))[0]


def write_manifest(path: Path, archive: Path, name: str, values: dict) -> None:
    """The manifest of `archive` (read for its size and digest; `name` is the archive's final
    name) written to `path`, flushed to disk. OSError (a full disk) is the caller's."""
    manifest = {
        "format": MANIFEST_FORMAT,
        "version": MANIFEST_VERSION,
        "archive": name,
        "bytes": archive.stat().st_size,
        "sha256": sha256_of(archive),
        **values,
    }
    with path.open("w", encoding="utf-8") as f:
        json.dump(manifest, f, ensure_ascii=False, indent=1, sort_keys=True)
        f.flush()
        os.fsync(f.fileno())


def manifest_values(
    database: str, counts: dict[str, int], version: int | None, at: dt.datetime
) -> dict:
    return {
        "database": database,
        "taken_at": at.astimezone(dt.UTC).isoformat(timespec="seconds"),
        "schema_version": version,
        "tables": counts,
        "rows": sum(counts.values()),
    }


def read_manifest(archive: Path) -> dict | None:
    """The manifest beside `archive`, checked against it: None when there is none; InvalidInput
    (one line) when it is unreadable or the archive is not the one it describes."""
    path = manifest_path(archive)
    if not path.exists():
        return None
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        raise InvalidInput(f"{path.name}: the manifest beside the backup cannot be read") from None
    if not isinstance(manifest, dict) or manifest.get("format") != MANIFEST_FORMAT:
        raise InvalidInput(f"{path.name} is not a legal-ai backup manifest")
    tables = manifest.get("tables")
    if not isinstance(tables, dict) or not all(isinstance(v, int) for v in tables.values()):
        raise InvalidInput(f"{path.name}: the manifest holds no row counts")
    size = archive.stat().st_size
    if size != manifest.get("bytes"):
        raise InvalidInput(
            f"{archive.name} is {size} bytes where its manifest says {manifest.get('bytes')}: "
            "the archive was truncated or altered after it was written"
        )
    if sha256_of(archive) != manifest.get("sha256"):
        raise InvalidInput(
            f"{archive.name} does not match the SHA-256 of its manifest: the archive was altered "
            "or damaged after it was written"
        )
    return manifest
