"""The chair's desk (web/desk) through FastAPI's TestClient against the real database: sign-in,
sessions and CSRF, search and the reader view, the training desk and its audit trail, health,
and each bad input of issue 12 (a clear message on the page, nothing changed that should not
be). The fixtures (`desk_app`, `client`, `chair`) are conftest.py's. More of the training desk:
test_desk_training.py; of /cases: test_desk_cases.py; of search and the reader:
test_desk_search.py. The same pages in a real browser: test_desk_browser.py."""

import html
import re
from pathlib import Path
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

import factories
from helpers import (
    AGENT,
    CHAIR_TOKEN,
    PASSWORD,
    csrf_of,
    final_landed,
    register_chair_token,
    sign_in,
    text_of,
)
from helpers import run as run_cli
from legal_ai.auth import CHAIR as CHAIR_PRINCIPAL
from legal_ai.learning.lessons import lesson_panel, lessons
from legal_ai.learning.pairs import finals as final_uploads
from legal_ai.web.app import create_app
from scenarios import ingest_ruling
from system_panel import distilled, engine, system_call

pytestmark = pytest.mark.db


def test_sign_in_cookie_pages_and_sign_out(client):
    assert client.get("/search", follow_redirects=False).headers["location"].startswith("/login")
    page = client.get("/login")
    assert '<html lang="he" dir="rtl">' in page.text
    assert "legal_ai_desk_login" in page.headers["set-cookie"]
    response = sign_in(client)
    cookie = response.headers["set-cookie"]
    assert "legal_ai_desk=" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert "Secure" not in cookie  # plain http in the test; https sets it (test below)
    for path in ("/search", "/training", "/training/metadata", "/audit", "/health"):
        shown = client.get(path)
        assert shown.status_code == 200, path
        assert '<html lang="he" dir="rtl">' in shown.text and 'name="csrf"' in shown.text
    # Sign-out needs the form's token; then the cookie opens nothing.
    token = csrf_of(client.get("/search").text)
    assert client.post("/logout", data={}, follow_redirects=False).status_code == 403
    out = client.post("/logout", data={"csrf": token}, follow_redirects=False)
    assert out.status_code == 303
    assert client.get("/search", follow_redirects=False).status_code == 303


def test_secure_cookie_over_https(desk_app):
    settings = desk_app.settings.model_copy(update={"chair_token": CHAIR_TOKEN})
    with TestClient(create_app(settings, legal=desk_app), base_url="https://desk.test") as c:
        response = sign_in(c)
        assert response.status_code == 303
        assert "Secure" in response.headers["set-cookie"]


def test_wrong_password_then_rate_limit(client):
    wrong = sign_in(client, "not-the-password")
    assert wrong.status_code == 401 and "שם המשתמש או הסיסמה שגויים" in wrong.text
    assert "legal_ai_desk" not in client.cookies
    for _ in range(4):
        assert sign_in(client, "not-the-password").status_code == 401
    limited = sign_in(client)  # even the right password waits now
    assert limited.status_code == 429
    assert "יותר מדי ניסיונות" in limited.text and "minute" in limited.text
    assert client.get("/search", follow_redirects=False).status_code == 303


def test_sign_in_form_without_its_token_and_foreign_next(client):
    client.get("/login")
    refused = client.post(
        "/login", data={"name": "chair", "password": PASSWORD}, follow_redirects=False
    )
    assert refused.status_code == 403 and "פג תוקף טופס הכניסה" in refused.text
    # The form's own token sent as a file part is refused the same way (its file closed).
    token = csrf_of(client.get("/login").text)
    as_file = client.post(
        "/login",
        data={"name": "chair", "password": PASSWORD},
        files={"csrf": ("csrf.txt", token.encode(), "text/plain")},
        follow_redirects=False,
    )
    assert as_file.status_code == 403 and "פג תוקף טופס הכניסה" in as_file.text
    form = client.get("/login")
    response = client.post(
        "/login",
        data={
            "name": "chair",
            "password": PASSWORD,
            "csrf": csrf_of(form.text),
            "next": "//evil.example/x",
        },
        follow_redirects=False,
    )
    assert response.headers["location"] == "/"  # today, never the other site


