"""The methodology profile as the desk's form (web/desk/methodology.py holds the routes): a
profile's keys as form fields and the posted form back as the changed keys with each field's
error in Hebrew (`fields_of`, `parse`), and the diff between two versions line by line
(`diff_rows`).

A block's heading and the signature's start are rules in words: the phrases the rule matches,
one a line (text/phrases.py builds the escaped pattern and reads a stored one back). A stored
pattern that is no finite set of phrases (a regular expression written on the command line) is
not shown: its field is empty and `advanced` names it; left empty, it is kept as it is."""

import difflib
import json
import math
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from ...errors import InvalidInput
from ...learning import vocabulary as vocab
from ...learning.methodology import profiles as methodology
from ...text import blocks as text_blocks
from ...text.hebrew import clean_text
from ...text.phrases import clean_phrase, pattern_of, words_of

BLOCK_LABELS = text_blocks.BLOCK_LABELS
OUTCOME_LABELS = {
    "any": "בכל תוצאה",
    "accepted": "הערר התקבל",
    "rejected": "הערר נדחה",
    "partially_accepted": "הערר התקבל בחלקו",
    "remanded": "הדיון הוחזר לוועדה",
}
LISTS = {
    "discussion_rules": "כללי הדיון",
    "transition_phrases": "ביטויי מעבר",
    "anti_patterns": "ביטויים להימנע מהם",
    "voice_invariants": "קבועי הקול",
}
KEY_LABELS = {
    "blocks": "כותרות הבלוקים",
    "golden_ratios": "יחסי הזהב",
    **LISTS,
    "content_checklists": "רשימות תוכן לפי תוצאה",
    "lessons": "לקחים משולבים",
}
PART_LABELS = {
    **BLOCK_LABELS,
    **OUTCOME_LABELS,
    "headings": "כותרת",
    "order": "סדר",
    "signature_start": "תחילת החתימה",
}
HEADED = tuple(b for b in text_blocks.BLOCKS if b not in ("header", "signature"))
CHECKLISTS = ("any", *vocab.OUTCOMES)
RATIO_ERROR = "יחס הוא מספר מ-0 עד 1 (למשל 0.35)"
RULE_ERROR = "הכלל ארוך או מורכב מדי לבדיקה; חלקי אותו לפחות ביטויים"
ADVANCED = "כלל שנכתב בשורת הפקודה ואינו רשימת ביטויים"
RULES = (*(f"heading.{b}" for b in HEADED), "signature_start")  # the rules written in words


# -- the profile as form fields, and the form back as changes --------------------------------------
def fields_of(profile: dict) -> dict[str, str]:
    """The form's field values for a stored profile (a key it lacks: empty fields); a heading
    or the signature's start as its phrases, one a line."""
    spec = profile.get("blocks") or {}
    headings = spec.get("headings") or {}
    ratios = profile.get("golden_ratios") or {}
    checklists = profile.get("content_checklists") or {}
    values = {f"heading.{b}": _words(headings.get(b)) for b in HEADED}
    values["signature_start"] = _words(spec.get("signature_start"))
    values |= {f"ratio.{b}": _number(ratios[b]) if b in ratios else "" for b in text_blocks.BLOCKS}
    values |= {f"list.{k}": "\n".join(profile.get(k) or []) for k in LISTS}
    values |= {f"checklist.{o}": "\n".join(checklists.get(o) or []) for o in CHECKLISTS}
    return values


def _words(pattern: str | None) -> str:
    return "\n".join(words_of(pattern) or [])


def _stored_rules(profile: dict) -> dict[str, str | None]:
    spec = profile.get("blocks") or {}
    headings = spec.get("headings") or {}
    rules: dict[str, str | None] = {f"heading.{b}": headings.get(b) for b in HEADED}
    rules["signature_start"] = spec.get("signature_start")
    return rules


def advanced(profile: dict) -> set[str]:
    """The rule fields whose stored pattern cannot be written as phrases."""
    return {name for name, p in _stored_rules(profile).items() if p and words_of(p) is None}


def phrases_of(text: str) -> list[str]:
    """A rule field's phrases, one a line (empty lines dropped, duplicates once)."""
    return [p for p in dict.fromkeys(clean_phrase(line) for line in text.splitlines()) if p]


