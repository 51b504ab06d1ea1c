"""The learning loop's deterministic core against the real database: drafts and finals, the
pair lifecycle, append-only held-out history, citations, the gate, promote under concurrency,
the writer's brief, chair feedback, curator findings, and bad input."""

import json
import threading
import time

import psycopg
import pytest

import factories
from helpers import TEST_CHAIR, shared, write
from legal_ai.auth import CHAIR, agent
from legal_ai.errors import Forbidden, InvalidInput, NotFound
from legal_ai.knowledge import brief
from legal_ai.learning.arrival import metadata
from legal_ai.learning.lessons import feedback, lessons
from legal_ai.learning.methodology import profiles as methodology
from legal_ai.learning.pairs import drafts, finals
from legal_ai.store import drafts_lessons as store
from legal_ai.text.blocks import BLOCKS
from shapes import assert_shape
from system_panel import distilled, panel_decides

pytestmark = pytest.mark.db


def stored(upload: dict) -> bool:
    """A final stored whole: both copies searchable, or the internal one waiting only for the
    decision's headnote, summary and tags (what to set is said), the style copy searchable."""
    meta = upload["metadata"]
    return upload["searchable"] or (
        meta["awaiting_metadata"]
        and set(meta["missing"]) <= {"headnote", "summary", "tags"}
        and bool(meta["set"])
    )


def described(app, upload: dict) -> None:
    """The chair gives the uploaded decision its headnote, summary and tags (as on the desk's
    screen): its internal copy becomes searchable."""
    with app.store.pool.connection() as conn:
        doc_id = conn.execute(
            "SELECT doc_id FROM case_law WHERE id = %s", (upload["case_law_id"],)
        ).fetchone()["doc_id"]
    done = metadata.set_fields(app.acting_as(CHAIR), doc_id, "החלטה בערר", "הערר הוכרע.", "ערר")
    assert done["searchable"]


def records() -> list[dict]:
    """The project's fictional draft/final pairs (tests/fixtures/decisions, the demo's first)."""
    return factories.records()


def shared_records() -> list[dict]:
    """The ten pairs of ../shared/data/synthetic-decisions, for the larger run."""
    path = shared("synthetic-decisions", "decisions.jsonl")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def pair_files(tmp_path, record: dict) -> tuple:
    slug = factories.slug(record["case_number"])
    draft = write(tmp_path / f"{slug}.draft.txt", record["draft_text"])
    final = write(tmp_path / f"{slug}.final.txt", record["final_text"])
    return draft, final


def add_draft(app, record, path):
    return drafts.add_draft(
        app,
        record["case_number"],
        path,
        appeal_type=record["appeal_type"],
        outcome=record["outcome"],
        practice_area=record["practice_area"],
    )


def first_pair(app, tmp_path, index: int = 0):
    record = records()[index]
    draft, final = pair_files(tmp_path, record)
    add_draft(app, record, draft)
    return record, finals.upload_final(app, record["case_number"], final)


def test_pairs_end_to_end(app, tmp_path):
    """The issue's acceptance on the project's four fictional pairs: drafts first, then finals."""
    pairs_end_to_end(app, tmp_path, records(), top=1)


@pytest.mark.shared
@pytest.mark.slow
def test_ten_shared_pairs_end_to_end(app, tmp_path):
    pairs_end_to_end(app, tmp_path, shared_records(), top=10)


