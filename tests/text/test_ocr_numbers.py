"""Numbers survive OCR (issue 22, item 3): Tesseract's Hebrew model drops the leading digits of
numbers in right-to-left lines; the words holding digits are read again by the number model
(text/ocr_numbers.py). A scanned final's citations extract as its text version's do, its numbers
come back right, and a number read with low confidence is marked, never silently wrong."""

import os
import shutil
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

import factories
from legal_ai.config import Settings
from legal_ai.text import citations, ocr
from legal_ai.text import ocr_numbers as numbers

needs_tesseract = pytest.mark.skipif(
    shutil.which("tesseract") is None and os.environ.get("CI") != "true",
    reason="needs tesseract-ocr and tesseract-ocr-heb (make install)",
)


def read(tmp_path: Path, text: str, dpi: int) -> tuple[list[str], ocr.Result]:
    pages = factories.pages_of(text)
    scan = factories.scanned_pdf(tmp_path / f"scan-{dpi}.pdf", pages, dpi=dpi)
    reading = ocr.read_pdf(scan, Settings())
    assert reading is not None and len(reading.pages) == len(pages)
    return pages, reading


def test_number_tokens_keep_their_attachments():
    text = 'לפי סעיף 198(ד) לחוק, ערר 1042/23 מיום 12.3.2015 בסך 5,000 ש"ח; 10. ל-20 מטרים'
    assert numbers.numbers(text) == ["198(ד)", "1042/23", "12.3.2015", "5,000", "10", "20"]
    assert numbers.number_accuracy("סעיף 198(ד) ו-10.", "סעיף 8(ד) ו-10.") == (1, 2, 1)


@pytest.mark.parametrize(
    ("hebrew", "visual", "merged"),
    [
        ("0.", ".10", "10."),  # a paragraph number: its leading digit restored
        ("8(ד)", "()198", "198(ד)"),  # a section: the subsection letter is the Hebrew reading's
        ("146(א)", "()146", "146(א)"),  # the same digits: the word is left as read
        ("ל-20", "20-7", "ל-20"),  # the Hebrew prefix read as a digit by the number model
        ("14", "(1)4", "4(1)"),  # a subsection turned around
        ("2025.", "2025", "2025."),  # the period the number model does not see stays
    ],
)
def test_the_number_reading_is_put_back_in_logical_order(hebrew, visual, merged):
    assert numbers.merge(hebrew, numbers.logical(visual)) == (merged, False)


def test_readings_that_cannot_be_reconciled_are_doubtful_and_marked():
    word = numbers.Word((1, 1, 1), (0, 0, 10, 10), 91.0, "12/3")
    assert numbers.checked(word, []).doubtful  # the number model saw nothing
    doubtful = numbers.checked(word, [(".", 80.0)])  # no digit in its box
    assert doubtful.doubtful and doubtful.text == "12/3"
    agreed = numbers.checked(word, [("12/3", 40.0)])
    assert not agreed.doubtful and agreed.number_confidence == 91.0  # two readings agree
    low = numbers.low_confidence([doubtful, agreed], [0, 5], 60.0)
    assert low == [{"text": "12/3", "start": 0, "end": 4, "confidence": 80.0}]


@pytest.mark.slow
@needs_tesseract
def test_a_scanned_finals_citations_and_numbers_are_its_text_versions(tmp_path):
    for record in factories.records():
        text = record["final_text"]
        pages, reading = read(tmp_path, text, 200)
        got = "\n\n".join(p.text for p in reading.pages)
        assert Counter(c.ref for c in citations.extract(got)) == Counter(
            c.ref for c in citations.extract(text)
        ), record["case_number"]
        for reference, page in zip(pages, reading.pages, strict=True):
            right, total, wrong = numbers.number_accuracy(reference, page.text)
            assert (right, wrong) == (total, 0), (record["case_number"], page.page)


@needs_tesseract
def test_at_100_dpi_no_number_is_silently_wrong(tmp_path):
    record = next(r for r in factories.records() if "8815" in r["case_number"])
    pages, reading = read(tmp_path, record["final_text"], 100)
    for reference, page in zip(pages, reading.pages, strict=True):
        marked = {(n["start"], n["end"]) for n in page.low_confidence_numbers}
        for n in page.low_confidence_numbers:
            assert page.text[n["start"] : n["end"]] == n["text"]
        unmarked = [
            m.group()
            for m in numbers.NUMBER_RE.finditer(page.text)
            if (m.start(), m.end()) not in marked
        ]
        assert numbers.number_accuracy(reference, " ".join(unmarked))[2] == 0, page.text
        assert page.as_dict()["low_confidence_numbers"] == page.low_confidence_numbers


