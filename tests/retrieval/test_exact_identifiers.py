"""Exact identifiers search exact first and say "not found" plainly (issue 37 item 5).

A small library: sections 152, 152א and 255כ of the Planning and Building Law, where 255כ's text
repeats "סעיף 152" so that fusion alone would rank it first; committee decisions numbered 1042/23
in two districts and 8092/24 in one. A query naming a section or a case number puts that item
first as the "exact match" group (every hit says `exact`), in every form the one case-number
normalizer knows; a number the corpus lacks is reported `found: false` in the answer's
`identifiers`, in the tool's JSON as in the search's."""

from __future__ import annotations

import pytest
from psycopg import sql

from helpers import write
from legal_ai.auth import CHAIR, agent
from legal_ai.corpora import get_corpus
from legal_ai.errors import InvalidInput
from legal_ai.retrieval import exact, legs
from legal_ai.retrieval.tools import CHAIR_TOOLS, TOOLS
from scenarios import committee_decisions, external_library

pytestmark = pytest.mark.db

SECTIONS = [
    ("pbl-152", "point_152", "152", "הוועדה המקומית רשאית לדחות בקשה להיתר מטעמים תכנוניים."),
    ("pbl-152a", "point_152א", "152א", "הוראות מעבר לעניין בקשות שהוגשו לפני יום התחילה."),
    (
        "pbl-255k",
        "point_255כ",
        "255כ",
        "סעיף 152 סעיף 152 לעניין סעיף 152: הסמכות לפי סעיף 152 חלה גם על סעיף 152 בתיקון.",
    ),
]
DECISIONS = [
    ("center-1042", "ערר (מרכז) 1042/23"),
    ("tlv-1042", "ערר (תל אביב) 1042/23"),
    ("center-8092", "ערר (מרכז) 8092/24"),
    ("other", "ערר (מרכז) 5555/22"),
]


@pytest.fixture
def library(app, tmp_path):
    ruling = {
        "doc_id": "aam-1234",
        "title": 'פסק דין עע"מ 1234/05',
        "decided_on": "2006-01-01",
        "case_number": 'עע"מ 1234/05',
        "text": "פסק דין בעניין הקלה בקו בניין; נזכרים בו 1042/23 ו-8092/24 ו-9999/24.",
    }
    external_library(app, tmp_path, SECTIONS, ruling)
    committee_decisions(
        app,
        tmp_path,
        DECISIONS,
        "החלטת ועדת הערר {doc_id}: הקלה בקו בניין, וכן הערה על ערר 9999/24 ועל 1042/23.",
        "2023-06-01",
    )
    return app


def test_a_section_is_compared_exactly_and_put_first(library):
    for query in ("סעיף 152", "סעיף 152 לחוק התכנון והבניה"):
        result = library.search("external", query, limit=5)
        assert result.hits[0]["doc_id"] == "pbl-152" and result.hits[0]["exact"] is True
        assert [h["doc_id"] for h in result.hits if h["exact"]] == ["pbl-152"]
        assert result.identifiers == [
            {"identifier": result.identifiers[0]["identifier"], "kind": "section", "found": True}
        ]
        assert result.identifiers[0]["identifier"].startswith("סעיף 152")
    # Fusion alone would rank 255כ first: its text says "סעיף 152" five times.
    lexical = library.search("external", "סעיף 152", limit=5, mode="lexical")
    assert lexical.hits[0]["doc_id"] == "pbl-152"
    fused_only = [h for h in lexical.hits if not h["exact"]]
    assert fused_only[0]["doc_id"] == "pbl-255k"
    first = library.search("external", "סעיף 152א", limit=5).hits
    assert first[0]["doc_id"] == "pbl-152a" and [h["doc_id"] for h in first if h["exact"]] == [
        "pbl-152a"
    ]
    other = library.search("external", "סעיף 255כ", limit=5).hits
    assert other[0]["doc_id"] == "pbl-255k"
    missing = library.search("external", "סעיף 153", limit=5)
    assert missing.identifiers == [{"identifier": "סעיף 153", "kind": "section", "found": False}]
    assert not any(h["exact"] for h in missing.hits)


@pytest.mark.parametrize(
    "query, first",
    [
        ("ערר (מרכז) 8092/24", "center-8092"),
        ("ערר(מרכז) 8092 / 24", "center-8092"),
        ("ערר 8092/24", "center-8092"),
        ("8092/24", "center-8092"),
        ("8092-24", "center-8092"),
        ('ערר (ת"א) 1042/23', "tlv-1042"),
    ],
)
def test_an_existing_case_number_in_any_form_puts_its_decision_first(library, query, first):
    result = library.search("internal", query, limit=5)
    assert result.hits[0]["doc_id"] == first and result.hits[0]["exact"] is True
    assert [i["found"] for i in result.identifiers] == [True]
    assert result.identifiers[0]["kind"] == "case_number"


def test_a_bare_number_brings_every_district_of_it(library):
    result = library.search("internal", "1042/23", limit=5)
    assert {h["doc_id"] for h in result.hits if h["exact"]} == {"center-1042", "tlv-1042"}
    assert [h["exact"] for h in result.hits[:2]] == [True, True]
    assert result.identifiers == [{"identifier": "1042/23", "kind": "case_number", "found": True}]


@pytest.mark.parametrize("query", ["ערר (מרכז) 9999/24", "ערר 9999/24", "9999/24", "9999-24"])
def test_a_case_number_that_does_not_exist_is_said_not_found(library, query):
    result = library.search("internal", query, limit=5)
    assert [i["found"] for i in result.identifiers] == [False]
    assert not any(h["exact"] for h in result.hits)
    answer = library.tool("search_internal_decisions", query=query)
    assert answer["identifiers"][0]["found"] is False
    assert "9999/24" in answer["identifiers"][0]["identifier"]


