"""Every authority in a draft checked as a careful clerk would (issue 33 items 1-2): each
citation's status (its most serious problem), all its problems with what was compared, what was
verified, and the passage of the cited ruling that supports the sentence citing it. The
library is made here: four fictional rulings (one a PDF with pages, one without numbered
paragraphs) and a tiny statute under the Planning and Building Law's title."""

import json

import pytest

import factories
from helpers import write
from legal_ai.learning.checks import (
    citation_check,
    citation_names,
    citation_states,
    citation_support,
    copy_policy,
)
from shapes import assert_shape

pytestmark = pytest.mark.db

CASE = "ערר (מרכז) 4040/25"
P1 = (
    "1. רקע: המערערים ביקשו היתר לתוספת קומה רביעית בבניין מגורים ברחוב הגפן, והוועדה "
    "המקומית סירבה לבקשה לאחר ששמעה את התנגדויות השכנים ואת עמדת מהנדס העיר בעניין."
)
P2 = (
    "2. ועדת הערר דחתה את הערר ברוב דעות, וקבעה כי התוספת המבוקשת חורגת ממספר הקומות "
    "שהתכנית החלה על המגרש מתירה, וכי אין בנימוקי המערערים כדי להצדיק חריגה כזו."
)
P3 = (
    "3. הקלה אינה יכולה לשמש דרך לאשר סטייה ניכרת מתכנית. תוספת קומה מעבר למספר הקומות "
    "שבתכנית היא סטייה ניכרת, ומוסד התכנון אינו מוסמך להתירה בדרך של הקלה אלא בשינוי התכנית."
)
P4 = "4. הערעור נדחה. המערערים יישאו בהוצאות המשיבה בסך 10,000 ש״ח."
RULINGS = [
    {  # four numbered paragraphs; the parties in its title, the committee by its long name
        "doc_id": "r-5151",
        "doc_type": "ruling",
        "title": "כהן נ' הוועדה המקומית לתכנון ובנייה חיפה",
        "case_number": 'עע"מ 5151/19',
        "court": "העליון",
        "decided_on": "2020-06-01",
        "text": "\n".join((P1, P2, P3, P4)),
    },
    {  # an anonymised ruling
        "doc_id": "r-6262",
        "doc_type": "ruling",
        "title": "פלוני נ' הוועדה המקומית לתכנון ובנייה רעננה",
        "case_number": 'עע"מ 6262/20',
        "decided_on": "2021-01-01",
        "text": "1. פסק דין בדוי בעניין היטל השבחה.\n2. הערעור מתקבל.",
    },
    {  # first names, ואח' and (בדויים) in its title
        "doc_id": "r-7373",
        "doc_type": "ruling",
        "title": "יוסי לוי ואח' (בדויים) נ' הוועדה המקומית לתכנון ובנייה הרצליה",
        "case_number": 'עע"מ 7373/21',
        "decided_on": "2022-01-01",
        "text": "1. פסק דין בדוי בעניין קו בניין.\n2. הערעור נדחה.",
    },
    {  # no parties in its title (its header's party lines name them), no numbered paragraphs
        "doc_id": "r-8484",
        "doc_type": "ruling",
        "title": "החלטה בעניין חניה",
        "case_number": 'עע"מ 8484/22',
        "decided_on": "2023-01-01",
        "text": "העותרים: דוד מזרחי\nהמשיבים: הוועדה המקומית לתכנון ובנייה נתניה\n"
        "פסק דין בדוי. דרישת מקומות החניה נקבעת לפי התקן שבתכנית. העתירה נדחית.",
    },
]
STATUTE = (
    """<?xml version="1.0" encoding="utf-8"?>
<akomaNtoso xmlns="http://docs.oasis-open.org/legaldocml/ns/akn/3.0">
  <act contains="originalVersion" name="publicLaw">
    <meta><identification source="#test"><FRBRWork>
      <FRBRthis value="/akn/il/act/PrimaryLegislation/1965-01-01/990033/main" />
      <FRBRuri value="/akn/il/act/PrimaryLegislation/1965-01-01/990033" />
      <FRBRdate date="1965-01-01" name="Generation" />
    </FRBRWork></identification></meta>
    <body>
      <title><content><p>חוק התכנון והבנייה, התשכ"ה–1965</p></content></title>
      <chapter eId="chp_1"><num>פרק א׳:</num><list>
        <point eId="point_1"><num>1.</num>
          <content><p>בחוק זה – "תכנית" – תכנית מתאר או תכנית מפורטת.</p></content></point>
        <point eId="point_112"><num>112.</num><list>
          <point eId="point_112__point_א"><num>(א)</num>
            <content><p>ועדת ערר רשאית לדון בעררים אלה:</p></content>
            <list>"""
    + "".join(
        f'<point eId="point_112__point_א__point_{n}"><num>({n})</num>'
        f"<content><p>ערר מסוג {n}.</p></content></point>"
        for n in range(1, 7)
    )
    + """</list></point>
          <point eId="point_112__point_ב"><num>(ב)</num>
            <content><p>ההחלטה תינתן בכתב.</p></content></point>
        </list></point>
      </list></chapter>
    </body>
  </act>
</akomaNtoso>
"""
)


