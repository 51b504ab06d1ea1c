"""The chair's actions on /cases (issue 12, "every action the chair takes has its place"):
promote an analyzed pair's style lessons and phrases into the methodology, attach a precedent
to a case, and upload the ruling of a missing precedent, which resolves it. Against the real
database, through FastAPI's TestClient (conftest.py's `chair`); uploading a draft and a final
from /cases is in test_desk.py."""

import html

import pytest

import factories
from helpers import csrf_of, text_of
from legal_ai.auth import CHAIR
from legal_ai.learning import drafts, finals, lessons, methodology
from scenarios import analyzed_final

pytestmark = pytest.mark.db


def pair_status(app, case: str) -> str:
    return next(p["status"] for p in finals.pairs(app)["pairs"] if p["case_number"] == case)


def versions(app, appeal_type: str) -> int:
    return len(methodology.history(app, appeal_type)["versions"])


def test_promote_from_cases_refusals_then_a_new_version(chair, desk_app):
    record = factories.records()[0]
    case, appeal_type = record["case_number"], record["appeal_type"]
    # Before the final: a pair not analyzed is refused in Hebrew, nothing changed.
    from pathlib import Path

    path = Path(desk_app.settings.home) / "more-draft.txt"
    path.write_text(record["draft_text"], encoding="utf-8")
    drafts.add_draft(
        desk_app,
        case,
        path,
        appeal_type=appeal_type,
        outcome=record["outcome"],
        practice_area=record["practice_area"],
    )
    path.unlink()
    token = csrf_of(chair.get("/cases").text)
    early = chair.post(
        "/cases/promote", data={"csrf": token, "case_number": case, "phrases": "אשר על כן"}
    )
    assert early.status_code == 400
    assert "הקידום לא בוצע" in early.text and "קידום לקחים אפשרי רק בזוג שנותח" in early.text
    assert pair_status(desk_app, case) == "draft_done"
    # The final makes the pair analyzed (the test's helper uploads the draft again: a version 2).
    analyzed_final(desk_app, record)
    style = lessons.propose(desk_app, case, "structure", "פסקה אחת לכל טענה בדיון")
    proposed = lessons.propose(desk_app, case, "phrase", "מכאן, ועל כן")
    substance = lessons.propose(desk_app, case, "halacha", 'הקלה אינה סטייה ניכרת (עע"מ 1234/05)')
    lessons.review(desk_app.acting_as(CHAIR), style["id"], "approve")
    before = versions(desk_app, appeal_type)
    page = chair.get("/cases")
    form = page.text.split('action="/cases/promote"')[1].split("</form>")[0]
    assert f'name="lesson" value="{style["id"]}" checked' in form  # approved: chosen already
    assert f'name="lesson" value="{proposed["id"]}">' in form  # proposed: her choice
    assert f'value="{substance["id"]}"' not in form and "לקח מהות" in form  # not choosable
    token = csrf_of(page.text)
    data = {"csrf": token, "case_number": case, "phrases": "אשר על כן\n\nלאור האמור\n"}
    # A forged token, a substance lesson: refused, nothing changed.
    forged = chair.post(
        "/cases/promote", data={**data, "csrf": "forged", "lesson": [str(style["id"])]}
    )
    assert forged.status_code == 403
    refused = chair.post(
        "/cases/promote", data={**data, "lesson": [str(style["id"]), str(substance["id"])]}
    )
    assert refused.status_code == 400 and "לקח מהות" in refused.text
    assert "הקידום לא בוצע, דבר לא השתנה" in refused.text
    assert versions(desk_app, appeal_type) == before and pair_status(desk_app, case) == "analyzed"
    # The chosen style lessons and phrases: a new version, the pair at lessons_folded.
    done = chair.post(
        "/cases/promote", data={**data, "lesson": [str(style["id"]), str(proposed["id"])]}
    )
    assert done.status_code == 200, done.text
    assert versions(desk_app, appeal_type) == before + 1
    version = methodology.history(desk_app, appeal_type)["versions"][0]["version"]
    text = text_of(done.text)
    assert f"גרסה {version}" in text and "הלקחים שולבו" in text
    assert f'href="/methodology/{appeal_type}"' in done.text
    assert pair_status(desk_app, case) == "lessons_folded"
    profile = methodology.show(desk_app, appeal_type)
    profile = profile.get("profile", profile)
    assert {item["id"] for item in profile["lessons"]} >= {style["id"], proposed["id"]}
    assert substance["id"] not in {item["id"] for item in profile["lessons"]}
    assert {"אשר על כן", "לאור האמור"} <= set(profile["transition_phrases"])
    (approved,) = [
        r for r in lessons.list_lessons(desk_app, case=case)["lessons"] if r["id"] == proposed["id"]
    ]
    assert approved["review_status"] == "approved"  # chosen for promotion = approved
    # Once folded, the pair offers no second promote and a replay is refused.
    assert 'action="/cases/promote"' not in done.text
    again = chair.post("/cases/promote", data={**data, "lesson": [str(style["id"])]})
    assert again.status_code == 400 and "הלקחים שולבו" in html.unescape(again.text)
    assert versions(desk_app, appeal_type) == before + 1


