"""Lessons and their gate (INV-LRN1), the single service that writes `review_status`.

- Substance (halacha, precedent, fact, changes to the skill or lessons documents) is approved by
  the chair only; the database trigger refuses anything else, whoever writes.
- Style is approved by the chair or by the system's 2/2 panel consensus
  (learning/lessons/lesson_panel.decide_by_panel, the worker's own stage; verdicts tied to its model
  calls); a split goes to the chair, and so do curator findings and agents' proposals. A veto
  reverts an approved lesson and takes it out of what the writer reads (and out of the
  methodology profile it was folded into).
- Promote folds the lessons and phrases the chair chose from an analyzed pair into the
  methodology profile, in one transaction that locks the profile row, and moves the pair to
  `lessons_folded`.
Every decision lands in `learning_audit` (written by the trigger for lesson decisions).
"""

from __future__ import annotations

import hashlib
import re
from typing import TYPE_CHECKING

import psycopg

from ...auth import require_chair
from ...errors import Forbidden, InvalidInput, NotFound, as_shown, gate_code
from ...paging import Page
from ...store import distilled_lessons as engine_store
from ...store import drafts_lessons as store
from ...store import feedback as feedback_store
from ...store import items as sql_items
from ...store import jsonable
from ...store.rows import Conn
from ...text.hebrew import normalize
from .. import agent_bounds
from .. import vocabulary as vocab
from ..gate import Gated
from .promotion import chosen_lessons, fold_into_profile

if TYPE_CHECKING:
    from ...context import Context

SOURCES = ("distillation", "curator", "chair", "panel")
DECISIONS = {
    "approve": "approved",
    "reject": "rejected",
    "veto": "vetoed",
    "reopen": "proposed",
}  # reopen: the chair's undo of her own decision


def _dedupe_key(source: str, case: str | None, category: str, text: str) -> str:
    folded = " ".join(normalize(text).split())
    return hashlib.sha256(
        f"{source}\x1f{case or ''}\x1f{category}\x1f{folded}".encode()
    ).hexdigest()


def _as_shown(lesson: dict, expected_status: str | None, then: str) -> None:
    """Refuse when the lesson is no longer in the status the page showed (another tab, or a
    stale page, decided it meanwhile)."""
    who = lesson["reviewed_by"] or lesson["proposed_by"] or "unknown"
    as_shown("lesson", lesson["id"], lesson["review_status"], expected_status, STATUSES, who, then)


def _gate_error(exc: psycopg.Error) -> InvalidInput:
    message = (exc.diag.message_primary or str(exc)).strip()
    return InvalidInput(f"refused by the gate: {message}", code=gate_code(exc))


def propose(
    app: Context,
    case: str | None,
    category: str,
    text: str,
    *,
    source: str = "distillation",
    block: str | None = None,
    appeal_type: str | None = None,
    outcome: str | None = None,
) -> dict:
    """Record a proposed lesson (retry-safe: the same lesson twice is one row). A lesson the
    chair writes herself (source `chair`, the chair acting) is created approved, with or without
    a case (07 §0.4); the database admits that only under her role."""
    case = vocab.case_number(case) if case else None
    vocab.choice(source, SOURCES, "lesson source", required=True)
    text = vocab.free_text(text, "lesson text", max_chars=4000)
    decided = (
        {
            "review_status": "approved",
            "reviewed_by": "chair",
            "review_reason": "written by the chair",
        }
        if source == "chair" and app.principal.is_chair
        else {}
    )
    try:
        with app.store.transaction() as conn:
            agent_bounds.open_proposals(app, conn, [_dedupe_key(source, case, category, text)])
            return _insert(
                app, conn, case, category, text, source, block, appeal_type, outcome, decided
            )
    except psycopg.errors.CheckViolation as exc:
        raise _gate_error(exc) from None
    except psycopg.errors.ConfigurationLimitExceeded as exc:
        raise agent_bounds.from_database(exc) from None


