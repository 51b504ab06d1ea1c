"""Lessons proposed from the chair's feedback (07 §1.2), the weekly job's
(ops/tasks.weekly_feedback_analysis, run by the system's worker, never a caller).

Every item of the window that names a block or a category — every item but one of category
`other` with no block — is proposed as a lesson: one proposal per category and block, so items
that recur are grouped into one. Each proposal carries her words verbatim as its evidence
(`evidence.feedback`: each item's id, words, who wrote it, its case and when) and goes to her
gate (source `curator`, proposed: the job never decides). An item is proposed once, ever
(feedback_lessons, migration 0042): a rerun finds nothing new. An item that names neither is
not proposed, and the report says so. An agent's relayed entry is shown as relayed by that
agent, never as hers."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from ...store import feedback as store
from ...text.blocks import BLOCK_LABELS
from . import feedback, lessons

if TYPE_CHECKING:
    from ...context import Context

# The lesson category a feedback category is proposed under. Content, facts and what cannot be
# told are substance: only the chair approves those (the database's gate).
LESSON_CATEGORY = {
    "style": "style",
    "wrong_tone": "style",
    "wrong_structure": "structure",
    "missing_content": "lessons_document",
    "factual_error": "fact",
    "other": "lessons_document",
}
MAX_EXAMPLE_CHARS = 300  # of each item's words in a grouped lesson's text (the evidence: all)
MAX_SINGLE_CHARS = 3000  # of one item's words in its lesson's text
UNNAMED = "names neither a block nor a category (category other, no block)"


def names_something(item: dict) -> bool:
    return bool(item["block"]) or item["category"] != "other"


def _cut(text: str, most: int) -> str:
    return text if len(text) <= most else text[:most] + "…"


def _who(actor: str) -> str:
    """Who recorded an item that is not hers: the agent's name, else the operator."""
    return actor.removeprefix("agent:") if actor.startswith("agent:") else "המפעיל"


def _source(items: list[dict]) -> str:
    """Whose feedback it is: the chair's own, recorded by others (an agent relaying it, the
    operator), or both — never someone else's entry presented as hers."""
    own = sum(1 for i in items if i["actor"] == "chair")
    others = ", ".join(sorted({_who(i["actor"]) for i in items if i["actor"] != "chair"}))
    if len(items) == 1:
        return 'משוב של היו"ר' if own else f'משוב שנרשם בידי {others}, לא בידי היו"ר'
    if own == len(items):
        return 'משוב חוזר של היו"ר'
    if own == 0:
        return f'משוב חוזר שנרשם בידי {others}, לא בידי היו"ר'
    return f'משוב חוזר: {own} מהיו"ר, {len(items) - own} שנרשמו בידי {others}'


def lesson_text(category: str, block: str | None, items: list[dict], tz: dt.tzinfo) -> str:
    """The proposal's text: whose, when, what about, and her words (cut; the evidence holds
    them whole)."""
    where = f' בבלוק "{BLOCK_LABELS.get(block, block)}"' if block else ""
    about = f"{feedback.CATEGORY_LABELS.get(category, category)}{where}"
    days = sorted({i["created_at"].astimezone(tz).date() for i in items})
    when = f"{days[0]:%d.%m.%Y}" if len(days) == 1 else f"{days[0]:%d.%m}–{days[-1]:%d.%m.%Y}"
    if len(items) == 1:
        return f"{_source(items)} ({when}): {about}. «{_cut(items[0]['text'], MAX_SINGLE_CHARS)}»"
    examples = "; ".join(f"«{_cut(i['text'], MAX_EXAMPLE_CHARS)}»" for i in items[-3:])
    return f"{_source(items)} ({len(items)} פעמים, {when}): {about}. דוגמאות: {examples}"


def evidence(category: str, block: str | None, items: list[dict]) -> dict:
    """Her words verbatim, item by item: what the proposal rests on."""
    return {
        "kind": "feedback",
        "feedback_category": category,
        "block": block,
        "feedback": [
            {
                "id": i["id"],
                "text": i["text"],
                "actor": i["actor"],
                "case_number": i["case_number"],
                "written_at": i["created_at"].isoformat(),
            }
            for i in items
        ],
    }


def propose(app: Context, since: dt.datetime, until: dt.datetime, tz: dt.tzinfo) -> dict:
    """Propose lessons from the feedback written from `since` to `until` that none was proposed
    from yet. Returns `proposed` (per lesson: its id, whether it is new, its status, categories,
    block, count and feedback ids), `not_proposed` (per item: id and why) and
    `already_proposed` (the window's items proposed from before, with their lesson)."""
    with app.store.connection() as conn:
        items = store.unproposed_feedback(conn, since, until)
        before = store.proposed_from(conn, since, until)
    groups: dict[tuple[str, str | None], list[dict]] = {}
    not_proposed = []
    for item in items:
        if not names_something(item):
            not_proposed.append({"feedback_id": item["id"], "reason": UNNAMED})
            continue
        groups.setdefault((item["category"], item["block"]), []).append(item)
    proposed = []
    for (category, block), group in groups.items():
        ids = [i["id"] for i in group]
        row = lessons.propose_from_feedback(
            app,
            LESSON_CATEGORY[category],
            lesson_text(category, block, group, tz),
            block,
            evidence(category, block, group),
            ids,
        )
        if row is None:  # proposed from meanwhile (another run): nothing recorded here
            continue
        proposed.append(
            {
                "lesson_id": row["id"],
                "created": row["created"],
                "review_status": row["review_status"],
                "category": LESSON_CATEGORY[category],
                "feedback_category": category,
                "block": block,
                "count": len(group),
                "feedback_ids": ids,
            }
        )
    return {
        "proposed": proposed,
        "not_proposed": not_proposed,
        "already_proposed": [
            {"feedback_id": r["feedback_id"], "lesson_id": r["lesson_id"]} for r in before
        ],
    }