def test_attach_a_precedent_to_a_case_from_cases(chair, desk_app):
    record = factories.records()[0]
    case = record["case_number"]
    analyzed_final(desk_app, record)
    page = chair.get("/cases")
    assert 'action="/cases/precedent"' in page.text
    token = csrf_of(page.text)
    citation = 'עע"מ 9999/05'
    forged = chair.post(
        "/cases/precedent", data={"csrf": "forged", "case_number": case, "citation": citation}
    )
    assert forged.status_code == 403
    unknown = chair.post(
        "/cases/precedent", data={"csrf": token, "case_number": "ערר 77/25", "citation": citation}
    )
    assert unknown.status_code == 404 and "התקדים לא צורף" in unknown.text
    blank = chair.post(
        "/cases/precedent", data={"csrf": token, "case_number": case, "citation": "  "}
    )
    assert blank.status_code == 400 and "התקדים לא צורף" in blank.text
    with desk_app.store.connection() as conn:
        assert conn.execute("SELECT count(*) AS n FROM case_precedents").fetchone()["n"] == 0
    done = chair.post(
        "/cases/precedent",
        data={"csrf": token, "case_number": case, "citation": citation, "note": "סטייה ניכרת"},
    )
    assert done.status_code == 200, done.text
    text = text_of(done.text)
    assert f"{citation} צורף לתיק {case}" in text and "עדיין אינו בספרייה" in text
    with desk_app.store.connection() as conn:
        row = conn.execute("SELECT case_number, citation, note FROM case_precedents").fetchone()
    assert row == {"case_number": case, "citation": citation, "note": "סטייה ניכרת"}


def test_missing_precedent_ruling_uploaded_from_cases_resolves_it(chair, desk_app):
    import factories
    from legal_ai.learning import finals

    record = factories.records()[0]
    analyzed_final(desk_app, record)
    missing = finals.missing_precedents(desk_app)["missing_precedents"]
    ruling = next(m for m in missing if m["ref"].startswith(('עע"מ', 'בר"מ', 'בג"ץ', 'ע"א')))
    page = chair.get("/cases")
    action = f'action="/cases/missing/{ruling["authority_id"]}/upload"'
    assert action in page.text
    shown = page.text.replace("&#34;", '"')
    assert f'name="case_number" value="{ruling["ref"]}"' in shown
    assert 'name="court" value="בית המשפט העליון"' in shown  # from the proceeding type
    token = csrf_of(page.text)
    url = f"/cases/missing/{ruling['authority_id']}/upload"
    form = {
        "csrf": token,
        "title": "פסק הדין המצוטט",
        "court": "בית המשפט העליון",
        "case_number": ruling["ref"],
        "decided_on": "2021-05-02",
        "practice_area": record["practice_area"],
    }
    wrong = chair.post(url, data=form, files={"file": ("r.exe", b"MZ\x90", "application/x-msdos")})
    assert wrong.status_code == 415 and "פסק הדין לא נקלט" in wrong.text
    forged = chair.post(
        url,
        data={**form, "csrf": "forged"},
        files={"file": ("r.txt", "פסק דין".encode(), "text/plain")},
    )
    assert forged.status_code == 403
    still = {m["ref"] for m in finals.missing_precedents(desk_app)["missing_precedents"]}
    assert ruling["ref"] in still
    text = f"{ruling['ref']}\nבית המשפט קבע כי הקלה אינה סטייה ניכרת מתוכנית.".encode()
    done = chair.post(url, data=form, files={"file": ("ruling.txt", text, "text/plain")})
    assert done.status_code == 200, done.text
    assert "התקדים החסר נפתר" in done.text
    after = {m["ref"] for m in finals.missing_precedents(desk_app)["missing_precedents"]}
    assert after == still - {ruling["ref"]}
    with desk_app.store.connection() as conn:
        row = conn.execute(
            "SELECT source_path, court, title, decided_on::text FROM case_law"
            " WHERE source_kind = 'external_upload' AND doc_type = 'ruling'"
        ).fetchone()
    assert row["source_path"] == "upload:ruling.txt" and row["court"] == "בית המשפט העליון"
    assert row["title"] == "פסק הדין המצוטט" and row["decided_on"] == "2021-05-02"
    assert ruling["ref"] not in done.text.split('id="missing"')[1]
