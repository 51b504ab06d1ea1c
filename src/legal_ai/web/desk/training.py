"""/training: the chair's queues, one item at a time with its evidence; /audit: the trail.

A queue is a `Queue` in QUEUES: where its items come from, which decisions it offers and how a
decision is made. Proposed lessons, panel escalations (needs_chair) and curator findings are
lessons (lessons.review, the gate); principles pending review go through App.review_principle.
A queue added later (the principles lifecycle) is one more entry, with no change to the pages.

Every decision carries the status the page showed (`expected_status`): when another tab or the
panel decided the item meanwhile, nothing changes and the page says who did. Undo is the chair's
`reopen` (a real reversal through the gate, audited like any decision). Bulk decisions show the
count and ask before acting (lessons.bulk_review). A lesson the chair writes herself ("לקח
חדש": lessons.propose with source `chair`, as `legal-ai lessons add`) is created approved."""

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from ...errors import AppError, InvalidInput, NotFound, Stale
from ...learning import lessons
from ...learning import vocabulary as vocab
from ...store import desk as desk_store
from ...store import learning as learning_store
from .. import errors as web_errors
from . import core

DECISION_LABELS = {"approve": "אישור", "reject": "דחייה", "veto": "וטו", "reopen": "ביטול"}
STATUS_LABELS = {
    "proposed": "מוצע",
    "pending_review": "ממתין להכרעה",
    "approved": "אושר",
    "rejected": "נדחה",
    "vetoed": "נפסל",
}
KIND_LABELS = {"style": "סגנון", "substance": "מהות"}
KEYS = {"approve": "a", "reject": "r", "veto": "v"}
AUDIT_PAGE = 50
MAX_BULK = 200


@dataclass(frozen=True)
class Queue:
    key: str
    label: str
    kind: str  # lesson | principle: which template part shows an item
    items: Callable[[Any], list[dict]]
    decide: Callable[[Any, int, str, str | None, str | None], dict]
    decisions: tuple[str, ...] = ("approve", "reject", "veto")
    undo: bool = True
    bulk: bool = True


def _lessons(predicate: Callable[[dict], bool]) -> Callable[[Any], list[dict]]:
    def items(view: Any) -> list[dict]:
        rows = [r for r in lessons.list_lessons(view, "proposed")["lessons"] if predicate(r)]
        return rows

    return items


def _decide_lesson(
    view: Any, item_id: int, decision: str, expected: str | None, reason: str | None
) -> dict:
    return lessons.review(view, item_id, decision, reason=reason, expected_status=expected)


def _principles(view: Any) -> list[dict]:
    with view.store.connection() as conn:
        return [dict(r) for r in desk_store.pending_principles(conn)]


def _decide_principle(
    view: Any, item_id: int, decision: str, expected: str | None, reason: str | None
) -> dict:
    return view.review_principle(item_id, decision, reason, expected)


QUEUES: dict[str, Queue] = {
    q.key: q
    for q in (
        Queue(
            "proposed",
            "לקחים מוצעים",
            "lesson",
            _lessons(lambda r: not r["needs_chair"] and r["source"] != "curator"),
            _decide_lesson,
        ),
        Queue(
            "escalations",
            "הסלמות מהפאנל",
            "lesson",
            _lessons(lambda r: r["needs_chair"]),
            _decide_lesson,
        ),
        Queue(
            "curator",
            "ממצאי האוצר",
            "lesson",
            _lessons(lambda r: r["source"] == "curator" and not r["needs_chair"]),
            _decide_lesson,
        ),
        Queue(
            "principles",
            "עקרונות ממתינים",
            "principle",
            _principles,
            _decide_principle,
            undo=False,
            bulk=False,
        ),
    )
}


def word_diff(before: str, after: str) -> list[tuple[str, str]]:
    """(op, text) runs from the draft's words to the final's: equal, del or ins (rendered by
    the template, escaped)."""
    a, b = before.split(), after.split()
    runs: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            runs.append(("equal", " ".join(a[i1:i2])))
            continue
        if i2 > i1:
            runs.append(("del", " ".join(a[i1:i2])))
        if j2 > j1:
            runs.append(("ins", " ".join(b[j1:j2])))
    return runs


