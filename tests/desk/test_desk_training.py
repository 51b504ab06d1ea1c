"""Gaps of issue 12 filled on the desk's pages: the chair's edit of a proposed lesson (approve
with an edit), the ruling of a missing precedent uploaded from /cases, chair feedback per week
on /learning, the reader's page boundaries of a PDF's span, and the principle's term on search
hits. Against the real database, through FastAPI's TestClient (fixtures of tests/test_desk.py)."""

import psycopg
import pytest

from legal_ai.auth import CHAIR, agent
from legal_ai.errors import Forbidden, InvalidInput
from legal_ai.learning import lessons
from test_desk import chair, client, csrf_of, desk_app  # noqa: F401 - the desk's fixtures

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
    edited = lessons.edit(chair_app, lesson["id"], text="משפטים קצרים בפתח הדיון",
                          category="phrase")  # fmt: skip
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


def test_training_page_edit_then_approve(chair, desk_app):  # noqa: F811 - the fixture
    lesson = lessons.propose(desk_app, None, "style", "גוף ראשון בדיון")
    page = chair.get("/training")
    assert 'action="/training/edit"' in page.text and 'data-key="e"' in page.text
    token = csrf_of(page.text)
    form = {"csrf": token, "queue": "proposed", "id": lesson["id"], "expected_status": "proposed",
            "text": "גוף ראשון בדיון, לא בפתיחה", "category": "structure"}  # fmt: skip
    done = chair.post("/training/edit", data=form, follow_redirects=False)
    assert done.status_code == 303
    shown = chair.get(done.headers["location"])
    assert "העריכה נשמרה" in shown.text and "גוף ראשון בדיון, לא בפתיחה" in shown.text
    forged = chair.post("/training/edit", data={**form, "csrf": "forged", "text": "זר"})
    assert forged.status_code == 403
    lessons.review(desk_app.acting_as(CHAIR), lesson["id"], "approve")
    stale = chair.post("/training/edit", data={**form, "text": "מאוחר מדי"})
    assert stale.status_code == 409 and "העריכה לא נשמרה" in stale.text
    (row,) = lessons.list_lessons(desk_app, "approved")["lessons"]
    assert row["text"] == "גוף ראשון בדיון, לא בפתיחה" and row["category"] == "structure"


def analyzed_final(app, record) -> None:
    from pathlib import Path

    from legal_ai.learning import finals

    path = Path(app.settings.home) / "gaps-decision.txt"
    path.write_text(record["draft_text"], encoding="utf-8")
    finals.add_draft(app, record["case_number"], path, appeal_type=record["appeal_type"],
                     outcome=record["outcome"], practice_area=record["practice_area"])  # fmt: skip
    path.write_text(record["final_text"], encoding="utf-8")
    finals.upload_final(app.acting_as(CHAIR), record["case_number"], path)
    path.unlink()


def test_missing_precedent_ruling_uploaded_from_cases_resolves_it(chair, desk_app):  # noqa: F811
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
    form = {"csrf": token, "title": "פסק הדין המצוטט", "court": "בית המשפט העליון",
            "case_number": ruling["ref"], "decided_on": "2021-05-02",
            "practice_area": record["practice_area"]}  # fmt: skip
    wrong = chair.post(url, data=form, files={"file": ("r.exe", b"MZ\x90", "application/x-msdos")})
    assert wrong.status_code == 415 and "פסק הדין לא נקלט" in wrong.text
    forged = chair.post(url, data={**form, "csrf": "forged"},
                        files={"file": ("r.txt", "פסק דין".encode(), "text/plain")})  # fmt: skip
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


def test_feedback_by_week_series_and_the_dashboard_table(chair, desk_app):  # noqa: F811
    import datetime as dt

    from legal_ai.learning import feedback

    ids = [feedback.record(desk_app, cat, "הערה")["id"]
           for cat in ("style", "style", "wrong_tone", "missing_content")]  # fmt: skip
    with desk_app.store.transaction() as conn:  # one three weeks back, one long before
        conn.execute("UPDATE chair_feedback SET created_at = now() - interval '21 days'"
                     " WHERE id = %s", (ids[2],))  # fmt: skip
        conn.execute("UPDATE chair_feedback SET created_at = now() - interval '200 days'"
                     " WHERE id = %s", (ids[3],))  # fmt: skip
    result = feedback.by_week(desk_app, weeks=12)
    weeks = result["weeks"]
    today = dt.datetime.now(dt.UTC).date()
    monday = today - dt.timedelta(days=today.weekday())
    assert len(weeks) == 12 and weeks[-1]["week"] == monday.isoformat()
    assert weeks[0]["week"] == (monday - dt.timedelta(weeks=11)).isoformat()
    assert weeks[-1]["by_category"]["style"] == 2 and weeks[-1]["total"] == 2
    assert weeks[-4]["by_category"] == {**dict.fromkeys(result["categories"], 0), "wrong_tone": 1}
    assert result["total"] == 3  # the one of 200 days ago is outside the 12 weeks
    assert sum(w["total"] for w in feedback.by_week(desk_app, weeks=52)["weeks"]) == 4
    with pytest.raises(InvalidInput, match="weeks"):
        feedback.by_week(desk_app, weeks=0)
    page = chair.get("/learning")
    assert 'data-weeks="12"' in page.text
    row = page.text.split(f'<tr data-week="{monday.isoformat()}">')[1].split("</tr>")[0]
    assert row.endswith("<td>2</td>") and "<td>2</td>" in row
    assert page.text.index(monday.isoformat()) < page.text.index(weeks[-4]["week"])  # newest first


