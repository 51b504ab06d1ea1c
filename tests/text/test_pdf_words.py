"""A PDF's lines from pdftotext's word boxes (issue 38, text/pdf_words.py): boxes a fraction of
a point apart are one stretch of text, so LibreOffice's export, which writes each bidirectional
run as a string of its own, reads `1.` and `סעיף 147(א)` as its source has them."""

import factories
from legal_ai.text import pdf_words
from legal_ai.text.extract import extract
from office_files import office_pdf


def test_boxes_closer_than_a_fraction_of_the_line_are_one_word():
    # `147(א)` as LibreOffice sets it: `)א(` ends 0.4 pt before `147` starts; a space is ~3.5 pt
    words = [
        pdf_words.Word(415.2, 439.4, 14.3, "קוחל"),
        pdf_words.Word(442.6, 458.5, 14.3, ")א("),
        pdf_words.Word(458.9, 479.9, 14.3, "147"),
        pdf_words.Word(483.6, 507.0, 14.3, "ףיעס"),
        pdf_words.Word(529.0, 532.5, 14.3, "."),
        pdf_words.Word(533.0, 540.0, 14.3, "1"),
    ]
    assert pdf_words.visual_line(words) == "קוחל )א(147 ףיעס .1"
    assert pdf_words.visual_line(list(reversed(words))) == "קוחל )א(147 ףיעס .1"


def test_pages_keep_lines_flows_and_entities():
    bbox = (
        '<doc><page width="1" height="1"><flow><block><line>'
        '<word xMin="10" yMin="0" xMax="20" yMax="14">&quot;ה&quot;כשתה</word>'
        '<word xMin="30" yMin="0" xMax="40" yMax="14">-</word>'
        "</line><line>"
        '<word xMin="10" yMin="20" xMax="20" yMax="34">Page</word>'
        '<word xMin="23" yMin="20" xMax="30" yMax="34">2</word>'
        "</line></block></flow></page>"
        '<page width="1" height="1"><flow><block><line>'
        '<word xMin="10" yMin="0" xMax="20" yMax="14">&amp;</word>'
        "</line></block></flow></page></doc>"
    )
    # the line ending in a dash stays a line of its own (pdftotext's text joins it to the next)
    assert pdf_words.pages(bbox) == ['- התשכ"ה"\nPage 2\n', "&\n"]


def test_libreoffice_export_keeps_numbers_with_their_neutrals(tmp_path):
    text = factories.records()[0]["final_text"]
    result = extract(office_pdf(tmp_path / "final.pdf", text))
    assert result.source_format == "pdf" and result.issue is None
    assert "סעיף 147(א)" in result.text
    lines = [line.split() for line in result.text.split("\n") if line.strip()]
    assert ["1.", "לפנינו"] in [line[:2] for line in lines]
    assert result.text.split() == text.split()  # every word as the source has it
