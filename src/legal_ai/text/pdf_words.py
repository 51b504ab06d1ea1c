"""A PDF page's lines from pdftotext's word boxes (`pdftotext -bbox-layout`), joined by the
geometry and put in logical order (text/extract.py `_pdf`, before pdf_layout).

pdftotext's plain text breaks a word wherever the producer's text string or the writing
direction changes, and writes a space at that break when the two boxes are not flush.
LibreOffice writes each bidirectional run of a right-to-left paragraph (the digits, the Hebrew,
the neutrals between them) as a string of its own, a fraction of a point apart, so its plain text
reads `1 .` for `1.`, `147 (א)` for `147(א)` and `כ- 2` for `כ-2` (docs/benchmarks.md, one measure
of reading). Here each line is rebuilt from its word boxes as it stands on the page, from the
left edge: two boxes closer than `JOIN_EM` of the line's height are one stretch of text (no
space between them), any wider gap is a space. The line is then in visual order, and
text/pdf_bidi.py's `logical_visual` (the Unicode bidirectional algorithm) gives its logical order.

The page's structure is pdftotext's own: its lines in the order of its flows and blocks, and a
blank line after each flow, as the plain text has them. A line is never joined to the next
(pdftotext's plain text joins a line ending in a hyphen to the next, which took the `- נגד -`
line of a parties' heading into the line after it).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from . import pdf_bidi

# Two word boxes of a line closer than this share of the line's height are one stretch of text.
# A space in a 11-12 pt face is about 3 pt (a quarter of the line's 14 pt height); LibreOffice's
# runs stand 0.0-0.5 pt apart.
JOIN_EM = 0.1

_TAG = re.compile(
    r"<page\b[^>]*>|</flow>|<line\b[^>]*>|</line>"
    r'|<word xMin="([-\d.]+)" yMin="([-\d.]+)" xMax="([-\d.]+)" yMax="([-\d.]+)">([^<]*)</word>'
)


@dataclass(frozen=True)
class Word:
    x_min: float
    x_max: float
    height: float
    text: str


def visual_line(words: list[Word]) -> str:
    """A line's words as they stand on the page from its left edge: boxes closer than `JOIN_EM`
    of the line's height joined, the rest apart by one space."""
    ordered = sorted(words, key=lambda w: (w.x_min, w.x_max))
    parts: list[str] = []
    for before, word in zip([None, *ordered], ordered, strict=False):
        if before is not None:
            gap = word.x_min - before.x_max
            if gap >= JOIN_EM * max(min(before.height, word.height), 1.0):
                parts.append(" ")
        parts.append(word.text)
    return "".join(parts)


def _right_to_left(lines: list[list[Word]]) -> bool:
    """A page whose letters are mostly right-to-left ones (pdftotext's own choice of a page's
    direction): each of its lines is read right to left, a line of digits alone too (`.26`, the
    paragraph number a justified line's word set apart, is `26.`)."""
    rtl = ltr = 0
    for line in lines:
        for word in line:
            for ch in word.text:
                if ch.isalpha():
                    if pdf_bidi.right_to_left(ch):
                        rtl += 1
                    else:
                        ltr += 1
    return rtl > ltr


def pages(bbox: str) -> list[str]:
    """Each page of `pdftotext -bbox-layout`'s output as text: its lines in logical order, a
    blank line after each flow."""
    result: list[list[list[Word] | None]] = []  # per page its lines; None: a flow's end
    words: list[Word] = []
    for match in _TAG.finditer(bbox):
        tag = match.group()
        if tag.startswith("<page"):
            result.append([])
        elif tag.startswith("<word"):
            x_min, y_min, x_max, y_max = (float(match.group(i)) for i in range(1, 5))
            words.append(Word(x_min, x_max, y_max - y_min, html.unescape(match.group(5))))
        elif tag == "</line>":
            if result:
                result[-1].append(words)
            words = []
        elif tag.startswith("<line"):
            words = []
        elif tag == "</flow>" and result:
            result[-1].append(None)
    texts = []
    for page in result:
        base = "R" if _right_to_left([line for line in page if line]) else "L"
        lines = [pdf_bidi.logical_visual(visual_line(line), base) if line else "" for line in page]
        texts.append("\n".join(lines))
    return texts
