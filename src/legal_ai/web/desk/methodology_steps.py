"""The methodology's versions as the chair's steps (learning/methodology/undo.steps): what each
step was (`kind_of`: her edit, a step back, a restore, lessons folded or vetoed), and what it
changed in words (`changed`: phrases added and taken out, a ratio from and to, lessons in and
out) — never a pattern, an id or the system's English reason."""

from __future__ import annotations

import re
from typing import Any

from ...text.phrases import words_of
from .methodology_form import ADVANCED, BLOCK_LABELS, CHECKLISTS, HEADED, LISTS, OUTCOME_LABELS

SHOWN = 3  # items named per change; the rest counted
DESK_DEFAULT = "עריכה בדסק"  # the reason a desk save without one records (methodology.py)
_SYSTEM = {
    "seed": "נתוני הפתיחה",
    "edit": "עריכה",
}
_PROMOTE = re.compile(r"^promote (?P<case>.+)$")
_VETO = re.compile(r"^veto of lesson \d+$")
_RESTORE = re.compile(r"^restore of version (?P<v>\d+)$")
_UNDO = re.compile(r"^undo: back to version (?P<v>\d+)$")
_HEBREW = re.compile(r"[\u0590-\u05ff]")


def kind_of(step: dict) -> str:
    """What the step was, in her words; her own reason (Hebrew) is said apart (`reason_of`)."""
    reason = str(step.get("reason") or "")
    if step.get("undid_to"):
        return f"ביטול צעד: חזרה למצב של גרסה {step['undid_to']}"
    if step["version"] == 1:
        return "הגרסה הראשונה"
    if match := _RESTORE.match(reason):
        return f"שחזור גרסה {match['v']}"
    if match := _UNDO.match(reason):
        return f"ביטול צעד: חזרה למצב של גרסה {match['v']}"
    if match := _PROMOTE.match(reason):
        return f"לקחים מתיק {match['case']} שולבו"
    if _VETO.match(reason):
        return "לקח נפסל (וטו) והוצא"
    return "עריכה"


def reason_of(step: dict) -> str | None:
    """Her reason as she wrote it (Hebrew); the system's own reasons are not hers: None."""
    reason = str(step.get("reason") or "").strip()
    if reason == DESK_DEFAULT:  # saved on the desk without a reason: nothing to say
        return None
    return reason if reason and _HEBREW.search(reason) else None


def _named(items: list[str]) -> str:
    shown = "; ".join(f"״{i}״" for i in items[:SHOWN])
    rest = len(items) - SHOWN
    return shown + (f" ועוד {rest}" if rest > 0 else "")


def _list_change(label: str, before: list, after: list) -> list[str]:
    added = [str(i) for i in after if i not in before]
    removed = [str(i) for i in before if i not in after]
    out = []
    if added:
        out.append(f"{label}: נוסף {_named(added)}")
    if removed:
        out.append(f"{label}: הוסר {_named(removed)}")
    return out


def _rule(pattern: str | None) -> list[str]:
    if not pattern:
        return []
    return words_of(pattern) or [ADVANCED]


def _blocks(before: dict, after: dict) -> list[str]:
    out: list[str] = []
    b_head, a_head = before.get("headings") or {}, after.get("headings") or {}
    for block in HEADED:
        out += _list_change(
            f"כותרת {BLOCK_LABELS[block]}",
            _rule(b_head.get(block)),
            _rule(a_head.get(block)),
        )
    out += _list_change(
        "תחילת החתימה",
        _rule(before.get("signature_start")),
        _rule(after.get("signature_start")),
    )
    if (before.get("order") or []) != (after.get("order") or []):
        out.append("סדר הבלוקים השתנה")
    return out


def _ratios(before: dict, after: dict) -> list[str]:
    out = []
    for block, label in BLOCK_LABELS.items():
        old, new = before.get(block), after.get(block)
        if old == new:
            continue
        if old is None:
            out.append(f"יחס הזהב של {label}: נקבע {new:g}")
        elif new is None:
            out.append(f"יחס הזהב של {label}: הוסר (היה {old:g})")
        else:
            out.append(f"יחס הזהב של {label}: מ־{old:g} ל־{new:g}")
    return out


def changed(before: dict | None, after: dict) -> list[str]:
    """What changed from `before` to `after`, a line per change in words (empty: nothing, or
    no earlier version to compare with)."""
    if before is None:
        return []
    out = _blocks(before.get("blocks") or {}, after.get("blocks") or {})
    out += _ratios(before.get("golden_ratios") or {}, after.get("golden_ratios") or {})
    for key, label in LISTS.items():
        out += _list_change(label, before.get(key) or [], after.get(key) or [])
    b_lists, a_lists = before.get("content_checklists") or {}, after.get("content_checklists") or {}
    for outcome in CHECKLISTS:
        out += _list_change(
            f"רשימת התוכן ({OUTCOME_LABELS[outcome]})",
            b_lists.get(outcome) or [],
            a_lists.get(outcome) or [],
        )
    texts = {
        side: [str(i.get("text")) for i in (p.get("lessons") or []) if isinstance(i, dict)]
        for side, p in (("before", before), ("after", after))
    }
    out += _list_change("לקחים משולבים", texts["before"], texts["after"])
    return out


def shown_steps(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each step as the page shows it: its number, who, when, what it was, her reason, and what
    it changed."""
    return [
        {
            **{k: s[k] for k in ("version", "updated_by", "created_at")},
            "kind": kind_of(s),
            "reason": reason_of(s),
            "changed": changed(s["before"], s["profile"]),
        }
        for s in steps
    ]
