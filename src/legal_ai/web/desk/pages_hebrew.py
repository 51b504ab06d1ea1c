"""What /health and /cases (web/desk/pages.py) say in Hebrew for what the services report in
English: the upkeep's reasons on /health (`health_notes`), where a decision awaiting its
headnote, summary and tags stands (`metadata_state`, also on /training/metadata) and why a draft
or a final was refused (UPLOAD_REFUSALS, `upload_refusal`)."""

import re

from markupsafe import Markup

from ...errors import AppError, TooLarge
from . import core, messages
from .labels import mixed


def health_notes(report: dict) -> dict:
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
    learning/metadata._state): her review, her own earlier decision, or the model's job."""
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


# Why a draft or a final was refused, as the chair reads it (the service's words kept after it,
# for the record): the first pattern that matches the refusal's text.
_UPLOAD_REFUSALS = (
    (r"^no file", "לא נבחר קובץ: בחרי את הקובץ או גררי אותו אל הטופס"),
    (
        r"the file's text is over [\d,]+ characters",
        "טקסט הקובץ ארוך בהרבה מהחלטה (החלטה היא 20–80 אלף תווים): האם זה קובץ ההחלטה? דבר לא נשמר",
    ),
    (
        r"was registered while the final was being read",
        "בזמן שההחלטה נקראה נרשמה טיוטה חדשה לתיק; דבר לא נשמר — שלחי את ההחלטה שוב",
    ),
    (
        r"names several cases",
        "המספר מתאים לכמה תיקים: כתבי את המספר המלא של התיק, כפי שהוא מופיע ברשימה למטה",
    ),
    (
        r"open tracked change",
        "בקובץ ה-Word יש עדיין שינויים במעקב או הערות פתוחים: האם זו ההחלטה החתומה? דבר לא "
        "נשמר עד שתאשרי",
    ),
    (r"the upload was cancelled", "ההעלאה בוטלה; דבר לא נשמר"),
    (r"the case number is empty", "מספר התיק ריק: כתבי אותו, למשל 'ערר (מרכז) 1042/23'"),
    (r"^OCR read no text", "זיהוי הטקסט בסריקה לא מצא בה טקסט: סרקי את ההחלטה שוב, בבירור"),
    (
        r"^OCR failed",
        "זיהוי הטקסט בסריקה נכשל; ההחלטה לא נקלטה. העלי אותה שוב, או כקובץ DOCX כפי שנכתבה",
    ),
    (
        r"a scan \(a PDF without a text layer\) at about \d+ dpi",
        "הקובץ הוא סריקה (PDF ללא שכבת טקסט) ברזולוציה שזיהוי הטקסט בסריקה אינו יכול לקרוא: "
        "סרקי את ההחלטה שוב, ברזולוציה של 200 עד 400 נקודות לאינץ'",
    ),
    (
        r"a scan \(a PDF without a text layer\)",
        "הקובץ הוא סריקה (PDF ללא שכבת טקסט). העלי את ההחלטה כפי שנכתבה (DOCX, או PDF שנשמר "
        "ממעבד התמלילים): טקסט שזוהה מסריקה נושא שגיאות זיהוי, וההשוואה לטיוטה תפרש אותן כעריכות "
        "שלך",
    ),
    (
        r"no decision blocks found",
        "לא נמצאו בקובץ כותרות של החלטה ('פתח דבר', 'רקע עובדתי', 'דיון והכרעה', 'סוף דבר') "
        "בשורות משלהן; ייתכן שזה אינו קובץ ההחלטה",
    ),
    (
        r"malformed case number",
        "מספר התיק אינו תקין: כתבי את המספר המלא עם סוגו, למשל 'ערר (מרכז) 1042/23'",
    ),
    (
        r"has already arrived",
        "ההחלטה הסופית בתיק זה כבר התקבלה; טיוטה שתתווסף עכשיו לא תושווה בהגינות, ולכן לא נקלטה",
    ),
    (r"cannot tell the practice area", "לא ניתן לקבוע את תחום ההחלטה: בחרי תחום בטופס"),
    (r"no decision date found", "לא נמצא בקובץ תאריך ההחלטה: מלאי אותו בטופס"),
    (
        r"no chair is recorded",
        'לא נמצא שם יו"ר הוועדה: אין שורת "בפני:" בראש ההחלטה ואין שם ליד "יו"ר" בחתימה, וגם '
        'בהגדרות השרת לא רשום; הוסיפי לראש ההחלטה שורה "בפני: שמך, יו"ר הוועדה" והעלי אותה שוב, '
        'או בקשי ממי שמתחזק את השרת לרשום את שם היו"ר',
    ),
    (
        r": the file is empty|: no text in the file",
        "הקובץ ריק או שאין בו טקסט: ייצאי את ההחלטה שוב",
    ),
    (
        r": not a readable (PDF|DOCX)|: the DOCX holds \d+ parts|looks like a zip bomb",
        "הקובץ פגום או שאינו ניתן לקריאה: פתחי אותו ושמרי אותו מחדש (ב-Word, או הדפסה ל-PDF)",
    ),
    (r": not a (PDF|DOCX) \(", "תוכן הקובץ אינו תואם את סוגו: שמרי אותו מחדש בסוג הנכון"),
    # The old formats (.doc, .rtf, .odt: text/office.py), read through LibreOffice.
    (
        r"is read through LibreOffice; install LibreOffice",
        "קובץ DOC, RTF או ODT נקרא דרך LibreOffice, שאינו מותקן בשרת: שמרי את המסמך כ-DOCX, "
        "או בקשי ממי שמתחזק את השרת להתקין את LibreOffice; דבר לא נשמר",
    ),
    (
        r": it is HTML, not a ",
        "הקובץ הוא דף אינטרנט (HTML) ולא מסמך Word: פתחי אותו ב-Word ושמרי אותו כ-DOCX; דבר לא נשמר",
    ),
    (
        r": not a (Word 97 document|RTF document|OpenDocument text) \(",
        "תוכן הקובץ אינו תואם את סוגו: פתחי אותו ב-Word ושמרי אותו כ-DOCX; דבר לא נשמר",
    ),
    (
        r": the RTF embeds an object",
        "קובץ ה-RTF מכיל אובייקט מוטמע, שאינו נקרא: מחקי את האובייקט או שמרי את המסמך כ-DOCX; "
        "דבר לא נשמר",
    ),
    (
        r"is protected by a password",
        "המסמך מוגן בסיסמה: פתחי אותו ב-Word, הסירי את הסיסמה ושמרי אותו כ-DOCX; דבר לא נשמר",
    ),
    (
        r": converting the .* took over",
        "המרת הקובץ ארכה יותר מדי ונעצרה: שמרי אותו כ-DOCX; דבר לא נשמר",
    ),
    (
        r": LibreOffice could not open",
        "הקובץ פגום או מוגן בסיסמה: פתחי אותו ב-Word, הסירי סיסמה אם יש ושמרי אותו כ-DOCX; "
        "דבר לא נשמר",
    ),
    (
        r": not UTF-8 and not Hebrew windows-1255 text",
        "קידוד הטקסט אינו מוכר: שמרי את הקובץ כ-UTF-8",
    ),
    (
        r"^file type .* is not accepted|: declared content type",
        "סוג הקובץ אינו נתמך: העלי DOCX, DOC, RTF, ODT, PDF או קובץ טקסט",
    ),
    (
        r": reading the PDF's text took over",
        "קריאת הקובץ ארכה יותר מדי ונעצרה: פצלי אותו או ייצאי אותו מחדש (הדפסה ל-PDF)",
    ),
    (
        r"MB upload limit|: the PDF's text is over|: the DOCX unpacks to",
        "הקובץ גדול מדי: פצלי אותו או הסירי ממנו תמונות",
    ),
)


