"""A principle's term from its source (retrieval/terms.py): הלכה for a binding ruling of the
Supreme or a district court, עיקרון otherwise, כלל פרשני for a committee's own decisions; the
court named by a case number's proceeding. Pure: no database. The term on the desk's hits:
desk/test_desk_search.py."""


def test_principle_term_from_its_source():
    from legal_ai.retrieval.terms import court_of_case_number, principle_term

    assert principle_term("external_upload", "בית המשפט העליון", True) == "הלכה"
    assert principle_term("external_upload", "בית המשפט המחוזי בתל אביב", True) == "הלכה"
    assert principle_term("external_upload", "בית המשפט המחוזי בתל אביב", False) == "עיקרון"
    assert principle_term("external_upload", "בית משפט השלום בחיפה", True) == "עיקרון"
    assert principle_term("external_upload", "ועדת ערר מחוז מרכז", True) == "כלל פרשני"
    assert principle_term("internal_committee", None, False) == "כלל פרשני"
    assert principle_term(None, None, None) == "עיקרון"
    assert court_of_case_number('עע"מ 1234/05') == "בית המשפט העליון"
    assert court_of_case_number("בגץ 55/20") == "בית המשפט העליון"
    assert court_of_case_number('עת"מ 12-03-21') == "בית המשפט המחוזי"
    assert court_of_case_number("ערר (מרכז) 1042/23") == "ועדת ערר"
    assert court_of_case_number('ת"א 5/20') is None and court_of_case_number("") is None


def test_binding_is_derived_from_the_court_or_the_proceeding():
    from legal_ai.retrieval.terms import binding_of

    assert binding_of("בית המשפט העליון", None) is True
    assert binding_of("בית המשפט המחוזי בירושלים בשבתו כבית משפט לעניינים מנהליים", None) is True
    assert binding_of("בית משפט השלום בחיפה", None) is False
    assert binding_of("ועדת ערר לתכנון ובנייה מחוז מרכז", None) is False
    # No court: the case number's proceeding type names it.
    assert binding_of(None, 'עע"מ 1234/05') is True
    assert binding_of("", 'בג"ץ 55/20') is True
    assert binding_of(None, 'עת"מ 12-03-21') is True
    assert binding_of(None, "ערר (מרכז) 1042/23") is False
    assert binding_of(None, 'ת"א 5/20') is None  # heard in more than one court: no guess
    assert binding_of(None, None) is None


def test_a_term_without_a_court_comes_from_the_case_number():
    from legal_ai.retrieval.terms import canonical_term, principle_term

    assert principle_term("external_upload", None, True, 'בג"ץ 55/20') == "הלכה"
    assert principle_term("external_upload", None, True, 'עת"מ 12-03-21') == "הלכה"
    assert principle_term("external_upload", None, False, "ערר (מרכז) 1042/23") == "כלל פרשני"
    assert principle_term("external_upload", None, None, 'ת"א 5/20') == "עיקרון"
    # A canonical statement: the strongest term of the rulings its live occurrences come from.
    supreme = {
        "source_kind": "external_upload",
        "court": None,
        "is_binding": True,
        "case_number": 'עע"מ 1234/05',
    }
    committee = {
        "source_kind": "internal_committee",
        "court": None,
        "is_binding": False,
        "case_number": "ערר (מרכז) 1042/23",
    }
    assert canonical_term([committee, supreme]) == "הלכה"
    assert canonical_term([committee]) == "כלל פרשני"
    assert canonical_term([]) is None


def test_a_principle_is_called_by_its_term_only_once_the_chair_stands_behind_it():
    """Issue 37 item 10: the panel's approval is "הצעת הפאנל" until she confirms it."""
    from legal_ai.retrieval.terms import chair_confirmed, shown_term

    assert not chair_confirmed("approved", "panel", None)
    assert chair_confirmed("approved", "panel", "chair") and chair_confirmed(
        "approved", "chair", None
    )
    assert not chair_confirmed("proposed", None, None)
    assert shown_term("הלכה", False) == {
        "term": "הצעת הפאנל",
        "unconfirmed": True,
        "term_once_confirmed": "הלכה",
    }
    assert shown_term("הלכה", False, by_panel=False)["term"] == "הצעה"
    assert shown_term("כלל פרשני", True)["term"] == "כלל פרשני"
    assert shown_term(None, False) == {
        "term": None,
        "unconfirmed": False,
        "term_once_confirmed": None,
    }