def pairs_end_to_end(app, tmp_path, recs: list[dict], top: int) -> None:
    """Drafts first, then finals: held-out history, citations linked across decisions, both
    searches. Each pair's edits summary finds its decision within the `top` hits."""
    files = [pair_files(tmp_path, r) for r in recs]
    for record, (draft, _) in zip(recs, files, strict=True):
        result = add_draft(app, record, draft)
        assert result["pair_status"] == "draft_done" and result["missing_blocks"] == []
    uploads = [
        finals.upload_final(app, r["case_number"], f) for r, (_, f) in zip(recs, files, strict=True)
    ]
    assert {u["pair_status"] for u in uploads} == {"analyzed"}
    # stored whole: searchable, or its internal copy waiting only for the decision's headnote,
    # summary and tags (no enricher here; issue 21 item 6)
    assert all(stored(u) and u["history_row"] for u in uploads)

    rows = finals.history(app)["rows"]
    assert len(rows) == len(recs)
    for row, record in zip(rows, recs, strict=True):
        assert row["case_number"] == record["case_number"]
        assert row["anti_pattern_total"] > 0  # the drafts' fillers are counted…
        assert row["final_anti_pattern_total"] < row["anti_pattern_total"]  # …and mostly gone
        assert 0 < row["change_percent"] < 100
        assert row["held_out"] and row["lesson_pool_size"] == 0
        final_words = {b: m["final_words"] for b, m in row["metrics"]["blocks"].items()}
        assert max(final_words, key=final_words.get) == "discussion"
    assert rows[0]["ratio_deviation"] is None and rows[0]["profile_finals"] == 0  # nothing before
    assert rows[-1]["profile_finals"] == len(recs) - 1 and 0 < rows[-1]["ratio_deviation"] < 0.5
    assert rows[-1]["stylometric_delta"] is not None

    with app.store.pool.connection() as conn:
        counts = conn.execute(
            "SELECT a.kind, a.ref, a.corroboration FROM authorities a ORDER BY a.ref"
        ).fetchall()
        missing = store.missing_precedents(conn)
    rulings = {r["ref"]: r["corroboration"] for r in counts if r["kind"] == "ruling"}
    expected: dict[str, set] = {}
    for record in recs:
        for c in record["citations"]:
            if c["kind"] == "ruling":
                expected.setdefault(c["ref"], set()).add(record["case_number"])
    assert rulings == {ref: len(cases) for ref, cases in expected.items()}
    assert any(n > 1 for n in rulings.values())  # linked across decisions where they repeat
    assert {m["ref"] for m in missing} == set(expected)  # none of the rulings is in the library

    for upload in uploads:
        described(app, upload)
    for record in recs:
        hits = app.tool("search_internal_decisions", query=record["edits_summary"][:200], limit=10)
        assert record["case_number"] in {h["case_number"] for h in hits["hits"][:top]}
    style = app.tool(
        "search_decisions", query="נקדים אחרית לראשית", practice_area="planning", limit=20
    )["hits"]
    planning = {r["case_number"] for r in recs if r["practice_area"] == "planning"}
    assert {h["case_number"] for h in style} == planning  # enrolled under the full case number


def test_same_final_twice_changes_nothing_and_a_changed_final_is_a_new_version(app, tmp_path):
    record, first = first_pair(app, tmp_path)
    again = finals.upload_final(app, record["case_number"], pair_files(tmp_path, record)[1])
    assert again["changed"] is False and again["history_row"] is None and stored(again)
    assert len(finals.history(app)["rows"]) == 1
    changed = write(
        tmp_path / "changed.final.txt",
        record["final_text"].replace("אין צו להוצאות", "אין צו להוצאות בערר זה"),
    )
    second = finals.upload_final(app, record["case_number"], changed)
    assert second["version"] == first["version"] + 1
    assert any("version" in note for note in second["notes"])
    assert second["pair_status"] == "analyzed"
    rows = finals.history(app)["rows"]
    assert len(rows) == 2
    # Each row is the type the answer is declared as: the table's columns, its time as text.
    assert_shape(finals.history(app), finals.History)
    assert_shape(second, finals.FinalUploaded)
    assert isinstance(rows[0]["captured_at"], str)


def test_final_without_a_draft_grows_the_corpora_and_waits(app, tmp_path):
    record = records()[1]
    _, final = pair_files(tmp_path, record)
    result = finals.upload_final(app, record["case_number"], final)
    assert result["pair_status"] == "final_received" and result["history_row"] is None
    assert any("no held-out snapshot" in note for note in result["notes"])
    assert stored(result)
    described(app, result)
    hits = app.tool("search_internal_decisions", query=record["edits_summary"][:150])["hits"]
    assert hits and hits[0]["case_number"] == record["case_number"]
    with app.store.pool.connection() as conn:
        row = conn.execute(
            "SELECT chair_name, decided_on FROM case_law WHERE id = %s", (result["case_law_id"],)
        ).fetchone()
    assert row["chair_name"] == TEST_CHAIR and row["decided_on"].isoformat() == record["decided_on"]
    # A draft arriving after the final is refused (it would not be held out).
    with pytest.raises(InvalidInput, match="already arrived"):
        add_draft(app, record, pair_files(tmp_path, record)[0])


