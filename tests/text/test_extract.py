"""Extraction: each supported format, and every bad input rejected with a message that names the
file and says what to do."""

import os

import pytest

import factories
from helpers import shared, write
from legal_ai.errors import UnsupportedFile
from legal_ai.text.extract import check_size, decode_text, extract


def test_pdf_keeps_pages_and_hebrew_logical_order(tmp_path):
    record = factories.records()[1]
    pdf = factories.decision_pdf(tmp_path / "final.pdf", record["final_text"], pages=3)
    result = extract(pdf)
    assert result.source_format == "pdf" and result.issue is None
    assert len(result.page_starts) == 3
    # every word back in logical order, numbers, dates, quotes and citations included
    assert result.text.split() == record["final_text"].split()
    lines = " ".join(result.text.split())  # a PDF wraps long paragraphs
    assert "5. הוועדה המקומית דחתה את הבקשה ביום 9.2.2025. נימוקיה:" in lines
    assert "(עע\"מ 9230/22 אלמונית נ' הוועדה המקומית עמק הדר)." in lines
    assert not set(result.text) & {"\u202a", "\u202b", "\u202c"}
    page2 = result.text[result.page_starts[1] : result.page_starts[2]]
    assert "הדיון בפנינו וסיור במקום" in page2


@pytest.mark.parametrize(
    "line",
    [
        "הקלה של 10% בקו הבניין, לפי סעיף 4(1) לתוספת השלישית ותקנה 2(6)(א) לתקנות.",
        'ערר (מרכז) 1042/23 מיום 5.7.2023, ראו עע"מ 1234/05 וסעיף 152(א)(2) לחוק.',
        "שומה של ₪1,200,000 לפי השמאי המכריע, בהתאם לחוק.",
        "הבקשה הוגשה לפי Planning Act בנוסחו אז, ולא לפי החוק החדש.",
    ],
)
def test_pdf_numbers_citations_and_latin_in_logical_order(tmp_path, line):
    assert extract(factories.hebrew_pdf(tmp_path / "n.pdf", [line])).text == line


@pytest.mark.shared
def test_the_shared_pdf_keeps_pages_and_hebrew_logical_order():
    pdf = shared("synthetic-decisions", "documents", "arar-merkaz-1042-23.final.pdf")
    result = extract(pdf)
    assert result.source_format == "pdf" and result.issue is None
    assert len(result.page_starts) == 7
    assert "1. לפנינו ערר על החלטת ועדת המשנה" in result.text
    assert "מיום 5.7.2023. בהחלטה" in result.text
    assert "\u202b" not in result.text
    page2 = result.text[result.page_starts[1] : result.page_starts[2]]
    assert "בקשה להיתר" in page2


def test_docx_and_windows_1255_text(tmp_path):
    final = factories.records()[0]["final_text"]
    table = [["מועד", "אירוע"], ["3.1.2025", "פרסום הבקשה"]]
    docx = extract(factories.docx(tmp_path / "final.docx", final, table=table))
    legacy = extract(write(tmp_path / "final.txt", final, "windows-1255"))
    assert docx.source_format == "docx" and docx.page_starts is None
    assert docx.text.split() == (final + "\nמועד | אירוע\n3.1.2025 | פרסום הבקשה").split()
    assert "2. נקדים אחרית לראשית: דין הערר להתקבל בחלקו." in docx.text
    assert legacy.text == final and legacy.source_format == "txt"


@pytest.mark.shared
def test_the_shared_docx_and_windows_1255_text():
    docs = shared("synthetic-decisions", "documents")
    docx = extract(docs / "arar-merkaz-1042-23.final.docx")
    legacy = extract(docs / "arar-merkaz-1042-23.final.cp1255.txt")
    assert "נקדים אחרית לראשית" in docx.text
    assert "נקדים אחרית לראשית" in legacy.text
    assert docx.page_starts is None


def test_image_only_pdf_is_reported_as_needing_ocr(tmp_path):
    result = extract(factories.image_only_pdf(tmp_path / "scan.pdf"))
    assert result.text == "" and result.page_starts == [0]
    assert result.issue == "image-only PDF (no text layer); run OCR and upload again"


def test_corrupt_pdf_names_the_file_and_the_fix(tmp_path):
    pdf = factories.truncated_pdf(tmp_path / "truncated-corrupt.pdf")
    with pytest.raises(
        UnsupportedFile, match="truncated-corrupt.pdf: not a readable PDF.*export it again"
    ):
        extract(pdf)


@pytest.mark.shared
def test_the_shared_scanned_and_corrupt_pdfs_are_refused():
    docs = shared("synthetic-decisions", "documents")
    assert "OCR" in extract(docs / "scanned-image-only.pdf").issue
    with pytest.raises(UnsupportedFile, match="truncated-corrupt.pdf: not a readable PDF"):
        extract(docs / "truncated-corrupt.pdf")


def test_empty_file_is_rejected(tmp_path):
    with pytest.raises(UnsupportedFile, match="empty.txt: the file is empty"):
        check_size(write(tmp_path / "empty.txt", ""), 10)


def test_large_file_is_refused_before_reading(tmp_path):
    big = tmp_path / "big.txt"
    with big.open("wb") as handle:  # a sparse 100 MB file: nothing is read to refuse it
        handle.truncate(100 * 2**20)
    with pytest.raises(UnsupportedFile, match="100 MB is over the 50 MB limit"):
        check_size(big, 50 * 2**20)


def test_wrong_encoding_is_rejected(tmp_path):
    path = write(tmp_path / "latin.txt", "Ça coûte très cher, naïve façade " * 20, "latin-1")
    with pytest.raises(UnsupportedFile, match="not UTF-8 and not Hebrew windows-1255"):
        extract(path)
    with pytest.raises(UnsupportedFile):
        decode_text(os.urandom(64) + b"\xff\xfe\x81", path)


def test_windows_1255_is_detected(tmp_path):
    path = write(tmp_path / "old.txt", "החלטה בערר על היתר בנייה", "windows-1255")
    assert extract(path).text == "החלטה בערר על היתר בנייה"


def test_unsupported_type(tmp_path):
    with pytest.raises(UnsupportedFile, match="unsupported file type .pages"):
        extract(write(tmp_path / "x.pages", "x"))


def test_corrupt_docx(tmp_path):
    with pytest.raises(UnsupportedFile, match="not a readable DOCX"):
        extract(write(tmp_path / "x.docx", "not a zip"))
