"""The one Hebrew catalog of refusals, keyed by an error's stable code (errors.AppError.code):
what the chair reads on the desk and what the API's `message_he` says, and the input each
concerns (a form's field) when it is always the same one. Python's codes are given at the raise
site or by the class (errors.py); the database gates' codes are `gate.<rule>`, the rule named by
its RAISE's CONSTRAINT (migration 0044; errors.refused_by_gate). A code missing here is said as
"the system refused" (REFUSED) with the English behind the details; tests/test_catalog.py keeps
every code raised in src/ and every rule in the migrations here, and nothing here unused."""

from __future__ import annotations

from dataclasses import dataclass

REFUSED = "המערכת סירבה לפעולה"
_CHAIR = 'ההכרעה שמורה ליו"ר'
_FROZEN = "הפריט כבר הוכרע ואינו משתנה; טעני את הדף מחדש"
_SYSTEM = "את הרישום הזה כותבת המערכת עצמה, לא בקשה"
_PANEL = "הכרעת הפאנל אינה תואמת את כלליו"
_MOVE = "המעבר הזה בין מצבים אינו אפשרי; טעני את הדף מחדש"


@dataclass(frozen=True)
class Entry:
    """The Hebrew of one code, and the field it concerns when always the same one."""

    hebrew: str
    field: str | None = None


def _e(hebrew: str, field: str | None = None) -> Entry:
    return Entry(hebrew, field)


