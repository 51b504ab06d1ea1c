"""/training/treatments: what became of the library's rulings, for the chair to confirm
(learning/library/treatment.py, docs/verification.md "Treatment").

A petition or appeal in the library against one of its rulings is read by the system's rules (or
a model): which decision it attacks and what its operative words did to it (set aside, upheld,
set aside in part, returned, unread). Until she confirms a reading it is shown everywhere as
unconfirmed (the draft check, HTTP, MCP); she confirms it, rejects it (it is no longer shown as the
ruling's treatment) or reopens one she decided. The page shows, for each reading, the ruling, the
later ruling with its operative words quoted, who read it, and the form.

Every form is a POST with the session's CSRF token (core.form_of) and runs as the signed-in chair
(`desk.view`); the service's require_chair and the database's gate (treatments_gate, migration
0037) apply. A decision carries the status the page showed: when another tab decided meanwhile,
nothing changes and the page says so. Refusals are Hebrew messages on the page, never a trace."""

from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from ...errors import AppError, InvalidInput, NotFound
from ...learning.library import treatment as service
from . import core, labels

PATH = "/training/treatments"
MAX_SHOWN = 100  # readings per list
MAX_REASON = 2000
STATUS_LABELS = labels.TREATMENT_STATUS


def hebrew(exc: AppError) -> str:
    return core.in_hebrew(exc, labels=STATUS_LABELS, missing="הקריאה לא נמצאה (אולי נמחקה בינתיים)")


def reader(read_by: str | None) -> str:
    """Who read it, in Hebrew: the system's rules, or a model (its name kept out of the page)."""
    return labels.label((read_by or "").split(":", 1)[0], "treatment_reader")


def _load(view: Any) -> dict:
    rows = service.list_treatments(view)["treatments"]
    by_status: dict[str, list[dict]] = {s: [] for s in service.STATUSES}
    for row in reversed(rows):  # newest first
        by_status[row["status"]].append({**row, "reader": reader(row["read_by"])})
    return {
        "pending": by_status["unconfirmed"][:MAX_SHOWN],
        "decided": sorted(
            by_status["confirmed"] + by_status["rejected"], key=lambda r: r["id"], reverse=True
        )[:MAX_SHOWN],
        "totals": {s: len(v) for s, v in by_status.items()},
    }


def routes(api: FastAPI, signed_in: Any) -> None:
    Chair = Annotated[core.Desk, Depends(signed_in)]

    page, refused = core.queue_page(
        "treatments.html", _load, hebrew, statuses=STATUS_LABELS, max_reason=MAX_REASON
    )

    @api.get(PATH, include_in_schema=False)
    async def treatments_page(
        request: Request, desk: Chair, done: str | None = None, treatment: int | None = None
    ) -> Response:
        notice = None
        if treatment is not None and done in labels.TREATMENT_DONE:
            notice = labels.TREATMENT_DONE[done]
        return await page(request, desk, notice=notice)

    @api.post(PATH + "/decide", include_in_schema=False)
    async def decide(request: Request, desk: Chair) -> Response:
        """Confirm, reject or reopen a reading; the status the page showed is checked first."""
        form = await core.form_of(request, desk)
        try:
            decision, item_id, reason, expected = core.decision_form(
                form, service.DECISIONS, "אישור, דחייה או החזרה להמתנה", "הקריאה", MAX_REASON
            )
            await run_in_threadpool(service.review, desk.view, item_id, decision, reason, expected)
        except (InvalidInput, NotFound) as exc:
            return await refused(request, desk, exc)
        return RedirectResponse(f"{PATH}?done={decision}&treatment={item_id}", 303)
