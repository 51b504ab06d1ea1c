"""/training/fingerprint ("הצעות לתיאור הקול שלך", docs/desk.md): the voice-fingerprint
proposals a model wrote from her finals (learning/lessons/voice_proposals.py), newest first, item by item in
Hebrew, what in an item carries substance marked in it and named (learning/checks/purity.py).

Over learning/lessons/proposal_review.py, as the signed-in chair (every form a POST with the session's
CSRF token, core.form_of):
- POST /training/fingerprint/adopt — an item, or the part of it she edited, into the methodology
  profile she picks, through the methodology's own edit: a new version, undoable on
  /methodology; the form carries every profile's version as the page showed it, and a profile
  saved since (another tab) is refused with 409 and nothing saved;
- POST /training/fingerprint/dismiss — recorded (the audit), shown as dismissed, never offered
  again; deciding an item decided meanwhile is 409;
- POST /training/fingerprint/request — a new proposal asked for: `legal-ai worker` writes it
  with LEGAL_AI_DISTILLER; without that model the page says in Hebrew that the engineer must
  set it (the variable behind "פרטים טכניים")."""

from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import RedirectResponse, Response
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool

from ...errors import AppError, InvalidInput
from ...learning.engine import configured
from ...learning.lessons import proposal_review as review
from ...learning.methodology import profiles as methodology
from . import core, labels
from .methodology import TYPES
from .methodology_form import LISTS

PATH = "/training/fingerprint"
MAX_REASON = 2000
DONE = {
    "adopt": "הפריט אומץ למתודולוגיה ונשמר כגרסה חדשה; מעכשיו הכותב קורא אותו",
    "dismiss": "הפריט נדחה; הוא לא יוצע שוב",
    "request": "הבקשה נרשמה: ההצעה תיכתב ברקע ותופיע כאן",
}


def model_state(view: Any) -> dict:
    """Whether the distiller that writes proposals is set, and in Hebrew what to set if not."""

    def probe() -> tuple[Any, str | None]:
        models = configured(view)
        return models.distiller, models.reasons.get("distiller")

    return core.model_state(
        "LEGAL_AI_DISTILLER",
        probe,
        "לא הוגדר מודל שכותב את תיאור הקול; מי שמתחזק את השרת צריך להגדיר אותו.",
    )


def marked(text: str, findings: list[dict]) -> Markup:
    """The item's text, escaped, each word that carries substance in <mark>."""
    spans = sorted(
        {
            (i, i + len(f["match"]))
            for f in findings
            if f["match"] and (i := text.find(f["match"])) >= 0
        }
    )
    out, last = [], 0
    for start, end in spans:
        if start < last:
            continue
        out.append(labels.mixed(text[last:start]))
        out.append(
            Markup('<mark class="substance">{}</mark>').format(labels.mixed(text[start:end]))
        )
        last = end
    out.append(labels.mixed(text[last:]))
    return Markup("").join(out)


def _load(view: Any) -> dict:
    data = review.proposals(view)
    for proposal in data["proposals"]:
        for item in proposal["items"]:
            item["shown"] = marked(item["text"], item["findings"])
    versions = {t: methodology.show(view, t)["version"] for t in TYPES}
    return {**data, "versions": versions, "model": model_state(view)}


def routes(api: FastAPI, signed_in: Any) -> None:
    Chair = Annotated[core.Desk, Depends(signed_in)]

    def hebrew(exc: AppError) -> Markup:
        return core.in_hebrew(exc, missing="ההצעה לא נמצאה (אולי נמחקה)")

    page, refused = core.queue_page(
        "fingerprint.html",
        _load,
        hebrew,
        types=TYPES,
        lists=LISTS,
        max_reason=MAX_REASON,
    )

    @api.get(PATH, include_in_schema=False)
    async def fingerprint_page(request: Request, desk: Chair, done: str | None = None) -> Response:
        return await page(request, desk, notice=DONE.get(done or ""))

    @api.post(PATH + "/adopt", include_in_schema=False)
    async def adopt(request: Request, desk: Chair) -> Response:
        form = await core.form_of(request, desk)
        appeal_type = str(form.get("appeal_type") or "")
        try:
            if appeal_type not in TYPES:
                raise InvalidInput("בחרי לאיזה פרופיל לאמץ את הפריט")
            seen = str(form.get(f"version.{appeal_type}") or "")
            if not seen.isdigit():
                raise InvalidInput("הגרסה שהדף הציג לא נשלחה; טעני את הדף מחדש")
            text = core.form_text(form, "text", review.MAX_TEXT, "הנוסח", required=True)
            await run_in_threadpool(
                lambda: review.adopt(
                    desk.view,
                    str(form.get("proposal") or ""),
                    str(form.get("item") or ""),
                    appeal_type,
                    int(seen),
                    text,
                )
            )
        except AppError as exc:
            return await refused(request, desk, exc)
        return RedirectResponse(f"{PATH}?done=adopt", 303)

    @api.post(PATH + "/dismiss", include_in_schema=False)
    async def dismiss(request: Request, desk: Chair) -> Response:
        form = await core.form_of(request, desk)
        try:
            reason = core.form_text(form, "reason", MAX_REASON, "הנימוק")
            await run_in_threadpool(
                lambda: review.dismiss(
                    desk.view, str(form.get("proposal") or ""), str(form.get("item") or ""), reason
                )
            )
        except AppError as exc:
            return await refused(request, desk, exc)
        return RedirectResponse(f"{PATH}?done=dismiss", 303)

    @api.post(PATH + "/request", include_in_schema=False)
    async def ask(request: Request, desk: Chair) -> Response:
        await core.form_of(request, desk)
        await run_in_threadpool(review.request, desk.view)
        return RedirectResponse(f"{PATH}?done=request", 303)