PYTHON: dict[str, Entry] = {
    # the classes' defaults (errors.py and the classes beside their modules)
    "error": _e(REFUSED),
    "input.invalid": _e(REFUSED),
    "state.conflict": _e("מצב הפריט אינו מאפשר את השינוי; דבר לא שונה"),
    "state.stale": _e("הפריט כבר במצב אחר; טעני את הדף מחדש"),
    "not_found": _e("הפריט לא נמצא (אולי נמחק בינתיים)"),
    "auth.unknown": _e("ההרשאה חסרה או אינה מוכרת; התחברי מחדש"),
    "auth.forbidden": _e("הפעולה אינה מותרת להרשאה הזו"),
    "auth.rate_limited": _e("יותר מדי ניסיונות כניסה שגויים; המתיני ונסי שוב"),
    "agent.cap": _e("הסוכן הגיע למכסה שלו; דבר לא נשמר"),
    "store.unavailable": _e("מסד הנתונים אינו זמין כרגע; נסי שוב בעוד רגע"),
    "provider.failed": _e("שירות חיצוני (מודל או חיפוש) לא ענה; נסי שוב מאוחר יותר"),
    "provider.rerank_failed": _e("דירוג התוצאות נכשל; נסי שוב מאוחר יותר"),
    "budget.reached": _e("המודלים הגיעו לתקציב היומי שלהם; העבודה תמשיך מחר"),
    "desk.csrf": _e("פג תוקף הטופס; טעני את הדף מחדש ונסי שוב"),
    "metadata.field": _e("הפרטים לא נשמרו; בדקי את השדות ונסי שוב"),
    "upload.cancelled": _e("ההעלאה בוטלה; דבר לא נשמר"),
    "enrichment.ungrounded": _e("תשובת המודל אינה נשענת על ההחלטה; היא לא נשמרה"),
    "ingest.text_moved_on": _e("טקסט הפריט השתנה בזמן הקליטה; נסי שוב"),
    # the search
    "query.not_text": _e("השאילתה אינה טקסט", "query"),
    "query.empty": _e("השאילתה ריקה: כתבי מה לחפש", "query"),
    "query.too_long": _e("השאילתה ארוכה מדי: קצרי אותה ונסי שוב", "query"),
    "filter.not_text": _e("אחד המסננים אינו טקסט"),
    "filter.too_long": _e("אחד המסננים ארוך מדי: קצרי אותו"),
    "filter.not_applicable": _e("המסנן אינו חל על המאגר הזה"),
    "date.invalid": _e("התאריך אינו מובן: יש לכתוב יום.חודש.שנה, למשל 1.6.2026"),
    "date.reversed": _e("תאריך ההתחלה מאוחר מתאריך הסיום: החליפי ביניהם", "date_to"),
    "search.case_number_needed": _e("החיפוש במסמכי התיק מחייב את מספר התיק המלא", "case_number"),
    "search.practice_area_needed": _e("בחרי תחום לחיפוש", "practice_area"),
    "pattern.invalid": _e("זה אינו ביטוי רגולרי תקין"),
    "pattern.backtracks": _e(
        "הביטוי עלול לרוץ בלי סוף על שורה ארוכה (חזרה מקוננת כמו (a+)+); "
        "כתבי אותו בלי החזרה המקוננת"
    ),
    # cases, texts and choices
    "case.malformed_number": _e(
        "מספר התיק אינו תקין: כתבי אותו במלואו, למשל ערר (מרכז) 1042/23", "case_number"
    ),
    "case.number_empty": _e("מספר התיק ריק: כתבי אותו, למשל 'ערר (מרכז) 1042/23'", "case_number"),
    "case.ambiguous_number": _e(
        "המספר מתאים לכמה תיקים: כתבי את המספר המלא של התיק, כפי שהוא מופיע ברשימה למטה",
        "case_number",
    ),
    "case.unknown": _e("אין תיק כזה: הוסיפי קודם את הטיוטה או ההחלטה שלו", "case_number"),
    "case.no_pair": _e("אין לתיק זוג טיוטה והחלטה", "case_number"),
    "precedent.reporter_only": _e(
        'פסק הדין מצוטט רק לפי הקובץ שבו פורסם: כתבי את מספר ההליך שלו, למשל בג"ץ 594/89',
        "case_number",
    ),
    "case.no_final": _e("אין לתיק החלטה סופית במאגר ההחלטות שלי; העלי אותה קודם בדף התיקים"),
    "choice.required": _e("שדה חובה: בחרי ערך מהרשימה"),
    "choice.unknown": _e("ערך לא מוכר: בחרי אחד מהרשימה"),
    "text.empty": _e("השדה ריק: כתבי אותו ונסי שוב"),
    "text.not_text": _e("השדה אינו טקסט"),
    "text.too_long": _e("הטקסט ארוך מדי: קצרי אותו ונסי שוב"),
    "form.field_too_long": _e("אחד השדות בטופס ארוך מדי"),
    "bulk.size": _e("פעולה מרוכזת חלה על פריט אחד לפחות ועד מספר מוגבל"),
    "lesson.nothing_to_edit": _e("לא שונה דבר: כתבי נוסח חדש או בחרי קטגוריה אחרת"),
    "auth.chair_only": _e(_CHAIR),
    "auth.wrong_password": _e("שם המשתמש או הסיסמה שגויים", "password"),
    # files, drafts and finals
    "file.missing": _e("לא נבחר קובץ: בחרי את הקובץ או גררי אותו אל הטופס", "file"),
    "file.empty": _e("הקובץ ריק או שאין בו טקסט: ייצאי את ההחלטה שוב", "file"),
    "file.type": _e("סוג הקובץ אינו נתמך: העלי DOCX, DOC, RTF, ODT, PDF או קובץ טקסט", "file"),
    # The old formats (.doc, .rtf, .odt: text/office.py), read through LibreOffice.
    "file.office_missing": _e(
        "קובץ DOC, RTF או ODT נקרא דרך LibreOffice, שאינו מותקן בשרת: שמרי את המסמך כ-DOCX, "
        "או בקשי ממי שמתחזק את השרת להתקין את LibreOffice; דבר לא נשמר",
        "file",
    ),
    "file.html_as_word": _e(
        "הקובץ הוא דף אינטרנט (HTML) ולא מסמך Word: פתחי אותו ב-Word ושמרי אותו כ-DOCX; דבר לא נשמר",
        "file",
    ),
    "file.office_mismatch": _e(
        "תוכן הקובץ אינו תואם את סוגו: פתחי אותו ב-Word ושמרי אותו כ-DOCX; דבר לא נשמר", "file"
    ),
    "file.rtf_object": _e(
        "קובץ ה-RTF מכיל אובייקט מוטמע, שאינו נקרא: מחקי את האובייקט או שמרי את המסמך כ-DOCX; "
        "דבר לא נשמר",
        "file",
    ),
    "file.password": _e(
        "המסמך מוגן בסיסמה: פתחי אותו ב-Word, הסירי את הסיסמה ושמרי אותו כ-DOCX; דבר לא נשמר",
        "file",
    ),
    "file.office_time": _e(
        "המרת הקובץ ארכה יותר מדי ונעצרה: שמרי אותו כ-DOCX; דבר לא נשמר", "file"
    ),
    "file.office_unreadable": _e(
        "הקובץ פגום או מוגן בסיסמה: פתחי אותו ב-Word, הסירי סיסמה אם יש ושמרי אותו כ-DOCX; "
        "דבר לא נשמר",
        "file",
    ),
    "file.mismatch": _e("תוכן הקובץ אינו תואם את סוגו: שמרי אותו מחדש בסוג הנכון", "file"),
    "file.unreadable": _e(
        "הקובץ פגום או שאינו ניתן לקריאה: פתחי אותו ושמרי אותו מחדש (ב-Word, או הדפסה ל-PDF)",
        "file",
    ),
    "file.encoding": _e("קידוד הטקסט אינו מוכר: שמרי את הקובץ כ-UTF-8", "file"),
    "file.too_large": _e("הקובץ גדול מדי: פצלי אותו או הסירי ממנו תמונות", "file"),
    "file.too_long": _e(
        "טקסט הקובץ ארוך בהרבה מהחלטה (החלטה היא 20–80 אלף תווים): האם זה קובץ ההחלטה? דבר לא נשמר",
        "file",
    ),
    "file.decision_too_large": _e(
        "הקובץ גדול מהמותר לטיוטה או להחלטה; החלטה שלמה שוקלת בדרך כלל פחות ממגה־בייט — "
        "האם זה קובץ ההחלטה? דבר לא נשמר",
        "file",
    ),
    "file.too_many_pages": _e("הקובץ ארוך מדי: פצלי אותו לכמה קבצים", "file"),
    "file.read_time": _e(
        "קריאת הקובץ ארכה זמן רב מדי והופסקה: פצלי אותו או שמרי אותו מחדש", "file"
    ),
    "file.read_memory": _e("קריאת הקובץ דרשה זיכרון רב מדי והופסקה: פצלי אותו", "file"),
    "file.list_numbering": _e(
        "מספור הרשימות בקובץ אינו תקין: התחילי את המספור מחדש ושמרי את המסמך שוב", "file"
    ),
    "file.over_bound": _e(
        "הקובץ מורכב מדי לקריאה (טבלאות, הערות או תמונות רבות מדי): פצלי אותו או שמרי אותו מחדש",
        "file",
    ),
    "file.scan": _e(
        "הקובץ הוא סריקה (PDF ללא שכבת טקסט). העלי את ההחלטה כפי שנכתבה (DOCX, או PDF שנשמר "
        "ממעבד התמלילים): טקסט שזוהה מסריקה נושא שגיאות זיהוי, וההשוואה לטיוטה תפרש אותן "
        "כעריכות שלך",
        "file",
    ),
    "file.scan_resolution": _e(
        "הקובץ הוא סריקה (PDF ללא שכבת טקסט) ברזולוציה שזיהוי הטקסט בסריקה אינו יכול לקרוא: "
        "סרקי את ההחלטה שוב, ברזולוציה של 200 עד 400 נקודות לאינץ'",
        "file",
    ),
    # a draft or final uploaded as a scan, stored once OCR has read it (scanned_decisions.py)
    "scan.ocr_failed": _e(
        "זיהוי הטקסט בסריקה נכשל, ולכן דבר לא נקלט: העלי את הקובץ שוב, או כקובץ DOCX כפי שנכתב",
        "file",
    ),
    "scan.ocr_empty": _e("זיהוי הטקסט בסריקה לא מצא בה טקסט: סרקי את ההחלטה שוב, בבירור", "file"),
    "scan.not_waiting": _e(
        "זיהוי הטקסט בסריקה כבר הסתיים והקליטה התחילה, ולכן אי אפשר לבטל אותה; "
        "מה שנקלט מופיע בדף התיק"
    ),
    "scan.not_found": _e("אין העלאה כזו של סריקה"),
    "final.chair_only": _e('ההחלטה החתומה מועלית רק בידי היו"ר'),
    "final.not_found": _e("אין בהחלטותייך החלטה חתומה בתיק הזה"),
    "file.no_blocks": _e(
        "לא נמצאו בקובץ כותרות של החלטה ('פתח דבר', 'רקע עובדתי', 'דיון והכרעה', 'סוף דבר') "
        "בשורות משלהן; ייתכן שזה אינו קובץ ההחלטה",
        "file",
    ),
    "file.duplicate": _e("הקובץ הזה כבר נמצא במאגר"),
    "draft.final_arrived": _e(
        "ההחלטה הסופית בתיק זה כבר התקבלה; טיוטה שתתווסף עכשיו לא תושווה בהגינות, ולכן לא נקלטה",
        "case_number",
    ),
    "final.open_revisions": _e(
        "בקובץ ה-Word יש עדיין שינויים במעקב או הערות פתוחים: האם זו ההחלטה החתומה? דבר לא "
        "נשמר עד שתאשרי",
        "file",
    ),
    "final.labels_needed": _e(
        "סוג הערר, התוצאה והתחום של ההחלטה החתומה נקבעים בידייך: בחרי אותם בטופס"
    ),
    "final.draft_meanwhile": _e(
        "בזמן שההחלטה נקראה נרשמה טיוטה חדשה לתיק; דבר לא נשמר — שלחי את ההחלטה שוב"
    ),
    "final.practice_area_needed": _e(
        "לא ניתן לקבוע את תחום ההחלטה: בחרי תחום בטופס", "practice_area"
    ),
    "final.date_needed": _e("לא נמצא בקובץ תאריך ההחלטה: מלאי אותו בטופס", "decided_on"),
    "final.chair_unknown": _e(
        'לא נמצא שם יו"ר הוועדה: אין שורת "בפני:" בראש ההחלטה ואין שם ליד "יו"ר" בחתימה, וגם '
        'בהגדרות השרת לא רשום; הוסיפי לראש ההחלטה שורה "בפני: שמך, יו"ר הוועדה" והעלי אותה '
        'שוב, או בקשי ממי שמתחזק את השרת לרשום את שם היו"ר'
    ),
    # the chair's reviews
    "voice.already_marked": _e("התיק כבר מסומן: יש לו מסמך קול פתוח (בתור, ממתין או מאושר)"),
    "voice.text_changed": _e("ההחלטה הסופית השתנתה אחרי שהמסמך נכתב; דחי אותו וסמני את התיק מחדש"),
    "enrichment.text_changed": _e(
        "טקסט ההחלטה השתנה אחרי שההצעה נכתבה; דחי אותה (לטקסט החדש תיכתב הצעה משלו)"
    ),
    "enrichment.replaced": _e(
        "ההחלטה כבר אינה מחזיקה את מה שכתב המודל (הטקסט או אחד השדות השתנו מאז); "
        "תקני את השדות בעצמך"
    ),
    "canonical.pending_synthesis": _e(
        "העיקרון הקנוני עדיין ממתין לסינתזה, ואין לו נוסח לאישור. כתבי את הנוסח בעצמך "
        "בטופס העריכה — ואז אשרי"
    ),
    "voice.not_pending": _e("רק מסמך שנכתב וממתין להכרעתך ניתן לאישור"),
    "enrichment.not_pending": _e("רק הצעה שממתינה להכרעתך ניתנת לאישור או לדחייה"),
    "enrichment.not_applied": _e("רק מה שהמודל כתב בהחלטה ניתן לביטול"),
    "treatment.no_ruling": _e("הקריאה אינה מצביעה על פסק דין שבספרייה; אין מה לאשר"),
    # the HTTP edge (web/errors.py): what no AppError says
    "request.invalid": _e("הבקשה אינה תקינה: אחד השדות חסר או שגוי"),
    "request.unreadable": _e("לא ניתן לקרוא את גוף הבקשה"),
    "request.nul": _e("הכתובת מכילה תו אסור"),
    "request.too_large": _e("הבקשה גדולה מהמותר; דבר לא נשמר"),
    "request.refused": _e(REFUSED),
    "route.unknown": _e("אין כתובת כזו"),
    "method.not_allowed": _e("הפעולה אינה אפשרית בכתובת הזו"),
    "internal": _e("אירעה שגיאה פנימית; הפרטים נרשמו ביומן השרת"),
    "store.busy": _e("מסד הנתונים עמוס כרגע; דבר לא נשמר, נסי שוב בעוד רגע"),
    "store.role_refused": _e("מסד הנתונים סירב לפעולה בהרשאה הזו"),
    "store.value": _e("מסד הנתונים סירב לאחד הערכים"),
    "store.failed": _e("מסד הנתונים לא השלים את הבקשה; נסי שוב"),
    # accounts and credentials
    "account.unknown_user": _e('אין משתמש כזה בדסק; לדסק יש משתמשת אחת, היו"ר'),
    "account.operator_only": _e("את הפעולה הזו מבצע מי שמתחזק את השרת"),
    "account.password_short": _e("הסיסמה קצרה מדי", "password"),
    "account.password_long": _e("הסיסמה ארוכה מדי", "password"),
    "account.password_nul": _e("הסיסמה מכילה תו אסור; בחרי אחרת", "password"),
    "auth.missing_token": _e("חסרה הרשאה; התחברי מחדש"),
    "auth.wrong_token": _e("ההרשאה אינה מוכרת; התחברי מחדש"),
    # requests of the API and the tools
    "tool.unknown": _e("אין כלי כזה"),
    "corpus.unknown": _e("אין מאגר כזה: בחרי אחד מהרשימה", "corpus"),
    "corpus.no_principles": _e("למאגר הזה אין עקרונות", "corpus"),
    "number.out_of_range": _e("המספר מחוץ לטווח המותר"),
    "form.malformed": _e("הטופס לא התקבל כמו שצריך; שלחי אותו שוב"),
    "search.similar_target": _e("בחרי תיק או כתבי טקסט (אחד מהם) כדי למצוא תיקים דומים"),
    "search.practice_area_mismatch": _e(
        "התחום שנבחר אינו התחום של התיק; השאירי את התחום ריק", "practice_area"
    ),
    "search.no_hit": _e("התוצאה הזו אינה בחיפוש; טעני את הדף מחדש"),
    "case_file.not_agent": _e('הוספת מסמכים לתיק שמורה ליו"ר או למי שמתחזק את השרת'),
    "draft.source_changed": _e("המקור השתנה בזמן הבדיקה; הריצי את הבדיקה שוב"),
    "case.pair_not_analyzed": _e("הטיוטה וההחלטה של התיק עדיין לא הושוו"),
    "style.no_finals": _e("אין עדיין החלטות סופיות במאגר; העלי קודם את ההחלטות שלך"),
    "citation.not_candidate": _e("פסק הדין שנבחר אינו אחת האפשרויות של הציטוט; טעני את הדף מחדש"),
    "methodology.edit": _e("השינוי במתודולוגיה אינו תקין", "changes"),
    "methodology.stale": _e(
        "המתודולוגיה נשמרה בינתיים בגרסה חדשה (אולי בלשונית אחרת); לא נשמר דבר — טעני את הדף מחדש"
    ),
    "fingerprint.item": _e("הפריט אינו בהצעה הזו; טעני את הדף מחדש"),
    "fingerprint.decided": _e("כבר הכרעת בפריט הזה; טעני את הדף מחדש"),
    "treatment.target": _e("בחרי את פסק הדין או את מספר התיק (אחד מהם)"),
    # lessons, principles and the panels
    "lesson.substance_chair": _e("לקח מהותי מוכרע רק בידייך"),
    "lesson.decided": _e("הלקח כבר הוכרע; טעני את הדף מחדש"),
    "lesson.waits_for_chair": _e("הלקח ממתין להכרעתך, לא להכרעת הפאנל"),
    "lesson.other_case": _e("הלקח אינו שייך לתיק הזה", "lesson_ids"),
    "lesson.finding_tag": _e("כל ממצא מתחיל בתגית מוכרת, למשל [סגנון]", "findings"),
    "bulk.decision": _e("ההכרעה אינה פעולה מרוכזת", "decision"),
    "bulk.ids": _e("בחרי את הפריטים מהרשימה", "ids"),
    "panel.worker_only": _e(_SYSTEM),
    "panel.votes": _e(_PANEL, "votes"),
    "principle.not_agent": _e("סוכן אינו מוסיף עקרונות; המערכת מחלצת אותם מפסק הדין"),
    "principle.quote_not_found": _e("הציטוט אינו מופיע בפסק הדין; צטטי אותו מילה במילה", "quote"),
    "principle.not_decidable": _e("העיקרון כבר במצב אחר; טעני את הדף מחדש"),
    "extraction.target": _e("בחרי פסק דין, מאגר, או את כולם"),
    "extraction.chair_only": _e(_CHAIR),
    # a database refusal whose rule has no name
    "gate.refused": _e("מסד הנתונים סירב לשינוי (שער ההרשאות)"),
}