def test_the_court_is_part_of_the_identity(library):
    assert [h["doc_id"] for h in library.search("external", 'עע"מ 1234/05').hits][:1] == [
        "aam-1234"
    ]
    missing = library.tool("search_precedent_library", query='בג"ץ 1234/05')
    assert missing["identifiers"] == [
        {"identifier": 'בג"ץ 1234/05', "kind": "case_number", "found": False}
    ]


def test_a_query_naming_nothing_reports_no_identifiers(library):
    answer = library.tool("search_internal_decisions", query="הקלה בקו בניין")
    assert "identifiers" not in answer and not any(h["exact"] for h in answer["hits"])


# The reference leg as one CASE over every kind of lookup (before migration 0053): every item
# of the corpus joined with every lookup.
ONE_CASE = (
    "WITH p AS (SELECT * FROM unnest(%(columns)s::text[], %(patterns)s::text[],"
    "   %(laws)s::text[], %(proceedings)s::text[], %(districts)s::text[])"
    "   WITH ORDINALITY AS t(col, pattern, law, proceeding, district, n))"
    " SELECT DISTINCT ON (i.id) u.id, p.n FROM {src} JOIN p ON CASE p.col"
    "   WHEN 'eid' THEN i.eid ~ p.pattern AND coalesce(i.law_title, '') ~ p.law"
    "   WHEN 'alias' THEN i.aliases @> ARRAY[p.pattern]"
    "   WHEN 'ruling' THEN i.ruling_number = p.pattern"
    "     AND coalesce(i.ruling_proceeding, p.proceeding) = p.proceeding"
    "     AND (p.district = '' OR coalesce(i.ruling_district, p.district) = p.district)"
    "   WHEN 'case_number' THEN i.case_number ~ p.pattern ELSE false END"
    " WHERE {where} AND {unit} ORDER BY i.id, p.n, u.ordinal"
)


@pytest.mark.parametrize("corpus_key", ["external", "internal"])
def test_the_reference_leg_by_kind_finds_what_one_statement_over_every_kind_found(
    library, corpus_key
):
    """One branch per kind of lookup (each narrowed by its own index) finds the items, in the
    order, that one CASE over every kind found, for every kind alone and all mixed."""
    corpus = get_corpus(corpus_key)
    source = corpus.sources[0]
    queries = [
        "סעיף 152",
        "סעיף 152א לחוק התכנון והבניה",
        'עע"מ 1234/05',
        "ערר (מרכז) 1042/23",
        "1042/23",
        "8092/24",
        'סעיף 255כ, סעיף 152 ועע"מ 1234/05 וגם ערר (תל אביב) 1042/23',
        "סעיף 999 וערר 7777/21",
    ]
    kinds = set()
    with library.store.connection() as conn:
        for query in queries:
            lookups = legs.references(query, 8)
            kinds.update(r.column for r in lookups)
            where, params = legs.filter_sql(corpus, legs.Filters())
            before = conn.execute(
                sql.SQL(ONE_CASE).format(
                    src=legs._from(corpus, source), where=where, unit=legs._unit_predicates(source)
                ),
                {**params, "embedder": library.embedder.id, **legs.lookup_arrays(lookups)},
            ).fetchall()
            expected = [r["id"] for r in sorted(before, key=lambda r: (r["n"], r["id"]))]
            got = legs.reference(
                conn,
                corpus,
                source,
                legs.Filters(),
                lookups,
                embedder=library.embedder.id,
                window=50,
            )
            assert got == expected[:50], query
    assert {"eid", "ruling", "case_number"} <= kinds


def test_named_identifiers_are_exactly_the_reference_legs_lookups():
    for query in ("סעיף 152 וסעיף 14 לתוספת השלישית", 'עע"מ 1234/05', "8092/24", "הקלה"):
        assert [n.reference for n in exact.named(query)] == legs.references(query)


def test_her_own_finals_without_a_practice_area_are_hers_alone(app, tmp_path):
    """The desk's search of her finals across practice areas (issue 37 item 11) is the chair's
    tool: an agent (MCP, HTTP) still goes through search_decisions, which keeps to one area."""
    final = write(tmp_path / "final.txt", "החלטתי: הבקשה להקלה בקו בניין נדחית.")
    meta = {"case_number": "ערר (מרכז) 7001/24", "practice_area": "betterment_levy"}
    assert app.ingest([final], "style", meta=meta).ingested == 1
    hits = app.acting_as(CHAIR).tool("search_my_decisions", query="הקלה בקו בניין")["hits"]
    assert [h["corpus"] for h in hits] == ["style"]
    with pytest.raises(InvalidInput, match="unknown tool 'search_my_decisions'"):
        app.acting_as(agent("drafter")).tool("search_my_decisions", query="הקלה בקו בניין")
    with pytest.raises(InvalidInput, match="needs practice_area"):
        app.acting_as(agent("drafter")).tool("search_decisions", query="הקלה", practice_area="")
    assert "search_my_decisions" not in TOOLS and "search_my_decisions" in CHAIR_TOOLS
    laws = app.tool("search_precedent_library", query="הקלה", doc_type="legislation")
    assert laws["hits"] == []
    with pytest.raises(InvalidInput, match="doc_type 'digest' is not one of"):
        app.tool("search_precedent_library", query="הקלה", doc_type="digest")