def test_pair_status_only_moves_forward(app, tmp_path):
    record, _ = first_pair(app, tmp_path)
    with app.store.pool.connection() as conn:
        for status in ("draft_done", "final_received"):
            with pytest.raises(psycopg.errors.CheckViolation, match="only forward"):
                with conn.transaction():
                    conn.execute("UPDATE draft_final_pairs SET status = %s", (status,))
        with pytest.raises(psycopg.errors.CheckViolation):
            with conn.transaction():
                conn.execute(
                    "INSERT INTO cases (case_number) VALUES ('ערר 1/25');"
                    " INSERT INTO draft_final_pairs (case_number, status) VALUES ('ערר 1/25', 'analyzed')"
                )
        assert store.get_pair(conn, record["case_number"])["status"] == "analyzed"


def test_history_is_append_only(app, tmp_path):
    first_pair(app, tmp_path)
    with app.store.pool.connection() as conn:
        for statement in (
            "UPDATE style_distance_history SET change_percent = 0",
            "DELETE FROM style_distance_history",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="append-only"):
                with conn.transaction():
                    conn.execute(statement)
        assert len(store.history(conn)) == 1


def test_the_gate(app, tmp_path):
    record, _ = first_pair(app, tmp_path)
    case = record["case_number"]
    fact = distilled(app, case, "fact", "המועד הנכון הוא 5.7.2023")
    style = distilled(app, case, "style", "משפטים קצרים בפתח הדבר")
    assert fact["review_status"] == style["review_status"] == "proposed"
    # Substance: never by a panel, never by anyone but the chair — not even writing SQL directly.
    with pytest.raises(InvalidInput, match="only the chair decides"):
        panel_decides(app, fact["id"], {"openai:a": "approve", "openai:b": "approve"})
    with pytest.raises(Forbidden, match="chair's decision"):
        lessons.review(app.acting_as(agent("curator")), fact["id"], "approve")
    with pytest.raises(Forbidden, match="chair's decision"):
        lessons.review(app, fact["id"], "approve")  # the operator's scripts are not the chair
    with app.store.pool.connection() as conn, pytest.raises(psycopg.errors.CheckViolation):
        conn.execute(
            "UPDATE decision_lessons SET review_status = 'approved', reviewed_by = 'panel'"
            " WHERE id = %s",
            (fact["id"],),
        )
    chair = app.acting_as(CHAIR)
    assert lessons.review(chair, fact["id"], "approve")["review_status"] == "approved"
    # Style: a 2/2 panel approves; a veto reverts it and the writer no longer sees it.
    split = distilled(app, case, "phrase", "אשר על כן")
    assert (
        panel_decides(app, split["id"], {"openai:a": "approve", "openai:b": "reject"})[
            "needs_chair"
        ]
        is True
    )
    approved = panel_decides(app, style["id"], {"openai:a": "approve", "openai:b": "approve"})
    assert approved["review_status"] == "approved" and approved["reviewed_by"] == "panel"
    seen = brief.lessons_for_outcome(app, record["appeal_type"], record["outcome"])["lessons"]
    assert {lesson["id"] for lesson in seen} == {fact["id"], style["id"]}
    lessons.review(chair, style["id"], "veto", reason="לא מתאים")
    seen = brief.writing_brief(app, record["appeal_type"], record["outcome"])["lessons"]
    assert {lesson["id"] for lesson in seen} == {fact["id"]}
    with pytest.raises(InvalidInput, match="only the chair vetoes"):
        lessons.review(chair, split["id"], "veto")  # a proposed lesson cannot be vetoed
    with app.store.pool.connection() as conn:
        audit = conn.execute(
            "SELECT actor, to_status FROM learning_audit WHERE lesson_id IS NOT NULL ORDER BY id"
        ).fetchall()
    assert ("panel", "approved") in {(a["actor"], a["to_status"]) for a in audit}
    assert ("chair", "vetoed") in {(a["actor"], a["to_status"]) for a in audit}
    with app.store.pool.connection() as conn:
        split_logged = conn.execute(
            "SELECT count(*) AS n FROM learning_audit WHERE action = 'panel_split'"
        ).fetchone()["n"]
    assert split_logged == 1


