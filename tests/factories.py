"""Fixtures the project makes itself, so that every feature is tested without ../shared.

- `records()`: the fictional draft/final pairs of tests/fixtures/decisions (the demo's pair
  first), in the shape of ../shared/data/synthetic-decisions/decisions.jsonl.
- `hebrew_pdf()` / `decision_pdf()` / `paged_pdf()`: PDFs with a real text layer, made with fpdf2
  and shaped right-to-left by HarfBuzz, so that poppler reads the Hebrew back in logical order;
  `Furniture` draws a running header (a different one on page 1, as a letterhead) and a page
  footer (`עמוד N מתוך M`) on each page, and `paged_pdf` flows paragraphs across lines and pages.
- `image_only_pdf()` (a "scan" with no text layer), `scanned_pdf()` (a scan of known Hebrew
  text, for OCR), `truncated_pdf()`, `docx()`.
- `tiny_pdf()`, `tiny_docx()`, `akn_xml()`: small files written by hand (bytes), for the readers'
  bad-input and fuzz tests.

Every name, case number and ruling in them is invented; statute section numbers are real.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
DECISIONS = FIXTURES / "decisions" / "decisions.jsonl"

# DejaVu Sans has Hebrew. Debian and Ubuntu ship it in fonts-dejavu-core (scripts/install-system).
FONT_PATHS = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",  # Debian, Ubuntu
    "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",  # Fedora
    "/usr/share/fonts/TTF/DejaVuSans.ttf",  # Arch
)


def records() -> list[dict]:
    """The fictional pairs in decided_on order, each with its `draft_text` and `final_text`."""
    out = []
    for line in DECISIONS.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for side in ("draft", "final"):
            record[f"{side}_text"] = (ROOT / record["files"][side]).read_text(encoding="utf-8")
        out.append(record)
    return out


def slug(case_number: str) -> str:
    """`ערר (מרכז) 7014/25` -> `arar-merkaz-7014-25` (the shared data's file names)."""
    words = {"ערר": "arar", "(מרכז)": "merkaz"}
    return "-".join(words.get(w, w.replace("/", "-")) for w in case_number.split())


def _has_hebrew(path: Path) -> bool:
    from fontTools.ttLib import TTFont  # installed with fpdf2

    with TTFont(str(path), lazy=True) as font:
        return ord("א") in (font.getBestCmap() or {})


@cache
def hebrew_font() -> Path:
    """A TrueType font with Hebrew letters: DejaVu Sans where the system keeps it, else what
    fontconfig offers for Hebrew."""
    found = [Path(p) for p in FONT_PATHS if Path(p).is_file()]
    if not found and shutil.which("fc-match"):
        answer = subprocess.run(
            ["fc-match", "-f", "%{file}", "DejaVu Sans:lang=he"],
            capture_output=True,
            text=True,
            check=False,
        )
        if answer.stdout and Path(answer.stdout).is_file():
            found.append(Path(answer.stdout))
    for path in found:
        if _has_hebrew(path):
            return path
    raise RuntimeError(
        "no TrueType font with Hebrew letters for the test PDFs; run scripts/install-system "
        "(Debian/Ubuntu: apt-get install fonts-dejavu-core)"
    )


@dataclass(frozen=True)
class Furniture:
    """What a word processor repeats on each page: header lines at the top (`first_header`
    instead on page 1, as a letterhead; None: the running header there too) and a footer line at
    the bottom, `{page}` and `{pages}` filled in (`עמוד {page} מתוך {pages}`)."""

    header: tuple[str, ...] = ()
    first_header: tuple[str, ...] | None = None
    footer: str = ""


def _paged_fpdf(furniture: Furniture, pages: int = 0, size: float = 11, page: str = "A4"):
    """An FPDF that draws `furniture` on every page (the pages' count known for the footer)."""
    from fpdf import FPDF

    class Paged(FPDF):
        def header(self):
            lines = furniture.header
            if self.page == 1 and furniture.first_header is not None:
                lines = furniture.first_header
            self.set_font("hebrew", size=size - 2)
            for line in lines:
                self.cell(0, 5, line, align="C", new_x="LMARGIN", new_y="NEXT")
            if lines:
                self.ln(4)
            self.set_font("hebrew", size=size)

        def footer(self):
            if furniture.footer:
                self.set_y(-14)
                self.set_font("hebrew", size=size - 2)
                self.cell(0, 5, furniture.footer.format(page=self.page, pages=pages), align="C")
                self.set_font("hebrew", size=size)

    pdf = Paged(format=page)
    pdf.set_auto_page_break(True, margin=20 if furniture.footer else 15)
    pdf.add_font("hebrew", fname=str(hebrew_font()))
    pdf.set_font("hebrew", size=size)
    pdf.set_text_shaping(use_shaping_engine=True, direction="rtl", script="hebr", language="he")
    return pdf


def hebrew_pdf(path: Path, pages: list[str], furniture: Furniture = Furniture()) -> Path:
    """A PDF with one page per string; each line of a page is a right-aligned right-to-left
    paragraph (blank lines add space), `furniture` drawn on each page. Raises if a page's text
    does not fit on one page."""
    pdf = _paged_fpdf(furniture, len(pages))
    for number, page in enumerate(pages, start=1):
        pdf.add_page()
        for line in page.split("\n"):
            if line.strip():
                pdf.multi_cell(0, 6, line.strip(), align="R", new_x="LMARGIN", new_y="NEXT")
            else:
                pdf.ln(3)
        if pdf.page != number:
            raise ValueError(f"the text of page {number} does not fit on one page")
    pdf.output(str(path))
    return path


def paged_pdf(
    path: Path, text: str, furniture: Furniture = Furniture(), *, size: float = 11, page="A4"
) -> Path:
    """`text` (paragraphs separated by blank lines) set as a word processor sets it: each
    paragraph wrapped into lines (justified, as decisions are), the lines flowing onto the next
    page where the page is full — a paragraph may break across pages — with `furniture` drawn
    on every page (`page`: the paper, A5 for more pages from a short text)."""

    height = round(size * 0.55, 1)  # the line's height in mm: 1.5 lines

    def render(pages: int):
        pdf = _paged_fpdf(furniture, pages, size, page)
        pdf.add_page()
        for paragraph in text.strip().split("\n\n"):
            for line in paragraph.strip().split("\n"):
                pdf.multi_cell(0, height, line.strip(), align="J", new_x="LMARGIN", new_y="NEXT")
            pdf.ln(height / 2)
        return pdf

    counted = render(0)
    counted.output()  # (closes the font file)
    render(counted.page).output(str(path))  # the count known, for the footer's "of M"
    return path


def decision_pdf(path: Path, text: str, pages: int = 3) -> Path:
    """`text` (paragraphs separated by blank lines) spread over `pages` pages of similar length."""
    paragraphs = text.strip().split("\n\n")
    share = sum(len(p) for p in paragraphs) / pages
    groups: list[list[str]] = [[]]
    filled = 0
    for paragraph in paragraphs:
        if filled >= share * len(groups) and len(groups) < pages:
            groups.append([])
        groups[-1].append(paragraph)
        filled += len(paragraph)
    assert len(groups) == pages, f"{len(paragraphs)} paragraphs cannot fill {pages} pages"
    return hebrew_pdf(path, ["\n\n".join(group) for group in groups])


def image_only_pdf(path: Path) -> Path:
    """A scanned page: a picture of lines of "text" and no text layer."""
    from fpdf import FPDF
    from PIL import Image, ImageDraw

    scan = Image.new("L", (620, 880), 245)
    draw = ImageDraw.Draw(scan)
    for row in range(12):
        top = 60 + row * 60
        draw.rectangle((80 + (row % 3) * 40, top, 560, top + 14), fill=40)
    pdf = FPDF(format="A4")
    pdf.add_page()
    pdf.image(scan, x=10, y=10, w=190)
    pdf.output(str(path))
    return path


PAGE_CHARS = 1100  # about two thirds of an A4 page at 11 pt in hebrew_pdf: every page fits


def pages_of(text: str, chars: int = PAGE_CHARS) -> list[str]:
    """A decision's paragraphs (separated by blank lines) packed into pages of at most `chars`
    characters, for hebrew_pdf and scanned_pdf."""
    pages: list[list[str]] = [[]]
    for paragraph in text.strip().split("\n\n"):
        if pages[-1] and sum(len(p) for p in pages[-1]) + len(paragraph) > chars:
            pages.append([])
        pages[-1].append(paragraph)
    return ["\n\n".join(page) for page in pages]


def scanned_pdf(
    path: Path, pages: list[str], *, dpi: int = 150, degrade: tuple[int, ...] = ()
) -> Path:
    """A scan of known Hebrew text: each page of `hebrew_pdf(pages)` (the project's Hebrew font,
    shaped right to left) rendered by poppler into a grey picture at `dpi`, and the pictures
    put one per page into a PDF with no text layer. The pages numbered in `degrade` are blurred,
    as a bad photocopy (their OCR confidence falls); an empty string is a blank page."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="scan-") as tmp:
        text = hebrew_pdf(Path(tmp) / "text.pdf", [p or " " for p in pages])
        return scan_of(path, text, dpi=dpi, degrade=degrade)


def scan_of(path: Path, text: Path, *, dpi: int = 150, degrade: tuple[int, ...] = ()) -> Path:
    """The PDF `text` as a scanner gives it back (`scanned_pdf`): each page a grey picture at
    `dpi`, no text layer; the pages numbered in `degrade` blurred."""
    import tempfile

    from fpdf import FPDF
    from PIL import Image, ImageFilter

    with tempfile.TemporaryDirectory(prefix="scan-") as tmp:
        subprocess.run(
            ["pdftoppm", "-r", str(dpi), "-gray", "-png", str(text), f"{tmp}/p"],
            check=True,
            capture_output=True,
        )
        pictures = sorted(Path(tmp).glob("p-*.png"), key=lambda f: int(f.stem.split("-")[1]))
        pdf = FPDF(format="A4")
        for number, picture in enumerate(pictures, start=1):
            image = Image.open(picture).convert("L")
            if number in degrade:  # a third of the resolution, blurred: a bad photocopy
                small = image.resize((image.width // 3, image.height // 3), Image.BILINEAR)
                image = small.filter(ImageFilter.GaussianBlur(1.0)).resize(image.size)
            pdf.add_page()
            pdf.image(image, x=0, y=0, w=210, h=297)
        pdf.output(str(path))
    return path


def two_column_pdf(path: Path, title: str, right: list[str], left: list[str]) -> Path:
    """One page as a two-column report sets it: `title` across the page, then the paragraphs of
    `right` in the right column and those of `left` in the left one (a right-to-left reader
    reads the right column first)."""
    pdf = _paged_fpdf(Furniture())
    pdf.add_page()
    pdf.multi_cell(0, 8, title, align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    top, gutter = pdf.get_y(), 12
    width = (pdf.epw - gutter) / 2
    for x, paragraphs in ((pdf.l_margin + width + gutter, right), (pdf.l_margin, left)):
        pdf.set_xy(x, top)
        for paragraph in paragraphs:
            pdf.set_x(x)
            pdf.multi_cell(width, 6, paragraph, align="R", new_x="LEFT", new_y="NEXT")
            pdf.ln(3)
    if pdf.page != 1:
        raise ValueError("the columns do not fit on one page")
    pdf.output(str(path))
    return path


def truncated_pdf(path: Path) -> Path:
    """The first half of a one-page Hebrew PDF: the cross-reference table and trailer are gone."""
    whole = hebrew_pdf(path, ["החלטה שהקובץ שלה נקטע באמצע ההעתקה."]).read_bytes()
    path.write_bytes(whole[: len(whole) // 2])
    return path


def docx(path: Path, text: str, table: list[list[str]] | None = None) -> Path:
    """A DOCX with one paragraph per line of `text` and an optional table after them."""
    import docx as python_docx

    document = python_docx.Document()
    for line in text.split("\n"):
        if line.strip():
            document.add_paragraph(line.strip())
    if table:
        grid = document.add_table(rows=len(table), cols=len(table[0]))
        for row, values in zip(grid.rows, table, strict=True):
            for cell, value in zip(row.cells, values, strict=True):
                cell.text = value
    document.save(str(path))
    return path


# Small files written by hand, for the readers' bad-input and fuzz tests
# (test_bad_input.py, reliability/test_fuzz.py).
AKN_NS = "http://docs.oasis-open.org/legaldocml/ns/akn/3.0"
TINY_TEXT = "לפנינו ערר על החלטת הוועדה המקומית לאשר הקלה בקו בניין צדדי במגרש."


def tiny_pdf(text: str = "Hello committee") -> bytes:
    """A one-page PDF with a real text layer (Helvetica, Latin), written by hand: five objects,
    a cross-reference table with their true offsets, and a trailer."""
    content = f"BT /F1 18 Tf 20 80 Td ({text}) Tj ET".encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 144] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def tiny_docx(text: str = TINY_TEXT) -> bytes:
    """A python-docx document, one paragraph a line."""
    import docx

    document = docx.Document()
    for line in text.split("\n"):
        document.add_paragraph(line)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def akn_xml(body: str = "", doctype: str = "") -> bytes:
    """A one-section Akoma Ntoso act (`body` its text), a DOCTYPE before it if given."""
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n{doctype}'
        f'<akomaNtoso xmlns="{AKN_NS}"><act><meta><identification><FRBRWork>'
        '<FRBRuri value="/akn/il/act/2000/1"/><FRBRdate date="2000-01-01"/></FRBRWork>'
        "</identification></meta><body><title>חוק הבדיקה</title>"
        f'<point eId="point_1"><num>1.</num><content><p>{body or "סעיף ראשון."}</p></content>'
        "</point></body></act></akomaNtoso>"
    ).encode()
