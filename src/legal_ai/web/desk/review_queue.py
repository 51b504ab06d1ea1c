"""The chair's one review queue (the routes are web/desk/review.py): everything
she decides or looks over, as one list of items across sources.

- Lessons: proposed (from comparing a draft with her final, from reading her finals — the
  curator's writing notes and the weekly feedback —, an agent's proposal), the ones the panel sent
  to her, and the style lessons the panel approved on its own (2/2) and no promote folded yet —
  the lane "אושר על ידי הפאנל — לעיון", where only a veto applies.
- Principles: pending her review, and those the panel approved that she has not confirmed.

Each item falls in one lane (labels.LANE; the cards of "מה מחכה לי" count the same lanes,
store/review_queue.WAITING) and is filtered by lane, kind (style, substance, principle), source and case,
sorted by the panel's confidence: for a lesson the share of the panel's verdicts that approve it
(panel_verdicts: 2 of 2, a split 1 of 2), for a principle the share of the three models that
proposed it (`votes` of 3; their mean `score` breaks ties). An item the panel never voted on
(a curator's note, an agent's proposal, a principle added by hand) comes after those it did, in
either order. Each item offers only the decisions that apply to it (`ACTIONS`, by what it is and
the status the page showed)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from ...errors import InvalidInput
from ...learning import waiting
from ...learning.lessons import lessons
from ...retrieval.terms import (
    principle_shown_term,
    shown_status,
)
from . import labels

LANES = tuple(labels.LANE)
KINDS = tuple(labels.KIND)  # style, substance (a lesson's), principle
ORDERS = tuple(labels.QUEUE_ORDER)
PANEL_SIZE = 3  # a principle's panel: three models (INV-LRN7)
MAX_LISTED = 200  # items listed beside the current one (and the most a bulk action takes)
MAX_CASE = 200
# The decisions each item offers, by what it is and the status the page showed it in.
ACTIONS = {
    ("lesson", "proposed"): ("approve", "reject"),
    ("lesson", "approved"): ("veto",),  # the panel approved it: hers to veto, never to approve
    ("principle", "pending_review"): ("approve", "reject"),
    ("principle", "approved"): ("confirm", "revert"),  # the panel approved it: confirm or withdraw
}
# A principle returned to her (its quote gone from its ruling, or its rule changed in the
# database): withdrawn or rejected; approving or confirming would not change its status, and only
# a change of status answers the return (migration 0039).
RETURNED_ACTIONS = {"approved": ("revert",), "pending_review": ("reject",)}
REASON_NEEDED = frozenset({"veto", "revert"})  # overturning the panel says why
# What each decision leaves (what the undo, the chair's `reopen`, expects to find). A confirmed
# principle has no undo: reopening it would take it out of search, not back to the panel's.
UNDONE = {"approve": "approved", "reject": "rejected", "veto": "vetoed", "revert": "vetoed"}
BULK = ("approve", "reject", "veto")  # lessons only (lessons.bulk_review)
# The shortcut of each decision (event.code, any keyboard layout) and the Hebrew letter on it.
KEYS = {
    "approve": ("KeyA", "ש", "A"),
    "confirm": ("KeyA", "ש", "A"),
    "reject": ("KeyR", "ר", "R"),
    "veto": ("KeyV", "ה", "V"),
    "revert": ("KeyV", "ה", "V"),
}
# What the page says when a key chose a decision that takes a reason (desk.js).
PENDING = {
    "reject": "נימוק לדחייה (רשות)",
    "veto": "נימוק לווטו (חובה)",
    "revert": "נימוק למשיכה מהחיפוש (חובה)",
}
BUTTONS = {
    "approve": "אישור והבא",
    "confirm": "אישור העיקרון",
    "reject": "דחייה…",
    "veto": "וטו…",
    "revert": "משיכה מהחיפוש…",
}


@dataclass(frozen=True)
class Filters:
    """What the queue shows: a lane, a kind, a source and a case (None: all), in an order."""

    lane: str | None = None
    kind: str | None = None
    source: str | None = None
    case: str | None = None
    order: str = "confident"

    @classmethod
    def of(cls, raw: Any) -> Filters:
        """From a query or a form; a value the queue does not know is dropped, never shown."""

        def pick(name: str, allowed: tuple[str, ...]) -> str | None:
            value = str(raw.get(name) or "")
            return value if value in allowed else None

        case = " ".join(str(raw.get("case") or "").split())[:MAX_CASE] or None
        return cls(
            lane=pick("lane", LANES),
            kind=pick("kind", KINDS),
            source=pick("source", tuple(SOURCE_TABLES)),
            case=case,
            order=pick("order", ORDERS) or "confident",
        )

    def fields(self) -> list[tuple[str, str]]:
        """The filters that are set, as (name, value) for a URL or a form's hidden fields."""
        pairs = [("lane", self.lane), ("kind", self.kind), ("source", self.source)]
        pairs += [("case", self.case)]
        pairs += [("order", self.order)] if self.order != "confident" else []
        return [(k, v) for k, v in pairs if v]

    def url(self, *extra: tuple[str, Any]) -> str:
        query = urlencode([*self.fields(), *((k, v) for k, v in extra if v is not None)])
        return "/review" + (f"?{query}" if query else "")

    @property
    def any(self) -> bool:
        return any(v for k, v in self.fields() if k != "order")

    def without(self, name: str) -> Filters:
        """The same filters but `name` (lane, kind, source or case), which then shows all."""
        return Filters(
            lane=None if name == "lane" else self.lane,
            kind=None if name == "kind" else self.kind,
            source=None if name == "source" else self.source,
            case=None if name == "case" else self.case,
            order=self.order,
        )


