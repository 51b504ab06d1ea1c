"""SQL of the cite-check reports (migration 0038, learning/checks/cite_report.py): one append-only row
per check of a draft version or a final, with the marker of the library it read. Takes the
caller's connection. A case's reports are found through its drafts and its pair (a renamed case
keeps them); `checked_case` is the number as it was written."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from psycopg import sql
from psycopg.types.json import Jsonb

from .rows import Conn, one

# A case's reports: its drafts' (by the draft's case) and its final's (by its pair).
_OF_CASE = sql.SQL(
    "SELECT r.* FROM cite_reports r"
    " LEFT JOIN drafts d ON d.id = r.draft_id"
    " LEFT JOIN draft_final_pairs p ON p.case_law_id = r.case_law_id"
    " WHERE ((r.subject = 'draft' AND d.case_number = %(case)s)"
    " OR (r.subject = 'final' AND p.case_number = %(case)s))"
)


def library_marker(conn: Conn) -> dict:
    """The library as a check reads it now: the last recorded version of a library item (rulings,
    decisions, laws: item_versions of case_law), when it was recorded, and how many items."""
    row = one(
        conn.execute(
            "SELECT (SELECT max(id) FROM item_versions WHERE item_table = 'case_law')"
            " AS item_version_id,"
            " (SELECT max(recorded_at) FROM item_versions WHERE item_table = 'case_law')"
            " AS ingested_at,"
            " (SELECT count(*) FROM case_law) AS items"
        )
    )
    return {
        "item_version_id": row["item_version_id"],
        "ingested_at": row["ingested_at"].isoformat() if row["ingested_at"] else None,
        "items": row["items"],
    }


def insert_report(
    conn: Conn,
    *,
    case: str,
    subject: str,
    version: int,
    content_hash: str,
    report: Mapping[str, Any],
    library: dict,
    draft_id: int | None = None,
    case_law_id: int | None = None,
) -> dict:
    """Append one report (the login's own role only: migration 0038 refuses a request's)."""
    return one(
        conn.execute(
            "INSERT INTO cite_reports (checked_case, subject, draft_id, case_law_id, version,"
            " content_hash, report, library) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) RETURNING *",
            (
                case,
                subject,
                draft_id,
                case_law_id,
                version,
                content_hash,
                Jsonb(report),
                Jsonb(library),
            ),
        )
    )


def reports_of(conn: Conn, case: str) -> list[dict]:
    """Every report of the case, oldest first."""
    return conn.execute(_OF_CASE + sql.SQL(" ORDER BY r.id"), {"case": case}).fetchall()


def latest_of(
    conn: Conn, case: str, subject: str | None = None, version: int | None = None
) -> dict | None:
    """The case's newest report (of a draft or the final, of one version when given; with
    neither, the final's when there is one)."""
    return conn.execute(
        _OF_CASE
        + sql.SQL(
            " AND (%(subject)s::text IS NULL OR r.subject = %(subject)s)"
            " AND (%(version)s::int IS NULL OR r.version = %(version)s)"
            " ORDER BY (r.subject = 'final') DESC, r.id DESC LIMIT 1"
        ),
        {"case": case, "subject": subject, "version": version},
    ).fetchone()


def draft_version(conn: Conn, case: str, version: int | None) -> dict | None:
    """A stored draft of the case: {id, version, content, content_hash} (the latest when
    `version` is None)."""
    return conn.execute(
        "SELECT id, version, content, content_hash FROM drafts WHERE case_number = %s"
        " AND (%s::int IS NULL OR version = %s) ORDER BY version DESC LIMIT 1",
        (case, version, version),
    ).fetchone()


def draft_by_hash(conn: Conn, case: str, content_hash: str) -> dict | None:
    """The stored draft of the case with this text (as stored, or trimmed as a text an agent
    sends is), if any."""
    return conn.execute(
        "SELECT id, version, content, content_hash FROM drafts WHERE case_number = %s"
        " AND (content_hash = %s OR encode(sha256(convert_to(btrim(content, E' \\t\\n\\r\\f\\v'),"
        " 'UTF8')), 'hex') = %s) ORDER BY version DESC LIMIT 1",
        (case, content_hash, content_hash),
    ).fetchone()


def final_of_case(conn: Conn, case: str) -> dict | None:
    """The case's final as its pair names it: {id, version, content, content_hash}."""
    return conn.execute(
        "SELECT c.id, c.version, c.content, c.content_hash FROM draft_final_pairs p"
        " JOIN case_law c ON c.id = p.case_law_id WHERE p.case_number = %s",
        (case,),
    ).fetchone()