@pytest.fixture
def library(app, tmp_path):
    """The four rulings, one PDF ruling with two pages, and the tiny statute."""
    jsonl = write(
        tmp_path / "rulings.jsonl", "\n".join(json.dumps(r, ensure_ascii=False) for r in RULINGS)
    )
    assert app.ingest([jsonl], "external").ingested == len(RULINGS)
    pdf = factories.hebrew_pdf(
        tmp_path / "ruling.pdf",
        ["פסק דין בדוי בעניין גדר בין שכנים.", "הערעור נדחה כי הגדר נבנתה כדין ובהיתר."],
    )
    meta = {
        "title": "שושן נ' הוועדה המקומית אשדוד",
        "case_number": 'עע"מ 9595/23',
        "decided_on": "2024-01-01",
    }
    assert app.ingest([pdf], "external", meta=meta, doc_id="r-9595").ingested == 1
    law = write(tmp_path / "pbl.xml", STATUTE)
    assert app.ingest([law], "external").ingested == 2
    return app


def checked(app, text: str, embedder=True) -> list[dict]:
    """The draft's citations checked, each held to its type (DESIGN §10's `citations`)."""
    with app.store.connection() as conn:
        found = citation_check.check_citations(conn, CASE, text, app.embedder if embedder else None)
    assert_shape(found, list[citation_check.CheckedCitation])
    return found


def one(app, text: str, embedder=False) -> dict:
    [citation] = checked(app, text, embedder)
    assert citation["status"] == citation_states.status_of(citation["problems"])
    return citation


def kinds(citation: dict) -> list[str]:
    return [p["kind"] for p in citation["problems"]]


# -- the states, one test each -------------------------------------------------------------------


def test_a_citation_that_holds_says_what_was_verified(library):
    c = one(
        library,
        'נקבע כי "הקלה אינה יכולה לשמש דרך לאשר סטייה ניכרת מתכנית" '
        "(עע\"מ 5151/19 כהן נ' הוועדה המקומית חיפה, פס' 3).",
    )
    assert c["status"] == "found" and c["problems"] == [] and c["doc_id"] == "r-5151"
    assert c["verified"] == ["number", "parties", "quote", "pinpoint"]
    assert c["unchecked"] == [] and c["in_quotation"] is False
    # A bare number verifies the number only: a partial check never reads as a clean one.
    bare = one(library, 'ראו עע"מ 5151/19.')
    assert bare["status"] == "found" and bare["verified"] == ["number"]


def test_a_real_number_under_somebody_elses_parties_is_name_mismatch(library):
    c = one(library, "ראו עע\"מ 5151/19 אברהם נ' עיריית חיפה, שם נקבע כך.")
    assert c["status"] == "name_mismatch"
    assert c["problems"] == [
        {
            "kind": "name_mismatch",
            "written": "אברהם נ' עיריית חיפה",
            "library": "כהן נ' הוועדה המקומית לתכנון ובנייה חיפה",
        }
    ]
    assert "parties" not in c["verified"] and "number" in c["verified"]


