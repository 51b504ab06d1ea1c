"""/health: what cannot be searched and why, stale embeddings, the isolation audit and whether
the database enforces the roles (App.health)."""

from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from ...config import Settings
from . import core


def routes(api: FastAPI, signed_in: Any, settings: Settings) -> None:
    Chair = Annotated[core.Desk, Depends(signed_in)]

    @api.get("/health", include_in_schema=False)
    async def health(request: Request, desk: Chair) -> Response:
        report = await run_in_threadpool(desk.view.health)
        return core.render(request, "health.html", desk=desk, h=report)
