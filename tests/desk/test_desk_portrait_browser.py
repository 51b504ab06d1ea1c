"""Issue 37 item 16 in the real headless Chromium, at 1280 wide and on a phone (390 wide: no
sideways scroll), each page axe-clean (tests/desk_a11y.py) and Hebrew only
(test_desk_hebrew.problems): the voice-fingerprint proposals — an item edited on a Hebrew layout
(typed as the layout's IME inserts it) and adopted into the methodology, another dismissed —
and her style portrait, where the adopted item is listed with its link, a lesson's veto link
leads to its veto, and one of her finals is withdrawn from the writer and restored. Screenshots: docs/desk/fingerprint.png, fingerprint-phone.png,
portrait.png, portrait-phone.png."""

import pytest
from test_desk_fingerprint import FINGERPRINT, distiller, proposals, written  # noqa: F401
from test_desk_methodology_browser import clean

from desk_browser import PHONE, screenshot, sign_in
from legal_ai.auth import CHAIR
from legal_ai.knowledge import withdrawn
from legal_ai.knowledge.brief import writing_brief
from legal_ai.learning.lessons import lessons
from legal_ai.learning.methodology import profiles as methodology

pytestmark = pytest.mark.db


def test_fingerprint_and_portrait_on_a_laptop_and_a_phone(
    page,
    desk,
    tmp_path,
    proposals,  # noqa: F811
    distiller,  # noqa: F811
):
    written(desk.legal, tmp_path, *distiller)
    her = desk.legal.acting_as(CHAIR)
    lesson = lessons.propose(desk.legal, None, "style", "משפטים קצרים בפתח הדבר")
    lessons.review(her, lesson["id"], "approve")
    sign_in(page, desk, next_path="/training/fingerprint")
    assert page.locator("h1").inner_text() == "הצעות לתיאור הקול שלך"
    assert page.locator("mark.substance").count() >= 1  # the citation an item carries
    clean(page)
    screenshot(page, "fingerprint")
    # An opening, edited on a Hebrew layout to a part of it, adopted into the permit profile.
    item = page.locator("li[data-item='openings-1']")
    box = item.locator("textarea[name=text]")
    box.fill("")
    box.focus()
    page.keyboard.insert_text("לפנינו ערר")
    item.locator("select[name=appeal_type]").select_option("permit")
    with page.expect_navigation():
        item.locator("button.approve").click()
    assert "הפריט אומץ למתודולוגיה" in page.inner_text("[role=status]")
    assert methodology.show(desk.legal, "permit")["profile"]["voice_invariants"][-1] == "לפנינו ערר"
    assert "לפנינו ערר" in writing_brief(desk.legal, "permit")["voice_invariants"]
    # Another dismissed with a reason typed on the layout.
    other = page.locator("li[data-item='openings-2']")
    other.locator("input[name=reason]").focus()
    page.keyboard.insert_text("לא אצלי")
    with page.expect_navigation():
        other.locator("button.reject").click()
    assert "הפריט נדחה" in page.inner_text("[role=status]")
    assert page.locator("details.dismissed").count() == 1
    clean(page)
    page.set_viewport_size(PHONE)
    clean(page)
    screenshot(page, "fingerprint-phone")

    # The portrait: what the writer reads, each with where she withdraws it.
    page.set_viewport_size({"width": 1280, "height": 860})
    page.goto("/training/portrait?type=permit")
    assert page.locator("h1").inner_text().startswith("דיוקן הסגנון שלך")
    assert "נמדד על" in page.inner_text("#measured")
    assert "לפנינו ערר" in page.inner_text("#adopted")
    clean(page)
    screenshot(page, "portrait")
    with page.expect_navigation():
        page.click(f"a[href='/methodology/universal#lesson-{lesson['id']}']")
    row = page.locator(f"#lesson-{lesson['id']}")
    assert row.is_visible() and "משפטים קצרים" in row.inner_text()
    page.goto("/training/portrait?type=permit")
    # One of her finals withdrawn from what the writer reads, from its row, then restored.
    row = page.locator("tr[data-final]").first
    case = row.get_attribute("data-final")
    with page.expect_navigation():
        row.locator("button[value=withdraw]").click()
    assert "ההחלטה הוצאה" in page.inner_text("[role=status]")
    assert [w["case_number"] for w in withdrawn.withdrawn(desk.legal)] == [case]
    clean(page)
    page.set_viewport_size(PHONE)
    clean(page)
    screenshot(page, "portrait-phone")
    with page.expect_navigation():
        page.locator(f"tr[data-final='{case}'] button[value=restore]").click()
    assert "ההחלטה הוחזרה" in page.inner_text("[role=status]")
    assert withdrawn.withdrawn(desk.legal) == []
