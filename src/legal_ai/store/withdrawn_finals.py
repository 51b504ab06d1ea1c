"""Her finals she withdrew from what the writer reads (knowledge/withdrawn.py), read from the
audit: `withdraw_final` and `restore_final` rows in her name, the last one per case deciding.
The audit is append-only and a row in the chair's name is written under her role only (migration
0027's audit_record; an agent's statement writes none), so nothing else can withdraw or restore
one of her finals. `WITHDRAWN` is the set as a subquery (`PARAGRAPH_KEPT`: a paragraph not of one), for the
statements that read her paragraphs (store/exemplars.py, store/templates.py) and her pairs
(store/drafts_lessons.py)."""

from __future__ import annotations

from psycopg import sql
from psycopg.types.json import Jsonb

from .rows import Conn

WITHDRAW, RESTORE = "withdraw_final", "restore_final"

_LAST = sql.SQL(
    "SELECT DISTINCT ON (a.details->>'case_number') a.details->>'case_number' AS case_number,"
    " a.action, a.at, a.reason FROM learning_audit a WHERE a.actor = 'chair'"
    " AND a.action IN ('withdraw_final', 'restore_final')"
    " AND a.details->>'case_number' IS NOT NULL"
    " ORDER BY a.details->>'case_number', a.id DESC"
)
# The case numbers of the finals withdrawn now (never NULL: `x NOT IN WITHDRAWN` is safe).
WITHDRAWN = sql.SQL("(SELECT w.case_number FROM ({}) w WHERE w.action = 'withdraw_final')").format(
    _LAST
)
# A paragraph (alias e) not of a final withdrawn now.
PARAGRAPH_KEPT = sql.SQL("(e.case_number IS NULL OR e.case_number NOT IN {})").format(WITHDRAWN)


def record(conn: Conn, actor: str, action: str, case_number: str, reason: str | None) -> None:
    """Her withdrawal or restoring of one final, as an audit row."""
    conn.execute(
        "INSERT INTO learning_audit (actor, action, reason, details) VALUES (%s, %s, %s, %s)",
        (actor, action, reason, Jsonb({"case_number": case_number})),
    )


def withdrawn(conn: Conn) -> list[dict]:
    """The finals withdrawn now: {case_number, at, reason}, the latest first."""
    return conn.execute(
        sql.SQL(
            "SELECT case_number, at, reason FROM ({}) w"
            " WHERE w.action = 'withdraw_final' ORDER BY at DESC"
        ).format(_LAST)
    ).fetchall()


def is_style_final(conn: Conn, case_number: str) -> bool:
    """Whether the style corpus holds a final of this case (one she can withdraw)."""
    return (
        conn.execute(
            "SELECT 1 FROM documents WHERE corpus = 'style' AND case_number = %s LIMIT 1",
            (case_number,),
        ).fetchone()
        is not None
    )
