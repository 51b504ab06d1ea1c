"""/methodology: the chair's methodology profiles (`universal` and one per appeal type) edited in
forms, never as raw JSON; their versions, a diff between two, and a one-click restore.

A profile's keys become fields: a heading pattern per block and the signature's start (regular
expressions), a golden ratio per block (a number from 0 to 1), and one-item-per-line textareas
for the discussion rules, the content checklist of each outcome, transition phrases,
anti-patterns and voice invariants. Folded lessons are listed, each with her veto (with a
reason: out of every profile that holds it, POST /methodology/TYPE/veto). On save only the keys whose value changed are sent, through
`methodology.edit` (its pydantic schema and time-boxed regex checks decide; nothing is saved
when it refuses). Before that each field is checked on its own — the same checks: the pattern
compiled and time-boxed by `text.blocks.check_pattern`, the changed keys against
`methodology.ProfileChanges` — so that each error is shown in Hebrew next to its field. The
form carries the version it was loaded from: when the profile was saved meanwhile (another tab)
nothing is saved and the page says so. Every save is a new version; history, diff and restore
are `methodology.history`, `.diff` and `.restore` (restore: a new version equal to the old).
The form's fields, their checks and the diff's lines are methodology_form.py."""

from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from ...errors import InvalidInput, NotFound
from ...learning import vocabulary as vocab
from ...learning.lessons import lessons
from ...learning.methodology import profiles as methodology
from ...text import blocks as text_blocks
from . import core, labels
from .messages import refusal
from .methodology_form import (
    BLOCK_LABELS,
    CHECKLISTS,
    HEADED,
    LISTS,
    OUTCOME_LABELS,
    diff_rows,
    fields_of,
    parse,
)

TYPES = ("universal", *vocab.APPEAL_TYPES)
TYPE_LABELS = labels.APPEAL_TYPE  # the one dictionary (labels.py)


# -- the pages ----------------------------------------------------------------------------------
def _type(appeal_type: str) -> str:
    if appeal_type not in TYPES:
        raise NotFound(f"אין פרופיל מתודולוגיה בשם '{appeal_type}'; הסוגים: " + ", ".join(TYPES))
    return appeal_type