def test_reader_shows_the_pages_of_a_pdf_span_and_no_invented_image(chair, desk_app, tmp_path):  # noqa: F811
    import re

    import factories

    pages = ["עמוד ראשון: רקע עובדתי של הערר.", "עמוד שני: הקלה בקו בניין צדדי נדחתה.",
             "עמוד שלישי: סוף דבר, הערר נדחה."]  # fmt: skip
    pdf = factories.hebrew_pdf(tmp_path / "ruling.pdf", pages)
    meta = {"title": "פסק דין בן שלושה עמודים", "case_number": 'עע"מ 77/19',
            "court": "בית המשפט העליון", "practice_area": "planning"}  # fmt: skip
    assert desk_app.ingest([pdf], "external", meta=meta, doc_id="pdf-1").ingested == 1
    with desk_app.store.transaction() as conn:
        item = conn.execute("SELECT id, content, page_starts FROM case_law WHERE doc_id = 'pdf-1'"
                            ).fetchone()  # fmt: skip
        # What the image leg stores (MULTIMODAL_ENABLED): a hash per page, never a file.
        for page in (1, 2, 3):
            conn.execute("INSERT INTO case_law_page_images (source_kind, case_law_id, page,"
                         " text_hash) VALUES ('external_upload', %s, %s, %s)",
                         (item["id"], page, f"sha-{page}"))  # fmt: skip
    starts, content = item["page_starts"], item["content"]
    assert len(starts) == 3
    start = content.index("הקלה")
    end = start + len("הקלה בקו בניין")
    page = chair.get(f"/source/external/pdf-1?start={start}&end={end}")
    assert page.status_code == 200
    assert "הקטע בעמ' 2 מתוך 3" in page.text
    assert f"(תווים {starts[1]}–{starts[2]})" in page.text
    assert (
        f'href="/source/external/pdf-1?start={start}&amp;end={end}&amp;page=1#page-1"' in page.text
    )
    assert (
        f'href="/source/external/pdf-1?start={start}&amp;end={end}&amp;page=3#page-3"' in page.text
    )
    assert [int(n) for n in re.findall(r'id="page-(\d+)"', page.text)] == [1, 2, 3]
    assert page.text.index('id="page-2"') < page.text.index('<mark id="span"')
    assert page.text.index('<mark id="span"') < page.text.index('id="page-3"')
    assert "לא קובץ התמונה" in page.text and "<img" not in page.text
    last = chair.get(f"/source/external/pdf-1?start={start}&end={end}&page=3")
    assert "עמ' 3 מתוך 3" in last.text and 'rel="next"' not in last.text
    assert '<mark id="span"' in last.text  # the span stays highlighted on another page
    # A span across a page boundary: one anchor, both pages named.
    across = chair.get(f"/source/external/pdf-1?start={starts[1] - 5}&end={starts[1] + 5}")
    assert "הקטע בעמ' 1–2 מתוך 3" in across.text and across.text.count('id="span"') == 1


def test_principle_term_from_its_source():
    from legal_ai.retrieval.terms import court_of_case_number, principle_term

    assert principle_term("external_upload", "בית המשפט העליון", True) == "הלכה"
    assert principle_term("external_upload", "בית המשפט המחוזי בתל אביב", True) == "הלכה"
    assert principle_term("external_upload", "בית המשפט המחוזי בתל אביב", False) == "עיקרון"
    assert principle_term("external_upload", "בית משפט השלום בחיפה", True) == "עיקרון"
    assert principle_term("external_upload", "ועדת ערר מחוז מרכז", True) == "כלל פרשני"
    assert principle_term("internal_committee", None, False) == "כלל פרשני"
    assert principle_term(None, None, None) == "עיקרון"
    assert court_of_case_number('עע"מ 1234/05') == "בית המשפט העליון"
    assert court_of_case_number("בגץ 55/20") == "בית המשפט העליון"
    assert court_of_case_number('עת"מ 12-03-21') == "בית המשפט המחוזי"
    assert court_of_case_number("ערר (מרכז) 1042/23") == "ועדת ערר"
    assert court_of_case_number('ת"א 5/20') is None and court_of_case_number("") is None


def test_principle_hits_carry_their_term_in_json_and_on_the_page(chair, desk_app, tmp_path):  # noqa: F811
    path = tmp_path / "ruling.txt"
    path.write_text("בית המשפט קבע כי סטייה ניכרת מתוכנית אינה יכולה להינתן כהקלה.\n"
                    "הערר נדחה.", encoding="utf-8")  # fmt: skip
    meta = {"title": "הלכת הסטייה הניכרת", "case_number": 'עע"מ 1234/05', "is_binding": True,
            "court": "בית המשפט העליון", "practice_area": "planning",
            "decided_on": "2005-03-01"}  # fmt: skip
    assert desk_app.ingest([path], "external", meta=meta, doc_id="ruling-b").ingested == 1
    principle = desk_app.add_principle("external", "ruling-b", "סטייה ניכרת אינה הקלה",
                                       "סטייה ניכרת מתוכנית אינה יכולה להינתן כהקלה")  # fmt: skip
    desk_app.acting_as(CHAIR).review_principle(principle, "approve")
    hits = desk_app.tool("search_precedent_library", query="סטייה ניכרת הקלה")["hits"]
    kinds = {h["kind"]: h for h in hits}
    assert kinds["principle"]["term"] == "הלכה" and kinds["chunk"]["term"] is None
    page = chair.get("/search", params={"corpus": "external", "q": "סטייה ניכרת הקלה"})
    assert page.text.count('<span class="badge term"') == 1
    assert 'המונח לפי מקור הכלל">הלכה</span>' in page.text
