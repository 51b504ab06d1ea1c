"""/training/principles: the chair's gate for legal principles, linked from
the training page and the navigation.

Three parts, over the same services as the CLI and the API:
- principles pending her review (learning.principle_review.list_principles "pending_review"): the
  term (הלכה / כלל פרשני / עיקרון), the rule, the verbatim quote at its page and its source, the
  panel's votes and each model's reason in Hebrew beside the rule (principle_votes.reason,
  migration 0048; a reason not in Hebrew, and the system's own English, behind "פרטים טכניים"), the canonical's occurrences and how often the ruling is cited;
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

The page is compact (docs/desk.md): no ids and no raw scores (the panel's votes in words),
the rule and its quote in their own paragraphs with Markdown's marks out, the quote and the
counts folded under the rule, each list PAGE_SIZE at a time. A box of words filters the lists
(every word in the rule, its quote or its case), and she decides the principles she ticked in one
action (`/training/principles/bulk`: confirm or withdraw what the panel approved, approve or
reject those pending; principle_review.bulk_review, each audited as hers).

Every form is a POST with the session's CSRF token (core.form_of); every action runs as the
signed-in chair (`desk.view`). A decision carries the status the page showed: when another tab
decided meanwhile, nothing changes and the page says so. A refusal (the gate, a version that does
not exist, a canonical still pending synthesis) is a Hebrew message on the page, never a trace.
"""

from collections.abc import Mapping, Sequence
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import Depends, FastAPI, Request
from fastapi.responses import RedirectResponse, Response
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool

from ...errors import AppError, InvalidInput, NotFound, Stale
from ...learning.principles import canonical as canon
from ...learning.principles import review as principle_service
from ...text.hebrew import normalize
from .. import errors as web_errors
from . import core, labels
from .messages import said, technical

PATH = "/training/principles"
PANEL_SIZE = 3  # LEGAL_AI_PRINCIPLE_PANEL names three models (INV-LRN7)
PAGE_SIZE = 10  # principles per list on one page of it
MAX_CANONICALS = 50  # canonical cards with their occurrences and versions
MAX_STATEMENT = 4000
MAX_REASON = 2000
MAX_WORDS = 200  # the filter's words, in characters
LISTS = ("pending", "returned", "to_confirm", "approved")
STATUS_LABELS = labels.PRINCIPLE_STATUS
DONE = {
    "approve": "אושר; הוא נכנס לחיפוש עכשיו",
    "confirm": "אישרת את אישור הפאנל; הוא נכנס למה שהכותב קורא",
    "reject": "נדחה",
    "revert": "נמשך מהחיפוש; הוא אינו מופיע עוד בתוצאות",
}
# What a bulk decision did, by decision: "אישרת 4 עקרונות".
BULK_DONE = {
    "approve": "אישרת",
    "confirm": "אישרת את אישור הפאנל של",
    "reject": "דחית",
    "revert": "משכת מהחיפוש",
}
CANONICAL_DONE = {"approve": "הנוסח אושר", "reject": "הנוסח נדחה"}


def _hebrew(exc: AppError) -> Markup:
    """The services' refusals in Hebrew (their own text kept after it, for the record)."""
    if isinstance(exc, Stale):
        now = STATUS_LABELS.get(exc.status, exc.status)
        by = f" (בידי {labels.label(exc.by, 'actor')})" if exc.by else ""
        return Markup('הפריט כבר במצב "{}"{}.').format(now, by)
    text = str(exc)
    if exc.code == "canonical.pending_synthesis":
        return Markup(
            "העיקרון הקנוני עדיין ממתין לסינתזה, ואין לו נוסח לאישור. כתבי את הנוסח בעצמך "
            "בטופס העריכה — ואז אשרי. "
        ) + technical(text + " (legal-ai principles synthesize)")
    if isinstance(exc, NotFound):
        return Markup("הפריט לא נמצא (אולי נמחק בינתיים). ") + technical(text)
    return said(exc)


def _words(raw: Any) -> list[str]:
    """The filter's words, folded for matching (niqqud, geresh and gershayim)."""
    text = " ".join(str(raw or "").split())[:MAX_WORDS]
    return [normalize(w) for w in text.split()]


def _matches(principle: Mapping[str, Any], words: list[str]) -> bool:
    """Whether every word is in the principle's rule, its quote or its case."""
    fields = ("rule_text", "supporting_quote", "case_number")
    text = normalize(" ".join(str(principle.get(k) or "") for k in fields))
    return all(w in text for w in words)


