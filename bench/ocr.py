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
- number accuracy (issue 22, item 3): the reference's number tokens (digits with their `/ . , -`
  and attached subsections: 1042/23, 198(ד), 12.3.2015; legal_ai.text.ocr_numbers.NUMBER_RE)
  found in the page read, as multisets; the tokens read that the reference lacks (wrong), those
  of them not marked low-confidence (silently wrong), and the number tokens marked;
- citations: text/citations.extract on the page read against the reference page, same refs;
- seconds per page.

Conditions: scans at 300, 200, 150 and 100 dpi, "blurred" (the 150-dpi scan at a third of its
resolution, blurred: the factories' bad photocopy), and "office" (issue 22: a serif Hebrew font,
Noto Serif Hebrew 12 pt with DejaVu Serif for digits, scanned at 200 dpi with a slight skew,
specks and JPEG compression; needs fonts-noto-core).

    .venv/bin/python bench/ocr.py [--conditions 300,200,150,100,blurred,office]

Needs tesseract-ocr, tesseract-ocr-heb and poppler-utils (make install); no database. Prints one
JSON object.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import factories  # noqa: E402
from legal_ai.config import Settings  # noqa: E402
from legal_ai.text import citations, ocr  # noqa: E402
from legal_ai.text import ocr_numbers as numbers  # noqa: E402

COUNTS = (
    "numbers",
    "numbers_right",
    "numbers_wrong",
    "numbers_silently_wrong",
    "numbers_marked",
    "citations",
    "citations_right",
)
OFFICE_FONT = Path("/usr/share/fonts/truetype/noto/NotoSerifHebrew-Regular.ttf")
OFFICE_DIGITS = Path("/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf")


def number_rows(reference: str, page: ocr.Page) -> dict:
    """A page's numbers and citations against its reference."""
    right, total, wrong = numbers.number_accuracy(reference, page.text)
    marked = {(n["start"], n["end"]) for n in page.low_confidence_numbers}
    unmarked = [
        m.group()
        for m in numbers.NUMBER_RE.finditer(page.text)
        if (m.start(), m.end()) not in marked
    ]
    silently = numbers.number_accuracy(reference, " ".join(unmarked))[2]
    want = Counter(c.ref for c in citations.extract(reference))
    got = Counter(c.ref for c in citations.extract(page.text))
    return {
        "numbers": total,
        "numbers_right": right,
        "numbers_wrong": wrong,
        "numbers_silently_wrong": silently,
        "numbers_marked": len(page.low_confidence_numbers),
        "citations": sum(want.values()),
        "citations_right": sum((want & got).values()),
        "missed": sorted(
            (Counter(numbers.numbers(reference)) - Counter(numbers.numbers(page.text))).elements()
        ),
        "read_wrong": sorted(
            (Counter(numbers.numbers(page.text)) - Counter(numbers.numbers(reference))).elements()
        ),
    }


OFFICE = {  # condition: (dpi, Hebrew face, greatest skew in degrees, JPEG quality, faint copy)
    "office": (200, "serif", 0.6, 55, False),
    "office-300": (300, "serif", 2.0, 70, False),
    "office-sans": (200, "sans", 2.0, 60, False),
    "office-skew": (200, "serif", 2.0, 65, False),
    "fax": (200, "serif", 1.0, 75, True),
}
SANS_FONT = Path("/usr/share/fonts/truetype/noto/NotoSansHebrew-Regular.ttf")
SANS_DIGITS = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


