"""Context in every chunk (issue 36 item 3, LEGAL_AI_CHUNK_CONTEXT): the context line of a
statute section and of a ruling's paragraph, and, with the setting on, a chunk found by the
lexical leg through its chapter's words while its text, span and text_hash stay its own."""

import pytest

from legal_ai.app import App
from legal_ai.context import Context
from legal_ai.corpora import get_corpus
from legal_ai.ingest import Ingestor
from legal_ai.ingest.chunk_context import context_line, indexed_text
from legal_ai.ingest.reindex import reindex
from legal_ai.ingest.sources import IngestItem
from legal_ai.providers.embedders import text_hash
from legal_ai.retrieval.search import search


def test_the_context_line_of_a_section_and_of_a_rulings_paragraph():
    fields = {"law_title": 'חוק התכנון והבניה, תשכ"ה–1965', "eid": "sec_197"}
    meta = {"container": "פרק ט: פיצויים", "heading": "פגיעה על ידי תכנית"}
    line = context_line("legislation", "legislation", fields, meta, "197. (א) נפגעו...", 0)
    assert line == 'חוק התכנון והבניה, תשכ"ה–1965 · פרק ט: פיצויים · פגיעה על ידי תכנית'
    ruling = (
        "העוררים: י' כהן (בדויים)\nהמשיבים: הוועדה המקומית לתכנון ובנייה רחובות\n"
        "1. הערר נסב על היטל השבחה.\n2. לטענת העוררים השומה שגויה.\nועוד דברים.\n"
    )
    start = ruling.index("לטענת")
    court = {"court": "ועדת ערר מחוז מרכז", "title": "ערר 1234/24"}
    assert context_line("all", "ruling", court, {}, ruling, start) == (
        "ועדת ערר מחוז מרכז · י' כהן נ' הוועדה המקומית לתכנון ובנייה רחובות · פסקה 2"
    )
    assert context_line("all", "ruling", court, {}, ruling, 0).endswith(
        "רחובות"
    )  # before paragraph 1
    assert context_line("all", "reference", court, {}, ruling, 0) == ""  # none of its own
    assert context_line("legislation", "ruling", court, {}, ruling, start) == ""  # not by default
    assert context_line("off", "legislation", fields, meta, "", 0) == ""
    assert indexed_text("", "טקסט") == "טקסט" and indexed_text("הקשר", "טקסט") == "הקשר\nטקסט"


BODY = "הוראות הסעיף חלות על כל בקשה שהוגשה לאחר יום התחילה, ובלבד שלא הוחלט בה קודם לכן."


def _sections() -> list[IngestItem]:
    return [
        IngestItem(
            doc_id=f"law#sec_{n}",
            text=f"{n}. {BODY}",
            source_path=f"law#sec_{n}",
            source_format="jsonl",
            doc_type="legislation",
            fields={
                "title": f"סעיף {n}",
                "law_title": "חוק הדוגמה",
                "eid": f"sec_{n}",
                "section_num": str(n),
            },
            metadata={"container": chapter},
        )
        for n, chapter in ((1, "פרק א: זרזירים"), (2, "פרק ב: שלדגים"))
    ]


@pytest.mark.parametrize("on", ["legislation", "off"])
def test_with_context_on_a_chunk_is_found_by_its_chapter_and_keeps_its_span(app, on):
    settings = app.settings.model_copy(update={"chunk_context": on})
    report = Ingestor(app.store, app.embedder, settings).ingest_items(
        _sections(), get_corpus("external")
    )
    assert report.failed == [] and report.unsearchable == [] and report.ingested == 2
    both = search(app.store, app.embedder, settings, "external", "בקשה", mode="lexical").hits
    assert len(both) == 2  # the body's words find both, context or not
    hits = search(app.store, app.embedder, settings, "external", "שלדגים", mode="lexical").hits
    assert [h["doc_id"] for h in hits] == (["law#sec_2"] if on != "off" else [])
    with app.store.connection() as conn:
        rows = conn.execute(
            "SELECT c.content, u.text, u.text_hash, u.char_start, u.char_end FROM case_law c"
            " JOIN case_law_chunks u ON u.case_law_id = c.id WHERE c.doc_id LIKE 'law#%%'"
        ).fetchall()
    assert len(rows) == 2
    for row in rows:  # the stored chunk is the text's own span, context or not
        assert row["content"][row["char_start"] : row["char_end"]] == row["text"]
        assert row["text_hash"] == text_hash(row["text"]) and "פרק" not in row["text"]


def test_turning_it_on_makes_reindex_analyze_every_chunk_after_its_context(app):
    off = app.settings.model_copy(update={"chunk_context": "off"})
    report = Ingestor(app.store, app.embedder, off).ingest_items(
        _sections(), get_corpus("external")
    )
    assert report.unsearchable == []
    assert search(app.store, app.embedder, off, "external", "זרזירים", mode="lexical").hits == []
    on = app.settings.model_copy(update={"chunk_context": "legislation"})
    with app.store.connection() as conn:  # the chunks record the plain analyzer: stale now
        recorded = {r["analyzer"] for r in conn.execute("SELECT analyzer FROM case_law_chunks")}
    assert recorded == {app.analyzer.id}
    for settings, stale in ((off, 0), (on, 2)):  # the setting changed: its chunks are stale
        health = App(settings, store=app.store, embedder=app.embedder, migrate=False).health()
        assert health["corpora"]["external"]["stale_analysis"] == stale
    done = reindex(Context(on, store=app.store, embedder=app.embedder))
    assert done["reanalyzed"] == 2 and done["reembedded"] == 0  # analysis only, no embedding
    hits = search(app.store, app.embedder, on, "external", "זרזירים", mode="lexical").hits
    assert [h["doc_id"] for h in hits] == ["law#sec_1"]
    with app.store.connection() as conn:
        recorded = {r["analyzer"] for r in conn.execute("SELECT analyzer FROM case_law_chunks")}
    assert recorded == {f"{app.analyzer.id}+context"}
    again = reindex(Context(on, store=app.store, embedder=app.embedder))
    assert again["reanalyzed"] == 0  # nothing stale once analyzed the new way