def test_promote_folds_into_the_methodology_and_survives_a_concurrent_edit(app, tmp_path):
    record, _ = first_pair(app, tmp_path)
    case, appeal_type = record["case_number"], record["appeal_type"]
    lesson = lessons.propose(app, case, "structure", "המסגרת הנורמטיבית בבלוק נפרד")
    chair = app.acting_as(CHAIR)
    # Connection A edits the methodology and holds the row lock while promote starts.
    other = psycopg.connect(app.store.url, autocommit=False)
    other.execute(
        "SELECT profile FROM methodology_profiles WHERE appeal_type = %s FOR UPDATE", (appeal_type,)
    )
    result: dict = {}
    worker = threading.Thread(
        target=lambda: result.update(lessons.promote(chair, case, [lesson["id"]], ["סוף דבר"]))
    )
    worker.start()
    time.sleep(1.0)
    assert worker.is_alive()  # promote waits for the lock instead of reading a stale profile
    other.execute(
        'UPDATE methodology_profiles SET profile = profile || \'{"voice_invariants": ["עריכה במקביל"]}\','
        " version = version + 1 WHERE appeal_type = %s",
        (appeal_type,),
    )
    other.commit()
    other.close()
    worker.join(timeout=30)
    assert result["pair_status"] == "lessons_folded"
    profile = methodology.show(app, appeal_type)
    assert profile["version"] == 3  # seed, the concurrent edit, the promote
    assert profile["profile"]["voice_invariants"] == ["עריכה במקביל"]  # not lost
    assert [item["id"] for item in profile["profile"]["lessons"]] == [lesson["id"]]
    assert "סוף דבר" in profile["profile"]["transition_phrases"]
    folded = brief.writing_brief(app, appeal_type, record["outcome"])["folded_lessons"]
    assert [item["id"] for item in folded] == [lesson["id"]]
    # A veto takes it out of the profile too; the pair cannot be promoted twice.
    lessons.review(chair, lesson["id"], "veto")
    assert methodology.show(app, appeal_type)["profile"]["lessons"] == []
    with pytest.raises(InvalidInput, match="lessons_folded"):
        lessons.promote(chair, case, [], ["x"])


def test_curator_findings_are_tagged_proposals_and_retry_safe(app, tmp_path):
    record, _ = first_pair(app, tmp_path)
    findings = [
        "[סגנון] משפטים קצרים יותר",
        "[מבנה] המסגרת הנורמטיבית לפני הדיון",
        "[לקסיקון משפטי] 'היטל השבחה' ולא 'מס השבחה'",
        "[טבלאי] טבלת מועדים",
    ]
    first = lessons.record_curator_findings(app, record["case_number"], findings)
    again = lessons.record_curator_findings(app, record["case_number"], findings)
    assert (first["recorded"], again["recorded"], again["already_recorded"]) == (4, 0, 4)
    assert {r["category"] for r in first["lessons"]} == {
        "style",
        "structure",
        "legal_lexicon",
        "tabular",
    }
    assert {r["source"] for r in first["lessons"]} == {"curator"}
    for bad in (findings[:2], findings + findings[:2], ["בלי תגית"] * 3):
        with pytest.raises(InvalidInput):
            lessons.record_curator_findings(app, record["case_number"], bad)


def test_brief_and_checklist_come_from_the_methodology(app, tmp_path):
    record, _ = first_pair(app, tmp_path)
    checklist = brief.content_checklist(app, "betterment_levy", "rejected")["checklist"]
    assert any("התוספת השלישית" in item for item in checklist)
    assert any("הנימוק המכריע" in item for item in checklist)
    full = brief.writing_brief(app, record["appeal_type"], record["outcome"])
    assert "יש לציין כי" in full["anti_patterns"] and full["block_order"] == list(BLOCKS)
    assert set(full["golden_ratios"]) >= {"discussion", "opening"}
    with pytest.raises(InvalidInput, match="unknown appeal type"):
        brief.writing_brief(app, "divorce")


