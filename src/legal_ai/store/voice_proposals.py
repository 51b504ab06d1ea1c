"""What the chair decided on the items of voice-fingerprint proposals (learning/lessons/proposal_review.py),
read from the audit: an item she adopted is the `edit_methodology` row whose details name it
(`fingerprint: {proposal, item}`), an item she dismissed a `dismiss_fingerprint` row. The audit is
append-only and only her role writes rows in her name (migration 0027's audit_record), so a
decision once recorded stays, and nothing else can record one for her."""

from __future__ import annotations

from psycopg.types.json import Jsonb

from .rows import Conn

DISMISS = "dismiss_fingerprint"

_DECISIONS = (
    "SELECT action, actor, at, reason, details FROM learning_audit"
    " WHERE (action = 'edit_methodology' AND details ? 'fingerprint') OR action = %s"
    " ORDER BY id"
)


def decisions(conn: Conn) -> list[dict]:
    """Every decision on a fingerprint item, oldest first: action, actor, at, reason, details."""
    return conn.execute(_DECISIONS, (DISMISS,)).fetchall()


def dismiss(conn: Conn, actor: str, proposal: str, item: str, reason: str | None) -> None:
    """Her dismissal of one item of a proposal, as an audit row."""
    conn.execute(
        "INSERT INTO learning_audit (actor, action, reason, details) VALUES (%s, %s, %s, %s)",
        (actor, DISMISS, reason, Jsonb({"fingerprint": {"proposal": proposal, "item": item}})),
    )
