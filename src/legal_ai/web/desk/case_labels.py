"""Her final's labels on the case page: the appeal type, outcome and practice
area of her final against her latest draft's, for the final's upload form (prefilled: her
final's when she gave them, else the draft's) and two notices — labels taken from the draft
without her confirmation, and a draft labelled otherwise than her final (each label with both
values, in Hebrew through labels.py)."""

from __future__ import annotations

from typing import Any

from ...store import cases as store

NAMES = ("appeal_type", "outcome", "practice_area")


def labels_state(conn: Any, case: str) -> dict:
    """{prefill, unconfirmed, mismatch: [{name, draft, final}]} of one case."""
    row = store.labels_of(conn, case) or {}
    draft = {n: row.get(f"draft_{n}") for n in NAMES}
    final = {n: row.get(n) for n in NAMES}
    source = row.get("labels_source")
    mismatch = (
        [
            {"name": n, "draft": draft[n], "final": final[n]}
            for n in NAMES
            if draft[n] and final[n] != draft[n]
        ]
        if source == "final"
        else []
    )
    prefill = final if source else {n: draft[n] or final[n] for n in NAMES}
    return {"prefill": prefill, "unconfirmed": source == "draft", "mismatch": mismatch}
