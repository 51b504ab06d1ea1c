"""The lesson actions of the review queue (issue 12, "every action the chair takes has its
place"): the chair's edit of a proposed lesson (the service, the database's freeze once it is
decided, and the page's edit — an old page's form too) and a lesson she writes herself on
/review. Against the real database, through FastAPI's TestClient (conftest.py's `chair`); the
rest of the queue is in test_desk_review.py."""

import psycopg
import pytest

import factories
from helpers import csrf_of, text_of
from legal_ai.auth import CHAIR, agent
from legal_ai.errors import Forbidden, InvalidInput
from legal_ai.learning.lessons import lessons
from scenarios import analyzed_final

pytestmark = pytest.mark.db


def audit_rows(app, lesson_id: int, action: str) -> list[dict]:
    with app.store.connection() as conn:
        return conn.execute(
            "SELECT actor, details FROM learning_audit WHERE lesson_id = %s AND action = %s",
            (lesson_id, action),
        ).fetchall()


def test_edit_a_proposed_lesson_chair_only_frozen_once_decided(app):
    lesson = lessons.propose(app, None, "style", "משפטים קצרים בפתח")
    chair_app = app.acting_as(CHAIR)
    with pytest.raises(Forbidden, match="chair"):
        lessons.edit(app.acting_as(agent("writer")), lesson["id"], text="נוסח של הסוכן")
    # The agent's database role cannot change the content either, whatever the service says.
    assert app.store.roles_enforced
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        with app.acting_as(agent("writer")).store.transaction() as conn:
            conn.execute("UPDATE decision_lessons SET text = 'x' WHERE id = %s", (lesson["id"],))
    edited = lessons.edit(
        chair_app, lesson["id"], text="משפטים קצרים בפתח הדיון", category="phrase"
    )
    assert edited["text"] == "משפטים קצרים בפתח הדיון" and edited["category"] == "phrase"
    assert edited["review_status"] == "proposed" and edited["kind"] == "style"
    (row,) = audit_rows(app, lesson["id"], "edit_lesson")
    assert row["actor"] == "chair"
    assert row["details"] == {
        "before": {"text": "משפטים קצרים בפתח", "category": "style"},
        "after": {"text": "משפטים קצרים בפתח הדיון", "category": "phrase"},
    }
    with pytest.raises(InvalidInput, match="unknown lesson category"):
        lessons.edit(chair_app, lesson["id"], category="nonsense")
    with pytest.raises(InvalidInput, match="nothing to edit"):
        lessons.edit(chair_app, lesson["id"], text="  ")
    lessons.review(chair_app, lesson["id"], "approve")
    # The page's check: it showed the lesson proposed, it is approved now.
    with pytest.raises(InvalidInput, match="already approved"):
        lessons.edit(chair_app, lesson["id"], text="אחר")
    # Without that check the database itself refuses: a decided lesson's text is frozen.
    with pytest.raises(InvalidInput, match="frozen"):
        lessons.edit(chair_app, lesson["id"], text="אחר", expected_status=None)
    assert lessons.list_lessons(app, "approved")["lessons"][0]["text"] == "משפטים קצרים בפתח הדיון"
    assert len(audit_rows(app, lesson["id"], "edit_lesson")) == 1


def test_training_page_edit_then_approve(chair, desk_app):
    lesson = lessons.propose(desk_app, None, "style", "גוף ראשון בדיון")
    page = chair.get("/review")
    assert 'action="/review/edit"' in page.text and 'data-code="KeyE"' in page.text
    token = csrf_of(page.text)
    form = {
        "csrf": token,
        "queue": "proposed",
        "id": lesson["id"],
        "expected_status": "proposed",
        "text": "גוף ראשון בדיון, לא בפתיחה",
        "category": "structure",
    }
    done = chair.post("/training/edit", data=form, follow_redirects=False)
    assert done.status_code == 303
    shown = chair.get(done.headers["location"])
    assert "העריכה נשמרה" in shown.text and "גוף ראשון בדיון, לא בפתיחה" in shown.text
    forged = chair.post("/training/edit", data={**form, "csrf": "forged", "text": "זר"})
    assert forged.status_code == 403
    lessons.review(desk_app.acting_as(CHAIR), lesson["id"], "approve")
    stale = chair.post("/training/edit", data={**form, "text": "מאוחר מדי"})
    assert stale.status_code == 409 and "כבר הוכרע בינתיים" in text_of(stale.text)
    assert "גוף ראשון בדיון, לא בפתיחה" in text_of(stale.text)  # what she typed, kept
    (row,) = lessons.list_lessons(desk_app, "approved")["lessons"]
    assert row["text"] == "גוף ראשון בדיון, לא בפתיחה" and row["category"] == "structure"


def test_a_lesson_the_chair_writes_on_training(chair, desk_app):
    record = factories.records()[0]
    case = record["case_number"]
    analyzed_final(desk_app, record)
    page = chair.get("/review")
    form = page.text.split('action="/review/lesson"')[1].split("</form>")[0]
    assert '<option value="structure">' in form and '<option value="halacha">' in form
    token = csrf_of(page.text)
    data = {
        "csrf": token,
        "category": "structure",
        "text": "כותרת משנה לכל סוגיה בדיון",
        "case_number": case,
        "block": "discussion",
        "appeal_type": record["appeal_type"],
        "outcome": record["outcome"],
    }
    forged = chair.post("/training/lesson", data={**data, "csrf": "forged"})
    assert forged.status_code == 403
    bad = chair.post("/training/lesson", data={**data, "category": "nonsense"})
    assert bad.status_code == 400 and "הלקח לא נשמר" in bad.text
    assert "כותרת משנה לכל סוגיה בדיון" in bad.text  # what she typed is kept
    assert lessons.list_lessons(desk_app)["lessons"] == []
    done = chair.post("/training/lesson", data=data, follow_redirects=False)
    assert done.status_code == 303
    shown = chair.get(done.headers["location"])
    (row,) = lessons.list_lessons(desk_app)["lessons"]
    assert "הלקח שכתבת נשמר ואושר" in text_of(shown.text)
    assert row["review_status"] == "approved" and row["source"] == "chair"
    assert (row["case_number"], row["block"], row["appeal_type"], row["outcome"]) == (
        case,
        "discussion",
        record["appeal_type"],
        record["outcome"],
    )
    # A substance lesson of her own, with no case: approved too (she alone approves substance).
    general = chair.post(
        "/training/lesson",
        data={"csrf": token, "category": "halacha", "text": "סטייה ניכרת אינה הקלה"},
        follow_redirects=False,
    )
    assert general.status_code == 303
    rows = {r["text"]: r for r in lessons.list_lessons(desk_app, "approved")["lessons"]}
    assert rows["סטייה ניכרת אינה הקלה"]["case_number"] is None
    assert rows["סטייה ניכרת אינה הקלה"]["kind"] == "substance"
