"""Case numbers: the one normalizer, a ruling's identity, and how a citation finds its ruling.

A ruling's identity is its whole case number — proceeding (the court's abbreviation), district,
number/year — as `normalize_case_number` spells it: `עע"מ 1234/05` and `בג"ץ 1234/05` are two
rulings, `ערר (מרכז) 1042/23` and `ערר (תל אביב) 1042/23` two decisions, while `ערר (ת"א) 1042/23`
and `ערר (תל אביב-יפו) 1042/23` are one (district names and abbreviations fold to one spelling).

`resolve` is the one rule by which a citation is matched to the library's items of its number:
the same proceeding and district is a match; a citation without a district (or an item without
one) matches when exactly one identity fits, marked as matched without its district; when several
fit, the citation is ambiguous and the candidates are returned, never one of them guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .hebrew import normalize

# Court and tribunal abbreviations as written (after quote folding), to their canonical
# spelling; quote-less spellings (בגץ, עעמ) are accepted too. Case numbers and citation refs
# share this table through `normalize_case_number`.
COURTS = {
    'בג"ץ': 'בג"ץ',
    'בג"צ': 'בג"ץ',
    'עע"מ': 'עע"מ',
    'ע"א': 'ע"א',
    'רע"א': 'רע"א',
    'בר"מ': 'בר"מ',
    'עת"מ': 'עת"מ',
    'ע"מ': 'ע"מ',
    'ע"פ': 'ע"פ',
    'רע"פ': 'רע"פ',
    'דנ"א': 'דנ"א',
    'דנ"פ': 'דנ"פ',
    'דנג"ץ': 'דנג"ץ',
    'ע"ע': 'ע"ע',
    'עמ"נ': 'עמ"נ',
    'ה"פ': 'ה"פ',
    'ת"א': 'ת"א',
    'בש"א': 'בש"א',
    'בל"מ': 'בל"מ',
    "ערר": "ערר",
    "עררים": "ערר",  # appeals heard together (`עררים 1042/23 ו-1043/23`): each is an ערר
    "ערר מנהלי": "ערר מנהלי",
}
# Quote-less spellings (בגץ, עעמ) and a geresh written for the gershayim (עע'מ, בג'ץ) too.
COURT_SPELLINGS = (
    {k.replace('"', ""): v for k, v in COURTS.items()}
    | {k.replace('"', "'"): v for k, v in COURTS.items()}
    | COURTS
)
# Every dash a case number is written with between its parts (hyphen, the Unicode hyphens and
# dashes U+2010-U+2015, minus), as a regular-expression class's content.
DASHES = "\\-\u2010-\u2015\u2212"
_CASE_COURT_RE = re.compile(r"^([^\d(]+?) ?(?=\(|\d|$)")

# District names and abbreviations (keys without spaces, hyphens or quotes) to one spelling.
_DISTRICTS = {
    "ירושלים": "ירושלים",
    "ים": "ירושלים",
    "ירושלם": "ירושלים",
    "תלאביב": "תל אביב",
    "תא": "תל אביב",
    "תלאביביפו": "תל אביב",
    "תאיפו": "תל אביב",
    "חיפה": "חיפה",
    "חי": "חיפה",
    "בארשבע": "באר שבע",
    "בש": "באר שבע",
    "נצרת": "נצרת",
    "נצ": "נצרת",
    "מרכז": "מרכז",
    "מרכזלוד": "מרכז",
    "צפון": "צפון",
    "דרום": "דרום",
    "פת": "פתח תקווה",
    "פתחתקוה": "פתח תקווה",
    "פתחתקווה": "פתח תקווה",
    "ראשלצ": "ראשון לציון",
    "ראשוןלציון": "ראשון לציון",
    "כס": "כפר סבא",
    "כפרסבא": "כפר סבא",
    "רח": "רחובות",
    "רחובות": "רחובות",
    "נת": "נתניה",
    "נתניה": "נתניה",
    "הרצ": "הרצליה",
    "הרצליה": "הרצליה",
    "אש": "אשדוד",
    "אשדוד": "אשדוד",
    "קג": "קריית גת",
    "טב": "טבריה",
    "טבריה": "טבריה",
    "צפ": "צפת",
    "צפת": "צפת",
    "קריות": "קריות",
    "קש": "קריית שמונה",
    "אי": "אילת",
    "אילת": "אילת",
}
_DISTRICT_KEY_RE = re.compile(r"[\s\-\"'\u05be]")


def fold_district(name: str) -> str:
    """One spelling of a district or court seat: `ת"א`, `תל-אביב` and `תל אביב-יפו` are
    `תל אביב`; `י-ם` is `ירושלים`; `(מחוז מרכז)` and `(מרכז-לוד)` are `מרכז`. A magistrates'
    court keeps its word (`שלום ת"א` → `שלום תל אביב`: not the district court). An unknown name
    keeps its own spelling, single-spaced."""
    text = " ".join(normalize(name).split())
    words = text.split(" ", 1)
    if words[0] in ("מחוז", "מחוזי") and len(words) == 2:
        text = words[1]
    elif words[0] == "שלום" and len(words) == 2:
        return f"שלום {fold_district(words[1])}"
    return _DISTRICTS.get(_DISTRICT_KEY_RE.sub("", text), text)


_NUMBER_WORD_RE = re.compile(r"(?<=[א-ת\"')]) (?:מס['.]|מספר) ?(?=\(|\d)")


def normalize_case_number(case_number: str) -> str:
    """The one canonical spelling of a case number: every case key, search filter, citation ref
    and learning-loop case goes through here, so spelling variants of one case share one key.

    Quotes folded (״ -> "), the court's canonical spelling (בג"צ and בגץ -> בג"ץ), single spaces,
    one space around a district in parentheses (`ערר(מרכז) 1042 / 23` -> `ערר (מרכז) 1042/23`),
    the district's one spelling (`(ת"א)` -> `(תל אביב)`, `(י-ם)` -> `(ירושלים)`), no `מס'`
    between the court and the number, a slash between the number and the year (1042-23 ->
    1042/23) and no leading zeros in the number. The full number is kept: ערר (מרכז) 1042/23 and
    בל"מ 1042/23 stay different keys."""
    text = " ".join(normalize(case_number).split()).replace("''", '"')  # בג''ץ: בג"ץ
    text = re.sub(r"\s*\(\s*", " (", text)
    text = re.sub(r"\s*\)\s*", ") ", text).strip()
    text = _NUMBER_WORD_RE.sub(" ", text)
    text = re.sub(rf"(\d)\s*[/{DASHES}]\s*(?=\d)", r"\1/", text)
    text = re.sub(r"([א-ת\"'])(?=\d)", r"\1 ", text)
    text = re.sub(r"(?<![\d/])0+(?=\d+/)", "", text)
    court = _CASE_COURT_RE.match(text)
    if court and court.group(1) in COURT_SPELLINGS:
        text = COURT_SPELLINGS[court.group(1)] + text[court.end(1) :]
    district = _DISTRICT_RE.match(text)
    if district:
        folded = fold_district(district["district"])
        text = text[: district.start("district")] + folded + text[district.end("district") :]
    return text


# A normalized case number: [proceeding] [(district)] number/year[/year] — the new form
# 12345-06-19 (number, month, year) is 12345/06/19 once normalized.
_DISTRICT_RE = re.compile(r"^[^\d()]*?\((?P<district>[^()\d]+)\) (?=\d)")
_IDENTITY_RE = re.compile(
    r"^(?:(?P<proceeding>[^\d()]+?) )?(?:\((?P<district>[^()]+)\) )?"
    r"(?P<number>\d{1,6}/\d{2}(?:\d{2}|/\d{2}(?:\d{2})?)?)(?![\d/])"
)
# A year written with its century (`1042/2023`, `1234/05/2019`): the same case as its last two
# digits (`1042/23`), as a ruling's identity (the case number keeps what was written).
_CENTURY_YEAR_RE = re.compile(r"/(?:19|20)(\d{2})$")


@dataclass(frozen=True)
class CaseId:
    """A ruling's identity: proceeding (None: the case number names none), district (None:
    none given) and number/year."""

    proceeding: str | None
    district: str | None
    number: str

    def fits(self, other: CaseId) -> bool:
        """One proceeding and number/year, and districts that do not differ (either side may
        name none): the identities a citation of one may name."""
        return (
            self.proceeding == other.proceeding
            and self.number == other.number
            and (self.district is None or other.district is None or self.district == other.district)
        )

    @property
    def key(self) -> str:
        """The identity as `normalize_case_number` spells it."""
        parts = [self.proceeding or "", f"({self.district})" if self.district else "", self.number]
        return " ".join(p for p in parts if p)


def case_id(case_number: str | None) -> CaseId | None:
    """The identity a case number names (`עע"מ 1234/05 פלוני נ' הוועדה` -> עע"מ, no district,
    1234/05; `ערר 1042/2023` -> 1042/23), or None when it names no number/year."""
    if not case_number or not case_number.strip():
        return None
    found = _IDENTITY_RE.match(normalize_case_number(case_number))
    if not found:
        return None
    number = _CENTURY_YEAR_RE.sub(r"/\1", found["number"])
    return CaseId(found["proceeding"], found["district"], number)


def same_case(one: str | None, other: str | None) -> bool:
    """Whether two case numbers name the same case: one proceeding and number/year, and districts
    that do not differ (one side may name none: `ערר 1042/23` in the draft of `ערר (מרכז)
    1042/23` is its own case). False when either names no number/year."""
    a, b = case_id(one), case_id(other)
    return a is not None and b is not None and a.fits(b)


def identity_columns(case_number: str | None) -> dict[str, str | None]:
    """The identity columns of a library item (case_law.ruling_proceeding, ruling_district,
    ruling_number) for its case number; all None when it names no number/year."""
    found = case_id(case_number)
    return {
        "ruling_proceeding": found.proceeding if found else None,
        "ruling_district": found.district if found else None,
        "ruling_number": found.number if found else None,
    }


# How a citation was matched to its item (authorities.link_basis); the chair's own pick is
# `CHAIR`, set only by her (the database checks it).
EXACT = "exact"
WITHOUT_DISTRICT = "without_district"
ALIAS = "alias"
CHAIR = "chair"


@dataclass(frozen=True)
class Resolution:
    """What `resolve` decided: the item linked (None: none, or ambiguous), how it matched, and
    the candidates when the chair must pick (the ambiguity shown, never guessed)."""

    target: int | None = None
    basis: str | None = None
    candidates: tuple[int, ...] = ()

    @property
    def ambiguous(self) -> bool:
        return bool(self.candidates)


def resolve(cited: CaseId, items: list[tuple[int, CaseId]]) -> Resolution:
    """The item among `items` (id, identity; the library's items of `cited.number`, in the
    order to prefer) that a citation of `cited` names, by the whole identity.

    Same proceeding and district: linked (EXACT). Otherwise the items of its proceeding that do
    not contradict its district (one side without a district): when they are all one identity,
    linked and marked as matched without its district; when they are several, ambiguous: no
    target, the candidates returned for the chair to pick. An item whose case number names no
    proceeding (a bare `1234/05`) is never linked silently: it is a candidate she confirms."""
    same = [(i, c) for i, c in items if c.number == cited.number]
    fitting = [(i, c) for i, c in same if cited.fits(c)]
    unknown = [
        (i, c)
        for i, c in same
        if c.proceeding is None and (cited.district is None or c.district in (cited.district, None))
    ]
    exact = [i for i, c in fitting if c == cited]
    identities = {c for _, c in fitting}
    if exact and (cited.district is not None or len(identities) == 1):
        return Resolution(exact[0], EXACT)
    if len(identities) == 1 and not unknown:
        return Resolution(fitting[0][0], WITHOUT_DISTRICT)
    candidates = tuple(dict.fromkeys(i for i, _ in fitting + unknown))
    return Resolution(candidates=candidates)
