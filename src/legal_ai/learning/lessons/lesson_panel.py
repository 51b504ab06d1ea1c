"""The system's panel on a lesson (INV-LRN1): which lessons it may decide (`panel_may_vote`: a
proposed style lesson the system's own distillation proposed) and the recording of its two
verdicts, 2/2 approving or rejecting and a split going to the chair (`decide_by_panel`, the
worker's own stage, learning/lessons/panel.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import psycopg

from ...errors import Forbidden, InvalidInput, NotFound
from ...store import distilled_lessons as engine_store
from ...store import drafts_lessons as store
from ...store import jsonable
from ...store.db import WORKER_ROLE
from .. import vocabulary as vocab
from .lessons import LESSONS, _gate_error

if TYPE_CHECKING:
    from ...context import Context


def decide_by_panel(app: Context, lesson_id: int, verdicts: list[dict]) -> dict:
    """The system's panel on a proposed style lesson it distilled: two verdicts [{model, vote,
    reason, model_call_id}], each naming the `model_calls` row of the call this worker made.
    2/2 approve → approved by the panel (reversible by the chair's veto); 2/2 reject → rejected;
    a split → the chair decides. Only the worker's own stage calls this (a request never acts as
    the system: Context.acting_as refuses it); the database checks the same — the role, the calls,
    the count — and computes the outcome and `panel_models` from the verdict rows."""
    if app.principal.kind != "worker":
        raise Forbidden(
            "a panel verdict is the system's own: only the worker's panel records one",
            code="panel.worker_only",
        )
    if not isinstance(verdicts, list) or len(verdicts) != 2:
        raise InvalidInput(
            "a panel verdict has exactly two votes: [{model, vote}, {model, vote}]",
            code="panel.votes",
            field="votes",
        )
    for verdict in verdicts:
        if not isinstance(verdict, dict) or verdict.get("vote") not in ("approve", "reject"):
            raise InvalidInput(
                "each vote needs a model name and vote 'approve' or 'reject'",
                code="panel.votes",
                field="votes",
            )
        if not isinstance(verdict.get("model_call_id"), int):
            raise InvalidInput(
                "each vote names the model call it rests on (model_call_id)",
                code="panel.votes",
                field="votes",
            )
        verdict["model"] = vocab.free_text(verdict.get("model"), "model name", max_chars=200)
        verdict["reason"] = vocab.free_text(
            verdict.get("reason"), "vote's reason", required=False, max_chars=4000
        )
    if verdicts[0]["model"] == verdicts[1]["model"]:
        raise InvalidInput(
            "the two votes must come from two different models", code="panel.votes", field="votes"
        )
    try:
        with app.store.transaction() as conn:
            lesson = LESSONS.locked(conn, lesson_id)
            if lesson["kind"] != "style":
                raise InvalidInput(
                    f"lesson {lesson_id} is substance ({lesson['category']}): only the chair "
                    "decides it; a panel verdict is refused",
                    code="lesson.substance_chair",
                )
            if lesson["review_status"] != "proposed":
                raise InvalidInput(
                    f"lesson {lesson_id} is already {lesson['review_status']}; the panel "
                    "decides proposed lessons only",
                    code="lesson.decided",
                )
            if not panel_may_vote(lesson) or engine_store.has_verdicts(conn, lesson_id):
                # One panel per lesson, on what the system distilled: a split (or a failed
                # panel), a curator finding or an agent's proposal is the chair's.
                raise InvalidInput(
                    f"lesson {lesson_id} waits for the chair, not for the panel",
                    code="lesson.waits_for_chair",
                )
            store.insert_verdicts(conn, lesson_id, verdicts)
            votes = {v["vote"] for v in verdicts}
            if votes == {"approve"}:
                row = store.set_review(conn, lesson_id, "approved", "panel", "2/2 panel consensus")
            elif votes == {"reject"}:
                row = store.set_review(conn, lesson_id, "rejected", "panel", "2/2 panel rejection")
            else:
                store.flag_for_chair(conn, lesson_id, "panel split 1/1: the chair decides")
                store.audit(
                    conn,
                    app.principal.actor,
                    "panel_split",
                    lesson["case_number"],
                    {"lesson_id": lesson_id, "verdicts": verdicts},
                )
                row = _lesson(conn, lesson_id)
    except psycopg.errors.CheckViolation as exc:
        raise _gate_error(exc) from None
    return jsonable(row)


def panel_may_vote(lesson: dict) -> bool:
    """Whether the system's panel may decide `lesson`: a proposed style lesson the system's own
    distillation proposed (under the worker's role), whose evidence it verified on her edits
    (`evidence_verified`, learning/lessons/evidence.py), and not already sent to the chair.
    Curator findings and whatever an agent proposes wait for her (the database holds the same
    rule)."""
    return (
        lesson["kind"] == "style"
        and lesson["review_status"] == "proposed"
        and lesson["source"] == "distillation"
        and not lesson["needs_chair"]
        and bool(lesson.get("evidence_verified"))
        and lesson.get("proposed_role") == WORKER_ROLE
    )


def _lesson(conn, lesson_id: int) -> dict:
    """The lesson as it is now (it was locked in this transaction)."""
    row = store.get_lesson(conn, lesson_id)
    if row is None:
        raise NotFound(f"lesson {lesson_id} is gone")
    return row
