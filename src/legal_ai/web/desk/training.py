"""/audit: the trail of the decisions on lessons, newest first, a page at a time. (The queues
that /training held are one queue now, /review: web/desk/review.py, which also answers the old
/training addresses.)"""

from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from ...store import desk as desk_store
from . import core, labels

AUDIT_PAGE = 50


def routes(api: FastAPI, signed_in: Any) -> None:
    Chair = Annotated[core.Desk, Depends(signed_in)]

    @api.get("/audit", include_in_schema=False)
    async def audit(request: Request, desk: Chair, page_no: int = 1) -> Response:
        page_no = max(1, min(page_no, 100_000))

        def load() -> tuple[list[dict], int]:
            with desk.view.store.connection() as conn:
                return desk_store.audit_page(conn, AUDIT_PAGE, (page_no - 1) * AUDIT_PAGE)

        rows, total = await run_in_threadpool(load)
        pages = max(1, -(-total // AUDIT_PAGE))
        return core.render(
            request,
            "audit.html",
            desk=desk,
            rows=rows,
            total=total,
            page_no=page_no,
            pages=pages,
            statuses=labels.STATUS,
        )
