"""The service features of issue 15 on the chair's desk, through FastAPI's TestClient against the
real database: /training/enrichment (the headnote, summary and tags a model proposes for an
internal decision: what to set while no LEGAL_AI_ENRICHER is configured, each summary sentence
beside the decision's words it rests on, what the decision holds now, approve / reject with a
reason, a stale decision answered 409; a form without the CSRF token or with an agent's token
changes nothing) and /health in Hebrew (a scheduled job that failed last, the OCR queue waiting
with what to install and a low-confidence page, an unresolved digest, decisions awaiting
enrichment). The enricher is conftest.py's `enricher` (scenarios.Enricher, as in
learning/test_enrichment.py); the failing job runs on a controlled clock (as in
ops/test_schedule.py); the digest points nowhere (scenarios.digest, as in
learning/test_arrival.py)."""

import datetime as dt
import json

import pytest

from helpers import AGENT, csrf_of, section, sign_in, text_of
from legal_ai.ingest import ocr_jobs
from legal_ai.learning.arrival import enrichment, enrichment_review
from legal_ai.ops import scheduler as schedule
from legal_ai.ops.scheduler import Job
from scenarios import ENRICHED_CASE as CASE
from scenarios import GROUNDED, digest, ingest_decision, item, local

pytestmark = pytest.mark.db
PAGE = "/training/enrichment"


def card(html: str, enrichment_id: int) -> str:
    return html.split(f'id="enrichment-{enrichment_id}"')[1].split("</article>")[0]


def test_without_a_model_the_page_says_what_to_set(chair, desk_app, tmp_path):
    ingest_decision(desk_app, tmp_path)
    assert "LEGAL_AI_ENRICHER" in enrichment.run(desk_app)["waiting_for"]
    page = chair.get(PAGE)
    assert page.status_code == 200
    html = text_of(page.text)
    assert '<html lang="he" dir="rtl">' in html
    assert '<a href="/review" aria-current="page">לבדיקתי' in html  # her queues' menu item
    queued = section(html, "queued")
    assert "לא הוגדר מודל שכותב תקציר, סיכום ותגיות" in queued and "LEGAL_AI_ENRICHER" in queued
    assert CASE in queued and "d-1042" in queued and "ממתינה להגדרת מודל" in queued
    assert "אין הצעות הממתינות להכרעתך." in section(html, "pending")


def test_approve_each_sentence_beside_its_words_csrf_agent_and_stale(
    chair,
    client,
    desk_app,
    tmp_path,
    enricher,
):
    # A tag the decision does not have (its number): not grounded, so the proposal waits for her
    # (a grounded one is applied at once: tests/learning/test_enrichment.py).
    script, _ = enricher
    script.answer = {**GROUNDED, "tags": [*GROUNDED["tags"], 'תמ"א 38']}
    ingest_decision(desk_app, tmp_path)
    [proposed] = enrichment.run(desk_app)["proposed"]
    eid = proposed["enrichment_id"]
    page = chair.get(PAGE)
    html = text_of(page.text)
    assert "model-ready" in section(html, "queued") and "אין החלטות בתור." in section(
        html, "queued"
    )
    shown = card(html, eid)
    assert CASE in shown and 'href="/source/internal/d-1042"' in shown
    assert GROUNDED["headnote"] in shown
    for sentence in GROUNDED["summary"]:
        assert sentence["text"] in shown
        assert f'<mark class="span">{sentence["quote"]}</mark>' in shown
    start = enrichment_review.show(desk_app, eid)["sentences"][0]["char_start"]
    assert f"/source/internal/d-1042?start={start}&end=" in shown
    assert shown.count('<span class="badge tag">') == 4  # the duplicate tag dropped
    assert "מה ההחלטה מחזיקה עכשיו" in shown and "<dd>אין</dd>" in shown

    form = {
        "id": eid,
        "decision": "approve",
        "expected_status": "pending_review",
        "reason": "מדויק ונאמן להחלטה",
    }
    refused = chair.post(f"{PAGE}/decide", data=form)
    assert refused.status_code == 403 and "CSRF" in text_of(refused.text)
    token = csrf_of(page.text)
    client.cookies.clear()
    as_agent = client.post(
        f"{PAGE}/decide", data={**form, "csrf": token}, headers={"Authorization": f"Bearer {AGENT}"}
    )
    assert as_agent.status_code == 403 and 'הדסק הוא של היו"ר' in text_of(as_agent.text)
    assert enrichment_review.show(desk_app, eid)["status"] == "pending_review"
    assert item(desk_app)["headnote"] is None

    assert sign_in(client).status_code == 303
    token = csrf_of(client.get(PAGE).text)
    done = client.post(f"{PAGE}/decide", data={**form, "csrf": token}, follow_redirects=False)
    assert done.status_code == 303
    decided = enrichment_review.show(desk_app, eid)
    assert (decided["status"], decided["reviewed_by"]) == ("approved", "chair")
    assert decided["review_reason"] == "מדויק ונאמן להחלטה"
    written = item(desk_app)
    assert written["headnote"] == GROUNDED["headnote"] and written["versions"] == 1
    after = text_of(client.get(done.headers["location"]).text)
    assert "ההצעה: אושרה; תקציר, סיכום ותגיות נכתבו בהחלטה" in after
    assert "אושרה (נכתבה בהחלטה)" in section(after, "decided")

    # Another tab still showing it pending: nothing changes, 409 with the current state.
    stale = client.post(f"{PAGE}/decide", data={**form, "decision": "reject", "csrf": token})
    assert stale.status_code == 409
    assert 'כבר במצב "אושרה (נכתבה בהחלטה)" (בידי היו"ר)' in text_of(stale.text)
    assert enrichment_review.show(desk_app, eid)["status"] == "approved"


