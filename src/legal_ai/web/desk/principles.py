"""/training/principles: the chair's gate for legal principles, linked from
the training page and the navigation.

Three parts, over the same services as the CLI and the API:
- principles pending her review (learning.principle_review.list_principles "pending_review"): the
  term (הלכה / כלל פרשני / עיקרון), the rule, the verbatim quote at its page and its source, the
  panel's votes and score, the canonical's occurrences and how often the ruling is cited;
  approve or reject (App.review_principle). Approving makes it searchable at once.
- what the panel approved and she has not confirmed (list_principles "to_confirm"): searchable,
  marked as the panel's, kept out of what the writer reads until she confirms (App.review_principle
  "confirm") or withdraws it ("revert").
- approved principles, each with who approved it and a withdrawal (App.review_principle
  "revert"): it leaves search at once.
- canonical principles awaiting her review (learning.canonical, "pending_review"): the
  statement, the source wording, the occurrences and every version; approve or reject, her own
  wording of the statement (a new version) and a revert to an earlier version. Canonicals still
  pending synthesis are listed with the edit form only (her wording moves one to her review).

Every form is a POST with the session's CSRF token (core.form_of); every action runs as the
signed-in chair (`desk.view`). A decision carries the status the page showed: when another tab
decided meanwhile, nothing changes and the page says so. A refusal (the gate, a version that does
not exist, a canonical still pending synthesis) is a Hebrew message on the page, never a trace.
"""

from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import RedirectResponse, Response
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool

from ...errors import AppError, InvalidInput, NotFound, Stale
from ...learning import canonical as canon
from ...learning import principle_review as principle_service
from . import core, labels
from .messages import said, technical

PATH = "/training/principles"
PANEL_SIZE = 3  # LEGAL_AI_PRINCIPLE_PANEL names three models (INV-LRN7)
MAX_SHOWN = 200  # principles per list on the page
MAX_CANONICALS = 50  # canonical cards with their occurrences and versions
MAX_STATEMENT = 4000
MAX_REASON = 2000
STATUS_LABELS = labels.PRINCIPLE_STATUS
DONE = {
    "approve": "אושר; הוא נכנס לחיפוש עכשיו",
    "confirm": "אישרת את אישור הפאנל; הוא נכנס למה שהכותב קורא",
    "reject": "נדחה",
    "revert": "נמשך מהחיפוש; הוא אינו מופיע עוד בתוצאות",
}
CANONICAL_DONE = {"approve": "הנוסח אושר", "reject": "הנוסח נדחה"}


def _hebrew(exc: AppError) -> Markup:
    """The services' refusals in Hebrew (their own text kept after it, for the record)."""
    if isinstance(exc, Stale):
        return Markup("{}.").format(core.stale_text(exc, STATUS_LABELS))
    text = str(exc)
    if "refused by the gate" in text:
        return Markup("מסד הנתונים סירב לשינוי (שער ההרשאות). ") + technical(text)
    if "still pending synthesis" in text:
        return Markup(
            "העיקרון הקנוני עדיין ממתין לסינתזה, ואין לו נוסח לאישור. כתבי את הנוסח בעצמך "
            "בטופס העריכה — ואז אשרי. "
        ) + technical(text + " (legal-ai principles synthesize)")
    if isinstance(exc, NotFound):
        return Markup("הפריט לא נמצא (אולי נמחק בינתיים). ") + technical(text)
    return said(text)


def _load(view: Any) -> dict:
    pending = principle_service.list_principles(view, "pending_review")["principles"]
    approved = principle_service.list_principles(view, "approved")["principles"]
    to_confirm = principle_service.list_principles(view, "to_confirm")["principles"]
    returned = principle_service.list_principles(view, "returned")["principles"]
    review = canon.list_canonicals(view, "pending_review")["canonical_principles"]
    waiting = [
        c
        for c in canon.list_canonicals(view, "pending_synthesis")["canonical_principles"]
        if c["occurrences"]
    ]
    cards = [canon.show(view, c["id"]) for c in review[:MAX_CANONICALS]]
    return {
        "pending": pending,
        "approved": approved,
        "to_confirm": to_confirm,
        "returned": returned,
        "canonicals": cards,
        "canonical_total": len(review),
        "waiting": waiting[:MAX_CANONICALS],
        "waiting_total": len(waiting),
    }


def _shown(view: Any) -> dict:
    """What the page shows of `_load`: each list cut to MAX_SHOWN, with its full count."""
    data = _load(view)
    return {
        "pending": data["pending"][:MAX_SHOWN],
        "pending_total": len(data["pending"]),
        "approved": data["approved"][:MAX_SHOWN],
        "approved_total": len(data["approved"]),
        "to_confirm": data["to_confirm"][:MAX_SHOWN],
        "confirm_total": len(data["to_confirm"]),
        "returned": data["returned"][:MAX_SHOWN],
        "returned_total": len(data["returned"]),
        "returned_reasons": labels.RETURNED_REASON,
        "canonicals": data["canonicals"],
        "canonical_total": data["canonical_total"],
        "waiting": data["waiting"],
        "waiting_total": data["waiting_total"],
    }


