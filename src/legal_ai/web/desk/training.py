"""/training: the chair's queues, one item at a time with its evidence; /audit: the trail.

A queue is a `Queue` in QUEUES (training_queues.py, with the page a queue renders): where its
items come from, which decisions it offers and how a decision is made. Proposed lessons, panel escalations (needs_chair) and curator findings are
lessons (lessons.review, the gate); principles pending review go through App.review_principle.
A queue added later (the principles lifecycle) is one more entry, with no change to the pages.

Every decision carries the status the page showed (`expected_status`): when another tab or the
panel decided the item meanwhile, nothing changes and the page says who did. Undo is the chair's
`reopen` (a real reversal through the gate, audited like any decision). Bulk decisions show the
count and ask before acting (lessons.bulk_review). A lesson the chair writes herself ("לקח
חדש": lessons.propose with source `chair`, as `legal-ai lessons add`) is created approved."""

from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from ...errors import AppError, InvalidInput, NotFound, Stale
from ...learning import lessons
from ...store import desk as desk_store
from .. import errors as web_errors
from . import core
from .messages import refusal
from .training_queues import (
    AUDIT_PAGE,
    DECISION_LABELS,
    STATUS_LABELS,
    item_ids,
    page,
    queue_of,
)


def routes(api: FastAPI, signed_in: Any) -> None:
    Chair = Annotated[core.Desk, Depends(signed_in)]

    @api.get("/training", include_in_schema=False)
    async def training(
        request: Request,
        desk: Chair,
        queue: str | None = None,
        item: int | None = None,
        last: int | None = None,
        was: str | None = None,
        done: str | None = None,
        edited: int | None = None,
        added: int | None = None,
    ) -> Response:
        chosen = queue_of(queue)
        undo = None
        notice = f"לקח {item}: העריכה נשמרה; עכשיו אפשר להחליט" if edited and item else None
        if added:
            notice = f'לקח {added} נשמר ואושר (נכתב בידי היו"ר); הוא נכנס לתדריך הכותב'
        if last is not None and done in DECISION_LABELS and was in STATUS_LABELS:
            notice = f"פריט {last}: {DECISION_LABELS[done]} — {STATUS_LABELS[was]}"
            if chosen.undo and done != "reopen":
                undo = {"id": last, "status": was}
        return await page(request, desk, chosen, item_id=item, notice=notice, last=undo)

    @api.post("/training/decide", include_in_schema=False)
    async def decide(request: Request, desk: Chair) -> Response:
        form = await core.form_of(request, desk)
        queue = queue_of(form.get("queue"))
        decision = str(form.get("decision") or "")
        allowed = (*queue.decisions, *(("reopen",) if queue.undo else ()))
        if decision not in allowed:
            raise InvalidInput(f"החלטה לא מוכרת {decision!r}")
        (item_id,) = item_ids(form.get("id")) or [None]
        if item_id is None:
            raise InvalidInput("חסר מזהה הפריט")
        expected = str(form.get("expected_status") or "") or None
        reason = str(form.get("reason") or "").strip() or None
        try:
            row = await run_in_threadpool(
                queue.decide, desk.view, item_id, decision, expected, reason
            )
        except (InvalidInput, NotFound) as exc:
            said = core.stale_text(exc, STATUS_LABELS) if isinstance(exc, Stale) else exc
            return await page(
                request,
                desk,
                queue,
                item_id=None,
                status=web_errors.status_of(exc),
                message=refusal("לא בוצע דבר", said) + " הדף עודכן למצב הנוכחי.",
            )
        status = row.get("review_status", "")
        url = f"/training?queue={queue.key}&last={item_id}&was={status}&done={decision}"
        return RedirectResponse(url, 303)

    @api.post("/training/edit", include_in_schema=False)
    async def edit(request: Request, desk: Chair) -> Response:
        """Approve with an edit: the chair changes a proposed lesson's text or category (the
        item stays in its queue for her decision)."""
        form = await core.form_of(request, desk)
        queue = queue_of(form.get("queue"))
        if queue.kind != "lesson":
            raise InvalidInput("עריכה היא של לקחים בלבד")
        (item_id,) = item_ids(form.get("id")) or [None]
        if item_id is None:
            raise InvalidInput("חסר מזהה הפריט")
        expected = str(form.get("expected_status") or "") or "proposed"
        try:
            await run_in_threadpool(
                lambda: lessons.edit(
                    desk.view,
                    item_id,
                    text=form.get("text") or None,
                    category=form.get("category") or None,
                    expected_status=expected,
                )
            )
        except (InvalidInput, NotFound) as exc:
            return await page(
                request,
                desk,
                queue,
                item_id=item_id,
                status=409,
                message=refusal("העריכה לא נשמרה", exc),
            )
        return RedirectResponse(f"/training?queue={queue.key}&item={item_id}&edited=1", 303)

    @api.post("/training/lesson", include_in_schema=False)
    async def write_lesson(request: Request, desk: Chair) -> Response:
        """A lesson the chair writes herself (style or substance, with or without a case):
        lessons.propose with source `chair`, created approved under her role."""
        form = await core.form_of(request, desk)
        fields = ("category", "text", "case_number", "block", "appeal_type", "outcome")
        written = {k: str(form.get(k) or "").strip() for k in fields}
        try:
            row = await run_in_threadpool(
                lambda: lessons.propose(
                    desk.view,
                    written["case_number"] or None,
                    written["category"],
                    written["text"],
                    source="chair",
                    block=written["block"] or None,
                    appeal_type=written["appeal_type"] or None,
                    outcome=written["outcome"] or None,
                )
            )
        except AppError as exc:
            return await page(
                request,
                desk,
                queue_of(None),
                item_id=None,
                status=web_errors.status_of(exc),
                message=refusal("הלקח לא נשמר", exc),
                written=written,
            )
        return RedirectResponse(f"/training?added={row['id']}", 303)

    @api.post("/training/bulk", include_in_schema=False)
    async def bulk(request: Request, desk: Chair) -> Response:
        form = await core.form_of(request, desk)
        queue = queue_of(form.get("queue"))
        decision = str(form.get("decision") or "")
        if not queue.bulk or decision not in ("approve", "reject"):
            raise InvalidInput("פעולה מרוכזת היא אישור או דחייה של לקחים בלבד")
        ids = item_ids(form.get("ids"))
        if not ids:
            return await page(
                request,
                desk,
                queue,
                item_id=None,
                status=400,
                message="לא סומן אף פריט לפעולה המרוכזת",
            )
        if form.get("confirm") != "yes":
            return core.render(
                request,
                "confirm.html",
                desk=desk,
                queue=queue,
                ids=ids,
                decision=decision,
                label=DECISION_LABELS[decision],
            )
        reason = f"פעולה מרוכזת ({len(ids)} פריטים)"
        result = await run_in_threadpool(
            lessons.bulk_review, desk.view, ids, decision, reason=reason
        )
        decided = len(result["decided"])
        skipped = result["skipped"]
        notice = f"{DECISION_LABELS[decision]}: {decided} מתוך {len(ids)} בוצעו"
        message = None
        if skipped:
            message = refusal("דולגו", "; ".join(f"{s['id']}: {s['reason']}" for s in skipped))
        return await page(request, desk, queue, item_id=None, notice=notice, message=message)

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
            statuses=STATUS_LABELS,
        )