def test_reject_writes_nothing(chair, desk_app, tmp_path, enricher):
    script, _ = enricher  # not grounded (a tag with a number): it waits for her
    script.answer = {**GROUNDED, "tags": ['תמ"א 38']}
    ingest_decision(desk_app, tmp_path)
    [proposed] = enrichment.run(desk_app)["proposed"]
    eid = proposed["enrichment_id"]
    token = csrf_of(chair.get(PAGE).text)
    done = chair.post(
        f"{PAGE}/decide",
        data={
            "id": eid,
            "decision": "reject",
            "csrf": token,
            "expected_status": "pending_review",
            "reason": "התקציר אינו מדויק",
        },
        follow_redirects=False,
    )
    assert done.status_code == 303
    assert enrichment_review.show(desk_app, eid)["status"] == "rejected"
    assert item(desk_app)["headnote"] is None
    html = text_of(chair.get(done.headers["location"]).text)
    assert "ההצעה: נדחתה; דבר לא נכתב בהחלטה" in html
    assert "התקציר אינו מדויק" in section(html, "decided")
    unknown = chair.post(f"{PAGE}/decide", data={"id": eid, "decision": "maybe", "csrf": token})
    assert unknown.status_code == 400 and "החלטה לא מוכרת" in text_of(unknown.text)


def test_health_shows_a_failed_job_ocr_a_digest_and_awaiting_enrichment(
    chair,
    desk_app,
    tmp_path,
    monkeypatch,
):
    jobs = (
        Job(
            "sync-case-status",
            "*/15 * * * *",
            "broken here",
            lambda a, now: {"error": "the tracker refused the token", "summary": "x"},
        ),
    )
    schedule.run_now(desk_app, "sync-case-status", now=local(2026, 5, 4, 10), jobs=jobs)
    # A scan waiting for Tesseract, and an item read with a low-confidence page 2.
    with desk_app.store.transaction() as conn:
        ocr_jobs.enqueue(conn, "ab" * 32, b"%PDF-1.4 a scan")
    monkeypatch.setattr(desk_app.settings, "tesseract", "/nonexistent/tesseract")
    assert "tesseract-ocr" in ocr_jobs.run(desk_app)["waiting_for"]
    ingest_decision(desk_app, tmp_path)
    enrichment.run(desk_app)  # its enrichment waits: no model
    reading = {
        "ocr_engine": "tesseract 5 (heb)",
        "ocr_confidence": 71.5,
        "ocr_page_confidence": [88, 42],
        "ocr_low_confidence_pages": [2],
    }
    with desk_app.store.transaction() as conn:
        conn.execute(
            "UPDATE case_law SET metadata = metadata || %s::jsonb WHERE doc_id = 'd-1042'",
            (json.dumps(reading),),
        )
    digest(desk_app, tmp_path, "yomon-9", "עע\"מ 1/99 אין כזה נ' אין כזו")

    page = chair.get("/health/technical")
    assert page.status_code == 200
    html = text_of(page.text)
    assert '<html lang="he" dir="rtl">' in html and "תקינות המערכת" in html
    assert (
        'המשימה "סנכרון מצב התיקים" נכשלה בריצתה האחרונה' in html and "sync-case-status" not in html
    )
    assert "the tracker refused the token" in html and "1 פעמים ברציפות" in html
    jobs_table = html.split('<table class="jobs">')[1].split("</table>")[0]
    assert '<b class="field-error">נכשלה</b>' in jobs_table and "טרם רצה" in jobs_table

    ocr = html.split('<h2 id="ocr">')[1].split('<h2 id="digests">')[0]
    assert "<tr><th>ממתינות למחשב</th><td>1</td></tr>" in ocr
    assert "מי שמתחזק את השרת מתקין אותה" in ocr
    assert "apt-get install tesseract-ocr" in ocr.split("פרטים טכניים")[1]  # behind the details
    assert "ממתינה למחשב" in ocr
    assert '<a href="/source/internal/d-1042?page=2#page-2">עמוד 2</a>' in ocr

    digests = html.split('<h2 id="digests">')[1].split('<h2 id="missing">')[0]
    assert "(1)" in digests and 'href="/source/digests/yomon-9"' in digests
    assert 'פסק הדין עע"מ 1/99 אינו בספרייה' in digests
    awaiting = html.split('<h2 id="enrichment">')[1].split("</table>")[0]
    assert CASE in awaiting and "ממתינה להגדרת מודל" in awaiting


