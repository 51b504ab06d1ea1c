"""The desk's one dictionary: every id the system keeps (a corpus, a lesson's category and
source, an appeal type, an outcome, a practice area, a status, an actor, an audit action, a
scheduled job) and what the chair reads for it, in Hebrew. Every page and every <select> shows
its labels through `label(table, key)` (the Jinja filter `he`); an <option>'s value stays the
id, so a filter she picks by its Hebrew sends what the service knows. An id the table lacks is
never shown: its kind's general word is (`FALLBACK`).

Beside the tables, the forms she reads: dates as 1.6.2021 (`hebrew_date`, `when` with the time as
19:00, both on Israel's clock: text/clock.py), a cron expression in words ("כל יום ראשון ב-19:00", `cron_hebrew`), and Latin letters and
numbers inside Hebrew in <bdi> (`bdi`, `mixed`)."""

from __future__ import annotations

import re
from typing import Any

from markupsafe import Markup, escape

from ...learning.lessons import feedback
from ...learning.pairs import dashboard
from ...learning.principles import QUOTE_GONE, RULE_CHANGED
from ...text import clock
from ...text.blocks import BLOCK_LABELS
from ...text.passages import plain

CORPUS = {
    "case": "מסמכי התיק",
    "style": "החלטותיי",
    "external": "פסיקה וחקיקה",
    "internal": "החלטות ועדות",
    # Summaries that point at a ruling: she reads them to find it, never cites them.
    "digests": "תקצירי פסיקה (להפניה בלבד)",
    "case_precedents": "אסמכתאות שצירפתי לתיקים",
}
# The facets of the one search box (/search), in the order she reads them: "all", then each
# corpus — the precedent library split into its rulings and the law's sections.
FACET = {
    "all": "הכול",
    "rulings": "פסיקה",
    "legislation": "חקיקה",
    "internal": CORPUS["internal"],
    "style": CORPUS["style"],
    "case": CORPUS["case"],
    "case_precedents": CORPUS["case_precedents"],
    "digests": CORPUS["digests"],
    "external": CORPUS["external"],  # the address of a search saved before the facets
}
# What the library holds, by kind (/system/corpus; store/holdings.py), in the order she reads it.
HOLDING = {
    "ruling": "פסקי דין",
    "legislation": "חקיקה",
    "decision": "החלטות ועדות ערר",
    "final": "ההחלטות החתומות שלי",
    "digest": "תקצירי פסיקה",
    "reference": "מקורות עזר אחרים",
}
APPEAL_TYPE = {
    "universal": "כללי (לכל סוגי הערר)",
    "permit": "היתר ובקשה להקלה",
    "change_of_use": "שימוש חורג",
    "plan": "תכנית",
    "betterment_levy": "היטל השבחה",
    "compensation_197": "פיצויים לפי סעיף 197",
    "procedural": "דיוני",
}
OUTCOME = {
    "any": "בכל תוצאה",
    "accepted": "הערר התקבל",
    "rejected": "הערר נדחה",
    "partially_accepted": "הערר התקבל בחלקו",
    "remanded": "הדיון הוחזר לוועדה",
}
PRACTICE_AREA = {
    "planning": "תכנון ובנייה",
    "betterment_levy": "היטל השבחה",
    "compensation": "פיצויים",
}
# A lesson's category (lesson_categories) and its kind.
CATEGORY = {
    "style": "סגנון",
    "structure": "מבנה",
    "phrase": "ניסוח",
    "anti_pattern": "ביטוי שיש להימנע ממנו",
    "legal_lexicon": "לשון משפטית",
    "tabular": "טבלאות",
    "fact": "עובדות",
    "halacha": "הלכה",
    "precedent": "תקדים",
    "lessons_document": "מסמך לקחים",
    "skill_document": "מסמך מיומנות",
}
KIND = {"style": "סגנון", "substance": "מהות", "principle": "עיקרון משפטי"}
# The review queue's lanes (web/desk/review_queue.py): where an item waits, and its order.
LANE = {
    "proposed": "לקחים מוצעים",
    "escalations": "הפאנל העביר להכרעתך",
    "curator": "הערות כתיבה מקריאת ההחלטות",
    "panel_approved": "אושר על ידי הפאנל — לעיון",
    "principles": "עקרונות משפטיים לאישור",
    "to_confirm": "עקרונות שהפאנל אישר — לאישורך",
    "returned": "עקרונות שהמקור שלהם השתנה — להכרעתך",
}
# Why a principle was returned to her (learning/principles/spans.py's reasons), in her words.
RETURNED_REASON = {
    QUOTE_GONE: (
        "הציטוט שעליו העיקרון נשען אינו עוד בטקסט של פסק הדין: הטקסט השתנה. עד שתכריעי הוא אינו"
        " מופיע בחיפוש."
    ),
    RULE_CHANGED: (
        "נוסח העיקרון שונה במסד הנתונים שלא דרך אישורך. עד שתכריעי הוא אינו מופיע בחיפוש."
    ),
}
QUEUE_ORDER = {
    "confident": "ביטחון הפאנל, מהגבוה לנמוך",
    "doubtful": "ביטחון הפאנל, מהנמוך לגבוה",
}
# Where a lesson came from (lessons.SOURCES).
SOURCE = {
    "distillation": "השוואת הטיוטה להחלטה",
    "curator": "סקירת הנוסח",
    "chair": 'היו"ר',
    "panel": "פאנל המודלים",
    "feedback": "המשוב השבועי",
}
STATUS = {
    "proposed": "מוצע",
    "pending_review": "ממתין להכרעתך",
    "approved": "אושר",
    "rejected": "נדחה",
    "vetoed": "נפסל",
    "queued": "בתור",
    "superseded": "הוחלף",
    "reverted": "הוחזר",
    "edited": "נערך",
    "withdrawn": "נמשך",
    "confirmed": "אושר בידייך",
    "pending_synthesis": "ממתין לסינתזה",
}
PAIR_STATUS = {
    "draft_done": "טיוטה הוגשה",
    "final_received": "התקבלה החלטה סופית",
    "analyzed": "נותח",
    "lessons_folded": "הלקחים שולבו",
}
# What a queue's statuses mean on its own page.
PRINCIPLE_STATUS = {
    "proposed": "מוצע",
    "pending_review": "ממתין להכרעה",
    "approved": "אושר",
    "rejected": "נדחה",
    "vetoed": "נמשך מהחיפוש",
    "pending_synthesis": "ממתין לסינתזה",
}
VOICE_STATUS = {
    "queued": "בתור לכתיבה",
    "pending_review": "ממתין להכרעתך",
    "approved": "אושר (מגיע לכותב)",
    "rejected": "נדחה",
}
ENRICHMENT_STATUS = {
    "pending_review": "ממתינה להכרעתך",
    "approved": "אושרה (נכתבה בהחלטה)",
    "rejected": "נדחתה",
    "superseded": "הוחלפה (טקסט ההחלטה השתנה)",
    "applied": "נכתבה בהחלטה בידי המודל",
    "reverted": "בוטלה בידייך (חזר מה שהיה)",
    "edited": "תוקנה בידייך",
}
DECISION = {
    "approve": "אישור",
    "reject": "דחייה",
    "veto": "וטו",
    "reopen": "ביטול",
    "confirm": "אישור",
    "revert": "משיכה מהחיפוש",
}
# Who decided or wrote something (the audit keeps the actor's own name).
ACTOR = {
    "chair": 'היו"ר',
    "panel": "פאנל המודלים",
    "source": "הנוסח המקורי",
    "canonical-synthesizer": "מסנתז הנוסח",
    "principle-panel": "פאנל המודלים",
    "voice-writer": "כותב מסמכי הקול",
    "enricher": "מודל ההעשרה",
    "scheduler": "המשימות המתוזמנות",
    "learning-engine": "מנוע הלמידה",
    "seed": "נתוני הפתיחה",
    "operator": "מתחזק המערכת",
    "system": "המערכת",
    "unknown": "לא ידוע",
}
# What the learning audit records (learning_audit.action).
ACTION = {
    "insert_lesson": "לקח הוצע",
    "update_lesson": "הכרעה בלקח",
    "delete_lesson": "לקח נמחק",
    "edit_lesson": "עריכת לקח",
    "insert_principle": "עיקרון הוצע",
    "update_principle": "הכרעה בעיקרון",
    "confirm_principle": "אישור עיקרון של הפאנל",
    "update_canonical": "הכרעה בעיקרון קנוני",
    "edit_canonical_statement": "עריכת נוסח קנוני",
    "citation_linked": "ציטוט קושר לפסק דין",
    "citations_moved": "ציטוטים הועברו לפסק דין אחר",
    "review_treatment": "הכרעה במה שעלה בגורל פסק דין",
    "voice_document": "מסמך קול",
    "enrichment": "העשרת החלטה",
    "promote": "קידום לקחים למתודולוגיה",
    "edit_methodology": "עריכת המתודולוגיה",
    "dismiss_fingerprint": "פריט מהצעת תיאור הקול נדחה",
    "panel_failed": "הפאנל לא הכריע",
    "corroborate": "אזכור נוסף",
    "mark": "סימון",
    "move": "העברה",
}
# The queued background work (jobs.kind), for her health page.
WORK_KIND = {
    "learning": "למידה מההחלטות החתומות",
    "principles": "חילוץ עקרונות מפסיקה",
    "enrichment": "כתיבת תקציר ותגיות להחלטות",
    "ocr": "קריאת מסמכים סרוקים",
}
# The scheduled jobs (ops/scheduler.py).
JOB = {
    "weekly-feedback-analysis": "ניתוח המשוב השבועי",
    "stale-case-reminder": "תזכורת לתיקים שלא זזו",
    "sync-case-status": "סנכרון מצב התיקים",
    "nightly-upkeep": "התחזוקה הלילית",
    "nightly-backup": "הגיבוי הלילי",
}
COPY_KIND = {
    "substance": "מהות — אסור להעתיק",
    "analysis": "ניתוח — יש להכליל ולהתאים",
    "template": "תבנית — מותר להעתיק",
}
CITATION_STATUS = {
    "quote_not_found": "הציטוט אינו בטקסט המקור",
    "not_in_library": "אינו בספרייה",
    "ambiguous": "כמה פסקי דין בספרייה תואמים — יש לבחור",
    "found": "נמצא בספרייה",
    "name_mismatch": "שמות הצדדים אינם של פסק הדין שבספרייה",
    "pinpoint_not_found": "הפסקה או העמוד אינם בפסק הדין",
    "section_not_found": "הסעיף אינו בחוק שבספרייה",
    "law_not_in_library": "החוק אינו בספרייה",
    "lookup_failed": "לא ניתן היה לבדוק",
}
CITATION_ATTENTION = {
    "weak_support": "התמיכה בטענה חלשה — כדאי לעיין במקור",
    "judge": "לדעת המודל המקור אינו תומך בטענה במלואה — כדאי לעיין במקור",
}
# The judge model's word on a supporting passage (LEGAL_AI_VERIFIER): always said as the model's.
CITATION_JUDGE = {
    "supported": "לדעת המודל: המקור תומך בטענה",
    "partly": "לדעת המודל: המקור תומך בטענה בחלקה",
    "not_supported": "לדעת המודל: המקור אינו תומך בטענה",
    "unanswered": "המודל לא השיב — התמיכה נבדקה בדמיון בלבד",
}
# What became of a ruling (learning/library/treatment.py): what a later ruling did to it, her review of
# that reading, and who read it.
TREATMENT_KIND = {
    "set_aside": "בוטל",
    "upheld": "נותר על כנו",
    "partly_set_aside": "בוטל בחלקו",
    "returned": "הוחזר לדיון",
    "unknown": "התוצאה לא זוהתה",
}
TREATMENT_STATUS = {
    "unconfirmed": "ממתין לאישורך",
    "confirmed": "אישרת",
    "rejected": "דחית",
}
TREATMENT_READER = {"rule": "כללי הקריאה של המערכת", "model": "מודל"}
TREATMENT_DONE = {
    "confirm": "אישרת את הקריאה; היא מוצגת מעתה כמאושרת",
    "reject": "דחית את הקריאה; היא אינה מוצגת עוד כגורלו של פסק הדין",
    "reopen": "הקריאה חזרה להמתין לאישורך",
}
# The cite-check report (learning/checks/cite_report.py): what was verified, a problem's evidence,
# what became of a ruling, and the report's own words.
VERIFIED = {
    "number": "המספר",
    "parties": "שמות הצדדים",
    "pinpoint": "הפסקה או העמוד",
    "quote": "הציטוט",
    "section": "הסעיף",
    "law": "החוק",
}
REPORT_FIELD = {  # a problem's evidence, by its key (values shown as written)
    "written": "בטיוטה",
    "held": "בספרייה",
    "pinpoint": "ההפניה",
    "missing": "אין בפסק הדין",
    "quote_in": "הציטוט נמצא ב",
    "law": "החוק",
    "section": "הסעיף",
}
REPORT_SUBJECT = {"draft": "טיוטה", "final": "ההחלטה החתומה"}
FEEDBACK = feedback.CATEGORY_LABELS  # the feedback categories in Hebrew (one table)
# The held-out trend's series and axes (/learning): the words its plot draws, one table.
TREND = dashboard.LABELS
HEALTH = {
    "items": "פריטים",
    "searchable": "ניתנים לחיפוש",
    "chunks": "קטעים",
    "missing_embeddings": "הטמעות חסרות",
    "stale_embeddings": "הטמעות מיושנות",
    "dimension_mismatches": "ממד שגוי",
    "stale_analysis": "ניתוח מיושן",
    "units": "יחידות",
    "unchecked": "לא נבדקו",
}
UNIT = {
    "principles": "עקרונות משפטיים",
    "precedents": "אסמכתאות שצירפתי לתיקים",
    "exemplars": "פסקאות לדוגמה מההחלטות",
    "canonical_statements": "ניסוחים קנוניים",
    "page_images": "תמונות עמודים",
}
LEG = {
    "semantic": "לפי משמעות",
    "lexical": "לפי מילים",
    "reference": "לפי הפניה",
    "principle_semantic": "הלכה (לפי משמעות)",
    "principle_lexical": "הלכה (לפי מילים)",
    "principle_reference": "הלכה (לפי הפניה)",
    "image": "תמונת עמוד",
}
# The language models' roles (the daily budgets on the system page: LEGAL_AI_MODEL_BUDGETS).
MODEL_ROLE = {
    "distiller": "זיקוק לקחי הסגנון מההחלטות",
    "style_panel": "פאנל הסגנון",
    "curator": "קריאת ההחלטות מול תדריך הכתיבה",
    "principle_panel": "פאנל העקרונות המשפטיים",
    "synthesizer": "ניסוח העקרונות הקנוניים",
    "voice_writer": "כתיבת מסמכי הקול",
    "enricher": "כתיבת תקצירים ותגיות להחלטות",
    "verifier": "בדיקת התמיכה בציטוטים",
}
# The names of a final's labels (a draft labelled otherwise than her final: the case page).
LABEL_NAME = {"appeal_type": "סוג ערר", "outcome": "תוצאה", "practice_area": "תחום"}
# What health re-checks of the rows only the system writes (ops/rechecks.py), by check.
RECHECK = {
    "copy_fingerprints": "טביעות בדיקת ההעתקה של ההחלטות",
    "embedding_cache": "ההטמעות השמורות, מול הטמעה חוזרת של מדגם",
    "bm25_statistics": "נתוני החיפוש לפי מילים, מול ספירה חוזרת",
    "schema_migrations": "גרסאות מבנה מסד הנתונים",
    "final_blocks": "פרקי ההחלטות הסופיות שבזוגות, מול הטקסט השמור",
}
# The trend of the search test built from her own citations (the system page: ops/upkeep).
GOLD_TREND = {"up": "משתפרת", "down": "יורדת", "steady": "יציבה"}

