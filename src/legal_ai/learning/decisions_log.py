"""The chair's decisions log, a page at a time (store/decisions_log.py): the rows her filters
choose, their count, the texts of the lessons a promote folded, and the cases that appear in
the log (for the filter's list)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..store import decisions_log as store

if TYPE_CHECKING:
    from ..context import Context


def page(ctx: Context, filters: dict[str, Any], limit: int, offset: int) -> dict:
    """{rows, total, folded: lesson id -> its text, cases}."""
    with ctx.store.connection() as conn:
        rows, total = store.page(conn, filters, limit, offset)
        ids = [
            i
            for r in rows
            if r["action"] == "promote"
            for i in ((r["details"] or {}).get("lessons") or [])
            if isinstance(i, int)
        ]
        return {
            "rows": rows,
            "total": total,
            "folded": store.lesson_texts(conn, ids),
            "cases": store.cases(conn),
        }
