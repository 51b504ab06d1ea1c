"""Backups on a schedule, each proven (docs/deployment.md "Backups").

- `nightly_backup` is the scheduled job `nightly-backup` (ops/scheduler.py): a backup of the whole
  database into LEGAL_AI_BACKUP_DIR named `legal-ai-<UTC time>.backup`, its manifest beside it
  (store/backup.py), then the proof of that archive; only when it is proven are our own older
  archives beyond LEGAL_AI_BACKUP_KEEP deleted (with their manifests) — a file of any other name,
  or one that is not a pg_dump archive, is never touched. A failure (the folder missing, not
  writable or full; a proof that fails) fails the run with the reason, and nothing already in
  the folder is deleted.
- `prove` (also `legal-ai db restore --check FILE`): the archive read (its first bytes, its
  manifest's size and SHA-256, a legal-ai database's table of contents), then on a scratch
  server of its own (store/scratch_server.py: a throwaway PostgreSQL in a temporary folder,
  never the live server) its contents compared with the schema the migrations make (an object
  they do not make refused before anything is restored: store/archive_contents.py), restored by
  an unprivileged login, its rows counted against the manifest (the rows of the source at backup
  time), `health` run on it (the isolation audit searches it), and the server stopped and
  deleted whatever happens. Each step reports one line; the first that fails raises, one line.
- `health` is what `legal-ai health` and the desk's system page read: the job's last run and the
  newest backup it proved.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..context import Context
from ..errors import AppError, InvalidInput, StoreError
from ..store import archive_contents, backup_check
from ..store import schedule as store
from ..store.backup import backup
from ..store.backup_manifest import is_archive, manifest_path
from ..store.scratch_server import scratch_server
from . import database_health

JOB = "nightly-backup"
OURS = re.compile(r"^legal-ai-(\d{8}T\d{6}Z)\.backup$")  # the job's archives: all it may delete


def archive_name(now: dt.datetime) -> str:
    return f"legal-ai-{now.astimezone(dt.UTC):%Y%m%dT%H%M%SZ}.backup"


def ours(folder: Path) -> list[Path]:
    """The job's own archives in `folder` (its name, and a pg_dump archive), oldest first."""
    found = [p for p in folder.iterdir() if OURS.match(p.name) and p.is_file() and is_archive(p)]
    return sorted(found, key=lambda p: p.name)


def rotate(folder: Path, keep: int) -> list[str]:
    """Our archives beyond the newest `keep` deleted with their manifests; their names."""
    deleted = []
    for old in ours(folder)[:-keep]:
        manifest_path(old).unlink(missing_ok=True)
        old.unlink()
        deleted.append(old.name)
    return deleted


# -- the proof ------------------------------------------------------------------------------------


def _size(n: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} bytes"


def _health_of(app: Context, url: str) -> dict:
    """The health report of the scratch database (database_health.found, as App.health; the
    live context's embedder, the scratch's own pool, closed before the database is dropped). A
    leak between corpora fails the proof. Read on a plain Context: what an App does when it
    opens a database (a re-key a migration left pending, the deployment's settings recorded)
    writes, and a proof only reads."""
    settings = app.settings.model_copy(update={"database_url": url})
    with Context(settings, embedder=app.embedder.inner) as restored:
        report = database_health.found(restored)
    isolation = report["isolation"]
    if isolation["leaks"]:
        raise StoreError(
            f"health of the restored database: the isolation audit found {isolation['leaks']} "
            "unit(s) searchable from another corpus"
        )
    return {
        "unsearchable": report["unsearchable"],
        "missing_embeddings": report["missing_embeddings"],
        "stale_embeddings": report["stale_embeddings"],
        "isolation_checked": isolation["checked"],
        "isolation_leaks": isolation["leaks"],
    }


def prove(app: Context, file: Path, *, echo: Callable[[str], None] | None = None) -> dict:
    """The proof of the archive `file` (the module's doc); `echo` gets a line per step as it
    passes. Returns {"file", "bytes", "tables", "rows", "manifest", "health", "seconds",
    "steps"}; raises the first failure (AppError, one line)."""
    started = time.monotonic()
    steps: list[str] = []

    def step(name: str, text: str) -> None:
        steps.append(f"{name}: {text}")
        if echo is not None:
            echo(f"{name}: {text}")

    found = backup_check.inspect(Path(file))
    name = Path(found["file"]).name
    step("archive", f"{name}, {_size(found['bytes'])}, {found['tables']} tables")
    manifest = found["manifest"]
    if manifest is None:
        step("manifest", "none beside the archive: rows are counted, not compared")
    else:
        step(
            "manifest",
            f"size and SHA-256 match; taken {manifest.get('taken_at')}, "
            f"{len(manifest['tables'])} tables, {sum(manifest['tables'].values())} rows",
        )
    with scratch_server() as server:
        checked = archive_contents.check(Path(found["file"]), found["entries"], server)
        step(
            "contents",
            f"{checked['objects']} schema objects, each as migrations up to "
            f"{checked['version']:04d} make it (nothing else: no foreign function, trigger or "
            "constraint)",
        )
        db = backup_check.restore(server, Path(found["file"]), found["entries"])
        step(
            "restore",
            "restored whole, in one transaction, into a scratch server of its own by an "
            "unprivileged login",
        )
        counts = backup_check.counts(db["url"])
        rows = sum(counts.values())
        if manifest is not None:
            differ = backup_check.compare(manifest["tables"], counts)
            if differ:
                raise StoreError(
                    f"{name}: rows differ from the manifest in {len(differ)} table(s): "
                    + "; ".join(differ[:5])
                    + ("; …" if len(differ) > 5 else "")
                )
            step("rows", f"{len(counts)} tables, {rows} rows, each as counted at backup time")
        else:
            step("rows", f"{len(counts)} tables, {rows} rows restored")
        health = _health_of(app, db["url"])
        step(
            "health",
            f"{health['unsearchable']} unsearchable, {health['missing_embeddings']} missing "
            f"embeddings; isolation {health['isolation_checked']} checked, 0 leaks",
        )
    step("drop", "the scratch server was stopped and its folder deleted")
    return {
        "file": name,
        "bytes": found["bytes"],
        "tables": len(counts),
        "rows": rows,
        "manifest": manifest is not None,
        "health": health,
        "seconds": round(time.monotonic() - started, 1),
        "steps": steps,
    }


