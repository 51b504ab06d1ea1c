"""Voice purity (INV-LRN5): the voice layer — style lessons, what a panel may approve — never
holds substance. A proposal whose text carries a fact of its case, a party's or person's name, an
address, a plan or parcel number, a date, an amount, a holding, or a case or statute citation is
substance: it is routed to the chair under a substance category (fact / halacha / precedent) and
never reaches the style panel.

Detection is deterministic first (`check`): citations (text/citations.py), case numbers, plan
and parcel numbers, dates, amounts and other numbers, street addresses, the case's party names
(from the header block of its decision) and the chair's name, and words that state a holding.
Then the model's own classification: the distiller answers `is_substance` with a reason for each
lesson it proposes (`route` takes both). Only the lesson's text is checked: its evidence spans
are quotations of the case and are expected to carry its facts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ...text import citations
from ...text.hebrew import normalize, prefix_variants, tokens
from .shingles import keyed_words, word_key

SUBSTANCE_CATEGORIES = ("fact", "halacha", "precedent")
# Which substance category a finding stands for, strongest first (a lesson that cites a ruling
# and names a date is routed as precedent).
_PRIORITY = {"precedent": 0, "halacha": 1, "fact": 2}


@dataclass(frozen=True)
class Finding:
    """One reason a text carries substance."""

    rule: str  # ruling_citation | statute_citation | case_number | plan_or_parcel | date |
    #            amount | number | address | name | holding
    category: str  # fact | halacha | precedent
    match: str  # the words that triggered it, as written

    def describe(self) -> str:
        return f"{_LABELS[self.rule]} ({self.match})"


_LABELS = {
    "ruling_citation": "a ruling citation",
    "statute_citation": "a statute citation",
    "case_number": "a case number",
    "plan_or_parcel": "a plan or parcel number",
    "date": "a date",
    "amount": "an amount",
    "number": "a number",
    "address": "an address",
    "name": "a party's or person's name",
    "holding": "a holding",
}

_MONTHS = "ינואר|פברואר|מרץ|מרס|אפריל|מאי|יוני|יולי|אוגוסט|ספטמבר|אוקטובר|נובמבר|דצמבר"
_H = "א-ת"  # Hebrew letters (after normalize: no niqqud, ASCII quotes)
_PATTERNS: list[tuple[str, str, re.Pattern]] = [
    ("case_number", "precedent", re.compile(r"(?<![\d./])\d{1,6}\s*/\s*\d{2,4}(?![\d/.])")),
    (
        "plan_or_parcel",
        "fact",
        re.compile(
            rf"(?<![{_H}])[ובלמה]?(?:גוש|חלק(?:ה|ות)|מגרש|תכנית|תוכנית|תב\"ע|תמ\"א|תמ\"מ|תת\"ל)"
            rf"\s*(?:מס(?:פר|')?\.?\s*)?(?:[{_H}]{{0,4}}[/\-]?\s*)?\d[\d/\-]*"
        ),
    ),
    ("plan_or_parcel", "fact", re.compile(rf"(?<![{_H}])[ובלמה]?(?:תכנית|תוכנית)\s+מס(?:פר|')")),
    (
        "statute_citation",
        "halacha",
        re.compile(rf"(?<![{_H}])[ובלמה]?(?:סעיף|סעיפים|תקנה|תקנות|ס')\s*\d"),
    ),
    ("date", "fact", re.compile(r"(?<!\d)\d{1,2}[./]\d{1,2}[./](?:\d{4}|\d{2})(?!\d)")),
    ("date", "fact", re.compile(rf"(?<![{_H}])[ובלמה]?(?:{_MONTHS})\s+\d{{2,4}}")),
    ("date", "fact", re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")),
    (
        "amount",
        "fact",
        re.compile(
            r"₪|(?<![א-ת])ש\"ח|(?<![א-ת])שקל(?:ים)?(?![א-ת])|"
            r"\d[\d,.]*\s*%|(?<!\d)\d{1,3}(?:,\d{3})+(?!\d)"
        ),
    ),
    (
        "address",
        "fact",
        re.compile(rf"(?<![{_H}])[ובלמ]?(?:רחוב|רח'|שדרות|שד'|שכונת|סמטת|כיכר)\s+[{_H}\"\d]+"),
    ),
]
# Any digit is a number of the case (a count, an area, a height, a distance) unless it is a
# paragraph marker written as an example of numbering: "1.", "2)", "(3)".
_DIGITS = re.compile(r"\d+(?:[.,/]\d+)*")
_LIST_MARKER = re.compile(r"(?<![\d.,/])(?:\(\d{1,2}\)|\d{1,2}[.)])(?![\d/])")
# Words that state what a court held or what was decided (checked outside quoted phrases: a
# lesson may quote a filler like 'הלכה פסוקה היא' to tell the writer to drop it).
_HOLDING = re.compile(
    rf"(?<![{_H}])(?:[וש]?ה?(?:הלכה|הלכת|הלכות)|[וש]?(?:נקבע|נפסק)[{_H}]{{0,2}})(?![{_H}])"
)
# Quoted phrases: an opening quote at a word start (after up to two prefix letters: ב'אין צו'),
# a closing one at a word end (an acronym's gershayim, עע"מ, and a name's geresh, י' כהן, are
# neither).
_QUOTED = re.compile(
    r"(?:^|(?<=[\s(:\-–]))[ובלמהכש]{0,2}(['\"])(?=[^\s'\"])(.+?)(?<=\S)\1(?=$|[\s.,;:!?)\-–])"
)
# Words of a header's party lines that name no one (the committee, its kind, a fiction note).
_GENERIC = frozenset(
    tokens(
        "הוועדה הועדה ועדה ועדת המקומית מקומית המחוזית מחוזית לתכנון תכנון ובנייה ובניה בנייה "
        "בניה הוועדה המקומית לתכנון ולבנייה הערר ערר עוררים העוררים העורר העוררת משיבים המשיבים "
        "המשיב המשיבה המבקשים המבקש נגד ואח אחרים ואחרים בדוי בדויה בדויים בדויות דמות מחוז "
        'מרכז צפון דרום חיפה ירושלים אביב עו"ד עוה"ד עורך עורכת דין יו"ר ועדת מדינת ישראל '
        "רשות מקרקעי הרשות עיריית עירית מועצה מקומית אזורית המועצה"
    )
)
_PARTY_LINE = re.compile(
    r"^\s*(?:ה)?(?:עורר|עוררים|עוררת|עוררות|משיב|משיבה|משיבים|משיבות|מבקש|מבקשת|מבקשים|עותר|"
    r"עותרים|עותרת|צד|צדדים)(?:\s+\d+)?\s*:\s*(?P<names>.+)$",
    re.M,
)


# The outcome of an appeal and its operative terms (a condition, a cancellation), as comparison
# keys: a contrastive example whose two sides differ in them is substance
# (knowledge/contrastive.py), and a lesson that says them prescribes an outcome (`prescribes`).
OUTCOME_WORDS = frozenset(
    word_key(w)
    for w in (
        "נדחה נדחית נדחים נדחו להידחות לדחות דוחים מתקבל מתקבלת מתקבלים התקבל להתקבל לקבל "
        "מקבלים מוחזר מוחזרת יוחזר להחזיר מחזירים בחלקו יותנה תותנה מותנה מותנית להתנות בתנאי "
        "תנאי יבוטל תבוטל מבוטל מבוטלת לבטל יתקבל תתקבל יתקבלו יידחה ידחה תידחה יידחו ידחו "
        "נקבל נדחה נדחית לדחותו לקבלו"
    ).split()
)
# A party of an appeal, and what states a party's position or whom a decision favours: a
# lesson naming both prescribes a party's position ("יש לקבל את עמדת העוררים").
PARTY_WORDS = frozenset(
    word_key(w)
    for w in (
        "עורר עוררים עוררת עוררות משיב משיבה משיבים משיבות מבקש מבקשת מבקשים מבקשות עותר "
        "עותרים עותרת עותרות הצדדים צד"
    ).split()
)
STANCE_WORDS = frozenset(
    word_key(w)
    for w in (
        "עמדת עמדה עמדתם עמדתה עמדתו עמדותיהם צודק צודקת צודקים צודקות זכאי זכאית זכאים "
        "זכאיות לטובת להעדיף מעדיפים להצדיק מוצדקת מוצדק מוצדקות טענתם טענתו טענתה גרסת"
    ).split()
)


def prescribes(text: str) -> str | None:
    """Why `text` prescribes what a decision decides (None: it does not): an outcome word (the
    appeal accepted, rejected, remanded, conditioned, cancelled) or a party named with its
    position or with whom the decision favours. A voice lesson says how she writes, never what
    she decides: such a lesson is the chair's (learning/lessons/evidence.py)."""
    norm = normalize(text or "")
    words = keyed_words(norm)
    keys = {w.key for w in words}
    outcome = [w for w in words if w.key in OUTCOME_WORDS]
    if outcome:
        return f"prescribes an outcome ({norm[outcome[0].start : outcome[0].end]})"
    if keys & PARTY_WORDS and keys & STANCE_WORDS:
        return "prescribes a party's position"
    return None


