"""A ruling cited as Israeli lawyers cite it: the case number once, the parties, the pinpoint
and the decision's date — `עע"מ 9101/20 פלוני נ' הוועדה המקומית, פס' 2 (1.6.2021)`.

- The case number as the library keeps it (text/case_numbers' spelling), written once: a title
  that begins with it (`עע"מ 9101/20 פלוני נ' ...`) gives the parties after it.
- The parties: the title's words after the case number; a title without the case number counts
  as the parties only when it names them (`נ'` or `נגד` between them) — a descriptive title
  ("הקלה בקו בניין") is not the parties' names and is left out. A closing remark in
  parentheses (`(בדוי)`) is not part of the names.
- The pinpoint: the paragraph (`פס' 12`, a range `פס' 3–5`), else the page (`עמ' 4`).
- The date as d.m.yyyy in parentheses.
An item without a case number (a statute's section, a reference) is cited by its title."""

from __future__ import annotations

import datetime as dt
import re

from .case_numbers import case_id, normalize_case_number
from .hebrew import fold_quotes

_PARTIES_WORD = re.compile(r"(?:^|\s)(?:נ['׳]|נגד)(?:\s|$)")
_TRAILING_REMARK = re.compile(r"\s*\([^()]*\)\s*$")
_LEADING_JOINERS = re.compile(r"^[\s,:;\-–—]+")


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
    text = " ".join(fold_quotes(title or "").split())
    if not text:
        return None
    found = case_id(case_number) if case_number else None
    if found:
        at = re.search(
            rf"(?<![\d/]){re.escape(found.number)}(?![\d/])", normalize_case_number(text)
        )
        if at:
            text = normalize_case_number(text)[at.end() :]
            text = _LEADING_JOINERS.sub("", text)
    elif case_number and text.startswith(case_number):
        text = _LEADING_JOINERS.sub("", text[len(case_number) :])
    text = _TRAILING_REMARK.sub("", text).strip()
    if not text or not _PARTIES_WORD.search(text):
        return None
    return text


def pinpoint(paragraph: str | None = None, page: int | None = None) -> str | None:
    """`פס' 12` (or a range, `פס' 3–5`) when the paragraph is known, else `עמ' 4`, else None."""
    if paragraph:
        return f"פס' {paragraph}"
    if page:
        return f"עמ' {page}"
    return None


def israeli_citation(
    *,
    case_number: str | None,
    title: str | None,
    decided_on: object = None,
    paragraph: str | None = None,
    page: int | None = None,
) -> str:
    """The citation to copy: `CASE PARTIES, PINPOINT (D.M.YYYY)`, each part when known. Without
    a case number: the title, the pinpoint and the date."""
    number = " ".join((case_number or "").split())
    if number:
        head = " ".join(p for p in (number, parties(title, number)) if p)
    else:
        head = " ".join(fold_quotes(title or "").split())
    point = pinpoint(paragraph, page)
    text = f"{head}, {point}" if head and point else head or point or ""
    when = date_text(decided_on)
    return f"{text} ({when})" if when else text
