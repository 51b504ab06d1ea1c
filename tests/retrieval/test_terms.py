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
