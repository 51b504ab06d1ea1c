"""A DOCX as Word writes it (issue 22 item 1): footnotes and endnotes with their anchors, tracked
changes accepted and counted, tables, lists and text boxes in document order, headers, footers and
comments left out; and the bad input: pending changes with comments, a notes part missing or
damaged, a DOCTYPE, the archive limits. The files are built by tests/word_docs.py."""

from __future__ import annotations

import zipfile

import pytest

from legal_ai.errors import UnsupportedFile
from legal_ai.text import blocks, citations
from legal_ai.text.docx_numbering import format_number, hebrew_numeral
from legal_ai.text.extract import Limits, extract
from legal_ai.text.notes import ENDNOTES_HEADING, FOOTNOTES_HEADING, body_end
from word_docs import (
    comment,
    dele,
    ins,
    move_from,
    move_to,
    note,
    p,
    r,
    table,
    text_box,
    word_docx,
)

CITATION = 'בג"ץ 594/89 פלוני נ\' הוועדה, פ"ד מד(1) 565'
SPEC = {
    "headings": {
        "opening": "פתח דבר",
        "discussion": "דיון והכרעה",
        "conclusion": "סוף דבר",
    },
    "signature_start": "ניתנה היום",
}


def _decision(notes: bool = True) -> list[str]:
    """A short decision whose discussion cites a ruling in a footnote only."""
    return [
        p("ועדת הערר לתכנון ובנייה – מחוז מרכז"),
        p("פתח דבר"),
        p("ערר על החלטת הוועדה המקומית לדחות בקשה להקלה בקו בניין."),
        p("דיון והכרעה"),
        p("הלכה היא שאין להתערב בשיקול דעת התכנון", note(1) if notes else "", "."),
        p("ראו גם", note(2, "endnote") if notes else "", " את הפסיקה שאחריה."),
        p("סוף דבר"),
        p("דין הערר להידחות."),
        p("ניתנה היום, 1 במרץ 2025."),
    ]


def test_a_table_a_list_and_a_text_box_are_read_in_document_order(tmp_path):
    body = [
        p("פתח הדברים"),
        p("עובדות המקרה", num=(1, 0)),
        p("הבקשה הוגשה ביום 3.1.2025", num=(1, 1)),
        p("ההחלטה נשוא הערר", num=(1, 0)),
        table([["מועד", "אירוע"], ["3.1.2025", "פרסום הבקשה"]]),
        p("הטבלה שלעיל מסכמת", text_box("תיבת טקסט ובה הערה")),
        p("טענה ראשונה", num=(2, 0)),
        p("טענה שנייה", num=(2, 0)),
        p("תבליט", num=(3, 0)),
        p("גלוי", r(" מוסתר", hidden=True)),
        p("סוף"),
    ]
    path = word_docx(
        tmp_path / "order.docx", body, numbering=True, header="כותרת עליונה", footer="עמוד 1"
    )
    read = extract(path)
    assert read.text.split("\n\n") == [
        "פתח הדברים",
        "1. עובדות המקרה",
        "1.1 הבקשה הוגשה ביום 3.1.2025",
        "2. ההחלטה נשוא הערר",
        "מועד | אירוע",  # the table where it stands, not at the end
        "3.1.2025 | פרסום הבקשה",
        "הטבלה שלעיל מסכמת",
        "תיבת טקסט ובה הערה",  # once: the VML fallback of the same box is not read again
        "א. טענה ראשונה",
        "ב. טענה שנייה",
        "תבליט",  # a bullet is not a word
        "גלוי",  # hidden text is not shown
        "סוף",
    ]
    assert "כותרת עליונה" not in read.text and "עמוד 1" not in read.text
    assert read.notes == () and read.body_end is None
    assert read.reading == ("1 run of hidden text left out: Word does not show it",)
    assert read.hidden_text == {"direct": 1}


def test_tracked_changes_are_read_accepted_and_counted(tmp_path):
    body = [
        p("נקדים ואומר כי ", "דין הערר ", dele("להתקבל"), ins("להידחות"), "."),
        p(move_from("פסקה שהועברה. "), "פסקה קבועה.", move_to(" פסקה שהועברה.")),
        p("שורה שסימן הפסקה שלה נמחק ", mark_deleted=True),
        p("ממשיכה כאן."),
        table([["א", "ב"], ["שורה שנמחקה", "x"], ["ג", "ד"]], deleted_rows=(1,)),
    ]
    read = extract(word_docx(tmp_path / "changes.docx", body))
    assert read.text.split("\n\n") == [
        "נקדים ואומר כי דין הערר להידחות.",  # the outcome word is in, the deleted one out
        "פסקה קבועה. פסקה שהועברה.",
        "שורה שסימן הפסקה שלה נמחק ממשיכה כאן.",
        "א | ב",
        "ג | ד",
    ]
    assert read.tracked_changes == {"inserted": 1, "deleted": 2, "moved": 1}
    assert read.reading == (
        "4 tracked changes were accepted in reading (1 insertion, 2 deletions, 1 move): "
        "insertions kept, deletions dropped",
    )
    assert read.reading_metadata()["tracked_changes_accepted"] == read.tracked_changes