def _insert(
    app: Context,
    conn: Conn,
    case: str | None,
    category: str,
    text: str,
    source: str,
    block: str | None,
    appeal_type: str | None,
    outcome: str | None,
    decided: dict,
    evidence: dict | None = None,
) -> dict:
    """The lesson inserted in the caller's transaction (or found: the same lesson again)."""
    kinds = store.category_kinds(conn)
    vocab.choice(category, tuple(kinds), "lesson category", required=True)
    pair = store.get_pair(conn, case) if case else None
    known = sql_items.get_case(conn, case) if case else None
    if case and known is None:
        raise NotFound(
            f"unknown case {case}; add its draft or final first",
            code="case.unknown",
            field="case_number",
        )
    row, created = store.insert_lesson(
        conn,
        {
            "pair_id": pair["id"] if pair else None,
            "case_number": case,
            "category": category,
            "text": text,
            "block": vocab.block(block),
            # Scoped only when asked: a lesson learned on one case is general by default.
            "appeal_type": vocab.choice(appeal_type, vocab.APPEAL_TYPES, "appeal type"),
            "outcome": vocab.choice(outcome, vocab.OUTCOMES, "outcome"),
            "source": source,
            "dedupe_key": _dedupe_key(source, case, category, text),
            "proposed_by": app.principal.actor,
            "evidence": evidence,
            **decided,
        },
    )
    return {**jsonable(row), "created": created}


class _Taken(Exception):
    """Some of the feedback was proposed from meanwhile (another run): nothing is recorded."""


def propose_from_feedback(
    app: Context, category: str, text: str, block: str | None, evidence: dict, feedback_ids: list
) -> dict | None:
    """A lesson proposed from the chair's feedback items `feedback_ids` (the weekly job's,
    learning/lessons/feedback_lessons.py), with her words as its `evidence`, and the items recorded as
    proposed from (feedback_lessons: each item once, ever), in one transaction. Proposed — for
    her gate, never decided here. None when one of the items was proposed from meanwhile."""
    try:
        with app.store.transaction() as conn:
            row = _insert(
                app, conn, None, category, text, "curator", block, None, None, {}, evidence
            )
            if len(feedback_store.link_feedback(conn, row["id"], feedback_ids)) < len(feedback_ids):
                raise _Taken
            return row
    except _Taken:
        return None
    except psycopg.errors.CheckViolation as exc:
        raise _gate_error(exc) from None


STATUSES = ("proposed", "approved", "rejected", "vetoed")


def _rows(conn, status: str | None, **options) -> list[dict]:
    return store.list_lessons(conn, status=status, **options)


LESSONS = Gated(
    noun="lesson",
    key="lessons",
    statuses=STATUSES,
    decisions=DECISIONS,
    rows=_rows,
    get=store.get_lesson,
    shown_status=lambda lesson: lesson["review_status"],
    decided_by=lambda lesson: lesson["reviewed_by"] or lesson["proposed_by"] or "unknown",
)
BULK_FROM = {"approve": "proposed", "reject": "proposed", "veto": "approved"}
BULK_MAX = 500


def review(
    app: Context,
    lesson_id: int,
    decision: str,
    *,
    reason: str | None = None,
    expected_status: str | None = None,
) -> dict:
    """The chair's decision on a lesson: approve, reject or veto. Only the chair decides here
    (the system's panel decides through `decide_by_panel`); the database refuses a decision in her
    name that does not run as her role. `expected_status`: the status the chair saw (the desk
    sends it); when the lesson is no longer in it (another tab, or the panel, decided it
    meanwhile) nothing changes and InvalidInput says who decided what."""
    actor = app.principal.actor

    def decide(conn, lesson: dict, status: str, reason: str | None) -> dict:
        if lesson["review_status"] == status:
            if lesson["reviewed_by"] == "panel":  # her audit of the panel's decision
                engine_store.audit_lesson(
                    conn,
                    actor,
                    "chair_confirm",
                    lesson_id,
                    lesson["case_number"],
                    {"status": status},
                    reason,
                )
            return jsonable(lesson)
        row = store.set_review(conn, lesson_id, status, actor, reason)
        if status == "vetoed":  # out of every profile that holds it (promoted or edited in)
            _unfold(conn, lesson, actor)
        return jsonable(row)

    return LESSONS.review(app, lesson_id, decision, reason, expected_status, decide)