def office_scan(path: Path, pages: list[str], *, seed: int, condition: str = "office") -> Path:
    """A scan as an office makes one (`OFFICE[condition]`): text in a serif or sans Hebrew face
    at a scan resolution, skewed, with specks, JPEG-compressed; a faint copy is a fax's: grey
    ink on a grey page, softened strokes."""
    from fpdf import FPDF
    from PIL import Image, ImageDraw, ImageFilter

    dpi, face, skew, quality, faint = OFFICE[condition]
    font, digits = (OFFICE_FONT, OFFICE_DIGITS) if face == "serif" else (SANS_FONT, SANS_DIGITS)
    rnd = random.Random(seed)
    text = FPDF(format="A4")
    text.set_auto_page_break(True, margin=15)
    text.add_font("face", fname=str(font))
    text.add_font("digits", fname=str(digits))
    text.set_font("face", size=12)
    text.set_fallback_fonts(["digits"])
    text.set_text_shaping(use_shaping_engine=True, direction="rtl", script="hebr", language="he")
    for page in pages:
        text.add_page()
        for line in page.split("\n"):
            if line.strip():
                text.multi_cell(0, 6.5, line.strip(), align="R", new_x="LMARGIN", new_y="NEXT")
            else:
                text.ln(3)
    scan = FPDF(format="A4")
    with tempfile.TemporaryDirectory(prefix="office-") as tmp:
        text.output(f"{tmp}/text.pdf")
        subprocess.run(
            ["pdftoppm", "-r", str(dpi), "-gray", "-png", f"{tmp}/text.pdf", f"{tmp}/p"],
            check=True,
        )
        for picture in sorted(Path(tmp).glob("p-*.png"), key=lambda f: int(f.stem[2:])):
            image = Image.open(picture).convert("L")
            image = image.rotate(rnd.uniform(-skew, skew), resample=Image.BICUBIC, fillcolor=255)
            if faint:  # a fax: softened strokes, grey ink on a grey page
                image = image.filter(ImageFilter.GaussianBlur(0.7)).point(lambda v: 80 + v * 0.6)
            draw = ImageDraw.Draw(image)
            for _ in range(400):
                x, y, r = rnd.randrange(image.width), rnd.randrange(image.height), rnd.randrange(3)
                draw.ellipse((x, y, x + r, y + r), fill=rnd.randrange(120))
            jpeg = io.BytesIO()
            image.save(jpeg, "JPEG", quality=quality)
            scan.add_page()
            scan.image(Image.open(io.BytesIO(jpeg.getvalue())), x=0, y=0, w=210, h=297)
    scan.output(str(path))
    return path


def measure(condition: str, settings: Settings, tmp: Path) -> dict:
    dpi = 150 if condition == "blurred" else OFFICE[condition][0] if condition in OFFICE else 0
    dpi = dpi or int(condition)
    rows = []
    for number, record in enumerate(factories.records()):
        pages = factories.pages_of(record["final_text"])
        degrade = tuple(range(1, len(pages) + 1)) if condition == "blurred" else ()
        path = tmp / f"{condition}-{number}.pdf"
        if condition in OFFICE:
            scan = office_scan(path, pages, seed=number, condition=condition)
        else:
            scan = factories.scanned_pdf(path, pages, dpi=dpi, degrade=degrade)
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
                    **number_rows(reference, page),
                    "case_number_right": page.page != 1
                    or record["case_number"].split()[-1] in page.text,
                    "flagged": page.confidence is None
                    or page.confidence < settings.ocr_min_confidence,
                    "seconds": round(seconds / len(pages), 2),
                }
            )
    accuracy = [r["accuracy"] for r in rows]
    numbers_total = sum(r["numbers"] for r in rows) or 1
    citations_total = sum(r["citations"] for r in rows) or 1
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
        **{k: sum(r[k] for r in rows) for k in COUNTS},
        "case_numbers_right": f"{sum(r['case_number_right'] for r in rows if r['page'] == 1)}"
        f"/{sum(r['page'] == 1 for r in rows)}",
        "number_accuracy": round(sum(r["numbers_right"] for r in rows) / numbers_total, 4),
        "citation_accuracy": round(sum(r["citations_right"] for r in rows) / citations_total, 4),
        "seconds_per_page": round(statistics.fmean(r["seconds"] for r in rows), 2),
        "per_page": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--conditions", default="300,200,150,100,blurred,office")
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
