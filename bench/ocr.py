"""Benchmark (issue 15, item 5): how much of a scanned Hebrew page OCR gets right.

The fictional finals (tests/fixtures/decisions: four decisions, about 1,600-1,900 characters
each) are laid out on A4 pages with the project's Hebrew font (tests/factories.hebrew_pdf,
11 pt, right to left), rendered by poppler into grey pictures at a scan resolution, and put into
PDFs with no text layer (tests/factories.scanned_pdf) — as a committee's scanner would. Each scan
is then read exactly as the worker reads it (legal_ai.text.ocr.read_pdf: pdftoppm at
LEGAL_AI_OCR_DPI, Tesseract with LEGAL_AI_OCR_LANGUAGES, one process per page) and every page is
compared with the text that was drawn on it:

- character accuracy = 1 - CER, the character edit distance (Levenshtein) over the reference's
  length, whitespace runs counted as one space (legal_ai.text.ocr.character_accuracy);
- Tesseract's mean word confidence of the page, and whether it is below
  LEGAL_AI_OCR_MIN_CONFIDENCE (flagged);
- seconds per page.

Conditions: scans at 300, 200, 150 and 100 dpi, and "blurred" (the 150-dpi scan at a third of its
resolution, blurred: the factories' bad photocopy).

    .venv/bin/python bench/ocr.py [--conditions 300,200,150,100,blurred]

Needs tesseract-ocr, tesseract-ocr-heb and poppler-utils (make install); no database. Prints one
JSON object.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import factories  # noqa: E402
from legal_ai.config import Settings  # noqa: E402
from legal_ai.text import ocr  # noqa: E402

PAGE_CHARS = 1100  # about two thirds of an A4 page at 11 pt: every page fits


def pages_of(text: str) -> list[str]:
    """A final's paragraphs packed into pages of at most PAGE_CHARS characters."""
    pages: list[list[str]] = [[]]
    for paragraph in text.strip().split("\n\n"):
        if pages[-1] and sum(len(p) for p in pages[-1]) + len(paragraph) > PAGE_CHARS:
            pages.append([])
        pages[-1].append(paragraph)
    return ["\n\n".join(page) for page in pages]


def measure(condition: str, settings: Settings, tmp: Path) -> dict:
    dpi = 150 if condition == "blurred" else int(condition)
    rows = []
    for number, record in enumerate(factories.records()):
        pages = pages_of(record["final_text"])
        degrade = tuple(range(1, len(pages) + 1)) if condition == "blurred" else ()
        scan = factories.scanned_pdf(
            tmp / f"{condition}-{number}.pdf", pages, dpi=dpi, degrade=degrade
        )
        started = time.perf_counter()
        reading = ocr.read_pdf(scan, settings)
        seconds = time.perf_counter() - started
        assert reading is not None and len(reading.pages) == len(pages)
        for reference, page in zip(pages, reading.pages, strict=True):
            rows.append(
                {
                    "case_number": record["case_number"],
                    "page": page.page,
                    "chars": len(" ".join(reference.split())),
                    "accuracy": round(ocr.character_accuracy(reference, page.text), 4),
                    "confidence": page.confidence,
                    "flagged": page.confidence is None
                    or page.confidence < settings.ocr_min_confidence,
                    "seconds": round(seconds / len(pages), 2),
                }
            )
    accuracy = [r["accuracy"] for r in rows]
    weighted = sum(r["accuracy"] * r["chars"] for r in rows) / sum(r["chars"] for r in rows)
    return {
        "condition": condition,
        "scan_dpi": dpi,
        "pages": len(rows),
        "chars": sum(r["chars"] for r in rows),
        "accuracy_mean": round(statistics.fmean(accuracy), 4),
        "accuracy_by_chars": round(weighted, 4),
        "accuracy_min": min(accuracy),
        "confidence_mean": round(statistics.fmean(r["confidence"] or 0 for r in rows), 1),
        "flagged_pages": sum(r["flagged"] for r in rows),
        "seconds_per_page": round(statistics.fmean(r["seconds"] for r in rows), 2),
        "per_page": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--conditions", default="300,200,150,100,blurred")
    args = parser.parse_args()
    settings = Settings()
    problem = ocr.problem(settings)
    if problem:
        sys.exit(problem)
    with tempfile.TemporaryDirectory(prefix="bench-ocr-") as tmp:
        results = [measure(c, settings, Path(tmp)) for c in args.conditions.split(",")]
    print(
        json.dumps(
            {
                "engine": ocr.engine(settings),
                "ocr_dpi": settings.ocr_dpi,
                "min_confidence": settings.ocr_min_confidence,
                "font": factories.hebrew_font().name,
                "results": results,
            },
            ensure_ascii=False,
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
