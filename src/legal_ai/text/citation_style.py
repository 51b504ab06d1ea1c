"""Citations as the Uniform Citation Rules write them (כללי האזכור האחיד, 3rd ed. 2021), ready to
paste into a decision — the one formatter of every citation the desk shows or copies, the search
hits and the writer's tools give:

- a ruling: `עע"מ 1234/05 פלוני נ' הוועדה המקומית, פס' 12 (נבו 12.8.2007)` — the case number
  once, the parties, the pinpoint, and the database it is published in with its date (the
  library's rulings are taken as published in Nevo, the rules' form for a ruling in a database);
- a committee decision (an appeals committee's, ours or another's): `ערר (מרכז) 1042/23 כהן נ'
  הוועדה המקומית ..., פס' 4 (החלטה מיום 3.4.2024)`;
- a section of a law with its law: `סעיף 197 לחוק התכנון והבניה, התשכ"ה-1965` (`תקנה 2
  לתקנות ...` for regulations) — the law's name as the library holds it, its year with the
  definite article and a hyphen (`התשכ"ה-1965`), never a paragraph or the law's date;
- a case document: its case number (and parties), the pinpoint.

The parts: the case number as the library keeps it (text/case_numbers' spelling). The parties:
the title's words after the case number; a title without the case number counts as the parties
only when it names them (`נ'` or `נגד` between them) — a descriptive title ("הקלה בקו בניין")
is not the parties' names; else the party lines of the decision's header (`העוררים: ...`,
text/parties.py). A closing remark in parentheses (`(בדוי)`) is not part of the names. The
pinpoint: the paragraph (`פס' 12`, a range `פס' 3–5`), else the page (`עמ' 4`). The date:
d.m.yyyy. Every part is optional: a missing one is left out with its punctuation (no `, ,`, no
empty parentheses). Quote marks folded to ASCII geresh/gershayim, niqqud dropped. An item
without a case number (a reference) is cited by its title."""

from __future__ import annotations

import datetime as dt
import functools
import re

from .case_numbers import case_id, normalize_case_number
from .hebrew import clean_text, fold_quotes
from .parties import party_line

RULING, DECISION, LEGISLATION, DOCUMENT = "ruling", "decision", "legislation", "document"
KINDS = (RULING, DECISION, LEGISLATION, DOCUMENT)
DATABASE = "נבו"  # where the library's rulings are published (the rules: `(נבו 12.8.2007)`)
HEADER_CHARS = 3000  # how much of a decision's text its header's party lines are looked for in

_PARTIES_WORD = re.compile(r"(?:^|\s)(?:נ['׳]|נגד)(?:\s|$)")
_TRAILING_REMARK = re.compile(r"\s*\([^()]*\)\s*$")
_LEADING_JOINERS = re.compile(r"^[\s,:;\-–—]+")
_NIQQUD = re.compile("[\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7]")
# A law's year at the end of its name: `, תשכ"ה–1965` / `, התשכ"ה-1965` / `תשכ"ה 1965`.
_LAW_YEAR = re.compile(r'[,\s]*ה?(?P<he>ת[א-ת]{0,3}"[א-ת])\s*[-–—־]?\s*(?P<year>\d{4})\s*$')
# A statute's item title (text/akn.py): `LAW, סעיף 197 – heading`.
_SECTION_TITLE = re.compile(
    r"^(?P<law>(?:חוק|תקנות|פקודת|צו)\s.+?),\s*(?:סעיף|תקנה)\s+(?P<num>[^\s,–—-]+)"
)
# Appeals committees' proceedings (a decision, not a court's ruling).
_COMMITTEE = frozenset({"ערר", "עררים", "ערר היטל השבחה", "ערר פיצויים"})


def _plain(text: str | None) -> str:
    """Folded quotes, no niqqud, single spaces."""
    return " ".join(_NIQQUD.sub("", fold_quotes(clean_text(text or ""))).split())


def date_text(value: object) -> str | None:
    """A date as a citation writes it: 1.6.2021 (from a date or an ISO string); None for none."""
    if value is None or value == "":
        return None
    if isinstance(value, dt.datetime | dt.date):
        return f"{value.day}.{value.month}.{value.year}"
    try:
        day = dt.date.fromisoformat(str(value)[:10])
    except ValueError:
        return None
    return f"{day.day}.{day.month}.{day.year}"


def parties(title: str | None, case_number: str | None) -> str | None:
    """The parties' names a title gives beside `case_number` (see the module's rules), or None."""
    text = _plain(title)
    if not text:
        return None
    found = case_id(case_number) if case_number else None
    if found:
        spelled = normalize_case_number(text)
        end = _number_end(spelled, found.number)
        if end is not None:
            text = _LEADING_JOINERS.sub("", spelled[end:])
    elif case_number and text.startswith(case_number):
        text = _LEADING_JOINERS.sub("", text[len(case_number) :])
    text = _TRAILING_REMARK.sub("", text).strip(" ,;:")
    if not text or not _PARTIES_WORD.search(text):
        return None
    return text


