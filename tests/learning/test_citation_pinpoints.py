"""A pinpoint as a draft writes it after a citation (learning/checks/citation_pinpoints.py): read
without a database — the words, lists, sub-paragraphs and the reporter's pages."""

import pytest

from legal_ai.learning.checks.citation_pinpoints import check, pinpoint_after

RULING = {"content": "1. ראשית.\n2. שנית.\n3. שלישית.\n4. רביעית.\n", "page_starts": [0, 20]}


def never(_quote: str, _text: str) -> bool:
    return False


@pytest.mark.parametrize(
    ("after", "written", "first", "last", "also"),
    [
        (", פסקה 3.", "פסקה 3", 3, 3, ()),
        (", פיסקה 3.", "פיסקה 3", 3, 3, ()),
        (", פסקא 3.", "פסקא 3", 3, 3, ()),
        (", פסקה 3א.", "פסקה 3א", 3, 3, ()),  # a sub-paragraph is its paragraph's
        (", פסקאות 2–4.", "פסקאות 2–4", 2, 4, ()),
        (", פסקאות 2 ו-4.", "פסקאות 2 ו-4", 2, 2, (4,)),
        (", פסקאות 1, 3 ו-4.", "פסקאות 1, 3 ו-4", 1, 1, (3, 4)),
        (", פסקאות 2 ו-4, 2006", "פסקאות 2 ו-4", 2, 2, (4,)),  # a year is no paragraph
        (", פסקה 3, 4 עמודים", "פסקה 3", 3, 3, ()),  # one paragraph lists nothing more
    ],
)
def test_the_pinpoints_words_lists_and_sub_paragraphs(after, written, first, last, also):
    pin = pinpoint_after(after, 0)
    assert pin is not None
    assert (pin.written, pin.first, pin.last, pin.also) == (written, first, last, also)


def test_a_listed_paragraph_the_ruling_lacks_is_missing():
    problem = check(pinpoint_after(", פסקאות 2 ו-6.", 0), RULING, [], never)
    assert problem is not None and problem["kind"] == "pinpoint_not_found"
    assert problem["missing"] == [6] and problem["held"] == "1–4"
    assert check(pinpoint_after(", פסקאות 2 ו-4.", 0), RULING, [], never) is None


def test_a_page_after_the_reporter_is_the_volumes_not_the_pdfs():
    # The stored PDF has pages 1-2; page 130 of the volume is not a page it lacks.
    pdf_page = check(pinpoint_after(", עמ' 130", 0), RULING, [], never)
    assert pdf_page is not None and pdf_page["kind"] == "pinpoint_not_found"
    volume = check(pinpoint_after(", בעמ' 130", 0, reporter=True), RULING, [], never)
    assert volume is not None and volume["kind"] == "lookup_failed"
    assert "reporter" in volume["why"] and volume["unit"] == "page"
