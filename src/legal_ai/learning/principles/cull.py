"""The cull of principles: the panel's rule (learning/principles/extraction.outcome, with today's
HALACHA_PANEL_APPROVE_SCORE and HALACHA_PANEL_MAX_NEW) re-applied to what the panel decided or
left pending, reported first and applied only by the chair."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...auth import require_chair
from ...errors import refused_by_gate
from ...retrieval.terms import shown_status
from ...store import items as sql_items
from .extraction import outcome

if TYPE_CHECKING:
    from ...context import Context


def _cull_plan(app: Context) -> tuple[int, list[dict]]:
    """What the rule, applied today, says of each principle the panel decided: [{id, doc_id,
    rule_text, status, action: remove | reopen, reason}]."""
    approve_score = app.settings.halacha_panel_approve_score
    cap = app.settings.halacha_panel_max_new
    with app.store.connection() as conn:
        rows = [dict(r) for r in sql_items.panel_principles(conn)]
    plan: dict[int, dict] = {}

    def mark(row: dict, action: str, reason: str) -> None:
        plan.setdefault(
            row["id"],
            {
                "id": row["id"],
                "doc_id": row["doc_id"],
                "rule_text": row["rule_text"],
                "status": shown_status(row["review_status"]),
                "action": action,
                "reason": reason,
            },
        )

    for row in rows:
        expected = outcome(row["votes"], row["score"] or 0.0, approve_score)
        if expected == "rejected":
            mark(row, "remove", f"{row['votes']} vote(s): the rule rejects it")
        elif expected == "proposed" and row["review_status"] == "approved":
            mark(
                row,
                "reopen",
                f"2 votes and score {row['score']} < {approve_score}: the chair's to review",
            )
    seen: set[tuple[int, int]] = set()
    by_item: dict[int, list[dict]] = {}
    for row in rows:
        if row["canonical_id"] is not None:
            pair = (row["case_law_id"], row["canonical_id"])
            if pair in seen:
                mark(row, "remove", "the same principle twice from one ruling")
                continue
            seen.add(pair)
        if row["first"] and row["id"] not in plan:
            by_item.setdefault(row["case_law_id"], []).append(row)
    for group in by_item.values():
        group.sort(key=lambda r: (-(r["score"] or 0.0), r["id"]))
        for row in group[cap:]:
            mark(row, "remove", f"beyond HALACHA_PANEL_MAX_NEW={cap} new principles of its ruling")
    return len(rows), sorted(plan.values(), key=lambda p: p["id"])


def cull(app: Context, *, apply: bool = False) -> dict:
    """Re-apply the panel's rule (today's HALACHA_PANEL_APPROVE_SCORE and HALACHA_PANEL_MAX_NEW)
    to the principles the panel decided or left pending — never to those the chair decided — and
    report what it would remove (an approved one is withdrawn from search, a pending one
    rejected) or send back to her review. Nothing changes unless `apply`, which is the chair's
    decision (her token): {"checked", "remove", "reopen", "applied"}."""
    checked, plan = _cull_plan(app)
    report = {
        "checked": checked,
        "remove": [p for p in plan if p["action"] == "remove"],
        "reopen": [p for p in plan if p["action"] == "reopen"],
        "applied": False,
    }
    if not apply:
        return report
    require_chair(app.principal, "culling principles (it withdraws what the panel approved)")
    status_for = {
        ("remove", "approved"): "vetoed",
        ("remove", "pending_review"): "rejected",
        ("reopen", "approved"): "proposed",
    }
    with refused_by_gate():
        with app.store.transaction() as conn:
            for p in plan:
                sql_items.set_principle_review(
                    conn,
                    p["id"],
                    status_for[p["action"], p["status"]],
                    app.principal.actor,
                    f"cull: {p['reason']}",
                )
    report["applied"] = True
    return report
