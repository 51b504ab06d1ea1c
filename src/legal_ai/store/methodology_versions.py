"""SQL of the methodology's version history (methodology_profile_versions, migration 0007): the
list of a profile's versions, one version's profile, the review status of folded lessons, the
versions an undo wrote (their audit rows) and her finals' texts for a rule's preview.
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


def recent_versions(conn: Conn, appeal_type: str, limit: int) -> list[dict]:
    """The newest `limit` versions of a profile with their profiles, newest first."""
    return conn.execute(
        "SELECT version, profile, updated_by, reason, created_at FROM methodology_profile_versions"
        " WHERE appeal_type = %s ORDER BY version DESC LIMIT %s",
        (appeal_type, limit),
    ).fetchall()


def undo_sources(conn: Conn, appeal_type: str) -> dict[int, int]:
    """version -> the version it restored, for the versions an undo wrote (its audit row)."""
    rows = conn.execute(
        "SELECT (details->>'version')::int AS version, (details->>'restored')::int AS restored"
        " FROM learning_audit WHERE action = 'restore_methodology'"
        " AND details->>'appeal_type' = %s AND details->>'undo' = 'true'",
        (appeal_type,),
    ).fetchall()
    return {r["version"]: r["restored"] for r in rows}


def final_texts(conn: Conn, limit: int) -> list[dict]:
    """The chair's finals (the newest `limit` pairs' decisions): case number and text."""
    return conn.execute(
        "SELECT p.case_number, c.content FROM draft_final_pairs p"
        " JOIN case_law c ON c.id = p.case_law_id ORDER BY p.id DESC LIMIT %s",
        (limit,),
    ).fetchall()