# -- the scheduled job ----------------------------------------------------------------------------


def _folder(app: Context) -> Path:
    folder = app.settings.backup_dir
    if folder is None:
        raise InvalidInput("LEGAL_AI_BACKUP_DIR is not set")
    folder = folder.expanduser()
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise InvalidInput(f"the backup folder (LEGAL_AI_BACKUP_DIR) {what}; create it")
    return folder


def nightly_backup(app: Context, now: dt.datetime) -> dict:
    """The job: back up, prove, rotate (the module's doc). Skipped without LEGAL_AI_BACKUP_DIR;
    failed (`error`, the step: backup or proof) when a step fails, nothing deleted."""
    if app.settings.backup_dir is None:
        return {
            "skipped": "LEGAL_AI_BACKUP_DIR is not set: no scheduled backup",
            "summary": "no backup folder set (LEGAL_AI_BACKUP_DIR)",
        }
    try:
        folder = _folder(app)
        file = folder / archive_name(now)
        made = backup(app.store.url, file)
    except AppError as exc:
        return {"error": str(exc), "step": "backup"}
    except OSError as exc:  # the folder vanished or cannot be read
        return {"error": f"backup failed: {exc.strerror}", "step": "backup"}
    taken = {k: made[k] for k in ("bytes", "tables", "rows")} | {"file": file.name}
    try:
        proof = prove(app, file)
    except AppError as exc:
        return {"error": f"proof of {file.name} failed: {exc}", "step": "proof", "backup": taken}
    deleted = rotate(folder, app.settings.backup_keep)
    kept = [p.name for p in ours(folder)]
    return {
        "summary": f"backed up {made['tables']} tables, {made['rows']} rows to {file.name} "
        f"({_size(made['bytes'])}); proven: restored, rows as at backup, health clean "
        f"({proof['seconds']} s); {len(kept)} kept"
        + (f", {len(deleted)} older deleted" if deleted else ""),
        "backup": taken,
        "proof": {k: proof[k] for k in ("tables", "rows", "health", "seconds")},
        "kept": kept,
        "deleted": deleted,
    }


def health(conn: Any, zone: dt.tzinfo | None = None) -> dict:
    """The job's last run ({"at", "outcome", "error", "step": backup | proof when it failed};
    None: never run) and the newest backup it proved ({"at", "file", "tables", "rows",
    "bytes"}; None: none yet); times in `zone`."""
    last = store.last_run(conn, JOB)
    proven = store.last_ok_run(conn, JOB)
    backup_of = ((proven or {}).get("result") or {}).get("backup") or {}
    result = (last or {}).get("last_result")

    def at(value: Any) -> Any:
        return value.astimezone(zone) if zone and isinstance(value, dt.datetime) else value

    return {
        "last_run": {
            "at": at(last["last_finished_at"]),
            "outcome": last["last_outcome"],
            "error": last["last_error"],
            "step": result.get("step") if isinstance(result, dict) else None,
        }
        if last and last["last_outcome"]
        else None,
        "last_proven": {"at": at(proven["finished_at"]), **backup_of} if proven else None,
    }


def _at(value: Any) -> str:
    return value.isoformat(sep=" ", timespec="minutes") if isinstance(value, dt.datetime) else "-"


def health_line(found: dict) -> str:
    """`legal-ai health`'s line of the backups (`found`: `health`'s answer)."""
    last, proven = found["last_run"], found["last_proven"]
    newest = (
        f"newest proven backup {proven.get('file', '?')} at {_at(proven['at'])}"
        if proven
        else "no backup proven yet"
    )
    if last is None:
        return f"backup: nightly-backup never ran; {newest}"
    if last["outcome"] == "failed":
        return f"backup: nightly-backup FAILED at {_at(last['at'])}: {last['error']}; {newest}"
    if last["outcome"] == "skipped":
        return f"backup: nightly-backup skipped (LEGAL_AI_BACKUP_DIR is not set); {newest}"
    return f"backup: nightly-backup ok at {_at(last['at'])}; {newest}"