def routes(api: FastAPI, signed_in: Any) -> None:
    Chair = Annotated[core.Desk, Depends(signed_in)]

    async def page(
        request: Request,
        desk: core.Desk,
        appeal_type: str,
        status: int = 200,
        values: dict | None = None,
        **context: Any,
    ) -> Response:
        def load() -> tuple[dict, dict]:
            return (
                methodology.show(desk.view, appeal_type),
                methodology.history(desk.view, appeal_type),
            )

        shown, history = await run_in_threadpool(load)
        return core.render(
            request,
            "methodology.html",
            status=status,
            desk=desk,
            appeal_type=appeal_type,
            types=TYPES,
            type_labels=TYPE_LABELS,
            shown=shown,
            versions=history["versions"],
            values=values if values is not None else fields_of(shown["profile"]),
            lessons=shown["profile"].get("lessons") or [],
            headed=HEADED,
            blocks=text_blocks.BLOCKS,
            block_labels=BLOCK_LABELS,
            lists=LISTS,
            checklists=CHECKLISTS,
            outcome_labels=OUTCOME_LABELS,
            errors=context.pop("errors", {}),
            **context,
        )

    @api.get("/methodology", include_in_schema=False)
    async def methodology_home(desk: Chair) -> Response:
        return RedirectResponse("/methodology/universal", 303)

    @api.get("/methodology/{appeal_type}", include_in_schema=False)
    async def methodology_page(
        request: Request,
        appeal_type: str,
        desk: Chair,
        saved: int = 0,
        restored: int = 0,
        source: int = 0,
        dropped: int = 0,
        same: int = 0,
        vetoed: int = 0,
    ) -> Response:
        notice = None
        if saved:
            notice = f"נשמרה גרסה {saved}"
        elif restored:
            notice = f"גרסה {source} שוחזרה כגרסה חדשה, {restored}"
            if dropped:
                notice += f"; {dropped} לקחים שנפסלו מאז לא הוחזרו"
        elif same:
            notice = "לא היה שינוי בשדות; לא נשמרה גרסה חדשה"
        elif vetoed:
            notice = "הלקח נפסל (וטו) והוצא מכל פרופיל שבו היה משולב"
        return await page(request, desk, _type(appeal_type), notice=notice)

    @api.post("/methodology/{appeal_type}/veto", include_in_schema=False)
    async def veto(request: Request, appeal_type: str, desk: Chair) -> Response:
        """Her veto of a lesson folded into the profile (lessons.review, as from the queue):
        out of every profile that holds it; a reason needed, said beside the lesson."""
        appeal_type = _type(appeal_type)
        form = await core.form_of(request, desk)
        lesson = str(form.get("lesson") or "")
        reason = str(form.get("reason") or "").strip()[:2000]
        if not lesson.isdigit():
            raise InvalidInput("the lesson was not named; reload the page")
        if not reason:
            said = "כתבי נימוק: הוא נשמר עם הווטו ומסביר אותו לפאנל"
            return await page(request, desk, appeal_type, 400, errors={f"veto-{lesson}": said})
        try:
            await run_in_threadpool(
                lambda: lessons.review(
                    desk.view, int(lesson), "veto", reason=reason, expected_status="approved"
                )
            )
        except (InvalidInput, NotFound) as exc:
            said = refusal("הווטו לא בוצע", exc)  # beside the lesson, and above (it may be gone)
            return await page(
                request, desk, appeal_type, 409, errors={f"veto-{lesson}": said}, message=said
            )
        return RedirectResponse(f"/methodology/{appeal_type}?vetoed=1#lessons", 303)

    @api.post("/methodology/{appeal_type}", include_in_schema=False)
    async def save(request: Request, appeal_type: str, desk: Chair) -> Response:
        appeal_type = _type(appeal_type)
        form = await core.form_of(request, desk)
        loaded = str(form.get("version") or "")
        values = {name: str(form.get(name) or "") for name in fields_of({})}
        shown = await run_in_threadpool(methodology.show, desk.view, appeal_type)
        if loaded != str(shown["version"]):
            return await page(
                request,
                desk,
                appeal_type,
                status=409,
                values=values,
                message=f"הפרופיל נשמר בינתיים כגרסה {shown['version']} (על ידי "
                f"{labels.label(shown['updated_by'], 'actor')}); לא נשמר דבר — טעני את הדף מחדש וערכי שוב",
            )
        changes, errors = await run_in_threadpool(parse, form, shown["profile"])
        if errors:
            return await page(
                request,
                desk,
                appeal_type,
                status=400,
                values=values,
                errors=errors,
                message="לא נשמר דבר: תקני את השדות המסומנים",
            )
        if not changes:
            return RedirectResponse(f"/methodology/{appeal_type}?same=1", 303)
        reason = str(form.get("reason") or "").strip() or "עריכה בדסק"
        try:
            saved = await run_in_threadpool(
                methodology.edit, desk.view, appeal_type, changes, reason=reason
            )
        except InvalidInput as exc:
            return await page(
                request,
                desk,
                appeal_type,
                status=400,
                values=values,
                message=refusal("לא נשמר דבר", exc),
            )
        return RedirectResponse(f"/methodology/{appeal_type}?saved={saved['version']}", 303)

    @api.get("/methodology/{appeal_type}/diff", include_in_schema=False)
    async def diff(request: Request, appeal_type: str, desk: Chair, a: int, b: int) -> Response:
        appeal_type = _type(appeal_type)

        def load() -> tuple[dict, dict]:
            return (
                methodology.diff(desk.view, appeal_type, a, b),
                methodology.history(desk.view, appeal_type),
            )

        result, history = await run_in_threadpool(load)
        current = history["versions"][0]["version"]
        return core.render(
            request,
            "methodology_diff.html",
            desk=desk,
            appeal_type=appeal_type,
            type_labels=TYPE_LABELS,
            a=a,
            b=b,
            current=current,
            versions={v["version"]: v for v in history["versions"]},
            rows=diff_rows(result["changes"]),
        )

    @api.post("/methodology/{appeal_type}/restore", include_in_schema=False)
    async def restore(request: Request, appeal_type: str, desk: Chair) -> Response:
        appeal_type = _type(appeal_type)
        form = await core.form_of(request, desk)
        raw = str(form.get("version") or "")
        if not raw.isdigit():
            raise InvalidInput(f"גרסה לשחזור היא מספר שלם; התקבל '{raw}'")
        result = await run_in_threadpool(
            methodology.restore,
            desk.view,
            appeal_type,
            int(raw),
            str(form.get("reason") or "").strip() or None,
        )
        return RedirectResponse(
            f"/methodology/{appeal_type}?restored={result['version']}&source={raw}"
            f"&dropped={len(result['dropped_lessons'])}",
            303,
        )
