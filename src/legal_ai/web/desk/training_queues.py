"""The chair's queues of /training (web/desk/training.py holds the routes): `Queue` and QUEUES —
where each queue's items come from, which decisions it offers and how a decision is made — the
labels, the draft-to-final word diff of a lesson's evidence, and the queue's page."""

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastapi import Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from ...errors import InvalidInput
from ...learning import lessons
from ...learning import vocabulary as vocab
from ...store import desk as desk_store
from ...store import learning as learning_store
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


def _panel_approved(view: Any) -> list[dict]:
    """Style lessons the panel approved on its own (2/2), not yet folded by a promote: hers to
    look over, and to veto (store/desk.WAITING["panel_approved"] counts the same)."""
    rows = lessons.list_lessons(view, "approved")["lessons"]
    return [r for r in rows if r["reviewed_by"] == "panel" and r["folded_into"] is None]


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
            "panel_approved",
            "אושרו בידי הפאנל — לעיונך",
            "lesson",
            _panel_approved,
            _decide_lesson,
            decisions=("veto",),
            undo=False,  # reopen makes a vetoed lesson proposed, not the panel's approval again
            bulk=False,
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


def item_ids(raw: Any) -> list[int]:
    values = raw if isinstance(raw, list) else [raw] if raw else []
    try:
        ids = sorted({int(v) for v in values})
    except ValueError:
        raise InvalidInput("מזהה פריט אינו מספר") from None
    if len(ids) > MAX_BULK:
        raise InvalidInput(f"אפשר להחליט על עד {MAX_BULK} פריטים בבת אחת")
    return ids


def _load(desk: core.Desk, queue: Queue) -> dict:
    """What a queue's page shows, read in one connection: every queue's count, this queue's
    items, the panel's verdicts on them and the lesson categories."""
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
            verdicts = [dict(v) for v in desk_store.verdicts(conn, [i["id"] for i in items])]
    return {
        "counts": counts,
        "items": items,
        "verdicts": verdicts,
        "categories": categories,
    }


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
    data = await run_in_threadpool(_load, desk, queue)
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
