"""The case pages' forms (web/desk/cases.py): the choices their selects offer, a refused upload
shown again — the reason beside its field, in Hebrew, and what she filled in kept — the line
said after a redirect (which version was received, what was promoted, attached, linked or
resolved: read from what is stored, never from the address), what reading a file said, and
promote's checks before its service runs."""

from __future__ import annotations

import re
from typing import Any

from markupsafe import Markup

from ...config import Settings
from ...errors import AppError, InvalidInput
from ...learning import vocabulary as vocab
from ...learning.lessons import lessons
from ...learning.library import links
from ...learning.pairs import finals
from . import case_completion, case_view, labels, messages
from .labels import bdi, mixed
from .pages_hebrew import field_refusal

# Notes of the final's service that its page says itself (the learning stage, an unchanged or a
# changed final, a final without a draft): not carried to the page as reading notes.
OWN_NOTES = (
    "learning stage queued",
    "the same final is already stored",
    "no draft was registered",
    "a changed final",
)
# What reading a Word file said (text/docx_reader.py), as she reads it.
READING = (
    (
        r"(\d+) tracked changes? (?:was|were) accepted",
        "בקריאת הקובץ התקבלו {} שינויים שנעשו במעקב שינויים: התוספות נשמרו והמחיקות הושמטו",
    ),
    (r"(\d+) comments? left out", "{} בועות הערה שבקובץ לא נקראו: אינן חלק מנוסח ההחלטה"),
    (
        r"(?:footnotes|endnotes) could not be read",
        "הערות השוליים של הקובץ לא נקראו, והגוף נקרא בלעדיהן; כדי לשמור עליהן פתחי את הקובץ "
        "ב-Word ושמרי אותו מחדש",
    ),
    (
        r"are referenced in the text but missing",
        "חלק מהערות השוליים מוזכרות בטקסט אך חסרות בקובץ; הוא נקרא בלעדיהן",
    ),
    (r"could not be read", "חלק מהגדרות הקובץ (מספור או סגנונות) לא נקרא; הטקסט נקרא בלעדיו"),
)


def choices(settings: Settings) -> dict:
    """What the forms' selects offer (ids; the page shows their Hebrew) and the size caps: a
    draft's or final's (Word or PDF, text), a ruling's (web/uploads.Caps)."""
    return {
        "appeal_types": vocab.APPEAL_TYPES,
        "outcomes": vocab.OUTCOMES,
        "areas": vocab.PRACTICE_AREAS,
        "max_mb": settings.max_file_mb,
        "decision_mb": settings.max_decision_mb,
        "decision_text_mb": settings.max_decision_text_mb,
        # a scanned draft or final, kept for OCR within a ruling's limit (uploads.Caps.decisions)
        "scan_mb": max(settings.max_file_mb, settings.max_decision_mb),
    }


def said_of(exc: AppError) -> Markup:
    """A refusal's Hebrew alone (beside a field; the service's words stay in the line above)."""
    return mixed(messages.hebrew_of(exc) or messages.REFUSED)


def refused_upload(name: str, exc: AppError, filled: dict) -> dict:
    """A refused upload form as it is shown again: {name, filled, errors}; an empty case number
    is named beside its field whatever else was refused."""
    field, said = field_refusal(exc)
    errors = {field: said} if field else {}
    if isinstance(exc, case_completion.SeveralCases):  # which, by their full numbers
        errors["case_number"] = Markup(
            "המספר מתאים לכמה תיקים: {} — כתבי את המספר המלא של אחד מהם"
        ).format(Markup(", ").join(bdi(c) for c in exc.several))
    if "case_number" in filled and not str(filled.get("case_number") or "").strip():
        errors.setdefault(
            "case_number", Markup("מספר התיק ריק: כתבי אותו, למשל ערר (מרכז) 1042/23")
        )
    kept = {k: v for k, v in filled.items() if k != "csrf"}
    return {"name": name, "filled": kept, "errors": errors}


def reading_note(text: str) -> Markup:
    """What reading a file said, in Hebrew; the reading's own words behind the details."""
    for pattern, said in READING:
        found = re.search(pattern, text)
        if found:
            number = found.group(1) if found.groups() else None
            shown = Markup(said).format(bdi(number)) if number else Markup(said)
            return shown + Markup(". ") + messages.technical(text)
    return Markup("הערה על קריאת הקובץ. ") + messages.technical(text)


# -- the line after a redirect ------------------------------------------------------------------


def _authority_ref(view: Any, authority_id: str | None) -> str | None:
    if authority_id is None or not authority_id.isdigit():
        return None
    with view.store.connection() as conn:
        row = links.authority(conn, int(authority_id))
    return row["ref"] if row else None


def list_notice(view: Any, query: dict) -> Markup | None:
    """/cases after a citation was linked or a missing precedent's ruling received."""
    return _linked_notice(view, query)


