"""The store's part of a restore proof (ops/backups.py: `legal-ai db restore --check FILE` and
the scheduled `nightly-backup`): the archive read without restoring it (its first bytes, its
manifest's size and SHA-256, pg_restore's table of contents, a legal-ai database's), then, on a
scratch PostgreSQL server of its own (store/scratch_server.py: a throwaway cluster in a temporary
folder, stopped and deleted whatever happens), its table of contents compared with the schema
the migrations make (store/archive_contents.py: an object they do not make is refused before
anything is restored), restored there by an unprivileged login, and its rows counted. The live
server is never connected to, let alone restored on.

Errors are one line naming what is wrong (InvalidInput: the file; StoreError: the server, the
restore, the counts), without connection details or paths."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import InvalidInput, NotFound, StoreError
from .backup import _toc, fill
from .backup_manifest import ARCHIVE_MAGIC, is_archive, read_manifest, row_counts
from .pg_programs import MAINTENANCE_DATABASE, connect
from .scratch_server import ScratchServer

DATABASE = "proof"  # the restored database, on the scratch server


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


def restore(server: ScratchServer, file: Path, entries: list[tuple[str, str, str]]) -> dict:
    """`file` (its table of contents `entries`, already checked: store/archive_contents.py)
    restored whole, in one transaction, into a new database of the scratch `server` by its
    unprivileged login: {"url", "notes"}."""
    url = server.create_database(DATABASE)
    with connect(server.url(MAINTENANCE_DATABASE)) as admin:
        try:
            notes = fill(url, admin, DATABASE, file, entries)
        except StoreError as exc:
            reason = str(exc).removeprefix("restore failed, nothing changed: ")
            raise StoreError(f"{file.name} could not be restored: {reason}") from None
    return {"url": url, "notes": notes}


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
