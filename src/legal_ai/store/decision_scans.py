"""SQL for drafts and finals uploaded as scans (migration 0049): the upload remembered while its
scan waits for OCR, claimed by the worker once read, settled done or failed, or cancelled while
it waits. Every statement runs as the server's own login (the caller's Store.as_login): no role
writes the table."""

from __future__ import annotations

from psycopg import sql
from psycopg.types.json import Jsonb

from ..corpora import CORPORA
from ..errors import StoreError
from .rows import Conn

_SHOWN = sql.SQL(
    "id, kind, case_number, file_sha256, source_name, fields, actor_kind, actor_name, status,"
    " error, error_code, result, created_at, finished_at"
)


def add(
    conn: Conn,
    *,
    kind: str,
    case_number: str,
    sha: str,
    source_name: str,
    fields: dict,
    actor_kind: str,
    actor_name: str,
) -> dict:
    row = conn.execute(
        sql.SQL(
            "INSERT INTO decision_scans (kind, case_number, file_sha256, source_name, fields,"
            " actor_kind, actor_name) VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING {}"
        ).format(_SHOWN),
        (kind, case_number, sha, source_name, Jsonb(fields), actor_kind, actor_name),
    ).fetchone()
    if row is None:  # INSERT ... RETURNING always returns its row
        raise StoreError("the scanned upload was not recorded")
    return row


def _open(alias: str) -> sql.Composed:
    """An upload open to a worker: waiting, or claimed more than %s seconds ago (its worker
    died) — one rule for what the worker lists and what it may claim."""
    return sql.SQL(
        "({a}.status = 'waiting' OR ({a}.status = 'running'"
        " AND {a}.claimed_at < now() - make_interval(secs => %s)))"
    ).format(a=sql.Identifier(alias))


def ready(conn: Conn, stale_s: float) -> list[dict]:
    """The open uploads whose scan is read, or whose OCR job failed (oldest first), each with
    the scan's text (`content`, None: not read) and its job's status and error; a row claimed
    more than `stale_s` seconds ago (its worker died) is open again."""
    return conn.execute(
        sql.SQL(
            "SELECT d.id, d.file_sha256, s.content, s.read_at, j.status AS job_status,"
            " j.error AS job_error FROM decision_scans d"
            " JOIN scanned_files s ON s.file_sha256 = d.file_sha256"
            " LEFT JOIN jobs j ON j.key = 'ocr:' || d.file_sha256"
            " WHERE {} AND (s.read_at IS NOT NULL OR j.status = 'failed') ORDER BY d.id"
        ).format(_open("d")),
        (stale_s,),
    ).fetchall()


def claim(conn: Conn, scan_id: int, stale_s: float) -> dict | None:
    """Take one open upload for this worker (None: another took it meanwhile)."""
    return conn.execute(
        sql.SQL(
            "UPDATE decision_scans d SET status = 'running', claimed_at = now()"
            " WHERE d.id = %s AND {} RETURNING {}"
        ).format(_open("d"), _SHOWN),
        (scan_id, stale_s),
    ).fetchone()


def settle(
    conn: Conn, scan_id: int, *, result: dict | None, error: str | None, code: str | None
) -> None:
    """Done with the service's answer, or failed with why (English) and its catalog code."""
    conn.execute(
        "UPDATE decision_scans SET status = %s, result = %s, error = %s, error_code = %s,"
        " finished_at = now() WHERE id = %s",
        (
            "failed" if error else "done",
            Jsonb(result) if result else None,
            error,
            code if error else None,
            scan_id,
        ),
    )


def cancel(conn: Conn, scan_id: int) -> dict | None:
    """Delete an upload still waiting for OCR (None: it is no longer waiting — being stored,
    stored or failed). Its OCR job and kept scan go too unless something else holds them
    (another upload of the same file, an item stored from it) or a worker is reading it now:
    {"job_removed": bool, "scan_removed": bool}."""
    row = conn.execute(
        "DELETE FROM decision_scans WHERE id = %s AND status = 'waiting' RETURNING file_sha256",
        (scan_id,),
    ).fetchone()
    if row is None:
        return None
    sha = row["file_sha256"]
    gone = {"job_removed": False, "scan_removed": False}
    if _scan_held(conn, sha):
        return gone
    key = f"ocr:{sha}"
    reading = conn.execute(
        "SELECT 1 FROM jobs WHERE key = %s AND status = 'running'", (key,)
    ).fetchone()
    if reading is not None:  # a worker reads it now: its reading is written to the kept scan
        return gone
    gone["job_removed"] = (
        conn.execute("DELETE FROM jobs WHERE key = %s AND kind = 'ocr'", (key,)).rowcount > 0
    )
    gone["scan_removed"] = (
        conn.execute("DELETE FROM scanned_files WHERE file_sha256 = %s", (sha,)).rowcount > 0
    )
    return gone


def _scan_held(conn: Conn, sha: str) -> bool:
    """Another upload of the scan `sha`, or an item stored from it in any corpus."""
    if conn.execute("SELECT 1 FROM decision_scans WHERE file_sha256 = %s", (sha,)).fetchone():
        return True
    tables = sorted({c.item_table for c in CORPORA.values() if c.item_table})
    for table in tables:
        query = sql.SQL("SELECT 1 FROM {t} WHERE file_sha256 = %s LIMIT 1").format(
            t=sql.Identifier(table)
        )
        if conn.execute(query, (sha,)).fetchone():
            return True
    return False


def of_case(conn: Conn, case_number: str, limit: int = 10) -> list[dict]:
    """The case's scanned uploads, newest first (the desk's case page)."""
    return conn.execute(
        sql.SQL(
            "SELECT {} FROM decision_scans WHERE case_number = %s"
            " ORDER BY created_at DESC, id DESC LIMIT %s"
        ).format(_SHOWN),
        (case_number, limit),
    ).fetchall()


def get(conn: Conn, scan_id: int) -> dict | None:
    return conn.execute(
        sql.SQL("SELECT {} FROM decision_scans WHERE id = %s").format(_SHOWN), (scan_id,)
    ).fetchone()


def of_actor(conn: Conn, actor_kind: str, actor_name: str, limit: int = 50) -> list[dict]:
    """The scanned uploads one caller made, newest first."""
    return conn.execute(
        sql.SQL(
            "SELECT {} FROM decision_scans WHERE actor_kind = %s AND actor_name = %s"
            " ORDER BY created_at DESC, id DESC LIMIT %s"
        ).format(_SHOWN),
        (actor_kind, actor_name, limit),
    ).fetchall()