# A source's table in the dictionary: a lesson's (labels.SOURCE) or a principle's corpus.
SOURCE_TABLES = {
    **dict.fromkeys(lessons.SOURCES, "source"),
    "external": "corpus",
    "internal": "corpus",
}
_CORPUS_OF = {"external_upload": "external", "internal_committee": "internal"}


def ref_of(kind: str, item_id: int) -> str:
    return f"{kind}-{item_id}"


def parse_ref(raw: Any) -> tuple[str, int]:
    """("lesson", 12) from "lesson-12"; anything else is refused in Hebrew."""
    kind, _, number = str(raw or "").partition("-")
    if kind not in ("lesson", "principle") or not number.isdigit():
        raise InvalidInput("הפריט לא זוהה (הטופס ישן או חסר); טעני את הדף מחדש")
    return kind, int(number)


def _lesson(row: dict) -> dict:
    status = row["review_status"]
    lane = None  # decided: out of the queue
    if status == "proposed":
        lane = "escalations" if row["needs_chair"] else "proposed"
        lane = "curator" if lane == "proposed" and row["source"] == "curator" else lane
    elif status == "approved" and row["reviewed_by"] == "panel" and row["folded_into"] is None:
        lane = "panel_approved"
    votes = row["votes"]
    return {
        "ref": ref_of("lesson", row["id"]),
        "kind": "lesson",
        "id": row["id"],
        "type": row["kind"],
        "lane": lane,
        "source": row["source"],
        "case": row["case_number"],
        "text": row["text"],
        "status": row["review_status"],
        "confidence": row["votes_for"] / votes if votes else None,
        "votes": votes,
        "votes_for": row["votes_for"],
        "score": None,
        "row": row,
    }


def _principle(row: dict) -> dict:
    status = shown_status(row["review_status"])
    lane = "principles" if status == "pending_review" else None
    if status == "approved" and row["reviewed_by"] == "panel" and row["confirmed_by"] is None:
        lane = "to_confirm"
    if row.get("returned_reason"):  # its source changed: out of search until she decides
        lane = "returned"
    votes = row["votes"]
    return {
        "ref": ref_of("principle", row["id"]),
        "kind": "principle",
        "id": row["id"],
        "type": "principle",
        "lane": lane,
        "source": _CORPUS_OF.get(row["source_kind"], "external"),
        "case": row["case_number"],
        "text": row["rule_text"],
        "status": status,
        "confidence": min(votes, PANEL_SIZE) / PANEL_SIZE if votes is not None else None,
        "votes": PANEL_SIZE if votes is not None else 0,
        "votes_for": votes or 0,
        "score": row["score"],
        **principle_shown_term(row),
        "row": row,
    }


def _shaped(item: dict) -> dict:
    """The item with what the page offers on it: its decisions (none once it left the queue)."""
    item["actions"] = ACTIONS.get((item["kind"], item["status"]), ()) if item["lane"] else ()
    if item["lane"] == "returned":  # only a decision that changes its status answers a return
        item["actions"] = RETURNED_ACTIONS.get(item["status"], ())
    return item


def load(view: Any) -> list[dict]:
    """Every item waiting for the chair, read in one connection."""
    lessons_waiting, principles_waiting = waiting.queue(view)
    found = [_lesson(r) for r in lessons_waiting] + [_principle(r) for r in principles_waiting]
    return [_shaped(i) for i in found]


def one(view: Any, ref: str) -> dict | None:
    """The item `ref` as it stands now, in the queue or decided (None when it is gone)."""
    kind, item_id = parse_ref(ref)
    shape = _lesson if kind == "lesson" else _principle
    rows = [shape(r) for r in waiting.item(view, kind, item_id)]
    return _shaped(rows[0]) if rows else None


