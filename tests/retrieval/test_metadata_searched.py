"""A decision's headnote, summary and tags are searched (issue 34 item 5, migration 0041): the
lexical leg indexes them at a title's weight and the semantic leg reads them in its first chunk's
embedding, while every hit keeps its chunk's exact span. An edit by SQL takes the old words out
of search at once (the database) and the new ones in at `reindex`; the application's own edit
does both in its transaction."""

import psycopg
import pytest

from helpers import TEST_CHAIR, write
from legal_ai.auth import CHAIR
from legal_ai.errors import InvalidInput
from legal_ai.ingest.metadata_fold import SEMANTIC_META_CHARS, semantic_meta
from legal_ai.learning.arrival import metadata

pytestmark = pytest.mark.db

# Bodies that share every word: only the metadata tells the decisions apart.
BODY = (
    "הוועדה שמעה את טענות הצדדים ועיינה בכתבי הטענות ובמסמכים שהוגשו לה. "
    "לאחר ששקלנו את הדברים החלטנו כמפורט להלן, והנימוקים יפורטו בהמשך ההחלטה. "
)
DECISIONS = {
    "d-1": {
        "headnote": "פרגולה מעץ על גג בניין מגורים אינה טעונה היתר",
        "summary": "נקבע כי הצללה קלה על הגג פטורה מהיתר.",
        "tags": "פטור מהיתר, גגות",
    },
    "d-2": {
        "headnote": "שימוש חורג במבנה חקלאי לאחסנה מסחרית נדחה",
        "summary": "הוועדה דחתה בקשה להסבת לול למחסן לוגיסטי.",
        "tags": "שימוש חורג, קרקע חקלאית",
    },
    "d-3": {
        "headnote": "היטל השבחה בגין תוספת זכויות לבנייה בקומת מרתף",
        "summary": "השמאי המכריע קבע את שווי המקרקעין לפני ואחרי.",
        "tags": "היטל השבחה, שמאות",
    },
}


def seed(app, tmp_path) -> None:
    for n, (doc_id, fields) in enumerate(DECISIONS.items()):
        # long enough for several chunks, the first of them holding none of the metadata's words
        path = write(tmp_path / f"{doc_id}.txt", f"החלטה מספר {n + 1}.\n" + BODY * 12)
        meta = {
            "case_number": f"ערר (מרכז) {700 + n}/24",
            "practice_area": "planning",
            "chair_name": TEST_CHAIR,
            "decided_on": f"2024-0{n + 1}-15",
            **fields,
        }
        report = app.ingest([path], "internal", doc_id=doc_id, meta=meta)
        assert report.failed == [] and report.unsearchable == [], report.as_dict()


def search(app, query: str, mode: str, limit: int = 3) -> list[dict]:
    return app.tool("search_internal_decisions", query=query, mode=mode, limit=limit)["hits"]


def assert_exact_span(app, hit: dict) -> None:
    """The hit's span reads its stored text: the chunk's own, not the metadata."""
    with app.store.connection() as conn:
        row = conn.execute(
            "SELECT c.content, u.text, u.ordinal FROM case_law c"
            " JOIN case_law_chunks u ON u.case_law_id = c.id WHERE u.id = %s",
            [hit["chunk_id"]],
        ).fetchone()
    assert row["content"][hit["char_start"] : hit["char_end"]] == row["text"]
    assert row["content"][hit["char_start"] :].startswith(hit["snippet"][:40])


def test_a_query_of_metadata_words_alone_finds_the_decision(app, tmp_path):
    seed(app, tmp_path)
    # the words are in no decision's text
    with app.store.connection() as conn:
        assert (
            conn.execute(
                "SELECT count(*) AS n FROM case_law WHERE content ~ 'פרגולה|לול|מרתף'"
            ).fetchone()["n"]
            == 0
        )
    for query, doc_id in (("פרגולה", "d-1"), ("לול", "d-2"), ("שמאות", "d-3")):
        [hit] = search(app, query, "lexical")
        assert hit["doc_id"] == doc_id
        assert_exact_span(app, hit)
    # a tag's words, prefixed as Hebrew writes them, meet it through the same analyzer
    assert [h["doc_id"] for h in search(app, "והגגות", "lexical")] == ["d-1"]
    # the semantic leg: the meaning of a headnote, in other words, finds its decision first
    for query, doc_id in (
        ("האם צריך היתר בנייה להצללה מעץ על הגג", "d-1"),
        ("הסבת מבנה חקלאי למחסן מסחרי", "d-2"),
        ("תשלום היטל השבחה על זכויות בנייה במרתף", "d-3"),
    ):
        hits = search(app, query, "semantic")
        assert hits[0]["doc_id"] == doc_id, (query, [h["doc_id"] for h in hits])
        assert_exact_span(app, hits[0])
    hits = search(app, "פרגולה על הגג", "hybrid")
    assert hits[0]["doc_id"] == "d-1" and set(hits[0]["explain"]) >= {"lexical", "semantic"}


