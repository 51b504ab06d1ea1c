"""The writer's brief: the chair's methodology for an appeal type and outcome, and the lessons
approved for it. Proposed, rejected and vetoed lessons never reach the writer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..learning import vocabulary as vocab
from ..learning.finals import chair_ratios
from ..learning.methodology import merged_profile
from ..store import learning as store

if TYPE_CHECKING:
    from ..services import App


def _args(appeal_type: str, outcome: str | None) -> tuple[str, str | None]:
    return (vocab.choice(appeal_type, vocab.APPEAL_TYPES, "appeal type", required=True),
            vocab.choice(outcome, vocab.OUTCOMES, "outcome"))  # fmt: skip


def _checklist(profile: dict, outcome: str | None) -> list[str]:
    lists = profile.get("content_checklists", {})
    items = list(lists.get("any", []))
    items += [i for i in lists.get(outcome or "", []) if i not in items]
    return items


def content_checklist(app: App, appeal_type: str, outcome: str | None = None) -> dict:
    appeal_type, outcome = _args(appeal_type, outcome)
    with app.store.connection() as conn:
        profile = merged_profile(conn, appeal_type)
    return {"appeal_type": appeal_type, "outcome": outcome,
            "checklist": _checklist(profile, outcome)}  # fmt: skip


def lessons_for_outcome(app: App, appeal_type: str, outcome: str | None = None) -> dict:
    appeal_type, outcome = _args(appeal_type, outcome)
    with app.store.connection() as conn:
        rows = store.approved_lessons(conn, appeal_type, outcome)
    return {"appeal_type": appeal_type, "outcome": outcome,
            "lessons": [{k: r[k] for k in ("id", "category", "kind", "text", "block", "source",
                                           "reviewed_by")} for r in rows]}  # fmt: skip


def writing_brief(app: App, appeal_type: str, outcome: str | None = None) -> dict:
    """Everything the writer should follow for this decision, all of it approved."""
    appeal_type, outcome = _args(appeal_type, outcome)
    with app.store.connection() as conn:
        profile = merged_profile(conn, appeal_type)
        versions = {key: (store.get_profile(conn, key) or {}).get("version")
                    for key in ("universal", appeal_type)}  # fmt: skip
        approved = store.approved_lessons(conn, appeal_type, outcome)
        ratios, finals = chair_ratios(conn, profile)
    approved_ids = {r["id"] for r in approved}
    folded = [item for item in profile.get("lessons", [])
              if item.get("id") in approved_ids
              and (item.get("outcome") in (None, outcome))]  # fmt: skip
    return {
        "appeal_type": appeal_type,
        "outcome": outcome,
        "methodology_versions": versions,
        "block_order": profile.get("blocks", {}).get("order", []),
        "golden_ratios": profile.get("golden_ratios") or ratios,
        "golden_ratios_from": "methodology"
        if profile.get("golden_ratios")
        else f"measured over {len(finals)} finals in the style corpus",
        "discussion_rules": profile.get("discussion_rules", []),
        "transition_phrases": profile.get("transition_phrases", []),
        "anti_patterns": profile.get("anti_patterns", []),
        "voice_invariants": profile.get("voice_invariants", []),
        "content_checklist": _checklist(profile, outcome),
        "folded_lessons": folded,
        "lessons": [
            {k: r[k] for k in ("id", "category", "kind", "text", "block")} for r in approved
        ],  # fmt: skip
    }
