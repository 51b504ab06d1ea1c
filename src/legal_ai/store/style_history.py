"""SQL of the held-out history (style_distance_history, migration 0007; append-only): one row per
analyzed pair with its style distances, written when a final is analyzed and read by the history
and the dashboard. Takes the caller's connection; the names are importable from
store/drafts_lessons.py too."""

from __future__ import annotations

from typing import Any

from psycopg import sql
from psycopg.types.json import Jsonb

from .rows import Conn, one

HISTORY_COLUMNS = (
    "pair_id",
    "case_number",
    "final_version",
    "appeal_type",
    "outcome",
    "anti_pattern_total",
    "final_anti_pattern_total",
    "ratio_deviation",
    "change_percent",
    "word_edit_distance",
    "stylometric_delta",
    "profile_finals",
    "lesson_pool_size",
    "held_out",
    "metrics",
)


def append_history(conn: Conn, row: dict[str, Any]) -> dict:
    statement = sql.SQL("INSERT INTO style_distance_history ({}) VALUES ({}) RETURNING *").format(
        sql.SQL(", ").join(map(sql.Identifier, HISTORY_COLUMNS)),
        sql.SQL(", ").join(map(sql.Placeholder, HISTORY_COLUMNS)),
    )
    return one(conn.execute(statement, {**row, "metrics": Jsonb(row["metrics"])}))


def history(conn: Conn, *, limit: int | None = None, offset: int = 0) -> list[dict]:
    """By id; `limit` rows after `offset` (None: all)."""
    return conn.execute(
        "SELECT * FROM style_distance_history ORDER BY id LIMIT %s OFFSET %s", (limit, offset)
    ).fetchall()


def history_as_learned(conn: Conn) -> list[dict]:
    """Every row with its final's decision date (`decided_on`: the case's internal decision,
    which holds the final the row measured; the day it was analyzed when none is recorded), in
    the order the rows were written — the order the finals were learned (the learning
    dashboard's axis)."""
    return conn.execute(
        "SELECT h.*, coalesce(c.decided_on, h.captured_at::date) AS decided_on"
        " FROM style_distance_history h JOIN draft_final_pairs p ON p.id = h.pair_id"
        " LEFT JOIN case_law c ON c.id = p.case_law_id ORDER BY h.id"
    ).fetchall()


def latest_of_others(conn: Conn, case_number: str, before_id: int | None = None) -> list[dict]:
    """The latest held-out row of every other case — her usual, to compare a final with — as
    the history stood before row `before_id` (None: now)."""
    return conn.execute(
        "SELECT DISTINCT ON (case_number) case_number, change_percent, word_edit_distance,"
        " anti_pattern_total, ratio_deviation, stylometric_delta FROM style_distance_history"
        " WHERE case_number <> %s AND (%s::bigint IS NULL OR id < %s)"
        " ORDER BY case_number, id DESC",
        (case_number, before_id, before_id),
    ).fetchall()