# Their Latin (DOCX, PDF, UTF-8) and numbers in <bdi>.
UPLOAD_REFUSALS = tuple((pattern, mixed(said)) for pattern, said in _UPLOAD_REFUSALS)


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
    return too_large(limit, "draft or final" in str(exc))


def upload_refusal(exc: AppError) -> Markup:
    """A refused draft or final in Hebrew, the service's own text kept after it."""
    said = _too_large_of(exc)
    if said is not None:
        return Markup("{}. ").format(said) + messages.technical(str(exc))
    return core.in_hebrew(exc, UPLOAD_REFUSALS)


# The field of an upload form a refusal belongs to (the first pattern its text matches): the
# message is shown beside that field; None: the form's as a whole (the line above it).
UPLOAD_FIELDS = (
    (r"CSRF|no chair is recorded|duplicate upload", None),
    (r"case number|has already arrived", "case_number"),
    (r"practice area", "practice_area"),
    (r"appeal type", "appeal_type"),
    (r"outcome", "outcome"),
    (r"decision date|is not a date", "decided_on"),
    (r"^no file|^file type|content type|: ", "file"),
)


def field_refusal(exc: AppError) -> tuple[str | None, Markup]:
    """Which field of an upload form a refusal is about, and what to say beside it (Hebrew
    only: the service's words stay in the line above the form)."""
    text = str(exc)
    field = next((f for pattern, f in UPLOAD_FIELDS if re.search(pattern, text)), None)
    said = next((h for pattern, h in UPLOAD_REFUSALS if re.search(pattern, text)), None)
    said = _too_large_of(exc) or said
    if said is None:
        said = messages.hebrew_of(text) or ("הערך אינו תקין" if field else messages.REFUSED)
    if field == "file" and said == messages.REFUSED:
        said = "הקובץ לא נקלט"
    return field, Markup("{}").format(said)
