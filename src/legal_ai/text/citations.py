"""Israeli legal citations as real decisions write them: rulings (court abbreviation, district,
case number, parties, reporter, Nevo), reporter citations alone (`פ"ד מד(1) 565`), statute
references (section or regulation, subsections, the law or schedule it belongs to) and plans
(`תא/3273`, `ג/8647`, `תמ"א 38`: a plan, never a ruling).

Every citation gets a normalized `ref`, so spelling variants of one authority share one key:
`בג"צ 1234/05`, `בבג״ץ 1234-05` and `בגץ 1234 / 05` all become `בג"ץ 1234/05`; `ע"א (ת"א)
1234/05` becomes `ע"א (תל אביב) 1234/05` (text/case_numbers: one identity per ruling);
`סעיף 152 (א)(2) לחוק` becomes `חוק התכנון והבנייה, התשכ"ה-1965, סעיף 152(א)(2)`, while
`סעיף 170ג(ו) לפקודת העיריות` stays the ordinance's. The same parser reads a search query
(`section_refs`), where a bare `סעיף 152` means the Planning and Building Law.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .case_numbers import (
    COURT_SPELLINGS,
    COURTS,
    DASHES,
    CaseId,
    case_id,
    normalize_case_number,
)
from .hebrew import PREFIX_CLASS, Folded, folded

PBL = 'חוק התכנון והבנייה, התשכ"ה-1965'
DEVIATION_REGS = 'תקנות התכנון והבנייה (סטייה ניכרת מתכנית), התשס"ב-2002'

# Court and tribunal abbreviations: the table is text/case_numbers' (`COURTS`), shared with the
# case number normalizer. Quote-less spellings and a geresh for the gershayim are accepted too
# (COURT_SPELLINGS; a doubled geresh is already one gershayim in the folded text).
_COURT_ALT = "|".join(
    re.escape(k).replace('"', "[\"']?") for k in sorted(COURTS, key=len, reverse=True)
)
# Start of a word, allowing one or two prefix letters (בסעיף, ובעע"מ) before the citation.
_P = PREFIX_CLASS
_WORD_START = (
    rf"(?:(?<![א-ת\"'])|(?<=^{_P})|(?<=[^א-ת\"']{_P})|(?<=^{_P}{_P})|(?<=[^א-ת\"']{_P}{_P}))"
)
# Where a party's name ends: punctuation, a sentence's end, or a reporter citation.
_REPORTER_HEAD = r'(?:פ"ד|פד"י|פ"מ|תק-[א-ת]{2})\s'
_PARTIES_END = rf"(?=\s*(?:[,;:()\[\]\n]|\.(?:\s|$)|$|{_REPORTER_HEAD}))"
_NUMBER_WORD = r"(?:(?:מס['.]?|מספר)\s*)?"
# A case number as written: number/year, or number-month-year (`1234-05-19`, `12345/06/19` as
# the normalizer spells it; a four-digit year there is read by its last two digits), with any
# of the dashes (DASHES) or a slash between its parts.
_SEP = rf"\s*[/{DASHES}]\s*"
_CASE_NUMBER = (
    rf"(?P<number>\d{{1,6}})(?:{_SEP}(?P<month>\d{{2}})(?={_SEP}\d{{2}}(?:\d{{2}})?(?!\d)))?"
    rf"{_SEP}(?P<year>\d{{2}}(?:\d{{2}})?)(?![\d/])"
)
_RULING_RE = re.compile(
    _WORD_START + rf"(?P<court>{_COURT_ALT})\s*{_NUMBER_WORD}"
    r"(?:\((?P<district>[א-ת][א-ת\s\-\"']{0,20})\)\s*)?" + _NUMBER_WORD + _CASE_NUMBER
)
# Another case number of the same proceeding right after one (`עע"מ 1234/05 ו-5678/06`,
# `בג"ץ 1234/05, 5678/06`): a citation of its own. Stricter than the first, so that a date or a
# range after it is no case: after a comma only number/year with a slash and a two-digit year
# (`, 12/03/2005`, `, 15-17` and `, 12-05-2019` are not cases); after `ו-` or `וכן` the new form
# by its dashes too (`ו-5678-06-20`).
_NO_MORE = rf"(?![\d/{DASHES}])"
_SLASHED = r"(?P<number>\d{1,6})\s*/\s*(?P<year>\d{2})" + _NO_MORE
_DASH = rf"\s*[{DASHES}]\s*"
_ALSO_RE = (
    re.compile(r"\s*,\s*" + _SLASHED),
    re.compile(
        r"\s*(?:ו-?|וכן)\s*(?:"
        rf"(?P<number>\d{{1,6}})(?:{_DASH}(?P<month>\d{{2}}){_DASH}|\s*/\s*)(?P<year>\d{{2}})"
        rf"{_NO_MORE})"
    ),
)
_PARTIES_RE = re.compile(
    r"\s+(?:[^\s,;:()\n]+\s+){0,8}?נ['׳]\s+[^,;:()\[\]\n]{1,90}?" + _PARTIES_END
)
# `פ"ד מד(1) 565`, `פד"י כ"ג(2) 113`, `פ"מ תשנ"ה(2) 45`; `תק-על 2005(3) 1234`.
_PD_RE = re.compile(
    _WORD_START + r'(?P<series>פ"ד|פד"י|פ"מ)\s+(?P<volume>[א-ת]{1,3}"?[א-ת]?)\s*'
    r"(?:\((?P<part>\d)\))?\s*,?\s*(?P<page>\d{1,4})(?!\d)"
)
_TAK_RE = re.compile(
    _WORD_START + r"(?P<series>תק-(?:על|מח|של|אר))\s+(?P<year>\d{4})\s*\((?P<part>\d)\)\s*,?\s*"
    r"(?P<page>\d{1,5})(?!\d)"
)
_NEVO_RE = re.compile(r"\s*\((?:פורסם\s+)?ב?נבו\b[^()\n]{0,40}\)")
# Acronyms written with dots (`ת.א.`, `ע.ע.מ.`) before a case number: read as `ת"א`, `עע"מ`.
_DOTTED_RE = re.compile(r"(?<![א-ת.])((?:[א-ת]\.){2,4})(?=\s*[\d(])")
# Plans: a district's code and number (`תא/3273`, `טב/3352`, `ג/8647`, `מח/54/ב'`), or a
# national or district outline plan (`תמ"א 38`, `תמ"א/38/א'`), with or without `תכנית`.
_PLAN_RE = re.compile(
    r"(?:(?<![א-ת\"'\d/])|(?<=^[והבלמש])(?=תמ\"|תת\")|(?<=[^א-ת][והבלמש])(?=תמ\"|תת\")"
    r"|(?<=[^א-ת][והבלמש]{2})(?=תמ\"|תת\"))"
    r"(?:(?:[והבלמש]?)(?:תכנית|תוכנית|תב\"ע)\s+(?:מס['.]?\s*)?)?"
    r"(?P<code>(?:תמ\"[אמ]|תת\"ל)\s*/?\s*\d{1,4}|[א-ת]{1,3}(?:\"[א-ת])?/\s?(?:[א-ת]{1,3}/)?\d{1,5})"
    r"(?P<rest>(?:/[א-ת0-9]{1,4}'?)*)(?![\d/])"
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
# A law named after a section number that is not the Planning and Building Law: `לפקודת
# העיריות`, `לחוק המקרקעין, התשכ"ט-1969`, `לחוק יסוד: כבוד האדם וחירותו`. Its words: the head
# (חוק, פקודת, תקנות, צו), then words of a name (a law's name words start with ה; `חוק` needs one
# such word, so `לחוק קובע` is the PBL's `לחוק`), and the year.
_NAME_WORD = r"(?:ו?ה[א-ת\"'\-]+)"
# The Basic Laws by their names, whose words need not start with ה (`כבוד האדם וחירותו`).
_BASIC_LAWS = (
    "כבוד האדם וחירותו",
    "חופש העיסוק",
    "ירושלים בירת ישראל",
    "מקרקעי ישראל",
    "משק המדינה",
    "נשיא המדינה",
    "מבקר המדינה",
    "משאל עם",
    "הכנסת",
    "הממשלה",
    "השפיטה",
    "הצבא",
)
_OTHER_LAW_RE = re.compile(
    r"ל(?P<law>(?:(?:פקודת|תקנות|צו)\s+[א-ת\"'\-]+|חוק[\s\-]יסוד:\s*(?:"
    + "|".join(n.replace(" ", r"\s+") for n in _BASIC_LAWS)
    + r"|[א-ת\"'\-]+)|חוק\s+(?:בתי\s+(?:ה?משפט\s+לעניינים\s+מינהליים|[א-ת\"'\-]+)|"
    r"(?:מיסוי|רישוי)\s+[א-ת\"'\-]+|" + _NAME_WORD + r"))"
    r"(?:\s+" + _NAME_WORD + r"){0,4}(?:,?\s+ה?תש[א-ת\"']{1,5}-\d{4})?)"
)
_NOT_A_NAME = {'הנ"ל', "האמור", "האמורה", "הזה", "הזו", "הקובע", "הקובעת", "היא", "הוא"}
# What follows a section number: the law it belongs to. Longest alternatives first.
_TARGETS = [
    (
        re.compile(r"ל?תקנות התכנון והבני[י]?ה \(סטייה ניכרת מתכנית\),? התשס\"ב-2002"),
        DEVIATION_REGS,
    ),
    (re.compile(r"לתקנות (?:ה)?סטייה (?:ה)?ניכרת"), DEVIATION_REGS),
    (re.compile(r"לחוק התכנון והבני[י]?ה(?:,? התשכ\"ה-1965)?"), PBL),
    (re.compile(r"לחוק (?:התו\"ב|התכנון(?![א-ת]))"), PBL),
    (re.compile(r"לתוספת (?:ה)?(?P<ordinal>[א-ת]+ית|[א-ת]+ונה|שני[י]?ה)(?: לחוק)?"), PBL),
    (_OTHER_LAW_RE, None),
    (re.compile(r"לחוק(?![א-ת])"), PBL),
]
_SUBSECTIONS = r"(?:\s?\([א-ת0-9]{1,4}\))*"
# More sections of the same law after the first (`סעיפים 197 ו-200`, `152-153`, `62א, 62ב`).
_AND_SECTION = r"\s*(?:,|ו-?|-|–|עד)\s*"
_MORE_SECTION_RE = re.compile(_AND_SECTION + r"(\d{1,4}[א-ת]{0,3})(" + _SUBSECTIONS + ")")
_SECTION_RE = re.compile(
    _WORD_START + r"(?P<kind>סעיפים|סעיף|סע'|תקנות|תקנה|ס')\s*"
    r"(?P<num>\d{1,4}[א-ת]{0,3})(?P<sub>" + _SUBSECTIONS + ")"
    r"(?P<more>(?:" + _AND_SECTION + r"\d{1,4}[א-ת]{0,3}" + _SUBSECTIONS + r")*)"
    r"(?=(?P<tail>\s+ל[א-ת\"][^\n.;]{0,80})|)"  # a lookahead: the next citation may be in it
)


@dataclass(frozen=True)
class Citation:
    text: str  # exactly as it appears in the source text
    kind: str  # ruling | reporter | statute | plan
    ref: str  # the normalized key shared by spelling variants
    start: int
    end: int
    court: str | None = None  # the proceeding's canonical abbreviation (עע"מ)
    case_number: str | None = None  # number/year of a ruling
    law: str | None = None  # None: a bare `סעיף N` in a query (any law; the ref assumes the PBL)
    schedule: str | None = None  # e.g. התוספת השלישית
    section: str | None = None  # e.g. 152 (without subsections)
    subsections: str = ""  # e.g. (א)(2)
    district: str | None = None  # a ruling's district, folded (`ת"א` -> תל אביב)
    reporter: str | None = None  # its reporter citation (`פ"ד מד(1) 565`), when written
    parties: str | None = None  # a ruling's parties as written after its number (`כהן נ' ...`)

    @property
    def identity(self) -> CaseId | None:
        """A ruling's whole identity (proceeding, district, number/year); None otherwise."""
        return case_id(self.ref) if self.kind == "ruling" else None


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
        if not match:
            continue
        groups = match.groupdict()
        if groups.get("ordinal") is not None:
            ordinal = groups["ordinal"]
            name = _ORDINALS.get(ordinal.removeprefix("ה"), None) or _ORDINALS.get(ordinal)
            if name is None:
                continue
            return law, f"התוספת {name}", lead + match.end()
        if law is None:
            named = _law_name(match.group("law"))
            if named is None:
                continue
            name = re.sub(r"^חוק-יסוד", "חוק יסוד", named[0])
            return name, None, lead + match.start("law") + named[1]
        return law, None, lead + match.end()
    return None, None, 0


