"""The ingest side of scanned documents (ingest/ocr_jobs.py runs their OCR queue): an item read
from a PDF without a text layer waits for OCR, then takes the text OCR read from its scan, with
the confidences in its metadata — `ocr_engine`, `ocr_confidence` (the file's mean word
confidence), `ocr_page_confidence` (per page, null for a page with no word),
`ocr_low_confidence_pages` (pages below LEGAL_AI_OCR_MIN_CONFIDENCE, unread, or scanned below
text/ocr.MIN_SCAN_PPI), `ocr_low_confidence_reasons` (why, per such page) and
`ocr_low_confidence_numbers` (the numbers read with low confidence, their spans), which
`legal-ai health`, `legal-ai ocr list` and `legal-ai item history` show; and
`ocr_case_number_mismatch` when the scan's first page names case numbers of which none is the
one the item is filed under (`header_mismatch`: a case number OCR misread, `8115/23` read
`115/23`, or a scan filed under the wrong case), said in `legal-ai ocr run`'s report too."""

from __future__ import annotations

import dataclasses
import hashlib
import re
from pathlib import Path
from typing import TYPE_CHECKING

from ..store import ocr as ocr_store
from ..text import extract, ocr
from ..text.case_numbers import case_id
from .sources import IngestItem

if TYPE_CHECKING:
    from ..config import Settings

WAITING = (
    "image-only PDF (no text layer): queued for OCR; `legal-ai worker` or `legal-ai ocr run` "
    "reads it"
)
METADATA: tuple[str, ...] = (
    "ocr_engine",
    "ocr_confidence",
    "ocr_page_confidence",
    "ocr_low_confidence_pages",
)
METADATA += ("ocr_low_confidence_reasons",)  # [{"page", "reason"}] for those pages
METADATA += ("ocr_low_confidence_numbers",)  # numbers read with low confidence, their spans
METADATA += ("ocr_case_number_mismatch",)  # {"filed", "read"}: the header names another case
# number/year as a case number is written (1042/23, 8115/2023), not a date (1.8.2020)
_CASE_NUMBER = re.compile(r"(?<![\d/.])\d{1,6}/\d{2,4}(?![\d/.])")


def low_confidence_reasons(pages: list[dict], floor: float) -> list[dict]:
    """[{"page", "reason"}] for each page of a kept reading that is low-confidence."""
    reasons = [(p["page"], ocr.doubtful(p, floor)) for p in pages]
    return [{"page": page, "reason": reason} for page, reason in reasons if reason]


def scanned(conn, item: IngestItem, settings: Settings) -> tuple[IngestItem, bytes | None]:
    """An item read from a PDF without a text layer, as ingest stores it: with its scan's OCR
    text when the scan has been read; else waiting for OCR, with the file's bytes when the scan
    is not yet kept (the caller queues it). Any other item is returned as it is."""
    if item.issue != extract.IMAGE_ONLY or item.source_format != "pdf" or not item.file_sha256:
        return item, None
    scan = ocr_store.get_scan(conn, item.file_sha256)
    if scan is not None and scan["read_at"] is not None:
        return with_reading(item, scan, settings), None
    waiting = dataclasses.replace(item, issue=WAITING)
    if scan is not None:
        return waiting, None  # kept and queued already
    try:
        data = Path(item.file_path or item.source_path).read_bytes()
    except OSError:
        return item, None  # the file is gone: it stays as read, saying what to do
    if hashlib.sha256(data).hexdigest() != item.file_sha256:
        return item, None  # the file changed since it was read
    return waiting, data


def header_mismatch(case_number: str | None, text: str, starts: list[int]) -> dict | None:
    """{"filed", "read"} when the first page of a scan's `text` names case numbers (number/year)
    of which none is `case_number`'s (the case the item is filed under); None when they agree,
    when the page names none, or the item has no case number."""
    filed = case_id(case_number)
    if filed is None:
        return None
    first = text[: starts[1]] if len(starts) > 1 else text
    read = list(dict.fromkeys(_CASE_NUMBER.findall(first)))
    if not read or filed.number in read:
        return None
    return {"filed": case_number, "read": read}


def with_reading(item: IngestItem, scan: dict, settings: Settings) -> IngestItem:
    """The item with the text OCR read from its scan, page offsets and confidences."""
    pages = scan["page_confidence"] or []
    reasons = low_confidence_reasons(pages, settings.ocr_min_confidence)
    read = [p for p in pages if p["confidence"] is not None]
    words = sum(p["words"] for p in read)
    mean = round(sum(p["confidence"] * p["words"] for p in read) / words, 1) if words else None
    metadata = {k: v for k, v in item.metadata.items() if k not in METADATA}
    metadata.update(
        ocr_engine=scan["engine"],
        ocr_confidence=mean,
        ocr_page_confidence=[p["confidence"] for p in pages],
        ocr_low_confidence_pages=[r["page"] for r in reasons],
        ocr_low_confidence_reasons=reasons,
        ocr_low_confidence_numbers=[
            {**n, "page": p["page"], "start": start + n["start"], "end": start + n["end"]}
            for p, start in zip(pages, scan["page_starts"] or [], strict=False)
            for n in p.get("low_confidence_numbers", [])
        ],
    )
    mismatch = header_mismatch(
        item.fields.get("case_number"), scan["content"] or "", scan["page_starts"] or []
    )
    if mismatch:
        metadata["ocr_case_number_mismatch"] = mismatch
    issue = None
    if not scan["content"].strip():
        issue = (
            f"scanned PDF: OCR ({scan['engine']}) read no text on its {len(pages)} page(s); "
            "check the scan, or upload a PDF with a text layer"
        )
    return dataclasses.replace(
        item, text=scan["content"], page_starts=scan["page_starts"], issue=issue, metadata=metadata
    )