# A final's upload on the desk, stage by stage (learning/pairs/finals.STAGES; web/desk/final_uploads.py).
# The parts of a voice-fingerprint proposal (learning/lessons/voice_proposals.py's fields), in her words.
FINGERPRINT_FIELD = {
    "sentence_rhythm": "קצב המשפטים ובנייתם",
    "openings": "פתיחות",
    "transitions": "ביטויי מעבר",
    "language_register": "משלב הלשון",
    "other": "עוד מאפיין",
}
# What learning/checks/purity.py found (Finding.rule), in her words.
PURITY_RULE = {
    "ruling_citation": "הפניה לפסק דין",
    "statute_citation": "הפניה לחוק",
    "case_number": "מספר תיק",
    "plan_or_parcel": "מספר תכנית או חלקה",
    "date": "תאריך",
    "amount": "סכום",
    "number": "מספר",
    "address": "כתובת",
    "name": "שם של צד או אדם",
    "holding": "הלכה",
}
UPLOAD_STAGE = {
    "received": "הקובץ התקבל",
    "ocr": "הקובץ הוא סריקה: ממתין לזיהוי הטקסט",
    "reading": "קריאת הקובץ",
    "indexing": "הכנה לחיפוש",
    "citations": "בדיקת האזכורים",
    "aligning": "השוואה לטיוטה שלנו",
    "writing": "שמירה",
    "learning": "הועברה לתור הלמידה",
}
# A draft or final uploaded as a scan (learning/pairs/scanned_decisions.py; migration 0049).
SCAN_STATUS = {
    "waiting": "ממתינה לזיהוי הטקסט בסריקה",
    "running": "הטקסט זוהה; נקלטת עכשיו",
    "done": "נקלטה מהטקסט שזוהה בסריקה",
    "failed": "לא נקלטה",
    "cancelled": "בוטלה; דבר לא נשמר",
}
SCAN_KIND = {"draft": "טיוטה", "final": "החלטה חתומה"}
UPLOAD_STAGE_STATE = {
    "done": "הושלם",
    "now": "מתבצע עכשיו",
    "next": "ממתין",
    "skipped": "לא נדרש (אין טיוטה)",
}

