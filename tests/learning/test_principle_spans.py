"""Spans that stay true and changes that are seen (issue 34 items 1-2; INV-RET5, G6), against a
real PostgreSQL: a principle's span found again when its ruling is re-ingested (one more sentence
before the quote) or a final uploaded again; a hit whose span no longer reads its text is not
returned, health lists it and `reindex` repairs it; a chunk deleted in SQL is seen and re-cut; a
rule edited in SQL, or a re-ingest that removes the quoted paragraph, sends the principle back to
the chair (said in the ingest report), and only her decision takes it back; a deleted ruling
takes its principles with it; a quote at the very end of the text."""

from __future__ import annotations

import pytest

from helpers import csrf_of, health_of, section, write
from legal_ai.auth import CHAIR
from legal_ai.learning.pairs import finals
from legal_ai.learning.principles import extraction as principles
from legal_ai.learning.principles import review as principle_review
from scenarios import PANEL_RULING as RULING
from scenarios import Q1, Q2, Q4, R1, RULING_META, cand, ingest

pytestmark = pytest.mark.db

PREFIX = "בפתח הדברים נזכיר את ההליכים הקודמים בין הצדדים, שאינם נוגעים לענייננו. "
QUERY = "סטייה ניכרת מתכנית הקלה"


def _extract(app, script, doc_id="ruling-1", **where):
    script.answers = {m: [cand(R1[0], Q1, 0.9)] for m in "abc"}  # 3/3: approved by the panel
    report = principles.extract(app, doc_id=doc_id, **where)
    assert report["approved"] == 1
    with app.store.connection() as conn:
        return conn.execute(
            "SELECT p.id, p.char_start, p.char_end, p.page, p.span_hash, c.content"
            " FROM case_law_principles p JOIN case_law c ON c.id = p.case_law_id"
            " WHERE c.doc_id = %s",
            (doc_id,),
        ).fetchone()


def _principle_hits(app, corpus="external"):
    result = app.search(corpus, QUERY, limit=10)
    return result, [h for h in result.hits if h["kind"] == "principle"]


def _content(app, doc_id="ruling-1"):
    with app.store.connection() as conn:
        return conn.execute("SELECT content FROM case_law WHERE doc_id = %s", (doc_id,)).fetchone()[
            "content"
        ]


def test_a_reingested_ruling_moves_the_span_and_search_reads_the_right_words(app, tmp_path, panel):
    script, _ = panel
    ingest(app, tmp_path, "ruling-1", RULING)
    before = _extract(app, script)
    assert before["content"][before["char_start"] : before["char_end"]] == Q1

    report = app.ingest(
        [write(tmp_path / "ruling-again.txt", PREFIX + RULING)],
        "external",
        meta=RULING_META,
        doc_id="ruling-1",
    )
    assert report.ingested == 1 and "returned_to_chair" not in report.as_dict()
    content = _content(app)
    _, [hit] = _principle_hits(app)
    assert hit["char_start"] == before["char_start"] + len(PREFIX)
    assert content[hit["char_start"] : hit["char_end"]] == Q1  # the words it quotes
    assert health_of(app)["principles_changed"]["count"] == 0


def test_a_span_that_no_longer_reads_is_not_returned_then_reindex_finds_it_again(
    app, tmp_path, panel
):
    script, _ = panel
    ingest(app, tmp_path, "ruling-1", RULING)
    row = _extract(app, script)
    with app.store.transaction() as conn:  # the span moved in SQL: it reads other words now
        conn.execute(
            "UPDATE case_law_principles SET char_start = char_start + 3, char_end = char_end + 3"
            " WHERE id = %s",
            (row["id"],),
        )
    result, found = _principle_hits(app)
    assert found == [] and result.as_dict()["dropped_unverified"] == 1
    assert result.unverified == [{"kind": "principle", "unit_id": row["id"], "doc_id": "ruling-1"}]
    assert result.hits  # backfilled from the window: the chunks are still there
    [changed] = health_of(app)["principles_changed"]["items"]
    assert (changed["principle_id"], changed["span_changed"], changed["rule_changed"]) == (
        row["id"],
        True,
        False,
    )
    done = app.reindex()["principle_spans"]
    assert (done["moved"], done["returned"]) == (1, [])
    _, [hit] = _principle_hits(app)
    assert (hit["char_start"], hit["char_end"]) == (row["char_start"], row["char_end"])
    assert health_of(app)["principles_changed"]["count"] == 0


