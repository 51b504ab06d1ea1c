"""The citation the desk copies (text/citation_style.py), in the Uniform Citation Rules' forms:
a ruling with its parties, pinpoint and `(נבו d.m.yyyy)`; a committee decision with its parties
and `(החלטה מיום d.m.yyyy)`; a section with its law (`סעיף 197 לחוק ..., התשכ"ה-1965`)."""

import datetime as dt

import pytest

from legal_ai.text.citation_style import (
    cited_parties,
    date_text,
    israeli_citation,
    kind_of,
    law_name,
    parties,
    pinpoint,
    statute_citation,
)

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
            "עע\"מ 9101/20 פלוני נ' הוועדה המקומית, פס' 2 (נבו 1.6.2021)",
        ),
        # The title in another spelling (gershayim, a dash) still gives the number once.
        (
            {
                "case_number": 'בר"מ 9233/19',
                "title": "בר״מ 9233-19 א.ב. יזמות בע״מ נ׳ הוועדה",
                "decided_on": dt.date(2020, 2, 10),
            },
            'בר"מ 9233/19 א.ב. יזמות בע"מ נ\' הוועדה (נבו 10.2.2020)',
        ),
        # A descriptive title is not the parties; a range of paragraphs.
        (
            {
                "case_number": 'עע"מ 1234/05',
                "title": "הקלה בקו בניין",
                "decided_on": "2005-03-01",
                "paragraph": "3–5",
            },
            "עע\"מ 1234/05, פס' 3–5 (נבו 1.3.2005)",
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
        # A statute's item title (text/akn.py) without its law field: read from the title.
        (
            {"case_number": None, "title": "חוק התכנון והבנייה, סעיף 149", "paragraph": None},
            "סעיף 149 לחוק התכנון והבנייה",
        ),
        # No case number, not a statute: its title.
        ({"case_number": None, "title": 'חוזר מנכ"ל 3/2020'}, 'חוזר מנכ"ל 3/2020'),
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


PBL = 'חוק התכנון והבניה, תשכ"ה–1965'


@pytest.mark.parametrize(
    ("law", "expected"),
    [
        (PBL, 'חוק התכנון והבניה, התשכ"ה-1965'),
        ('חוק התכנון והבנייה, התשכ"ה-1965', 'חוק התכנון והבנייה, התשכ"ה-1965'),
        ("חוק התכנון והבניה, תשכ״ה—1965", 'חוק התכנון והבניה, התשכ"ה-1965'),  # gershayim, em dash
        ('חוֹק הַתִּכְנוּן וְהַבְּנִיָּה, תשכ"ה-1965', 'חוק התכנון והבניה, התשכ"ה-1965'),  # niqqud
        (
            'תקנות התכנון והבניה (סטיה ניכרת מתכנית), תשס"ב–2002',
            'תקנות התכנון והבניה (סטיה ניכרת מתכנית), התשס"ב-2002',
        ),
        (
            "חוק התכנון והבניה (תיקון מס' 101), התשע\"ד־2014",  # a Hebrew maqaf
            "חוק התכנון והבניה (תיקון מס' 101), התשע\"ד-2014",
        ),
        ("פקודת הדרכים ומסילות הברזל (הגנה ופיתוח)", "פקודת הדרכים ומסילות הברזל (הגנה ופיתוח)"),
        ("", None),
    ],
)
def test_law_name(law, expected):
    assert law_name(law) == expected


def test_statute_section_with_its_law_never_a_paragraph_or_its_date():
    cited = israeli_citation(
        case_number=None,
        title=f"{PBL}, סעיף 197 – פגיעה על ידי תכנית",
        decided_on="1965-08-12",
        paragraph="197",
        kind="legislation",
        law_title=PBL,
        section_num="197",
    )
    assert cited == 'סעיף 197 לחוק התכנון והבניה, התשכ"ה-1965'
    assert "פס'" not in cited and "12.8.1965" not in cited
    regs = 'תקנות התכנון והבניה (בקשה להיתר, תנאיו ואגרות), התשע"ו–2016'
    assert statute_citation(regs, "2") == (
        'תקנה 2 לתקנות התכנון והבניה (בקשה להיתר, תנאיו ואגרות), התשע"ו-2016'
    )
    assert statute_citation(PBL, "266ב") == 'סעיף 266ב לחוק התכנון והבניה, התשכ"ה-1965'
    assert statute_citation(PBL, "point_152") == 'סעיף 152 לחוק התכנון והבניה, התשכ"ה-1965'
    assert statute_citation(PBL, None) == 'חוק התכנון והבניה, התשכ"ה-1965'
    assert statute_citation(None, "197") is None
    assert (
        statute_citation("פקודת העיריות [נוסח חדש]", "249") == "סעיף 249 לפקודת העיריות [נוסח חדש]"
    )


HEADER = (
    "ועדת הערר לתכנון ובנייה מחוז מרכז\nהעוררים: 1. י' כהן 2. מ' כהן (בדויים)\n"
    "המשיבים: הוועדה המקומית לתכנון ובנייה מודיעין\n\nהחלטה\n1. ..."
)


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        # The brief's forms: a ruling in a database, a committee decision with its parties.
        (
            {
                "case_number": 'עע"ם 1234/05',
                "title": "עע\"ם 1234/05 פלוני נ' הוועדה המקומית לתכנון ובנייה תל אביב",
                "decided_on": "2007-08-12",
                "paragraph": "12",
            },
            "עע\"ם 1234/05 פלוני נ' הוועדה המקומית לתכנון ובנייה תל אביב, פס' 12 (נבו 12.8.2007)",
        ),
        (
            {
                "case_number": "ערר (מרכז) 1042/23",
                "title": "ערר (מרכז) 1042/23 – שימוש חורג לגן ילדים",
                "decided_on": "2024-04-03",
                "kind": "decision",
                "content": HEADER,
            },
            "ערר (מרכז) 1042/23 י' כהן ואח' נ' הוועדה המקומית לתכנון ובנייה מודיעין"
            " (החלטה מיום 3.4.2024)",
        ),
        # A committee decision without parties or date: no empty parentheses, no stray comma.
        (
            {"case_number": "ערר (מרכז) 1042/23", "title": "שימוש חורג", "kind": "decision"},
            "ערר (מרכז) 1042/23",
        ),
        (
            {"case_number": "ערר 8801/24", "title": None, "paragraph": "4", "kind": "decision"},
            "ערר 8801/24, פס' 4",
        ),
        # A ruling without parties, with a date only.
        (
            {"case_number": 'עע"מ 1/20', "title": None, "decided_on": "2020-01-05"},
            'עע"מ 1/20 (נבו 5.1.2020)',
        ),
        # Gershayim and a Hebrew geresh in the parties; niqqud dropped.
        (
            {
                "case_number": 'בג"ץ 10/21',
                "title": "בג״ץ 10/21 כֹּהֵן נ׳ שר הפנים",
                "decided_on": "2021-02-03",
            },
            "בג\"ץ 10/21 כהן נ' שר הפנים (נבו 3.2.2021)",
        ),
        # A case document: its number and pinpoint, never a date.
        (
            {
                "case_number": "ערר (מרכז) 7001/25",
                "title": "כתב ערר – ערר (מרכז) 7001/25",
                "decided_on": "2025-01-01",
                "page": 2,
                "kind": "document",
            },
            "ערר (מרכז) 7001/25, עמ' 2",
        ),
        # Nothing known: an empty citation, not punctuation.
        ({"case_number": None, "title": None}, ""),
    ],
)
def test_forms(fields, expected):
    assert israeli_citation(**fields) == expected


