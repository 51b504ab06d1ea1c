"""Sentence ends in Hebrew legal prose (text/sentences.py, issue 23 item 4): the passages the
chair reads are cut where a sentence ends — never at a decimal, a date, a paragraph's number,
an abbreviation, an initial or a reference's number."""

import pytest

from legal_ai.text.sentences import ends_at, sentence_ends, sentence_spans


def sentences(text: str) -> list[str]:
    return [text[a:b] for a, b in sentence_spans(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A decimal: the building line of 2.7 metres stays in its sentence.
        (
            "ההקלה בקו בניין צדדי מ-3 מטרים ל-2.7 מטרים. הוועדה אישרה אותה.",
            ["ההקלה בקו בניין צדדי מ-3 מטרים ל-2.7 מטרים.", "הוועדה אישרה אותה."],
        ),
        (
            'שיעור של 0.5% ועלות של 1,250.50 ש"ח נקבעו. כך הוחלט.',
            ['שיעור של 0.5% ועלות של 1,250.50 ש"ח נקבעו.', "כך הוחלט."],
        ),
        # A date inside a sentence, and a date ending one.
        (
            "הבקשה פורסמה ביום 1.6.2021 והוועדה אישרה אותה. העוררים טענו אחרת.",
            ["הבקשה פורסמה ביום 1.6.2021 והוועדה אישרה אותה.", "העוררים טענו אחרת."],
        ),
        (
            "הבקשה פורסמה ביום 3.1.2025. הוועדה אישרה אותה ביום 3.2.2025.",
            ["הבקשה פורסמה ביום 3.1.2025.", "הוועדה אישרה אותה ביום 3.2.2025."],
        ),
        # Paragraph numbers open their sentence, on their own line or after a sentence's end.
        (
            "14. הוועדה המקומית אישרה את הבקשה.\n15. העוררים טענו כי ההקלה פוגעת בהם.",
            ["14. הוועדה המקומית אישרה את הבקשה.", "15. העוררים טענו כי ההקלה פוגעת בהם."],
        ),
        (
            "הוועדה אישרה. 3. העוררים טענו אחרת.",
            ["הוועדה אישרה.", "3. העוררים טענו אחרת."],
        ),
        ("3.1. הוועדה רשאית לתת הקלה.", ["3.1. הוועדה רשאית לתת הקלה."]),
        ("א. הוועדה רשאית לתת הקלה.", ["א. הוועדה רשאית לתת הקלה."]),
        (
            "התנאים הם כדלקמן: 1. חלונות עמומים; 2. גדר בגובה 1.8 מטרים.",
            ["התנאים הם כדלקמן: 1. חלונות עמומים; 2. גדר בגובה 1.8 מטרים."],
        ),
        # Abbreviations with a period and initials.
        (
            "ראו עמ. 5 לפסק הדין ופס. 12 שבו. כך נקבע.",
            ["ראו עמ. 5 לפסק הדין ופס. 12 שבו.", "כך נקבע."],
        ),
        (
            "העורר י. כהן טען כי ההקלה פוגעת בו. הוא צדק.",
            ["העורר י. כהן טען כי ההקלה פוגעת בו.", "הוא צדק."],
        ),
        ("See p. 12 of the ruling. Then.", ["See p. 12 of the ruling.", "Then."]),
        # The geresh abbreviations ס' / עמ' / פס' and a reference's number.
        (
            "לפי ס' 147 לחוק ועמ' 3 לפרוטוקול הוועדה רשאית. כך נקבע.",
            ["לפי ס' 147 לחוק ועמ' 3 לפרוטוקול הוועדה רשאית.", "כך נקבע."],
        ),
        (
            "כאמור בעע\"מ 9101/20 פלוני, פס' 14. לפסק הדין נקבע כי ההקלה סבירה.",
            ["כאמור בעע\"מ 9101/20 פלוני, פס' 14. לפסק הדין נקבע כי ההקלה סבירה."],
        ),
        (
            "כך נקבע בפס' 14. הערר נדחה.",
            ["כך נקבע בפס' 14.", "הערר נדחה."],
        ),
        # Closing quotes and brackets stay with the sentence; an ellipsis does not end it.
        (
            'נאמר כי "הערר נדחה." לכן הוחלט (ראו פסקה 14). הערר נדחה!',
            ['נאמר כי "הערר נדחה."', "לכן הוחלט (ראו פסקה 14).", "הערר נדחה!"],
        ),
        ("נקבע כי ... ההקלה סבירה. האם כך?", ["נקבע כי ... ההקלה סבירה.", "האם כך?"]),
        # A line break ends a sentence; a web address does not.
        ("פתח דבר\nהעתק נשלח ל-www.gov.il היום", ["פתח דבר", "העתק נשלח ל-www.gov.il היום"]),
    ],
)
def test_sentences(text, expected):
    assert sentences(text) == expected


def test_ends_are_offsets_past_the_mark_and_its_quotes():
    text = 'הוא אמר "כן." ואז הלך. 2. סוף'
    assert sentence_ends(text) == [text.index('."') + 2, text.index("הלך.") + 4]
    assert ends_at(text, text.index("הלך.") + 3)
    assert not ends_at("2.7", 1) and not ends_at("1.6.2021", 1)


def test_spans_within_a_window_keep_the_text_offsets():
    text = "קודם. הוועדה אישרה ל-2.7 מטרים. אחר כך."
    start = text.index("הוועדה")
    end = text.index("אחר")
    (span,) = sentence_spans(text, start, end)
    assert text[span[0] : span[1]] == "הוועדה אישרה ל-2.7 מטרים."


def test_the_copy_check_cuts_its_passages_by_it():
    """The copy check's sentences (learning/checks/copy_policy.py) are these: a passage holding a
    decimal, a date or a paragraph's number is one sentence, never cut inside."""
    from legal_ai.learning.checks import keyed_words
    from legal_ai.learning.checks.copy_policy import _sentences

    text = (
        "14. ההקלה בקו בניין צדדי של 3.5 מטרים פורסמה ביום 1.6.2021 כדין.\n"
        "15. הוועדה אישרה אותה; העוררים לא השיגו. ראו פס' 14. לפסק הדין."
    )
    words = keyed_words(text)
    cut = [text[words[a].start : words[b - 1].end] for a, b in _sentences(text, words)]
    assert cut == [
        "ההקלה בקו בניין צדדי של 3.5 מטרים פורסמה ביום 1.6.2021 כדין",
        "הוועדה אישרה אותה; העוררים לא השיגו",
        "ראו פס' 14. לפסק הדין",
    ]