def test_a_reingest_that_removes_the_quote_returns_the_principle_to_the_chair(
    app, tmp_path, panel, capsys
):
    script, _ = panel
    ingest(app, tmp_path, "ruling-1", RULING)
    row = _extract(app, script)
    without = RULING.replace(Q1 + ". ", "")
    assert Q1 not in without
    report = app.ingest(
        [write(tmp_path / "ruling-again.txt", without)],
        "external",
        meta=RULING_META,
        doc_id="ruling-1",
    )
    [returned] = report.as_dict()["returned_to_chair"]
    assert returned["principle_id"] == row["id"] and "no longer in the text" in returned["reason"]
    assert _principle_hits(app)[1] == []  # out of search
    health = health_of(app)
    [waiting] = health["returned_to_chair"]["items"]
    assert waiting["principle_id"] == row["id"] and waiting["status"] == "approved"
    assert health["principles_changed"]["count"] == 0  # returned: hers now, not reindex's

    with app.store.transaction() as conn, pytest.raises(Exception, match="only her decision"):
        conn.execute(
            "UPDATE case_law_principles SET returned_reason = NULL, returned_at = NULL"
            " WHERE id = %s",
            (row["id"],),
        )
    principle_review.review(app.acting_as(CHAIR), row["id"], "revert", "הציטוט הוסר")
    health = health_of(app)
    assert health["returned_to_chair"]["count"] == 0


def test_a_rule_edited_in_sql_is_seen_and_goes_back_to_the_chair(app, tmp_path, panel):
    script, _ = panel
    ingest(app, tmp_path, "ruling-1", RULING)
    row = _extract(app, script)
    with app.store.transaction() as conn:  # past the gate (its triggers off), as an owner could
        conn.execute("SET LOCAL session_replication_role = replica")
        conn.execute(
            "UPDATE case_law_principles SET rule_text = 'כל סטייה מתכנית מותרת' WHERE id = %s",
            (row["id"],),
        )
    [changed] = health_of(app)["principles_changed"]["items"]
    assert changed["principle_id"] == row["id"] and changed["rule_changed"]
    [returned] = app.reindex()["principle_spans"]["returned"]
    assert returned["principle_id"] == row["id"] and "rule" in returned["reason"]
    health = health_of(app)
    assert health["principles_changed"]["count"] == 0
    assert [r["principle_id"] for r in health["returned_to_chair"]["items"]] == [row["id"]]
    assert _principle_hits(app)[1] == []


def test_a_canonical_statement_edited_past_its_gate_is_seen(app, tmp_path, panel):
    script, _ = panel
    ingest(app, tmp_path, "ruling-1", RULING)
    _extract(app, script)
    assert health_of(app)["canonicals_changed"]["count"] == 0
    with app.store.transaction() as conn:
        conn.execute("SET LOCAL session_replication_role = replica")
        conn.execute("UPDATE canonical_principles SET rule_text = 'נוסח אחר'")
    [changed] = health_of(app)["canonicals_changed"]["items"]
    assert "restore it on the desk" in changed["reason"]


def test_a_chunk_deleted_in_sql_is_seen_and_reindex_closes_the_hole(app, tmp_path):
    text = "\n".join(
        f"בפסקה {n} דנה הוועדה בבקשה להקלה בקו בניין צדדי ובפגיעה בפרטיות השכנים הסמוכים."
        for n in range(1, 60)
    )
    text += "\nהמילה הנדירה זרזיר מופיעה רק בפסקה האחרונה."
    ingest(app, tmp_path, "ruling-1", text)
    with app.store.transaction() as conn:
        total = conn.execute(
            "SELECT count(*) AS n FROM case_law_chunks c JOIN case_law i ON i.id = c.case_law_id"
            " WHERE i.doc_id = 'ruling-1'"
        ).fetchone()["n"]
        assert total > 2
        conn.execute(
            "DELETE FROM case_law_chunks WHERE ordinal = %s AND case_law_id ="
            " (SELECT id FROM case_law WHERE doc_id = 'ruling-1')",
            (total - 1,),
        )
    assert not app.search("external", "זרזיר", mode="lexical").hits  # the hole
    [changed] = health_of(app)["changed_outside_ingest"]["items"]
    assert changed["doc_id"] == "ruling-1" and changed["count_changed"]
    assert "deleted or added" in changed["reason"]
    [repaired] = app.reindex()["repaired"]
    assert repaired["repaired"] and repaired["count_changed"]
    assert health_of(app)["changed_outside_ingest"]["count"] == 0
    assert app.search("external", "זרזיר", mode="lexical").hits  # no hole


