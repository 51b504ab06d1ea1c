"""Israeli legal citations: rulings (court abbreviation, optional district, case number, parties)
and statute references (section or regulation, subsections, the law or schedule it belongs to).

Every citation gets a normalized `ref`, so spelling variants of one authority share one key:
`בג"צ 1234/05`, `בג״ץ 1234-05` and `בגץ 1234/05` all become `בג"ץ 1234/05`; `סעיף 152(א)(2) לחוק`
becomes `חוק התכנון והבנייה, התשכ"ה-1965, סעיף 152(א)(2)`. The same parser reads a search query
(`section_refs`), where a bare `סעיף 152` means the Planning and Building Law.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .hebrew import COURT_SPELLINGS, COURTS, PREFIX_CLASS, fold_quotes, normalize_case_number

PBL = 'חוק התכנון והבנייה, התשכ"ה-1965'
DEVIATION_REGS = 'תקנות התכנון והבנייה (סטייה ניכרת מתכנית), התשס"ב-2002'

# Court and tribunal abbreviations: the table is text/hebrew's (`COURTS`), shared with the case
# number normalizer. Quote-less spellings are accepted too (COURT_SPELLINGS).
_COURT_KEYS = COURT_SPELLINGS
_COURT_ALT = "|".join(
    re.escape(k).replace('"', '"?') for k in sorted(COURTS, key=len, reverse=True)
)
# Start of a word, allowing one or two prefix letters (בסעיף, ובעע"מ) before the citation.
_P = PREFIX_CLASS
_WORD_START = (
    rf"(?:(?<![א-ת\"'])|(?<=^{_P})|(?<=[^א-ת\"']{_P})|(?<=^{_P}{_P})|(?<=[^א-ת\"']{_P}{_P}))"
)
_RULING_RE = re.compile(
    _WORD_START + rf"(?P<court>{_COURT_ALT})\s*"
    r"(?:\((?P<district>[א-ת][א-ת\s\-\"']{0,20})\)\s*)?"
    r"(?P<number>\d{1,6})\s*[/\-]\s*(?P<year>\d{2}(?:\d{2})?)(?!\d)"
    r"(?P<parties>\s+(?:[^\s,;:()\n]+\s+){0,8}?נ['׳]\s+[^,;:()\n]{1,90}?(?=\s*(?:[,;:()\n]|\.(?:\s|$)|$)))?"
)

_ORDINALS = {
    "ראשונה": "הראשונה",
    "שניה": "השנייה",
    "שנייה": "השנייה",
    "שלישית": "השלישית",
    "רביעית": "הרביעית",
    "חמישית": "החמישית",
    "שישית": "השישית",
    "שביעית": "השביעית",
    "שמינית": "השמינית",
    "תשיעית": "התשיעית",
    "עשירית": "העשירית",
}
# What follows a section number: the law it belongs to. Longest alternatives first.
_TARGETS = [
    (
        re.compile(r"ל?תקנות התכנון והבני[י]?ה \(סטייה ניכרת מתכנית\),? התשס\"ב-2002"),
        DEVIATION_REGS,
    ),
    (re.compile(r"לתקנות (?:ה)?סטייה (?:ה)?ניכרת"), DEVIATION_REGS),
    (re.compile(r"לחוק התכנון והבני[י]?ה(?:,? התשכ\"ה-1965)?"), PBL),
    (re.compile(r"לתוספת (?:ה)?(?P<ordinal>[א-ת]+ית|[א-ת]+ונה|שני[י]?ה)(?: לחוק)?"), PBL),
    (re.compile(r"לחוק(?![א-ת])"), PBL),
]
_SECTION_RE = re.compile(
    _WORD_START + r"(?P<kind>סעיף|סעיפים|תקנה|תקנות|ס')\s*"
    r"(?P<num>\d{1,4}[א-ת]{0,3})(?P<sub>(?:\([א-ת0-9]{1,4}\))*)"
    r"(?=(?P<tail>\s+ל[א-ת\"][^\n.;]{0,80})|)"  # a lookahead: the next citation may be in it
)


@dataclass(frozen=True)
class Citation:
    text: str  # exactly as it appears in the source text
    kind: str  # ruling | statute
    ref: str  # the normalized key shared by spelling variants
    start: int
    end: int
    court: str | None = None
    case_number: str | None = None  # number/year of a ruling
    law: str | None = None  # None: a bare `סעיף N` in a query (any law; the ref assumes the PBL)
    schedule: str | None = None  # e.g. התוספת השלישית
    section: str | None = None  # e.g. 152 (without subsections)
    subsections: str = ""  # e.g. (א)(2)


def ruling_ref(court: str, number: str, year: str, district: str | None = None) -> str:
    """A ruling's key: its case number as `normalize_case_number` spells every case number."""
    where = f" ({district})" if district else ""
    return normalize_case_number(f"{court}{where} {number}/{year}")


