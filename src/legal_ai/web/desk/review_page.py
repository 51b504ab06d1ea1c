"""The review queue's page (/review; web/desk/review.py holds the routes): what it reads, and
the words it says after a decision, an undo, or a decision another tab made first."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fastapi import Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from ...errors import Stale
from ...learning import vocabulary as vocab
from ...learning import waiting
from ...learning.principles import review as principle_review
from . import core, labels, today
from . import review_queue as rq

# What a decision did, said after it (single items).
DONE = {
    "approve": "אושר",
    "reject": "נדחה",
    "veto": "נפסל (וטו); הוא הוצא ממה שהכותב קורא",
    "confirm": "אישרת את אישור הפאנל; העיקרון נכנס למה שהכותב קורא",
    "revert": "נמשך מהחיפוש",
}
BULK_DONE = {"approve": "אושרו", "reject": "נדחו", "veto": "נפסלו (וטו)"}
EXCERPT = 90
# The pages of "לבדיקתי" whose items are decided on a page of their own (a document each).
ELSEWHERE = ("voice", "enrichment", "metadata")


@dataclass
class Shown:
    """What a render of the queue adds to its items: the answer to what she just did."""

    status: int = 200
    notice: str | None = None
    message: str | None = None
    undo: dict | None = None  # {"refs", "status", "count"}: the last decision, to undo
    stale: dict | None = None  # the item another tab decided first, and what she had typed
    errors: dict[str, str] = field(default_factory=dict)  # field name -> Hebrew, beside it
    reason: str | None = None  # the reason she typed, kept in the decision's field
    edit: dict | None = None  # the edit she typed (text, category), kept in its form
    written: dict | None = None  # the lesson she was writing, kept in its form
    bulk: dict | None = None  # the bulk confirmation: {"decision", "items", "skipped"}


def excerpt(text: str) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= EXCERPT else text[: EXCERPT - 1].rstrip() + "…"


def what(item: dict | None, kind: str) -> str:
    noun = "העיקרון" if kind == "principle" else "הלקח"
    return f'{noun} "{excerpt(item["text"])}"' if item else noun


def stale_said(exc: Stale, item: dict | None, kind: str) -> str:
    """A decision refused because the item was decided elsewhere first: what it is now and who
    decided, in Hebrew."""
    by = f" בידי {labels.label(exc.by, 'actor')}" if exc.by else ""
    now = labels.label(exc.status, "status")
    return (
        f"{what(item, kind)} כבר הוכרע בינתיים{by} (בלשונית אחרת או בתהליך אחר): הוא עכשיו "
        f'"{now}". לא בוצע דבר, ומה שכתבת נשמר כאן.'
    )


def stale_panel(view: Any, ref: str, exc: Stale, typed: dict) -> dict:
    """The stale item as it stands now, beside what she typed: in the queue still (another lane)
    it is linked; decided, it may be reopened for her decision."""
    kind, _ = rq.parse_ref(ref)
    item = rq.one(view, ref)
    reopen = exc.status if exc.status in ("approved", "rejected", "vetoed") else None
    if item is not None and item["actions"]:
        reopen = None  # still waiting for her (e.g. the panel approved it): it is in the queue
    return {
        "ref": ref,
        "item": item,
        "said": stale_said(exc, item, kind),
        "reopen": reopen,
        "typed": {k: v for k, v in typed.items() if v},
    }


def _read(view: Any, filters: rq.Filters, ref: str | None) -> dict:
    items = rq.load(view)
    shown = rq.chosen(items, filters)
    index = next((n for n, i in enumerate(shown) if i["ref"] == ref), 0)
    current = shown[index] if shown else None
    votes: list[dict] = []
    categories = sorted(waiting.category_kinds(view).items(), key=lambda c: (c[1] != "style", c[0]))
    if current and current["kind"] == "lesson" and current["votes"]:
        votes = waiting.lesson_verdicts(view, current["id"])
    elif current and current["kind"] == "principle":
        votes = principle_review.panel_votes(view, [current["id"]])
    return {
        "total": len(items),
        "items": shown,
        "listed": shown[: rq.MAX_LISTED],
        "current": current,
        "index": index,
        "prev": shown[index - 1]["ref"] if current and index > 0 else None,
        "next": shown[index + 1]["ref"] if current and index + 1 < len(shown) else None,
        "evidence": rq.evidence(current) if current else None,
        "votes": votes,
        "options": rq.options(items, filters),
        "categories": categories,
    }


async def render(
    request: Request, desk: core.Desk, filters: rq.Filters, ref: str | None, shown: Shown
) -> Response:
    data = await run_in_threadpool(_read, desk.view, filters, ref)
    waiting = desk.waiting
    cards = today.cards(waiting, "review") if waiting is not None else []
    elsewhere = [c for c in cards if c["key"] in ELSEWHERE and c["n"]]
    return core.render(
        request,
        "review.html",
        status=shown.status,
        desk=desk,
        filters=filters,
        shown=shown,
        notice=shown.notice,
        message=shown.message,
        elsewhere=elsewhere,
        keys=rq.KEYS,
        buttons=rq.BUTTONS,
        pending=rq.PENDING,
        reason_needed=rq.REASON_NEEDED,
        bulk_decisions=rq.BULK,
        max_listed=rq.MAX_LISTED,
        panel_size=rq.PANEL_SIZE,
        blocks=vocab.BLOCKS,
        appeal_types=vocab.APPEAL_TYPES,
        outcomes=vocab.OUTCOMES,
        returned_reasons=labels.RETURNED_REASON,
        **data,
    )


def after_decision(view: Any, done: str | None, last: list[str], skipped: int) -> Shown:
    """What the page says after a decision (`done` on the items `last`), with its undo."""
    if done not in DONE or not last:
        return Shown()
    refs = [r for r in last if _valid(r)][: rq.MAX_LISTED]
    if not refs:
        return Shown()
    kind, _ = rq.parse_ref(refs[0])
    if len(refs) == 1:
        notice = f"{what(rq.one(view, refs[0]), kind)}: {DONE[done]}"
    else:
        notice = f"{BULK_DONE.get(done, DONE[done])} {len(refs)} לקחים"
    if skipped:
        notice += f"; {skipped} דולגו (הוכרעו בינתיים או שההחלטה אינה חלה עליהם)"
    undo = None
    if done in rq.UNDONE:
        undo = {"refs": refs, "status": rq.UNDONE[done], "count": len(refs), "done": done}
    else:
        notice += ". אישור כזה אינו מתבטל כאן: אפשר למשוך את העיקרון מהחיפוש בדף העקרונות"
    return Shown(notice=notice, undo=undo)


def _valid(ref: str) -> bool:
    kind, _, number = ref.partition("-")
    return kind in ("lesson", "principle") and number.isdigit()