def _evidence(lesson: dict) -> dict | None:
    evidence = lesson.get("evidence") or {}
    draft = (evidence.get("draft") or {}).get("text")
    final = (evidence.get("final") or {}).get("text")
    if not draft and not final:
        return None
    return {
        "block": evidence.get("block"),
        "draft": draft or "",
        "final": final or "",
        "diff": word_diff(draft or "", final or ""),
    }


def _ids(raw: Any) -> list[int]:
    values = raw if isinstance(raw, list) else [raw] if raw else []
    try:
        ids = sorted({int(v) for v in values})
    except ValueError:
        raise InvalidInput("מזהה פריט אינו מספר") from None
    if len(ids) > MAX_BULK:
        raise InvalidInput(f"אפשר להחליט על עד {MAX_BULK} פריטים בבת אחת")
    return ids


def routes(api: FastAPI, signed_in: Any) -> None:
    Chair = Annotated[core.Desk, Depends(signed_in)]

    async def page(
        request: Request,
        desk: core.Desk,
        queue: Queue,
        *,
        item_id: int | None,
        status: int = 200,
        message: str | None = None,
        notice: str | None = None,
        last: dict | None = None,
        written: dict | None = None,
    ) -> Response:
        def load() -> dict:
            counts = {k: len(q.items(desk.view)) for k, q in QUEUES.items() if k != queue.key}
            items = queue.items(desk.view)
            counts[queue.key] = len(items)
            verdicts: list[dict] = []
            with desk.view.store.connection() as conn:
                # Style categories first, then substance (the edit and the new-lesson forms).
                categories = sorted(
                    learning_store.category_kinds(conn).items(),
                    key=lambda c: (c[1] != "style", c[0]),
                )
                if queue.kind == "lesson" and items:
                    verdicts = [
                        dict(v) for v in desk_store.verdicts(conn, [i["id"] for i in items])
                    ]
            return {
                "counts": counts,
                "items": items,
                "verdicts": verdicts,
                "categories": categories,
            }

        data = await run_in_threadpool(load)
        items = data["items"]
        index = next((n for n, i in enumerate(items) if i["id"] == item_id), 0)
        current = items[index] if items else None
        prev_id = items[index - 1]["id"] if current and index > 0 else None
        next_id = items[index + 1]["id"] if current and index + 1 < len(items) else None
        votes = [v for v in data["verdicts"] if current and v["lesson_id"] == current["id"]]
        return core.render(
            request,
            "training.html",
            status=status,
            desk=desk,
            queues=QUEUES,
            queue=queue,
            counts=data["counts"],
            items=items,
            current=current,
            index=index,
            prev_id=prev_id,
            next_id=next_id,
            votes=votes,
            evidence=_evidence(current) if current and queue.kind == "lesson" else None,
            message=message,
            notice=notice,
            last=last,
            labels=DECISION_LABELS,
            statuses=STATUS_LABELS,
            kinds=KIND_LABELS,
            keys=KEYS,
            categories=data["categories"],
            written=written or {},
            blocks=vocab.BLOCKS,
            appeal_types=vocab.APPEAL_TYPES,
            outcomes=vocab.OUTCOMES,
        )

    def queue_of(key: str | None) -> Queue:
        queue = QUEUES.get(key or "proposed")
        if queue is None:
            raise InvalidInput(f"אין תור בשם {key!r}")
        return queue

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
        (item_id,) = _ids(form.get("id")) or [None]
        if item_id is None:
            raise InvalidInput("חסר מזהה הפריט")
        expected = str(form.get("expected_status") or "") or None
        reason = str(form.get("reason") or "").strip() or None
        try:
            row = await run_in_threadpool(
                queue.decide, desk.view, item_id, decision, expected, reason
            )
        except (InvalidInput, NotFound) as exc:
            said = core.stale_text(exc, STATUS_LABELS) if isinstance(exc, Stale) else str(exc)
            return await page(
                request,
                desk,
                queue,
                item_id=None,
                status=web_errors.status_of(exc),
                message=f"לא בוצע דבר: {said}. הדף עודכן למצב הנוכחי.",
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
        (item_id,) = _ids(form.get("id")) or [None]
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
                message=f"העריכה לא נשמרה: {exc}",
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
                message=f"הלקח לא נשמר: {exc}",
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
        ids = _ids(form.get("ids"))
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
            message = "דולגו: " + "; ".join(f"{s['id']} — {s['reason']}" for s in skipped)
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