def test_an_edit_by_sql_leaves_search_at_once_and_returns_at_reindex(app, tmp_path, db_url):
    seed(app, tmp_path)
    assert [h["doc_id"] for h in search(app, "פרגולה", "lexical")] == ["d-1"]
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("UPDATE case_law SET headnote = 'סככה מפח בחצר' WHERE doc_id = 'd-1'")
    # the old word is out of both legs at once; the first chunk embedded with it waits
    assert search(app, "פרגולה", "lexical") == []
    assert app.health()["metadata_unfolded"] == 1
    first = search(app, "החלטה מספר 1", "semantic", limit=100)
    with app.store.connection() as conn:
        stale = conn.execute(
            "SELECT u.id FROM case_law_chunks u JOIN case_law c ON c.id = u.case_law_id"
            " WHERE c.doc_id = 'd-1' AND u.ordinal = 0 AND u.stale"
        ).fetchone()
    assert stale is not None and stale["id"] not in {h["chunk_id"] for h in first}
    # reindex folds the new headnote in: its word finds it, the old one still does not
    assert app.reindex()["metadata_folded"] == 1
    assert app.health()["metadata_unfolded"] == 0
    [hit] = search(app, "סככה", "lexical")
    assert hit["doc_id"] == "d-1" and hit["chunk_id"] == stale["id"]
    assert_exact_span(app, hit)
    assert search(app, "פרגולה", "lexical") == []
    assert search(app, "סככה מפח בחצר", "semantic")[0]["doc_id"] == "d-1"


def test_the_chairs_edit_is_searched_in_its_own_transaction(app, tmp_path):
    seed(app, tmp_path)
    metadata.set_fields(
        app.acting_as(CHAIR), "d-2", "גדר בגובה שלושה מטרים בחזית", "נדחה.", ["גדרות"]
    )
    assert app.health()["metadata_unfolded"] == 0
    assert [h["doc_id"] for h in search(app, "גדרות", "lexical")] == ["d-2"]
    assert search(app, "לול", "lexical") == []
    # her empty tags are refused before anything changes
    with pytest.raises(InvalidInput, match="tags are empty"):
        metadata.set_fields(app.acting_as(CHAIR), "d-2", "כותרת", "סיכום", " , ")
    assert [h["doc_id"] for h in search(app, "גדרות", "lexical")] == ["d-2"]


def test_empty_tags_and_a_very_long_headnote(app, tmp_path, db_url):
    seed(app, tmp_path)
    long_headnote = "שיקולי תכנון " * 3000 + "אנדרטה"  # 39,000 characters, its word at the end
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(
            "UPDATE case_law SET headnote = %s, tags = '{}' WHERE doc_id = 'd-3'", [long_headnote]
        )
        row = conn.execute(
            "SELECT searchable, missing, meta_text FROM case_law WHERE doc_id = 'd-3'"
        ).fetchone()
    # no tags: the decision leaves search (completeness); its metadata is still kept current
    assert not row[0] and row[1] == ["tags"] and row[2].startswith("שיקולי")
    app.reindex()
    assert search(app, "אנדרטה", "lexical") == []
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("UPDATE case_law SET tags = '{מונומנטים}' WHERE doc_id = 'd-3'")
    app.reindex()
    # the whole headnote is indexed; the embedding reads at most SEMANTIC_META_CHARS of it
    [hit] = search(app, "אנדרטה", "lexical")
    assert hit["doc_id"] == "d-3"
    assert_exact_span(app, hit)
    assert [h["doc_id"] for h in search(app, "מונומנטים", "lexical")] == ["d-3"]
    assert len(semantic_meta(long_headnote, "סיכום", ["מונומנטים"])) <= SEMANTIC_META_CHARS
    assert semantic_meta(None, "", []) == "" and semantic_meta(" ", None, None) == ""