def _law_name(written: str) -> tuple[str, int] | None:
    """The law's name as written up to its last word of a name (a word like `הנ"ל` ends it),
    and how many characters of `written` it takes."""
    words = list(re.finditer(r"\S+", written))
    for at, word in enumerate(words[1:], start=1):
        if word.group().rstrip(",") in _NOT_A_NAME:
            words = words[:at]
            break
    if len(words) < 2:
        return None
    end = words[-1].end()
    return " ".join(written[:end].split()), end


def statute_ref(
    law: str, section: str, subsections: str = "", schedule: str | None = None, kind: str = "סעיף"
) -> str:
    label = "תקנה" if law == DEVIATION_REGS or kind.startswith("תקנ") else "סעיף"
    parts = [law] + ([schedule] if schedule else [])
    return ", ".join([*parts, f"{label} {section}{subsections}"])


def reporter_ref(match: re.Match) -> str:
    """A reporter citation's key: `פ"ד מד(1) 565` (פד"י is פ"ד; the volume without quotes)."""
    groups = match.groupdict()
    part = f"({groups['part']})" if groups.get("part") else ""
    if "volume" in groups:
        series = 'פ"ד' if groups["series"] == 'פד"י' else groups["series"]
        return f"{series} {groups['volume'].replace(chr(34), '')}{part} {groups['page']}"
    return f"{groups['series']} {groups['year']}{part} {groups['page']}"


