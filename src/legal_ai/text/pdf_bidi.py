"""A PDF line in visual order put back in logical order, by the Unicode bidirectional algorithm.

A PDF stores glyphs where they stand on the page; most producers that set Hebrew — word
processors, report generators, fpdf2's shaping engine — write them in visual order, left to
right, and pdftotext's plain text splits numbers from their dots and mirrors the brackets beside
them (`1.` reads `.1`, `112(א)(6)` reads `(112א)( )6`). text/pdf_words.py rebuilds each line's
visual order from pdftotext's word boxes; python-bidi's implementation of the algorithm (UAX #9,
mirrored brackets restored) gives its logical order here.
"""

from __future__ import annotations

from bidi import get_display


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