def edit(
    app: Context,
    lesson_id: int,
    *,
    text: str | None = None,
    category: str | None = None,
    expected_status: str | None = "proposed",
) -> dict:
    """The chair's edit of a lesson's text and/or category before she decides it (approve with
    an edit). Only the chair edits (the agent's database role cannot update these columns); the
    database freezes a decided lesson's text and category, so only a proposed lesson changes.
    `expected_status`: the status the page showed (None leaves the check to the database).
    Audited in learning_audit as `edit_lesson` with the text and category before and after."""
    require_chair(app.principal, f"editing lesson {lesson_id}")
    vocab.choice(expected_status, STATUSES, "expected status")
    text = vocab.free_text(text, "lesson text", required=False, max_chars=4000)
    if text is None and not category:
        raise InvalidInput(
            "nothing to edit: give the lesson's new text or category", code="lesson.nothing_to_edit"
        )
    actor = app.principal.actor
    try:
        with app.store.transaction() as conn:
            lesson = LESSONS.locked(conn, lesson_id)
            _as_shown(lesson, expected_status, "a decided lesson's text is frozen: reopen it first")
            if category:
                vocab.choice(category, tuple(store.category_kinds(conn)), "lesson category")
            after = {"text": text or lesson["text"], "category": category or lesson["category"]}
            before = {"text": lesson["text"], "category": lesson["category"]}
            if after == before:
                return jsonable(lesson)
            store.set_lesson_content(conn, lesson_id, after["text"], after["category"])
            engine_store.audit_lesson(
                conn,
                actor,
                "edit_lesson",
                lesson_id,
                lesson["case_number"],
                {"before": before, "after": after},
            )
            row = store.get_lesson(conn, lesson_id)
            if row is None:  # locked above
                raise NotFound(f"lesson {lesson_id} is gone")
    except psycopg.errors.CheckViolation as exc:
        raise _gate_error(exc) from None
    except psycopg.errors.InsufficientPrivilege:
        raise Forbidden(
            f"editing lesson {lesson_id} is the chair's; this role may not change its content",
            code="auth.chair_only",
        ) from None
    return jsonable(row)


def bulk_review(app: Context, ids: list[int], decision: str, *, reason: str | None = None) -> dict:
    """The chair's decision on many lessons at once: approve or reject proposed lessons, or veto
    approved ones. Each lesson is its own transaction (one refusal does not undo the others);
    a lesson no longer in the status the page showed (decided meanwhile), unknown, or refused by
    the gate is skipped with the reason. Returns {"decided": [lesson, ...], "skipped": [{"id",
    "reason"}]}, which between them hold every id given, once."""
    expected = BULK_FROM.get(decision)
    if expected is None:
        raise InvalidInput(
            f"decision {decision!r} is not a bulk action; choose one of: {', '.join(BULK_FROM)} "
            "(reopen, the undo, is one lesson at a time)",
            code="bulk.decision",
            field="decision",
        )
    require_chair(app.principal, f"bulk {decision} of lessons")
    if not isinstance(ids, list | tuple) or not all(
        isinstance(i, int) and not isinstance(i, bool) for i in ids
    ):
        raise InvalidInput(
            "give the lessons as a list of lesson ids (integers)", code="bulk.ids", field="ids"
        )
    unique = list(dict.fromkeys(ids))
    if not unique or len(unique) > BULK_MAX:
        raise InvalidInput(
            f"a bulk action takes 1 to {BULK_MAX} lessons; got {len(unique)}", code="bulk.size"
        )
    reason = vocab.free_text(reason, "reason", required=False, max_chars=2000)
    decided, skipped = [], []
    for lesson_id in unique:
        try:
            decided.append(
                review(app, lesson_id, decision, reason=reason, expected_status=expected)
            )
        except (InvalidInput, NotFound) as exc:
            skipped.append({"id": lesson_id, "reason": str(exc)})
    return {"decided": decided, "skipped": skipped}


def _unfold(conn, lesson: dict, actor: str) -> None:
    """Take a vetoed lesson out of every methodology profile it was folded into."""
    for row in store.profiles_with_lesson(conn, lesson["id"]):
        profile = dict(row["profile"])
        profile["lessons"] = [i for i in profile["lessons"] if i.get("id") != lesson["id"]]
        store.save_profile(
            conn, row["appeal_type"], profile, actor, f"veto of lesson {lesson['id']}"
        )