def _undot(text: str) -> str:
    """`ת.א. 1234/05` read as `ת"א  1234/05` (same length: spans still index the original)."""

    def acronym(m: re.Match) -> str:
        letters = m.group(1).replace(".", "")
        return (letters[:-1] + '"' + letters[-1]).ljust(len(m.group(1)))

    return _DOTTED_RE.sub(acronym, text)


def _reporter_after(norm: str, at: int) -> re.Match | None:
    """A reporter citation right after a ruling's case number or parties (`, פ"ד מד(1) 565`)."""
    lead = re.compile(r"\s*,?\s*").match(norm, at)
    start = lead.end() if lead else at
    return _PD_RE.match(norm, start) or _TAK_RE.match(norm, start)


def _also(norm: str, at: int) -> re.Match | None:
    """Another case number of the same proceeding at `at` (_ALSO_RE), None when none."""
    for pattern in _ALSO_RE:
        if found := pattern.match(norm, at):
            return found
    return None


def _number(m: re.Match) -> tuple[str, str]:
    """(number, year) of a case number as `_CASE_NUMBER` read it: `1234-05-2019` is 1234/05, 19."""
    number, year = f"{int(m.group('number'))}", m.group("year")
    if m.groupdict().get("month"):
        number, year = f"{number}/{m.group('month')}", year[-2:]
    return number, year


