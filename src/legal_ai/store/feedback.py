"""SQL of the chair's feedback on our drafts (migration 0007). Every function takes the caller's
connection."""

from __future__ import annotations

from typing import Any

from .rows import Conn, one


def insert_feedback(conn: Conn, values: dict[str, Any]) -> dict:
    return one(
        conn.execute(
            "INSERT INTO chair_feedback (case_number, block, category, text, actor)"
            " VALUES (%(case_number)s, %(block)s, %(category)s, %(text)s, %(actor)s) RETURNING *",
            values,
        )
    )


def list_feedback(
    conn: Conn,
    case_number: str | None,
    category: str | None,
    limit: int,
    offset: int = 0,
) -> list[dict]:
    return conn.execute(
        "SELECT * FROM chair_feedback WHERE (%(case)s::text IS NULL OR case_number = %(case)s)"
        " AND (%(cat)s::text IS NULL OR category = %(cat)s) ORDER BY id DESC LIMIT %(limit)s"
        " OFFSET %(offset)s",
        {"case": case_number, "cat": category, "limit": limit, "offset": offset},
    ).fetchall()


def feedback_summary(conn: Conn, since: Any, until: Any = None) -> list[dict]:
    return conn.execute(
        "SELECT category, coalesce(block, '') AS block, count(*) AS n,"
        " count(*) FILTER (WHERE actor = 'chair') AS from_chair,"
        " coalesce(array_agg(DISTINCT actor ORDER BY actor) FILTER (WHERE actor <> 'chair'), '{}')"
        " AS relayed_by,"
        " array_agg(text ORDER BY id DESC) AS texts, array_agg(id ORDER BY id) AS ids"
        " FROM chair_feedback WHERE created_at >= %s"
        " AND (%s::timestamptz IS NULL OR created_at <= %s)"
        " GROUP BY category, block ORDER BY count(*) DESC, category, block",
        (since, until, until),
    ).fetchall()


def feedback_by_week(conn: Conn, since: Any, zone: str) -> list[dict]:
    """Feedback counts per calendar day in time zone `zone` and category since `since` (the
    caller groups the days into weeks)."""
    return conn.execute(
        "SELECT (created_at AT TIME ZONE %s)::date AS day, category,"
        " count(*) AS n FROM chair_feedback WHERE created_at >= %s"
        " GROUP BY 1, 2 ORDER BY 1, 2",
        (zone, since),
    ).fetchall()


# -- the weekly job's proposals from her feedback (feedback_lessons, migration 0042) ---------------


def unproposed_feedback(conn: Conn, since: Any, until: Any = None) -> list[dict]:
    """The feedback written from `since` (to `until`) that no lesson was proposed from yet, by
    id."""
    return conn.execute(
        "SELECT f.* FROM chair_feedback f WHERE f.created_at >= %s"
        " AND (%s::timestamptz IS NULL OR f.created_at <= %s)"
        " AND NOT EXISTS (SELECT 1 FROM feedback_lessons l WHERE l.feedback_id = f.id)"
        " ORDER BY f.id",
        (since, until, until),
    ).fetchall()


def link_feedback(conn: Conn, lesson_id: int, feedback_ids: list[int]) -> list[int]:
    """Record that `lesson_id` was proposed from each of `feedback_ids`; the ids recorded now (an
    item already proposed from is left as it was)."""
    rows = conn.execute(
        "INSERT INTO feedback_lessons (feedback_id, lesson_id)"
        " SELECT unnest(%s::bigint[]), %s ON CONFLICT (feedback_id) DO NOTHING"
        " RETURNING feedback_id",
        (feedback_ids, lesson_id),
    ).fetchall()
    return [r["feedback_id"] for r in rows]


def proposed_from(conn: Conn, since: Any, until: Any = None) -> list[dict]:
    """The feedback of the window already proposed from: its id and its lesson's."""
    return conn.execute(
        "SELECT l.feedback_id, l.lesson_id FROM feedback_lessons l"
        " JOIN chair_feedback f ON f.id = l.feedback_id WHERE f.created_at >= %s"
        " AND (%s::timestamptz IS NULL OR f.created_at <= %s) ORDER BY l.feedback_id",
        (since, until, until),
    ).fetchall()
