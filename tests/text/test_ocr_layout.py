"""A scan's layout as OCR reads it (text/ocr_layout.py): a two-column page read right column
first, the running header and footer out of the body like a text PDF's, the numbers read with
low confidence keeping their spans."""

import os
import shutil

import pytest

import factories
from legal_ai.config import Settings
from legal_ai.text import ocr, ocr_layout
from legal_ai.text.ocr_numbers import Word, join_words

needs_tesseract = pytest.mark.skipif(
    shutil.which("tesseract") is None and os.environ.get("CI") != "true",
    reason="needs tesseract-ocr and tesseract-ocr-heb (make install)",
)


def _line(block: int, line: int, top: int, spans: list[tuple[int, int, str]]) -> list[Word]:
    """A line's words, right to left as Tesseract lists Hebrew: (left, right, text) each."""
    return [Word((block, 1, line), (a, top, b - a, 30), 90.0, t) for a, b, t in spans]


def _column(block: int, x: int, first: int, lines: int, label: str) -> list[Word]:
    words = []
    for n in range(lines):
        spans = [(x + 400 - 90 * k, x + 470 - 90 * k, f"{label}{n}-{k}") for k in range(5)]
        words += _line(block, n, first + 50 * n, spans)
    return words


def test_two_columns_are_read_right_then_left_band_by_band():
    title = _line(0, 0, 20, [(700, 900, "כותרת"), (500, 680, "ראשית")])
    right = _column(2, 1000, 100, 8, "ימין")
    left = _column(1, 100, 100, 8, "שמאל")
    closing = _line(3, 0, 600, [(600, 1400, "סיכום"), (150, 580, "משותף")])
    # Tesseract gave the left column first: the reader's order puts the right one first
    ordered = ocr_layout.reading_order(title + left + right + closing)
    texts = [w.text for w in ordered]
    assert texts[:2] == ["כותרת", "ראשית"]
    assert texts[2:42] == [w.text for w in right]
    assert texts[42:82] == [w.text for w in left]
    assert texts[82:] == ["סיכום", "משותף"]
    text, _ = join_words(ordered)
    paragraphs = text.split("\n\n")
    assert paragraphs[1].startswith("ימין0-0") and paragraphs[2].startswith("שמאל0-0")


def test_one_line_read_across_both_columns_is_split_at_the_gutter():
    merged = []
    for n in range(8):  # Tesseract read each row of both columns as one line
        spans = [(1400 - 90 * k, 1470 - 90 * k, f"ימין{n}-{k}") for k in range(5)]
        spans += [(500 - 90 * k, 570 - 90 * k, f"שמאל{n}-{k}") for k in range(5)]
        merged += _line(1, n, 100 + 50 * n, spans)
    texts = [w.text for w in ocr_layout.reading_order(merged)]
    assert texts[:40] == [f"ימין{n}-{k}" for n in range(8) for k in range(5)]
    assert texts[40:] == [f"שמאל{n}-{k}" for n in range(8) for k in range(5)]


def test_a_page_of_one_column_keeps_tesseracts_order():
    words = []
    for n in range(10):  # justified lines: the spaces fall in different places on each line
        shift = (n * 37) % 60
        spans = [(1400 - 130 * k - shift, 1480 - 130 * k - shift, f"מ{n}-{k}") for k in range(10)]
        words += _line(1, n, 100 + 50 * n, spans)
    assert ocr_layout.reading_order(words) == words


