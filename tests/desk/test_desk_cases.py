"""The CLI's remaining chair actions on the desk (issue 12, "every action the chair takes has its
place"): promote an analyzed pair's style lessons and phrases into the methodology from /cases,
a lesson the chair writes herself on /training, and a precedent attached to a case from /cases.
Against the real database, through FastAPI's TestClient (fixtures of tests/test_desk.py)."""

import html

import pytest

import factories
from legal_ai.auth import CHAIR
from legal_ai.learning import finals, lessons, methodology
from test_desk import chair, client, csrf_of, desk_app  # noqa: F401 - the desk's fixtures
from test_desk_gaps import analyzed_final

pytestmark = pytest.mark.db


def pair_status(app, case: str) -> str:
    return next(p["status"] for p in finals.pairs(app)["pairs"] if p["case_number"] == case)


def versions(app, appeal_type: str) -> int:
    return len(methodology.history(app, appeal_type)["versions"])


def test_promote_from_cases_refusals_then_a_new_version(chair, desk_app):  # noqa: F811
    record = factories.records()[0]
    case, appeal_type = record["case_number"], record["appeal_type"]
    # Before the final: a pair not analyzed is refused in Hebrew, nothing changed.
    from pathlib import Path

    path = Path(desk_app.settings.home) / "more-draft.txt"
    path.write_text(record["draft_text"], encoding="utf-8")
    finals.add_draft(desk_app, case, path, appeal_type=appeal_type, outcome=record["outcome"],
                     practice_area=record["practice_area"])  # fmt: skip
    path.unlink()
    token = csrf_of(chair.get("/cases").text)
    early = chair.post("/cases/promote", data={"csrf": token, "case_number": case,
                                               "phrases": "אשר על כן"})  # fmt: skip
    assert early.status_code == 400
    assert "הקידום לא בוצע" in early.text and "קידום לקחים אפשרי רק בזוג שנותח" in early.text
    assert pair_status(desk_app, case) == "draft_done"
    # The final makes the pair analyzed (the test's helper uploads the draft again: a version 2).
    analyzed_final(desk_app, record)
    style = lessons.propose(desk_app, case, "structure", "פסקה אחת לכל טענה בדיון")
    proposed = lessons.propose(desk_app, case, "phrase", "מכאן, ועל כן")
    substance = lessons.propose(desk_app, case, "halacha", 'הקלה אינה סטייה ניכרת (עע"מ 1234/05)')
    lessons.review(desk_app.acting_as(CHAIR), style["id"],
                   "approve")  # fmt: skip
    before = versions(desk_app, appeal_type)
    page = chair.get("/cases")
    form = page.text.split('action="/cases/promote"')[1].split("</form>")[0]
    assert f'name="lesson" value="{style["id"]}" checked' in form  # approved: chosen already
    assert f'name="lesson" value="{proposed["id"]}">' in form  # proposed: her choice
    assert f'value="{substance["id"]}"' not in form and "לקח מהות" in form  # not choosable
    token = csrf_of(page.text)
    data = {"csrf": token, "case_number": case, "phrases": "אשר על כן\n\nלאור האמור\n"}
    # A forged token, a substance lesson: refused, nothing changed.
    forged = chair.post("/cases/promote", data={**data, "csrf": "forged",
                                                "lesson": [str(style["id"])]})  # fmt: skip
    assert forged.status_code == 403
    refused = chair.post("/cases/promote", data={**data, "lesson": [str(style["id"]),
                                                                    str(substance["id"])]})  # fmt: skip
    assert refused.status_code == 400 and "לקח מהות" in refused.text
    assert "הקידום לא בוצע, דבר לא השתנה" in refused.text
    assert versions(desk_app, appeal_type) == before and pair_status(desk_app, case) == "analyzed"
    # The chosen style lessons and phrases: a new version, the pair at lessons_folded.
    done = chair.post("/cases/promote", data={**data, "lesson": [str(style["id"]),
                                                                 str(proposed["id"])]})  # fmt: skip
    assert done.status_code == 200, done.text
    assert versions(desk_app, appeal_type) == before + 1
    version = methodology.history(desk_app, appeal_type)["versions"][0]["version"]
    text = html.unescape(done.text)
    assert f"גרסה {version}" in text and "הלקחים שולבו" in text
    assert f'href="/methodology/{appeal_type}"' in done.text
    assert pair_status(desk_app, case) == "lessons_folded"
    profile = methodology.show(desk_app, appeal_type)
    profile = profile.get("profile", profile)
    assert {item["id"] for item in profile["lessons"]} >= {style["id"], proposed["id"]}
    assert substance["id"] not in {item["id"] for item in profile["lessons"]}
    assert {"אשר על כן", "לאור האמור"} <= set(profile["transition_phrases"])
    (approved,) = [r for r in lessons.list_lessons(desk_app, case=case)["lessons"]
                   if r["id"] == proposed["id"]]  # fmt: skip
    assert approved["review_status"] == "approved"  # chosen for promotion = approved
    # Once folded, the pair offers no second promote and a replay is refused.
    assert 'action="/cases/promote"' not in done.text
    again = chair.post("/cases/promote", data={**data, "lesson": [str(style["id"])]})
    assert again.status_code == 400 and "הלקחים שולבו" in html.unescape(again.text)
    assert versions(desk_app, appeal_type) == before + 1