def test_chair_feedback_and_weekly_summary(app, tmp_path):
    record, _ = first_pair(app, tmp_path)
    case = record["case_number"]
    feedback.record(app, "missing_content", "חסרה התייחסות לסיור", case=case, block="hearing")
    feedback.record(app, "missing_content", "חסר נימוק", case=case, block="discussion")
    feedback.record(app, "wrong_tone", "נוסח רטורי מדי", case=case, block="discussion")
    assert len(feedback.list_feedback(app, case=case)["feedback"]) == 3
    summary = feedback.weekly_summary(app)
    assert summary["total"] == 3 and summary["by_category"] == {
        "missing_content": 2,
        "wrong_tone": 1,
    }
    assert summary["by_block"] == {"discussion": 2, "hearing": 1}
    with pytest.raises(InvalidInput, match="unknown feedback category"):
        feedback.record(app, "rude", "x", case=case)
    with pytest.raises(InvalidInput, match="unknown block"):
        feedback.record(app, "style", "x", case=case, block="preamble")
    with pytest.raises(NotFound):
        feedback.record(app, "style", "x", case="ערר 9/99")
    assert len(feedback.list_feedback(app)["feedback"]) == 3


def _snapshot(app) -> tuple:
    with app.store.pool.connection() as conn:
        return tuple(
            conn.execute(f"SELECT count(*) AS n FROM {t}").fetchone()["n"]  # noqa: S608
            for t in (
                "cases",
                "drafts",
                "draft_final_pairs",
                "documents",
                "case_law",
                "style_distance_history",
                "authorities",
                "chair_feedback",
            )
        )


def test_bad_input_is_refused_and_changes_nothing(app, tmp_path):
    record, _ = first_pair(app, tmp_path)
    before = _snapshot(app)
    corrupt = factories.truncated_pdf(tmp_path / "truncated-corrupt.pdf")
    scan = factories.image_only_pdf(tmp_path / "scanned-image-only.pdf")
    cases = [
        ("8046/24", write(tmp_path / "a.txt", record["draft_text"]), "malformed case number"),
        (
            "ערר 5/25",
            write(tmp_path / "plain.txt", "סתם מכתב בלי כותרות של החלטה.\n"),
            "no decision blocks",
        ),
        ("ערר 5/25", write(tmp_path / "empty.txt", ""), "empty"),
        ("ערר 5/25", corrupt, "corrupt|cannot read|damaged"),
        ("ערר 5/25", scan, "a scan .*upload the decision as it was written.*OCR"),
        ("ערר 5/25", tmp_path / "nope.txt", "no such file"),
    ]
    for case, path, message in cases:
        for call in (finals.upload_final, drafts.add_draft):
            with pytest.raises(InvalidInput, match=message):
                call(app, case, path)
    with pytest.raises(InvalidInput, match="unknown appeal type"):
        drafts.add_draft(app, "ערר 5/25", pair_files(tmp_path, record)[0], appeal_type="x")
    # The same signed file under another case number is a duplicate upload.
    with pytest.raises(InvalidInput, match="duplicate upload"):
        finals.upload_final(app, "ערר 5/25", pair_files(tmp_path, record)[1])
    assert _snapshot(app) == before


def test_pdf_and_docx_finals_upload(app, tmp_path):
    record = records()[0]
    pdf = factories.decision_pdf(tmp_path / "final.pdf", record["final_text"], pages=3)
    uploaded = finals.upload_final(app, record["case_number"], pdf)
    assert uploaded["pair_status"] == "final_received" and uploaded["blocks_missing"] == []
    rulings = sum(c["kind"] == "ruling" for c in record["citations"])
    assert uploaded["citations"] == {"linked": 0, "missing": rulings, "ambiguous": 0}
    with app.store.pool.connection() as conn:
        pages = conn.execute("SELECT DISTINCT page FROM document_chunks ORDER BY page").fetchall()
    assert [p["page"] for p in pages] == [1, 2, 3]
    # the DOCX of the same decision under another case number: other bytes, not a duplicate
    docx = factories.docx(tmp_path / "final.docx", record["final_text"])
    other = finals.upload_final(app, "ערר (מרכז) 2701/25", docx, decided_on="2025-04-20")
    assert stored(other) and other["blocks_missing"] == []