def _rulings(text: str, f: Folded, norm: str) -> list[Citation]:
    found = []
    for m in _RULING_RE.finditer(norm):
        court = COURT_SPELLINGS.get(m.group("court").replace("'", '"'), m.group("court"))
        numbers = [(m.start(), m.end("year"), *_number(m))]
        while also := _also(norm, numbers[-1][1]):
            numbers.append((also.start("number"), also.end("year"), *_number(also)))
        end = numbers[-1][1]
        parties = _PARTIES_RE.match(norm, end)
        if parties:
            end = parties.end()
        reporter = _reporter_after(norm, end)
        if reporter:
            end = reporter.end()
        nevo = _NEVO_RE.match(norm, end)
        if nevo:
            end = nevo.end()
        last = len(numbers) - 1
        for n, (start, stop, number, year) in enumerate(numbers):
            # Each number's span is its own; the last one's runs on through the parties, the
            # reporter and Nevo written after it, which it alone carries.
            stop = end if n == last else stop
            ref = ruling_ref(court, number, year, m.group("district"))
            identity = case_id(ref)
            begin, finish = f.origin(start), f.origin(stop)
            found.append(
                Citation(
                    text=text[begin:finish],
                    kind="ruling",
                    ref=ref,
                    start=begin,
                    end=finish,
                    court=court,
                    case_number=identity.number if identity else f"{number}/{year}",
                    district=identity.district if identity else None,
                    reporter=reporter_ref(reporter) if reporter and n == last else None,
                    parties=_cut(text, f, parties.start(), parties.end()).strip()
                    if parties and n == last
                    else None,
                )
            )
    return found


