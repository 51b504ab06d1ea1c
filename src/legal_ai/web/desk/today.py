"""/: "מה מחכה לי", the chair's first page — a card per thing that needs her (menu.CARDS), each
with its count, read once with the menu's badges (core.signed_in: menu.counts), and a link to
the page where she does it (the review queue, /review, at the card's lane: web/desk/review.py).
What matters today comes first (`today_first`, the order and why: docs/desk.md, "The today
page"): what waits for her decision, the most pressing first; then overdue work (the background
work that stopped, cases that did not move, decisions not searchable until she fills them);
then her finals waiting for their learning. After it, the rest: what waits that holds nothing
up, then, in one line, the cards with nothing waiting.
/system ("מערכת"): the pages that keep the system (health, the reminders and scheduled jobs),
gathered on one page, the nightly backup's state (red when its last run failed), the models'
daily budgets (learning/engine/budgets.py) and the trend of the search test built from her own
citations (ops/upkeep.office_trend). Hebrew only: what waits and where, never a setting or a command."""

from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from ...learning.engine import budgets as model_budgets
from ...learning.pairs import finals as her_finals
from ...ops import backups, upkeep
from ...ops.cron import schedule_zone
from . import core, menu

# What waits for her decision, the most pressing first: the panel could not decide; principles
# out of search until she decides; a draft holding another case's substance before it goes out;
# then what she approves or rejects, what makes search better, what needs her eye.
DECIDE_FIRST = (
    "escalations",
    "principles_returned",
    "copy_substance",
    "lessons",
    "principles_to_confirm",
    "principles",
    "curator",
    "voice",
    "enrichment",
)
OVERDUE = ("stale", "metadata")  # cases that did not move; decisions not searchable
# Her finals waiting for their learning (store/review_queue.finals_waiting): the item, what it says and
# where she follows it (the case list narrowed to that status).
FINALS = {
    "learning": (
        "החלטות סופיות שטרם נלמדו",
        "הלמידה מהן עוד לא רצה; המצב של כל אחת בדף התיק",
        "/cases?status=final_received",
    ),
    "promote": (
        "החלטות סופיות שנלמדו וממתינות לקידום הלקחים",
        "לקדם את הלקחים שלהן למתודולוגיה",
        "/cases?status=analyzed",
    ),
}


def cards(waiting: dict[str, int], group: str | None = None) -> list[dict]:
    """The cards (of one group) with their counts, in menu.CARDS's order."""
    return [
        {"key": c.key, "label": c.label, "said": c.said, "href": c.href, "n": waiting[c.key]}
        for c in menu.CARDS
        if group is None or c.group == group
    ]


def routes(api: FastAPI, signed_in: Any) -> None:
    Chair = Annotated[core.Desk, Depends(signed_in)]

    @api.get("/", include_in_schema=False)
    async def today(request: Request, desk: Chair) -> Response:
        waiting = desk.waiting or {}
        finals = await run_in_threadpool(finals_waiting, desk.view)
        first, rest, empty = today_first(waiting)
        total = sum(waiting.values())
        return core.render(
            request,
            "today.html",
            desk=desk,
            first=first,
            finals=[
                {"key": key, "label": label, "said": said, "href": href, "n": finals[key]}
                for key, (label, said, href) in FINALS.items()
                if finals[key]
            ],
            rest=rest,
            empty=empty,
            total=total,
        )

    @api.get("/system", include_in_schema=False)
    async def system(request: Request, desk: Chair) -> Response:
        stale = (desk.waiting or {}).get("stale", 0)
        backup = await run_in_threadpool(backup_state, desk.view)  # ops/backups.health
        spent = await run_in_threadpool(model_budgets.overview, desk.view)  # learning/budgets
        gold = await run_in_threadpool(upkeep.office_trend, desk.view)  # her citations' test
        return core.render(
            request,
            "system.html",
            desk=desk,
            stale=stale,
            backup=backup,
            budgets=spent,
            gold=gold,
        )


def today_first(waiting: dict[str, int]) -> tuple[list[dict], list[dict], list[dict]]:
    """The cards in today's order: (what waits for her decision and what is overdue, in
    DECIDE_FIRST then OVERDUE order; the other cards with something waiting; the cards with
    nothing waiting). Every card in exactly one of the three."""
    shown = {c["key"]: c for c in cards(waiting)}
    first = [shown[k] for k in (*DECIDE_FIRST, *OVERDUE) if shown[k]["n"]]
    placed = {c["key"] for c in first}
    rest = [c for c in shown.values() if c["key"] not in placed and c["n"]]
    empty = [c for c in shown.values() if not c["n"]]
    return first, rest, empty


def finals_waiting(view: Any) -> dict[str, int]:
    return her_finals.waiting(view)


def backup_state(view: Any) -> dict:
    """The nightly backup's last run and the newest backup it proved (ops/backups.health)."""
    with view.store.connection() as conn:
        return backups.health(conn, schedule_zone(view))
