"""The services' messages (English, for the CLI, the API and the log) as the chair reads them on
the desk: the Hebrew of the first pattern in PATTERNS the text matches, and the English kept
only behind "פרטים טכניים" (a <details>, left to right in <bdi>). A message already in Hebrew is
shown as it is, its Latin letters and numbers in <bdi>; an English one no pattern knows is said
as "the system refused" with its text behind the details. Every page's notice and error line
goes through `said` (the base template's `message|said`)."""

from __future__ import annotations

import re
from typing import Any

from markupsafe import Markup

from . import labels
from .labels import ACTOR, mixed

# (regular expression over the English text, the Hebrew shown). First match wins.
PATTERNS: tuple[tuple[str, str], ...] = (
    (r"the query is empty", "השאילתה ריקה: כתבי מה לחפש"),
    (r"the query is \d+ characters", "השאילתה ארוכה מדי: קצרי אותה ונסי שוב"),
    (r"date_from .* is after date_to", "תאריך ההתחלה מאוחר מתאריך הסיום: החליפי ביניהם"),
    (r"is not a date", "התאריך אינו תקין: בחרי תאריך מלוח השנה"),
    (r"filter \w+ is over", "אחד המסננים ארוך מדי: קצרי אותו"),
    (r"does not apply to", "המסנן אינו חל על המאגר הזה"),
    (r"needs the case_number", "החיפוש במסמכי התיק מחייב את מספר התיק המלא"),
    (r"^the (\w+ )?\w+ is empty", "השדה ריק: כתבי אותו ונסי שוב"),
    (r"^the (\w+ )?\w+ is \d+ characters", "הטקסט ארוך מדי: קצרי אותו ונסי שוב"),
    (r"malformed case number", "מספר התיק אינו תקין: כתבי אותו במלואו, למשל ערר (מרכז) 1042/23"),
    (r"unknown case", "אין תיק כזה: הוסיפי קודם את הטיוטה או ההחלטה שלו"),
    (r"unknown (lesson )?category", "קטגוריה לא מוכרת: בחרי אחת מהרשימה"),
    (r"^unknown \w+", "ערך לא מוכר: בחרי אחד מהרשימה"),
    (r"is required; choose one of", "שדה חובה: בחרי ערך מהרשימה"),
    (r"only the chair vetoes", 'וטו אפשרי רק בלקח שאושר, ורק בידי היו"ר'),
    (r"refused by the gate", "מסד הנתונים סירב לשינוי (שער ההרשאות)"),
    (r"is the chair's decision|only the chair", 'ההכרעה שמורה ליו"ר'),
    (r"nothing to edit", "לא שונה דבר: כתבי נוסח חדש או בחרי קטגוריה אחרת"),
    (
        r"the final's labels are the chair's",
        "סוג הערר, התוצאה והתחום של ההחלטה החתומה נקבעים בידייך: בחרי אותם בטופס",
    ),
    (r"no draft/final pair", "אין לתיק זוג טיוטה והחלטה"),
    (r"^no .* (item|doc_id)|^no \w+ \d+", "הפריט לא נמצא (אולי נמחק בינתיים)"),
    (r"a bulk action takes", "פעולה מרוכזת חלה על פריט אחד לפחות ועד מספר מוגבל"),
    (r"took too long to read", "קריאת הקובץ ארכה זמן רב מדי והופסקה: פצלי אותו או שמרי אותו מחדש"),
    (r"took too much memory to read", "קריאת הקובץ דרשה זיכרון רב מדי והופסקה: פצלי אותו"),
    (
        r"asks for a list that starts at|asks for list level",
        "מספור הרשימות בקובץ אינו תקין: התחילי את המספור מחדש ושמרי את המסמך שוב",
    ),
    (r"asks for more than [\d,]+ (characters|pages)", "הקובץ ארוך מדי: פצלי אותו לכמה קבצים"),
    (
        r"asks for more than [\d,]+ ",
        "הקובץ מורכב מדי לקריאה (טבלאות, הערות או תמונות רבות מדי): פצלי אותו או שמרי אותו מחדש",
    ),
    (r"upload limit|is over|unpacks to", "הקובץ גדול מדי: פצלי אותו או הסירי ממנו תמונות"),
    (r"file type .* is not accepted|content type", "סוג הקובץ אינו נתמך: העלי DOCX, PDF או טקסט"),
    (r"backtracks|not a valid (regular expression|pattern)", "הביטוי הרגולרי אינו תקין"),
    (r"wrong name or password", "שם המשתמש או הסיסמה שגויים"),
    (r"too many (failed )?sign-ins", "יותר מדי ניסיונות כניסה שגויים; המתיני ונסי שוב"),
    (r"open proposals cap|new cases cap", "הסוכן הגיע למכסה שלו; דבר לא נשמר"),
    (r"changed after", "הטקסט השתנה מאז; טעני את הדף מחדש"),
    (r"already", "הפריט כבר במצב אחר; טעני את הדף מחדש"),
)
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
_HEBREW = re.compile(r"[\u0590-\u05FF]")
_ENGLISH_TAIL = re.compile(r"\s*\(([^()\u0590-\u05FF]*[A-Za-z]{2,}[^()\u0590-\u05FF]*)\)\s*$")
REFUSED = "המערכת סירבה לפעולה"


