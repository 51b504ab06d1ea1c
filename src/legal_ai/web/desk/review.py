"""/review ("לבדיקתי"): the chair's one review queue, keyboard-first. The items
and their filters are review_queue.py's, the page review_page.py's.

- GET /review: the queue, filtered (lane, kind, source, case) and sorted by the panel's
  confidence; the current item with its evidence beside it, the decisions that apply to it, the
  list of the others (to open one, or to mark some for a bulk decision), the undo of the last
  decision, and "לקח חדש", a lesson she writes herself.
- POST /review/decide: approve (and on to the next item), reject or veto (with a reason; a veto
  needs one), confirm or withdraw what the panel approved of principles. Each decision carries
  the status the page showed: an item decided elsewhere first is refused (errors.Stale) and the
  page says so beside it, with what she typed kept.
- POST /review/edit: her edit of a proposed lesson through lessons.edit (audited as hers), then,
  when she asks, its approval.
- POST /review/bulk: the marked lessons listed by their text, with a reason, before anything is
  done; then lessons.bulk_review. POST /review/undo: the chair's `reopen` of what she last
  decided (one item or the whole bulk action), a real reversal through the gate.
- POST /review/lesson: a lesson she writes herself (lessons.propose, source `chair`: approved).

The old addresses keep working: GET /training (and ?queue=…&item=…) answers with the queue at the
same lane, and the old forms' POSTs (/training/decide, /edit, /bulk, /lesson) are these routes."""

from typing import Annotated, Any

from fastapi import Depends, FastAPI, Query, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from ... import catalog
from ...errors import AppError, InvalidInput, NotFound, Stale
from ...learning.lessons import lessons
from ...text.case_numbers import case_id
from .. import errors as web_errors
from . import case_completion, core
from . import review_queue as rq
from .messages import refusal
from .review_page import Shown, after_decision, render, stale_panel

MAX_REASON = 2000
MAX_TEXT = 4000
NEW_LESSON = ("category", "text", "case_number", "block", "appeal_type", "outcome")
LESSON_MAX_CHARS = 4000  # as lessons.propose takes it
# a refusal of the service about one field (its `field`), shown beside it
_LESSON_FIELDS = {
    "lesson_category": "lesson-category",
    "case_number": "lesson-case",
    "lesson_text": "lesson-text",
}


def _ref(form: dict) -> str:
    """The posted item: `ref`, or an old form's `id` in its `queue` (principles or lessons)."""
    if form.get("ref"):
        return str(form["ref"])
    kind = "principle" if form.get("queue") == "principles" else "lesson"
    return f"{kind}-{str(form.get('id') or '').strip()}"


def _expected(form: dict, kind: str) -> str:
    expected = str(form.get("expected_status") or "")
    return "pending_review" if kind == "principle" and expected == "proposed" else expected


def _refs(raw: Any) -> list[str]:
    values = raw if isinstance(raw, list) else [raw] if raw else []
    return list(dict.fromkeys(str(v) for v in values))


def _next_url(filters: rq.Filters, form: dict, decision: str, refs: list[str], **extra) -> str:
    pairs = [("item", form.get("next") or None), ("done", decision)]
    pairs += [("last", r) for r in refs] + list(extra.items())
    return filters.url(*pairs)


