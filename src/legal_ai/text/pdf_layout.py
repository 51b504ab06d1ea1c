"""A PDF's pages as a word processor set them, back into the document's text: the page furniture
taken out and the paragraphs joined again (text/extract.py `_pdf`, before `join_pages`).

pdftotext gives each page's lines in reading order, with what the word processor repeats on every
page among them, and a hard line break wherever a paragraph wrapped. Over the list of page texts:

- **Furniture** is recognized at each page's edges, its first and last `EDGE_LINES` lines,
  working inward from the edge while the lines are furniture: a line is furniture when the same
  line, numbers aside (`עמוד 2 מתוך 4` and `עמוד 3 מתוך 4` are one line), stands at the same
  place from that edge on at least half the pages and on two at least — the running header, the
  case line, the footer; or when it reads as a page number (`עמוד N מתוך M`, `עמ' N`, `- 3 -`,
  `3 / 7`, a bare number), on a document of two pages or more. A first page whose letterhead
  differs keeps it (it stands on one page only), and inward from it nothing more is taken. A
  one-page document has nothing repeated and loses nothing.
- **Paragraphs**: a line is joined to the next (with a space) when it is full — its length and
  the next line's first word would not have fit the document's full line (`_Measure`) — and the
  next line does not start a numbered paragraph (`12.`, `א.`, `(3)`), is not a page number, and
  does not read as a heading (a short line without a closing mark, or ending in a colon) nor,
  after a sentence's end, as a short line of its own (the signature's `ניתנה היום, ...`). A line
  ending in an opening bracket (`12ב(א)(`: a word broken after it) is joined to the next with no
  space. A blank line is a paragraph break and stays one. The last line of a page and the first
  of the next are judged the same way (`Layout.continued`), so a paragraph broken by a page is one
  paragraph again.

A scan's pages (text/ocr.py) lose their furniture the same way, the repetition compared as OCR
reads it (`near_line`: a misread letter does not make the running header a new line); their
lines are not joined (Tesseract's reading already holds the paragraphs).

Line lengths are counted in characters, not measured in points, and when unsure two lines stay
apart: a paragraph left in two lines changes no word and no block, a heading joined to a
paragraph would be lost to the blocks (docs/ingest.md, PDF page furniture and paragraphs).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from difflib import SequenceMatcher

EDGE_LINES = 4  # at most this many lines at each edge of a page are furniture
FULL_SHARE = 0.86  # a line this share of the full line's length, with the next word, is full
FULL_PERCENTILE = 0.9  # the full line: this percentile of the lengths of the document's lines
MAX_HEADING_CHARS = 60  # a protected heading is at most this long (as text/blocks.py reads them)
# OCR's repetitions (text/ocr.py): lines alike in this share of their characters are one line
NEAR_RATIO = 0.8
NEAR_MIN_CHARS = 12

PAGE_NUMBER = re.compile(
    r"(?:עמוד|עמ['׳]|page)\s*\d{1,4}(?:\s*(?:מתוך|מ-|/|of)\s*\d{1,4})?"
    r"|[-–—]\s*\d{1,4}\s*[-–—]"
    r"|\d{1,4}(?:\s*/\s*\d{1,4})?",
    re.IGNORECASE,
)
# A numbered paragraph or list item starts the line: 12. / 12) / א. / (3) / (ב)
ITEM_START = re.compile(r"(?:\d{1,3}|[א-ת])[.)](?:\s|$)|\((?:\d{1,3}|[א-ת]{1,2})\)\s")
# A line ending in an opening bracket was broken inside a word (a word processor may break
# `12ב(א)(3)` after its last `(`): it continues on the next line with no space.
OPENERS = ("(", "[")
SENTENCE_END = re.compile(r"[.:;?!][\"'”׳״)]*$")
_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class Layout:
    """The pages' bodies, their paragraphs joined; the furniture lines taken from each page;
    and, per page, whether its first line continues the previous page's last paragraph."""

    pages: list[str]
    furniture: list[list[str]]
    continued: list[bool]


def tidy(pages: list[str]) -> Layout:
    """The furniture of `pages` (each page's text, lines in reading order) taken out and their
    paragraphs joined."""
    lines = [page.split("\n") for page in pages]
    bodies, removed = _without_furniture(lines)
    measure = _Measure.of(bodies)
    joined = [_join_lines(body, measure) for body in bodies]
    continued = [False]
    for before, after in zip(bodies, bodies[1:], strict=False):
        last, first = _last_line(before), _first_line(after)
        continued.append(bool(last and first) and measure.joins(last, first))
    return Layout(["\n".join(page) for page in joined], removed, continued)


def _key(line: str) -> str:
    """A line as its repetitions compare: numbers aside, spaces collapsed."""
    return " ".join(_DIGITS.sub("#", line).split())


def same_line(a: str, b: str) -> bool:
    """Two lines' keys are one line repeated: equal (a word processor's pages)."""
    return a == b


def near_line(a: str, b: str) -> bool:
    """Two lines' keys are one line repeated as OCR reads it: equal, or — lines of at least
    `NEAR_MIN_CHARS` — alike in `NEAR_RATIO` of their characters (a letter misread, a speck
    read as a mark)."""
    if a == b:
        return True
    if min(len(a), len(b)) < NEAR_MIN_CHARS:
        return False
    return SequenceMatcher(None, a, b, autojunk=False).ratio() >= NEAR_RATIO