def test_expired_session_goes_back_to_sign_in(chair, desk_app):
    with desk_app.store.transaction() as conn:
        conn.execute(
            "UPDATE desk_sessions SET last_seen = now() - interval '2 days',"
            " created_at = now() - interval '2 days'"
        )
    response = chair.get("/training?queue=curator", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"].startswith("/login?next=%2Ftraining")
    assert "expired=1" in response.headers["location"]
    assert "פג תוקף ההתחברות" in chair.get(response.headers["location"]).text


def test_an_agent_token_opens_no_desk_page(client):
    for token in (AGENT, CHAIR_TOKEN):
        page = client.get("/training", headers={"Authorization": f"Bearer {token}"})
        assert page.status_code == 403 and "הדסק הוא של היו" in page.text
        assert page.headers["content-type"].startswith("text/html")
    # ... and the API still answers the agent with JSON.
    listed = client.get("/api/lessons", headers={"Authorization": f"Bearer {AGENT}"}).json()
    assert listed["lessons"] == [] and listed["page"]["next_offset"] is None
    assert client.get("/api/nothing").json()["error"].startswith("no route")


def test_missing_csrf_changes_nothing(chair, desk_app):
    lesson = lessons.propose(desk_app, None, "style", "משפטים קצרים בפתח הדבר")
    for data in ({}, {"csrf": "forged"}):
        response = chair.post(
            "/training/decide",
            data={
                **data,
                "queue": "proposed",
                "id": lesson["id"],
                "decision": "approve",
                "expected_status": "proposed",
            },
        )
        assert response.status_code == 403 and "CSRF" in response.text
    # Her real token sent as a file part instead of a field is no token either: 403, not 500.
    token = csrf_of(chair.get("/training").text)
    response = chair.post(
        "/training/decide",
        data={"queue": "proposed", "id": lesson["id"], "decision": "approve"},
        files={"csrf": ("csrf.txt", token.encode(), "text/plain")},
    )
    assert response.status_code == 403 and "CSRF" in response.text
    assert lessons.list_lessons(desk_app, "proposed")["lessons"][0]["id"] == lesson["id"]


def test_search_hits_highlight_and_open_the_source_at_its_span(chair, desk_app, tmp_path):
    ingest_ruling(desk_app, tmp_path)
    page = chair.get("/search", params={"corpus": "external", "q": "הקלה בקו בניין"})
    assert page.status_code == 200, page.text
    assert "הקלה בקו בניין" in page.text and 'עע"מ 1234/05' in page.text.replace("&#34;", '"')
    assert "<mark>הקלה</mark>" in page.text and "נמצא:" in page.text
    assert "העתקת ציטוט" in page.text
    assert "<script>alert(1)</script>" not in page.text  # escaped, never markup
    link = re.search(
        r'href="(/source/external/ruling-1\?start=\d+&amp;end=\d+[^"#]*#span)"', page.text
    )
    assert link, page.text
    source = chair.get(link.group(1).replace("&amp;", "&"))
    assert source.status_code == 200
    assert '<mark id="span"' in source.text and "<script>" not in source.text
    assert "<script>alert(1)</script> הוא טקסט" in text_of(source.text)  # escaped, never markup
    # The corpus's filters only; her finals demand no practice area (issue 37 item 11); a bad
    # date is a clear message.
    finals = chair.get("/search", params={"corpus": "style", "q": "הקלה"})
    assert 'name="practice_area"' in finals.text and 'name="court"' not in finals.text
    assert "החיפוש מחייב" not in finals.text and "field-error" not in finals.text
    bad = chair.get("/search", params={"corpus": "external", "q": "הקלה", "date_from": "31.2.2020"})
    assert "התאריך אינו מובן: יש לכתוב יום.חודש.שנה" in text_of(bad.text)
    for typed in ("1.1.2020", "1/1/20", "2020-01-01"):  # day first as she writes it, or ISO
        good = chair.get("/search", params={"corpus": "external", "q": "הקלה", "date_from": typed})
        assert "field-error" not in good.text, typed
    missing = chair.get("/source/external/no-such-doc")
    assert missing.status_code == 404 and "אינו במאגר" in missing.text


def test_digests_say_not_citable(chair, desk_app, tmp_path):
    path = tmp_path / "digest.txt"
    path.write_text("יומון: הקלה בקו בניין אינה סטייה ניכרת", encoding="utf-8")
    assert (
        desk_app.ingest(
            [path],
            "digests",
            meta={"title": "יומון תכנון", "points_to": 'עע"מ 1234/05'},
            doc_id="digest-1",
        ).ingested
        == 1
    )
    page = chair.get("/search", params={"corpus": "digests", "q": "הקלה"})
    assert "תקציר להפניה בלבד — אינו לציטוט" in page.text and "העתקת ציטוט" not in page.text


def decide(client, lesson_id: int, decision: str, expected: str, queue: str = "proposed"):
    """An old page's form (/training/decide with the queue and the id): still decides."""
    token = csrf_of(client.get("/review").text)
    return client.post(
        "/training/decide",
        data={
            "csrf": token,
            "queue": queue,
            "id": lesson_id,
            "decision": decision,
            "expected_status": expected,
        },
        follow_redirects=False,
    )


def test_training_approve_undo_and_the_audit(chair, desk_app):
    evidence = {
        "block": "discussion",
        "draft": {"text": "הוועדה סבורה כי יש לקבל", "start": 0, "end": 22},
        "final": {"text": "אני סבורה כי יש לקבל", "start": 0, "end": 20},
    }
    lesson = lessons.propose(desk_app, None, "style", "גוף ראשון בדיון")
    with desk_app.store.transaction() as conn:
        conn.execute(
            "UPDATE decision_lessons SET evidence = %s WHERE id = %s",
            (__import__("json").dumps(evidence), lesson["id"]),
        )
    page = chair.get("/training")  # the old address: the one queue
    assert str(page.url).endswith("/review")
    assert "גוף ראשון בדיון" in page.text and "<del>הוועדה</del>" in page.text
    assert "<ins>אני</ins>" in page.text and 'data-code="KeyA"' in page.text
    done = decide(chair, lesson["id"], "approve", "proposed")
    assert done.status_code == 303
    after = chair.get(done.headers["location"])
    assert "ביטול ההחלטה האחרונה" in after.text
    approved = lessons.list_lessons(desk_app, "approved")["lessons"]
    assert [row["id"] for row in approved] == [lesson["id"]]
    undo = decide(chair, lesson["id"], "reopen", "approved")  # an old page's undo
    assert undo.status_code == 303
    assert lessons.list_lessons(desk_app, "proposed")["lessons"][0]["id"] == lesson["id"]
    audit = chair.get("/audit")
    assert audit.status_code == 200
    rows = re.findall(r'<tr><td class="when">\d{1,2}\.\d{1,2}\.\d{4} ', audit.text)
    assert len(rows) >= 2 and audit.text.index("מוצע</td><td>אושר") > audit.text.index(
        "אושר</td><td>מוצע"
    )  # newest (the undo) first


def test_two_tabs_and_a_stale_page_change_nothing(chair, desk_app):
    lesson = lessons.propose(desk_app, None, "style", "משפט פתיחה קצר")
    tab_one = csrf_of(chair.get("/review").text)
    assert decide(chair, lesson["id"], "approve", "proposed").status_code == 303
    # The second tab still shows it proposed and rejects it: refused, nothing changes.
    form = {
        "csrf": tab_one,
        "ref": f"lesson-{lesson['id']}",
        "decision": "reject",
        "expected_status": "proposed",
    }
    stale = chair.post("/review/decide", data=form)
    assert stale.status_code == 409 and "לא בוצע דבר" in stale.text
    assert 'הלקח "משפט פתיחה קצר" כבר הוכרע בינתיים בידי היו"ר' in text_of(stale.text)
    assert lessons.list_lessons(desk_app, "approved")["lessons"][0]["id"] == lesson["id"]
    # Two tabs approving the same lesson: the second is told, the lesson stays approved once.
    again = chair.post("/review/decide", data={**form, "decision": "approve"})
    assert again.status_code == 409 and 'עכשיו "אושר"' in html.unescape(again.text)
    with desk_app.store.connection() as conn:
        decisions = conn.execute(
            "SELECT count(*) AS n FROM learning_audit WHERE lesson_id = %s AND to_status ="
            " 'approved'",
            (lesson["id"],),
        ).fetchone()["n"]
    assert decisions == 1


def test_queues_escalations_curator_and_principles(chair, desk_app, tmp_path):
    split = distilled(desk_app, None, "phrase", "אשר על כן")
    calls = {m: system_call(desk_app, "panel", m) for m in ("openai:a", "openai:b")}
    lesson_panel.decide_by_panel(
        engine(desk_app),
        split["id"],
        [
            {
                "model": "openai:a",
                "vote": "approve",
                "reason": "טבעי",
                "model_call_id": calls["openai:a"],
            },
            {
                "model": "openai:b",
                "vote": "reject",
                "reason": "חוזר על עצמו",
                "model_call_id": calls["openai:b"],
            },
        ],
    )
    page = chair.get("/training?queue=escalations")
    assert "אשר על כן" in page.text and "חוזר על עצמו" in page.text
    ingest_ruling(desk_app, tmp_path)
    principle = desk_app.add_principle(
        "external",
        "ruling-1",
        "סטייה ניכרת אינה הקלה",
        "סטייה ניכרת מתוכנית אינה יכולה להינתן כהקלה",
    )
    shown = chair.get("/training?queue=principles")
    assert "סטייה ניכרת אינה הקלה" in shown.text
    token = csrf_of(shown.text)
    form = {
        "csrf": token,
        "ref": f"principle-{principle}",
        "decision": "approve",
        "expected_status": "pending_review",
    }
    response = chair.post("/review/decide", data=form, follow_redirects=False)
    assert response.status_code == 303
    stale = chair.post("/review/decide", data={**form, "decision": "reject"})
    assert stale.status_code == 409
    said = text_of(stale.text)
    assert 'העיקרון "סטייה ניכרת אינה הקלה" כבר הוכרע בינתיים בידי היו"ר' in said
    assert 'עכשיו "אושר". לא בוצע דבר' in said


def test_health_page(chair, desk_app):
    page = chair.get("/health/technical")
    assert page.status_code == 200 and "בדיקת בידוד המאגרים" in page.text
    assert "הפרדת תפקידים" in page.text
    assert "(סף: 60)" in text_of(page.text)  # the scans' threshold as a number is written, not 60.0
    # One final's rulings, none in the library: each missing precedent is cited in one decision.
    record = factories.records()[0]
    path = Path(desk_app.settings.home) / "desk-health-final.txt"
    path.write_text(record["final_text"], encoding="utf-8")
    final_uploads.upload_final(desk_app.acting_as(CHAIR_PRINCIPAL), record["case_number"], path)
    path.unlink()
    said = text_of(chair.get("/health/technical").text)
    assert "החלטה אחת" in said and "1 החלטות" not in said


def test_cases_upload_a_draft_and_a_final_and_bad_files(chair, desk_app):
    import factories

    record = factories.records()[0]
    case = record["case_number"]
    token = csrf_of(chair.get("/cases").text)
    draft = chair.post(
        "/cases/draft/upload",
        data={
            "csrf": token,
            "case_number": case,
            "appeal_type": record["appeal_type"],
            "outcome": record["outcome"],
            "practice_area": record["practice_area"],
        },
        files={"file": ("draft.txt", record["draft_text"].encode(), "text/plain")},
    )
    assert draft.status_code == 200, draft.text
    assert "טיוטה הוגשה" in draft.text and "נקלטה" in draft.text
    labels = {k: record[k] for k in ("appeal_type", "outcome", "practice_area")}
    final = final_landed(  # answered at once with its stages; asked again until stored
        chair,
        chair.post(
            "/cases/final/upload",
            data={"csrf": token, "case_number": case, **labels},  # the form asks for her labels
            files={"file": ("final.txt", record["final_text"].encode(), "text/plain")},
        ),
    )
    assert final.status_code == 200, final.text
    assert 'data-status="analyzed"' in final.text and "המרחק הסגנוני" in final.text
    # The wrong type, over the size cap, or without the form's token: refused, nothing added.
    wrong = chair.post(
        "/cases/draft/upload",
        data={"csrf": token, "case_number": "ערר 9/25"},
        files={"file": ("x.exe", b"MZ\x90\x00", "application/octet-stream")},
    )
    assert wrong.status_code == 415 and "ההעלאה לא בוצעה" in wrong.text and ".exe" in wrong.text
    big = chair.post(
        "/cases/draft/upload",
        data={"csrf": token, "case_number": "ערר 9/25"},
        files={"file": ("big.txt", b"a" * (1024 * 1024 + 10), "text/plain")},
    )
    assert big.status_code == 413 and "upload limit" in big.text
    forged = chair.post(
        "/cases/draft/upload",
        data={"csrf": "forged", "case_number": "ערר 9/25"},
        files={"file": ("d.txt", "טיוטה".encode(), "text/plain")},
    )
    assert forged.status_code == 403 and "CSRF" in forged.text
    # What the services refuse is said in Hebrew, their own words kept after it.
    import tempfile
    from pathlib import Path as _Path

    with tempfile.TemporaryDirectory() as tmp:
        scan = factories.image_only_pdf(_Path(tmp) / "scan.pdf").read_bytes()
    # A scan is no longer refused: kept and queued for OCR (tests/web/test_scanned_decisions.py).
    queued = chair.post(
        "/cases/draft/upload",
        data={"csrf": token, "case_number": "ערר 9/25"},
        files={"file": ("scan.pdf", scan, "application/pdf")},
        follow_redirects=False,
    )
    assert queued.status_code == 303 and queued.headers["location"].startswith("/uploads/scan/")
    for name, body, kind, number, said in (
        (
            "note.txt",
            "מכתב קצר בלי כותרות.".encode(),
            "text/plain",
            "ערר 9/25",
            "לא נמצאו בקובץ כותרות של החלטה",
        ),
        ("d.txt", record["draft_text"].encode(), "text/plain", "9/25", "מספר התיק אינו תקין"),
    ):
        refused = chair.post(
            "/cases/draft/upload",
            data={"csrf": token, "case_number": number},
            files={"file": (name, body, kind)},
        )
        shown = text_of(refused.text)
        assert refused.status_code == 400 and f"ההעלאה לא בוצעה: {said}" in shown, name
    listed = chair.get("/cases").text
    assert "ערר 9/25" not in listed and listed.count('data-status="') == 1


def test_learning_dashboard_and_feedback(chair, desk_app):
    import factories
    from legal_ai.learning.pairs import drafts, finals

    record = factories.records()[0]
    case = record["case_number"]
    path = Path(desk_app.settings.home) / "desk-test-draft.txt"
    path.write_text(record["draft_text"], encoding="utf-8")
    drafts.add_draft(
        desk_app,
        case,
        path,
        appeal_type=record["appeal_type"],
        outcome=record["outcome"],
        practice_area=record["practice_area"],
    )
    path.write_text(record["final_text"], encoding="utf-8")
    finals.upload_final(desk_app.acting_as(CHAIR_PRINCIPAL), case, path)
    path.unlink()
    page = chair.get("/learning")
    assert page.status_code == 200
    assert 'data-points="1"' in page.text and "<svg" in page.text and "<?xml" not in page.text
    assert page.text.count('<td class="case">') == 1
    table = page.text.split('class="figures"')[1].split("</table>")[0]
    cells = re.findall(r"<td><bdi>([^<]*)</bdi></td>", table)  # the figures (not the date)
    assert cells and not any(re.fullmatch(r"\d+\.\d{2,}", c) for c in cells)  # 56% not 56.41
    assert f'href="/cases/{quote(case, safe="")}"' in table
    token = csrf_of(page.text)
    bad = chair.post(
        "/learning/feedback", data={"csrf": token, "category": "nonsense", "text": "חסר סיור"}
    )
    assert bad.status_code == 400 and "המשוב לא נשמר" in bad.text
    sent = chair.post(
        "/learning/feedback",
        data={
            "csrf": token,
            "category": "missing_content",
            "text": "חסר סיור",
            "case_number": case,
        },
    )
    assert sent.status_code == 200 and "המשוב נשמר" in sent.text
    assert "<th>תוכן חסר</th><td>1</td>" in text_of(sent.text)


# -- /methodology: the profiles' editor, versions, diff, restore (issue 12 item 4) ------------------
def form_fields(html: str, action: str) -> dict[str, str]:
    """The fields one form of the page would post (inputs and textareas, as the browser sends)."""
    from html.parser import HTMLParser

    class Form(HTMLParser):
        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.inside, self.fields, self.textarea = False, {}, None

        def handle_starttag(self, tag, attrs):
            attrs = dict(attrs)
            if tag == "form":
                self.inside = attrs.get("action") == action
            elif self.inside and tag == "input" and attrs.get("name"):
                self.fields[attrs["name"]] = attrs.get("value") or ""
            elif self.inside and tag == "textarea":
                self.textarea = attrs["name"]
                self.fields[self.textarea] = ""

        def handle_data(self, data):
            if self.textarea:
                self.fields[self.textarea] += data

        def handle_endtag(self, tag):
            if tag == "textarea":
                self.textarea = None
            elif tag == "form":
                self.inside = False

    parser = Form()
    parser.feed(html)
    return parser.fields


def methodology_form(client, appeal_type: str = "universal") -> dict[str, str]:
    page = client.get(f"/methodology/{appeal_type}")
    assert page.status_code == 200, page.text
    return form_fields(page.text, f"/methodology/{appeal_type}")


def field_error(html: str, name: str) -> str:
    """The error shown beside the field `name` (its message, the field marked invalid and
    described by it), or "" when none."""
    marker = f"err-{name.replace('.', '-')}"
    found = re.search(
        rf'<span class="field-error" id="{re.escape(marker)}"[^>]*>(.*?)</span>', html, re.S
    )
    if not found:
        return ""
    field = re.search(rf'name="{re.escape(name)}"[^>]*aria-invalid="true"[^>]*>', html)
    assert field and f'aria-describedby="{marker}"' in field.group(0), name
    return text_of(found.group(1))


def test_methodology_edit_a_list_saves_a_new_version(chair, desk_app):
    from legal_ai.learning.methodology import profiles as methodology

    assert chair.get("/methodology", follow_redirects=False).headers["location"] == (
        "/methodology/universal"
    )
    page = chair.get("/methodology/universal")
    assert '<a href="/methodology" aria-current="page">' in page.text  # the nav link
    assert 'name="heading.discussion"' in page.text  # the rule as phrases, one a line
    seed = methodology.show(desk_app, "universal")["profile"]
    fields = form_fields(page.text, "/methodology/universal")
    assert fields["heading.discussion"].splitlines() == ["דיון והכרעה", "דיון", "הכרעה"]
    assert fields["list.anti_patterns"].splitlines() == seed["anti_patterns"]
    assert fields["version"] == "1" and fields["csrf"]
    # The page posted back unchanged saves nothing.
    same = chair.post("/methodology/universal", data=fields, follow_redirects=False)
    assert same.headers["location"].endswith("?same=1")
    assert methodology.show(desk_app, "universal")["version"] == 1
    # One line added to a list (and a blank line, dropped): a new version, only that key changed.
    fields["list.anti_patterns"] += "\n\nבמאמר מוסגר\n"
    fields["reason"] = "עוד ביטוי להימנע ממנו"
    saved = chair.post("/methodology/universal", data=fields, follow_redirects=False)
    assert saved.status_code == 303 and saved.headers["location"].endswith("?saved=2")
    assert "נשמרה גרסה 2" in text_of(chair.get(saved.headers["location"]).text)
    shown = methodology.show(desk_app, "universal")
    assert shown["version"] == 2 and shown["updated_by"] == "chair"
    assert shown["profile"] == {**seed, "anti_patterns": [*seed["anti_patterns"], "במאמר מוסגר"]}
    latest = methodology.history(desk_app, "universal")["versions"][0]
    assert (latest["version"], latest["updated_by"], latest["reason"]) == (
        2,
        "chair",
        "עוד ביטוי להימנע ממנו",
    )
    # A type's profile holds only its own keys: editing its checklist adds nothing else.
    typed = methodology_form(chair, "permit")
    assert typed["heading.discussion"] == "" and typed["ratio.discussion"] == ""
    typed["checklist.accepted"] = "התנאים להיתר"
    assert chair.post("/methodology/permit", data=typed, follow_redirects=False).status_code == 303
    assert methodology.show(desk_app, "permit")["profile"] == {
        "content_checklists": {
            "any": ["ההקלות המבוקשות ותנאי סעיף 147 לחוק", "הנימוק התכנוני"],
            "accepted": ["התנאים להיתר"],
        }
    }


def test_methodology_long_heading_and_ratio_shown_at_the_field_nothing_saved(chair, desk_app):
    from legal_ai.learning.methodology import profiles as methodology

    fields = methodology_form(chair)
    fields.update(
        {
            "heading.discussion": "(דיון",  # her words, never a pattern: fine
            "heading.opening": "פתח דבר\n" + "מילה " * 15,  # longer than any heading
            "ratio.discussion": "1.5",
            "ratio.conclusion": "הרבה",
            "list.voice_invariants": "משפט חדש",
        }
    )
    refused = chair.post("/methodology/universal", data=fields)
    assert refused.status_code == 400 and "לא נשמר דבר" in refused.text
    assert field_error(refused.text, "heading.discussion") == ""
    assert "ארוכה מ-60 תווים" in field_error(refused.text, "heading.opening")
    assert "מספר מ-0 עד 1" in field_error(refused.text, "ratio.discussion")
    assert "אינו מספר" in field_error(refused.text, "ratio.conclusion")
    assert field_error(refused.text, "heading.background") == ""  # a good field: no message
    assert form_fields(refused.text, "/methodology/universal")["heading.discussion"] == "(דיון"
    assert methodology.show(desk_app, "universal")["version"] == 1  # nothing at all saved
    # Ratios that are each fine but sum over one: the group's message.
    fields = methodology_form(chair)
    fields.update({"ratio.opening": "0.6", "ratio.discussion": "0,6"})
    refused = chair.post("/methodology/universal", data=fields)
    assert refused.status_code == 400
    assert re.search(r'role="alert">סכום היחסים עולה על 1', text_of(refused.text))
    # A type's blocks need at least three headings (the schema's rule, said in Hebrew).
    typed = methodology_form(chair, "plan")
    typed["heading.discussion"] = "דיון"
    refused = chair.post("/methodology/plan", data=typed)
    assert refused.status_code == 400 and "נדרשות לפחות 3 כותרות" in text_of(refused.text)
    assert [v["version"] for v in methodology.history(desk_app, "plan")["versions"]] == [1]
    assert methodology.show(desk_app, "universal")["version"] == 1


def test_methodology_forms_need_the_csrf_token_and_a_fresh_version(chair, desk_app):
    from legal_ai.learning.methodology import profiles as methodology

    fields = methodology_form(chair)
    fields["list.anti_patterns"] = "כידוע"
    for token in ({}, {"csrf": "forged"}):
        data = {k: v for k, v in fields.items() if k != "csrf"} | token
        response = chair.post("/methodology/universal", data=data)
        assert response.status_code == 403 and "CSRF" in response.text
        restore = chair.post("/methodology/universal/restore", data={**token, "version": "1"})
        assert restore.status_code == 403 and "CSRF" in restore.text
    assert methodology.show(desk_app, "universal")["version"] == 1
    # Another tab saved meanwhile: this page's form (version 1) saves nothing.
    methodology.edit(
        desk_app.acting_as(CHAIR_PRINCIPAL),
        "universal",
        {"voice_invariants": ["בלשון רבים"]},
        reason="לשונית אחרת",
    )
    stale = chair.post("/methodology/universal", data=fields)
    assert stale.status_code == 409 and "נשמר בינתיים כגרסה 2" in text_of(stale.text)
    assert methodology.show(desk_app, "universal")["profile"]["voice_invariants"] == ["בלשון רבים"]


def test_methodology_diff_and_restore_an_earlier_version(chair, desk_app):
    from legal_ai.learning.methodology import profiles as methodology

    seed = methodology.show(desk_app, "universal")["profile"]
    fields = methodology_form(chair)
    fields["list.transition_phrases"] = "נקדים אחרית לראשית\n<script>alert(1)</script> ועוד"
    fields["ratio.discussion"] = "0.4"
    assert (
        chair.post("/methodology/universal", data=fields, follow_redirects=False).status_code == 303
    )
    page = chair.get("/methodology/universal")
    assert page.text.count('<li data-version="') == 2
    assert 'href="/methodology/universal/diff?a=1&amp;b=2"' in page.text
    diff = chair.get("/methodology/universal/diff", params={"a": 1, "b": 2})
    assert diff.status_code == 200
    assert "<ins><script>alert(1)</script> ועוד</ins>" in text_of(diff.text)
    assert "<script>alert" not in diff.text
    assert "<del>אשר על כן</del>" in diff.text  # a phrase taken out
    assert '<li class="same">נקדים אחרית לראשית</li>' in diff.text
    assert "<ins>דיון והכרעה: 0.4</ins>" in text_of(diff.text)
    assert 'data-change="anti_patterns"' not in diff.text  # unchanged keys are not listed
    # Restore version 1 with one click: a NEW version 3 equal to version 1.
    token = csrf_of(page.text)
    done = chair.post(
        "/methodology/universal/restore",
        data={"csrf": token, "version": "1"},
        follow_redirects=False,
    )
    assert done.status_code == 303
    assert "גרסה 1 שוחזרה כגרסה חדשה, 3" in text_of(chair.get(done.headers["location"]).text)
    shown = methodology.show(desk_app, "universal")
    assert shown["version"] == 3 and shown["profile"] == seed
    assert methodology.history(desk_app, "universal")["versions"][0]["reason"] == (
        "restore of version 1"
    )
    assert "אין הבדל" in chair.get("/methodology/universal/diff?a=1&b=3").text
    missing = chair.get("/methodology/universal/diff?a=1&b=9")
    assert missing.status_code == 404 and "no version 9" in missing.text
    assert chair.get("/methodology/tax").status_code == 404


def test_methodology_folded_lessons_are_no_fields_of_the_form_and_a_veto_removes_one(
    chair, desk_app
):
    from legal_ai.learning.methodology import profiles as methodology

    her = desk_app.acting_as(CHAIR_PRINCIPAL)
    lesson = lessons.propose(desk_app, None, "style", "משפט אחד לכל טענה")
    lessons.review(her, lesson["id"], "approve")
    methodology.edit(
        her,
        "universal",
        {"lessons": [{"id": lesson["id"], "category": "style", "text": "משפט אחד לכל טענה"}]},
    )
    page = chair.get("/methodology/universal")
    row = page.text.split(f'<tr data-lesson="{lesson["id"]}"')[1].split("</tr>")[0]
    assert "משפט אחד לכל טענה" in row and f"<td>{lesson['id']}</td>" not in row
    fields = form_fields(page.text, "/methodology/universal")
    assert not any("lesson" in name for name in fields)  # shown, never a field of the form
    fields["list.voice_invariants"] = "ללא קישוטים"
    assert (
        chair.post("/methodology/universal", data=fields, follow_redirects=False).status_code == 303
    )
    assert [
        item["id"] for item in methodology.show(desk_app, "universal")["profile"]["lessons"]
    ] == [lesson["id"]]
    lessons.review(her, lesson["id"], "veto", reason="לא הסגנון שלי")
    assert f'data-lesson="{lesson["id"]}"' not in chair.get("/methodology/universal").text


def test_methodology_history_diff_restore_over_the_api(client, desk_app):
    from legal_ai.learning.methodology import profiles as methodology

    methodology.edit(
        desk_app.acting_as(CHAIR_PRINCIPAL),
        "permit",
        {"anti_patterns": ["כפי שיפורט"]},
        reason="מיוחד להיתרים",
    )
    agent_auth = {"Authorization": f"Bearer {AGENT}"}
    chair_auth = {"Authorization": f"Bearer {CHAIR_TOKEN}"}
    versions = client.get("/api/methodology/permit/versions", headers=agent_auth).json()
    assert [(v["version"], v["reason"]) for v in versions["versions"]] == [
        (2, "מיוחד להיתרים"),
        (1, "seed"),
    ]
    diff = client.get("/api/methodology/permit/diff?a=1&b=2", headers=agent_auth).json()
    assert diff["changes"] == [{"key": "anti_patterns", "before": None, "after": ["כפי שיפורט"]}]
    assert client.get("/api/methodology/permit/diff?a=1&b=7", headers=agent_auth).status_code == 404
    refused = client.post(
        "/api/methodology/permit/restore", headers=agent_auth, json={"version": 1}
    )
    assert refused.status_code == 403
    assert methodology.show(desk_app, "permit")["version"] == 2
    done = client.post(
        "/api/methodology/permit/restore",
        headers=chair_auth,
        json={"version": 1, "reason": "חזרה למקור"},
    )
    assert done.status_code == 200 and done.json()["version"] == 3
    assert done.json()["profile"] == methodology.show(desk_app, "permit")["profile"]
    assert "anti_patterns" not in done.json()["profile"]
    bad = client.post("/api/methodology/permit/restore", headers=chair_auth, json={"version": 0})
    assert bad.status_code == 422 or bad.status_code == 400


def test_methodology_history_diff_restore_on_the_cli(desk_app, cli_env):
    import json

    from legal_ai.learning.methodology import profiles as methodology

    def run(env, *args):
        return run_cli(env, "methodology", *args, check=False)

    methodology.edit(
        desk_app.acting_as(CHAIR_PRINCIPAL),
        "universal",
        {"voice_invariants": ["משפטים קצרים"]},
        reason="קיצור",
    )
    listed = run(cli_env, "history", "universal")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines()[0].startswith("v2 ") and "chair: קיצור" in listed.stdout
    history = json.loads(run(cli_env, "history", "universal", "--json").stdout)
    assert [v["version"] for v in history["versions"]] == [2, 1]
    diff = json.loads(run(cli_env, "diff", "universal", "1", "2", "--json").stdout)
    assert [c["key"] for c in diff["changes"]] == ["voice_invariants"]
    assert diff["changes"][0]["after"] == ["משפטים קצרים"]
    assert '+ ["משפטים קצרים"]' in run(cli_env, "diff", "universal", "1", "2").stdout
    refused = run(cli_env, "restore", "universal", "1")  # no chair token: the operator
    assert refused.returncode == 7 and refused.stderr.count("\n") == 1
    assert methodology.show(desk_app, "universal")["version"] == 2
    her = {**cli_env, "LEGAL_AI_CHAIR_TOKEN": register_chair_token(desk_app, "her-token")}
    done = run(her, "restore", "universal", "1", "--reason", "חזרה")
    assert done.returncode == 0, done.stderr
    assert "universal: version 3 restores version 1" in done.stdout
    latest = methodology.history(desk_app, "universal")["versions"][0]
    assert (latest["version"], latest["reason"]) == (3, "חזרה")
