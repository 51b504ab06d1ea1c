"""Her health page (issue 37 item 16): /health in plain Hebrew — is the background work
running, when the last backup was proven, what waits or stopped, what to tell whoever runs the
server — and the maintainer's page one link away (/health/technical). In Chromium on a laptop
and a phone: no sideways scroll, axe clean, Hebrew only; screenshots health-chair*.png."""

from __future__ import annotations

import datetime as dt

from test_desk_hebrew import problems

from desk_a11y import page_problems
from desk_browser import screenshot, sign_in
from helpers import text_of
from legal_ai.ops import scheduler as schedule
from legal_ai.ops.scheduler import Job

PHONE = {"width": 390, "height": 844}


def _all_ran(app, now) -> list[Job]:
    ok = [Job(j.name, j.cron, j.about, lambda a, at: {"summary": "ok"}) for j in schedule.JOBS]
    for job in ok:
        assert schedule.run_now(app, job.name, now=now, jobs=ok)["outcome"] == "ok"
    return ok


def _broken(app) -> None:
    """A job that failed, a backup proven three days ago, learning queued and failed."""
    now = dt.datetime.now(dt.UTC)
    ok = _all_ran(app, now)
    broken = [Job("sync-case-status", "*/15 * * * *", "x", lambda a, at: {"error": "refused"})]
    schedule.run_now(app, "sync-case-status", now=now, jobs=broken)
    schedule.run_now(app, "nightly-backup", now=now - dt.timedelta(days=3), jobs=ok)
    with app.store.as_role(None).transaction() as conn:
        conn.execute(
            "INSERT INTO jobs (kind, key, status, finished_at, error) VALUES"
            " ('learning', 'learning:1', 'failed', now(), 'model refused'),"
            " ('learning', 'learning:2', 'queued', NULL, NULL),"
            " ('ocr', 'ocr:old', 'failed', now() - interval '30 days', 'old')"
        )


def test_all_well_is_said_plainly(chair, desk_app):
    _all_ran(desk_app, dt.datetime.now(dt.UTC))
    page = chair.get("/health")
    assert page.status_code == 200 and problems(page.text) == []
    said = text_of(page.text)
    assert "כן. כל המשימות המתוזמנות רצו בזמן ובהצלחה" in said
    assert "הגיבוי האחרון שנבדק ושוחזר בהצלחה:" in said
    assert "אין עבודה שממתינה" in said and "אין צורך לפנות אליו" in said
    assert (
        'href="/health/technical"' in page.text
        and "field-error" not in page.text.split("<main")[1].split("</main>")[0]
    )
    technical = chair.get("/health/technical")
    assert technical.status_code == 200 and "בדיקת בידוד המאגרים" in technical.text


def test_what_stopped_is_said_with_what_to_tell_the_engineer(chair, desk_app):
    _broken(desk_app)
    page = chair.get("/health")
    assert problems(page.text) == []
    said = text_of(page.text)
    running = said.split('id="running"')[1].split("</section>")[0]
    assert "נכשלה בריצתה האחרונה: סנכרון מצב התיקים" in running
    assert "הגיבוי האחרון שנבדק ישן מיממה" in said.split('id="backup"')[1]
    work = said.split('id="work"')[1].split("</section>")[0]
    assert "למידה מההחלטות החתומות" in work and "1 בתור" in work
    assert "1 נכשלו בשבוע האחרון" in work and "קריאת מסמכים סרוקים" not in work  # 30 days ago
    tell = said.split('id="tell"')[1].split("</section>")[0]
    assert (
        tell.count("<li>") == 3 and "למידה מההחלטות החתומות — משימות שנכשלו בשבוע האחרון: 1" in tell
    )


def test_her_health_page_in_chromium(page, desk, chromium):
    _broken(desk.legal)
    sign_in(page, desk)
    page.goto("/health")
    assert page.inner_text("h1") == "מצב המערכת"
    assert page_problems(page) == []
    screenshot(page, "health-chair")
    phone = chromium.new_context(base_url=desk.url, locale="he-IL", viewport=PHONE)
    try:
        small = phone.new_page()
        small.context.add_cookies(page.context.cookies())
        small.goto("/health")
        assert small.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        assert page_problems(small) == []
        screenshot(small, "health-chair-phone")
    finally:
        phone.close()
    page.click("a[href='/health/technical']")
    assert page.inner_text("h1") == "תקינות המערכת"
