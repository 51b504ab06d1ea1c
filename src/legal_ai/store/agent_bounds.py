"""What the agents' caps count (learning/agent_bounds.py; migration 0034 holds the database's
own ceilings): open proposals of one proposer, new cases one agent opened in a window."""

from __future__ import annotations

import datetime as dt

from .rows import Conn, one


def lock(conn: Conn, what: str, actor: str) -> None:
    """Serialise one actor's writes of one kind until the transaction ends (a count and the
    insert it admits are one step)."""
    conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"legal_ai:{what}:{actor}",))


def open_proposals(conn: Conn, proposed_by: str) -> int:
    """Lessons `proposed_by` proposed that still wait for a decision."""
    row = one(
        conn.execute(
            "SELECT count(*) AS n FROM decision_lessons"
            " WHERE review_status = 'proposed' AND proposed_by = %s",
            (proposed_by,),
        )
    )
    return int(row["n"])


def known_lessons(conn: Conn, dedupe_keys: list[str]) -> set[str]:
    """Which of these lessons exist already (recording them again adds nothing)."""
    rows = conn.execute(
        "SELECT dedupe_key FROM decision_lessons WHERE dedupe_key = ANY(%s)", (dedupe_keys,)
    ).fetchall()
    return {r["dedupe_key"] for r in rows}


def case_exists(conn: Conn, case_number: str) -> bool:
    row = one(
        conn.execute(
            "SELECT EXISTS (SELECT 1 FROM cases WHERE case_number = %s) AS found", (case_number,)
        )
    )
    return bool(row["found"])


def new_cases(conn: Conn, created_by: str, minutes: int) -> tuple[int, dt.datetime | None]:
    """How many cases `created_by` opened in the last `minutes`, and the oldest of them."""
    row = one(
        conn.execute(
            "SELECT count(*) AS n, min(created_at) AS oldest FROM cases"
            " WHERE created_by = %s AND created_at > now() - make_interval(mins => %s)",
            (created_by, minutes),
        )
    )
    return int(row["n"]), row["oldest"]


def now(conn: Conn) -> dt.datetime:
    return one(conn.execute("SELECT now() AS t"))["t"]
