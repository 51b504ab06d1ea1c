"""What /health and /cases (web/desk/health_technical.py) say in Hebrew for what the services report in
English: the upkeep's reasons on /health (`health_notes`), where a decision awaiting its
headnote, summary and tags stands (`metadata_state`, also on /training/metadata) and why a draft
or a final was refused (`upload_refusal`: the catalog's Hebrew)."""

from collections.abc import Mapping
from typing import Any

from markupsafe import Markup

from ... import catalog
from ...errors import AppError, TooLarge
from . import core, messages
from .labels import mixed


def health_notes(report: Mapping[str, Any]) -> dict:
    """/health's Hebrew for what the upkeep reports in English: why a digest is unresolved (per
    doc_id), why an OCR job waits, and where a decision awaiting enrichment stands (per
    case_law_id). The service's own text is shown beside it, left to right."""
    digests = {}
    for d in report["unresolved_digests"]["items"]:
        if not (d["points_to"] or "").strip():
            digests[d["doc_id"]] = "אין ליומון הפניה (points_to) לפסק הדין שהוא מסכם"
        elif d["key"] is None:
            digests[d["doc_id"]] = "ההפניה של היומון אינה נושאת מספר תיק"
        elif d["reason"].startswith("several rulings"):
            digests[d["doc_id"]] = (
                f"כמה פסקי דין בספרייה תואמים ל-{d['key']}: יש לציין בהפניה את הערכאה והמחוז"
            )
        else:
            digests[d["doc_id"]] = (
                f"פסק הדין {d['key']} אינו בספרייה: העלי אותו (מאגר הפסיקה) והיומון יקושר אליו"
            )
    enrich = {}
    for e in report["awaiting_enrichment"]["items"]:
        state = e["state"] or ""
        enrich[e["case_law_id"]] = (
            "ממתינה להכרעתך"
            if state.startswith("pending the chair's review")
            else "ממתינה להגדרת מודל"
            if state.startswith("waiting")
            else "נכשלה"
            if state.startswith("failed")
            else "בניסיון חוזר"
            if state.startswith("retry")
            else "נכתבת כעת"
            if state == "running"
            else "בתור לכתיבה"
            if state.startswith("queued")
            else "טרם נכנסה לתור (התחזוקה הלילית תכניס אותה)"
        )
    metadata = {e["case_law_id"]: metadata_state(e) for e in report["awaiting_metadata"]["items"]}
    changed = {
        (c["corpus"], c["doc_id"]): changed_note(c)
        for c in report["changed_outside_ingest"]["items"]
    }
    ocr = {
        j["job_id"]: {
            "waiting": "ממתינה למחשב: חסרה תוכנת OCR או שפה שלה",
            "running": "נקראת כעת",
            "queued": "בתור לקריאה",
        }.get(j["status"], "")
        for j in report["ocr"]["jobs"]
    }
    return {
        "digests": digests,
        "enrichment": enrich,
        "ocr": ocr,
        "metadata": metadata,
        "changed": changed,
        "fields": field_names,
    }


# An internal decision's three fields, and the other fields its record may lack, in Hebrew.
FIELDS = {
    "headnote": "תקציר",
    "summary": "סיכום",
    "tags": "תגיות",
    "case_number": "מספר התיק",
    "decided_on": "תאריך ההחלטה",
    "practice_area": "תחום",
    "title": "כותרת",
}
_DECIDED = {
    "pending_review": "הצעת המודל ממתינה להכרעתך בדף העשרת החלטות",
    "reverted": "החזרת את מה שכתב המודל; השדות ממתינים לך",
    "rejected": "דחית את הצעת המודל; השדות ממתינים לך",
    "approved": "הצעת המודל אושרה, ובכל זאת חסר שדה",
    "edited": "ערכת את השדות, ובכל זאת חסר שדה",
}
_JOBS = {
    "waiting": "לא הוגדר מודל שיכתוב אותם",
    "failed": "המודל לא הצליח לכתוב אותם",
    "running": "המודל כותב אותם כעת",
    "queued": "בתור לכתיבה בידי המודל",
}


def field_names(fields: list[str] | None) -> str:
    """Fields a record lacks, in Hebrew ("תקציר, תגיות"); one not named here as "פרט נוסף"."""
    return ", ".join(FIELDS.get(f, "פרט נוסף") for f in fields or [])


def metadata_state(row: dict) -> str:
    """Where a decision awaiting its headnote, summary and tags stands, in Hebrew (the cases of
    learning/arrival/metadata._state): her review, her own earlier decision, or the model's job."""
    decided = _DECIDED.get(row.get("enrichment_status") or "")
    if decided:
        return decided
    return _JOBS.get(
        row.get("job_status") or "", "טרם נכנסה לתור המודל (התחזוקה הלילית תכניס אותה)"
    )


def changed_note(row: dict) -> str:
    """What of an item changed outside ingest, in Hebrew (App.health's changed_outside_ingest)."""
    parts = ["הטקסט השמור שונה"] if row["text_changed"] else []
    chunks = row["chunks"] or []
    if len(chunks) == 1:
        parts.append(f"קטע {chunks[0]} שונה")
    elif chunks:
        parts.append(f"{len(chunks)} קטעים שונו ({', '.join(str(n) for n in chunks)})")
    if row.get("count_changed"):
        parts.append("קטעים נמחקו או נוספו")
    return "; ".join(parts)


def too_large(limit_mb: float, decision: bool = True) -> str:
    """A file over its kind's limit, in her words: the limit, and that nothing was stored."""
    if decision:
        return (
            f"הקובץ גדול מהמותר לטיוטה או להחלטה: עד {limit_mb:g} מגה־בייט. החלטה שלמה שוקלת "
            "בדרך כלל פחות ממגה־בייט — האם זה קובץ ההחלטה? דבר לא נשמר"
        )
    return f"הקובץ גדול מהמותר: עד {limit_mb:g} מגה־בייט. דבר לא נשמר; פצלי אותו"


def _too_large_of(exc: AppError) -> str | None:
    limit = getattr(exc, "limit_mb", None)
    if not isinstance(exc, TooLarge) or limit is None:
        return None
    return too_large(limit, exc.code == "file.decision_too_large")


def upload_refusal(exc: AppError) -> Markup:
    """A refused draft or final in Hebrew, the service's own text kept after it."""
    said = _too_large_of(exc)
    if said is not None:
        return Markup("{}. ").format(said) + messages.technical(str(exc))
    return core.in_hebrew(exc)


def field_refusal(exc: AppError) -> tuple[str | None, Markup]:
    """Which field of an upload form a refusal is about (its own, else its code's in the
    catalog), and what to say beside it (Hebrew only: the service's words stay in the line
    above the form)."""
    _, field, hebrew = catalog.of(exc)
    said = _too_large_of(exc) or hebrew
    if said in (None, catalog.REFUSED):
        said = (
            "הקובץ לא נקלט" if field == "file" else "הערך אינו תקין" if field else catalog.REFUSED
        )
    return field, mixed(said)
