"""/: "מה מחכה לי", the chair's first page — a card per thing that needs her (menu.CARDS), each
with its count, read once with the menu's badges (core.signed_in: menu.counts), and a link to
the page where she does it (the review queue, /review, at the card's lane: web/desk/review.py).
/system ("מערכת"): the pages that keep the system (health, the reminders and scheduled jobs),
gathered on one page, the nightly backup's state (red when its last run failed), the models'
daily budgets (learning/engine/budgets.py) and the trend of the search test built from her own
citations (ops/upkeep.office_trend). Hebrew only: what waits and where, never a setting or a command."""

from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from ...learning.engine import budgets as model_budgets
from ...ops import backups, upkeep
from ...ops.cron import schedule_zone
from . import core, menu


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
        groups = [(menu.GROUPS[g], g, cards(waiting, g)) for g in menu.GROUPS]
        total = sum(waiting.values())
        return core.render(request, "today.html", desk=desk, groups=groups, total=total)

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


def backup_state(view: Any) -> dict:
    """The nightly backup's last run and the newest backup it proved (ops/backups.health)."""
    with view.store.connection() as conn:
        return backups.health(conn, schedule_zone(view))
