"""What waits for the chair's word, of every room (store/review_queue.py): the lessons and the
principles in her one queue (/review), one item as it stands now, the panel's verdicts on a
lesson, and the lesson categories with their kinds."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..store import drafts_lessons as lessons_store
from ..store import review_queue as store
from ..store.rows import Conn

if TYPE_CHECKING:
    from ..context import Context


def counts(conn: Conn) -> dict[str, int]:
    """How many of each kind wait for her (store/review_queue.WAITING: each the filter of the
    list its page shows, counted), all in one statement: the desk's menu and its cards."""
    return store.waiting_all(conn)


def queue(ctx: Context) -> tuple[list[dict], list[dict]]:
    """(the lessons waiting, the principles waiting), read in one connection."""
    with ctx.store.connection() as conn:
        lessons = [dict(r) for r in store.queue_lessons(conn)]
        principles = [dict(r) for r in store.queue_principles(conn)]
    return lessons, principles


def item(ctx: Context, kind: str, item_id: int) -> list[dict]:
    """The lesson or principle `item_id` (`kind`) as the queue reads it: one row, or none."""
    with ctx.store.connection() as conn:
        if kind == "lesson":
            return [dict(r) for r in store.queue_lessons(conn, item_id)]
        return [dict(r) for r in store.queue_principles(conn, item_id)]


def lesson_verdicts(ctx: Context, lesson_id: int) -> list[dict]:
    """The style panel's votes (model, vote, reason) on one lesson, oldest first."""
    with ctx.store.connection() as conn:
        return [dict(v) for v in store.verdicts(conn, [lesson_id])]


def category_kinds(ctx: Context) -> dict[str, str]:
    """Each lesson category and its kind (style, structure, …)."""
    with ctx.store.connection() as conn:
        return lessons_store.category_kinds(conn)
