"""/health/technical (the maintainer's page; hers is /health, health_page.py): what cannot be searched and why, stale embeddings, the isolation audit and whether
the database enforces the roles (App.health), and each scheduled job's last outcome; the upkeep's
reasons in Hebrew (pages_hebrew.health_notes). The cases' pages are cases.py."""

from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from ...ops import rechecks
from ...ops import scheduler as schedule
from ...ops.health import Health
from ...ops.health import report as health_report
from . import core, health_page
from .pages_hebrew import health_notes


def routes(api: FastAPI, signed_in: Any) -> None:
    Chair = Annotated[core.Desk, Depends(signed_in)]

    @api.get("/health", include_in_schema=False)
    async def her_health(request: Request, desk: Chair) -> Response:
        """Her page: is the work running, the last proven backup, what waits or stopped, what
        to tell the engineer (health_page.state)."""
        found = await run_in_threadpool(health_page.state, desk.view, desk.alarm)
        return core.render(request, "health_chair.html", desk=desk, s=found)

    @api.get("/health/technical", include_in_schema=False)
    async def health(request: Request, desk: Chair) -> Response:
        """App.health() and, beside it, each scheduled job's last outcome (schedule.list_jobs);
        the upkeep's reasons in Hebrew (health_notes)."""

        def load() -> tuple[Health, schedule.JobList]:
            return (
                health_report(desk.view, rechecks.MODEL_FRESH),
                schedule.list_jobs(desk.view),
            )

        report, jobs = await run_in_threadpool(load)
        return core.render(
            request, "health.html", desk=desk, h=report, jobs=jobs, notes=health_notes(report)
        )