def routes(api: FastAPI, signed_in: Any) -> None:
    Chair = Annotated[core.Desk, Depends(signed_in)]

    @api.get("/review", include_in_schema=False)
    async def review(
        request: Request,
        desk: Chair,
        item: str | None = None,
        done: str | None = None,
        last: Annotated[list[str] | None, Query()] = None,
        skipped: int = 0,
        undone: int | None = None,
        edited: int | None = None,
        added: int | None = None,
        reason: str | None = None,
    ) -> Response:
        filters = rq.Filters.of(request.query_params)
        shown = await run_in_threadpool(after_decision, desk.view, done, last or [], skipped)
        if undone is not None:
            shown.notice = (
                "ההחלטה בוטלה; הפריט חזר להכרעתך"
                if undone == 1
                else f"ההחלטה בוטלה: {undone} פריטים חזרו להכרעתך"
            )
            if skipped:
                shown.notice += f"; {skipped} לא בוטלו (הוכרעו שוב בינתיים)"
        if edited and not done:
            shown.notice = "העריכה נשמרה; עכשיו אפשר להחליט"
        if added:
            shown.notice = 'הלקח שכתבת נשמר ואושר (נכתב בידי היו"ר); הוא נכנס לתדריך הכותב'
        shown.reason = (reason or "")[:MAX_REASON] or None
        return await render(request, desk, filters, item, shown)

    @api.post("/review/decide", include_in_schema=False)
    @api.post("/training/decide", include_in_schema=False)
    async def decide(request: Request, desk: Chair) -> Response:
        form = await core.form_of(request, desk)
        filters = rq.Filters.of(form)
        ref = _ref(form)
        decision = str(form.get("decision") or "")
        reason = str(form.get("reason") or "").strip()[:MAX_REASON] or None
        try:
            kind, item_id = rq.parse_ref(ref)
            if decision == "reopen":  # an old page's undo
                await run_in_threadpool(
                    rq.reopen, desk.view, (kind, item_id), _expected(form, kind)
                )
                return RedirectResponse(filters.url(("item", ref), ("undone", 1)), 303)
            if decision in rq.REASON_NEEDED and not reason:
                said = "כתבי נימוק: הוא נשמר עם ההחלטה ומסביר אותה לפאנל"
                shown = Shown(status=400, errors={"reason": said})
                return await render(request, desk, filters, ref, shown)
            expected = _expected(form, kind)
            await run_in_threadpool(
                rq.decide, desk.view, (kind, item_id), decision, expected, reason
            )
        except Stale as exc:
            panel = await run_in_threadpool(stale_panel, desk.view, ref, exc, {"reason": reason})
            return await render(request, desk, filters, None, Shown(status=409, stale=panel))
        except (InvalidInput, NotFound) as exc:
            shown = Shown(status=web_errors.status_of(exc), reason=reason)
            shown.errors["decision"] = refusal("לא בוצע דבר", exc)
            return await render(request, desk, filters, ref, shown)
        return RedirectResponse(_next_url(filters, form, decision, [ref]), 303)

    @api.post("/review/edit", include_in_schema=False)
    @api.post("/training/edit", include_in_schema=False)
    async def edit(request: Request, desk: Chair) -> Response:
        """Her edit of a proposed lesson (lessons.edit: the chair only, audited), saved; then
        approved when she pressed "save and approve"."""
        form = await core.form_of(request, desk)
        filters = rq.Filters.of(form)
        ref = _ref(form)
        typed = {
            "text": str(form.get("text") or "")[:MAX_TEXT],
            "category": str(form.get("category") or ""),
        }
        approve = form.get("then") == "approve"
        reason = str(form.get("reason") or "").strip()[:MAX_REASON] or None
        try:
            kind, item_id = rq.parse_ref(ref)
            if kind != "lesson":
                raise InvalidInput("עריכה היא של לקחים בלבד")
            if not typed["text"].strip():
                shown = Shown(status=400, edit=typed, errors={"text": "נוסח הלקח ריק: כתבי אותו"})
                return await render(request, desk, filters, ref, shown)

            def act() -> None:
                lessons.edit(
                    desk.view,
                    item_id,
                    text=typed["text"],
                    category=typed["category"] or None,
                    expected_status="proposed",
                )
                if approve:
                    rq.decide(desk.view, (kind, item_id), "approve", "proposed", reason)

            await run_in_threadpool(act)
        except Stale as exc:
            panel = await run_in_threadpool(stale_panel, desk.view, ref, exc, typed)
            return await render(request, desk, filters, None, Shown(status=409, stale=panel))
        except (InvalidInput, NotFound) as exc:
            shown = Shown(status=web_errors.status_of(exc), edit=typed)
            shown.errors["text"] = refusal("העריכה לא נשמרה", exc)
            return await render(request, desk, filters, ref, shown)
        if approve:
            return RedirectResponse(_next_url(filters, form, "approve", [ref], edited=1), 303)
        return RedirectResponse(filters.url(("item", ref), ("edited", 1)), 303)

    @api.post("/review/bulk", include_in_schema=False)
    @api.post("/training/bulk", include_in_schema=False)
    async def bulk(request: Request, desk: Chair) -> Response:
        form = await core.form_of(request, desk)
        filters = rq.Filters.of(form)
        decision = str(form.get("decision") or "")
        refs = _refs(form.get("refs")) or [f"lesson-{i}" for i in _refs(form.get("ids"))]
        if decision not in rq.BULK:
            raise InvalidInput("פעולה מרוכזת היא אישור, דחייה או וטו של לקחים")
        chosen = await run_in_threadpool(_marked, desk.view, refs, decision)
        if not chosen["items"]:
            said = "לא סומן אף לקח שההחלטה הזאת חלה עליו: סמני לקחים ברשימה"
            return await render(request, desk, filters, None, Shown(status=400, message=said))
        reason = str(form.get("reason") or "").strip()[:MAX_REASON] or None
        errors = {}
        if form.get("confirm") == "yes" and decision in rq.REASON_NEEDED and not reason:
            errors["reason"] = "כתבי נימוק לווטו: הוא נשמר עם כל אחד מהלקחים"
        if form.get("confirm") != "yes" or errors:
            confirm = {"decision": decision, "reason": reason, **chosen}
            shown = Shown(status=400 if errors else 200, bulk=confirm, errors=errors)
            return await render(request, desk, filters, None, shown)
        ids = [rq.parse_ref(i["ref"])[1] for i in chosen["items"]]
        result = await run_in_threadpool(
            lessons.bulk_review, desk.view, ids, decision, reason=reason or "פעולה מרוכזת"
        )
        decided = [rq.ref_of("lesson", row["id"]) for row in result["decided"]]
        skipped = len(result["skipped"]) + len(chosen["skipped"])
        if not decided:
            said = "לא בוצע דבר: כל הלקחים המסומנים הוכרעו בינתיים; הדף מציג את המצב הנוכחי"
            return await render(request, desk, filters, None, Shown(status=409, message=said))
        url = filters.url(("done", decision), *(("last", r) for r in decided))
        return RedirectResponse(url + (f"&skipped={skipped}" if skipped else ""), 303)

    @api.post("/review/undo", include_in_schema=False)
    async def undo(request: Request, desk: Chair) -> Response:
        """The chair's `reopen` of the items she last decided, each expected in `status`."""
        form = await core.form_of(request, desk)
        filters = rq.Filters.of(form)
        refs = _refs(form.get("refs"))[: rq.MAX_LISTED]
        status = str(form.get("status") or "")
        reason = str(form.get("reason") or "").strip()[:MAX_REASON] or None
        undone, refused = await run_in_threadpool(_reopen_all, desk.view, refs, status)
        if not undone:
            message = refusal("לא בוטל דבר", refused[0]) if refused else "לא סומן דבר לביטול"
            return await render(request, desk, filters, None, Shown(status=409, message=message))
        extra = [("item", undone[0]), ("undone", len(undone)), ("reason", reason)]
        extra += [("skipped", len(refused))] if refused else []
        return RedirectResponse(filters.url(*extra), 303)

    @api.post("/review/lesson", include_in_schema=False)
    @api.post("/training/lesson", include_in_schema=False)
    async def write_lesson(request: Request, desk: Chair) -> Response:
        """A lesson the chair writes herself: lessons.propose with source `chair`, approved."""
        form = await core.form_of(request, desk)
        filters = rq.Filters.of(form)
        written = {k: str(form.get(k) or "").strip() for k in NEW_LESSON}
        errors = await run_in_threadpool(lambda: _lesson_errors(desk, written))
        if errors:
            shown = Shown(status=400, written=written)
            shown.errors.update(errors)
            return await render(request, desk, filters, None, shown)
        try:
            await run_in_threadpool(
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
            shown = Shown(status=web_errors.status_of(exc), written=written)
            field = _LESSON_FIELDS.get(catalog.of(exc)[1] or "", "lesson")
            shown.errors[field] = refusal("הלקח לא נשמר", exc)
            return await render(request, desk, filters, None, shown)
        return RedirectResponse(filters.url(("added", 1)), 303)

    @api.get("/training", include_in_schema=False)
    async def training(request: Request, desk: Chair) -> Response:
        """The old address of the queues: the same lane of the one queue (and the same item)."""
        queue = request.query_params.get("queue") or ""
        item = request.query_params.get("item") or ""
        kind = "principle" if queue == "principles" else "lesson"
        filters = rq.Filters.of({"lane": queue})
        return RedirectResponse(
            filters.url(("item", f"{kind}-{item}" if item.isdigit() else None)), 303
        )


def _lesson_errors(desk: core.Desk, written: dict) -> dict[str, str]:
    """What is wrong with the lesson she wrote, in Hebrew, by the field it is about (the form
    shows each beside its field; what she typed is kept); her case number completed ("8092/24"
    naming one of her cases) in `written`."""
    errors = {}
    if not written["text"]:
        errors["lesson-text"] = "כתבי את נוסח הלקח"
    elif len(written["text"]) > LESSON_MAX_CHARS:
        errors["lesson-text"] = f"הלקח ארוך מ-{LESSON_MAX_CHARS:,} תווים; קצרי אותו"
    typed = written["case_number"]
    if typed:
        if case_id(typed) is None:
            errors["lesson-case"] = "מספר התיק אינו נקרא; כתבי אותו כמו ערר (מרכז) 1042/23"
            return errors
        with desk.view.store.connection() as conn:
            found = case_completion.complete(conn, typed)
        if found.several:
            errors["lesson-case"] = "המספר מתאים לכמה תיקים: " + ", ".join(found.several)
        elif not found.known:
            errors["lesson-case"] = "אין תיק כזה; בדקי את המספר, או השאירי את השדה ריק"
        else:
            written["case_number"] = found.number
    return errors


def _marked(view: Any, refs: list[str], decision: str) -> dict:
    """The marked items a bulk `decision` applies to (lessons offering it) and the rest."""
    wanted = set(refs[: rq.MAX_LISTED])
    found = [i for i in rq.load(view) if i["ref"] in wanted]
    applies = [i for i in found if i["kind"] == "lesson" and decision in i["actions"]]
    others = [i for i in found if i not in applies]
    return {"items": applies, "skipped": others, "gone": len(wanted) - len(found)}


def _reopen_all(view: Any, refs: list[str], status: str) -> tuple[list[str], list[AppError]]:
    undone: list[str] = []
    refused: list[AppError] = []
    for ref in refs:
        try:
            rq.reopen(view, rq.parse_ref(ref), status)
            undone.append(ref)
        except (InvalidInput, NotFound) as exc:
            refused.append(exc)
    return undone, refused
