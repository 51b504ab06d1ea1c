"""A passage as the desk shows it (text/passages.py): Markdown's marks out, a window around the
words that matched cut at a sentence's end, and the numbered paragraph a place belongs to."""

from legal_ai.text.passages import paragraph_marks, paragraph_of, paragraphs_over, plain, window

DECISION = (
    "# עע\"מ 9101/20 פלוני נ' הוועדה המקומית\n\n"
    "1. רקע: העוררים ביקשו היתר.\n\n"
    "2. הקלה בקו בניין של 3.5 מטר היא חריגה מוגבלת. ביום 1.6.2021 נדחתה.\n"
    "(א) תת-פסקה שנשארת בפסקה 2.\n\n"
    "3. סוף דבר: הערעור נדחה.\n"
)


def test_markdown_marks_are_taken_out():
    text = (
        "# כותרת\n\n## רקע\n\n- **הקלה** *בקו* בניין\n* פריט `קוד`\n> ציטוט\n"
        "ראו [החוק](https://example.org) ו-![תמונה](x.png)\n---\n| א | ב |\n|---|---|\n"
        "12. פסקה ממוספרת נשארת"
    )
    out = plain(text)
    assert out.splitlines()[:5] == ["כותרת", "רקע", "הקלה בקו בניין", "פריט קוד", "ציטוט"]
    assert "ראו החוק ו-תמונה" in out and "12. פסקה ממוספרת נשארת" in out
    for mark in ("#", "**", "`", "](", "---", "> ", "- ", "* "):
        assert mark not in out, mark
    assert plain("3 * 4 = 12, ו-a_b_c") == "3 * 4 = 12, ו-a_b_c"  # not emphasis


def test_paragraph_numbers():
    assert [n for _, n in paragraph_marks(DECISION)] == ["1", "2", "3"]  # not 3.5, 1.6.2021, (א)
    inside = DECISION.index("חריגה")
    assert paragraph_of(DECISION, inside, inside + 10) == "2"
    sub = DECISION.index("תת-פסקה")
    assert paragraph_of(DECISION, sub, sub + 5) == "2"  # a sub-paragraph stays in its paragraph
    start, end = DECISION.index("רקע"), DECISION.index("סוף")
    assert [n for _, _, n in paragraphs_over(DECISION, start, end)] == ["1", "2", "3"]
    assert paragraph_of(DECISION, start, end) == "1–3"  # a range without matched words
    assert paragraph_of(DECISION, start, end, [DECISION.index("הקלה")]) == "2"  # where they are
    assert paragraph_of(DECISION, 0, 10) is None  # the heading: no paragraph


def test_window_around_the_match_cut_at_sentence_ends():
    before = "משפט ארוך למדי על רקע הדברים במקרקעין שבמחלוקת. " * 20
    after = "לפי סעיף 14. לחוק, ההיתר בוטל והמשיבה תשלם הוצאות. " * 20
    text = before + "כאן הקלה בקו בניין של 3.5 מטר. " + after
    start, end = window(text, [text.index("הקלה")], 300)
    shown = text[start:end]
    assert shown.startswith("כאן הקלה בקו בניין של 3.5 מטר.")  # the matched sentence first
    assert shown.endswith("הוצאות.") and len(shown) <= 300  # a sentence's end, not "14."
    assert window("קצר", [], 300) == (0, 3)
    # Without a sentence's end in reach: between words.
    words = "מילה " * 200
    start, end = window(words, [], 100)
    assert start == 0 and words[end - 1] != " " and words[end] == " "