def _word(left: int, width: int, text: str, line=(1, 1, 1), confidence=90.0) -> numbers.Word:
    return numbers.Word(line, (left, 100, width, 40), confidence, text)


def test_the_pieces_of_a_number_the_hebrew_model_split_are_joined():
    # visual left to right: "ביום" ... then 9.2.2025 read as ".2.." (close) and "2025"
    line = [
        _word(900, 120, "ביום"),
        _word(700, 180, "הוועדה"),
        _word(500, 180, "החליטה"),
        _word(330, 150, "2025"),
        _word(240, 82, ".2..", confidence=40.0),
        _word(50, 170, "ביום"),
    ]
    joined = numbers.joined(line)
    assert [w.text for w in joined] == ["ביום", "הוועדה", "החליטה", ".2..2025", "ביום"]
    date = joined[3]
    assert date.box == (240, 100, 240, 40) and date.confidence == 40.0
    # a separator between two pieces joins them across a wider space: "3.1." beside "2025"
    wide = [
        _word(600, 200, "ביום"),
        _word(330, 106, "2025"),
        _word(199, 84, "3.1."),
        _word(20, 150, "פורסמה"),
    ]
    assert [w.text for w in numbers.joined(wide)] == ["ביום", "3.1.2025", "פורסמה"]


def test_two_numbers_a_word_apart_and_words_with_letters_are_never_joined():
    line = [
        _word(700, 60, "12"),
        _word(500, 180, "סעיף"),
        _word(350, 60, "13"),
        _word(150, 150, "לחוק"),
    ]
    assert numbers.joined(line) == line
    close = [_word(700, 100, "2025"), _word(590, 60, "20"), _word(300, 200, "ביום")]
    assert numbers.joined(close) == close  # side by side, no separator: two numbers
    other_line = [_word(700, 60, "12"), _word(640, 50, "13", line=(1, 1, 2))]
    assert numbers.joined(other_line) == other_line


def test_a_number_read_otherwise_when_binarized_is_marked_and_a_dotted_date_kept():
    word = _word(100, 80, "1", confidence=95.0)
    same = numbers.checked(word, [("11", 93.0)], [("11", 91.0)])
    assert same.text == "11" and not same.doubtful
    differs = numbers.checked(word, [("11", 93.0)], [("1", 91.0)])
    assert differs.doubtful
    assert numbers.low_confidence([differs], [0], 60.0)[0]["text"] == "11"
    date = numbers.checked(_word(100, 200, "2025", confidence=80.0), [("12.5:2025", 85.0)])
    assert date.text == "12.5.2025"


def test_a_thousands_separator_the_hebrew_reading_mirrored_still_joins():
    line = [
        _word(600, 200, "בשטח"),
        _word(330, 106, "200"),
        _word(290, 30, ",1"),
        _word(20, 150, "מטר"),
    ]
    assert [w.text for w in numbers.joined(line)] == ["בשטח", ",1200", "מטר"]


def test_a_number_box_is_widened_over_the_ink_beside_it_up_to_a_word_space():
    # columns of a line's band, left to right: a word, a 15-column space, `94` (inside the
    # neighbour's box), glyph gaps of 4 columns, then `74/24` whose right end alone is boxed
    ink = "#" * 40 + "." * 15 + "##.####....###.####....#####...####" + "." * 20 + "###"
    dark = [c == "#" for c in ink]
    boxed = (len(ink) - 26 - 10, len(ink) - 23)  # the box over `24`
    assert numbers.ink_reach(dark, *boxed, height=40) == (55, len(ink) - 23)
    # a number with a word space on each side keeps its box
    alone = [c == "#" for c in "###" + "." * 15 + "#####" + "." * 15 + "###"]
    assert numbers.ink_reach(alone, 18, 23, height=40) == (18, 23)
    assert numbers.ink_reach(dark, *boxed, height=40, sides=(False, True)) == boxed
    # at most WIDEN_HEIGHTS of its height
    solid = [True] * 1000
    assert numbers.ink_reach(solid, 500, 510, height=10)[0] == 500 - numbers.WIDEN_HEIGHTS * 10


