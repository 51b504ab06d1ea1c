"""INV-RET1 and INV-RET5 against the real database: no corpus leaks into another in any leg, in
the fused list, after the cap, or in health's audit; every hit can be re-read at its locator;
filtered searches still return a full k; hostile queries get results or a clear error."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from psycopg import sql

from helpers import DECISION_FIELDS, write
from legal_ai.auth import CHAIR
from legal_ai.corpora import SEARCHABLE, get_corpus
from legal_ai.errors import InvalidInput
from legal_ai.retrieval import legs
from legal_ai.retrieval.fusion import rrf
from legal_ai.store.audit import foreign_units
from legal_ai.text.hebrew import query_terms

pytestmark = pytest.mark.db

SHARED_TEXT = "ועדת הערר קבעה כי הקלה בקו בניין צדדי מחייבת הצדקה תכנונית ופרסום כדין."
QUERY = "היטל השבחה על מימוש זכויות במקרקעין"
# In the *forbidden* corpus: the best lexical match (every query word) and a close paraphrase.
LEXICAL_BAIT = "היטל השבחה על מימוש זכויות במקרקעין היטל השבחה מימוש זכויות"
SEMANTIC_BAIT = "חיוב בתשלום היטל השבחה בעת מימוש זכויות בנייה בקרקע"


def plant(app, tmp_path):
    """The same text in external and internal (different ids); the baits only in internal."""
    ext = {"court": "העליון", "decided_on": "2021-01-01"}
    internal = {"decided_on": "2024-01-01", "practice_area": "betterment_levy", **DECISION_FIELDS}
    docs = [
        ("external", "ext-shared", SHARED_TEXT, {**ext, "case_number": 'עע"מ 31/20'}),
        (
            "external",
            "ext-levy",
            "שמאי מכריע קבע את שווי המקרקעין לאחר אישור התכנית.",
            {**ext, "case_number": 'בר"מ 32/19'},
        ),
        ("internal", "int-shared", SHARED_TEXT, {**internal, "case_number": "ערר 33/24"}),
        ("internal", "int-lexical", LEXICAL_BAIT, {**internal, "case_number": "ערר 34/24"}),
        ("internal", "int-semantic", SEMANTIC_BAIT, {**internal, "case_number": "ערר 35/24"}),
    ]
    for corpus, doc_id, text, meta in docs:
        path = write(tmp_path / f"{doc_id}.txt", text)
        assert (
            app.ingest([path], corpus, meta={"title": doc_id, **meta}, doc_id=doc_id).ingested == 1
        )
    return {corpus: {d for c, d, *_ in docs if c == corpus} for corpus in ("external", "internal")}


def test_planted_baits_never_cross_corpora(app, tmp_path):
    owned = plant(app, tmp_path)
    # the baits really are the best matches in their own corpus
    internal = app.search("internal", QUERY, limit=5)
    assert internal.hits[0]["doc_id"] in {"int-lexical", "int-semantic"}
    corpus = get_corpus("external")
    vector = app.embedder.embed_query(QUERY)
    with app.store.pool.connection() as conn:
        for source in corpus.sources:
            semantic = legs.semantic(
                conn,
                corpus,
                source,
                legs.Filters(),
                vector,
                embedder="e5-local",
                dim=384,
                window=50,
                max_scan_tuples=20000,
            )
            lexical = legs.lexical(
                conn,
                corpus,
                source,
                legs.Filters(),
                query_terms(QUERY),
                embedder="e5-local",
                window=50,
            )
            fused = rrf({"semantic": semantic, "lexical": lexical})
            for ids in (semantic, lexical, [f.key for f in fused]):
                rows = legs.hydrate(conn, corpus, source, ids)
                assert len(rows) == len(set(ids))  # every id re-reads inside the corpus
                assert {r["doc_id"] for r in rows.values()} <= owned["external"]
    for limit in (1, 2, 10):
        result = app.search("external", QUERY, limit=limit)
        assert {h["doc_id"] for h in result.hits} <= owned["external"]
        assert all(
            h["corpus"] == "external" and h["source_kind"] == "external_upload" for h in result.hits
        )
    shared = app.search("internal", SHARED_TEXT, limit=10)
    assert {h["doc_id"] for h in shared.hits} <= owned["internal"]
    audit = app.health()["isolation"]
    assert audit["leaks"] == 0 and audit["checked"] > 0
    assert audit["legs"]["external/chunk/semantic"]["checked"] == 2
    assert audit["legs"]["internal/chunk/reference"]["checked"] == 3  # by case number
    # The baits' case number, asked for in the other corpus, is not found there.
    bait = app.search("external", "ערר 34/24", limit=10, mode="lexical")
    assert {h["doc_id"] for h in bait.hits} <= owned["external"]


def test_random_searches_stay_in_their_corpus(app, tmp_path):
    owned = plant(app, tmp_path)
    words = st.sampled_from(
        [
            "היטל",
            "השבחה",
            "הקלה",
            "בניין",
            "ערר",
            "152(א)",
            "8046/24",
            'עע"מ',
            "'",
            '"',
            "--",
            ";",
            "OR",
            "DROP",
            "\x00",
            "ְ",
            "(",
            ")",
        ]
    )

    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        query=st.lists(words, min_size=1, max_size=8).map(" ".join),
        corpus=st.sampled_from(["external", "internal"]),
        limit=st.integers(min_value=1, max_value=12),
        mode=st.sampled_from(["hybrid", "semantic", "lexical"]),
        court=st.sampled_from([None, "העליון", "מחוזי"]),
        date_from=st.sampled_from([None, "2020-01-01", "2023-06-01"]),
    )
    def check(query, corpus, limit, mode, court, date_from):
        filters = legs.Filters(court=court if corpus == "external" else None, date_from=date_from)
        try:
            result = app.search(corpus, query, filters=filters, limit=limit, mode=mode)
        except InvalidInput as exc:
            assert "query is empty" in str(exc)
            return
        assert len(result.hits) <= limit
        assert {h["doc_id"] for h in result.hits} <= owned[corpus]
        assert all(h["corpus"] == corpus for h in result.hits)

    check()


def test_every_hit_resolves_at_its_locator(app, tmp_path):
    plant(app, tmp_path)
    app.acting_as(CHAIR).add_principle(
        "external",
        "ext-shared",
        "הקלה בקו בניין טעונה הצדקה תכנונית",
        "הקלה בקו בניין צדדי מחייבת הצדקה תכנונית",
        review_status="approved",
    )
    app.add_principle(
        "external",
        "ext-levy",
        "עיקרון שלא אושר אינו מופיע בחיפוש",
        "שמאי מכריע קבע",
        review_status="proposed",
    )
    with pytest.raises(InvalidInput, match="not in the ruling's text"):
        app.add_principle("external", "ext-levy", "כלל", "ציטוט שאינו בפסק הדין")
    hits = []
    for corpus, query in [
        ("external", "הצדקה תכנונית להקלה"),
        ("internal", QUERY),
        ("external", "שווי המקרקעין"),
    ]:
        hits += app.search(corpus, query, limit=10).hits
    kinds = {h["kind"] for h in hits}
    assert kinds == {"chunk", "principle"}
    assert not any(h["kind"] == "principle" and h["doc_id"] == "ext-levy" for h in hits)
    with app.store.pool.connection() as conn:
        for hit in hits:
            content = conn.execute(
                sql.SQL("SELECT content FROM case_law WHERE id = %s"), (hit["case_law_id"],)
            ).fetchone()["content"]
            located = content[hit["char_start"] : hit["char_end"]]
            if hit["kind"] == "chunk":
                assert located.startswith(hit["snippet"])
            else:
                assert located == hit["supporting_quote"]


def test_filtered_search_returns_a_full_k(app, tmp_path):
    """95/5: 190 planning finals and 10 levy finals; filtering to levy still fills k = 10,
    with every levy final (the nearest 10 of all 200 are mostly planning)."""
    for i in range(200):
        write(tmp_path / f"d{i:03d}.txt", f"החלטה {i}: ערר על היתר בנייה ותוספת קומה, מגרש {i}.")
    report = app.ingest(
        [tmp_path], "style", meta={"case_number": "ערר 40/25", "practice_area": "planning"}
    )
    assert report.ingested == 200
    levy = sorted(tmp_path.glob("d*.txt"))[::20]
    moved = app.ingest(
        levy, "style", meta={"case_number": "ערר 40/25", "practice_area": "betterment_levy"}
    )
    assert moved.updated == len(levy)
    for mode in ("semantic", "hybrid"):
        result = app.tool(
            "search_decisions",
            query="תוספת קומה בהיתר",
            practice_area="betterment_levy",
            limit=10,
            mode=mode,
        )
        assert len(result["hits"]) == 10
        assert {h["doc_id"] for h in result["hits"]} == set(moved.doc_ids)
    # At this size the planner may scan exactly; bench/search.py checks full k through the HNSW
    # index (iterative scan) on 100,000 chunks.


HOSTILE = [
    "'; DROP TABLE documents; --",
    'עע"מ 1234/05 OR 1=1',
    "\x00\x00 היתר \x00",
    "היתר " * 1500,  # 7,500 characters: long but allowed
    "!!! ??? ... ;;; ---",
    "ְֱֲֳִֵֶַָֹֻּ",
    '"unterminated phrase',
    "-היתר -בנייה",
    "a" * 10_000,
]


def assert_hits_in(app, corpus_key: str, hits: list[dict]) -> None:
    """Every hit is of `corpus_key`: by its label, and by its unit's ids checked against the
    root tables (store/audit.py `foreign_units`, independent of the legs' SQL)."""
    corpus = SEARCHABLE[corpus_key]
    key = {"chunk": "chunk_id", "principle": "principle_id", "precedent": "precedent_id"}
    with app.store.connection() as conn:
        for hit in hits:
            assert hit["corpus"] == corpus_key, hit
            source = next(s for s in corpus.sources if s.kind == hit["kind"])
            assert foreign_units(conn, corpus, source, [hit[key[hit["kind"]]]]) == 0, hit


@pytest.mark.parametrize("query", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_queries_answer_or_explain(app, tmp_path, query):
    owned = plant(app, tmp_path)
    for name, corpus, args in [
        ("search_precedent_library", "external", {}),
        ("search_internal_decisions", "internal", {}),
        ("search_decisions", "style", {"practice_area": "planning"}),
    ]:
        try:
            result = app.tool(name, query=query, **args)
        except InvalidInput as exc:
            message = str(exc)
            assert ("query is empty" in message) or ("shorten it to at most 20000" in message)
            continue
        assert isinstance(result["hits"], list)
        assert {h["doc_id"] for h in result["hits"]} <= owned.get(corpus, set())
        assert_hits_in(app, corpus, result["hits"])
