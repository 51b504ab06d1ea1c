"""SQL of the methodology's version history (methodology_profile_versions, migration 0007): the
list of a profile's versions, one version's profile, and the review status of folded lessons.
Writes go through store.learning.save_profile (one version per save)."""

from __future__ import annotations

from .rows import Conn


def versions(conn: Conn, appeal_type: str) -> list[dict]:
    """Every version of a profile, newest first (without the profiles themselves)."""
    return conn.execute(
        "SELECT version, updated_by, reason, created_at FROM methodology_profile_versions"
        " WHERE appeal_type = %s ORDER BY version DESC",
        (appeal_type,),
    ).fetchall()


def version(conn: Conn, appeal_type: str, number: int) -> dict | None:
    return conn.execute(
        "SELECT version, profile, updated_by, reason, created_at FROM methodology_profile_versions"
        " WHERE appeal_type = %s AND version = %s",
        (appeal_type, number),
    ).fetchone()


def lesson_statuses(conn: Conn, lesson_ids: list[int]) -> dict[int, str]:
    """id -> review_status of these lessons (ids not found are absent)."""
    rows = conn.execute(
        "SELECT id, review_status FROM decision_lessons WHERE id = ANY(%s)", (lesson_ids,)
    ).fetchall()
    return {r["id"]: r["review_status"] for r in rows}