def quoted_phrases(text: str) -> list[str]:
    """The phrases a text quotes ('…' or "…", any quote-mark variant), normalized."""
    return [" ".join(m.group(2).split()) for m in _QUOTED.finditer(normalize(text))]


def _unquoted(text: str) -> str:
    return _QUOTED.sub(" ", text)


def party_names(header: str, chair_name: str | None = None) -> set[str]:
    """Name words of the parties in a decision's header (its `העוררים:` / `המשיבים:` lines) and
    of the chair: normalized tokens of three letters or more, without the words that name no one
    (the local committee, its kind, a fiction note)."""
    found: set[str] = set()
    lines = [m.group("names") for m in _PARTY_LINE.finditer(normalize(header or ""))]
    for line in [*lines, chair_name or ""]:
        line = re.sub(r"\([^)]*\)", " ", line)  # (בדויים), (בדויה)
        for token in tokens(line):
            if len(token) >= 3 and not token.isdigit() and token not in _GENERIC:
                found.add(token)
    return found


def _name_hits(text: str, names: set[str]) -> list[str]:
    hits = []
    for token in tokens(text):
        if token in names or any(v in names for v in prefix_variants(token, min_stem=3)):
            hits.append(token)
    return hits


# A citation's kind -> (rule, category): a plan's number is a fact of the case, not a holding.
_CITATION_RULES = {
    "ruling": ("ruling_citation", "precedent"),
    "reporter": ("ruling_citation", "precedent"),
    "statute": ("statute_citation", "halacha"),
    "plan": ("plan_or_parcel", "fact"),
}


