import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from legal_ai.text.case_numbers import normalize_case_number
from legal_ai.text.hebrew import (
    analyze,
    clean_text,
    get_analyzer,
    normalize,
    prefix_variants,
    query_terms,
    tokens,
)
from legal_ai.text.synonyms import _PHRASES, SYNONYMS, expand_query


def test_niqqud_and_quotes_are_folded():
    assert normalize("בְּהֶיתֵּר") == "בהיתר"
    assert normalize("בג״ץ") == 'בג"ץ'
    assert normalize("נ׳") == "נ'"
    assert normalize("“מקרקעין”") == '"מקרקעין"'


def test_bidi_marks_nul_and_controls_are_removed():
    assert clean_text("\u202bשלום\u202c\x00 עולם\r\n") == "שלום עולם\n"


def test_case_numbers_acronyms_and_sections_stay_single_tokens():
    assert tokens('עע"מ 1234/05 לפי סעיף 152(א)(2) לחוק') == [
        "עעמ",
        "1234/05",
        "לפי",
        "סעיף",
        "152א2",
        "לחוק",
    ]
    assert tokens("עע״מ 8046/24") == ["עעמ", "8046/24"]


def test_prefix_variants_keep_three_letters():
    # the rule strips up to three prefix letters; over-stripping (יתר) is measured in issue 4
    assert prefix_variants("ובהיתר") == ["בהיתר", "היתר", "יתר"]
    assert prefix_variants("לחוק") == ["חוק"]
    assert prefix_variants("בית") == []


def test_analyze_adds_stripped_forms_and_section_numbers():
    from legal_ai.text.hebrew import get_analyzer

    assert get_analyzer("he-prefix-v1").analyze("ובהיתר לפי סעיף 152(א)").split() == [
        "ובהיתר",
        "בהיתר",
        "היתר",
        "יתר",
        "לפי",
        "סעיף",
        "152א",
        "152",
    ]


def test_query_terms_are_distinct_and_empty_for_punctuation():
    assert query_terms("סעיף סעיף") == ["סעיף"]
    assert analyze("ובבנייה") == "ובבניה בבניה בניה"  # the default folds יי, keeps 4 letters
    assert query_terms("!!! ...") == []
    assert query_terms("ְֱֲ") == []  # only niqqud


def test_case_number_normalization_keeps_the_full_number():
    assert normalize_case_number("  ערר  (מרכז)  1042/23 ") == "ערר (מרכז) 1042/23"
    assert normalize_case_number("בל״מ 1042/23") == 'בל"מ 1042/23'
    assert normalize_case_number("ערר 1042/23") != normalize_case_number('בל"מ 1042/23')


def test_analyzer_variants():
    from legal_ai.text.hebrew import get_analyzer

    assert get_analyzer("he-plain-v1").analyze("ובהיתר") == "ובהיתר"
    assert get_analyzer("he-prefix4-v1").analyze("ובהיתר") == "ובהיתר בהיתר היתר"
    # spelling folding: the law's הועדה / בניה meet today's הוועדה / בנייה
    fold = get_analyzer("he-fold-prefix4-v1")
    assert fold.query_terms("הוועדה") == fold.query_terms("הועדה")
    assert fold.analyze("בנייה") == fold.analyze("בניה")


def test_synonyms_add_the_statutes_words():
    assert expand_query("כמה משלמים מס השבחה") == "כמה משלמים מס השבחה היטל השבחה"
    assert expand_query("ובמס השבחה") == "ובמס השבחה היטל השבחה"  # prefixes count
    assert expand_query("היתר בנייה") == "היתר בנייה"
    # a pasted page: the phrase found at its end, in a row only, each phrase's words added once
    page = "הוועדה דנה בבקשה להיתר בנייה ובהתנגדויות לה. " * 110
    assert expand_query(page + "ושילמו מס השבחה") == page + "ושילמו מס השבחה היטל השבחה"
    assert expand_query(page + "מס על השבחה") == page + "מס על השבחה"
    both = expand_query("טאבו ומס השבחה, שוב מס השבחה")
    assert both == "טאבו ומס השבחה, שוב מס השבחה היטל השבחה רישום מקרקעין"


# Words the property tests draw from: every colloquial phrase's words, with and without prefix
# letters, the statute's words, and others.
_WORDS = sorted(
    {w for said, law in SYNONYMS for w in f"{said} {law}".split()}
    | {"ו" + w for w in ("מס", "השבחה", "חריגת", "בנייה")}
    | {"ב" + w for w in ("היתר", "טאבו", "הריסה")}
    | {"הוועדה", "סעיף", "152א2", 'עע"מ', "1234/05", "על", "של", "."}
)


def _phrase_in_a_row(forms: list[set[str]], phrase: list[str]) -> bool:
    """The definition: the phrase's tokens at consecutive positions of the query's forms."""
    return any(
        all(phrase[i] in forms[start + i] for i in range(len(phrase)))
        for start in range(len(forms) - len(phrase) + 1)
    )


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), max_size=40))
def test_synonyms_are_found_exactly_where_the_phrase_stands_in_a_row(words):
    """expand_query looks a phrase up only where its first word stands; it adds exactly what
    trying every position would."""
    text = " ".join(words)
    forms = [{t, *prefix_variants(t, min_stem=2)} for t in tokens(text)]
    added = [
        law for said, law in SYNONYMS if law != said and _phrase_in_a_row(forms, _PHRASES[said])
    ]
    assert expand_query(text) == " ".join([text, *added])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), max_size=60))
def test_a_querys_terms_are_its_texts_distinct_terms_in_order(words):
    """query_terms analyzes each distinct token once; the terms are the text's, deduplicated
    in the order they first appear, for every analyzer."""
    text = " ".join(words)
    for analyzer_id in ("he-plain-v1", "he-prefix4-v1", "he-fold-prefix4-v1"):
        analyzer = get_analyzer(analyzer_id)
        assert analyzer.query_terms(text) == list(dict.fromkeys(analyzer.terms(text)))


needs_hspell = pytest.mark.skipif(shutil.which("hspell") is None, reason="hspell not installed")


@needs_hspell
def test_hspell_lemmas_follow_the_preferred_reading():
    from legal_ai.text import morphology

    found = morphology.lemmas(
        ["והקלות", "בקשות", "להיתרים", "ויגישו", "ערר", "קוקוריקוזלבט", "152"]
    )
    assert found == {
        "והקלות": ("הקלה",),
        "בקשות": ("בקשה",),
        "להיתרים": ("היתר",),
        "ויגישו": ("הגיש",),
        "ערר": ("ערר",),
        "קוקוריקוזלבט": (),
    }
    terms = get_analyzer("he-fold-prefix4-hspell-v1").query_terms("בקשות להיתרים")
    assert {"בקשה", "היתר", "בקשות", "היתרים"} <= set(terms)


def test_an_hspell_analyzer_falls_back_and_says_so(monkeypatch, caplog):
    from legal_ai.text import hebrew, morphology

    monkeypatch.setenv("PATH", "/nonexistent")
    morphology.available.cache_clear()
    hebrew._fallback.cache_clear()
    try:
        analyzer = get_analyzer("he-fold-prefix4-hspell-v1")
    finally:
        morphology.available.cache_clear()
    assert analyzer.id == "he-fold-prefix4-v1"
    assert "hspell is not installed" in caplog.text


def test_the_settings_know_the_analyzers_the_text_layer_defines():
    from legal_ai.config_checks import ANALYZER_IDS
    from legal_ai.text.hebrew import ANALYZERS

    assert tuple(ANALYZERS) == ANALYZER_IDS
