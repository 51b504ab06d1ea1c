"""/training/voice: deep-read voice documents on the desk (channel C), linked
from the training page and the navigation.

Over the same services as the CLI and the API (knowledge/voice.py):
- the chair marks a case whose final is exemplary (voice_review.mark), from a picker of the cases whose
  final is in the style corpus and that have no open voice document;
- the queue: marked cases waiting for a model, with what to set when LEGAL_AI_VOICE_WRITER (or
  its key) is missing (voice.writer, as `voice run` says it), and the model's last refusal;
  a queued case can be dropped (reject);
- documents pending her review, block by block (the block's Hebrew name), each claim beside the
  verbatim span of her final it points at, quoted with its surroundings and the span marked, and
  a link to the final at that span; approve or reject, with a reason;
- approved documents (the ones the writer's brief gathers), each can be withdrawn (reject), and
  the rejected ones.

Every form is a POST with the session's CSRF token (core.form_of) and runs as the signed-in
chair (`desk.view`); the services' require_chair and the database's gate apply. A decision
carries the status the page showed: when another tab decided meanwhile, nothing changes and the
page answers 409. Refusals are Hebrew messages on the page, never a trace.
"""

from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from ...errors import AppError, InvalidInput, NotFound
from ...knowledge import voice as voice_service
from ...knowledge import voice_review
from ...text.blocks import BLOCK_LABELS
from . import core, labels

PATH = "/training/voice"
MAX_SHOWN = 100  # documents per list
MAX_NOTE = 2000
MAX_REASON = 2000
CONTEXT = 140  # characters of her final shown on each side of a claim's span
STATUS_LABELS = labels.VOICE_STATUS
DONE = {
    "mark": "סומן כמופתי ונכנס לתור הכתיבה",
    "approve": "אושר; הוא נכנס לתדריך הכותב",
    "reject": "נדחה; הוא אינו מגיע לכותב",
}


def hebrew(exc: AppError) -> str:
    """The services' refusals in Hebrew (their own text kept after it, for the record)."""
    return core.in_hebrew(exc, labels=STATUS_LABELS, missing="הפריט לא נמצא (אולי נמחק בינתיים)")


def model_state(view: Any) -> dict:
    """Whether a model writes the documents, and in Hebrew what to set when none does."""
    return core.model_state(
        voice_service.VARIABLE,
        lambda: voice_service.writer(view),
        "לא הוגדר מודל שכותב את מסמכי הקול; מי שמתחזק את השרת צריך להגדיר אותו.",
    )


def quoted(content: str | None, start: int | None, end: int | None, span: str) -> dict:
    """A claim's span in its final, with up to CONTEXT characters on each side (cut at a word);
    just the span when the final no longer holds it at those offsets."""
    if content is None or start is None or end is None or content[start:end] != span:
        return {"before": "", "span": span, "after": "", "in_final": False}
    before = content[max(0, start - CONTEXT) : start]
    after = content[end : end + CONTEXT]
    if start > CONTEXT and " " in before:
        before = "…" + before[before.index(" ") + 1 :]
    if end + CONTEXT < len(content) and " " in after:
        after = after[: after.rindex(" ")] + "…"
    return {"before": before, "span": span, "after": after, "in_final": True}


def _document(view: Any, conn: Any, row: dict) -> dict:
    """A document with its blocks' Hebrew names and each claim's span quoted in her final."""
    doc = voice_review.show(view, row["id"])
    final = voice_review.final_for(conn, doc["case_number"])
    content = final["content"] if final and final["doc_id"] == doc["doc_id"] else None
    blocks = []
    for block in doc["blocks"]:
        claims = [
            {**c, "quote": quoted(content, c.get("char_start"), c.get("char_end"), c["span"])}
            for c in block["claims"]
        ]
        blocks.append(
            {
                "block": block["block"],
                "claims": claims,
                "label": BLOCK_LABELS.get(block["block"], block["block"]),
            }
        )
    return {**doc, "blocks": blocks}


def _load(view: Any) -> dict:
    rows = voice_review.list_documents(view)["voice_documents"]
    by_status: dict[str, list[dict]] = {s: [] for s in voice_review.STATUSES}
    for row in reversed(rows):  # newest first
        by_status[row["status"]].append(row)
    with view.store.connection() as conn:
        pending = [_document(view, conn, r) for r in by_status["pending_review"][:MAX_SHOWN]]
        approved = [_document(view, conn, r) for r in by_status["approved"][:MAX_SHOWN]]
        choices = voice_review.markable(conn)
    return {
        "queued": list(reversed(by_status["queued"])),
        "pending": pending,
        "approved": approved,
        "rejected": by_status["rejected"][:MAX_SHOWN],
        "totals": {s: len(v) for s, v in by_status.items()},
        "markable": choices,
        "model": model_state(view),
    }


def routes(api: FastAPI, signed_in: Any) -> None:
    Chair = Annotated[core.Desk, Depends(signed_in)]

    page, refused = core.queue_page(
        "voice.html", _load, hebrew, statuses=STATUS_LABELS, max_note=MAX_NOTE
    )

    @api.get(PATH, include_in_schema=False)
    async def voice_page(
        request: Request,
        desk: Chair,
        done: str | None = None,
        document: int | None = None,
        case: str | None = None,
    ) -> Response:
        notice = None
        if document is not None and done in DONE:
            notice = "מסמך הקול" + (f" של {case}" if case else "") + f": {DONE[done]}"
        return await page(request, desk, notice=notice)

    @api.post(PATH + "/mark", include_in_schema=False)
    async def mark(request: Request, desk: Chair) -> Response:
        """The chair marks a case as exemplary: it joins the queue (voice_review.mark)."""
        form = await core.form_of(request, desk)
        try:
            case = str(form.get("case_number") or "").strip()
            if not case:
                raise InvalidInput("לא נבחר תיק; בחרי תיק שיש לו החלטה סופית")
            note = core.form_text(form, "note", MAX_NOTE, "ההערה")
            marked = await run_in_threadpool(voice_review.mark, desk.view, case, note)
        except (InvalidInput, NotFound) as exc:
            return await refused(request, desk, exc)
        url = (
            f"{PATH}?done=mark&document={marked['id']}"
            f"&case={core.env.filters['q'](marked['case_number'])}#queued"
        )
        return RedirectResponse(url, 303)

    @api.post(PATH + "/decide", include_in_schema=False)
    async def decide(request: Request, desk: Chair) -> Response:
        """Approve or reject a document pending review, withdraw an approved one or drop a
        queued case (reject); the status the page showed is checked first."""
        form = await core.form_of(request, desk)
        try:
            decision, item_id, reason, expected = core.decision_form(
                form, voice_review.DECISIONS, "אישור או דחייה", "מסמך הקול", MAX_REASON
            )
            await run_in_threadpool(
                voice_review.review, desk.view, item_id, decision, reason, expected
            )
        except (InvalidInput, NotFound) as exc:
            return await refused(request, desk, exc)
        return RedirectResponse(f"{PATH}?done={decision}&document={item_id}", 303)