def _cover(flags: bytearray, start: int, end: int) -> None:
    end = min(end, len(flags))
    flags[start:end] = b"\x01" * (end - start)


def check(text: str, names: Iterable[str] = ()) -> list[Finding]:
    """Every deterministic reason `text` carries substance (empty: none found)."""
    norm = normalize(text or "")
    found: list[Finding] = []
    cited = citations.extract(norm)
    for citation in cited:
        found.append(Finding(*_CITATION_RULES[citation.kind], citation.text))
    # Which characters a finding (or a list marker) already covers: a match that starts inside
    # one is not found again. One flag per character, so a long draft's many numbers cost a
    # look-up each (a list of spans searched per match took 40 s on a long upload).
    covered = bytearray(len(norm) + 1)
    for c in cited:
        _cover(covered, c.start, c.end)
    for rule, category, pattern in _PATTERNS:
        for m in pattern.finditer(norm):
            if not covered[m.start()]:
                found.append(Finding(rule, category, m.group(0).strip()))
                _cover(covered, m.start(), m.end())
    for m in _LIST_MARKER.finditer(norm):
        _cover(covered, m.start(), m.end())
    for m in _DIGITS.finditer(norm):
        if not covered[m.start()]:
            found.append(Finding("number", "fact", m.group(0)))
    names = set(names)
    if names:
        found += [Finding("name", "fact", hit) for hit in _name_hits(norm, names)]
    found += [Finding("holding", "halacha", m.group(0)) for m in _HOLDING.finditer(_unquoted(norm))]
    return found


def category_of(findings: list[Finding]) -> str:
    """The substance category a set of findings routes to (strongest first)."""
    return min((f.category for f in findings), key=_PRIORITY.__getitem__)


def route(
    findings: list[Finding],
    *,
    model_says: bool = False,
    model_reason: str | None = None,
    model_category: str | None = None,
) -> tuple[str, str] | None:
    """(substance category, routed_reason) when a proposal must go to the chair as substance,
    else None. The deterministic findings decide first; the model's own classification second."""
    if findings:
        seen: list[str] = []
        for f in sorted(findings, key=lambda f: _PRIORITY[f.category]):
            if f.describe() not in seen:
                seen.append(f.describe())
        return category_of(findings), "voice purity: carries " + "; ".join(seen[:4])
    if model_says:
        category = model_category if model_category in SUBSTANCE_CATEGORIES else "fact"
        reason = (model_reason or "").strip() or "no reason given"
        return category, f"voice purity: the distiller classified it as substance ({reason})"
    return None
