"""PDF page furniture and paragraphs (text/pdf_layout.py, issue 22 item 2): running headers, page
footers, page numbers and the case line repeated on each page are kept out of the text; lines of
one paragraph, on one page or across a page break, are joined; page offsets still point at each
page's start. Bad input: a first page whose letterhead differs, a two-column page, a one-page PDF.
The invariant with the database (the same final as PDF, DOCX and text gives the same blocks,
style distance and citations) is tests/learning/test_pdf_final_invariant.py."""

import re
import subprocess
from collections import Counter

import pytest

import factories
from legal_ai.text import blocks, citations, pdf_layout, pdf_words
from legal_ai.text.extract import extract, join_pages
from legal_ai.text.hebrew import clean_text

pytestmark = pytest.mark.filterwarnings("ignore:Dimensions for page format A5")

# The universal profile's block spec as migration 0007 seeds it (enough to segment the fixtures).
SPEC = {
    "headings": {
        "opening": "פתח דבר|מבוא",
        "background": "רקע עובדתי|רקע|העובדות",
        "subject": "(?:הבקשה|התכנית|התוכנית|ההחלטה) נשוא הערר",
        "decision_under_appeal": "החלטת הוועדה המקומית|ההחלטה נשוא הערר|החלטת הוועדה",
        "appellants_claims": "טענות העוררי[םן]|טענות העורר(?:ת)?",
        "respondents_claims": "טענות המשיבי[םן]|טענות המשיב(?:ה)?",
        "hearing": "הדיון בפנינו(?: וסיור במקום)?|הדיון שהתקיים בפנינו|סיור במקום",
        "legal_framework": "המסגרת הנורמטיבית|המסגרת המשפטית|הדין החל|התשתית הנורמטיבית",
        "discussion": "דיון והכרעה|דיון|הכרעה",
        "conclusion": "סוף דבר|סיכום|התוצאה",
    },
    "signature_start": "ניתנ(?:ה|ו) היום",
}
LONG = "הוועדה המקומית שקלה את הבקשה ואת ההתנגדויות שהוגשו לה במועד ובהתאם לדין"


def running(case: str, first_header: tuple[str, ...] | None = ()) -> factories.Furniture:
    """A word processor's furniture: the committee and the case line on every page but the
    first (a different first page, as Word sets it), `עמוד N מתוך M` at the foot of each."""
    return factories.Furniture(
        header=("ועדת הערר לתכנון ובנייה – מחוז מרכז", f"{case} – החלטה"),
        first_header=first_header,
        footer="עמוד {page} מתוך {pages}",
    )


def words(text: str) -> str:
    return " ".join(text.split())


# --- over page texts ---------------------------------------------------------------------------
def test_repeated_headers_footers_and_page_numbers_are_taken_out():
    pages = [
        f"ערר 12/25 – החלטה\nהפסקה {word} פותחת.\nוהיא {word} נגמרת.\n{footer}"
        for word, footer in (("א", "עמוד 1 מתוך 3"), ("ב", "עמוד 2 מתוך 3"), ("ג", "- 3 -"))
    ]
    layout = pdf_layout.tidy(pages)
    assert layout.furniture == [
        ["ערר 12/25 – החלטה", footer] for footer in ("עמוד 1 מתוך 3", "עמוד 2 מתוך 3", "- 3 -")
    ]
    assert all("ערר 12/25" not in page and "עמוד" not in page for page in layout.pages)
    for number in ("- 2 -", "2", "2 / 3", "עמ' 2"):  # a page number needs no repetition
        found = pdf_layout.tidy(["א.\nגוף ראשון.", f"ב.\nגוף שני.\n{number}"])
        assert found.furniture[1] == [number], number


def test_a_first_page_letterhead_is_kept_and_the_running_header_taken():
    case = "ערר (מרכז) 12/25"
    first = f"ועדת הערר לתכנון ובנייה – מחוז מרכז\n{case}\nהעוררים: פלוני (בדוי)\n{LONG}."
    later = f"ועדת הערר לתכנון ובנייה – מחוז מרכז\n{case} – החלטה\n"
    layout = pdf_layout.tidy([first, later + "עמוד שני.", later + "עמוד שלישי."])
    assert layout.furniture[0] == []  # its heading starts like the running header, then differs
    assert layout.pages[0].startswith("ועדת הערר לתכנון ובנייה – מחוז מרכז\nערר (מרכז) 12/25\n")
    assert layout.furniture[1] == ["ועדת הערר לתכנון ובנייה – מחוז מרכז", f"{case} – החלטה"]


def test_one_page_loses_nothing():
    page = "ערר 12/25\nהחלטה\nגוף ההחלטה.\nעמוד 1 מתוך 1"
    layout = pdf_layout.tidy([page])
    assert layout.pages == [page] and layout.furniture == [[]]


