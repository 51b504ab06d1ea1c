"""A ruling's pinpoint as a draft writes it right after the citation — `פס' 14`, `פסקה 14`,
`בפסקה 14`, `פסקאות 3–5`, `עמ' 4` — against the ruling the library holds (the citation check's
`pinpoint_not_found` and `lookup_failed`, learning/checks/citation_check.py).

- A paragraph is one of the ruling's numbered paragraphs (text/passages.paragraph_marks: `12.`
  opening a line). A ruling whose text has no numbered paragraphs cannot be checked:
  `lookup_failed`, with why.
- A page is a page of the stored file (its `page_starts`, a PDF's pages); the library keeps no
  reporter's pagination, so a copy without pages cannot be checked: `lookup_failed`, nor can a
  page written after the ruling's reporter (`פ"ד נח(3) 123, בעמ' 130`: the volume's page).
- `פסקאות 12 ו-14` is paragraphs 12 and 14; `פסקה 12א` is paragraph 12; `פיסקה` and `פסקא`
  are spellings of `פסקה`.
- A pinpoint that is not a number (`פס' א'`) is malformed: `lookup_failed`, with why.
- A quotation attributed to the citation that the ruling holds, but in another paragraph (or
  page) than the pinpoint: `pinpoint_not_found`, saying which paragraph holds it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ...text.hebrew import fold_quotes
from ...text.passages import paragraph_marks
from .citation_states import LookupFailed, PinpointNotFound, Problem

MAX_RANGE = 200  # a range `פסקאות 3–900` is checked at its two ends beyond this many
_PIN = re.compile(
    r"\s*[,;(]?\s*(?:ו?ב)?"
    r"(?P<word>פיסקאות|פסקאות|פיסקה|פסקה|פסקא|פס['\"]|עמודים|עמוד|עמ['\"])\s*"
    r"(?P<value>[^\s,;:.)\]\"–\-]+(?:\s*[–\-]\s*[^\s,;:.)\]\"]+)?)"
    r"(?P<more>(?:\s*(?:,|ו-?)\s*\d{1,3}[א-ת]?(?!\d|[/.]\d))*)"  # not a year (`, 2006`)
)
# A paragraph's number, with the letter of a sub-paragraph (`12א`: paragraph 12), or a range.
_NUMBER = re.compile(r"^(\d{1,4})[א-ת]?(?:\s*[–\-]\s*(\d{1,4})[א-ת]?)?$")
_PLURAL = ("פסקאות", "פיסקאות", "עמודים")  # only these list more numbers (`פסקאות 12 ו-14`)
PIN_REACH = 12  # characters between a citation's end and its pinpoint's word (`, ` `(` ...)


@dataclass(frozen=True)
class Pinpoint:
    written: str  # as the draft writes it (`פס' 14`)
    unit: str  # paragraph | page
    first: int | None  # None: malformed
    last: int | None
    end: int  # where it ends in the draft
    also: tuple[int, ...] = ()  # more numbers listed (`פסקאות 12 ו-14`: 14)
    reporter: bool = (
        False  # a page of the reporter cited with the ruling (`פ"ד נח(3) 123, בעמ' 130`)
    )


def pinpoint_after(text: str, end: int, *, reporter: bool = False) -> Pinpoint | None:
    """The pinpoint written right after a citation ending at `end`, None when there is none.
    `reporter`: the citation names the ruling's reporter, so a page is the reporter's."""
    folded = fold_quotes(text[end : end + PIN_REACH + 60])
    found = _PIN.match(folded)
    if found is None or found.start("word") > PIN_REACH:
        return None
    word = found.group("word")
    unit = "page" if word.startswith("עמ") else "paragraph"
    listed = word in _PLURAL and found.group("more")
    stop = found.end("more") if listed else found.end("value")
    written = folded[found.start("word") : stop]
    number = _NUMBER.match(found.group("value").strip())
    if number is None:
        return Pinpoint(written, unit, None, None, end + stop, reporter=reporter)
    first = int(number.group(1))
    last = int(number.group(2)) if number.group(2) else first
    also = tuple(int(n) for n in re.findall(r"\d{1,3}", found.group("more"))) if listed else ()
    return Pinpoint(written, unit, min(first, last), max(first, last), end + stop, also, reporter)


def paragraph_spans(content: str) -> dict[int, tuple[int, int]]:
    """The ruling's numbered paragraphs: {number: (start, end)} (a number repeated — a second
    list — keeps its first place)."""
    marks = paragraph_marks(content)
    out: dict[int, tuple[int, int]] = {}
    for n, (at, number) in enumerate(marks):
        stop = marks[n + 1][0] if n + 1 < len(marks) else len(content)
        out.setdefault(int(number), (at, stop))
    return out


def page_spans(content: str, page_starts: list[int] | None) -> dict[int, tuple[int, int]]:
    """The stored file's pages: {page: (start, end)}; empty when the library kept no pages."""
    starts = list(page_starts or [])
    return {
        n + 1: (at, starts[n + 1] if n + 1 < len(starts) else len(content))
        for n, at in enumerate(starts)
    }


def _where(
    spans: dict[int, tuple[int, int]], content: str, quotes: list[str], quote_in
) -> list[list[int]]:
    """The units (paragraphs or pages) holding each quotation, for the quotations held."""
    out = []
    for quote in quotes:
        units = [n for n, (a, b) in spans.items() if quote_in(quote, content[a:b])]
        if units:
            out.append(units)
    return out


def check(pin: Pinpoint, row: dict, quotes: list[str], quote_in) -> Problem | None:
    """The pinpoint's problem (pinpoint_not_found / lookup_failed), None when it holds."""

    def failed(why: str) -> LookupFailed:
        return {"kind": "lookup_failed", "pinpoint": pin.written, "unit": pin.unit, "why": why}

    if pin.first is None or pin.last is None:  # both None together (`pinpoint_after`)
        return failed("the pinpoint is not a number")
    if pin.unit == "page" and pin.reporter:
        return failed("the page is the reporter's (the library keeps no reporter's pagination)")
    if pin.unit == "paragraph":
        spans = paragraph_spans(row["content"])
        if not spans:
            return failed("the ruling's text has no numbered paragraphs")
    else:
        spans = page_spans(row["content"], row.get("page_starts"))
        if not spans:
            return failed("the library's copy has no pages (no reporter's pagination is kept)")
    wanted: Sequence[int] = range(pin.first, pin.last + 1)
    if len(wanted) > MAX_RANGE:
        wanted = [pin.first, pin.last]
    if pin.also:
        wanted = sorted({*wanted, *pin.also})
    held = f"{min(spans)}–{max(spans)}" if len(spans) > 1 else str(min(spans))
    missing = [n for n in wanted if n not in spans]
    if missing:
        problem: PinpointNotFound = {
            "kind": "pinpoint_not_found",
            "pinpoint": pin.written,
            "unit": pin.unit,
            "missing": missing,
            "held": held,
        }
        located = _where(spans, row["content"], quotes, quote_in)
        if located:
            problem["quote_in"] = located[0]
        return problem
    for units in _where(spans, row["content"], quotes, quote_in):
        if not set(units) & set(wanted):
            return {
                "kind": "pinpoint_not_found",
                "pinpoint": pin.written,
                "unit": pin.unit,
                "quote_in": units,
                "held": held,
            }
    return None
