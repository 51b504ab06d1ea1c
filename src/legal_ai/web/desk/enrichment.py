"""/training/enrichment: the enrichment of internal decisions on the desk (docs/ingest.md
"Upkeep on arrival"), linked from the training page's navigation. It says what happened: a
grounded proposal is written into the decision at once (learning/arrival/metadata.settle), marked as the
model's, and she reverts or corrects it here; an ungrounded one waits for her.

Over the same services as the CLI and the API (learning/arrival/enrichment_review.py,
learning/arrival/metadata.py):
- written by the model (enrichment_review.applied, newest first): each with what it wrote, the
  decision's words each summary sentence rests on, what it replaced, and two forms: revert
  (enrichment_review.review "revert", as `legal-ai enrich review ID revert`: the fields back to
  what they were) and correct (metadata.set_fields, as /training/metadata: her three fields
  written, the enrichment marked `edited`), the correct form prefilled with what the decision
  holds now;
- proposals pending her review (list_enrichments "pending_review", each shown in full): the
  decision (case number, doc_id, a link to its text on /source), the proposed headnote, each
  summary sentence beside the decision's words it rests on (quoted with its surroundings, linked
  to that span), the tags, and what the decision holds now; approve or reject, with a reason.
  Approving writes the headnote, summary and tags into the decision (enrichment_review.review);
- the queue: decisions still waiting for a model, with what to set when LEGAL_AI_ENRICHER (or
  its provider's key) is missing (enrichment.enricher, as `enrich run` says it);
- the decided ones (approved, rejected, superseded, reverted, edited), newest first.

Every form is a POST with the session's CSRF token (core.form_of) and runs as the signed-in
chair (`desk.view`); the service's require_chair and the database's gate apply. A decision
carries the status the page showed: when another tab decided meanwhile, nothing changes and the
page answers 409. Refusals are Hebrew messages on the page, never a trace; a refused correction
keeps what she typed in its form, the refusal beside its field.
"""

from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import RedirectResponse, Response
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool

from ...errors import AppError, InvalidInput, NotFound, Stale
from ...learning.arrival import enrichment as service
from ...learning.arrival import enrichment_review
from ...learning.arrival import metadata as fields_service
from .. import errors as web_errors
from . import core, labels
from .messages import technical
from .metadata import FIELDS, checked
from .metadata import hebrew as field_hebrew
from .voice import quoted

PATH = "/training/enrichment"
MAX_SHOWN = 100  # proposals per list
MAX_REASON = 2000
STATUS_LABELS = labels.ENRICHMENT_STATUS
DONE = {
    "approve": "אושרה; תקציר, סיכום ותגיות נכתבו בהחלטה",
    "reject": "נדחתה; דבר לא נכתב בהחלטה",
    "revert": "בוטלה; התקציר, הסיכום והתגיות חזרו למה שהיה בהחלטה לפניה",
    "edit": "נשמרו התקציר, הסיכום והתגיות שכתבת; מה שכתב המודל סומן כמתוקן בידייך",
}
DECIDED = ("approved", "rejected", "superseded", "reverted", "edited")


def hebrew(exc: AppError) -> str:
    """The service's refusals in Hebrew (its own text kept after it, for the record)."""
    return core.in_hebrew(exc, labels=STATUS_LABELS, missing="ההצעה לא נמצאה (אולי נמחקה בינתיים)")


def model_state(view: Any) -> dict:
    """Whether a model writes the proposals, and in Hebrew what to set when none does."""
    return core.model_state(
        service.VARIABLE,
        lambda: service.enricher(view),
        "לא הוגדר מודל שכותב תקציר, סיכום ותגיות להחלטות הוועדה; מי שמתחזק את השרת צריך "
        "להגדיר אותו.",
    )


def queue_state(row: dict) -> str | Markup:
    """Where a decision waiting for enrichment stands, in Hebrew (enrichment._state's cases); the
    job's own error (English, for the log) only behind "פרטים טכניים"."""
    status = row["job_status"]
    if status == "waiting":
        return "ממתינה להגדרת מודל"
    if status == "failed":
        return Markup("נכשלה אחרי {} ניסיונות. ").format(row["attempts"]) + technical(
            row["error"] or ""
        )
    if status == "running":
        return "נכתבת כעת"
    if status == "queued" and row["error"]:
        attempt = (row["attempts"] or 0) + 1
        lead = Markup("ניסיון {} מתוך {}. ").format(attempt, row["max_attempts"])
        return lead + technical(row["error"])
    if status == "queued":
        return "בתור: תיכתב ברקע"
    return "טרם נכנסה לתור (נשמרה לפני ההעשרה בקליטה; התחזוקה הלילית תכניס אותה)"


def _quoted(content: str | None, shown: dict) -> dict:
    """A proposal with each summary sentence's quote in the decision's text."""
    sentences = [
        {**s, "quoted": quoted(content, s.get("char_start"), s.get("char_end"), s["quote"])}
        for s in shown["sentences"] or []
    ]
    return {**shown, "sentences": sentences}