def _number_end(text: str, number: str) -> int | None:
    """Where the first `number` in `text` that is no part of a longer number (no digit or `/`
    beside it) ends; None when there is none."""
    at = text.find(number)
    while at >= 0:
        end = at + len(number)
        if not _in_number(text, at - 1) and not _in_number(text, end):
            return end
        at = text.find(number, at + 1)
    return None


def _in_number(text: str, at: int) -> bool:
    return 0 <= at < len(text) and (text[at].isdecimal() or text[at] == "/")


# A search's hits and the desk's pages cite the same items again and again: their parties are
# read once (a pure function of the three texts).
@functools.lru_cache(maxsize=4096)
def cited_parties(
    title: str | None, case_number: str | None, content: str | None = None
) -> str | None:
    """The parties a citation names: its title's (`parties`), else the party lines of its
    text's header (`העוררים: ...`); None when neither names them."""
    named = parties(title, case_number)
    if named is None and content:
        named = party_line(_NIQQUD.sub("", fold_quotes(clean_text(content[:HEADER_CHARS]))))
    return named


def pinpoint(paragraph: str | None = None, page: int | None = None) -> str | None:
    """`פס' 12` (or a range, `פס' 3–5`) when the paragraph is known, else `עמ' 4`, else None."""
    if paragraph:
        return f"פס' {paragraph}"
    if page:
        return f"עמ' {page}"
    return None


def law_name(law_title: str | None) -> str | None:
    """A law's name as the rules write it: `חוק התכנון והבניה, התשכ"ה-1965` (from the
    official `חוק התכנון והבניה, תשכ"ה–1965`: the year with ה and a hyphen)."""
    name = _plain(law_title)
    if not name:
        return None
    year = _LAW_YEAR.search(name)
    if year:
        name = f"{name[: year.start()].rstrip(' ,')}, ה{year['he']}-{year['year']}"
    return name


def statute_citation(law_title: str | None, section: str | None) -> str | None:
    """`סעיף 197 לחוק ...` (`תקנה 2 לתקנות ...`); the law alone without a section; None without
    a law."""
    law = law_name(law_title)
    if law is None:
        return None
    number = _plain(section).removeprefix("סעיף ").removeprefix("תקנה ").removeprefix("point_")
    if not number:
        return law
    unit = "תקנה" if law.startswith("תקנות") else "סעיף"
    return f"{unit} {number} ל{law}"


def kind_of(
    doc_type: str | None = None,
    source_kind: str | None = None,
    corpus: str | None = None,
    case_number: str | None = None,
) -> str:
    """Which form an item is cited in (KINDS): a statute's section, a committee decision (the
    internal corpus, her finals, a `ערר` case number in the library), a case's document, else a
    ruling."""
    if doc_type == "legislation":
        return LEGISLATION
    if corpus == "case":
        return DOCUMENT
    if source_kind == "internal_committee" or corpus in ("internal", "style"):
        return DECISION
    if doc_type == "decision":
        return DECISION
    found = case_id(case_number) if case_number else None
    if found and found.proceeding in _COMMITTEE:
        return DECISION
    return RULING


def israeli_citation(
    *,
    case_number: str | None,
    title: str | None,
    decided_on: object = None,
    paragraph: str | None = None,
    page: int | None = None,
    kind: str | None = None,
    law_title: str | None = None,
    section_num: str | None = None,
    content: str | None = None,
    named: str | None = None,
) -> str:
    """The citation to copy, in the form of its kind (the module's rules; `kind` None: read
    from the case number). `content`: the item's text, whose header names the parties when its
    title does not; `named`: the parties when the caller knows them (`cited_parties`)."""
    kind = kind or kind_of(case_number=case_number)
    if kind == LEGISLATION or law_title or section_num or not case_number:
        statute = _statute(title, law_title, section_num)
        if statute:
            return statute
    number = " ".join(_plain(case_number).split())
    if not number:
        head = _plain(title)
        return _join(head, pinpoint(paragraph, page), date_text(decided_on))
    named = named or cited_parties(title, number, content)
    head = " ".join(p for p in (number, named) if p)
    when = date_text(decided_on)
    if kind == DOCUMENT:
        when = None
    elif when and kind == DECISION:
        when = f"החלטה מיום {when}"
    elif when:
        when = f"{DATABASE} {when}"
    return _join(head, pinpoint(paragraph, page), when)


def _statute(title: str | None, law_title: str | None, section_num: str | None) -> str | None:
    if not law_title:  # the item's title (`LAW, סעיף 197 – ...`) names its law and section
        found = _SECTION_TITLE.match(_plain(title))
        if found is None:
            return None
        law_title, section_num = found["law"], section_num or found["num"]
    return statute_citation(law_title, section_num)


def _join(head: str, point: str | None, when: str | None) -> str:
    """`HEAD, POINT (WHEN)`: each part when there is one, no stray punctuation."""
    text = ", ".join(p for p in (head, point) if p)
    return f"{text} ({when})".strip() if when else text