TABLES: dict[str, dict[str, str]] = {
    "corpus": CORPUS,
    "facet": FACET,
    "holding": HOLDING,
    "label_name": LABEL_NAME,
    "appeal_type": APPEAL_TYPE,
    "outcome": OUTCOME,
    "practice_area": PRACTICE_AREA,
    "category": CATEGORY,
    "kind": KIND,
    "lane": LANE,
    "queue_order": QUEUE_ORDER,
    "source": SOURCE,
    "status": STATUS,
    "pair_status": PAIR_STATUS,
    "principle_status": PRINCIPLE_STATUS,
    "voice_status": VOICE_STATUS,
    "enrichment_status": ENRICHMENT_STATUS,
    "decision": DECISION,
    "actor": ACTOR,
    "action": ACTION,
    "job": JOB,
    "work_kind": WORK_KIND,
    "copy_kind": COPY_KIND,
    "citation_status": CITATION_STATUS,
    "citation_attention": CITATION_ATTENTION,
    "treatment_kind": TREATMENT_KIND,
    "treatment_status": TREATMENT_STATUS,
    "treatment_reader": TREATMENT_READER,
    "citation_judge": CITATION_JUDGE,
    "verified": VERIFIED,
    "report_field": REPORT_FIELD,
    "report_subject": REPORT_SUBJECT,
    "feedback": FEEDBACK,
    "trend": TREND,
    "health": HEALTH,
    "unit": UNIT,
    "leg": LEG,
    "model_role": MODEL_ROLE,
    "recheck": RECHECK,
    "gold_trend": GOLD_TREND,
    "block": dict(BLOCK_LABELS),
    "upload_stage": UPLOAD_STAGE,
    "scan_status": SCAN_STATUS,
    "scan_kind": SCAN_KIND,
    "upload_stage_state": UPLOAD_STAGE_STATE,
    "fingerprint_field": FINGERPRINT_FIELD,
    "purity_rule": PURITY_RULE,
}
# An id a table lacks is shown as its kind's general word, never as itself.
FALLBACK = {
    "category": "קטגוריה אחרת",
    "source": "מקור אחר",
    "actor": "המערכת",
    "action": "פעולה אחרת",
    "job": "משימה מתוזמנת",
    "block": "פרק אחר",
    "citation_status": "בעיה אחרת",
    "treatment": "החלטה מאוחרת",
    "verified": "פרט אחר",
}


