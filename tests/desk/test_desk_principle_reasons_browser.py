"""The principle panel's reasons on a principle's item in a real headless Chromium (issue 37
item 7), at 1280 wide and on a phone: under the rule on /training/principles and on the review
queue's principle item, each model's reason in Hebrew, visible without opening anything; the
models' names and a reason in English only behind "פרטים טכניים"; no sideways scroll, axe and
the page checks of tests/desk_a11y.py clean on both widths. The world is
test_desk_principle_reasons.py's (three scripted models on a local server)."""

import pytest
from test_desk_principle_reasons import WHY_A2, WHY_C1, WHY_U, reason_world

from desk_a11y import page_problems
from desk_browser import sign_in

pytestmark = pytest.mark.db
PHONE = {"width": 390, "height": 844}


def test_the_reasons_are_read_on_the_item_on_a_laptop_and_a_phone(
    page, desk, tmp_path, chromium, monkeypatch
):
    _, rows = reason_world(desk.legal, tmp_path, monkeypatch)
    pages = (
        "/training/principles",
        f"/review?item=principle-{rows['U']['id']}",
    )
    sign_in(page, desk, next_path=pages[0])
    card = page.locator(f"#principle-{rows['R2']['id']} .panel-reasons")
    assert card.is_visible() and WHY_A2 in card.inner_text()
    assert "openai" not in card.inner_text()  # the models' names folded
    confirm = page.locator(f"#to_confirm #principle-{rows['R1']['id']} .panel-reasons")
    assert "המודל נימק שלא בעברית" in confirm.inner_text()
    assert WHY_C1 not in confirm.inner_text()  # behind the closed details
    assert page_problems(page) == []
    page.goto(pages[1])
    current = page.locator("section.current .panel-reasons")
    assert current.inner_text().count(WHY_U) == 3
    assert page_problems(page) == []

    phone = chromium.new_context(base_url=desk.url, locale="he-IL", viewport=PHONE)
    try:
        small = phone.new_page()
        small.context.add_cookies(page.context.cookies())
        for path in pages:
            small.goto(path)
            assert small.locator(".panel-reasons").first.is_visible(), path
            assert small.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], path
            assert page_problems(small) == [], path
    finally:
        phone.close()
