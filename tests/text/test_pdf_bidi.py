"""PDF lines in visual order put in logical order by the Unicode bidirectional algorithm (issue
38 item 2, text/pdf_bidi.py): section numbers with their subsections, paragraph numbers with
their dots, dates and percentages as written, from a visual-order producer (fpdf2's shaping
engine) and from a word processor's export (LibreOffice)."""

import subprocess

import factories
from legal_ai.text import pdf_bidi, pdf_words
from legal_ai.text.citations import extract as citations
from legal_ai.text.extract import extract
from office_files import office_pdf

LINES = [
    "1. לפי סעיף 112(א)(6) לחוק, הערר נדחה (ראו עמ' 5).",
    "2. בערר 8115/23 מיום 15.11.2023 נקבע כי 10% מהשטח; סעיף 4(1) חל.",
    "ראו עע\"מ 1234/19 פלוני נ' הוועדה המקומית [פורסם בנבו] (1.8.2020).",
]


def test_a_visual_line_is_put_in_logical_order(tmp_path):
    pdf = factories.hebrew_pdf(tmp_path / "visual.pdf", ["\n".join(LINES)])
    raw = subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True)
    page = raw.stdout.decode().split("\f")[0]
    assert "(112" in page and ".1" in page  # pdftotext's plain text: as it stands on the page
    boxes = subprocess.run(
        ["pdftotext", "-bbox-layout", "-enc", "UTF-8", str(pdf), "-"], capture_output=True
    )
    lines = pdf_words.pages(boxes.stdout.decode())[0].split("\n")
    assert [line for line in lines if line.strip()] == LINES
    assert pdf_bidi.logical_visual("שורה בלי מספרים"[::-1]) == "שורה בלי מספרים"


def test_the_visual_order_producer_reads_as_the_text(tmp_path):
    text = "\n".join(LINES)
    got = extract(factories.hebrew_pdf(tmp_path / "visual.pdf", [text])).text
    assert got.split() == text.split()  # (the layout joins full lines: words compared)
    assert [c.ref for c in citations(got)] == [c.ref for c in citations(text)]


def test_the_word_processors_export_keeps_sections_and_citations(tmp_path):
    text = "\n".join(LINES)
    got = extract(office_pdf(tmp_path / "office.pdf", text)).text
    assert "112(א)(6)" in got and "15.11.2023" in got and "4(1)" in got and "10%" in got
    assert [c.ref for c in citations(got)] == [c.ref for c in citations(text)]