def test_footnotes_and_endnotes_follow_the_body_with_their_anchors(tmp_path):
    path = word_docx(
        tmp_path / "final.docx",
        _decision(),
        footnotes={1: CITATION},
        endnotes={2: "עע\"מ 1234/05 הוועדה המקומית נ' פלוני (פורסם בנבו)."},
    )
    read = extract(path)
    body = read.text[: read.body_end]
    assert CITATION not in body and body.endswith("ניתנה היום, 1 במרץ 2025.")
    assert read.text[read.body_end :] == (
        f"\n\n{FOOTNOTES_HEADING}\n\n[1] {CITATION}"
        f"\n\n{ENDNOTES_HEADING}\n\n[1] עע\"מ 1234/05 הוועדה המקומית נ' פלוני (פורסם בנבו)."
    )
    footnote, endnote = read.notes
    assert (footnote.kind, footnote.mark, endnote.kind, endnote.mark) == (
        "footnote",
        "1",
        "endnote",
        "1",
    )
    assert read.text[footnote.start : footnote.end] == CITATION
    # the anchor is where the reference mark stands in the body: after the words it notes
    assert body[: footnote.anchor].endswith("שיקול דעת התכנון")
    assert body[: endnote.anchor].endswith("ראו גם")
    # the note's citations are read like the body's
    refs = {c.ref for c in citations.extract(read.text)}
    assert {'בג"ץ 594/89', 'עע"מ 1234/05'} <= refs
    # the blocks are the body's: no note lands in the signature
    seg = blocks.segment(read.text, SPEC)
    assert seg.blocks["signature"] == "ניתנה היום, 1 במרץ 2025."
    assert seg.blocks == blocks.segment(body, SPEC).blocks
    assert body_end(read.text) == read.body_end
    meta = read.reading_metadata()
    assert meta["body_end"] == read.body_end
    assert meta["note_spans"][0] == {
        "kind": "footnote",
        "mark": "1",
        "anchor": footnote.anchor,
        "start": footnote.start,
        "end": footnote.end,
    }


def test_notes_are_numbered_in_order_of_reference_and_keep_a_custom_mark(tmp_path):
    body = [p("ראשון", note(7), " שני", note(3, custom="*"), " שלישי", note(5))]
    notes = {3: "הערה מותאמת", 5: "הערה שלישית", 7: "הערה ראשונה"}
    read = extract(word_docx(tmp_path / "marks.docx", body, footnotes=notes))
    assert [(n.mark, read.text[n.start : n.end]) for n in read.notes] == [
        ("1", "הערה ראשונה"),
        ("*", "הערה מותאמת"),  # a custom mark takes no number
        ("2", "הערה שלישית"),
    ]
    assert read.text.startswith("ראשון שני שלישי\n\n")  # no mark is written into the body


def test_a_draft_and_its_final_as_word_files_give_the_same_blocks(tmp_path):
    draft = extract(word_docx(tmp_path / "draft.docx", _decision(notes=False)))
    final = extract(
        word_docx(
            tmp_path / "final.docx",
            _decision(),
            footnotes={1: CITATION},
            endnotes={2: "הערת סיום."},
        )
    )
    assert blocks.segment(draft.text, SPEC).blocks == blocks.segment(final.text, SPEC).blocks


# --- bad input ---------------------------------------------------------------------------------
def test_pending_tracked_changes_and_comments(tmp_path):
    body = [
        p(comment(0, r("דין הערר ")), dele("להתקבל"), ins("להידחות"), "."),
        p(comment(1, ins("הוספה ")), "ומחיקה", dele(" שנמחקה"), "."),
    ]
    path = word_docx(
        tmp_path / "pending.docx",
        body,
        comments={0: "לשקול שוב את התוצאה", 1: "הערה פנימית של המזכירות"},
    )
    read = extract(path)
    assert read.text == "דין הערר להידחות.\n\nהוספה ומחיקה."
    assert "לשקול" not in read.text and "המזכירות" not in read.text  # comments never in the text
    assert read.reading == (
        "4 tracked changes were accepted in reading (2 insertions, 2 deletions): "
        "insertions kept, deletions dropped",
        "2 comments left out: comments are not part of the decision's text",
    )


