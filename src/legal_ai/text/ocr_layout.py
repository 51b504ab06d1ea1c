"""A scan's page layout, as OCR reads it: two columns read in the order a Hebrew reader reads
them, and the running header and footer taken out of the body like a text PDF's.

- **Columns** (`reading_order`, per page): Tesseract's page segmentation finds the blocks of a
  two-column page but does not promise a right-to-left reader's order, and may read one line
  across both columns. A page has two columns when a vertical gutter runs down its middle half:
  a run of at least `GUTTER_SHARE` of the text's width (and `GUTTER_GAPS` times the page's
  median space between words) that at most `CROSSING_SHARE` of the lines (two at least) have a
  word on. Then each line is split at the gutter's middle, and the page is read in bands: a
  line with a word on that middle (a title, a centred heading) is a band of its own, and within
  a band the right column is read top to bottom before the left one. A page without such a
  gutter keeps Tesseract's order.
- **Furniture** (`furniture` over the pages of a file, then `cut` per page): the lines at each
  page's edges repeated at the same place on at least half the pages, or reading as page
  numbers — the rule of text/pdf_layout.py — compared as OCR reads them
  (`pdf_layout.near_line`: a letter misread on one page does not make the running header body
  text). The numbers read with low confidence keep their spans (moved); those in a line taken
  out go with it.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import replace

from . import pdf_layout
from .ocr_numbers import Word

GUTTER_SHARE = 0.025  # the gutter: at least this share of the text's width ...
GUTTER_GAPS = 2.5  # ... and this many times the median space between two words of a line
CROSSING_SHARE = 0.1  # at most this share of the lines (two at least, a quarter at most) may
# have a word on the gutter: a title and a closing line across the page
MIN_LINES = 6  # a page of fewer lines is read as it came
MIDDLE = (0.25, 0.75)  # the gutter lies within this band of the text's width
SPLIT = 10_000  # added to a line's block number for the part of it left of the gutter
_FILLED_LINE = re.compile(r"(?m)^[^\n]*\S[^\n]*$")


def reading_order(words: list[Word]) -> list[Word]:
    """`words` (Tesseract's order) in a Hebrew reader's order: a two-column page's right column
    before its left one, band by band; any other page as it came."""
    lines = _lines(words)
    gutter = _gutter(words, len(lines))
    if gutter is None:
        return words
    middle = sum(gutter) // 2
    bands: list[tuple[list, list]] = [([], [])]
    for line in sorted(lines.values(), key=lambda ws: min(w.box[1] for w in ws)):
        if any(w.box[0] <= middle < w.box[0] + w.box[2] for w in line):
            bands += [([line], []), ([], [])]  # across the gutter: a band of its own
            continue
        right = [w for w in line if w.box[0] > middle]
        left = [
            replace(w, line=(w.line[0] + SPLIT, *w.line[1:])) for w in line if w.box[0] < middle
        ]
        if right:
            bands[-1][0].append(right)
        if left:
            bands[-1][1].append(left)
    return [w for right, left in bands for line in right + left for w in line]


def _lines(words: list[Word]) -> dict[tuple[int, int, int], list[Word]]:
    lines: dict[tuple[int, int, int], list[Word]] = {}
    for word in words:
        lines.setdefault(word.line, []).append(word)
    return lines


def _gutter(words: list[Word], lines: int) -> tuple[int, int] | None:
    """The gutter's (start, end) in pixels, or None when the page has one column. A line
    crosses it when a word of it stands on its middle (a word beside it, tolerated in the run,
    belongs to its side)."""
    if lines < MIN_LINES or len(words) < 20:
        return None
    left = min(w.box[0] for w in words)
    right = max(w.box[0] + w.box[2] for w in words)
    width = right - left
    cover = [0] * (width + 1)
    for w in words:  # how many words stand on each column of pixels (a line: at most one)
        for x in range(w.box[0] - left, w.box[0] - left + w.box[2]):
            cover[x] += 1
    allowed = min(max(2, int(CROSSING_SHARE * lines)), lines // 4)
    lo, hi = int(MIDDLE[0] * width), int(MIDDLE[1] * width)
    best: tuple[int, int] | None = None
    run = None
    for x in range(lo, hi + 1):
        if cover[x] <= allowed:
            run = x if run is None else run
            if best is None or x - run > best[1] - best[0]:
                best = (run, x)
        else:
            run = None
    if best is None:
        return None
    need = max(GUTTER_SHARE * width, GUTTER_GAPS * _median_space(words))
    if best[1] - best[0] + 1 < need:
        return None
    start, end = best[0] + left, best[1] + left + 1
    # both sides hold text: a page with all its words on one side has no second column
    sides = [sum(w.box[0] >= end for w in words), sum(w.box[0] + w.box[2] <= start for w in words)]
    return (start, end) if min(sides) >= 0.2 * len(words) else None


def _median_space(words: list[Word]) -> float:
    """The median space between two neighbouring words of a line, in pixels."""
    spaces = []
    for line in _lines(words).values():
        boxes = sorted(w.box for w in line)
        spaces += [b[0] - (a[0] + a[2]) for a, b in zip(boxes, boxes[1:], strict=False)]
    spaces = [s for s in spaces if s > 0]
    return statistics.median(spaces) if spaces else 0.0


def furniture(texts: list[str]) -> list[tuple[int, int]]:
    """How many non-blank lines at the top and at the bottom of each page's text are its
    running header and footer (the module's docstring)."""
    tops, bottoms = pdf_layout.furniture_depths(
        [text.split("\n") for text in texts], pdf_layout.near_line
    )
    return list(zip(tops, bottoms, strict=True))


def cut(text: str, low: list[dict], top: int, bottom: int) -> tuple[str, list[dict]]:
    """A page's text without its first `top` and last `bottom` non-blank lines, and its numbers
    read with low confidence (`low`: spans in the text) moved with it, those cut out dropped."""
    if not top and not bottom:
        return text, low
    filled = [(m.start(), m.end()) for m in _FILLED_LINE.finditer(text)]
    body = filled[top : len(filled) - bottom]
    if not body:
        return "", []
    start, end = body[0][0], body[-1][1]
    moved = [
        {**n, "start": n["start"] - start, "end": n["end"] - start}
        for n in low
        if start <= n["start"] and n["end"] <= end
    ]
    return text[start:end], moved