def test_paragraph_lines_are_joined_and_breaks_kept():
    page = "\n".join(
        [
            "דיון והכרעה",
            f"10. {LONG}",
            f"{LONG} והיא",
            "דחתה אותן.",
            f"11. {LONG}.",  # ends a sentence, full
            "סוף דבר",  # a heading: never joined to the paragraph before it
            f"12. {LONG}.",
            "ניתנה היום, 3 ביוני 2025.",  # the signature's line after a sentence's end
            "",
            "רותם לוי",
        ]
    )
    assert pdf_layout.tidy([page]).pages[0].split("\n") == [
        "דיון והכרעה",
        f"10. {LONG} {LONG} והיא דחתה אותן.",
        f"11. {LONG}.",
        "סוף דבר",
        f"12. {LONG}.",
        "ניתנה היום, 3 ביוני 2025.",
        "",
        "רותם לוי",
    ]


def test_a_word_broken_after_its_opening_bracket_is_one_word_again():
    page = f"27. {LONG} לפי סעיף 12ב(א)(\n3) לחוק."
    assert pdf_layout.tidy([page]).pages[0] == f"27. {LONG} לפי סעיף 12ב(א)(3) לחוק."


def test_a_paragraph_across_a_page_break_is_joined_and_page_offsets_kept():
    pages = [f"1. {LONG}\n{LONG} והמשיכה\n- 1 -", "לדון בה בישיבה נוספת.\n2. סוף.\n- 2 -"]
    layout = pdf_layout.tidy(pages)
    assert layout.continued == [False, True]
    text, starts = join_pages(layout.pages, layout.continued)
    assert text == f"1. {LONG} {LONG} והמשיכה לדון בה בישיבה נוספת.\n2. סוף."
    assert text[starts[1] :].startswith("לדון בה")
    assert join_pages(["א", "ב"]) == ("א\n\nב", [0, 3])  # OCR's pages: as before


# --- real PDFs ---------------------------------------------------------------------------------
@pytest.mark.parametrize("index", range(len(factories.records())))
def test_a_paged_final_reads_as_its_text(tmp_path, index):
    """A final set on A5 pages (three each) with a running header, the case line and a page
    footer: the same blocks, words and citations as its text version; each page offset at the
    start of what that page holds."""
    record = factories.records()[index]
    pdf = factories.paged_pdf(
        tmp_path / "final.pdf", record["final_text"], running(record["case_number"]), page="A5"
    )
    result = extract(pdf)
    assert len(result.page_starts) >= 3
    assert not re.search(r"עמוד \d+ מתוך", result.text) and "– החלטה" not in result.text
    assert result.text.split() == record["final_text"].split()
    ours, theirs = (blocks.segment(t, SPEC).blocks for t in (result.text, record["final_text"]))
    assert {b: words(t) for b, t in ours.items()} == {b: words(t) for b, t in theirs.items()}
    refs = [
        sorted(c.ref for c in citations.extract(t)) for t in (result.text, record["final_text"])
    ]
    assert refs[0] == refs[1]
    bbox = subprocess.run(
        ["pdftotext", "-bbox-layout", "-enc", "UTF-8", str(pdf), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    pages = [clean_text(p).strip("\n") for p in pdf_words.pages(bbox)]
    for number, start in enumerate(result.page_starts):
        body = pdf_layout.tidy(pages).pages[number]
        assert result.text[start:].startswith(body.split("\n")[0]), number


def test_a_first_page_letterhead_pdf(tmp_path):
    record = factories.records()[0]
    furniture = running(record["case_number"], first_header=("מדינת ישראל",))
    pdf = factories.paged_pdf(tmp_path / "f.pdf", record["final_text"], furniture, page="A5")
    result = extract(pdf)
    assert result.text.startswith("מדינת ישראל\n")  # the letterhead is one page's: kept
    rest = result.text.removeprefix("מדינת ישראל\n")
    assert rest.split() == record["final_text"].split()


def test_a_one_page_pdf_keeps_its_footer(tmp_path):
    furniture = factories.Furniture(header=("ערר 12/25",), footer="עמוד {page} מתוך {pages}")
    result = extract(factories.hebrew_pdf(tmp_path / "one.pdf", ["גוף ההחלטה."], furniture))
    lines = [line for line in result.text.split("\n") if line]
    assert lines == ["ערר 12/25", "גוף ההחלטה.", "עמוד 1 מתוך 1"]


def test_a_two_column_page_loses_no_word(tmp_path):
    """pdftotext reads two columns whose lines stand level row by row, each line a block of its
    own: the columns come out interleaved line by line (measured here; nothing in the text says
    which line was in which column). pdf_layout joins no line across those blank lines and
    takes nothing away: every word is kept, in pdftotext's order."""
    right = "הטור הימני פותח. " + "טענות העוררים בפירוט, שורה אחר שורה. " * 5
    left = "הטור השמאלי אחריו. " + "טענות המשיבים בפירוט, שורה אחר שורה. " * 5
    pdf = factories._paged_fpdf(factories.Furniture())
    pdf.add_page()
    pdf.set_xy(110, 20)
    pdf.multi_cell(90, 6, right, align="J")
    pdf.set_xy(10, 20)
    pdf.multi_cell(90, 6, left, align="J")
    pdf.output(str(tmp_path / "columns.pdf"))
    text = extract(tmp_path / "columns.pdf").text
    assert Counter(text.split()) == Counter((right + left).split())
    lines = [line for line in text.split("\n") if line]
    assert lines[0].startswith("הטור הימני") and lines[1].startswith("הטור השמאלי")