def test_only_a_side_beside_an_empty_stretch_of_the_line_is_widened():
    # left to right; spaces of 20 px between the line's words, 240 px left of the number
    line = [
        _word(80, 200, "(עע״מ"),
        _word(520, 60, "4"),
        _word(600, 160, "אלמוני"),
        _word(780, 200, "הוועדה"),
        _word(1000, 150, "המקומית"),
    ]
    assert numbers.open_sides(line, 1) == (True, False)
    assert numbers.open_sides(line, 3) == (False, False)  # its spaces are the line's


@needs_tesseract
def test_the_whole_number_is_read_where_the_hebrew_model_boxed_part_of_it(tmp_path):
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(str(factories.hebrew_font()), 40)
    picture = Image.new("L", (1600, 100), 255)
    draw = ImageDraw.Draw(picture)
    # a right-to-left line in visual order, the words 24 px apart
    x, boxes = 40, []
    for text in ("מ״עע)", "9474/24", "ינומלא", "הדעווה", "תימוקמה"):
        boxes.append(draw.textbbox((x, 20), text, font=font))
        draw.text((x, 20), text, font=font, fill=0)
        x = boxes[-1][2] + 24
    image = tmp_path / "line.pgm"
    picture.save(image)
    top, bottom = min(b[1] for b in boxes), max(b[3] for b in boxes)
    words = [
        numbers.Word((1, 1, 1), (b[0], top, b[2] - b[0], bottom - top), 92.0, t)
        for b, t in zip(boxes, ("(עע״מ", "4", "אלמוני", "הוועדה", "המקומית"), strict=True)
    ]
    number = boxes[1]
    part = number[2] - (number[2] - number[0]) // 3  # the Hebrew model's box over `/24` only
    words[1] = replace(words[1], box=(part, top, number[2] - part, bottom - top))
    read = ocr._number_words(image, words, Settings(), tmp_path)
    assert read[1].text == "9474/24"
    assert read[1].doubtful  # digits the Hebrew reading did not have: marked, not silently taken


def test_a_joined_number_is_kept_apart_where_the_number_model_sees_a_space():
    left, right = _word(100, 100, "2025"), _word(260, 50, "5-", confidence=40.0)
    joined = numbers.Word((1, 1, 1), (100, 100, 210, 40), 40.0, "20255-", pieces=(right, left))
    # read as two words in the joined box: each piece with its own reading
    apart = numbers.kept_apart(
        joined, [("2025", 90.0), ("20", 90.0)], [], [[("20", 91.0)], [("2025", 92.0)]]
    )
    assert [w.text for w in apart] == ["20", "2025"]
    # read as one word: taken, and marked where the pieces read apart (left to right on the
    # page: the left piece's reading first) give other digits
    one = numbers.kept_apart(
        joined, [("9.5.2025", 90.0)], [("9.5.2025", 90.0)], [[(".5.", 80.0)], [("2025", 92.0)]]
    )
    assert [w.text for w in one] == ["9.5.2025"] and one[0].doubtful
    same = numbers.kept_apart(
        joined, [("9.5.2025", 90.0)], [("9.5.2025", 90.0)], [[("2025", 92.0)], [("9.5.", 80.0)]]
    )
    assert [w.text for w in same] == ["9.5.2025"] and not same[0].doubtful


@needs_tesseract
def test_two_numbers_joined_by_the_hebrew_reading_are_read_apart_on_the_crop(tmp_path):
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(str(factories.hebrew_font()), 40)
    picture = Image.new("L", (800, 100), 255)
    draw = ImageDraw.Draw(picture)
    boxes = []
    for x, text in ((60, "2025"), (330, "20")):
        boxes.append(draw.textbbox((x, 20), text, font=font))
        draw.text((x, 20), text, font=font, fill=0)
    image = tmp_path / "line.pgm"
    picture.save(image)
    top, bottom = min(b[1] for b in boxes), max(b[3] for b in boxes)
    pieces = tuple(
        numbers.Word((1, 1, 1), (b[0], top, b[2] - b[0], bottom - top), 60.0, t)
        for b, t in zip(reversed(boxes), ("-20", "2025"), strict=True)
    )
    union = numbers.Word(
        (1, 1, 1),
        (boxes[0][0], top, boxes[1][2] - boxes[0][0], bottom - top),
        60.0,
        "2025-20",
        pieces=pieces,
    )
    read = ocr._number_words(image, [union], Settings(), tmp_path)
    assert sorted(numbers.numbers(" ".join(w.text for w in read))) == ["20", "2025"]