_TAG_RE = re.compile(r"^\s*\[(?P<tag>[^\]]+)\]\s*(?P<text>.+)$", re.S)


def record_curator_findings(app: Context, case: str, findings: list[str]) -> dict:
    """3–5 tagged findings ([סגנון], [מבנה], [לקסיקון משפטי], [טבלאי]) as proposed lessons
    with source `curator`; recording the same findings again adds nothing."""
    if not isinstance(findings, list) or not 3 <= len(findings) <= 5:
        raise InvalidInput("give 3 to 5 findings, each starting with its tag, e.g. '[סגנון] …'")
    parsed = []
    for finding in findings:
        match = _TAG_RE.match(vocab.free_text(finding, "finding", max_chars=4000))
        category = vocab.CURATOR_TAGS.get(match.group("tag").strip()) if match else None
        if category is None or match is None:
            raise InvalidInput(
                f"finding {finding!r} has no known tag; start it with one of: "
                + ", ".join(f"[{t}]" for t in vocab.CURATOR_TAGS),
                code="lesson.finding_tag",
                field="findings",
            )
        text = vocab.free_text(match.group("text").strip(), "lesson text", max_chars=4000)
        parsed.append((category, text))
    case = vocab.case_number(case)
    # All or nothing, in one transaction: past the agent's cap, none of them is recorded.
    try:
        with app.store.transaction() as conn:
            keys = [_dedupe_key("curator", case, category, text) for category, text in parsed]
            agent_bounds.open_proposals(app, conn, keys)
            rows = [
                _insert(app, conn, case, category, text, "curator", None, None, None, {})
                for category, text in parsed
            ]
    except psycopg.errors.CheckViolation as exc:
        raise _gate_error(exc) from None
    except psycopg.errors.ConfigurationLimitExceeded as exc:
        raise agent_bounds.from_database(exc) from None
    return {
        "case_number": vocab.case_number(case),
        "recorded": sum(1 for r in rows if r["created"]),
        "already_recorded": sum(1 for r in rows if not r["created"]),
        "lessons": rows,
    }


def list_lessons(
    app: Context, status: str | None = None, case: str | None = None, page: Page | None = None
) -> dict:
    """The lessons by id (of one status, of one case); one `page` of them with its `page`
    object (paging.py), or all when `page` is None."""
    case_number = vocab.case_number(case) if case else None
    return LESSONS.list(app, status, page, case_number=case_number)


def promote(
    app: Context, case: str, lesson_ids: list[int], phrases: list[str] | None = None
) -> dict:
    """Fold the lessons and phrases the chair chose from an analyzed pair into the methodology
    profile (the case's appeal type, else universal) and move the pair to `lessons_folded`.
    Choosing a proposed lesson here is the chair approving it."""
    case = vocab.case_number(case)
    phrases = [p.strip() for p in phrases or [] if p and p.strip()]
    require_chair(app.principal, "promoting lessons into the methodology")
    actor = app.principal.actor
    try:
        with app.store.transaction() as conn:
            store.lock_case(conn, case)
            pair = store.get_pair(conn, case, lock=True)
            if pair is None:
                raise NotFound(
                    f"no draft/final pair for {case}", code="case.no_pair", field="case_number"
                )
            if pair["status"] != "analyzed":
                raise InvalidInput(
                    f"the pair of {case} is {pair['status']}; promote needs an analyzed pair",
                    code="case.pair_not_analyzed",
                )
            chosen = chosen_lessons(conn, case, lesson_ids, actor)
            key, saved = fold_into_profile(conn, case, chosen, phrases, actor)
            store.mark_folded(conn, [lesson["id"] for lesson in chosen], saved["version"])
            pair = store.update_pair(conn, pair["id"], status="lessons_folded")
            store.audit(
                conn,
                actor,
                "promote",
                case,
                {
                    "lessons": [lesson["id"] for lesson in chosen],
                    "phrases": phrases,
                    "appeal_type": key,
                    "version": saved["version"],
                },
            )
    except psycopg.errors.CheckViolation as exc:
        raise _gate_error(exc) from None
    return {
        "case_number": case,
        "pair_status": pair["status"],
        "appeal_type": key,
        "methodology_version": saved["version"],
        "folded_lessons": [lesson["id"] for lesson in chosen],
        "phrases": phrases,
    }