def test_written_at_once_is_said_reverted_and_corrected_on_the_desk(
    chair, desk_app, tmp_path, enricher
):
    """A grounded proposal is written into the decision at once: the page says so (not that
    nothing is written until she approves), counts it, and she reverts it or corrects it there,
    through the same use cases as `legal-ai enrich review ID revert` and /training/metadata."""
    ingest_decision(desk_app, tmp_path)
    [applied] = enrichment.run(desk_app)["applied"]
    eid = applied["enrichment_id"]
    assert item(desk_app)["headnote"] == GROUNDED["headnote"]
    page = chair.get(PAGE)
    html = text_of(page.text)
    assert "דבר אינו נכתב בהחלטה עד שאישרת" not in html
    assert "נכתב בהחלטה מיד ומסומן כעבודת המודל" in html
    assert 'נכתבו בידי המודל <span class="n">1</span>' in html
    assert 'טופלו <span class="n">0</span>' in html
    written = card(section(html, "applied"), eid)
    assert GROUNDED["headnote"] in written and "נכתבה בהחלטה בידי המודל" in written
    assert f'<mark class="span">{GROUNDED["summary"][0]["quote"]}</mark>' in written
    assert "ביטול — החזרת מה שהיה" in written and "תיקון בידייך" in written
    token = csrf_of(page.text)

    # Corrected: her three fields written, the enrichment marked edited, by her.
    refused = chair.post(
        f"{PAGE}/edit",
        data={"csrf": token, "id": eid, "headnote": "תקציר שלי", "summary": "", "tags": "הקלה"},
    )
    assert refused.status_code == 400
    said = text_of(refused.text)
    assert "הסיכום ריק" in said and 'aria-invalid="true"' in card(section(said, "applied"), eid)
    assert "תקציר שלי" in card(section(said, "applied"), eid)  # what she typed is kept
    assert enrichment_review.show(desk_app, eid)["status"] == "applied"
    done = chair.post(
        f"{PAGE}/edit",
        data={
            "csrf": token,
            "id": eid,
            "headnote": 'תקציר שכתבה היו"ר',
            "summary": 'סיכום שכתבה היו"ר.',
            "tags": "הקלה, פרטיות",
        },
        follow_redirects=False,
    )
    assert done.status_code == 303
    edited = enrichment_review.show(desk_app, eid)
    assert (edited["status"], edited["reviewed_by"]) == ("edited", "chair")
    row = item(desk_app)
    assert row["headnote"] == 'תקציר שכתבה היו"ר' and row["tags"] == ["הקלה", "פרטיות"]
    after = text_of(chair.get(done.headers["location"]).text)
    assert "ההצעה: נשמרו התקציר, הסיכום והתגיות שכתבת" in after
    assert "תוקנה בידייך" in section(after, "decided") and 'טופלו <span class="n">1</span>' in after
    assert "אין החלטות שהמודל כתב בהן" in section(after, "applied")


