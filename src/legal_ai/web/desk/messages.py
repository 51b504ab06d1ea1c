"""The services' messages (English, for the CLI, the API and the log) as the chair reads them on
the desk: a refusal (an AppError) in the Hebrew the catalog (catalog.py) has for its code, the
English kept only behind "פרטים טכניים" (a <details>, left to right in <bdi>). A message already
in Hebrew is shown as it is, its Latin letters and numbers in <bdi>; an English one without a
code the catalog knows is said as "the system refused" with its text behind the details. Every
page's notice and error line goes through `said` (the base template's `message|said`)."""

from __future__ import annotations

import re
from typing import Any

from markupsafe import Markup

from ... import catalog
from . import labels
from .labels import ACTOR, mixed

_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
_HEBREW = re.compile(r"[\u0590-\u05FF]")
_ENGLISH_TAIL = re.compile(r"\s*\(([^()\u0590-\u05FF]*[A-Za-z]{2,}[^()\u0590-\u05FF]*)\)\s*$")
_ENGLISH_PHRASE = re.compile(r"[A-Za-z]{2,}[\w'.,-]*\s+[A-Za-z]{2,}")
REFUSED = catalog.REFUSED


def hebrew_of(exc: Any) -> str | None:
    """The catalog's Hebrew for a refusal's code (None: no code, or one it lacks)."""
    return catalog.hebrew(getattr(exc, "code", None))


def technical(text: str) -> Markup:
    """The service's own text, behind "פרטים טכניים"."""
    return Markup(
        '<details class="technical"><summary>פרטים טכניים</summary>'
        '<bdi dir="ltr">{}</bdi></details>'
    ).format(text)


def said(value: Any) -> Markup:
    """A message as the chair reads it: Hebrew first, English only behind the details. `value`:
    a refusal (its code's Hebrew from the catalog), a text, or Markup already said."""
    if value is None or isinstance(value, Markup):
        return value or Markup("")
    text = str(value)
    if not _LATIN_WORD.search(text):
        return mixed(text)
    known = hebrew_of(value)
    if known and known != REFUSED:  # its code's own words, whatever Hebrew the text holds
        return mixed(known) + Markup(". ") + technical(text)
    if _HEBREW.search(text):
        tail = _ENGLISH_TAIL.search(text)  # "Hebrew (the service's English)"
        if tail:
            return mixed(text[: tail.start()]) + technical(tail.group(1))
        head, sep, rest = text.rpartition(": ")  # "המשוב לא נשמר: the text is empty"
        if sep and not _HEBREW.search(rest):
            return mixed(head) + Markup(": {}. ").format(REFUSED) + technical(rest)
        # A refusal whose Hebrew carries the service's English in its middle ("פסק הדין לא נקלט:
        # … names the ruling by …", a Hebrew case number inside the English): the Hebrew before
        # the first English words in a row, the rest behind the details. Only a refusal: a text
        # she or a model wrote (a reason, `Google Drive` in it) is shown as written.
        english = _ENGLISH_PHRASE.search(text) if isinstance(value, BaseException) else None
        if english is None:
            return mixed(text)
        head = text[: english.start()].rstrip(" (:;,-\u2013\u2014")
        if not _HEBREW.search(head):
            return mixed(REFUSED) + Markup(". ") + technical(text)
        return mixed(head) + Markup(": {}. ").format(REFUSED) + technical(text[english.start() :])
    return mixed(REFUSED) + Markup(". ") + technical(text)


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


def panel_reason(value: Any) -> Markup:
    """A panel model's reason for the chair (asked in Hebrew): as written when Hebrew (its Latin
    and numbers in <bdi>), one written in another language behind the details."""
    text = " ".join(str(value or "").split())
    if not text:
        return Markup("לא נימק")
    if _HEBREW.search(text):
        return mixed(text)
    return Markup("המודל נימק שלא בעברית. ") + technical(text)


def refusal(lead: str, exc: Any) -> Markup:
    """ "lead: the reason in Hebrew", the service's English behind the details."""
    return Markup("{}: ").format(lead) + said(exc)