@pytest.mark.parametrize(
    ("written", "same"),
    [
        # the authority's long and short names
        ("כהן נ' הוועדה המקומית חיפה", True),
        # spelling and prefix letters (הועדה / הוועדה, ולבניה / ובנייה)
        ("כהן נ' הועדה המקומית לתכנון ולבניה חיפה", True),
        # another city's committee is another party
        ("כהן נ' הוועדה המקומית עכו", False),
    ],
)
def test_names_fold_long_and_short_and_spelling(library, written, same):
    c = one(library, f'ראו עע"מ 5151/19 {written}, שם.')
    assert (c["status"] == "found") is same, c
    assert ("parties" in c["verified"]) is same


@pytest.mark.parametrize(
    ("cited", "same"),
    [
        ("עע\"מ 7373/21 י' לוי נ' הוועדה המקומית הרצליה", True),  # initials
        ("עע\"מ 7373/21 לוי ואח' נ' הוועדה המקומית הרצליה", True),  # ואח'
        ("עע\"מ 7373/21 יוסי לוי (בדויים) נ' הוועדה המקומית הרצליה", True),  # (בדויים)
        ("עע\"מ 6262/20 אלמוני נ' הוועדה המקומית רעננה", True),  # פלוני = אלמוני
        ("עע\"מ 6262/20 כהן נ' הוועדה המקומית רעננה", False),  # a name on an anonymised ruling
        ("עע\"מ 8484/22 מזרחי נ' הוועדה המקומית נתניה", True),  # parties from its header
        ("עע\"מ 8484/22 מזרחי נ' הוועדה המקומית חולון", False),
    ],
)
def test_names_fold_initials_others_anonymous_and_header(library, cited, same):
    c = one(library, f"ראו {cited}, שם.")
    assert (c["status"] == "found") is same, c
    if not same:
        assert c["problems"][0]["written"] in cited


def test_the_name_folds_alone():
    assert citation_names.same_parties(
        "הוועדה המקומית הרצליה נ' כהן", "הוועדה המקומית לתכנון ובנייה הרצליה נ' י' כהן ואח'"
    )
    assert not citation_names.same_parties("פלוני נ' הוועדה", "כהן נ' הוועדה")
    assert citation_names.side_keys("פלונית") == citation_names.side_keys("אלמוני")


def test_a_pinpoint_the_ruling_does_not_have(library):
    c = one(library, "ראו עע\"מ 5151/19, פס' 14.")
    assert c["status"] == "pinpoint_not_found"
    assert c["problems"] == [
        {
            "kind": "pinpoint_not_found",
            "pinpoint": "פס' 14",
            "unit": "paragraph",
            "missing": [14],
            "held": "1–4",
        }
    ]
    for written in ("פסקה 2", "בפסקה 2", "פסקאות 2–3", "פס' 1-4"):
        assert one(library, f'ראו עע"מ 5151/19, {written}.')["verified"] == [
            "number",
            "pinpoint",
        ], written
    assert one(library, 'ראו עע"מ 5151/19, פסקאות 3–6.')["problems"][0]["missing"] == [5, 6]


def test_a_quotation_in_another_paragraph_says_which(library):
    c = one(library, 'ראו עע"מ 5151/19, פס\' 2: "הקלה אינה יכולה לשמש דרך לאשר סטייה ניכרת".')
    assert c["status"] == "pinpoint_not_found"
    assert c["problems"][0]["quote_in"] == [3] and "missing" not in c["problems"][0]
    assert "quote" in c["verified"] and "pinpoint" not in c["verified"]


def test_a_page_of_a_pdf(library):
    assert one(library, "ראו עע\"מ 9595/23, עמ' 2.")["verified"] == ["number", "pinpoint"]
    c = one(library, "ראו עע\"מ 9595/23, עמ' 5.")
    assert c["status"] == "pinpoint_not_found"
    assert c["problems"][0]["unit"] == "page" and c["problems"][0]["held"] == "1–2"
    # A copy without pages cannot be checked for a page: lookup_failed, with why.
    none = one(library, "ראו עע\"מ 5151/19, עמ' 2.")
    assert none["status"] == "lookup_failed" and "no pages" in none["problems"][0]["why"]