@pytest.mark.parametrize(
    ("parts", "why"),
    [
        ({"word/footnotes.xml": None}, "word/footnotes.xml is missing from the file"),
        ({"word/footnotes.xml": b"<w:footnotes><w:footnote"}, "is damaged: XMLSyntaxError"),
        ({"word/footnotes.xml": b"\x00\xff not xml"}, "is damaged"),
        (
            {
                "word/footnotes.xml": b'<!DOCTYPE x [<!ENTITY e "boom">]><x>&e;</x>',
            },
            "is damaged",
        ),
    ],
    ids=["missing", "truncated", "garbage", "doctype"],
)
def test_a_missing_or_damaged_footnotes_part_keeps_the_body(tmp_path, parts, why):
    path = word_docx(
        tmp_path / "notes.docx",
        _decision(),
        footnotes={1: CITATION},
        endnotes={2: "הערת סיום."},
        parts=parts,
    )
    read = extract(path)
    assert "דין הערר להידחות.\n\nניתנה היום, 1 במרץ 2025." in read.text  # the body, whole
    assert FOOTNOTES_HEADING not in read.text and CITATION not in read.text
    assert [n.kind for n in read.notes] == ["endnote"] and read.issue is None  # the other part
    (message,) = read.reading
    assert message.startswith("the 1 footnotes could not be read (") and why in message
    assert "the body was read without them" in message


def test_notes_without_a_notes_part_or_a_missing_note(tmp_path):
    # a body that references footnotes, with no footnotes relationship at all
    no_part = extract(word_docx(tmp_path / "none.docx", [p("טקסט", note(1), ".")]))
    assert no_part.text == "טקסט."
    assert "the document has no part for them" in no_part.reading[0]
    # a reference to a note the part does not hold
    path = word_docx(
        tmp_path / "gap.docx", [p("א", note(1), " ב", note(2), ".")], footnotes={1: "קיימת"}
    )
    read = extract(path)
    assert [read.text[n.start : n.end] for n in read.notes] == ["קיימת"]
    assert read.reading == (
        "footnotes 2 are referenced in the text but missing from the document's footnotes "
        "part: read without them",
    )


def test_a_damaged_body_is_still_unreadable_and_the_archive_limits_hold(tmp_path):
    doctype = b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY e "x">]><d>&e;</d>'
    path = word_docx(tmp_path / "doctype.docx", [p("x")], parts={"word/document.xml": doctype})
    with pytest.raises(UnsupportedFile, match="doctype.docx: not a readable DOCX"):
        extract(path)
    sheet = word_docx(
        tmp_path / "sheet.docx",
        [p("x")],
        parts={"word/document.xml": b'<x:worksheet xmlns:x="urn:x"/>'},
    )
    with pytest.raises(UnsupportedFile, match=r"not a readable DOCX \(not a Word document\)"):
        extract(sheet)
    # the zip-bomb checks run before the notes are read
    big = word_docx(tmp_path / "big.docx", _decision(), footnotes={1: CITATION * 50})
    with pytest.raises(UnsupportedFile, match="unpacks to .* over the"):
        extract(big, Limits(docx_bytes=1000))
    with zipfile.ZipFile(big) as archive:
        assert "word/footnotes.xml" in archive.namelist()


def test_strict_wordprocessingml_is_read(tmp_path):
    strict = "http://purl.oclc.org/ooxml/wordprocessingml/main"
    path = word_docx(tmp_path / "strict.docx", [p("טקסט", ins(" שנוסף"))])
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    members["word/document.xml"] = members["word/document.xml"].replace(
        b"http://schemas.openxmlformats.org/wordprocessingml/2006/main", strict.encode()
    )
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    assert extract(path).text == "טקסט שנוסף"


def test_list_number_formats():
    assert [hebrew_numeral(n) for n in (1, 9, 10, 11, 15, 16, 20, 42, 100, 400, 515)] == [
        "א", "ט", "י", "יא", "טו", "טז", "כ", "מב", "ק", "ת", "תקטו",
    ]  # fmt: skip
    assert format_number(23, "hebrew2") == "אא"
    assert format_number(4, "lowerRoman") == "iv" and format_number(28, "upperLetter") == "BB"
    assert format_number(7, "decimalZero") == "07" and format_number(7, "unknown") == "7"
