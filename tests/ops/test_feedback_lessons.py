"""The weekly feedback job proposes a lesson from any single item of her feedback that names a
block or a category (issue 34 item 7; 07 §1.2): grouped when items recur, her words verbatim as
the evidence, proposed for her gate by the system's worker (whoever asked), never twice; an item
naming neither is said in the report. The table that keeps it once (feedback_lessons) is written
by the system only."""

from __future__ import annotations

import datetime as dt

import psycopg
import pytest

from helpers import text_of
from legal_ai.auth import CHAIR, agent, system_principal
from legal_ai.learning.lessons import feedback, lessons
from legal_ai.ops import scheduler as schedule

pytestmark = pytest.mark.db

JOB = "weekly-feedback-analysis"


def sunday() -> dt.datetime:
    """The job's next run after now (Sunday 19:00 in Jerusalem): its week holds every remark
    recorded before the call. Read when a test runs, never once at import: a suite started
    before 19:00 on a Sunday and run past it would put its remarks after the week's end."""
    return schedule.next_after("0 19 * * sun", "Asia/Jerusalem", dt.datetime.now(dt.UTC))


def run(app) -> dict:
    return schedule.run_now(app, JOB, now=sunday())["result"]


def stored(app) -> list[dict]:
    with app.store.connection() as conn:
        return conn.execute("SELECT * FROM decision_lessons ORDER BY id").fetchall()


def test_one_remark_of_hers_is_one_proposal_with_her_words_waiting_for_her(app):
    chair = app.acting_as(CHAIR)
    words = "בפרק הדיון — להקדים את המסקנה לניתוח, ולא להפך."
    item = feedback.record(chair, "wrong_structure", words, block="discussion")
    # She asks for the run (the desk's button): the worker runs it, as the system.
    week_end = sunday()
    assert schedule.request_run(chair, JOB, now=week_end)["outcome"] == "queued"
    [report] = [r for r in schedule.run_due(app, now=week_end) if r["name"] == JOB]
    assert report["ran"] and report["trigger"] == "manual"
    result = report["result"]
    [proposed] = result["proposed_lessons"]
    assert (proposed["count"], proposed["feedback_ids"]) == (1, [item["id"]])
    assert proposed["created"] and proposed["review_status"] == "proposed"
    [lesson] = stored(app)
    assert lesson["id"] == proposed["lesson_id"]
    assert (lesson["category"], lesson["block"], lesson["source"]) == (
        "structure",
        "discussion",
        "curator",
    )
    assert lesson["proposed_by"] == "system:scheduler" and lesson["review_status"] == "proposed"
    assert lesson["reviewed_by"] is None  # the job decides nothing: she does
    evidence = lesson["evidence"]
    assert evidence["kind"] == "feedback" and evidence["block"] == "discussion"
    assert [(f["id"], f["text"], f["actor"]) for f in evidence["feedback"]] == [
        (item["id"], words, "chair")
    ]
    assert f"«{words}»" in lesson["text"] and 'משוב של היו"ר' in lesson["text"]
    assert [x["id"] for x in lessons.list_lessons(app, "proposed")["lessons"]] == [lesson["id"]]
    assert result["not_proposed"] == [] and result["already_proposed"] == []


def test_recurring_items_are_one_grouped_proposal_and_a_rerun_adds_nothing(app):
    chair = app.acting_as(CHAIR)
    first = feedback.record(chair, "missing_content", "חסר תיאור הסיור", block="hearing")
    second = feedback.record(chair, "missing_content", "לא תואר מה נראה בסיור", block="hearing")
    result = run(app)
    [proposed] = result["proposed_lessons"]
    assert proposed["count"] == 2 and proposed["feedback_ids"] == [first["id"], second["id"]]
    [lesson] = stored(app)
    assert [f["text"] for f in lesson["evidence"]["feedback"]] == [
        "חסר תיאור הסיור",
        "לא תואר מה נראה בסיור",
    ]
    assert 'משוב חוזר של היו"ר (2 פעמים' in lesson["text"]
    assert lesson["category"] == "lessons_document"  # substance: hers alone to approve

    again = run(app)
    assert again["proposed_lessons"] == []
    assert again["already_proposed"] == [
        {"feedback_id": first["id"], "lesson_id": lesson["id"]},
        {"feedback_id": second["id"], "lesson_id": lesson["id"]},
    ]
    assert "2 item(s) proposed from before" in again["summary"]
    assert len(stored(app)) == 1

    # A third remark of the same kind: a proposal of its own, the first two not proposed again.
    third = feedback.record(chair, "missing_content", "שוב חסר הסיור", block="hearing")
    [later] = run(app)["proposed_lessons"]
    assert later["feedback_ids"] == [third["id"]] and later["lesson_id"] != lesson["id"]
    assert len(stored(app)) == 2


