"""/methodology: the chair's methodology profiles (`universal` and one per appeal type) edited in
forms, never as raw JSON; their versions, a diff between two, and a one-click restore.

A profile's keys become fields: a heading pattern per block and the signature's start (regular
expressions), a golden ratio per block (a number from 0 to 1), and one-item-per-line textareas
for the discussion rules, the content checklist of each outcome, transition phrases,
anti-patterns and voice invariants. Folded lessons are shown read-only (a veto in /training
takes one out). On save only the keys whose value changed are sent, through
`methodology.edit` (its pydantic schema and time-boxed regex checks decide; nothing is saved
when it refuses). Before that each field is checked on its own — the same checks: the pattern
compiled and time-boxed by `text.blocks.check_pattern`, the changed keys against
`methodology.ProfileChanges` — so that each error is shown in Hebrew next to its field. The
form carries the version it was loaded from: when the profile was saved meanwhile (another tab)
nothing is saved and the page says so. Every save is a new version; history, diff and restore
are `methodology.history`, `.diff` and `.restore` (restore: a new version equal to the old)."""

import difflib
import json
import math
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from ...errors import InvalidInput, NotFound
from ...learning import methodology
from ...learning import vocabulary as vocab
from ...text import blocks as text_blocks
from ...text.hebrew import clean_text
from . import core

TYPES = ("universal", *vocab.APPEAL_TYPES)
TYPE_LABELS = {
    "universal": "כללי (לכל סוגי הערר)",
    "permit": "היתר ובקשה להקלה",
    "change_of_use": "שימוש חורג",
    "plan": "תכנית",
    "betterment_levy": "היטל השבחה",
    "compensation_197": "פיצויים לפי סעיף 197",
    "procedural": "דיוני",
}
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


# -- the profile as form fields, and the form back as changes --------------------------------------
def fields_of(profile: dict) -> dict[str, str]:
    """The form's field values for a stored profile (a key it lacks: empty fields)."""
    spec = profile.get("blocks") or {}
    headings = spec.get("headings") or {}
    ratios = profile.get("golden_ratios") or {}
    checklists = profile.get("content_checklists") or {}
    values = {f"heading.{b}": headings.get(b, "") for b in HEADED}
    values["signature_start"] = spec.get("signature_start") or ""
    values |= {f"ratio.{b}": _number(ratios[b]) if b in ratios else "" for b in text_blocks.BLOCKS}
    values |= {f"list.{k}": "\n".join(profile.get(k) or []) for k in LISTS}
    values |= {f"checklist.{o}": "\n".join(checklists.get(o) or []) for o in CHECKLISTS}
    return values


def _number(value: float) -> str:
    return f"{value:g}"


def _lines(text: str) -> list[str]:
    return [line for line in (clean_text(raw).strip() for raw in text.splitlines()) if line]


def _pattern_error(exc: InvalidInput) -> str:
    if "backtracks" in str(exc):
        return (
            "הביטוי עלול לרוץ בלי סוף על שורה ארוכה (חזרה מקוננת כמו (a+)+); "
            "כתבי אותו בלי החזרה המקוננת"
        )
    detail = str(exc).partition("(")[2].rstrip(")")
    return "זה אינו ביטוי רגולרי תקין" + (f" ({detail})" if detail else "")


def parse(form: dict[str, Any], profile: dict) -> tuple[dict, dict[str, str]]:
    """The posted fields as the profile keys whose value differs from `profile`, and the
    errors found field by field (name -> Hebrew message; `headings`, `golden_ratios` for a
    whole group). Only keys without an error are in the changes."""
    text = {name: str(form.get(name) or "") for name in fields_of({})}
    errors: dict[str, str] = {}
    candidate: dict[str, Any] = {}

    headings = {b: clean_text(text[f"heading.{b}"]).strip() for b in HEADED}
    headings = {b: p for b, p in headings.items() if p}
    signature = clean_text(text["signature_start"]).strip()
    for block, pattern in headings.items():
        try:
            text_blocks.check_pattern(pattern, f"methodology blocks.headings.{block}")
        except InvalidInput as exc:
            errors[f"heading.{block}"] = _pattern_error(exc)
    if signature:
        try:
            text_blocks.check_pattern(
                signature, "methodology blocks.signature_start", signature=True
            )
        except InvalidInput as exc:
            errors["signature_start"] = _pattern_error(exc)
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


def _hebrew(error: dict) -> str:
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
            out += _flat(item, label) if isinstance(item, dict | list) else [f"{label}{item}"]
        return out
    if isinstance(value, list):
        return [
            prefix + (json.dumps(item, ensure_ascii=False) if isinstance(item, dict) else str(item))
            for item in value
        ]
    return [f"{prefix}{value}"]


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


# -- the pages ----------------------------------------------------------------------------------
def _type(appeal_type: str) -> str:
    if appeal_type not in TYPES:
        raise NotFound(f"אין פרופיל מתודולוגיה בשם '{appeal_type}'; הסוגים: " + ", ".join(TYPES))
    return appeal_type