def _number(value: float) -> str:
    return f"{value:g}"


def _lines(text: str) -> list[str]:
    return [line for line in (clean_text(raw).strip() for raw in text.splitlines()) if line]


def parse(form: dict[str, Any], profile: dict) -> tuple[dict, dict[str, str]]:
    """The posted fields as the profile keys whose value differs from `profile`, and the
    errors found field by field (name -> Hebrew message; `headings`, `golden_ratios` for a
    whole group). Only keys without an error are in the changes."""
    text = {name: str(form.get(name) or "") for name in fields_of({})}
    errors: dict[str, str] = {}
    candidate: dict[str, Any] = {}

    rules: dict[str, str] = {}
    stored = _stored_rules(profile)
    for name in RULES:
        phrases = phrases_of(text[name])
        if not phrases:
            if name in advanced(profile):  # a pattern from the command line, kept
                rules[name] = stored[name] or ""
            continue
        if set(phrases) == set(words_of(stored[name]) or []):
            rules[name] = stored[name] or ""  # the same phrases: the stored rule unchanged
            continue
        long = [p for p in phrases if len(p) > text_blocks.MAX_HEADING_CHARS]
        if name != "signature_start" and long:
            errors[name] = (
                f"כותרת ארוכה מ-{text_blocks.MAX_HEADING_CHARS} תווים אינה נמצאת לעולם "
                f"(השורה ארוכה מדי לכותרת): {long[0][:40]}…"
            )
            continue
        rules[name] = pattern_of(phrases)
        try:
            text_blocks.check_pattern(
                rules[name], f"methodology {name}", signature=name == "signature_start"
            )
        except InvalidInput:  # in practice only a rule too long to check in time
            errors[name] = RULE_ERROR
    headings = {b: rules[f"heading.{b}"] for b in HEADED if rules.get(f"heading.{b}")}
    signature = rules.get("signature_start") or ""
    candidate["blocks"] = {"headings": headings, "signature_start": signature or None}

    ratios: dict[str, float] = {}
    for block in text_blocks.BLOCKS:
        raw = text[f"ratio.{block}"].strip().replace(",", ".")
        if not raw:
            continue
        try:
            value = float(raw)
        except ValueError:
            errors[f"ratio.{block}"] = f"'{raw}' אינו מספר; {RATIO_ERROR}"
            continue
        if not math.isfinite(value) or not 0 <= value <= 1:
            errors[f"ratio.{block}"] = f"{raw} מחוץ לטווח; {RATIO_ERROR}"
            continue
        ratios[block] = value
    candidate["golden_ratios"] = ratios
    for key in LISTS:
        candidate[key] = _lines(text[f"list.{key}"])
    candidate["content_checklists"] = {
        o: items for o in CHECKLISTS if (items := _lines(text[f"checklist.{o}"]))
    }

    changes = {k: v for k, v in _changed(candidate, profile).items() if not _has_error(k, errors)}
    for loc, message in _schema_errors(changes):
        name = _field_of(loc)
        errors.setdefault(name, message)
        changes.pop(loc[0], None)
    return changes, errors


def _has_error(key: str, errors: dict[str, str]) -> bool:
    prefix = {
        "blocks": ("heading.", "signature_start", "headings"),
        "golden_ratios": ("ratio.", "golden_ratios"),
        "content_checklists": ("checklist.",),
    }.get(key, (f"list.{key}",))
    return any(name.startswith(prefix) for name in errors)


def _changed(candidate: dict, profile: dict) -> dict:
    """The candidate's keys whose value differs from the stored profile's (absent == empty)."""
    changes: dict[str, Any] = {}
    spec = profile.get("blocks") or {}
    now = {
        "headings": {b: p for b, p in (spec.get("headings") or {}).items() if p},
        "signature_start": spec.get("signature_start") or None,
    }
    if candidate["blocks"] != now:
        new = {k: v for k, v in candidate["blocks"].items() if v is not None}
        if spec.get("order"):
            new = {"order": spec["order"], **new}
        changes["blocks"] = new
    if candidate["golden_ratios"] != (profile.get("golden_ratios") or {}):
        changes["golden_ratios"] = candidate["golden_ratios"]
    for key in LISTS:
        if candidate[key] != (profile.get(key) or []):
            changes[key] = candidate[key]
    stored = {o: v for o, v in (profile.get("content_checklists") or {}).items() if v}
    if candidate["content_checklists"] != stored:
        changes["content_checklists"] = candidate["content_checklists"]
    return changes