def routes(api: FastAPI, signed_in: Any) -> None:
    Chair = Annotated[core.Desk, Depends(signed_in)]

    page, refused = core.queue_page(
        "principles.html",
        _shown,
        _hebrew,
        statuses=STATUS_LABELS,
        panel_size=PANEL_SIZE,
        max_statement=MAX_STATEMENT,
    )

    @api.get(PATH, include_in_schema=False)
    async def principles_page(
        request: Request,
        desk: Chair,
        done: str | None = None,
        principle: int | None = None,
        canonical: int | None = None,
        version: int | None = None,
        restored: int | None = None,
    ) -> Response:
        notice = None
        if principle is not None and done in DONE:
            notice = f"עיקרון {principle}: {DONE[done]}"
        elif canonical is not None and done in CANONICAL_DONE:
            notice = f"עיקרון קנוני {canonical}: {CANONICAL_DONE[done]}"
        elif canonical is not None and done == "edit" and version is not None:
            notice = f"עיקרון קנוני {canonical}: הנוסח שלך נשמר כגרסה {version}"
        elif canonical is not None and done == "revert" and version and restored:
            notice = f"עיקרון קנוני {canonical}: גרסה {restored} שוחזרה כגרסה חדשה, {version}"
        return await page(request, desk, notice=notice)

    @api.post(PATH + "/decide", include_in_schema=False)
    async def decide(request: Request, desk: Chair) -> Response:
        """Approve or reject a principle pending review, or withdraw an approved one (revert)."""
        form = await core.form_of(request, desk)
        try:
            decision, item_id, reason, expected = core.decision_form(
                form, DONE, "אישור, דחייה או משיכה", "העיקרון", MAX_REASON
            )
            await run_in_threadpool(desk.view.review_principle, item_id, decision, reason, expected)
        except (InvalidInput, NotFound) as exc:
            return await refused(request, desk, exc)
        return RedirectResponse(f"{PATH}?done={decision}&principle={item_id}", 303)

    @api.post(PATH + "/canonical/decide", include_in_schema=False)
    async def canonical_decide(request: Request, desk: Chair) -> Response:
        form = await core.form_of(request, desk)
        try:
            decision, item_id, reason, expected = core.decision_form(
                form, CANONICAL_DONE, "אישור או דחייה", "העיקרון הקנוני", MAX_REASON
            )
            await run_in_threadpool(canon.review, desk.view, item_id, decision, reason, expected)
        except (InvalidInput, NotFound) as exc:
            return await refused(request, desk, exc)
        return RedirectResponse(f"{PATH}?done={decision}&canonical={item_id}", 303)

    @api.post(PATH + "/canonical/edit", include_in_schema=False)
    async def canonical_edit(request: Request, desk: Chair) -> Response:
        """Her own wording of a canonical statement: a new version (canonical.edit)."""
        form = await core.form_of(request, desk)
        try:
            item_id = core.item_id(form.get("id"), "העיקרון הקנוני")
            statement = core.form_text(
                form, "statement", MAX_STATEMENT, "נוסח העיקרון", required=True
            )
            reason = core.form_text(form, "reason", MAX_REASON, "הנימוק")
            shown = await run_in_threadpool(canon.edit, desk.view, item_id, statement, reason)
        except (InvalidInput, NotFound) as exc:
            return await refused(request, desk, exc)
        url = f"{PATH}?done=edit&canonical={item_id}&version={shown['version']}"
        return RedirectResponse(url, 303)

    @api.post(PATH + "/canonical/revert", include_in_schema=False)
    async def canonical_revert(request: Request, desk: Chair) -> Response:
        """Back to an earlier version of the statement, saved as a new version."""
        form = await core.form_of(request, desk)
        try:
            item_id = core.item_id(form.get("id"), "העיקרון הקנוני")
            version = core.item_id(form.get("version"), "הגרסה")
            reason = core.form_text(form, "reason", MAX_REASON, "הנימוק")

            def act() -> dict:
                versions = [v["version"] for v in canon.history(desk.view, item_id)["versions"]]
                if version not in versions[:-1]:
                    raise InvalidInput(
                        f"לעיקרון קנוני {item_id} אין גרסה קודמת {version} "
                        f"(הגרסאות: 1–{versions[-1]}, הנוכחית {versions[-1]}); בחרי גרסה מוקדמת"
                    )
                return canon.revert(desk.view, item_id, version, reason)

            shown = await run_in_threadpool(act)
        except (InvalidInput, NotFound) as exc:
            return await refused(request, desk, exc)
        url = (
            f"{PATH}?done=revert&canonical={item_id}&restored={version}&version={shown['version']}"
        )
        return RedirectResponse(url, 303)