def test_a_page_of_the_reporter_is_not_a_page_of_the_pdf(library):
    # `בעמ' 130` after `פ"ד …` is the volume's page, not the stored PDF's (pages 1–2): the check
    # cannot run, and says so, rather than calling a correct citation's page missing.
    c = one(library, 'ראו עע"מ 9595/23, פ"ד נח(3) 123, בעמ\' 130.')
    assert c["status"] == "lookup_failed"
    (problem,) = [p for p in c["problems"] if p["kind"] == "lookup_failed"]
    assert problem["unit"] == "page" and "reporter" in problem["why"]


def test_paragraphs_listed_spelled_and_lettered(library):
    # `פסקאות 2 ו-6`: paragraphs 2 and 6 (the ruling holds 1–4), not the range 2–6.
    c = one(library, 'ראו עע"מ 5151/19, פסקאות 2 ו-6.')
    assert c["status"] == "pinpoint_not_found" and c["problems"][0]["missing"] == [6]
    assert c["problems"][0]["pinpoint"] == "פסקאות 2 ו-6"
    for written in ("פיסקה 3", "פסקא 3", "פסקה 3א", "פסקאות 2 ו-3"):
        held = one(library, f'ראו עע"מ 5151/19, {written}.')
        assert "pinpoint" in held["verified"], written


def test_her_own_case_is_not_a_citation_written_without_its_district(app):
    # The draft of ערר (מרכז) 4040/25 names its own case without the district.
    assert checked(app, "בערר 4040/25 שלפנינו נטען כי ההיתר ניתן כדין.", False) == []


def test_lookup_failed_says_why(library):
    # A ruling whose text has no numbered paragraphs.
    c = one(library, "ראו עע\"מ 8484/22, פס' 3.")
    assert c["status"] == "lookup_failed"
    assert c["problems"][0]["why"] == "the ruling's text has no numbered paragraphs"
    # A malformed pinpoint.
    c = one(library, "ראו עע\"מ 5151/19, פס' א'.")
    assert c["status"] == "lookup_failed" and c["problems"][0]["pinpoint"] == "פס' א'"
    assert c["problems"][0]["why"] == "the pinpoint is not a number"


def test_sections_and_laws(library):
    held = one(library, "לפי סעיף 112(א)(6) לחוק התכנון והבנייה.")
    assert held["status"] == "found" and held["verified"] == ["law", "section"]
    c = one(library, "לפי סעיף 399 לחוק התכנון והבנייה.")
    assert c["status"] == "section_not_found"
    assert c["problems"] == [
        {"kind": "section_not_found", "law": 'חוק התכנון והבנייה, התשכ"ה–1965', "section": "399"}
    ]
    for sub in ("112(א)(7)", "112(ג)", "112(ב)(1)"):
        c = one(library, f"לפי סעיף {sub} לחוק התכנון והבנייה.")
        assert c["status"] == "section_not_found" and c["problems"][0]["section"] == sub, sub
        assert c["verified"] == ["law"]
    # A law the library lacks, by its name or by a short name nobody's law carries.
    for law in ("חוק המקרקעין", "חוק הרישוי"):
        c = one(library, f"לפי סעיף 12 ל{law}.")
        assert c["status"] == "law_not_in_library"
        assert c["problems"] == [{"kind": "law_not_in_library", "law": law, "section": "12"}]


def test_the_four_states_before_stay(library):
    c = one(library, 'ראו עע"מ 1111/11.')
    assert c["status"] == "not_in_library" and c["doc_id"] is None
    assert c["problems"] == [{"kind": "not_in_library", "looked_for": 'עע"מ 1111/11'}]
    c = one(library, 'נקבע כי "הוועדה רשאית לעשות כרצונה בכל עת" (עע"מ 5151/19).')
    assert c["status"] == "quote_not_found"
    assert c["problems"] == [
        {"kind": "quote_not_found", "quote": "הוועדה רשאית לעשות כרצונה בכל עת"}
    ]