def test_a_remark_naming_neither_block_nor_category_is_not_proposed_and_said(app):
    chair = app.acting_as(CHAIR)
    vague = feedback.record(chair, "other", "לא אהבתי")
    named = feedback.record(chair, "style", "משפטים ארוכים מדי")
    result = run(app)
    [proposed] = result["proposed_lessons"]
    assert proposed["feedback_ids"] == [named["id"]] and proposed["block"] is None
    assert result["not_proposed"] == [
        {"feedback_id": vague["id"], "reason": "names neither a block nor a category "
         "(category other, no block)"}
    ]  # fmt: skip
    assert "1 item(s) not proposed: names neither a block nor a category" in result["summary"]
    assert [x["evidence"]["feedback"][0]["id"] for x in stored(app)] == [named["id"]]
    # "other" with a block names the block: proposed.
    feedback.record(chair, "other", "הכותרת לא במקומה", block="header")
    [with_block] = run(app)["proposed_lessons"]
    assert with_block["block"] == "header"


def test_an_agents_relayed_item_is_never_presented_as_hers(app):
    feedback.record(app.acting_as(agent("writer")), "style", "הטון רשמי מדי", block="conclusion")
    run(app)
    [lesson] = stored(app)
    assert 'לא בידי היו"ר' in lesson["text"] and "writer" in lesson["text"]
    assert lesson["evidence"]["feedback"][0]["actor"] == "agent:writer"


def _link(conn, item: dict, lesson: dict) -> None:
    conn.execute(
        "INSERT INTO feedback_lessons (feedback_id, lesson_id) VALUES (%s, %s)",
        (item["id"], lesson["id"]),
    )


def test_only_the_system_records_feedback_as_proposed(app):
    """The chair's role and an agent's may not mark her feedback as proposed (it would keep it
    from ever reaching her); the worker's role does, under its own name."""
    chair = app.acting_as(CHAIR)
    item = feedback.record(chair, "style", "פחות סימני קריאה")
    lesson = lessons.propose(app, None, "style", "פחות סימני קריאה")
    for who in (chair, app.acting_as(agent("writer"))):
        with pytest.raises(psycopg.errors.InsufficientPrivilege), who.store.transaction() as conn:
            _link(conn, item, lesson)
    with app.acting_as(system_principal("scheduler")).store.transaction() as conn:
        _link(conn, item, lesson)
        row = conn.execute("SELECT proposed_by FROM feedback_lessons").fetchone()
    assert row["proposed_by"] == "legal_ai_worker"
    assert run(app)["proposed_lessons"] == []  # proposed from already


def test_the_agents_own_login_may_not_record_feedback_as_proposed(app, agent_db_url):
    item = feedback.record(app.acting_as(CHAIR), "style", "פחות סימני קריאה")
    lesson = lessons.propose(app, None, "style", "פחות סימני קריאה")
    with psycopg.connect(agent_db_url) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        _link(conn, item, lesson)


def test_the_desk_shows_her_words_as_the_proposals_evidence(app, chair):
    words = "בסיכום — משפט אחד על התוצאה."
    feedback.record(app.acting_as(CHAIR), "style", words, block="conclusion")
    [proposed] = run(app)["proposed_lessons"]
    page = text_of(chair.get("/review", params={"item": f"lesson-{proposed['lesson_id']}"}).text)
    side = page.split('aria-label="הראיות"')[1]
    assert "הראיות: המשוב שההצעה נשענת עליו" in side and words in side and "כתבת" in side