def _page(rows: Sequence[Mapping[str, Any]], asked: Any) -> dict:
    """One page of a list: its rows, its number, how many pages and rows in all."""
    pages = max(1, -(-len(rows) // PAGE_SIZE))
    try:
        number = min(max(1, int(str(asked))), pages)
    except (TypeError, ValueError):
        number = 1
    start = (number - 1) * PAGE_SIZE
    return {
        "rows": rows[start : start + PAGE_SIZE],
        "number": number,
        "pages": pages,
        "total": len(rows),
    }


def panel_votes(view: Any, principles: list[dict]) -> None:
    """Each shown principle's `panel`: the panel's votes on it with each model's reason, in the
    order of the models' names (none when the panel never voted on it)."""
    by_id: dict[int, list[dict]] = {p["id"]: [] for p in principles}
    if by_id:
        for vote in principle_service.panel_votes(view, list(by_id)):
            by_id[vote["principle_id"]].append(vote)
    for principle in principles:
        principle["panel"] = by_id[principle["id"]]


def _shown(view: Any, query: Any) -> dict:
    """What the page shows: each list filtered by the words and cut to one page of it, with the
    counts before and after the filter; the canonical principles as before."""
    words = _words(query.get("q"))
    data = {
        "pending": principle_service.list_principles(view, "pending_review")["principles"],
        "approved": principle_service.list_principles(view, "approved")["principles"],
        "to_confirm": principle_service.list_principles(view, "to_confirm")["principles"],
        "returned": principle_service.list_principles(view, "returned")["principles"],
    }
    review = canon.list_canonicals(view, "pending_review")["canonical_principles"]
    waiting = [
        c
        for c in canon.list_canonicals(view, "pending_synthesis")["canonical_principles"]
        if c["occurrences"]
    ]
    lists = {}
    for name in LISTS:
        rows = [p for p in data[name] if _matches(p, words)]
        lists[name] = {**_page(rows, query.get(f"{name}_page")), "all": len(data[name])}
    panel_votes(view, [p for shown in lists.values() for p in shown["rows"]])
    return {
        "lists": lists,
        "q": " ".join(str(query.get("q") or "").split())[:MAX_WORDS],
        "returned_reasons": labels.RETURNED_REASON,
        "canonicals": [canon.show(view, c["id"]) for c in review[:MAX_CANONICALS]],
        "canonical_total": len(review),
        "waiting": waiting[:MAX_CANONICALS],
        "waiting_total": len(waiting),
    }


def _notice(query: Any) -> str | None:
    """What the page says after a decision (never an id)."""
    done = str(query.get("done") or "")
    if query.get("principle") is not None and done in DONE:
        return f"העיקרון {DONE[done]}"
    if done == "bulk" and query.get("decision") in BULK_DONE:
        n = core.item_id(query.get("n"), "המספר") if query.get("n") else 0
        skipped = core.item_id(query.get("skipped"), "המספר") if query.get("skipped") else 0
        said_n = "עיקרון אחד" if n == 1 else f"{n} עקרונות"
        text = f"{BULK_DONE[query['decision']]} {said_n}"
        if skipped:
            text += f"; {skipped} לא שונו, כי הוכרעו בינתיים או שאינם עוד ברשימה"
        return text
    if query.get("canonical") is None:
        return None
    if done in CANONICAL_DONE:
        return f"עיקרון קנוני: {CANONICAL_DONE[done]}"
    if done == "edit" and query.get("version"):
        return f"עיקרון קנוני: הנוסח שלך נשמר כגרסה {query['version']}"
    if done == "revert" and query.get("version") and query.get("restored"):
        return f"עיקרון קנוני: גרסה {query['restored']} שוחזרה כגרסה חדשה, {query['version']}"
    return None


def routes(api: FastAPI, signed_in: Any) -> None:
    Chair = Annotated[core.Desk, Depends(signed_in)]

    async def page(
        request: Request,
        desk: core.Desk,
        *,
        status: int = 200,
        message: Markup | None = None,
        notice: str | None = None,
        query: Any = None,
    ) -> Response:
        query = request.query_params if query is None else query
        data = await run_in_threadpool(_shown, desk.view, query)
        return core.render(
            request,
            "principles.html",
            status=status,
            desk=desk,
            message=message,
            notice=notice,
            statuses=STATUS_LABELS,
            panel_size=PANEL_SIZE,
            max_statement=MAX_STATEMENT,
            **data,
        )

    async def refused(
        request: Request, desk: core.Desk, exc: AppError, query: Any = None
    ) -> Response:
        return await page(
            request,
            desk,
            status=web_errors.status_of(exc),
            message=Markup("לא בוצע דבר: {} הדף מציג את המצב הנוכחי.").format(_hebrew(exc)),
            query=query,
        )

    @api.get(PATH, include_in_schema=False)
    async def principles_page(request: Request, desk: Chair) -> Response:
        try:
            notice = _notice(request.query_params)
        except InvalidInput:
            notice = None
        return await page(request, desk, notice=notice)

    @api.post(PATH + "/bulk", include_in_schema=False)
    async def bulk(request: Request, desk: Chair) -> Response:
        """The principles she ticked, decided in one action (principle_review.bulk_review)."""
        form = await core.form_of(request, desk)
        kept = {"q": " ".join(str(form.get("q") or "").split())[:MAX_WORDS]}
        try:
            decision = str(form.get("decision") or "")
            if decision not in BULK_DONE:
                raise InvalidInput(f"החלטה לא מוכרת {decision!r}: אישור, דחייה או משיכה")
            raw = form.get("ids") or []
            raw = raw if isinstance(raw, list) else [raw]
            ids = [core.item_id(i, "העיקרון") for i in raw]
            if not ids:
                raise InvalidInput("לא סומן אף עיקרון; סמני את העקרונות שברשימה ונסי שוב")
            reason = core.form_text(form, "reason", MAX_REASON, "הנימוק")
            result = await run_in_threadpool(
                principle_service.bulk_review, desk.view, ids, decision, reason
            )
        except (InvalidInput, NotFound) as exc:
            return await refused(request, desk, exc, kept)
        query = urlencode(
            {
                "done": "bulk",
                "decision": decision,
                "n": len(result["decided"]),
                "skipped": len(result["skipped"]),
                **({"q": kept["q"]} if kept["q"] else {}),
            }
        )
        return RedirectResponse(f"{PATH}?{query}", 303)

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
