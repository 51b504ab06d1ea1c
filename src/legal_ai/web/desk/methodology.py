"""/methodology: the chair's methodology profiles (`universal` and one per appeal type) edited in
forms, never as raw JSON or regular expressions; every change a version she steps back from.

A profile's keys become fields: the phrases of each block's heading and of the signature's
start (one a line; text/phrases.py builds the escaped pattern), a golden ratio per block (a
number from 0 to 1), and one-item-per-line textareas for the discussion rules, the content
checklist of each outcome, transition phrases, anti-patterns and voice invariants. Beside each
rule a preview (POST /methodology/TYPE/preview, the whole form kept): which of her finals'
lines or sentences it would match (learning/methodology/preview.py). Lessons that reach the
writer are listed — folded into the profile, and approved but not yet folded — each with her
veto (with a reason; the database's gate decides, as from the CLI: POST
/methodology/TYPE/veto). On save only the keys whose value changed are sent, through
`methodology.edit` (its pydantic schema and time-boxed pattern checks decide; nothing is saved
when it refuses); each error is shown in Hebrew next to its field. The form carries the version
it was loaded from: when the profile was saved meanwhile (another tab) nothing is saved and the
page says so. Every save is a new version: the steps are listed newest first with their date
(Israel's clock) and what each changed in words (methodology_steps.py); "ביטול הצעד האחרון"
steps back one change at a time (learning/methodology/undo.py), and any version can be
restored or diffed (`methodology.restore`, `.diff`). The form's fields, their checks and the
diff's lines are methodology_form.py."""

from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from ...errors import InvalidInput, NotFound
from ...learning import vocabulary as vocab
from ...learning.lessons import lessons
from ...learning.methodology import preview as methodology_preview
from ...learning.methodology import profiles as methodology
from ...learning.methodology import undo as methodology_undo
from ...text import blocks as text_blocks
from . import core, labels
from .messages import refusal
from .methodology_form import (
    BLOCK_LABELS,
    CHECKLISTS,
    HEADED,
    LISTS,
    OUTCOME_LABELS,
    RULES,
    advanced,
    diff_rows,
    fields_of,
    parse,
    phrases_of,
)
from .methodology_steps import DESK_DEFAULT, shown_steps

TYPES = ("universal", *vocab.APPEAL_TYPES)
TYPE_LABELS = labels.APPEAL_TYPE  # the one dictionary (labels.py)
# The fields with a preview of what they match in her finals, and how each is matched.
PREVIEWED: dict[str, methodology_preview.Kind] = {
    **{name: "heading" for name in RULES if name != "signature_start"},
    "signature_start": "signature",
    "list.transition_phrases": "phrase",
    "list.anti_patterns": "phrase",
}


def _unfolded(view: Any, appeal_type: str) -> list[dict]:
    """Lessons she (or the panel) approved that no promote folded yet, of this profile: the
    general ones on `universal`, a type's own on its page. They reach the writer as they are."""
    rows = lessons.list_lessons(view, status="approved")["lessons"]
    wanted = None if appeal_type == "universal" else appeal_type
    return [r for r in rows if r.get("folded_into") is None and r.get("appeal_type") == wanted]


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
        def load() -> tuple[dict, dict, list[dict]]:
            return (
                methodology.show(desk.view, appeal_type),
                methodology_undo.steps(desk.view, appeal_type),
                _unfolded(desk.view, appeal_type),
            )

        shown, steps, unfolded = await run_in_threadpool(load)
        return core.render(
            request,
            "methodology.html",
            status=status,
            desk=desk,
            appeal_type=appeal_type,
            types=TYPES,
            type_labels=TYPE_LABELS,
            shown=shown,
            steps=shown_steps(steps["steps"]),
            undo_to=steps["undo_to"],
            values=values if values is not None else fields_of(shown["profile"]),
            advanced=advanced(shown["profile"]),
            lessons=shown["profile"].get("lessons") or [],
            unfolded=unfolded,
            headed=HEADED,
            blocks=text_blocks.BLOCKS,
            block_labels=BLOCK_LABELS,
            lists=LISTS,
            checklists=CHECKLISTS,
            outcome_labels=OUTCOME_LABELS,
            previewed=PREVIEWED,
            previews=context.pop("previews", {}),
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
        undone: int = 0,
    ) -> Response:
        notice = None
        if saved:
            notice = f"נשמרה גרסה {saved}"
        elif undone:
            notice = (
                f"הצעד האחרון בוטל: המתודולוגיה חזרה למצב של גרסה {source} (נשמר כגרסה {undone})"
            )
        elif restored:
            notice = f"גרסה {source} שוחזרה כגרסה חדשה, {restored}"
            if dropped:
                notice += f"; {dropped} לקחים שנפסלו מאז לא הוחזרו"
        elif same:
            notice = "לא היה שינוי בשדות; לא נשמרה גרסה חדשה"
        elif vetoed:
            notice = "הלקח נפסל (וטו): הכותב לא יקרא אותו עוד, והוא הוצא מכל פרופיל שבו היה משולב"
        return await page(request, desk, _type(appeal_type), notice=notice)

    @api.post("/methodology/{appeal_type}/veto", include_in_schema=False)
    async def veto(request: Request, appeal_type: str, desk: Chair) -> Response:
        """Her veto of a lesson that reaches the writer — folded into the profile, or approved
        and not yet folded (lessons.review, as the CLI's veto and the queue's: the database's
        gate decides, only as her): out of every profile that holds it; a reason needed, said
        beside the lesson."""
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
        reason = str(form.get("reason") or "").strip() or DESK_DEFAULT
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

    @api.post("/methodology/{appeal_type}/undo", include_in_schema=False)
    async def undo(request: Request, appeal_type: str, desk: Chair) -> Response:
        """One step back (methodology_undo.undo) from the version her page showed."""
        appeal_type = _type(appeal_type)
        form = await core.form_of(request, desk)
        raw = str(form.get("version") or "")
        if not raw.isdigit():
            raise InvalidInput("the page's version was not sent; reload the page")
        try:
            result = await run_in_threadpool(
                methodology_undo.undo, desk.view, appeal_type, int(raw)
            )
        except InvalidInput as exc:
            said = (
                "אין צעד קודם לבטל: זו הגרסה הראשונה"
                if "first change" in str(exc)
                else "המתודולוגיה נשמרה בינתיים בלשונית אחרת; לא בוטל דבר — עייני בצעדים שלמטה"
            )
            return await page(request, desk, appeal_type, 409, message=said)
        return RedirectResponse(
            f"/methodology/{appeal_type}?undone={result['version']}"
            f"&source={result['restored_from']}&dropped={len(result['dropped_lessons'])}#steps",
            303,
        )

    @api.post("/methodology/{appeal_type}/preview", include_in_schema=False)
    async def preview(request: Request, appeal_type: str, desk: Chair) -> Response:
        """Which of her finals' lines or sentences a rule would match, as she wrote it (the
        whole form kept as typed, nothing saved)."""
        appeal_type = _type(appeal_type)
        form = await core.form_of(request, desk)
        name = str(form.get("preview") or "")
        if name not in PREVIEWED:
            raise InvalidInput("the rule to preview was not named; reload the page")
        values = {field: str(form.get(field) or "") for field in fields_of({})}
        found = await run_in_threadpool(
            methodology_preview.preview, desk.view, PREVIEWED[name], phrases_of(values[name])
        )
        return await page(
            request, desk, appeal_type, values=values, previews={name: found}, focus=name
        )
