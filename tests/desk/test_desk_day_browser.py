"""The chair's day, walked in the real headless Chromium (issue 23, "Done when"): she signs in
and lands on what waits for her; decides three items of her queue by keyboard with a Hebrew
layout (a principle the panel approved confirmed, a lesson the panel approved on its own vetoed
with a reason, a pending principle approved), then undoes the last; uploads a draft and sees its
copy check's findings first; uploads the signed final and reads, in words, what it measured and
what was learned; searches, opens a source and copies its citation in the Israeli style. Every
page on the way shows Hebrew only (test_desk_hebrew.problems). The worker's distillation itself
runs elsewhere (tests/learning/test_engine_stages.py); here its lessons arrive as it writes them."""

import re
from urllib.parse import quote

import pytest
from test_desk_hebrew import problems
from test_desk_review_browser import current, hebrew_press, status

import factories
import review_world
from legal_ai.learning.principles import review as principle_review
from scenarios import COPY_CASE, other_finals, planted_draft
from system_panel import distilled

pytestmark = pytest.mark.db
T = review_world.TEXTS
RULING = "עע\"מ 9202/21 פלונית נ' הוועדה המקומית לתכנון ולבנייה (בדוי)"
CITATION = "עע\"מ 9202/21 פלונית נ' הוועדה המקומית לתכנון ולבנייה, פס' 2 (נבו 3.3.2021)"


def ruling(app, tmp_path) -> None:
    """A ruling of the library with numbered paragraphs (the citation's pinpoint)."""
    body = "\n\n".join(
        (
            "1. הערעור נסב על החלטה לאשר תוספת בנייה בקו בניין צדדי.",
            "2. הקלה בקו בניין צדדי אינה עניין שבשגרה; על הוועדה לבחון את ההצדקה התכנונית"
            " ואת הפגיעה בשכנים, באור ובאוויר.",
            "3. הערעור נדחה.",
        )
    )
    path = tmp_path / "ruling-9202.md"
    path.write_text(body, encoding="utf-8")
    meta = {
        "title": RULING,
        "case_number": 'עע"מ 9202/21',
        "court": "בית המשפט העליון",
        "decided_on": "2021-03-03",
        "practice_area": "planning",
    }
    assert app.ingest([path], "external", meta=meta, doc_id="day-9202").ingested == 1


def shows_hebrew_only(page) -> None:
    assert problems(page.content()) == [], page.url


def upload(page, kind: str, case: str, path, record: dict | None = None) -> None:
    """Her upload form on /cases; she lands on the case's page."""
    page.goto("/cases")
    form = page.locator(f"#upload-{kind}")
    form.locator("input[name=case_number]").fill(case)
    if record:
        form.locator("select[name=appeal_type]").select_option(record["appeal_type"])
        form.locator("select[name=outcome]").select_option(record["outcome"])
        if kind == "final":  # her final's labels are hers: the form asks for each
            form.locator("select[name=practice_area]").select_option(record["practice_area"])
    form.locator("input[name=file]").set_input_files(str(path))
    with page.expect_navigation(url=re.compile(rf"/cases/.+\?uploaded={kind}$")):
        form.locator("button").click()


