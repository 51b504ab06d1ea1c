"""SQL for drafts and finals uploaded as scans (migration 0047): the upload remembered while its
scan waits for OCR, claimed by the worker once read, and settled done or failed. Every statement
runs as the server's own login (the caller's Store.as_login): no role writes the table."""

from __future__ import annotations

from psycopg import sql
from psycopg.types.json import Jsonb

from ..errors import StoreError
from .rows import Conn

_SHOWN = sql.SQL(
    "id, kind, case_number, file_sha256, source_name, fields, actor_kind, actor_name, status,"
    " error, result, created_at, finished_at"
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


def ready(conn: Conn, stale_s: float) -> list[dict]:
    """The open uploads whose scan is read, or whose OCR job failed (oldest first), each with
    the scan's text (`content`, None: not read) and its job's status and error; a row claimed
    more than `stale_s` seconds ago (its worker died) is open again."""
    return conn.execute(
        "SELECT d.id, d.file_sha256, s.content, s.read_at, j.status AS job_status,"
        " j.error AS job_error FROM decision_scans d"
        " JOIN scanned_files s ON s.file_sha256 = d.file_sha256"
        " LEFT JOIN jobs j ON j.key = 'ocr:' || d.file_sha256"
        " WHERE (d.status = 'waiting' OR (d.status = 'running'"
        "   AND d.claimed_at < now() - make_interval(secs => %s)))"
        " AND (s.read_at IS NOT NULL OR j.status = 'failed') ORDER BY d.id",
        (stale_s,),
    ).fetchall()


def claim(conn: Conn, scan_id: int, stale_s: float) -> dict | None:
    """Take one open upload for this worker (None: another took it meanwhile)."""
    return conn.execute(
        sql.SQL(
            "UPDATE decision_scans SET status = 'running', claimed_at = now() WHERE id = %s"
            " AND (status = 'waiting' OR (status = 'running'"
            "   AND claimed_at < now() - make_interval(secs => %s))) RETURNING {}"
        ).format(_SHOWN),
        (scan_id, stale_s),
    ).fetchone()


def settle(conn: Conn, scan_id: int, *, result: dict | None, error: str | None) -> None:
    conn.execute(
        "UPDATE decision_scans SET status = %s, result = %s, error = %s, finished_at = now()"
        " WHERE id = %s",
        ("failed" if error else "done", Jsonb(result) if result else None, error, scan_id),
    )


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
