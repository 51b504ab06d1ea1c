"""The Israeli citation the desk copies (text/citation_style.py): the case number once, the
parties, the pinpoint and the date as d.m.yyyy."""

import datetime as dt

import pytest

from legal_ai.text.citation_style import date_text, israeli_citation, parties, pinpoint

DEMO_TITLE = "עע\"מ 9101/20 פלוני נ' הוועדה המקומית (בדוי)"


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        (
            {
                "case_number": 'עע"מ 9101/20',
                "title": DEMO_TITLE,
                "decided_on": "2021-06-01",
                "paragraph": "2",
            },
            "עע\"מ 9101/20 פלוני נ' הוועדה המקומית, פס' 2 (1.6.2021)",
        ),
        # The title in another spelling (gershayim, a dash) still gives the number once.
        (
            {
                "case_number": 'בר"מ 9233/19',
                "title": "בר״מ 9233-19 א.ב. יזמות בע״מ נ׳ הוועדה",
                "decided_on": dt.date(2020, 2, 10),
            },
            'בר"מ 9233/19 א.ב. יזמות בע"מ נ\' הוועדה (10.2.2020)',
        ),
        # A descriptive title is not the parties; a range of paragraphs.
        (
            {
                "case_number": 'עע"מ 1234/05',
                "title": "הקלה בקו בניין",
                "decided_on": "2005-03-01",
                "paragraph": "3–5",
            },
            "עע\"מ 1234/05, פס' 3–5 (1.3.2005)",
        ),
        # Parties without the number in the title; no date; the page when no paragraph.
        (
            {
                "case_number": "ערר (מרכז) 1157/23",
                "title": "כהן נגד הוועדה המקומית מודיעין",
                "page": 4,
            },
            "ערר (מרכז) 1157/23 כהן נגד הוועדה המקומית מודיעין, עמ' 4",
        ),
        # A case document's title names the case only.
        (
            {"case_number": "ערר (מרכז) 7001/25", "title": "כתב ערר – ערר (מרכז) 7001/25"},
            "ערר (מרכז) 7001/25",
        ),
        # No case number (a statute's section): its title.
        (
            {"case_number": None, "title": "חוק התכנון והבנייה, סעיף 149", "paragraph": None},
            "חוק התכנון והבנייה, סעיף 149",
        ),
    ],
)
def test_israeli_citation(fields, expected):
    assert israeli_citation(**{"title": None, "case_number": None, **fields}) == expected


def test_parts():
    assert parties(DEMO_TITLE, 'עע"מ 9101/20') == "פלוני נ' הוועדה המקומית"
    assert parties("פסק דין בעניין הקלה", 'עע"מ 9101/20') is None
    assert parties(None, None) is None
    assert pinpoint("12") == "פס' 12" and pinpoint(None, 3) == "עמ' 3" and pinpoint() is None
    assert date_text("2021-06-01T00:00:00") == "1.6.2021" and date_text("") is None
    assert date_text("not a date") is None
    # The date is never ISO, the number never twice.
    cited = israeli_citation(case_number='עע"מ 9101/20', title=DEMO_TITLE, decided_on="2021-06-01")
    assert "2021-06-01" not in cited and cited.count("9101/20") == 1
