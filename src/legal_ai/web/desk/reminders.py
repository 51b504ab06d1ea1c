"""/reminders: the stale-case reminder list (scheduled_jobs.reminders: cases whose ledger has
not moved for LEGAL_AI_STALE_CASE_DAYS days, longest idle first) and the scheduled jobs with
their next run and last outcome (schedule.list_jobs), a failed one marked. Read-only: the
jobs run in `legal-ai worker` (or `legal-ai jobs run NAME`)."""

from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from ...ops import scheduler as schedule
from ...ops.tasks import reminders
from . import core


def routes(api: FastAPI, signed_in: Any) -> None:
    Chair = Annotated[core.Desk, Depends(signed_in)]

    @api.get("/reminders", include_in_schema=False)
    async def reminders_page(request: Request, desk: Chair) -> Response:
        def load() -> dict:
            return {"r": reminders(desk.view), "jobs": schedule.list_jobs(desk.view)}

        data = await run_in_threadpool(load)
        return core.render(request, "reminders.html", desk=desk, **data)