def test_revert_on_the_desk_puts_back_what_was_there(chair, desk_app, tmp_path, enricher):
    ingest_decision(desk_app, tmp_path, headnote="תקציר קודם")  # the model fills the others
    [applied] = enrichment.run(desk_app)["applied"]
    eid = applied["enrichment_id"]
    assert item(desk_app)["summary"] and item(desk_app)["headnote"] == "תקציר קודם"
    page = chair.get(PAGE)
    form = {
        "csrf": csrf_of(page.text),
        "id": eid,
        "decision": "revert",
        "expected_status": "applied",
        "reason": "אכתוב בעצמי",
    }
    done = chair.post(f"{PAGE}/decide", data=form, follow_redirects=False)
    assert done.status_code == 303
    reverted = enrichment_review.show(desk_app, eid)
    assert (reverted["status"], reverted["reviewed_by"]) == ("reverted", "chair")
    row = item(desk_app)
    assert row["headnote"] == "תקציר קודם" and row["summary"] is None and not row["searchable"]
    after = text_of(chair.get(done.headers["location"]).text)
    assert "ההצעה: בוטלה; התקציר, הסיכום והתגיות חזרו למה שהיה" in after
    assert "בוטלה בידייך (חזר מה שהיה)" in section(after, "decided")
    assert "אכתוב בעצמי" in section(after, "decided")
    again = chair.post(f"{PAGE}/decide", data=form)  # another tab still showing it applied
    assert again.status_code == 409 and "כבר במצב" in text_of(again.text)


def banner(html: str) -> str | None:
    """The red banner of background work that stopped (base.html), or None."""
    if 'class="error ops-alarm"' not in html:
        return None
    return text_of(html.split('class="error ops-alarm"')[1].split("</div>")[0])


def test_a_red_banner_on_every_page_when_background_work_stopped(chair, desk_app):
    """No backup proven ever: red on every page (and on the system page's card), not grey. Every
    job run and a backup proven now: no banner. Then a job that failed, one overdue (due five
    hours ago, no process running it) and a backup proven three days ago: each said, in
    Hebrew, with where to look."""
    for path in ("/", "/cases", PAGE, "/system"):
        said = banner(chair.get(path).text)
        assert said and "מעולם לא נלקח גיבוי שנבדק בשחזור" in said, path
        assert "יש לפנות למי שמפעיל את המערכת" in said and "nightly" not in said
    system = text_of(chair.get("/system").text)
    assert '<b class="field-error">טרם נלקח גיבוי שנבדק</b>' in system

    now = dt.datetime.now(dt.UTC)
    ok = [Job(j.name, j.cron, j.about, lambda a, at: {"summary": "ok"}) for j in schedule.JOBS]
    for job in ok:
        assert schedule.run_now(desk_app, job.name, now=now, jobs=ok)["outcome"] == "ok"
    with desk_app.store.connection() as conn:
        rows = conn.execute("SELECT name, next_run_at, last_outcome FROM schedules").fetchall()
    assert len(rows) == len(schedule.JOBS) and all(r["next_run_at"] > now for r in rows)
    assert banner(chair.get("/").text) is None
    assert '<b class="field-error">' not in chair.get("/system").text.split('data-card="backup"')[1]

    broken = [Job("sync-case-status", "*/15 * * * *", "x", lambda a, at: {"error": "refused"})]
    assert schedule.run_now(desk_app, "sync-case-status", now=now, jobs=broken)["outcome"] == (
        "failed"
    )
    with desk_app.store.transaction() as conn:
        conn.execute(
            "UPDATE schedules SET next_run_at = now() - interval '5 hours'"
            " WHERE name = 'stale-case-reminder'"
        )
    three_days = now - dt.timedelta(days=3)
    schedule.run_now(desk_app, "nightly-backup", now=three_days, jobs=ok)
    said = banner(chair.get("/reminders").text)
    assert "נכשלו בריצתן האחרונה: סנכרון מצב התיקים." in said
    assert "לא רצו בזמנן: תזכורת לתיקים שלא זזו." in said
    assert "לא נלקח גיבוי שנבדק בשחזור מאז" in said and "מעולם" not in said
    assert 'href="/reminders">לפרטים' in said