def test_status_is_the_most_serious_problem(library):
    c = one(
        library,
        'נקבע כי "הוועדה רשאית לעשות כרצונה בכל עת" (עע"מ 5151/19 אברהם נ\' עיריית חיפה, פס\' 9).',
    )
    assert kinds(c) == ["name_mismatch", "quote_not_found", "pinpoint_not_found"]
    assert c["status"] == "name_mismatch"
    order = citation_states.SEVERITY
    assert order.index("not_in_library") < order.index("name_mismatch") < order.index("found")
    assert order[-1] == "found" and len(set(order)) == len(order)


# -- support and attention -------------------------------------------------------------------------


def test_the_passage_that_supports_a_sentence(library):
    strong = (
        "מוסד התכנון אינו מוסמך להתיר תוספת קומה שהיא סטייה ניכרת בדרך של הקלה "
        "(עע\"מ 5151/19 כהן נ' הוועדה המקומית חיפה)."
    )
    weak = 'דמי השכירות של דירות בעיר עלו מאוד בשנים האחרונות (עע"מ 5151/19).'
    [good] = checked(library, strong)
    support = good["support"]
    assert support["paragraph"] == "3" and "סטייה ניכרת" in support["passage"]
    content = "\n".join((P1, P2, P3, P4))
    assert content[support["char_start"] : support["char_end"]] == support["passage"]
    assert support["embedder"] == library.embedder.id
    assert support["score"] >= citation_support.WEAK_SUPPORT and good["attention"] == []
    assert good["problems"] == []  # support is not a problem
    [poor] = checked(library, weak)
    assert poor["support"]["score"] < citation_support.WEAK_SUPPORT
    assert poor["attention"] == [
        {
            "kind": "weak_support",
            "score": poor["support"]["score"],
            "threshold": citation_support.WEAK_SUPPORT,
        }
    ]
    assert poor["status"] == "found" and poor["problems"] == []
    # The library is not embedded again: its chunks' stored vectors are the passages'.
    calls = library.embedder.calls
    checked(library, strong + " " + weak)
    assert library.embedder.calls == calls


def test_no_support_for_a_quotation_or_a_bare_reference(library):
    [quoted] = checked(library, 'נקבע כי "הקלה אינה יכולה לשמש דרך" (עע"מ 5151/19).')
    assert quoted["support"] is None and quoted["attention"] == []
    [bare] = checked(library, 'ראו גם עע"מ 5151/19.')
    assert bare["support"] is None


# -- bad input ---------------------------------------------------------------------------------------


def test_a_citation_inside_a_quotation(library):
    text = 'כך נפסק: "כאמור בעע"מ 5151/19 כהן נ\' הוועדה המקומית חיפה, ההקלה אינה סטייה" (עע"מ 6262/20).'
    by_ref = {c["ref"]: c for c in checked(library, text)}
    inner, outer = by_ref['עע"מ 5151/19'], by_ref['עע"מ 6262/20']
    assert inner["in_quotation"] is True and inner["support"] is None
    assert inner["status"] == "found" and "parties" in inner["verified"]
    # The quotation is the outer citation's, and its text is not in 6262/20's.
    assert outer["in_quotation"] is False and outer["status"] == "quote_not_found"


def test_no_citations_and_too_many(library, tmp_path):
    report = copy_policy.check(library, CASE, write(tmp_path / "none.txt", "טקסט בלי אסמכתאות."))
    assert report["citations"] == [] and "citations_stopped" not in report
    many = " ".join(f'ראו עע"מ {1000 + n}/19.' for n in range(citation_check.MAX_CITATIONS + 100))
    with library.store.connection() as conn:
        before = conn.execute("SELECT count(*) AS n FROM learning_audit").fetchone()["n"]
        found, stopped = citation_check.check_all(conn, CASE, many, None)
        assert conn.execute("SELECT count(*) AS n FROM learning_audit").fetchone()["n"] == before
        assert conn.execute("SELECT count(*) AS n FROM drafts").fetchone()["n"] == 0
    assert len(found) == citation_check.MAX_CITATIONS
    limit = citation_check.MAX_CITATIONS
    assert stopped.startswith(f"checked the first {limit} of {limit + 100} citations")
    assert f"{1000 + limit}/19" in stopped and f"{1000 + limit - 1}/19" not in stopped