def _sort_key(order: str):
    sign = -1 if order == "confident" else 1

    def key(item: dict) -> tuple:
        known = item["confidence"] is not None
        return (
            not known,
            sign * (item["confidence"] or 0),
            sign * (item["score"] or 0),
            item["kind"] != "lesson",
            item["id"],
        )

    return key


def chosen(items: list[dict], filters: Filters) -> list[dict]:
    """The items `filters` lets through, in its order."""
    wanted = [
        i
        for i in items
        if (filters.lane is None or i["lane"] == filters.lane)
        and (filters.kind is None or i["type"] == filters.kind)
        and (filters.source is None or i["source"] == filters.source)
        and (filters.case is None or i["case"] == filters.case)
    ]
    return sorted(wanted, key=_sort_key(filters.order))


def options(items: list[dict], filters: Filters) -> dict[str, list[tuple[str, str, int]]]:
    """Each select's options, (value, Hebrew, how many items of the queue have it): the lanes,
    kinds and sources in the dictionary's order, the cases by number; a value chosen is kept even
    when no item has it any more."""

    def counted(field: str, values: list[str], label) -> list[tuple[str, str, int]]:
        counts = {v: sum(1 for i in items if i[field] == v) for v in values}
        chosen_value = getattr(filters, {"type": "kind"}.get(field, field))
        return [(v, label(v), n) for v, n in counts.items() if n or v == chosen_value]

    chosen_case = {filters.case} if filters.case else set()
    cases: list[str] = sorted({str(i["case"]) for i in items if i["case"]} | chosen_case)
    return {
        "lane": counted("lane", list(LANES), lambda v: labels.label(v, "lane")),
        "kind": counted("type", list(KINDS), lambda v: labels.label(v, "kind")),
        "source": counted(
            "source", list(SOURCE_TABLES), lambda v: labels.label(v, SOURCE_TABLES[v])
        ),
        "case": counted("case", cases, str),
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


def evidence(item: dict) -> dict | None:
    """What the item rests on, shown beside it: a lesson's span of our draft and of her final
    (with their block and the word diff), or her feedback's words it was proposed from (the
    weekly job's, learning/lessons/feedback_lessons.py); a principle's quote at its page in the ruling."""
    row = item["row"]
    if item["kind"] == "principle":
        corpus = item["source"]
        span = ""
        if row["char_start"] is not None and row["char_end"] is not None:
            span = f"?start={row['char_start']}&end={row['char_end']}"
        return {
            "quote": row["supporting_quote"],
            "page": row["page"],
            "title": row["title"],
            "href": f"/source/{corpus}/{row['doc_id']}{span}#span",
        }
    found = row.get("evidence") or {}
    if found.get("kind") == "feedback":
        return {
            "block": found.get("block") or row.get("block"),
            "feedback": [
                {"text": f["text"], "actor": f["actor"], "written_at": f["written_at"]}
                for f in found.get("feedback") or []
            ],
        }
    draft = (found.get("draft") or {}).get("text")
    final = (found.get("final") or {}).get("text")
    if not draft and not final:
        return None
    return {
        "block": found.get("block") or row.get("block"),
        "draft": draft or "",
        "final": final or "",
        "diff": word_diff(draft or "", final or ""),
    }


def decide(view: Any, item: tuple[str, int], decision: str, expected: str, reason: str | None):
    """The chair's decision on an item, through its service (the gate; `expected` the status the
    page showed: errors.Stale when it is no longer so). Only what `ACTIONS` offers for that
    status is done: approving what the panel approved is not a decision of this queue."""
    kind, item_id = item
    if decision not in ACTIONS.get((kind, expected), ()):
        said = labels.label(decision, "decision")
        raise InvalidInput(f'ההחלטה "{said}" אינה אפשרית בפריט הזה; טעני את הדף מחדש')
    if decision in REASON_NEEDED and not reason:
        raise InvalidInput("כתבי נימוק: הוא נשמר עם ההחלטה ומסביר אותה לפאנל")
    if kind == "lesson":
        return lessons.review(view, item_id, decision, reason=reason, expected_status=expected)
    return view.review_principle(item_id, decision, reason, expected)


def reopen(view: Any, item: tuple[str, int], status: str) -> dict:
    """The undo of a decision: the chair's `reopen` (a real reversal through the gate, audited),
    of an item she left in `status` (errors.Stale when it has moved since)."""
    kind, item_id = item
    reason = "ביטול ההחלטה מתור הבדיקה"
    if kind == "lesson":
        return lessons.review(view, item_id, "reopen", reason=reason, expected_status=status)
    return view.review_principle(item_id, "reopen", reason, status)