def _target(tail: str) -> tuple[str | None, str | None, int]:
    """(law, schedule, characters of `tail` consumed) for what follows a section number."""
    stripped = tail.lstrip()
    lead = len(tail) - len(stripped)
    for pattern, law in _TARGETS:
        match = pattern.match(stripped)
        if match:
            ordinal = match.groupdict().get("ordinal")
            if ordinal is not None:
                name = _ORDINALS.get(ordinal.removeprefix("ה"), None) or _ORDINALS.get(ordinal)
                if name is None:
                    continue
                return law, f"התוספת {name}", lead + match.end()
            return law, None, lead + match.end()
    return None, None, 0


def statute_ref(
    law: str, section: str, subsections: str = "", schedule: str | None = None, kind: str = "סעיף"
) -> str:
    label = "תקנה" if law == DEVIATION_REGS or kind.startswith("תקנ") else "סעיף"
    parts = [law] + ([schedule] if schedule else [])
    return ", ".join([*parts, f"{label} {section}{subsections}"])


def extract(text: str, *, bare_sections: bool = False) -> list[Citation]:
    """Citations in `text`, in order of appearance. Statute references need the law they belong
    to (`לחוק`, `לתוספת השלישית`, `לתקנות …`) unless `bare_sections` (a search query)."""
    norm = fold_quotes(text)  # same length as text, so spans index the original
    found: list[Citation] = []
    for m in _RULING_RE.finditer(norm):
        court = m.group("court")
        if court.replace('"', "") == court and court not in ("ערר", "ערר מנהלי"):
            court = _COURT_KEYS.get(court, court)
        parties = (m.group("parties") or "").strip()
        end = m.end("parties") if parties else m.end("year")
        found.append(
            Citation(
                text=text[m.start() : end],
                kind="ruling",
                ref=ruling_ref(court, m.group("number"), m.group("year"), m.group("district")),
                start=m.start(),
                end=end,
                court=_COURT_KEYS.get(court, court),
                case_number=f"{int(m.group('number'))}/{m.group('year')}",
            )
        )
    for m in _SECTION_RE.finditer(norm):
        law, schedule, used = _target(m.group("tail") or "")
        if law is None and not bare_sections:
            continue
        end = m.end("sub") + used
        section, sub = m.group("num"), m.group("sub")
        found.append(
            Citation(
                text=text[m.start() : end],
                kind="statute",
                ref=statute_ref(law or PBL, section, sub, schedule, m.group("kind")),
                start=m.start(),
                end=end,
                law=law,
                schedule=schedule,
                section=section,
                subsections=sub,
            )
        )
    return sorted(found, key=lambda c: c.start)


def section_refs(query: str) -> list[Citation]:
    """Statute sections a search query names (`סעיף 152`, `סעיף 14 לתוספת השלישית`)."""
    return [c for c in extract(query, bare_sections=True) if c.kind == "statute"]