def test_a_running_header_misread_on_one_page_is_still_taken_out():
    header = "ועדת הערר לתכנון ובנייה מחוז מרכז"
    misread = "ועדת הערד לתכנון ובנייה מחוז מרכז"  # ר read as ד
    pages = [
        f"{header}\n\nהעוררים הגישו את הערר ביום 12/3\n\nעמוד 1 מתוך 3",
        f"{misread}\n\nהוועדה המקומית השיבה לטענות\n\nעמוד 2 מתוך 3",
        f"{header}\n\nסוף דבר: הערר נדחה\n\nעמוד 8 מתוך 3",
    ]
    cuts = ocr_layout.furniture(pages)
    assert cuts == [(1, 1), (1, 1), (1, 1)]
    at = pages[0].index("12/3")
    low = [{"text": "12/3", "start": at, "end": at + 4, "confidence": 40.0}]
    low.append({"text": "1", "start": pages[0].rindex("1 מתוך"), "end": 0, "confidence": 30.0})
    low[-1]["end"] = low[-1]["start"] + 1
    text, moved = ocr_layout.cut(pages[0], low, *cuts[0])
    assert text == "העוררים הגישו את הערר ביום 12/3"
    assert moved == [{"text": "12/3", "start": 27, "end": 31, "confidence": 40.0}]
    assert text[27:31] == "12/3"


def test_a_single_page_and_unlike_lines_keep_everything():
    assert ocr_layout.furniture(["כותרת\n\nגוף"]) == [(0, 0)]
    pages = ["פתיחה שונה לגמרי כאן\nגוף א", "משפט אחר לחלוטין בראש\nגוף ב"]
    assert ocr_layout.furniture(pages) == [(0, 0), (0, 0)]
    assert ocr_layout.cut(pages[0], [], 0, 0) == (pages[0], [])


@pytest.mark.slow
@needs_tesseract
def test_a_scanned_decisions_running_header_and_footer_leave_its_text(tmp_path):
    records = factories.records()
    text = "\n\n".join(r["final_text"] for r in records[:3])
    furniture = factories.Furniture(
        header=("עותק ממוחשב של ההחלטה — מזכירות הוועדה",), footer="עמוד {page} מתוך {pages}"
    )
    source = factories.paged_pdf(tmp_path / "text.pdf", text, furniture)
    scan = factories.scan_of(tmp_path / "scan.pdf", source, dpi=200)
    reading = ocr.read_pdf(scan, Settings())
    assert reading is not None and len(reading.pages) >= 2
    for page in reading.pages:
        assert "מזכירות" not in page.text and "ממוחשב" not in page.text, page.page
        assert "מתוך" not in page.text.splitlines()[-1], page.page
        for n in page.low_confidence_numbers:
            assert page.text[n["start"] : n["end"]] == n["text"]
    read = " ".join(" ".join(p.text for p in reading.pages).split())
    for record in records[:3]:
        assert record["case_number"].split()[-1] in read


@needs_tesseract
def test_a_scanned_two_column_page_is_read_right_column_first(tmp_path):
    right = [
        "העוררים טוענים כי הוועדה המקומית לא שקלה את השפעת הבנייה על הדיירים.",
        "לטענתם ההקלה המבוקשת חורגת מהוראות התכנית החלה על המגרש ומקו הבניין.",
        "עוד נטען כי הפרסום לא נעשה כדין וכי לא ניתנה להם זכות טיעון מלאה.",
        "העוררים מבקשים לבטל את ההחלטה ולהשיב את הבקשה לדיון מחודש בוועדה.",
    ]
    left = [
        "הוועדה המקומית משיבה כי ההחלטה התקבלה כדין ולאחר שמיעת ההתנגדויות.",
        "לדבריה אין בהקלה משום סטייה ניכרת מהתכנית והיא נועדה להסדיר חניה.",
        "המבקשים מצטרפים לעמדת הוועדה ומוסיפים כי הבנייה תואמת את הסביבה.",
        "לפיכך לטענת המשיבים יש לדחות את הערר ולהותיר את ההחלטה על כנה.",
    ]
    source = factories.two_column_pdf(tmp_path / "text.pdf", "החלטה בערר", right, left)
    scan = factories.scan_of(tmp_path / "scan.pdf", source, dpi=200)
    reading = ocr.read_pdf(scan, Settings())
    assert reading is not None
    read = " ".join(reading.pages[0].text.split())
    order = [
        read.find(word)
        for word in ("החלטה", "טוענים", "לטענתם", "מבקשים", "משיבה", "לדבריה", "לפיכך")
    ]
    assert -1 not in order, read
    assert order == sorted(order), read