def test_a_quote_at_the_texts_end_and_a_deleted_ruling(app, tmp_path, panel):
    script, _ = panel
    text = f"{Q2}. {Q1}"  # the quote is the text's last words, no full stop after it
    ingest(app, tmp_path, "ruling-1", text)
    row = _extract(app, script)
    assert row["char_end"] == len(row["content"])
    _, [hit] = _principle_hits(app)
    assert hit["char_end"] == len(text)
    report = app.ingest(
        [write(tmp_path / "ruling-again.txt", PREFIX + text)],
        "external",
        meta=RULING_META,
        doc_id="ruling-1",
    )
    assert "returned_to_chair" not in report.as_dict()
    _, [hit] = _principle_hits(app)
    assert _content(app)[hit["char_start"] :] == Q1

    with app.store.transaction() as conn:  # the ruling deleted: its principles go with it
        conn.execute("DELETE FROM case_law WHERE doc_id = 'ruling-1'")
        gone = conn.execute(
            "SELECT count(*) AS n FROM case_law_principles WHERE id = %s", (row["id"],)
        ).fetchone()["n"]
    assert gone == 0
    assert _principle_hits(app)[1] == []
    health = health_of(app)
    assert health["principles_changed"]["count"] == 0
    assert health["returned_to_chair"]["count"] == 0


def test_a_final_uploaded_again_moves_its_principles_span(app, tmp_path, panel):
    script, _ = panel
    case = "ערר (מרכז) 1042/23"
    body = f"פתח דבר\nהערר הוגש נגד החלטת הוועדה המקומית.\nדיון והכרעה\n{Q1}. {Q4}.\nסוף דבר\nהערר נדחה."
    path = write(tmp_path / "final.txt", body)
    finals.upload_final(app, case, path, **_FINAL)
    with app.store.connection() as conn:
        doc_id = conn.execute(
            "SELECT doc_id FROM case_law WHERE source_kind = 'internal_committee'"
        ).fetchone()["doc_id"]
    row = _extract(app, script, doc_id=doc_id)
    path = write(tmp_path / "final.txt", body.replace("דיון והכרעה\n", "דיון והכרעה\n" + PREFIX))
    finals.upload_final(app, case, path, **_FINAL)
    with app.store.connection() as conn:
        moved = conn.execute(
            "SELECT p.char_start, p.char_end, c.content FROM case_law_principles p"
            " JOIN case_law c ON c.id = p.case_law_id WHERE p.id = %s",
            (row["id"],),
        ).fetchone()
    assert moved["char_start"] == row["char_start"] + len(PREFIX)
    assert moved["content"][moved["char_start"] : moved["char_end"]] == Q1
    assert health_of(app)["principles_changed"]["count"] == 0


_FINAL = {
    "appeal_type": "permit",
    "outcome": "rejected",
    "practice_area": "planning",
    "decided_on": "2024-03-01",
}


def test_a_returned_principle_waits_on_the_desk_with_its_reason(app, tmp_path, panel, chair):
    """A principle returned to the chair is in her review queue (its own lane, the reason in
    Hebrew, only a decision that changes its status offered), on the principles page and on
    the today page's cards; her withdrawal there answers the return."""
    script, _ = panel
    ingest(app, tmp_path, "ruling-1", RULING)
    row = _extract(app, script)
    app.ingest(
        [write(tmp_path / "ruling-again.txt", RULING.replace(Q1 + ". ", ""))],
        "external",
        meta=RULING_META,
        doc_id="ruling-1",
    )
    queue = chair.get("/review?lane=returned")
    assert queue.status_code == 200
    assert "הציטוט שעליו העיקרון נשען אינו עוד בטקסט של פסק הדין" in queue.text
    assert 'value="revert"' in queue.text and 'value="confirm"' not in queue.text
    assert "עקרונות שהמקור שלהם השתנה" in chair.get("/").text  # the today page's card
    page = chair.get("/training/principles")
    returned = section(page.text, "returned")
    assert "אינו עוד בטקסט של פסק הדין" in returned and 'value="revert"' in returned
    assert f'id="principle-{row["id"]}"' not in section(page.text, "approved")  # not in search
    done = chair.post(
        "/training/principles/decide",
        data={
            "csrf": csrf_of(page.text),
            "id": row["id"],
            "decision": "revert",
            "expected_status": "approved",
            "reason": "הציטוט הוסר מפסק הדין",
        },
        follow_redirects=False,
    )
    assert done.status_code == 303
    assert health_of(app)["returned_to_chair"]["count"] == 0
    with app.store.connection() as conn:
        status = conn.execute(
            "SELECT review_status, returned_at FROM case_law_principles WHERE id = %s", (row["id"],)
        ).fetchone()
    assert status == {"review_status": "vetoed", "returned_at": None}
    assert 'id="returned"' not in chair.get("/training/principles").text
