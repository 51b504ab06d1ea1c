"""What one file may ask of its reader. A file is small; what it asks for need
not be: a 1.7 KB Word file whose list starts at 440,000,000 asked for 140 million characters.
Each bound is checked while the file is read, before the work it bounds is done, and refused with
one line naming what was asked and the bound (`OverBound`).

The structural bounds (list starts and levels, runs, table cells, notes, objects) are far above
any decision the office writes and are not settings; the characters of a text, a PDF's pages, the
pixels of a page rendered for OCR and the time and memory of one file's reading are
(LEGAL_AI_MAX_TEXT_CHARS, LEGAL_AI_MAX_PAGES, LEGAL_AI_OCR_MAX_PAGE_MEGAPIXELS,
LEGAL_AI_READ_SECONDS, LEGAL_AI_READ_MEMORY_MB; `Limits.of(settings)`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..config import Settings
from ..errors import OverBound

# Word numbers a list's levels 0-8 and lets a level start at 0-32767; a list starting above
# LIST_START is no decision's.
LIST_START = 10_000
LIST_LEVELS = 9


@dataclass(frozen=True)
class Limits:
    """What one file may expand into. The defaults are far above any real decision (a 500-page
    PDF is about 2 MB of text and a few seconds of pdftotext; a DOCX unpacks to a few MB at
    ratios under 20, with a few thousand runs, a few hundred table cells and notes) and far
    below what would exhaust the machine."""

    pdf_seconds: float = 120.0  # pdftotext's wall-clock time
    text_bytes: int = 64 * 2**20  # pdftotext's output: word boxes, ~20 bytes a character
    pdf_memory_bytes: int = 2 * 2**30  # pdftotext's address space (RLIMIT_AS)
    office_seconds: float = 90.0  # LibreOffice's conversion of a .doc/.rtf/.odt, wall clock
    docx_bytes: int = 256 * 2**20  # a DOCX's members, uncompressed, as its zip directory declares
    docx_ratio: int = 200  # uncompressed/compressed of any member over 1 MB
    docx_members: int = 5000
    list_start: int = LIST_START  # a list level's start (w:start, w:startOverride)
    list_levels: int = LIST_LEVELS  # list levels 0 .. list_levels - 1 (w:ilvl)
    runs: int = 1_000_000  # runs of text (w:r) in the body and notes
    table_cells: int = 200_000  # table cells (w:tc), nested tables included
    notes: int = 10_000  # note references (each one reads its note)
    objects: int = 10_000  # drawings, pictures and embedded objects
    pages: int = 5_000  # a PDF's pages (its text, or its scan for OCR)
    page_pixels: int = 150_000_000  # one page rendered for OCR
    characters: int = 20_000_000  # the text after extraction
    read_seconds: float = 180.0  # one file's reading, wall clock (its child process)
    read_memory_bytes: int = 2 * 2**30  # one file's reading, address space (its child process)
    # Where the readers' fork server keeps its socket (LEGAL_AI_HOME/run); None: the system's
    # temporary folder, which a process killed with -9 would leave it in (text/isolated.py).
    run_dir: str | None = None

    @classmethod
    def of(cls, settings: Settings) -> Limits:
        seconds = settings.read_seconds
        return replace(
            cls(),
            characters=settings.max_text_chars,
            pages=settings.max_pages,
            page_pixels=int(settings.ocr_max_page_megapixels * 1_000_000),
            read_seconds=seconds,
            pdf_seconds=min(cls.pdf_seconds, seconds),
            # killed by its own deadline before the reading's child is, so nothing outlives it
            office_seconds=min(cls.office_seconds, seconds * 0.8),
            read_memory_bytes=settings.read_memory_mb * 2**20,
            run_dir=str(settings.home / "run"),
        )


LIMITS = Limits()


def refuse(what: str, bound: int, fix: str) -> OverBound:
    """The one-line refusal: what the file asks for more of than its bound, what to do (code
    `file.too_many_pages` for characters and pages, else `file.over_bound`)."""
    code = "file.too_many_pages" if what in ("characters", "pages") else None
    return OverBound(f"the file asks for more than {bound:,} {what}; {fix}", what, code=code)


class Budget:
    """Counts what a reading spends and refuses the first count past its bound."""

    FIX = {
        "runs of text": "the document is not one we can read; save it again from Word",
        "table cells": "split the table or the document",
        "note references": "the document is not one we can read; save it again from Word",
        "objects": "remove the drawings and pictures, or split the document",
        "characters": "split the document (LEGAL_AI_MAX_TEXT_CHARS)",
    }

    def __init__(self, limits: Limits) -> None:
        self.bounds = {
            "runs of text": limits.runs,
            "table cells": limits.table_cells,
            "note references": limits.notes,
            "objects": limits.objects,
            "characters": limits.characters,
        }
        self.spent = dict.fromkeys(self.bounds, 0)

    def spend(self, what: str, n: int = 1) -> None:
        self.spent[what] += n
        if self.spent[what] > self.bounds[what]:
            raise refuse(what, self.bounds[what], self.FIX[what])


def check_characters(text: str, limits: Limits) -> None:
    if len(text) > limits.characters:
        raise refuse("characters", limits.characters, Budget.FIX["characters"])


def check_pages(pages: int, limits: Limits) -> None:
    if pages > limits.pages:
        raise refuse(
            "pages", limits.pages, f"it has {pages:,}: split the file (LEGAL_AI_MAX_PAGES)"
        )
