"""One identity per ruling (issue 21, item 1): the case-number normalizer folds district names and
abbreviations to one spelling, `case_id` reads a case number's proceeding, district and
number/year, and `resolve` matches a citation to the library's items of its number by the whole
identity — ambiguous when several fit, never guessed."""

import pytest

from legal_ai.text.case_numbers import (
    EXACT,
    WITHOUT_DISTRICT,
    CaseId,
    case_id,
    fold_district,
    identity_columns,
    normalize_case_number,
    resolve,
    same_case,
)


@pytest.mark.parametrize(
    ("written", "folded"),
    [
        ("י-ם", "ירושלים"),
        ("ירושלים", "ירושלים"),
        ('ת"א', "תל אביב"),
        ("ת״א", "תל אביב"),
        ("תל אביב", "תל אביב"),
        ("תל-אביב", "תל אביב"),
        ("תל אביב-יפו", "תל אביב"),
        ('ת"א-יפו', "תל אביב"),
        ("חי'", "חיפה"),
        ("חיפה", "חיפה"),
        ('ב"ש', "באר שבע"),
        ("באר-שבע", "באר שבע"),
        ("נצ'", "נצרת"),
        ("מרכז", "מרכז"),
        ("מחוז מרכז", "מרכז"),
        ("מרכז-לוד", "מרכז"),
        ("צפון", "צפון"),
        ("דרום", "דרום"),
        ('מחוזי ת"א', "תל אביב"),
        ('שלום ת"א', "שלום תל אביב"),  # the magistrates' court is not the district court
        ("עכו", "עכו"),  # unknown: kept as written
    ],
)
def test_district_names_and_abbreviations_fold_to_one_spelling(written, folded):
    assert fold_district(written) == folded


def test_the_normalizer_spells_every_variant_of_one_case_number_alike():
    one = {
        normalize_case_number(v)
        for v in (
            'ערר (ת"א) 1042/23',
            "ערר (תל אביב-יפו) 1042/23",
            "ערר(תל-אביב) 1042 / 23",
            "ערר (ת״א) 1042-23",
            "ערר מס' (תל אביב) 01042/23",
        )
    }
    assert one == {"ערר (תל אביב) 1042/23"}
    assert normalize_case_number("ערר מס' 55/20") == "ערר 55/20"
    assert normalize_case_number("בגצ 1234-05") == 'בג"ץ 1234/05'
    assert normalize_case_number('עת"מ 12345-06-19') == 'עת"מ 12345/06/19'
    # every dash between the parts, and a geresh (one or two) written for the gershayim
    for dash in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212":
        assert normalize_case_number(f"ערר 1042{dash}23") == "ערר 1042/23"
    for written in ("בג''ץ 1234/05", "בג׳׳ץ 1234/05", "בג'ץ 1234/05", "בגץ 1234/05"):
        assert normalize_case_number(written) == 'בג"ץ 1234/05'
    assert normalize_case_number("עע'מ 1234/05") == 'עע"מ 1234/05'
    # different identities stay different keys
    assert normalize_case_number('עע"מ 1234/05') != normalize_case_number('בג"ץ 1234/05')
    assert normalize_case_number("ערר (מרכז) 1042/23") != normalize_case_number(
        "ערר (תל אביב) 1042/23"
    )


def test_case_id_reads_proceeding_district_and_number():
    assert case_id("עע\"מ 1234/05 פלוני נ' הוועדה") == CaseId('עע"מ', None, "1234/05")
    assert case_id('ערר (ת"א) 1042/23') == CaseId("ערר", "תל אביב", "1042/23")
    assert case_id("1234/05") == CaseId(None, None, "1234/05")
    assert case_id("עת\"מ (חי') 12345-06-19") == CaseId('עת"מ', "חיפה", "12345/06/19")
    assert case_id("יומון התכנון, גיליון מרץ") is None
    assert case_id("") is None and case_id(None) is None
    assert CaseId("ערר", "מרכז", "1042/23").key == "ערר (מרכז) 1042/23"
    assert identity_columns("ערר (י-ם) 7/20") == {
        "ruling_proceeding": "ערר",
        "ruling_district": "ירושלים",
        "ruling_number": "7/20",
    }
    assert identity_columns(None) == dict.fromkeys(identity_columns(None))


CENTER = CaseId("ערר", "מרכז", "1042/23")
TLV = CaseId("ערר", "תל אביב", "1042/23")
JLM = CaseId("ערר", "ירושלים", "1042/23")


def test_resolve_matches_the_whole_identity_and_never_guesses():
    bagatz, aam = CaseId('בג"ץ', None, "1234/05"), CaseId('עע"מ', None, "1234/05")
    library = [(1, bagatz), (2, aam), (3, CENTER), (4, TLV), (5, JLM)]
    # another court's ruling of the same number is never the one cited
    assert resolve(aam, library).target == 2
    assert resolve(bagatz, library).target == 1
    assert resolve(CaseId('ע"א', None, "1234/05"), library).target is None
    # another district's decision of the same number neither
    assert (resolve(TLV, library).target, resolve(TLV, library).basis) == (4, EXACT)
    assert resolve(CaseId("ערר", "חיפה", "1042/23"), library).target is None
    # no district, three fit: ambiguous, the candidates shown
    found = resolve(CaseId("ערר", None, "1042/23"), library)
    assert found.target is None and found.ambiguous and set(found.candidates) == {3, 4, 5}
    # no district, one fits: linked, marked as matched without its district
    one = resolve(CaseId("ערר", None, "1042/23"), [(3, CENTER)])
    assert (one.target, one.basis, one.candidates) == (3, WITHOUT_DISTRICT, ())
    # an item that names no proceeding is never linked silently: the chair confirms it
    bare = resolve(aam, [(9, CaseId(None, None, "1234/05"))])
    assert bare.target is None and bare.candidates == (9,)
    # the same identity twice (a ruling in both corpora): the first, exactly
    assert resolve(CENTER, [(3, CENTER), (7, CENTER)]).target == 3
    assert resolve(CaseId("ערר", None, "55/20"), [(8, CaseId("ערר", None, "55/20"))]).basis == EXACT


def test_same_case_reads_the_identity_not_the_spelling():
    assert same_case("ערר 1042/23", "ערר (מרכז) 1042/23")  # her own case, district left out
    assert same_case('ערר (ת"א) 1042-23', "ערר (תל אביב) 1042/23")
    assert not same_case("ערר (צפון) 1042/23", "ערר (מרכז) 1042/23")
    assert not same_case('בל"מ 1042/23', "ערר 1042/23")
    assert not same_case("ערר 1042/23", "ערר 1043/23")
    assert not same_case(None, "ערר 1042/23") and not same_case("ערר", "ערר")


def test_a_year_with_its_century_is_the_same_ruling():
    assert case_id("ערר 1042/2023") == case_id("ערר 1042/23") == CaseId("ערר", None, "1042/23")
    assert case_id('עת"מ 1234/05/2019').number == "1234/05/19"
    assert case_id("ערר 1042/1999").number == "1042/99"
    assert case_id('ע"א 12/2105').number == "12/2105"  # no century: kept as written
    assert normalize_case_number("ערר 1042/2023") == "ערר 1042/2023"  # the key keeps it
    assert same_case("ערר (מרכז) 1042/2023", "ערר 1042/23")
