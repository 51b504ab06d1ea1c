"""Citation extraction and normalization (text/citations.py), and the reference leg that finds
the sections and rulings a query names."""

import json
import re

import pytest

import factories
from helpers import FIXTURES, shared, write
from legal_ai.retrieval import legs
from legal_ai.text.citations import PBL, extract, section_refs


def refs(text: str) -> list[str]:
    return [c.ref for c in extract(text)]


@pytest.mark.parametrize(
    "text",
    [
        "בג\"ץ 1234/05 פלוני נ' שר הפנים",
        "בג״ץ 1234/05",
        'בג"צ 1234-05',
        "בגץ 1234/05",
        'ובבג"ץ 1234/05',
    ],
)
def test_spelling_variants_of_one_ruling_share_a_ref(text):
    assert refs(text) == ['בג"ץ 1234/05']


@pytest.mark.parametrize(
    ("text", "ref"),
    [
        # the normalizer's own spelling of the new form, and every dash between its parts
        ("עת\"מ (תל אביב) 12345/06/19 פלוני נ' הוועדה", 'עת"מ (תל אביב) 12345/06/19'),
        ('עת"מ 1234–05–19', 'עת"מ 1234/05/19'),
        ('עת"מ 1234—05—19', 'עת"מ 1234/05/19'),
        ('עת"מ 1234\u201105\u201119', 'עת"מ 1234/05/19'),
        ('עת"מ 1234-05-2019', 'עת"מ 1234/05/19'),  # the month is not the year
        # a geresh, or two, written for the gershayim
        ("בג''ץ 1234/05", 'בג"ץ 1234/05'),
        ("ע׳׳א 1234/05", 'ע"א 1234/05'),
        ("עע'מ 1234/05", 'עע"מ 1234/05'),
        # the number's word, before or after the district
        ("ערר מספר 1042/23", "ערר 1042/23"),
        ("ערר (מרכז) מס' 1042/23", "ערר (מרכז) 1042/23"),
        # niqqud and the bidi marks pdftotext leaves around a number
        ('בְּג"ץ 1234/05', 'בג"ץ 1234/05'),
        ('בג"ץ \u200e1234/05', 'בג"ץ 1234/05'),
        ('בג"ץ \u202a1234/05\u202c', 'בג"ץ 1234/05'),
    ],
)
def test_a_ruling_is_read_as_decisions_write_it(text, ref):
    (citation,) = extract(f"ראו {text}, שם.")
    assert citation.ref == ref
    # the span is the original's, niqqud and marks included
    assert f"ראו {text}, שם."[citation.start : citation.end] == citation.text
    assert citation.text.startswith(text.split()[0])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('עע"מ 1234/05 ו-5678/06', ['עע"מ 1234/05', 'עע"מ 5678/06']),
        ('בג"ץ 1234/05, 5678/06', ['בג"ץ 1234/05', 'בג"ץ 5678/06']),
        ("עררים (מרכז) 1042/23 ו-1043/23", ["ערר (מרכז) 1042/23", "ערר (מרכז) 1043/23"]),
        ('עת"מ 1234-05-19 ו-5678-06-20', ['עת"מ 1234/05/19', 'עת"מ 5678/06/20']),
        ('ע"א 1234/05, 12/03/2005', ['ע"א 1234/05']),  # a date after the comma is no case
    ],
)
def test_every_number_of_one_proceeding_is_a_citation(text, expected):
    assert refs(text) == expected


def test_the_last_of_several_numbers_carries_the_parties():
    text = 'בג"ץ 1234/05, 5678/06 פלוני נ\' שר הפנים, פ"ד נח(3) 123.'
    first, second = extract(text)
    assert (first.text, first.parties, first.reporter) == ('בג"ץ 1234/05', None, None)
    assert second.text == "5678/06 פלוני נ' שר הפנים, פ\"ד נח(3) 123"
    assert (second.parties, second.reporter) == ("פלוני נ' שר הפנים", 'פ"ד נח(3) 123')
    assert first.end <= second.start  # the spans do not overlap


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("סעיף 8 לחוק-יסוד: כבוד האדם וחירותו", ["חוק יסוד: כבוד האדם וחירותו, סעיף 8"]),
        ("סעיף 3 לחוק יסוד: השפיטה קובע", ["חוק יסוד: השפיטה, סעיף 3"]),
        (
            'סעיף 5 לחוק בתי משפט לעניינים מינהליים, התש"ס-2000',
            ['חוק בתי משפט לעניינים מינהליים, התש"ס-2000, סעיף 5'],
        ),
        ("סעיפים 197 ו-200 לחוק", [f"{PBL}, סעיף 197", f"{PBL}, סעיף 200"]),
        ("סעיפים 152-153 לחוק", [f"{PBL}, סעיף 152", f"{PBL}, סעיף 153"]),
        ("לפי סעיף 62א, 62ב לחוק", [f"{PBL}, סעיף 62א", f"{PBL}, סעיף 62ב"]),
        ("סע' 197 לחוק", [f"{PBL}, סעיף 197"]),
        ("לפי סעיף 152, 3 עוררים טענו", []),  # no law named: not a citation
    ],
)
def test_statutes_as_decisions_write_them(text, expected):
    assert refs(text) == expected