def hebrew_of(text: str) -> str | None:
    """The Hebrew for an English service message, or None when no pattern knows it."""
    for pattern, hebrew in PATTERNS:
        if re.search(pattern, text):
            return hebrew
    return None


def technical(text: str) -> Markup:
    """The service's own text, behind "פרטים טכניים"."""
    return Markup(
        '<details class="technical"><summary>פרטים טכניים</summary>'
        '<bdi dir="ltr">{}</bdi></details>'
    ).format(text)


def said(value: Any) -> Markup:
    """A message as the chair reads it: Hebrew first, English only behind the details."""
    if value is None or isinstance(value, Markup):
        return value or Markup("")
    text = str(value)
    if not _LATIN_WORD.search(text):
        return mixed(text)
    if _HEBREW.search(text):
        tail = _ENGLISH_TAIL.search(text)  # "Hebrew (the service's English)"
        if tail:
            return mixed(text[: tail.start()]) + technical(tail.group(1))
        return _translated_inside(text)
    return Markup("{}. ").format(hebrew_of(text) or REFUSED) + technical(text)


def _translated_inside(text: str) -> Markup:
    """Hebrew with the service's English after a colon ("המשוב לא נשמר: the text is empty"):
    the English part translated, kept behind the details."""
    head, sep, rest = text.rpartition(": ")
    if sep and not _HEBREW.search(rest):
        return mixed(head) + Markup(": {}. ").format(hebrew_of(rest) or REFUSED) + technical(rest)
    return mixed(text)


_PURITY = "voice purity: "  # why a lesson came to her as substance (learning/checks/purity.route)
_CARRIES = "carries "
_CLASSIFIED = re.compile(r"the distiller classified it as substance \((?P<why>.*)\)$", re.S)
_FINDING = re.compile(r"(?P<what>[^;(]+?) \((?P<match>[^)]*)\)")


def routed(text: str) -> Markup:
    """Why a lesson came to her as substance, in Hebrew: what of the facts it carries (each
    with the words found), or that the model that distilled it thought so (its reason when
    Hebrew)."""
    if text.startswith(_CARRIES):
        found = [
            Markup("{} (<bdi>{}</bdi>)").format(
                labels.PURITY_FINDING.get(m["what"].strip(), "פרט מן התיק"), m["match"]
            )
            for m in _FINDING.finditer(text[len(_CARRIES) :])
        ]
        return Markup("הלקח נושא פרטים מן התיק ולא רק סגנון: ") + Markup("; ").join(found)
    said_by_model = _CLASSIFIED.match(text)
    if said_by_model:
        why = said_by_model["why"]
        lead = Markup("המודל שזיקק את הלקח סבר שהוא נושא מהות ולא רק סגנון")
        if _HEBREW.search(why) and not _LATIN_WORD.search(why):
            return lead + Markup(": ") + mixed(why)
        return lead + Markup(". ") + technical(why)
    return Markup("נימוק שרשמה המערכת. ") + technical(text)


def reason(value: Any) -> Markup:
    """A decision's reason: hers as written (its Latin and numbers in <bdi>), an id the
    dictionary knows ("seed") in Hebrew, the system's English behind the details."""
    if value is None or value == "":
        return Markup("—")
    text = str(value)
    if text in ACTOR:
        return Markup("{}").format(ACTOR[text])
    if text.startswith(_PURITY):
        return routed(text[len(_PURITY) :])
    if _HEBREW.search(text) or not _LATIN_WORD.search(text):
        return said(text)
    return Markup("נימוק שרשמה המערכת. ") + technical(text)


def refusal(lead: str, exc: Any) -> Markup:
    """ "lead: the reason in Hebrew", the service's English behind the details."""
    text = str(exc)
    if isinstance(exc, Markup):
        return Markup("{}: ").format(lead) + exc
    if _HEBREW.search(text) and not _LATIN_WORD.search(text):
        return Markup("{}: ").format(lead) + mixed(text)
    return Markup("{}: ").format(lead) + said(text)