def _schema_errors(changes: dict) -> list[tuple[tuple, str]]:
    """The changes against the profile's schema (methodology.ProfileChanges): every error with
    where it is and a Hebrew message."""
    if not changes:
        return []
    try:
        methodology.ProfileChanges.model_validate(changes)
    except ValidationError as exc:
        return [(tuple(e["loc"]), _hebrew(e)) for e in exc.errors()]
    return []


def _hebrew(error: Mapping[str, Any]) -> str:
    kind, loc, ctx = error["type"], error["loc"], error.get("ctx") or {}
    if kind == "too_short" and loc[:2] == ("blocks", "headings"):
        return f"נדרשות לפחות {text_blocks.MIN_HEADINGS} כותרות בלוקים (הבלוקים מזוהים לפיהן)"
    if kind == "string_too_long":
        return f"שורה ארוכה מדי: עד {ctx.get('max_length')} תווים"
    if kind == "too_long":
        return f"יותר מדי שורות: עד {ctx.get('max_length')}"
    if kind in ("less_than_equal", "greater_than_equal"):
        return RATIO_ERROR
    if loc == ("golden_ratios",):
        return "סכום היחסים עולה על 1: הם חלקים של החלטה אחת"
    return f"ערך לא תקין ({error['msg']})"


def _field_of(loc: tuple) -> str:
    key = loc[0]
    if key == "blocks":
        if len(loc) > 2 and loc[1] == "headings":
            return f"heading.{loc[2]}"
        return "signature_start" if loc[1:2] == ("signature_start",) else "headings"
    if key == "golden_ratios":
        return f"ratio.{loc[1]}" if len(loc) > 1 else "golden_ratios"
    if key == "content_checklists":
        return f"checklist.{loc[1]}" if len(loc) > 1 else "content_checklists"
    return f"list.{key}" if key in LISTS else "form"


# -- the diff, line by line ------------------------------------------------------------------------
def _flat(value: Any, prefix: str = "") -> list[str]:
    """A profile value as lines of text: a dict's entries labelled, a list's items one a line,
    a folded lesson (a dict inside a list) one line of JSON."""
    if value is None:
        return []
    if isinstance(value, dict):
        out: list[str] = []
        for key, item in value.items():
            label = f"{prefix}{PART_LABELS.get(key, key)}: "
            if key in (*HEADED, "signature_start") and isinstance(item, str):
                item = " · ".join(words_of(item) or [ADVANCED])  # a rule, in its words
            if key == "order" and isinstance(item, list):
                item = " ← ".join(BLOCK_LABELS.get(b) or str(b) for b in item)
            out += _flat(item, label) if isinstance(item, dict | list) else [f"{label}{item}"]
        return out
    if isinstance(value, list):
        return [prefix + (_lesson(item) if isinstance(item, dict) else str(item)) for item in value]
    return [f"{prefix}{value}"]


def _lesson(item: dict) -> str:
    """A folded lesson as one line: its text (never its id or its keys)."""
    return str(item.get("text") or json.dumps(item, ensure_ascii=False))


def diff_rows(changes: list[dict]) -> list[dict]:
    """methodology.diff's changes as rows of (op, line): op is same, del or ins."""
    out = []
    for change in changes:
        before, after = _flat(change["before"]), _flat(change["after"])
        lines: list[tuple[str, str]] = []
        matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            if op == "equal":
                lines += [("same", line) for line in before[i1:i2]]
                continue
            lines += [("del", line) for line in before[i1:i2]]
            lines += [("ins", line) for line in after[j1:j2]]
        out.append(
            {
                "key": change["key"],
                "label": KEY_LABELS.get(change["key"], change["key"]),
                "lines": lines,
            }
        )
    return out
