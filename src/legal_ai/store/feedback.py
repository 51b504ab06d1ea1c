"""SQL of the chair's feedback on our drafts (migration 0007). Every function takes the caller's
connection."""

from __future__ import annotations

from typing import Any

import psycopg


def insert_feedback(conn: psycopg.Connection, values: dict[str, Any]) -> dict:
    return conn.execute(
        "INSERT INTO chair_feedback (case_number, block, category, text, actor)"
        " VALUES (%(case_number)s, %(block)s, %(category)s, %(text)s, %(actor)s) RETURNING *",
        values,
    ).fetchone()


def list_feedback(
    conn: psycopg.Connection,
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


def feedback_summary(conn: psycopg.Connection, since: Any, until: Any = None) -> list[dict]:
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


def feedback_by_week(conn: psycopg.Connection, since: Any) -> list[dict]:
    """Feedback counts per ISO week (Monday, UTC) and category since `since`."""
    return conn.execute(
        "SELECT (date_trunc('week', created_at AT TIME ZONE 'UTC'))::date AS week, category,"
        " count(*) AS n FROM chair_feedback WHERE created_at >= %s"
        " GROUP BY 1, 2 ORDER BY 1, 2",
        (since,),
    ).fetchall()
