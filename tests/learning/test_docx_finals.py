"""A Word final through the learning loop (issue 22 item 1): a citation the chair put in a footnote
is extracted and linked to the library like the body's, the tracked changes accepted in reading
are reported by the draft's registration and the final's upload, the notes' places are kept with
the stored item, and our draft's blocks align with her final's."""

from __future__ import annotations

import json

import pytest

from helpers import write
from legal_ai.learning.pairs import drafts, finals
from legal_ai.store import drafts_lessons as store
from word_docs import dele, ins, note, p, word_docx

CASE = "ערר (מרכז) 3101/25"
CITATION = 'בג"ץ 594/89 פלוני נ\' הוועדה, פ"ד מד(1) 565'


def _decision(outcome: list[str], footnote: bool) -> list[str]:
    return [
        p("ועדת הערר לתכנון ובנייה – מחוז מרכז"),
        p(CASE),
        p("החלטה"),
        p("פתח דבר"),
        p("1. לפנינו ערר על החלטת הוועדה המקומית לדחות בקשה להקלה בקו בניין צדדי."),
        p("רקע עובדתי"),
        p("2. המגרש מצוי בפינת רחוב, והבקשה הוגשה ביום 3.1.2025."),
        p("דיון והכרעה"),
        p(
            "3. הלכה היא כי ועדת הערר אינה מחליפה את שיקול דעתה של הוועדה המקומית בשיקול דעתה",
            note(1) if footnote else "",
            ".",
        ),
        p("סוף דבר"),
        p("4. ", *outcome),
        p("ניתנה היום, 1 במרץ 2025."),
        p('רותם לוי, עו"ד'),
    ]


def _library(app, tmp_path) -> int:
    """בג"ץ 594/89 in the library (known by its reporter citation too); its case_law id."""
    ruling = {
        "doc_id": "bagatz-594",
        "doc_type": "ruling",
        "title": "פסק דין בדוי",
        "court": "בית המשפט העליון",
        "decided_on": "1990-01-01",
        "case_number": 'בג"ץ 594/89',
        "aliases": 'פ"ד מד(1) 565',
        "text": "פסק דין בדוי בעניין שיקול הדעת של מוסדות התכנון.",
    }
    path = write(tmp_path / "library.jsonl", json.dumps(ruling, ensure_ascii=False))
    assert app.ingest([path], "external").ingested == 1
    with app.store.connection() as conn:
        return conn.execute("SELECT id FROM case_law WHERE doc_id = 'bagatz-594'").fetchone()["id"]


def test_a_footnote_citation_is_linked_and_the_changes_accepted_are_reported(app, tmp_path):
    ruling_id = _library(app, tmp_path)
    draft = word_docx(tmp_path / "draft.docx", _decision(["דין הערר להידחות."], footnote=False))
    registered = drafts.add_draft(
        app, CASE, draft, appeal_type="permit", outcome="rejected", practice_area="planning"
    )
    assert registered["notes"] == []
    # her final: the citation only in a footnote, the outcome word a tracked insertion
    outcome = ["דין הערר ", dele("להתקבל"), ins("להידחות"), "."]
    final = word_docx(
        tmp_path / "final.docx", _decision(outcome, footnote=True), footnotes={1: CITATION}
    )
    with pytest.raises(finals.OpenRevisions, match="2 open tracked change") as open_:
        finals.upload_final(app, CASE, final)  # open changes: taken only when she says so
    assert open_.value.changes == 2 and open_.value.comments == ()
    uploaded = finals.upload_final(app, CASE, final, accept_open_changes=True)
    assert uploaded["citations"] == {"linked": 1, "missing": 0, "ambiguous": 0}
    assert uploaded["notes"][0] == (
        "2 tracked changes were accepted in reading (1 insertion, 1 deletion): "
        "insertions kept, deletions dropped"
    )
    assert uploaded["pair_status"] == "analyzed"
    assert uploaded["blocks_missing"] == registered["missing_blocks"]  # the same blocks found
    with app.store.connection() as conn:
        cites = store.citations_of(conn, uploaded["case_law_id"])
        item = conn.execute(
            "SELECT content, metadata FROM case_law WHERE id = %s", (uploaded["case_law_id"],)
        ).fetchone()
        pair = store.get_pair(conn, CASE)
    linked = {c["ref"]: c["linked_case_law_id"] for c in cites}
    assert linked['בג"ץ 594/89'] == ruling_id
    # the note's place is kept with the item: its text at its span, its anchor in the body
    (span,) = item["metadata"]["note_spans"]
    content = item["content"]
    assert content[span["start"] : span["end"]] == CITATION
    assert content[: span["anchor"]].endswith("בשיקול דעתה")
    assert item["metadata"]["tracked_changes_accepted"] == {"inserted": 1, "deleted": 1}
    assert "דין הערר להידחות." in content and "להתקבל" not in content
    # the blocks are the body's: the footnote is in no block, the draft's and hers align
    assert CITATION not in json.dumps(pair["final_blocks"], ensure_ascii=False)
    assert pair["final_blocks"]["conclusion"] == "4. דין הערר להידחות."
    assert pair["final_blocks"]["signature"] == 'ניתנה היום, 1 במרץ 2025.\n\nרותם לוי, עו"ד'
    history = uploaded["history_row"]
    assert history["change_percent"] == 0.0  # the same body: no word changed


def test_an_ingested_word_ruling_keeps_its_notes_and_says_what_could_not_be_read(app, tmp_path):
    ruling = word_docx(
        tmp_path / "ruling.docx",
        [p("פסק דין בעניין הקלה", note(1), "."), p("ההלכה נקבעה", note(2), ".")],
        footnotes={1: CITATION, 2: "ראו שם."},
        parts={"word/footnotes.xml": b"<w:footnotes><broken"},
    )
    meta = {"title": "פסק דין", "court": "בית המשפט העליון", "case_number": 'עע"מ 4321/20'}
    meta["decided_on"] = "2021-01-01"
    report = app.ingest([ruling], "external", doc_id="aam-4321", meta=meta)
    assert report.ingested == 1 and report.failed == []
    with app.store.connection() as conn:
        item = conn.execute(
            "SELECT content, metadata FROM case_law WHERE doc_id = 'aam-4321'"
        ).fetchone()
    assert item["content"] == "פסק דין בעניין הקלה.\n\nההלכה נקבעה."
    (said,) = item["metadata"]["reading"]
    assert said.startswith("the 2 footnotes could not be read (word/footnotes.xml is damaged")
    assert "note_spans" not in item["metadata"]
    # read whole, the same ruling keeps its notes' places
    whole = word_docx(
        tmp_path / "whole.docx",
        [p("פסק דין בעניין הקלה", note(1), ".")],
        footnotes={1: CITATION},
    )
    assert app.ingest([whole], "external", doc_id="aam-4321", meta=meta).ingested == 1
    with app.store.connection() as conn:
        item = conn.execute(
            "SELECT content, metadata FROM case_law WHERE doc_id = 'aam-4321'"
        ).fetchone()
    (span,) = item["metadata"]["note_spans"]
    assert item["content"][span["start"] : span["end"]] == CITATION
    assert item["content"][: span["anchor"]] == "פסק דין בעניין הקלה"
    assert "reading" not in item["metadata"]  # read whole: nothing to say