def test_dates_and_plans_are_not_rulings():
    for text in ("ביום 12/05", "ניתן 12/05/2020", 'תמ"א 38', "תכנית מק/1234"):
        assert [c for c in extract(text) if c.kind == "ruling"] == []


def test_ruling_with_district_and_parties():
    text = "ראו ערר (מרכז) 8123/21 א.ב. יזמות בע\"מ נ' הוועדה המקומית רעננה, שם נקבע."
    (citation,) = extract(text)
    assert citation.ref == "ערר (מרכז) 8123/21"
    assert citation.text == "ערר (מרכז) 8123/21 א.ב. יזמות בע\"מ נ' הוועדה המקומית רעננה"
    assert text[citation.start : citation.end] == citation.text


def test_statute_references_name_their_law():
    text = (
        "לפי סעיף 152(א)(2) לחוק, ובהתאם לסעיף 14(ב)(4) לתוספת השלישית ולתקנה 2(6)(א) "
        "לתקנות הסטייה הניכרת; סעיף 5 להסכם אינו חוק."
    )
    assert refs(text) == [
        f"{PBL}, סעיף 152(א)(2)",
        f"{PBL}, התוספת השלישית, סעיף 14(ב)(4)",
        'תקנות התכנון והבנייה (סטייה ניכרת מתכנית), התשס"ב-2002, תקנה 2(6)(א)',
    ]


def test_a_query_may_name_a_bare_section():
    assert [c.section for c in section_refs("מה קובע סעיף 197 על פיצויים")] == ["197"]
    assert extract("מה קובע סעיף 197 על פיצויים") == []  # in a decision a law must be named


def test_reference_lookups_match_akoma_ntoso_eids():
    (lookup,) = legs.references("סעיף 19(ב)(10) לתוספת השלישית")
    assert lookup.column == "eid"
    for eid in ("appendix_שלישית__point_19", "appendix_השלישית_היטל__point_19"):
        assert re.search(lookup.pattern, eid)
    for eid in ("point_19", "appendix_שלישית__point_190", "appendix_רביעית__point_19"):
        assert not re.search(lookup.pattern, eid)
    (ruling,) = legs.references("מה נפסק בעעמ 1234-05?")
    assert (ruling.column, ruling.pattern, ruling.proceeding, ruling.district) == (
        "ruling",
        "1234/05",
        'עע"מ',
        "",
    )


def test_every_fixture_final_yields_its_labeled_citations():
    for record in factories.records():
        found = [c for c in extract(record["final_text"]) if c.kind != "plan"]
        assert {c.ref for c in found} - {record["case_number"]} == {
            c["ref"] for c in record["citations"]
        }, record["case_number"]
        spans = {(c.ref, c.text) for c in found}
        assert all((c["ref"], c["text"]) in spans for c in record["citations"])
    # rulings recur across decisions, as the learning loop's corroboration counts need
    cited = [{c["ref"] for c in r["citations"]} for r in factories.records()]
    assert sum('עע"מ 9230/22' in refs for refs in cited) == 2


@pytest.mark.shared
def test_every_final_of_the_synthetic_decisions_yields_its_labeled_citations():
    path = shared("synthetic-decisions", "decisions.jsonl")
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        named = extract(record["final_text"])
        found = {c.ref for c in named if c.kind != "plan"} - {record["case_number"]}
        assert found == {c["ref"] for c in record["citations"]}, record["case_number"]


@pytest.mark.db
def test_the_reference_leg_finds_the_named_section_and_ruling(app, tmp_path):
    assert app.ingest([FIXTURES / "mini-law.xml"], "external").ingested == 2
    ruling = write(tmp_path / "r.txt", "פסק דין בעניין מועדים להגשת ערר לוועדה.")
    meta = {
        "title": "פלוני",
        "court": "העליון",
        "decided_on": "2020-01-01",
        "case_number": 'עע"מ 1234/05',
    }
    assert app.ingest([ruling], "external", meta=meta, doc_id="r").ingested == 1
    hits = app.search("external", "סעיף 2", limit=3).hits
    assert hits[0]["doc_id"].endswith("#point_2")
    assert "reference" in hits[0]["explain"]
    lexical = app.search("external", "עעמ 1234-05 מועדים", limit=3, mode="lexical").hits
    assert lexical[0]["doc_id"] == "r" and lexical[0]["explain"]["reference"] == {"rank": 1}
    semantic = app.search("external", "סעיף 2", limit=3, mode="semantic").hits
    assert all("reference" not in h["explain"] for h in semantic)