def test_the_chairs_day(page, desk, tmp_path):
    ids = review_world.build(desk.legal, tmp_path)
    other_finals(desk.legal, tmp_path)
    ruling(desk.legal, tmp_path)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=desk.url)

    # Signed in, she lands on what waits for her; the queue's card says how many.
    page.goto("/login")
    page.fill("input[name=name]", desk.name)
    page.fill("input[name=password]", desk.password)
    with page.expect_navigation(url=re.compile(r"/$")):
        page.click("form[action='/login'] button[type=submit]")
    shows_hebrew_only(page)
    assert page.locator("nav a[aria-current]").inner_text().startswith("היום")
    card = page.locator("main a[href^='/review']").first
    assert re.search(r"\d", card.inner_text())

    # Three decisions by keyboard on a Hebrew layout, a veto with its reason, an undo.
    with page.expect_navigation():
        card.click()
    shows_hebrew_only(page)
    cdp = page.context.new_cdp_session(page)
    page.goto("/review")
    assert current(page) == T["to_confirm"]
    with page.expect_navigation():
        hebrew_press(cdp, "KeyA")  # ש: she confirms the panel's principle
    assert current(page) == T["approved"]  # approved by the panel on its own: only a veto
    hebrew_press(cdp, "KeyV")  # ה: the cursor goes to the reason
    page.keyboard.insert_text("ניסוח מליצי מדי")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert status(desk.legal, ids["approved"]) == "vetoed"
    assert current(page) == T["pending"]
    with page.expect_navigation():
        hebrew_press(cdp, "KeyA")  # ש: the pending principle approved
    approved = {
        p["id"] for p in principle_review.list_principles(desk.legal, "approved")["principles"]
    }
    assert ids["pending"] in approved
    with page.expect_navigation():
        hebrew_press(cdp, "KeyZ")  # ז: the last decision undone
    assert "ההחלטה בוטלה" in page.inner_text("[role=status]")
    assert current(page) == T["pending"]
    shows_hebrew_only(page)

    # A draft: she lands on its case, the cite check's problems first, then the copy check's
    # findings, substance in red.
    record = factories.records()[0]
    draft = tmp_path / "draft.txt"
    draft.write_text(planted_draft(), encoding="utf-8")
    upload(page, "draft", COPY_CASE, draft, record)
    sections = page.evaluate("[...document.querySelectorAll('main section')].map(s => s.id)")
    assert sections[:2] == ["cite-check", "findings"], sections
    first = page.locator("#copy li.passage").first
    assert first.get_attribute("data-kind") == "substance"
    assert first.locator(".badge").inner_text() == "מהות — אסור להעתיק"
    shows_hebrew_only(page)

    # Her signed final: the figures in words, and what is being learned.
    final = tmp_path / "final.txt"
    final.write_text(record["final_text"], encoding="utf-8")
    upload(page, "final", COPY_CASE, final, record)
    assert "ההחלטה החתומה נקלטה" in page.inner_text("[role=status]")
    figures = page.inner_text("#findings")
    assert "מילות הטיוטה" in figures and not re.search(r"\d+\.\d{3,}", figures)
    assert "הלמידה מההחלטה הזו ממתינה לתור" in page.inner_text("#learning")
    shows_hebrew_only(page)
    # The worker distils two lessons from the pair (as its stage writes them): she reads them
    # in words on the case page, with the way to her queue filtered to this case.
    with desk.legal.store.transaction() as conn:
        conn.execute(
            "UPDATE jobs SET status = 'done', finished_at = now() WHERE case_number = %s",
            (COPY_CASE,),
        )
    for text in ("פסקה אחת לכל טענה", "משפטים קצרים בדיון"):
        distilled(desk.legal, COPY_CASE, "style", text)
    page.reload()
    learned = page.locator("#learning")
    assert "נלמדו 2 לקחים, מחכים להכרעתך" in learned.inner_text()
    with page.expect_navigation():
        learned.locator(f"a[href='/review?case={quote(COPY_CASE, safe='')}']").click()
    assert current(page) in {"פסקה אחת לכל טענה", "משפטים קצרים בדיון"}

    # Search, open the source, copy its citation with its paragraph.
    page.goto("/search?corpus=external")
    page.fill("input[name=q]", "הצדקה תכנונית להקלה בקו בניין צדדי")
    with page.expect_navigation():
        page.press("input[name=q]", "Enter")
    shows_hebrew_only(page)
    hit = page.locator(".hit", has=page.locator("a[href*='day-9202']")).first
    with page.expect_navigation():
        hit.locator("h2 a").click()
    assert page.inner_text("code.cite") == CITATION
    page.click("button.copy")
    page.wait_for_function("document.querySelector('button.copy').textContent === 'הועתק'")
    assert page.evaluate("navigator.clipboard.readText()") == CITATION
    shows_hebrew_only(page)
