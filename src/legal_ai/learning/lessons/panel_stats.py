"""How far the style panel can be trusted: the panel against the chair on
every lesson both decided.

- An item is a lesson the panel decided (2/2 approve or 2/2 reject) that the chair also decided
  afterwards: she vetoed a panel approval (reject), approved a panel rejection (approve), or
  confirmed the panel's decision (`lessons review` with the same decision, or promoting the
  lesson). Her latest decision counts.
- `agreement` is the share of items where the panel and the chair decided alike; `kappa` is
  Cohen's κ and `ac1` Gwet's AC1 on the same items (None when they are undefined: no items, or a
  chance agreement of 1).
- `coverage` is the share of the lessons sent to the panel that it decided without the chair
  (a split or a failed model sends a lesson to her).
- `reversal_rate` is the share of the panel's approvals that the chair vetoed.
- `escalated` counts lessons the panel split on (or failed on) that the chair decided, and
  `by_model` compares each model's own votes with the chair's decisions on every lesson she
  decided, escalations included.

Cohen's κ and Gwet's AC1 are computed here (`kappa`, `ac1`), for any number of categories, and
checked against the worked examples of Gwet's Handbook of Inter-Rater Reliability (4th ed.)
in the tests: irrCAC, the maintained implementation, pins scipy==1.12 and pulls pandas, which
this project does not otherwise need.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypedDict

from ...store import distilled_lessons as engine_store

if TYPE_CHECKING:
    from ...context import Context

CATEGORIES = ("approve", "reject")


def _table(pairs: Sequence[tuple[str, str]], categories: Sequence[str]) -> list[list[int]]:
    index = {c: i for i, c in enumerate(categories)}
    table = [[0] * len(categories) for _ in categories]
    for a, b in pairs:
        table[index[a]][index[b]] += 1
    return table


def _margins(table: Sequence[Sequence[float]]) -> tuple[float, float, list[float], list[float]]:
    n = float(sum(sum(row) for row in table))
    q = len(table)
    observed = sum(table[k][k] for k in range(q)) / n
    rows = [sum(table[k]) / n for k in range(q)]
    cols = [sum(table[i][k] for i in range(q)) / n for k in range(q)]
    return n, observed, rows, cols


def kappa(table: Sequence[Sequence[float]]) -> float | None:
    """Cohen's κ of a q×q contingency table (rows: rater A, columns: rater B): (pₐ − pₑ) / (1 − pₑ)
    with pₑ = Σₖ pₖ₊·p₊ₖ. None when undefined (an empty table, or pₑ = 1)."""
    if not table or sum(sum(row) for row in table) == 0:
        return None
    _, observed, rows, cols = _margins(table)
    chance = sum(r * c for r, c in zip(rows, cols, strict=True))
    return None if chance >= 1 else (observed - chance) / (1 - chance)


def ac1(table: Sequence[Sequence[float]]) -> float | None:
    """Gwet's AC1 of a q×q contingency table: (pₐ − pₑ) / (1 − pₑ) with
    pₑ = 1/(q−1) · Σₖ πₖ(1 − πₖ), πₖ = (pₖ₊ + p₊ₖ) / 2. None when undefined."""
    if not table or len(table) < 2 or sum(sum(row) for row in table) == 0:
        return None
    _, observed, rows, cols = _margins(table)
    q = len(table)
    pis = [(r + c) / 2 for r, c in zip(rows, cols, strict=True)]
    chance = sum(p * (1 - p) for p in pis) / (q - 1)
    return None if chance >= 1 else (observed - chance) / (1 - chance)


class Agreement(TypedDict):
    """How often two raters agreed on `items` decisions: the share, Cohen's kappa, Gwet's AC1
    (each None where it is undefined: no items, or chance agreement of 1)."""

    items: int
    agreement: float | None
    kappa: float | None
    ac1: float | None


class PanelStats(Agreement):
    """`legal-ai learning panel-stats --json` (DESIGN §10): the panel's decisions against the
    chair's, with `coverage` (the share the panel decided) and `reversal_rate` (the share of its
    approvals she vetoed); `sent`, `panel_decided`, `escalated` and each model's agreement."""

    coverage: float | None
    reversal_rate: float | None
    sent: int
    panel_decided: int
    escalated: int
    by_model: dict[str, Agreement]


def _agreement(pairs: list[tuple[str, str]]) -> Agreement:
    table = _table(pairs, CATEGORIES)
    agree = sum(1 for a, b in pairs if a == b)

    def rounded(x: float | None) -> float | None:
        return None if x is None else round(x, 4)

    return {
        "items": len(pairs),
        "agreement": rounded(agree / len(pairs)) if pairs else None,
        "kappa": rounded(kappa(table)),
        "ac1": rounded(ac1(table)),
    }


def _chair_decision(row: dict) -> str | None:
    """The chair's latest decision on a lesson, as approve / reject (None: she has not decided).
    Her audit rows: a status change (`update_lesson`), a confirmation of the panel's decision
    (`chair_confirm`), or a promote that folded the lesson (approve)."""
    decision = None
    for event in row["chair"]:
        if event["action"] == "promote":
            decision = "approve"
        elif event["action"] == "chair_confirm":
            decision = {"approved": "approve", "rejected": "reject"}.get(
                row["panel_decision"], decision
            )
        elif event["to"] == "approved":
            decision = "approve"
        elif event["to"] in ("rejected", "vetoed"):
            decision = "reject"
    return decision


def stats(app: Context) -> PanelStats:
    """{"items", "agreement", "kappa", "ac1", "coverage", "reversal_rate"} (and `sent`,
    `panel_decided`, `escalated`, `by_model`): the panel against the chair. Read-only."""
    with app.store.connection() as conn:
        rows = engine_store.panel_lessons(conn)
    decided_pairs: list[tuple[str, str]] = []
    per_model: dict[str, list[tuple[str, str]]] = {}
    escalated = 0
    approvals = vetoed = 0
    for row in rows:
        panel = {"approved": "approve", "rejected": "reject"}.get(row["panel_decision"])
        chair = _chair_decision(row)
        if row["panel_decision"] == "approved":
            approvals += 1
            vetoed += any(e["to"] == "vetoed" for e in row["chair"])
        if chair is None:
            continue
        if panel is not None:
            decided_pairs.append((panel, chair))
        else:
            escalated += 1
        for vote in row["votes"]:
            per_model.setdefault(vote["model"], []).append((vote["vote"], chair))
    panel_decided = sum(1 for r in rows if r["panel_decision"] in ("approved", "rejected"))
    return {
        **_agreement(decided_pairs),
        "coverage": round(panel_decided / len(rows), 4) if rows else None,
        "reversal_rate": round(vetoed / approvals, 4) if approvals else None,
        "sent": len(rows),
        "panel_decided": panel_decided,
        "escalated": escalated,
        "by_model": {model: _agreement(pairs) for model, pairs in sorted(per_model.items())},
    }