def _cut(text: str, f: Folded, start: int, end: int) -> str:
    """The original text of the folded text's span [start, end)."""
    return text[f.origin(start) : f.origin(end)]


def _reporters(text: str, f: Folded, norm: str, taken: list[tuple[int, int]]) -> list[Citation]:
    """Reporter citations standing alone (not part of a ruling's citation)."""
    found = []
    for pattern in (_PD_RE, _TAK_RE):
        for m in pattern.finditer(norm):
            start = f.origin(m.start())
            if any(s <= start < e for s, e in taken):
                continue
            end = m.end()
            nevo = _NEVO_RE.match(norm, end)
            end = f.origin(nevo.end() if nevo else end)
            found.append(Citation(text[start:end], "reporter", reporter_ref(m), start, end))
    return found


def _statutes(text: str, f: Folded, norm: str, bare_sections: bool) -> list[Citation]:
    found = []
    for m in _SECTION_RE.finditer(norm):
        law, schedule, used = _target(m.group("tail") or "")
        if law is None and not bare_sections:
            continue
        sections = [(m.start(), m.end("sub"), m.group("num"), m.group("sub"))]
        at = m.end("sub")
        while (more := _MORE_SECTION_RE.match(norm, at)) and more.end() <= m.end("more"):
            sections.append((more.start(1), more.end(2), more[1], more[2]))
            at = more.end()
        for n, (begin, stop, section, written) in enumerate(sections):
            # Each section's span is its own; the last one's runs on through the law's name.
            start = f.origin(begin)
            end = f.origin(m.end("more") + used if n == len(sections) - 1 else stop)
            sub = re.sub(r"\s", "", written)
            found.append(
                Citation(
                    text=text[start:end],
                    kind="statute",
                    ref=statute_ref(law or PBL, section, sub, schedule, m.group("kind")),
                    start=start,
                    end=end,
                    law=law,
                    schedule=schedule,
                    section=section,
                    subsections=sub,
                )
            )
    return found


def _plans(text: str, f: Folded, norm: str) -> list[Citation]:
    found = []
    for m in _PLAN_RE.finditer(norm):
        code = re.sub(r"\s", "", m.group("code") + m.group("rest"))
        code = re.sub(r'^(תמ"[אמ]|תת"ל)/?', r"\1 ", code)  # תמ"א/38 and תמ"א 38: תמ"א 38
        start, end = f.origin(m.start()), f.origin(m.end())
        found.append(Citation(text[start:end], "plan", f"תכנית {code}", start, end))
    return found


def extract(text: str, *, bare_sections: bool = False) -> list[Citation]:
    """Citations in `text`, in order of appearance. Statute references need the law they belong
    to (`לחוק`, `לתוספת השלישית`, `לתקנות …`, `לפקודת העיריות`) unless `bare_sections` (a search
    query). The text is read folded (hebrew.folded: quote marks, niqqud, bidi marks); each
    citation's span and `text` are the original's."""
    f = folded(text)
    norm = _undot(f.text)  # same length as the folded text
    rulings = _rulings(text, f, norm)
    taken = [(c.start, c.end) for c in rulings]
    found = rulings + _reporters(text, f, norm, taken) + _statutes(text, f, norm, bare_sections)
    taken = [(c.start, c.end) for c in found]
    found += [p for p in _plans(text, f, norm) if not any(s <= p.start < e for s, e in taken)]
    return sorted(found, key=lambda c: c.start)


def section_refs(query: str) -> list[Citation]:
    """Statute sections a search query names (`סעיף 152`, `סעיף 14 לתוספת השלישית`)."""
    return [c for c in extract(query, bare_sections=True) if c.kind == "statute"]