def test_attach_a_precedent_to_a_case_from_cases(chair, desk_app):  # noqa: F811
    record = factories.records()[0]
    case = record["case_number"]
    analyzed_final(desk_app, record)
    page = chair.get("/cases")
    assert 'action="/cases/precedent"' in page.text
    token = csrf_of(page.text)
    citation = 'עע"מ 9999/05'
    forged = chair.post("/cases/precedent", data={"csrf": "forged", "case_number": case,
                                                  "citation": citation})  # fmt: skip
    assert forged.status_code == 403
    unknown = chair.post("/cases/precedent", data={"csrf": token, "case_number": "ערר 77/25",
                                                   "citation": citation})  # fmt: skip
    assert unknown.status_code == 404 and "התקדים לא צורף" in unknown.text
    blank = chair.post("/cases/precedent", data={"csrf": token, "case_number": case,
                                                 "citation": "  "})  # fmt: skip
    assert blank.status_code == 400 and "התקדים לא צורף" in blank.text
    with desk_app.store.connection() as conn:
        assert conn.execute("SELECT count(*) AS n FROM case_precedents").fetchone()["n"] == 0
    done = chair.post("/cases/precedent", data={"csrf": token, "case_number": case,
                                                "citation": citation, "note": "סטייה ניכרת"})  # fmt: skip
    assert done.status_code == 200, done.text
    text = html.unescape(done.text)
    assert f"{citation} צורף לתיק {case}" in text and "עדיין אינו בספרייה" in text
    with desk_app.store.connection() as conn:
        row = conn.execute("SELECT case_number, citation, note FROM case_precedents").fetchone()
    assert row == {"case_number": case, "citation": citation, "note": "סטייה ניכרת"}


def test_a_lesson_the_chair_writes_on_training(chair, desk_app):  # noqa: F811
    record = factories.records()[0]
    case = record["case_number"]
    analyzed_final(desk_app, record)
    page = chair.get("/training")
    form = page.text.split('action="/training/lesson"')[1].split("</form>")[0]
    assert '<option value="structure">' in form and '<option value="halacha">' in form
    token = csrf_of(page.text)
    data = {"csrf": token, "category": "structure", "text": "כותרת משנה לכל סוגיה בדיון",
            "case_number": case, "block": "discussion", "appeal_type": record["appeal_type"],
            "outcome": record["outcome"]}  # fmt: skip
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
    assert f"לקח {row['id']} נשמר" in shown.text and "אושר" in shown.text
    assert row["review_status"] == "approved" and row["source"] == "chair"
    assert (row["case_number"], row["block"], row["appeal_type"], row["outcome"]) == (
        case,
        "discussion",
        record["appeal_type"],
        record["outcome"],
    )
    # A substance lesson of her own, with no case: approved too (she alone approves substance).
    general = chair.post("/training/lesson", data={"csrf": token, "category": "halacha",
                                                   "text": "סטייה ניכרת אינה הקלה"},
                         follow_redirects=False)  # fmt: skip
    assert general.status_code == 303
    rows = {r["text"]: r for r in lessons.list_lessons(desk_app, "approved")["lessons"]}
    assert rows["סטייה ניכרת אינה הקלה"]["case_number"] is None
    assert rows["סטייה ניכרת אינה הקלה"]["kind"] == "substance"
