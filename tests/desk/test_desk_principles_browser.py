"""The principles page in a real headless Chromium (issue 37 item 10), on a Hebrew layout at
1280 wide and on a phone: thirty principles pending her review (their rules in Markdown, over two
lines) stay a compact page — no ids, no raw scores, each rule in its own paragraphs with
Markdown's marks out, its quote folded, ten per list page — whose height is measured; she filters
by words, the matching ones come ticked, and one click approves them all, each as hers. Axe and
the page checks of tests/desk_a11y.py on both widths. Screenshot: docs/desk/principles.png."""

import re

import pytest

from desk_a11y import page_problems
from desk_browser import screenshot, sign_in
from legal_ai.learning.principles import review as principle_review
from scenarios import PDF_RULING_CASE as CASE

pytestmark = pytest.mark.db
PHONE = {"width": 390, "height": 844}
TOPICS = ("הקלה בקו בניין", "שימוש חורג", "היטל השבחה", "תכנית מתאר", "פיצויים לפי סעיף 197")
MAX_HEIGHT = 9000  # px at 1280 wide: thirty principles (before issue 37: 21,766 on real data)


def world(app, tmp_path) -> list[int]:
    """Six rulings of five sentences (the panel's cap is five a decision), a principle pending
    her review on each sentence."""
    ids = []
    for k in range(6):
        sentences = [
            f"נקבע בעניין {TOPICS[i % 5]} כי הכלל מספר {k * 5 + i} חל על כל בקשה לוועדה."
            for i in range(5)
        ]
        path = tmp_path / f"ruling-{k}.txt"
        path.write_text("\n".join(sentences), encoding="utf-8")
        meta = {
            "title": "פסק דין",
            "case_number": f"{CASE[:-2]}{10 + k}",
            "court": "בית המשפט העליון",
            "is_binding": True,
            "practice_area": "planning",
        }
        doc = f"ruling-many-{k}"
        assert app.ingest([path], "external", meta=meta, doc_id=doc).ingested == 1
        ids += [
            app.add_principle(
                "external",
                doc,
                f"**{TOPICS[i % 5]}**: הכלל חל על כל בקשה.\nוזאת גם כאשר הבקשה הוגשה באיחור.",
                sentence,
            )
            for i, sentence in enumerate(sentences)
        ]
    return ids


def height(page) -> int:
    return page.evaluate("document.documentElement.scrollHeight")


def test_compact_filtered_and_decided_in_one_action(page, desk, tmp_path, chromium):
    ids = world(desk.legal, tmp_path)
    sign_in(page, desk, next_path="/training/principles")
    tall = height(page)
    print(f"principles page height at 1280: {tall}px")
    assert tall < MAX_HEIGHT
    assert page.locator("#pending article.principle").count() == 10  # one list page
    assert "דף 1 מתוך 3" in page.inner_text("#pending nav.pager")
    main = page.inner_text("main")
    assert "**" not in main and not re.search(r"עיקרון \d", main)  # no marks, no ids
    assert not re.search(r"\b0\.\d\d\b", main)  # no raw scores
    first = page.locator("#pending article.principle").first
    assert first.locator(".rule p").count() == 2  # its two lines kept apart
    assert not first.locator(".quote").is_visible()  # the quote folded under the rule
    assert first.locator(".term").inner_text() == "הצעה"  # not the panel's: added by hand
    assert page_problems(page) == []

    # Filter by words: the six on "שימוש חורג" come ticked; one click approves them all.
    page.fill("input[name=q]", "שימוש חורג")
    with page.expect_navigation():
        page.click("form.filter button")
    cards = page.locator("#pending article.principle")
    assert cards.count() == 6
    assert page.locator("#pending input.pick:checked").count() == 6
    assert "6 מתוך 30" in page.inner_text("#pending-h")
    screenshot(page, "principles")
    page.locator("#pending input.pick").first.uncheck()  # not this one
    with page.expect_navigation():
        page.click("#bulk-pending button.approve")
    assert "אישרת 5 עקרונות" in page.inner_text("[role=status]")
    approved = principle_review.list_principles(desk.legal, "approved")["principles"]
    assert len(approved) == 5 and {p["reviewed_by"] for p in approved} == {"chair"}
    assert {p["term"] for p in approved} == {"הלכה"}  # hers now: its term
    assert set(p["id"] for p in approved) < set(ids)

    # On a phone: no sideways scroll, the same checks.
    phone = chromium.new_context(base_url=desk.url, locale="he-IL", viewport=PHONE)
    try:
        small = phone.new_page()
        small.context.add_cookies(page.context.cookies())
        small.goto("/training/principles")
        print(f"principles page height on a phone: {height(small)}px")
        assert small.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        assert page_problems(small) == []
    finally:
        phone.close()