@pytest.mark.shared
def test_the_shared_pdf_and_docx_finals_upload(app, tmp_path):
    record = shared_records()[0]
    docs = shared("synthetic-decisions", "documents")
    pdf = finals.upload_final(app, record["case_number"], docs / "arar-merkaz-1042-23.final.pdf")
    assert pdf["pair_status"] == "final_received" and pdf["blocks_missing"] == []
    assert pdf["citations"]["missing"] == sum(c["kind"] == "ruling" for c in record["citations"])
    # the DOCX of the same decision under another case number is a duplicate upload? no: other bytes
    docx = finals.upload_final(
        app, "ערר (מרכז) 2042/23", docs / "arar-merkaz-1042-23.final.docx", decided_on="2023-11-14"
    )
    assert stored(docx)


def test_full_case_numbers_never_collide(app, tmp_path):
    record = records()[0]
    draft = pair_files(tmp_path, record)[0]
    for case in ("ערר 1042/23", "בל״מ 1042-23"):
        drafts.add_draft(app, case, draft)
    with app.store.pool.connection() as conn:
        pairs = [r["case_number"] for r in store.list_pairs(conn)]
    assert pairs == ["ערר 1042/23", 'בל"מ 1042/23']


def test_citations_link_to_statute_sections_and_rulings_in_the_library(app, tmp_path):
    law = 'חוק התכנון והבניה, תשכ"ה–1965'
    lines = [
        {
            "doc_id": "pbl#point_149",
            "doc_type": "legislation",
            "title": "סעיף 149",
            "law_title": law,
            "section_num": "149",
            "eid": "point_149",
            "text": "149. (א) הוחלט להקל, תפרסם הוועדה המקומית הודעה.",
        },
        {
            "doc_id": "pbl#appendix_שלישית__point_14",
            "doc_type": "legislation",
            "title": "תוספת שלישית סעיף 14",
            "law_title": law,
            "section_num": "14",
            "eid": "appendix_שלישית__point_14",
            "text": "14. (א) שומת ההשבחה תיעשה בידי שמאי.",
        },
        {
            "doc_id": "r-9001",
            "doc_type": "ruling",
            "title": "פלוני",
            "court": "העליון",
            "decided_on": "2019-05-01",
            "case_number": 'עע"מ 9001/19',
            "text": "פסק דין בדוי על פרסום הקלה.",
        },
    ]
    path = write(
        tmp_path / "library.jsonl", "\n".join(json.dumps(x, ensure_ascii=False) for x in lines)
    )
    assert app.ingest([path], "external").ingested == 3
    text = (
        "ועדת הערר לתכנון ובנייה – מחוז מרכז\nערר (מרכז) 3001/25\n\nהחלטה\n\nפתח דבר\n\n"
        "1. לפי סעיף 149(א) לחוק ובהתאם לסעיף 14(ב)(4) לתוספת השלישית.\n\nרקע עובדתי\n\n"
        '2. כפי שנקבע בעע"מ 9001/19 פלוני נ\' הוועדה המקומית רעננה, ובבר"מ 9777/20.\n\n'
        "דיון והכרעה\n\n3. הערר נדחה.\n\nסוף דבר\n\n4. אין צו להוצאות.\n\n"
        'ניתנה היום, 1 במרץ 2025.\nרותם לוי, עו"ד'
    )
    result = finals.upload_final(
        app, "ערר (מרכז) 3001/25", write(tmp_path / "f.txt", text), practice_area="planning"
    )
    assert result["citations"] == {"linked": 3, "missing": 1, "ambiguous": 0}
    with app.store.pool.connection() as conn:
        assert [m["ref"] for m in store.missing_precedents(conn)] == ['בר"מ 9777/20']


def test_practice_area_comes_from_the_appeals_committee_not_the_respondent():
    from legal_ai.learning.vocabulary import practice_area_from

    levy = "ועדת הערר לפיצויים ולהיטל השבחה – מחוז מרכז\nהמשיבה: הוועדה המקומית לתכנון ובנייה"
    assert practice_area_from(levy, "") == "betterment_levy"
    assert practice_area_from(levy, "תביעה לפי סעיף 197 לחוק") == "compensation"
    planning = "ועדת הערר לתכנון ובנייה – מחוז מרכז\nהמשיבה: הוועדה המקומית לתכנון ובנייה"
    assert practice_area_from(planning, "") == "planning"
    assert practice_area_from("החלטה", "") is None
