"""The services the chair's desk adds (issue 12): a decision that carries the status the page
showed (two tabs, a stale page), bulk decisions that account for every id, and the methodology's
history, diff and one-click restore (a new version; a vetoed lesson is not brought back)."""

import pytest

from legal_ai.auth import CHAIR, agent
from legal_ai.errors import Forbidden, InvalidInput, NotFound
from legal_ai.learning.lessons import lessons
from legal_ai.learning.methodology import profiles as methodology
from system_panel import distilled, panel_decides

pytestmark = pytest.mark.db

STYLE = [
    "נקדים אחרית לראשית: הערר נדחה.",
    "אין בידינו לקבל את טענת העוררים.",
    "לאחר שעיינו בכתבי הטענות, שוכנענו כי דין הערר להתקבל בחלקו.",
]


def _propose(app, texts=STYLE, category="style"):
    return [lessons.propose(app, None, category, text)["id"] for text in texts]


def _audit_count(app, lesson_id):
    with app.store.connection() as conn:
        return conn.execute(
            "SELECT count(*) AS n FROM learning_audit WHERE lesson_id = %s", (lesson_id,)
        ).fetchone()["n"]


def test_two_tabs_approving_the_same_lesson(app):
    (lesson_id,) = _propose(app, STYLE[:1])
    chair = app.acting_as(CHAIR)
    first = lessons.review(chair, lesson_id, "approve", expected_status="proposed")
    assert first["review_status"] == "approved"
    trail = _audit_count(app, lesson_id)
    with pytest.raises(InvalidInput) as stale:
        lessons.review(chair, lesson_id, "approve", expected_status="proposed")
    assert str(stale.value).startswith(f"lesson {lesson_id} was already approved (by chair)")
    with pytest.raises(InvalidInput, match="was already approved"):  # a stale reject, too
        lessons.review(chair, lesson_id, "reject", expected_status="proposed")
    (row,) = lessons.list_lessons(app, "approved")["lessons"]
    assert row["reviewed_at"] == first["reviewed_at"] and row["review_status"] == "approved"
    assert _audit_count(app, lesson_id) == trail  # nothing written
    # Without expected_status the older contract holds: the same decision again is a no-op.
    assert lessons.review(chair, lesson_id, "approve")["review_status"] == "approved"
    with pytest.raises(InvalidInput, match="unknown expected status 'done'"):
        lessons.review(chair, lesson_id, "veto", expected_status="done")
    # The undo from the page that shows it approved.
    undone = lessons.review(chair, lesson_id, "reopen", expected_status="approved")
    assert undone["review_status"] == "proposed"


def test_a_stale_page_after_the_panel_decided(app):
    lesson_id = distilled(app, None, "style", STYLE[0])["id"]
    panel_decides(app, lesson_id, {"openai:a": "approve", "openai:b": "approve"})
    with pytest.raises(
        InvalidInput, match=rf"lesson {lesson_id} was already approved \(by panel\)"
    ):
        lessons.review(app.acting_as(CHAIR), lesson_id, "reject", expected_status="proposed")
    assert lessons.list_lessons(app, "approved")["lessons"][0]["reviewed_by"] == "panel"


def test_bulk_review_accounts_for_every_id(app):
    ids = _propose(app)
    chair = app.acting_as(CHAIR)
    lessons.review(chair, ids[1], "reject")  # decided in another tab before the bulk action
    asked = [ids[0], ids[1], ids[2], 9999, ids[0]]  # a duplicate counts once
    result = lessons.bulk_review(chair, asked, "approve", reason="פעולה מרוכזת (4 פריטים)")
    assert [r["id"] for r in result["decided"]] == [ids[0], ids[2]]
    assert all(
        r["review_status"] == "approved" and r["reviewed_by"] == "chair" for r in result["decided"]
    )
    assert [s["id"] for s in result["skipped"]] == [ids[1], 9999]
    assert result["skipped"][0]["reason"].startswith(f"lesson {ids[1]} was already rejected")
    assert result["skipped"][1]["reason"] == "no lesson 9999"
    statuses = {r["id"]: r["review_status"] for r in lessons.list_lessons(app)["lessons"]}
    assert statuses == {ids[0]: "approved", ids[1]: "rejected", ids[2]: "approved"}
    vetoed = lessons.bulk_review(chair, [ids[0], ids[1]], "veto")
    assert [r["id"] for r in vetoed["decided"]] == [ids[0]]
    assert "was already rejected" in vetoed["skipped"][0]["reason"]


def test_bulk_review_is_the_chairs_and_bounded(app):
    ids = _propose(app)
    with pytest.raises(Forbidden, match="agent:drafter"):
        lessons.bulk_review(app.acting_as(agent("drafter")), ids, "approve")
    chair = app.acting_as(CHAIR)
    with pytest.raises(InvalidInput, match="reopen, the undo, is one lesson at a time"):
        lessons.bulk_review(chair, ids, "reopen")
    with pytest.raises(InvalidInput, match="1 to 500 lessons"):
        lessons.bulk_review(chair, [], "approve")
    with pytest.raises(InvalidInput, match="list of lesson ids"):
        lessons.bulk_review(chair, ["1"], "approve")
    assert {r["review_status"] for r in lessons.list_lessons(app)["lessons"]} == {"proposed"}