def _proposal(conn: Any, view: Any, enrichment_id: int) -> dict:
    """A proposal in full, each summary sentence with its quote in the decision's text."""
    shown = enrichment_review.show(view, enrichment_id)
    item = enrichment_review.item(conn, shown["case_law_id"])
    return _quoted(item["content"] if item and not shown["text_changed"] else None, shown)


def _form(row: dict) -> dict:
    """The correct form's values: what the decision holds now."""
    return {
        "headnote": row["item_headnote"] or "",
        "summary": row["item_summary"] or "",
        "tags": ", ".join(row["item_tags"] or []),
    }


def _written(conn: Any, row: dict) -> dict:
    """An enrichment the model wrote into the decision, as the page shows it: its quotes, what
    it replaced, and the correct form's values."""
    item = enrichment_review.item(conn, row["case_law_id"])
    shown = _quoted(item["content"] if item and not row["text_changed"] else None, row)
    before = row["previous"] or {}
    replaced = {f: before.get(f) for f in FIELDS if f in (before.get("applied") or FIELDS)}
    return {**shown, "replaced": replaced, "form": _form(row)}


def _load(view: Any) -> dict:
    rows = enrichment_review.list_enrichments(view)["enrichments"]
    by_status: dict[str, list[dict]] = {s: [] for s in enrichment_review.STATUSES}
    for row in reversed(rows):  # newest first
        by_status[row["status"]].append(row)
    written = enrichment_review.applied(view, MAX_SHOWN)
    with view.store.connection() as conn:
        pending = [_proposal(conn, view, r["id"]) for r in by_status["pending_review"][:MAX_SHOWN]]
        applied = [_written(conn, r) for r in written]
        _, waiting = enrichment_review.awaiting(conn, MAX_SHOWN)
    queue = [
        {**dict(r), "state": queue_state(r)}
        for r in waiting
        if r["enrichment_status"] != "pending_review"
    ]
    decided = sorted(
        (r for s in DECIDED for r in by_status[s]), key=lambda r: r["id"], reverse=True
    )
    totals = {s: len(v) for s, v in by_status.items()}
    return {
        "pending": pending,
        "applied": applied,
        "queue": queue,
        "decided": decided[:MAX_SHOWN],
        "totals": {**totals, "decided": sum(totals[s] for s in DECIDED)},
        "model": model_state(view),
    }


def routes(api: FastAPI, signed_in: Any) -> None:
    Chair = Annotated[core.Desk, Depends(signed_in)]

    page, refused = core.queue_page(
        "enrichment.html", _load, hebrew, statuses=STATUS_LABELS, max_reason=MAX_REASON
    )

    @api.get(PATH, include_in_schema=False)
    async def enrichment_page(
        request: Request, desk: Chair, done: str | None = None, proposal: int | None = None
    ) -> Response:
        notice = None
        if proposal is not None and done in DONE:
            notice = f"ההצעה: {DONE[done]}"
        return await page(request, desk, notice=notice)

    @api.post(PATH + "/decide", include_in_schema=False)
    async def decide(request: Request, desk: Chair) -> Response:
        """Approve or reject a proposal pending review, or revert one the model wrote; the
        status the page showed is checked first."""
        form = await core.form_of(request, desk)
        try:
            decision, item_id, reason, expected = core.decision_form(
                form, enrichment_review.DECISIONS, "אישור, דחייה או ביטול", "ההצעה", MAX_REASON
            )
            await run_in_threadpool(
                enrichment_review.review, desk.view, item_id, decision, reason, expected
            )
        except (InvalidInput, NotFound) as exc:
            return await refused(request, desk, exc)
        return RedirectResponse(f"{PATH}?done={decision}&proposal={item_id}", 303)

    @api.post(PATH + "/edit", include_in_schema=False)
    async def edit(request: Request, desk: Chair) -> Response:
        """Her own headnote, summary and tags for a decision the model wrote them into
        (metadata.set_fields, as /training/metadata): the enrichment is marked `edited`. A
        refusal keeps what she typed, beside the field it names."""
        form = await core.form_of(request, desk)
        typed = {name: str(form.get(name) or "") for name in FIELDS}
        try:
            item_id = core.item_id(form.get("id"), "ההצעה")
            shown = await run_in_threadpool(enrichment_review.show, desk.view, item_id)
            if shown["status"] != "applied":
                raise Stale("enrichment", item_id, shown["status"], shown["reviewed_by"])
            values = checked(typed)
            await run_in_threadpool(
                fields_service.set_fields,
                desk.view,
                shown["doc_id"],
                values["headnote"],
                values["summary"],
                values["tags"],
            )
        except Stale as exc:
            return await refused(request, desk, exc)
        except (InvalidInput, NotFound) as exc:
            field, said = field_hebrew(exc)
            data = await run_in_threadpool(_load, desk.view)
            for row in data["applied"]:
                if str(row["id"]) == str(form.get("id")):
                    row["form"] = typed
            return core.render(
                request,
                "enrichment.html",
                status=web_errors.status_of(exc),
                desk=desk,
                message=f"לא נשמר דבר: {said}",
                refused={"id": str(form.get("id")), "field": field, "text": said},
                statuses=STATUS_LABELS,
                max_reason=MAX_REASON,
                **data,
            )
        return RedirectResponse(f"{PATH}?done=edit&proposal={item_id}", 303)