def _linked_notice(view: Any, query: dict) -> Markup | None:
    picked = _authority_ref(view, query.get("picked"))
    if picked:
        return Markup("הציטוט {} קושר להחלטה שבחרת.").format(mixed(picked))
    resolved = _authority_ref(view, query.get("resolved"))
    if resolved:
        return Markup("פסק הדין {} נקלט למאגר החיצוני והתקדים החסר נפתר.").format(mixed(resolved))
    return None


def case_notice(view: Any, page: dict, query: dict) -> Markup | None:
    """A case's page after an upload, a promote, an attached precedent or a citation linked."""
    uploaded = query.get("uploaded")
    if uploaded in ("draft", "final"):
        said = case_view.upload_notice(page, uploaded, query.get("same") == "1")
        if query.get("completed") == "1" and said is not None:  # "8092/24" named this case
            said += Markup(" מספר התיק הושלם: {}.").format(bdi(page["case"]["case_number"]))
        return said
    done = query.get("done")
    if done == "promote" and page["promotions"]:
        d = page["promotions"][-1]["details"] or {}
        return Markup(
            '{} ו-{} שולבו במתודולוגיה ({}), גרסה {}; התיק במצב "{}". <a href="/methodology/{}">'
            "לפרופיל</a>"
        ).format(
            case_view.plural(len(d.get("lessons") or []), "לקח אחד", "לקחים"),
            case_view.plural(len(d.get("phrases") or []), "ביטוי אחד", "ביטויים"),
            labels.label(d.get("appeal_type"), "appeal_type"),
            bdi(d.get("version")),
            case_view.STATUS.get(page["case"]["status"], ""),
            d.get("appeal_type") or "universal",
        )
    if done == "precedent" and page["precedents"]:
        p = page["precedents"][-1]
        where = "מקושר לפסק הדין בספרייה" if p["case_law_id"] else "פסק הדין עדיין אינו בספרייה"
        return Markup("{} צורף לתיק {} ({}).").format(
            mixed(p["citation"]), mixed(page["case"]["case_number"]), where
        )
    return _linked_notice(view, query)


# -- promote ------------------------------------------------------------------------------------


def _ids(raw: Any) -> list[int]:
    values = raw if isinstance(raw, list) else [raw] if raw else []
    try:
        return [int(v) for v in values]
    except (TypeError, ValueError):
        raise InvalidInput("מזהה לקח שאינו מספר; טעני את הדף מחדש") from None


def _short(text: str) -> str:
    return text if len(text) <= 60 else text[:59].rstrip() + "…"


def promote_refusal(
    case: str, pair: dict | None, rows: list[dict], ids: list[int], phrases: list[str]
) -> str | None:
    """Why the page refuses a promote before calling the service (Hebrew, naming a lesson by
    its words, never its number), or None. The service checks the same again under its locks
    (lessons.promote)."""
    if pair is None:
        return f"אין זוג טיוטה–החלטה לתיק {case}"
    if pair["status"] != "analyzed":
        shown = labels.PAIR_STATUS.get(pair["status"], "מצב אחר")
        return (
            f'התיק {case} במצב "{shown}"; קידום לקחים אפשרי רק בזוג שנותח '
            "(אחרי העלאת ההחלטה החתומה, ופעם אחת)"
        )
    if not ids and not phrases:
        return "לא נבחר אף לקח ולא נכתב אף ביטוי לקידום"
    by_id = {r["id"]: r for r in rows}
    for lesson_id in ids:
        row = by_id.get(lesson_id)
        if row is None:
            return f"אחד הלקחים שנבחרו אינו לקח של {case}; טעני את הדף מחדש"
        words = _short(row["text"])
        if row["kind"] == "substance":
            return (
                f'הלקח "{words}" הוא לקח מהות ({labels.label(row["category"], "category")}): '
                "המתודולוגיה מקבלת לקחי סגנון בלבד — הקול אינו מחזיק מהות"
            )
        if row["review_status"] in ("rejected", "vetoed"):
            return f'הלקח "{words}" {labels.STATUS[row["review_status"]]}; אין לקדם אותו'
    return None


def promote(view: Any, form: dict) -> dict:
    """Promote from the posted form: its lessons and phrases checked (promote_refusal), then
    lessons.promote; InvalidInput (Hebrew) when refused."""
    case = str(form.get("case_number") or "").strip()
    ids = _ids(form.get("lesson"))
    raw = form.get("phrases") or ""
    text = "\n".join(raw) if isinstance(raw, list) else str(raw)
    phrases = [line.strip() for line in text.splitlines() if line.strip()]
    case = vocab.case_number(case) if case else case
    pair = next((p for p in finals.pairs(view)["pairs"] if p["case_number"] == case), None)
    rows = lessons.list_lessons(view, case=case)["lessons"] if pair else []
    refused = promote_refusal(case, pair, rows, ids, phrases)
    if refused:
        raise InvalidInput(refused)
    return lessons.promote(view, case, ids, phrases)