def routes(api: FastAPI, signed_in: Any) -> None:
    Chair = Annotated[core.Desk, Depends(signed_in)]

    async def page(
        request: Request,
        desk: core.Desk,
        appeal_type: str,
        status: int = 200,
        values: dict | None = None,
        **context: Any,
    ) -> Response:
        def load() -> tuple[dict, dict]:
            return (
                methodology.show(desk.view, appeal_type),
                methodology.history(desk.view, appeal_type),
            )

        shown, history = await run_in_threadpool(load)
        return core.render(
            request,
            "methodology.html",
            status=status,
            desk=desk,
            appeal_type=appeal_type,
            types=TYPES,
            type_labels=TYPE_LABELS,
            shown=shown,
            versions=history["versions"],
            values=values if values is not None else fields_of(shown["profile"]),
            lessons=shown["profile"].get("lessons") or [],
            headed=HEADED,
            blocks=text_blocks.BLOCKS,
            block_labels=BLOCK_LABELS,
            lists=LISTS,
            checklists=CHECKLISTS,
            outcome_labels=OUTCOME_LABELS,
            errors=context.pop("errors", {}),
            **context,
        )

    @api.get("/methodology", include_in_schema=False)
    async def methodology_home(desk: Chair) -> Response:
        return RedirectResponse("/methodology/universal", 303)

    @api.get("/methodology/{appeal_type}", include_in_schema=False)
    async def methodology_page(
        request: Request,
        appeal_type: str,
        desk: Chair,
        saved: int = 0,
        restored: int = 0,
        source: int = 0,
        dropped: int = 0,
        same: int = 0,
    ) -> Response:
        notice = None
        if saved:
            notice = f"נשמרה גרסה {saved}"
        elif restored:
            notice = f"גרסה {source} שוחזרה כגרסה חדשה, {restored}"
            if dropped:
                notice += f"; {dropped} לקחים שנפסלו מאז לא הוחזרו"
        elif same:
            notice = "לא היה שינוי בשדות; לא נשמרה גרסה חדשה"
        return await page(request, desk, _type(appeal_type), notice=notice)

    @api.post("/methodology/{appeal_type}", include_in_schema=False)
    async def save(request: Request, appeal_type: str, desk: Chair) -> Response:
        appeal_type = _type(appeal_type)
        form = await core.form_of(request, desk)
        loaded = str(form.get("version") or "")
        values = {name: str(form.get(name) or "") for name in fields_of({})}
        shown = await run_in_threadpool(methodology.show, desk.view, appeal_type)
        if loaded != str(shown["version"]):
            return await page(
                request,
                desk,
                appeal_type,
                status=409,
                values=values,
                message=f"הפרופיל נשמר בינתיים כגרסה {shown['version']} (על ידי "
                f"{shown['updated_by']}); לא נשמר דבר — טעני את הדף מחדש וערכי שוב",
            )
        changes, errors = await run_in_threadpool(parse, form, shown["profile"])
        if errors:
            return await page(
                request,
                desk,
                appeal_type,
                status=400,
                values=values,
                errors=errors,
                message="לא נשמר דבר: תקני את השדות המסומנים",
            )
        if not changes:
            return RedirectResponse(f"/methodology/{appeal_type}?same=1", 303)
        reason = str(form.get("reason") or "").strip() or "עריכה בדסק"
        try:
            saved = await run_in_threadpool(
                methodology.edit, desk.view, appeal_type, changes, reason=reason
            )
        except InvalidInput as exc:
            return await page(
                request, desk, appeal_type, status=400, values=values, message=f"לא נשמר דבר: {exc}"
            )
        return RedirectResponse(f"/methodology/{appeal_type}?saved={saved['version']}", 303)

    @api.get("/methodology/{appeal_type}/diff", include_in_schema=False)
    async def diff(request: Request, appeal_type: str, desk: Chair, a: int, b: int) -> Response:
        appeal_type = _type(appeal_type)

        def load() -> tuple[dict, dict]:
            return (
                methodology.diff(desk.view, appeal_type, a, b),
                methodology.history(desk.view, appeal_type),
            )

        result, history = await run_in_threadpool(load)
        current = history["versions"][0]["version"]
        return core.render(
            request,
            "methodology_diff.html",
            desk=desk,
            appeal_type=appeal_type,
            type_labels=TYPE_LABELS,
            a=a,
            b=b,
            current=current,
            versions={v["version"]: v for v in history["versions"]},
            rows=diff_rows(result["changes"]),
        )

    @api.post("/methodology/{appeal_type}/restore", include_in_schema=False)
    async def restore(request: Request, appeal_type: str, desk: Chair) -> Response:
        appeal_type = _type(appeal_type)
        form = await core.form_of(request, desk)
        raw = str(form.get("version") or "")
        if not raw.isdigit():
            raise InvalidInput(f"גרסה לשחזור היא מספר שלם; התקבל '{raw}'")
        result = await run_in_threadpool(
            methodology.restore,
            desk.view,
            appeal_type,
            int(raw),
            str(form.get("reason") or "").strip() or None,
        )
        return RedirectResponse(
            f"/methodology/{appeal_type}?restored={result['version']}&source={raw}"
            f"&dropped={len(result['dropped_lessons'])}",
            303,
        )