# The database gates' rules (the CONSTRAINT of each RAISE, migration 0044): `gate.<rule>`.
GATES: dict[str, str] = {
    "audit_chair_by_chair": 'רישום ביומן בשם היו"ר נכתב רק בהרשאה שלה',
    "audit_panel_by_worker": "רישום ביומן בשם הפאנל נכתב רק בידי המערכת",
    "audit_operator_not_request": "רישום ביומן בשם המפעיל אינו נכתב מבקשה",
    "exemplar_span_of_final": "הפסקה אינה תואמת את טקסט ההחלטה הסופית",
    "canonical_starts_pending": "עיקרון מאוחד מתחיל בהמתנה לניסוח, בנוסח המקור",
    "canonical_stays_in_corpus": "עיקרון מאוחד נשאר במאגר שלו",
    "canonical_synthesis_by_worker": "את ניסוח העיקרון המאוחד כותבת המערכת",
    "canonical_chair_moves": _CHAIR,
    "canonical_chair_edits": _CHAIR,
    "canonical_review_recorded": _FROZEN,
    "enrichment_columns_by_review": "התקציר, הסיכום והתגיות נכנסים לספרייה רק דרך הכרעתך",
    "case_origin_kept": "מי שיצר את התיק ומתי נשמר כפי שהוא",
    "case_creator_role_kept": "מי שיצר את התיק נשמר כפי שהוא",
    "case_labels_owner_not_agent": "סוכן אינו קובע של מי התוויות של התיק",
    "case_final_labels_chair": "סוג הערר, התוצאה והתחום של ההחלטה הסופית נקבעים בידייך",
    "feedback_kept": "משוב נשמר כפי שנכתב",
    "feedback_chair_by_chair": 'משוב בשם היו"ר נכתב רק בהרשאה שלה',
    "feedback_agent_named": "משוב של סוכן נושא את שם הסוכן",
    "agent_draft_before_final": "ההחלטה הסופית בתיק כבר התקבלה; סוכן אינו מוסיף לו טיוטה",
    "enrichment_applied_by_enricher": _SYSTEM,
    "enrichment_applied_current_text": "ההצעה אינה נשענת על הטקסט הנוכחי של ההחלטה",
    "enrichment_starts_pending": "הצעה מתחילה בהמתנה להכרעתך",
    "enrichment_proposal_frozen": _FROZEN,
    "enrichment_move": _MOVE,
    "enrichment_chair_decides": _CHAIR,
    "enrichment_replaced_kept": "מה שההצעה החליפה נשמר כפי שהיה",
    "enrichment_review_recorded": _FROZEN,
    "agent_job_extraction_only": "סוכן מבקש רק חילוץ של פסק דין שבמאגר",
    "agent_jobs_cap": "לסוכנים יש יותר מדי בקשות פתוחות; נסי שוב כשהמערכת תסיים אותן",
    "lesson_evidence_by_distiller": _SYSTEM,
    "lesson_panel_evidence_unedited": _PANEL,
    "lesson_proposer_kept": "מי שהציע את הלקח נשמר כפי שהוא",
    "lesson_agent_named": "לקח שסוכן מציע נושא את שם הסוכן",
    "lesson_agent_curator": "סוכן מציע לקח רק כממצא של האוצר",
    "lesson_pair_of_its_case": "לקח נשען על הזוג של התיק שלו בלבד",
    "row_id_by_database": "מספר השורה נקבע בידי מסד הנתונים, לא בידי הבקשה",
    "lesson_frozen": _FROZEN,
    "lesson_review_recorded": _FROZEN,
    "lesson_panel_models_computed": _PANEL,
    "lesson_starts_proposed": "לקח מתחיל כהצעה",
    "lesson_decider_named": "הכרעה צריכה לומר מי הכריע",
    "lesson_chair_role": _CHAIR,
    "lesson_substance_chair": _CHAIR,
    "lesson_chair_decides": _CHAIR,
    "lesson_panel_by_worker": _PANEL,
    "lesson_panel_style_only": _PANEL,
    "lesson_panel_distilled_only": _PANEL,
    "lesson_panel_two_verdicts": _PANEL,
    "lesson_panel_verdicts_agree": _PANEL,
    "lesson_veto_chair": 'וטו אפשרי רק בלקח שאושר, ורק בידי היו"ר',
    "lesson_reopen_chair": _CHAIR,
    "pair_starts": _MOVE,
    "pair_forward": _MOVE,
    "verdict_by_worker": _SYSTEM,
    "verdict_names_call": _SYSTEM,
    "principle_cap": "ההחלטה הגיעה למספר העקרונות המרבי; דבר לא נשמר",
    "principle_frozen": _FROZEN,
    "principle_confirm_after_panel": "עיקרון מאושר בידייך אחרי שהפאנל אישר אותו",
    "principle_confirm_chair": _CHAIR,
    "principle_panel_by_worker": _PANEL,
    "principle_panel_fresh": _PANEL,
    "principle_panel_three_votes": _PANEL,
    "principle_panel_rule": _PANEL,
    "principle_review_recorded": _FROZEN,
    "principle_reopen_review_chair": _CHAIR,
    "principle_chair_decides": _CHAIR,
    "principle_veto_approved": "וטו אפשרי רק בעיקרון שאושר",
    "principle_reopen_chair": _CHAIR,
    "principle_returned_after_drawn": _MOVE,
    "principle_returned_chair_takes_back": _CHAIR,
    "vote_by_worker": _SYSTEM,
    "vote_names_call": _SYSTEM,
    "search_log_agent_own": "סוכן רושם רק את החיפושים שלו",
    "search_log_chair_role": 'חיפוש בשם היו"ר נרשם רק בהרשאה שלה',
    "search_mark_chair": _CHAIR,
    "treatment_confirms_only": "הכרעה על קריאה מאשרת את מה שהוצג לך ואינה משנה דבר אחר",
    "treatment_appeal_lower_court": "רק עתירה או ערעור על פסק דין של ערכאה נמוכה יותר נקלטים כך",
    "voice_never_deleted": "מסמך קול אינו נמחק; אפשר לדחות אותו",
    "voice_mark_chair": _CHAIR,
    "voice_starts_queued": "מסמך קול מתחיל בתור",
    "voice_mark_frozen": _FROZEN,
    "voice_written_frozen": _FROZEN,
    "voice_move": _MOVE,
    "voice_chair_decides": _CHAIR,
    "voice_review_chair": _CHAIR,
}

CATALOG: dict[str, Entry] = {**PYTHON, **{f"gate.{rule}": Entry(he) for rule, he in GATES.items()}}


def entry(code: str | None) -> Entry | None:
    """The catalog's entry for `code`, or None."""
    return CATALOG.get(code) if code else None


def hebrew(code: str | None) -> str | None:
    """The Hebrew of `code`, or None when the catalog has no entry for it."""
    found = entry(code)
    return found.hebrew if found else None


def of(exc: BaseException) -> tuple[str | None, str | None, str | None]:
    """(code, field, Hebrew) of an error: its own field first, else the catalog's."""
    code = getattr(exc, "code", None)
    found = entry(code)
    field = getattr(exc, "field", None) or (found.field if found else None)
    return code, field, found.hebrew if found else None
