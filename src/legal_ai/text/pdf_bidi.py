"""pdftotext's right-to-left lines back in logical order, by the Unicode bidirectional algorithm.

A PDF stores glyphs where they stand on the page; most producers that set Hebrew — word
processors, report generators, fpdf2's shaping engine — write them in visual order, left to
right. pdftotext reads a right-to-left line from its right end, wrapped in RLE..PDF, and puts
each left-to-right stretch (a number with the neutrals it took: `.1`, `)1(4`, `(112`) inside
LRE..PDF as it stands on the page. Such a line is *visual*: the numbers are split from their
dots and the brackets beside them mirrored (`1.` reads `.1`, `112(א)(6)` reads `(112א)( )6`
without the marks). Here the line's visual order is rebuilt (its characters from the page's
left edge: the right-to-left characters reversed, each left-to-right stretch kept whole) and
python-bidi's implementation of the algorithm (UAX #9, paragraph direction right to left,
mirrored brackets restored) gives its logical order. A line with no left-to-right stretch is
already logical and stays as it is.
"""

from __future__ import annotations

import re

from bidi import get_display

LRE, RLE, POP = "\u202a", "\u202b", "\u202c"
# A left-to-right stretch (LRE..PDF), or one character of the right-to-left line around it.
_PIECE = re.compile(f"{LRE}([^{LRE}{POP}]*){POP}|([^{POP}])", re.S)


def is_visual(line: str) -> bool:
    """A right-to-left line (RLE first, or Hebrew in a line without RLE) holding a stretch of
    left-to-right material that pdftotext kept in the page's order."""
    if LRE not in line:
        return False
    if line.startswith(RLE):
        return RLE not in line[1:]
    return RLE not in line and any("\u0590" <= ch <= "\u05ff" for ch in line)


def logical_line(line: str) -> str:
    """One line of pdftotext's output in logical order (its bidi marks gone)."""
    if not is_visual(line):
        return line.replace(LRE, "").replace(RLE, "").replace(POP, "")
    pieces = [m.group(1) if m.group(2) is None else m.group(2) for m in _PIECE.finditer(line)]
    visual = "".join(reversed([p for p in pieces if p not in (RLE, LRE)]))
    return get_display(visual, base_dir="R")


def right_to_left(ch: str) -> bool:
    """A Hebrew or Arabic character (their blocks and presentation forms)."""
    return "\u0590" <= ch <= "\u08ff" or "\ufb1d" <= ch <= "\ufefc"


def logical_visual(visual: str, base: str = "R") -> str:
    """A line in visual order (its characters as they stand from the page's left edge, as
    text/pdf_words.py rebuilds one from pdftotext's word boxes) in logical order by the
    bidirectional algorithm, in paragraph direction `base` (R, L). A left-to-right line with no
    right-to-left character is already logical."""
    if base == "L" and not any(right_to_left(ch) for ch in visual):
        return visual
    return get_display(visual, base_dir=base)


def logical_page(raw: str) -> str:
    """A page of pdftotext's output, each line in logical order."""
    return "\n".join(logical_line(line) for line in raw.split("\n"))


def visual_lines(raw: str) -> int:
    """How many lines of a page pdftotext gave in visual order."""
    return sum(is_visual(line) for line in raw.split("\n"))
