"""The store's part of a restore proof (ops/backups.py: `legal-ai db restore --check FILE` and
the scheduled `nightly-backup`): the archive read without restoring it (its first bytes, its
manifest's size and SHA-256, pg_restore's table of contents, a legal-ai database's), then
restored into a scratch database beside the live one, its rows counted, and that database
dropped whatever happens. Nothing here touches the live database: the scratch database is new,
named `<database>_proof_<random>`, and exists only while the proof runs; one left behind by a
proof that was killed (no session on it) is dropped by the next proof.

Errors are one line naming what is wrong (InvalidInput: the file; StoreError: the server, the
restore, the counts), without connection details or paths."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
from psycopg import conninfo

from ..errors import InvalidInput, NotFound, StoreError
from .backup import _toc, create_database, fill
from .backup_manifest import ARCHIVE_MAGIC, is_archive, read_manifest, row_counts
from .db import drop_database, with_database
from .pg_programs import MAINTENANCE_DATABASE, connect, one_line

SCRATCH_MARK = "_proof_"


def inspect(file: Path) -> dict:
    """What `file` is, read without restoring it: {"file", "bytes", "tables" (TABLE DATA
    entries), "entries" (the table of contents), "manifest" (None: none beside it)}. Refuses, in
    one line, what is not a pg_dump custom-format archive, an archive that differs from its
    manifest (truncated, altered), and the archive of another database."""
    file = file.expanduser()
    if not file.is_file():
        raise NotFound(f"{file.name}: no such backup file")
    if not is_archive(file):
        raise InvalidInput(
            f"{file.name} is not a backup: it does not begin as a pg_dump custom-format archive "
            f"does ({ARCHIVE_MAGIC.decode()}); name a file made by `legal-ai db backup`"
        )
    manifest = read_manifest(file)
    entries = _toc(file, dict(os.environ))  # pg_restore --list reads the file only
    return {
        "file": str(file),
        "bytes": file.stat().st_size,
        "tables": sum(1 for _, desc, _ in entries if desc == "TABLE DATA"),
        "entries": entries,
        "manifest": manifest,
    }


@contextmanager
def scratch(url: str, file: Path, entries: list[tuple[str, str, str]]) -> Iterator[dict]:
    """`file` restored into a new database on the server of `url`: yields {"url", "database",
    "notes"}; the database is dropped on leaving, whatever happened (a failed restore too)."""
    target = str(conninfo.conninfo_to_dict(url).get("dbname") or "legal_ai")
    prefix = f"{target[:30]}{SCRATCH_MARK}"
    name = f"{prefix}{secrets.token_hex(4)}"
    with connect(url, MAINTENANCE_DATABASE) as admin:
        for left in leftovers(admin, prefix):
            _drop(url, left)
        create_database(admin, name)
        try:
            try:
                notes = fill(url, admin, name, file, entries)
            except StoreError as exc:
                reason = str(exc).removeprefix("restore failed, nothing changed: ")
                raise StoreError(f"{file.name} could not be restored: {reason}") from None
            yield {"url": with_database(url, name), "database": name, "notes": notes}
        finally:
            _drop(url, name)


def leftovers(admin: psycopg.Connection, prefix: str) -> list[str]:
    """Scratch databases of earlier proofs (`prefix` + 8 hex digits) that no session uses: left
    by a proof whose process was killed; one still in use is another proof's, running now."""
    rows = admin.execute(
        "SELECT d.datname FROM pg_database d WHERE starts_with(d.datname, %s)"
        " AND d.datname ~ '_proof_[0-9a-f]{8}$'"
        " AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.datname = d.datname)",
        (prefix,),
    ).fetchall()
    return [r[0] for r in rows]


def _drop(url: str, name: str) -> None:
    try:
        drop_database(url, name)
    except psycopg.Error as exc:
        raise StoreError(
            f"the scratch database {name} could not be dropped ({one_line(str(exc))}); drop it "
            "by hand: DROP DATABASE ... WITH (FORCE)"
        ) from None


def counts(url: str) -> dict[str, int]:
    """Every table's rows in the database of `url` (store/backup_manifest.row_counts)."""
    with connect(url) as conn:
        return row_counts(conn)


def compare(expected: dict[str, int], found: dict[str, int]) -> list[str]:
    """The tables whose rows differ from the manifest's, each as `table: N at backup, M
    restored` (a table absent on one side counts as missing there)."""
    differ = []
    for table in sorted(set(expected) | set(found)):
        if table not in found:
            differ.append(f"{table}: {expected[table]} at backup, table missing after restore")
        elif table not in expected:
            differ.append(f"{table}: not in the manifest, {found[table]} restored")
        elif expected[table] != found[table]:
            differ.append(f"{table}: {expected[table]} at backup, {found[table]} restored")
    return differ