def furniture_depths(
    pages: list[list[str]], same: Callable[[str, str], bool] = same_line
) -> tuple[list[int], list[int]]:
    """How many of each page's non-blank lines, from its top and from its bottom, are
    furniture (`same`: whether two lines' keys are one line repeated)."""
    if len(pages) < 2:
        return [0] * len(pages), [0] * len(pages)
    filled = [[line for line in page if line.strip()] for page in pages]
    top = [[_key(line) for line in lines[:EDGE_LINES]] for lines in filled]
    bottom = [[_key(line) for line in reversed(lines[-EDGE_LINES:])] for lines in filled]
    tops, bottoms = _edges(top, same), _edges(bottom, same)
    bottoms = [min(b, len(lines) - t) for lines, t, b in zip(filled, tops, bottoms, strict=True)]
    return tops, bottoms  # a page of furniture only: its lines counted once


def _without_furniture(pages: list[list[str]]) -> tuple[list[list[str]], list[list[str]]]:
    """Each page's lines without the furniture at its two edges, and the lines taken."""
    if len(pages) < 2:
        return [list(page) for page in pages], [[] for _ in pages]
    filled = [[i for i, line in enumerate(page) if line.strip()] for page in pages]
    tops, bottoms = furniture_depths(pages)
    bodies, removed = [], []
    for page, idx, drop_top, drop_bottom in zip(pages, filled, tops, bottoms, strict=True):
        taken = set(idx[:drop_top]) | set(idx[len(idx) - drop_bottom :])
        bodies.append(_strip_blank([line for i, line in enumerate(page) if i not in taken]))
        removed.append([page[i] for i in sorted(taken)])
    return bodies, removed


def _edges(keys: list[list[str]], same: Callable[[str, str], bool]) -> list[int]:
    """How many lines from one edge of each page are furniture (`keys`: each page's lines from
    that edge, outermost first). A page's run — its lines repeated at the same place on enough
    pages, or page numbers — counts only when enough pages have that same run: a first page
    whose own heading starts like the running header (and then differs) keeps it."""
    needed = max(2, math.ceil(len(keys) / 2))
    runs = []
    for page in keys:
        depth = 0
        for place, key in enumerate(page):
            repeated = sum(len(other) > place and same(other[place], key) for other in keys)
            if repeated < needed and not _page_number(key):
                break
            depth += 1
        runs.append(tuple(page[:depth]))
    depths = []
    for run in runs:
        if run and sum(_same_run(other, run, same) for other in runs) >= needed:
            depths.append(len(run))
        else:  # only the page numbers at the very edge
            depths.append(next((i for i, key in enumerate(run) if not _page_number(key)), len(run)))
    return depths


def _same_run(a: tuple[str, ...], b: tuple[str, ...], same: Callable[[str, str], bool]) -> bool:
    return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))


def _page_number(key: str) -> bool:
    return PAGE_NUMBER.fullmatch(key.replace("#", "1")) is not None


def _strip_blank(lines: list[str]) -> list[str]:
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return lines[start:end]


def _first_line(lines: list[str]) -> str:
    return next((line for line in lines if line.strip()), "")


def _last_line(lines: list[str]) -> str:
    return next((line for line in reversed(lines) if line.strip()), "")


@dataclass(frozen=True)
class _Measure:
    """The document's full line, in characters, and the rule that joins two lines."""

    full: int

    @classmethod
    def of(cls, pages: list[list[str]]) -> _Measure:
        lengths = sorted(len(line.strip()) for page in pages for line in page if line.strip())
        if not lengths:
            return cls(0)
        return cls(lengths[min(len(lengths) - 1, int(FULL_PERCENTILE * len(lengths)))])

    def joins(self, line: str, after: str) -> bool:
        """Whether `after` continues the paragraph that `line` wrapped. When unsure, not: a
        paragraph left in two lines loses nothing, a heading joined to a paragraph is lost to
        the blocks."""
        line, after = line.strip(), after.strip()
        if not line or not after or self.full == 0 or ITEM_START.match(after):
            return False
        if _page_number(_key(line)) or _page_number(_key(after)):
            return False  # a page number (kept on a one-page document) stays a line of its own
        if len(line) + 1 + len(after.split()[0]) < FULL_SHARE * self.full:
            return False  # the next word would have fit: the paragraph ended here
        if len(after) > MAX_HEADING_CHARS or len(after) >= FULL_SHARE * self.full:
            return True  # a full line goes on: no heading, no line of its own
        # A short line: a heading (no closing mark, or a colon), or — after a sentence's end —
        # possibly a line of its own (the signature's "ניתנה היום, ...").
        closed = SENTENCE_END.search(after) and not after.endswith(":")
        return bool(closed) and not SENTENCE_END.search(line)


def _join_lines(lines: list[str], measure: _Measure) -> list[str]:
    """A page's lines with each paragraph's lines joined into one; blank lines kept."""
    out: list[str] = []
    previous = ""  # the last line as the page set it (out[-1] may hold several joined)
    for line in lines:
        line = line.strip()
        if previous.endswith(OPENERS) and line:  # broken after `12ב(א)(`: one word
            out[-1] = f"{out[-1]}{line}"
        elif previous and line and measure.joins(previous, line):
            out[-1] = f"{out[-1]} {line}"
        else:
            out.append(line)
        previous = line
    return out
