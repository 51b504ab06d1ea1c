"""Where a sentence ends in Hebrew legal prose: the one rule every passage shown to the chair is
cut by (the copy check's passages, learning/checks/copy_policy.py).

A sentence ends at `.`, `!` or `?` followed by a space or the end of the text (closing quotes
and brackets right after the mark belong to it: `."`, `).`), and at a line break. Not at:

- a decimal or a date (`2.7`, `1.6.2021`, `1,250.50`): the mark is followed by a digit, not a
  space (a date that ends a sentence, `ביום 3.1.2025.`, ends it);
- the number of a paragraph or a list item: `14.`, `3.1.` or `א.` opening a line, or after a
  sentence's end, a colon or a semicolon (`כדלקמן: 1. ...`); the number opens the sentence
  it numbers;
- an abbreviation written with a period (`עמ.`, `פס.`, `ס.`, `מס.`, `וכו.`, `p.`, `e.g.`) or an
  initial (`י. כהן`, `J. Smith`);
- a reference's number followed by what it refers to (`פס' 14. לפסק הדין`, `סעיף 3. לחוק`);
- an ellipsis (`...`): a quotation's omission, inside its sentence.

`sentence_ends(text)` gives the offsets just past each end; `sentence_spans(text)` the sentences
themselves, whitespace trimmed."""

from __future__ import annotations

import re

_MARKS = ".!?"
_CLOSING = "\"'”’״׳)]"
# Abbreviations written with a period (Hebrew and the Latin of citations), compared lower-case.
ABBREVIATIONS = frozenset(
    {
        "עמ",
        "עמו",
        "פס",
        "ס",
        "סע",
        "סעי",
        "מס",
        "וכו",
        "וכד",
        "כב",
        "פ",
        "p",
        "pp",
        "no",
        "nos",
        "para",
        "paras",
        "cf",
        "v",
        "vs",
        "e.g",
        "i.e",
        "al",
        "inc",
        "ltd",
        "co",
        "dr",
        "mr",
        "mrs",
        "ms",
        "st",
        "art",
        "sec",
        "ch",
        "vol",
        "ed",
        "ibid",
        "id",
    }
)
# A reference word before a number (סעיף 3, פס' 14, עמ' 5) and the words that continue it after
# a period (a typist's `פס' 14. לפסק הדין`): the period is not an end.
_REFERENCE = re.compile(
    r"(?:^|\s)[ובלמה]?(?:סעיף|סעיפים|ס'|סע'|פסקה|פסקאות|פס'|עמוד|עמודים|עמ'|תקנה|תקנות|פרק|"
    r"נספח|מס')\s*$"
)
_CONTINUES = re.compile(
    r"\s+(?:לחוק|לתקנות|לפקודה|לפקודת|לתוספת|לפסק|לפסקי|להחלטה|להחלטת|לעיל|להלן|שם|בעמ'|בפס')"
)
_NUMBER = re.compile(r"\(?\d{1,3}(?:\.\d{1,3})*\)?$")  # 14  3.1  (2)
_LETTER = re.compile(r"[א-ת]$")
_INITIAL = re.compile(r"(?:^|[\s(])[א-תA-Z]$")
_WORD_BEFORE = re.compile(r"[^\s.]+(?:\.[^\s.]+)*$")


def _token_before(text: str, i: int) -> str:
    """The run of non-space characters right before offset `i` (the mark's own word)."""
    start = i
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    return text[start:i]


def _opens_item(text: str, start: int) -> bool:
    """Whether what starts at `start` stands where a paragraph's or an item's number stands:
    at a line's start, or after a sentence's end, a colon or a semicolon."""
    j = start
    while j > 0 and text[j - 1] in " \t":
        j -= 1
    if j == 0 or text[j - 1] == "\n":
        return True
    k = j - 1
    while k > 0 and text[k] in _CLOSING:
        k -= 1
    return text[k] in ":;" + _MARKS


def _is_marker(text: str, i: int) -> bool:
    """A period closing a paragraph's or a list item's number (`14.`, `3.1.`, `א.`)."""
    token = _token_before(text, i)
    if not (_NUMBER.fullmatch(token) or _LETTER.fullmatch(token)):
        return False
    return _opens_item(text, i - len(token))


def _after(text: str, i: int) -> int:
    """The offset past the mark at `i` and the closing quotes and brackets right after it."""
    j = i + 1
    while j < len(text) and text[j] in _CLOSING:
        j += 1
    return j


def _abbreviation(word: str) -> bool:
    """An abbreviation, also after one or two prefix letters (ופס., ובעמ.)."""
    if word in ABBREVIATIONS:
        return True
    for cut in (1, 2):
        rest = word[cut:]
        if len(rest) >= 2 and word[:cut].strip("ובלמהשכ") == "" and rest in ABBREVIATIONS:
            return True
    return False


def ends_at(text: str, i: int) -> bool:
    """Whether the mark `text[i]` (`.`, `!` or `?`) ends a sentence."""
    end = _after(text, i)
    if end < len(text) and not text[end].isspace():
        return False  # 2.7, 1.6.2021, www.gov.il, a mark inside a word
    if text[i] != ".":
        return True
    if (i > 0 and text[i - 1] == ".") or (i + 1 < len(text) and text[i + 1] == "."):
        return False  # an ellipsis
    if _is_marker(text, i):
        return False
    word = _WORD_BEFORE.search(text[max(0, i - 40) : i])
    token = word.group(0) if word else ""
    if _abbreviation(token.lower().lstrip("(")) or _INITIAL.search(text[max(0, i - 2) : i]):
        return False
    if token.isdigit() and _REFERENCE.search(text[max(0, i - len(token) - 12) : i - len(token)]):
        return not _CONTINUES.match(text, end)
    return True


def sentence_ends(text: str, start: int = 0, end: int | None = None) -> list[int]:
    """Offsets just past each sentence's end within text[start:end], ascending: after its mark
    and closing quotes, or at a line break."""
    end = len(text) if end is None else end
    out: list[int] = []
    for i in range(start, end):
        ch = text[i]
        if ch == "\n" or (ch in _MARKS and ends_at(text, i)):
            at = i if ch == "\n" else min(_after(text, i), end)
            if not out or at > out[-1]:
                out.append(at)
    return out


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """The sentences of text[start:end] as (start, end) offsets, whitespace trimmed; a
    paragraph's number stays with the sentence it opens."""
    end = len(text) if end is None else end
    out, cursor = [], start
    for cut in [*sentence_ends(text, start, end), end]:
        a, b = trimmed(text, cursor, cut)
        if b > a:
            out.append((a, b))
        cursor = max(cursor, cut)
    return out


def trimmed(text: str, a: int, b: int) -> tuple[int, int]:
    """The span text[a:b] without the whitespace at its two ends."""
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return a, b