def test_methodology_history_diff_and_restore(app):
    chair = app.acting_as(CHAIR)
    seed = methodology.show(app, "universal")
    assert seed["version"] == 1
    phrases = seed["profile"]["transition_phrases"] + ["אשר על כן"]
    methodology.edit(chair, "universal", {"transition_phrases": phrases}, reason="ביטוי מעבר")
    methodology.edit(
        chair,
        "universal",
        {"anti_patterns": ["יש לציין כי"], "golden_ratios": {"discussion": 0.5}},
        reason="קיצור",
    )
    history = methodology.history(app, "universal")["versions"]
    assert [v["version"] for v in history] == [3, 2, 1]
    assert [(v["updated_by"], v["reason"]) for v in history] == [
        ("chair", "קיצור"),
        ("chair", "ביטוי מעבר"),
        ("seed", "seed"),
    ]
    assert all(set(v) == {"version", "updated_by", "reason", "created_at"} for v in history)

    changes = methodology.diff(app, "universal", 1, 3)["changes"]
    assert [c["key"] for c in changes] == ["golden_ratios", "transition_phrases", "anti_patterns"]
    by_key = {c["key"]: c for c in changes}
    assert by_key["transition_phrases"]["before"] == seed["profile"]["transition_phrases"]
    assert by_key["transition_phrases"]["after"] == phrases
    assert by_key["anti_patterns"]["after"] == ["יש לציין כי"]
    assert by_key["golden_ratios"]["after"] == {"discussion": 0.5}
    assert methodology.diff(app, "universal", 2, 2)["changes"] == []
    with pytest.raises(NotFound, match="no version 9 of the universal methodology"):
        methodology.diff(app, "universal", 1, 9)
    with pytest.raises(InvalidInput, match="whole number"):
        methodology.diff(app, "universal", 0, 1)

    with pytest.raises(Forbidden):
        methodology.restore(app.acting_as(agent("drafter")), "universal", 1)
    restored = methodology.restore(chair, "universal", 1)
    assert restored["version"] == 4 and restored["restored_from"] == 1
    assert restored["profile"] == seed["profile"]
    assert methodology.show(app, "universal")["profile"] == seed["profile"]
    newest = methodology.history(app, "universal")["versions"][0]
    assert (newest["version"], newest["reason"]) == (4, "restore of version 1")
    assert methodology.diff(app, "universal", 1, 4)["changes"] == []
    with pytest.raises(
        NotFound, match=r"no version 7 of the permit methodology \(versions 1 to 1\)"
    ):
        methodology.restore(chair, "permit", 7)
    with pytest.raises(InvalidInput, match="unknown appeal type 'villa'"):
        methodology.history(app, "villa")


def test_restore_does_not_bring_back_a_vetoed_lesson(app):
    chair = app.acting_as(CHAIR)
    (lesson_id,) = _propose(app, STYLE[:1])
    lessons.review(chair, lesson_id, "approve")
    folded = [{"id": lesson_id, "category": "style", "text": STYLE[0]}]
    methodology.edit(chair, "universal", {"lessons": folded}, reason="קיפול")  # version 2
    lessons.review(chair, lesson_id, "veto", reason="טעות")  # unfolds: version 3
    assert methodology.show(app, "universal")["profile"]["lessons"] == []
    restored = methodology.restore(chair, "universal", 2, reason="חזרה לגרסה 2")
    assert restored["dropped_lessons"] == [lesson_id]
    assert restored["profile"]["lessons"] == []
    assert methodology.history(app, "universal")["versions"][0]["reason"] == "חזרה לגרסה 2"


def test_a_principle_decided_while_another_waits_on_its_lock(app, tmp_path):
    """The status the page showed is checked under the row lock, after whoever holds it commits:
    a second decision that started while the first was still open sees the first's outcome and
    changes nothing (a check read before the lock would have let it through)."""
    import threading
    import time

    from legal_ai.errors import Stale
    from legal_ai.store import items as sql_items

    path = tmp_path / "ruling.txt"
    path.write_text("נקבע כי סטייה ניכרת מתוכנית אינה יכולה להינתן כהקלה.", encoding="utf-8")
    meta = {
        "title": "פסק דין",
        "case_number": 'עע"מ 7/20',
        "court": "בית המשפט העליון",
        "is_binding": True,
        "practice_area": "planning",
    }
    assert app.ingest([path], "external", meta=meta, doc_id="ruling-7").ingested == 1
    principle = app.add_principle(
        "external",
        "ruling-7",
        "סטייה ניכרת אינה הקלה",
        "סטייה ניכרת מתוכנית אינה יכולה להינתן כהקלה",
    )
    chair = app.acting_as(CHAIR)
    locked, outcome = threading.Event(), {}

    def first_tab() -> None:
        with chair.store.transaction() as conn:
            sql_items.get_principle(conn, principle, lock=True)
            sql_items.set_principle_review(conn, principle, "rejected", "chair", "לא עיקרון")
            locked.set()
            time.sleep(0.8)  # the second tab's decision is waiting on the row meanwhile

    def second_tab() -> None:
        locked.wait(10)
        try:
            outcome["row"] = chair.review_principle(principle, "approve", None, "pending_review")
        except Stale as exc:
            outcome["stale"] = exc

    threads = [threading.Thread(target=first_tab), threading.Thread(target=second_tab)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    stale = outcome.get("stale")
    assert stale is not None, outcome
    assert (stale.kind, stale.item_id, stale.status, stale.by) == (
        "principle",
        principle,
        "rejected",
        "chair",
    )
    assert str(stale).startswith(f"principle {principle} was already rejected (by chair)")
    with app.store.connection() as conn:
        row = sql_items.get_principle(conn, principle)
    assert (row["review_status"], row["review_reason"]) == ("rejected", "לא עיקרון")
    # The name the lists show for "proposed" is accepted, and an unknown one is refused.
    with pytest.raises(InvalidInput, match="unknown expected status 'done'"):
        chair.review_principle(principle, "reopen", None, "done")
    assert chair.review_principle(principle, "reopen", None, "rejected")["review_status"] == (
        "proposed"
    )
    assert chair.review_principle(principle, "approve", None, "proposed")["review_status"] == (
        "approved"
    )