def test_kind_and_parties():
    assert kind_of("legislation") == "legislation"
    assert kind_of("ruling", "external_upload", "external", 'עע"מ 1/20') == "ruling"
    assert kind_of("decision", "internal_committee", "internal") == "decision"
    assert kind_of("document", None, "style") == "decision"
    assert kind_of("document", None, "case", "ערר 1/24") == "document"
    assert kind_of(case_number='ערר (ת"א) 5/24') == "decision"  # a ruling-less library entry
    # A prefix letter before the parties' word is not the word (ונגד is not נגד).
    assert parties("ערר 5/24 כהן ונגדו", "ערר 5/24") is None
    assert cited_parties("ערר 5/24", "ערר 5/24", HEADER) == (
        "י' כהן ואח' נ' הוועדה המקומית לתכנון ובנייה מודיעין"
    )


@pytest.mark.parametrize(
    "title, case_number, expected",
    [
        # the case number inside a longer one is not it: the parties follow the number itself
        ("ערר 11042/23 ו-ערר 1042/23 כהן נ' הוועדה", "ערר 1042/23", "כהן נ' הוועדה"),
        ("ערר 1042/234 כהן נ' הוועדה", "ערר 1042/23", "ערר 1042/234 כהן נ' הוועדה"),
        ("ערר 1042/23/1 כהן נ' הוועדה", "ערר 1042/23", "ערר 1042/23/1 כהן נ' הוועדה"),
        ("ערר 1042/23, כהן נ' הוועדה", "ערר 1042/23", "כהן נ' הוועדה"),
        # at the end of the title, nothing is left to name the parties
        ("כהן נ' הוועדה, ערר 1042/23", "ערר 1042/23", None),
    ],
)
def test_the_parties_follow_the_case_number_itself_not_a_longer_one(title, case_number, expected):
    assert parties(title, case_number) == expected


def test_parties_are_read_once_for_the_same_texts():
    cited_parties.cache_clear()
    for _ in range(3):
        assert cited_parties(DEMO_TITLE, 'עע"מ 9101/20') == "פלוני נ' הוועדה המקומית"
    info = cited_parties.cache_info()
    assert (info.misses, info.hits) == (1, 2)