def label(key: Any, table: str) -> str:
    """The Hebrew of `key` in `table` ("—" for no value). An actor `agent:NAME` or `system:NAME`
    is NAME's label, else "סוכן" / "המערכת"; a `panel:…` actor is the panel."""
    if key is None or key == "":
        return "—"
    entries = TABLES[table]
    text = str(key)
    if text in entries:
        return entries[text]
    if table == "actor":
        kind, _, name = text.partition(":")
        if name:
            if name in entries:
                return entries[name]
            return {"agent": "סוכן", "panel": "פאנל המודלים"}.get(kind, "המערכת")
    return FALLBACK.get(table, "ערך אחר")


def keys() -> frozenset[str]:
    """Every id the dictionary translates (a page showing one has shown an id)."""
    return frozenset(k for table in TABLES.values() for k in table)


def hebrew_date(value: Any) -> str:
    """A date as the chair writes it: 1.6.2021 (a moment: its day in Israel; text/clock.py)."""
    return clock.hebrew_date(value)


def when(value: Any) -> str:
    """A moment as the chair reads it, on Israel's clock: 1.6.2021 19:00 (text/clock.py)."""
    return clock.when(value)


DAYS = ("ראשון", "שני", "שלישי", "רביעי", "חמישי", "שישי", "שבת")
_DAY_NAMES = {"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}


def _day(field: str) -> str | None:
    """A cron day-of-week (0 or 7 Sunday, or sun..sat) as "יום ראשון"; None when not one day."""
    name = field.lower()
    if name in _DAY_NAMES:
        return f"יום {DAYS[_DAY_NAMES[name]]}"
    if name.isdigit() and int(name) <= 7:
        return f"יום {DAYS[int(name) % 7]}"
    return None


def cron_hebrew(expr: str) -> str:
    """A cron expression (minute hour day month weekday) in words, for the forms the schedules
    use: every N minutes, every hour at :MM, every day at HH:MM, every weekday at HH:MM, the
    Nth of every month at HH:MM. Any other form: "לפי לוח זמנים קבוע"."""
    fields = expr.split()
    if len(fields) != 5:
        return "לפי לוח זמנים קבוע"
    minute, hour, day, month, weekday = fields
    step = re.fullmatch(r"\*/(\d+)", minute)
    if step and hour == day == month == weekday == "*":
        return f"כל {step.group(1)} דקות"
    if not minute.isdigit() or month != "*":
        return "לפי לוח זמנים קבוע"
    if hour == "*" and day == weekday == "*":
        return f"כל שעה, {int(minute)} דקות אחרי השעה העגולה"
    if not hour.isdigit():
        return "לפי לוח זמנים קבוע"
    at = f"{int(hour):02d}:{int(minute):02d}"
    if day == "*" and weekday == "*":
        return f"כל יום ב-{at}"
    one_day = _day(weekday)
    if day == "*" and one_day:
        return f"כל {one_day} ב-{at}"
    if day.isdigit() and weekday == "*":
        return f"ב-{int(day)} בכל חודש ב-{at}"
    return "לפי לוח זמנים קבוע"


# A run of Latin letters or digits (with what joins them: 1042/23, 3.5, e-mail, 12:30).
_LATIN_OR_NUMBER = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._:/@+'-]*[A-Za-z0-9])?")


def bdi(value: Any) -> Markup:
    """The value, escaped, in <bdi> (a number, a case number or a date inside Hebrew)."""
    return Markup("<bdi>{}</bdi>").format(value)


def plural(n: int, one: str, many: str) -> Markup:
    """ "לקח אחד" / "3 לקחים" / "1,204 מילים" (the number in <bdi>, its thousands marked)."""
    return Markup(one) if n == 1 else Markup("{} {}").format(bdi(f"{n:,}"), many)


def percent(value: float) -> Markup:
    """A percentage inside Hebrew, rounded: <bdi>39%</bdi> — the sign inside the isolate with its
    number, so it stays on the number's right as Hebrew writes 39% (outside it, the browser set
    it on the left: %39)."""
    return Markup("<bdi>{}%</bdi>").format(round(value))


def mixed(value: Any) -> Markup:
    """Text written by people or in documents (a lesson, a title, a reason), escaped, with each
    run of Latin letters or digits in <bdi> so it keeps its order inside the Hebrew."""
    if isinstance(value, Markup):
        return value
    text = "" if value is None else str(value)
    out: list[str] = []
    last = 0
    for match in _LATIN_OR_NUMBER.finditer(text):
        out.append(str(escape(text[last : match.start()])))
        out.append(f"<bdi>{escape(match.group(0))}</bdi>")
        last = match.end()
    out.append(str(escape(text[last:])))
    return Markup("".join(out))


def paragraphs(value: Any) -> Markup:
    """Text of a document or a model (a rule, a quote) as paragraphs: Markdown's marks out
    (text/passages.plain), each line its own <p>, never run together."""
    text = plain("" if value is None else str(value))
    return Markup("").join(
        Markup("<p>{}</p>").format(mixed(line.strip())) for line in text.split("\n") if line.strip()
    )


def install(env: Any) -> None:
    """The dictionary's filters and tables in a Jinja environment: `he` (key|he("table")),
    `hebrew_date`, `when`, `cron`, `bdi`, `mixed`, `who` and `job`; the tables as `he`."""
    env.filters["he"] = label
    env.filters["hebrew_date"] = hebrew_date
    env.filters["when"] = when
    env.filters["cron"] = cron_hebrew
    env.filters["bdi"] = bdi
    env.filters["percent"] = percent
    env.filters["mixed"] = mixed
    env.filters["paras"] = paragraphs
    env.filters["who"] = lambda actor: label(actor, "actor")
    env.filters["job"] = lambda name: label(name, "job")
    env.globals["he"] = TABLES
    env.globals["plural"] = plural


# What learning/checks/purity.py found in a lesson that carries the case's facts (its English label,
# as `Finding.describe` writes it), in her words.
PURITY_FINDING = {
    "a ruling citation": "הפניה לפסק דין",
    "a statute citation": "הפניה לחוק",
    "a case number": "מספר תיק",
    "a plan or parcel number": "מספר תכנית או חלקה",
    "a date": "תאריך",
    "an amount": "סכום",
    "a number": "מספר",
    "an address": "כתובת",
    "a party's or person's name": "שם של צד או אדם",
    "a holding": "הלכה",
}
