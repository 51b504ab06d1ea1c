"""The chair's feedback on our drafts: one category (missing_content, wrong_tone,
wrong_structure, factual_error, style, other), optionally the block it is about, and a weekly
summary grouped by category and block. Each entry records who wrote it (`actor`: `chair`, an
agent relaying it as `agent:NAME`, or `operator`; and `db_role`, the database role it was
written under: the database refuses the chair's name from any role but hers), so an agent's
entry is shown as relayed by that agent, never as hers."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from ...errors import InvalidInput, NotFound
from ...paging import Page, listed
from ...store import drafts_lessons as store
from ...store import items as sql_items
from ...store import jsonable
from ...text import clock
from .. import vocabulary as vocab

if TYPE_CHECKING:
    from ...context import Context


# The categories in Hebrew, as the chair reads them (the desk's dictionary and the weekly summary).
CATEGORY_LABELS = {
    "missing_content": "תוכן חסר",
    "wrong_tone": "טון שגוי",
    "wrong_structure": "מבנה שגוי",
    "factual_error": "טעות עובדתית",
    "style": "סגנון",
    "other": "אחר",
}


def record(
    app: Context, category: str, text: str, *, case: str | None = None, block: str | None = None
) -> dict:
    category = vocab.choice(category, vocab.FEEDBACK_CATEGORIES, "feedback category", required=True)
    text = vocab.free_text(text, "feedback text")
    case = vocab.case_number(case) if case else None
    with app.store.transaction() as conn:
        if case and sql_items.get_case(conn, case) is None:
            raise NotFound(
                f"unknown case {case}; feedback is about a case we drafted",
                code="case.unknown",
                field="case_number",
            )
        row = store.insert_feedback(
            conn,
            {
                "case_number": case,
                "block": vocab.block(block),
                "category": category,
                "text": text,
                "actor": app.principal.actor,
            },
        )
    return jsonable(row)


def list_feedback(
    app: Context,
    *,
    case: str | None = None,
    category: str | None = None,
    limit: int = 50,
    offset: int = 0,
) -> dict:
    """Newest first, `limit` (1..500) after `offset`, with the answer's `page` object
    (paging.py: where the next page starts)."""
    vocab.choice(category, vocab.FEEDBACK_CATEGORIES, "feedback category")
    page = Page(limit, offset)
    with app.store.connection() as conn:
        rows = store.list_feedback(
            conn, vocab.case_number(case) if case else None, category, page.fetch, page.offset
        )
    return listed("feedback", rows, page, jsonable)


def weekly_summary(app: Context, *, days: int = 7, now: dt.datetime | None = None) -> dict:
    """The last `days` days of feedback (up to `now`, default the clock), grouped by category
    and block (most frequent first)."""
    until = now or dt.datetime.now(dt.UTC)
    since = until - dt.timedelta(days=days)
    with app.store.connection() as conn:
        groups = store.feedback_summary(conn, since, until if now else None)
    by_category: dict[str, int] = {}
    by_block: dict[str, int] = {}
    for g in groups:
        by_category[g["category"]] = by_category.get(g["category"], 0) + g["n"]
        if g["block"]:
            by_block[g["block"]] = by_block.get(g["block"], 0) + g["n"]
    return {
        "since": since.isoformat(),
        "until": until.isoformat(),
        "total": sum(g["n"] for g in groups),
        "by_category": by_category,
        "by_block": by_block,
        "from_chair": sum(g["from_chair"] for g in groups),
        "groups": [
            {
                "category": g["category"],
                "block": g["block"] or None,
                "count": g["n"],
                "from_chair": g["from_chair"],
                "relayed_by": list(g["relayed_by"]),
                "examples": g["texts"][:3],
                "feedback_ids": g["ids"],
            }
            for g in groups
        ],
    }


MAX_WEEKS = 104


def by_week(app: Context, weeks: int = 12) -> dict:
    """Feedback by category per week over the last `weeks` weeks (Israel's weeks, Sunday to
    Saturday on Asia/Jerusalem's clock, text/clock.py; this week included): every week is
    listed, oldest first, with a count for every category (zero when none)."""
    if isinstance(weeks, bool) or not isinstance(weeks, int) or not 1 <= weeks <= MAX_WEEKS:
        raise InvalidInput(
            f"weeks must be a whole number from 1 to {MAX_WEEKS}",
            code="number.out_of_range",
            field="weeks",
        )
    today = clock.day_of(dt.datetime.now(dt.UTC))
    if today is None:  # a moment always has its day
        raise ValueError("the clock gave no day")
    first = clock.week_start(today) - dt.timedelta(weeks=weeks - 1)
    with app.store.connection() as conn:
        rows = store.feedback_by_week(conn, clock.day_start(first), clock.ZONE_NAME)
    series: list[dict[str, Any]] = [
        {
            "week": (first + dt.timedelta(weeks=n)).isoformat(),
            "by_category": dict.fromkeys(vocab.FEEDBACK_CATEGORIES, 0),
            "total": 0,
        }
        for n in range(weeks)
    ]
    index = {w["week"]: w for w in series}
    for row in rows:
        week = index.get(clock.week_start(row["day"]).isoformat())
        if week is None:  # a row written between the two clocks' readings
            continue
        week["by_category"][row["category"]] = (
            week["by_category"].get(row["category"], 0) + row["n"]
        )
        week["total"] += row["n"]
    return {
        "weeks": series,
        "categories": list(vocab.FEEDBACK_CATEGORIES),
        "total": sum(w["total"] for w in series),
    }
