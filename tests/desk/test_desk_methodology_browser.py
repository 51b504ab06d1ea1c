"""Issue 37 items 16 and 9 (desk-a) in the real headless Chromium, at 1280 wide and on a phone
(390 wide: no sideways scroll), each page axe-clean (tests/desk_a11y.py) and Hebrew only
(test_desk_hebrew.problems): the methodology's heading rule written as words with its preview
over her finals, saved, then undone step by step; a lesson she approved and no promote folded
vetoed on the methodology page with a reason; the today page with what matters today first.
Screenshots: docs/desk/methodology.png, methodology-preview.png (the preview beside its rule),
methodology-phone.png, today-phone.png (today.png is test_desk_browser.py's)."""

import pytest
from test_desk_hebrew import problems

import factories
from desk_a11y import page_problems
from desk_browser import PHONE, screenshot, sign_in
from legal_ai.auth import CHAIR
from legal_ai.learning.lessons import lessons
from legal_ai.learning.methodology import profiles as methodology
from scenarios import analyzed_final

pytestmark = pytest.mark.db
FORM = "/methodology/universal"
WIDE = "document.documentElement.scrollWidth <= window.innerWidth + 1"


def clean(page) -> None:
    """Hebrew only, axe-clean, and no sideways scroll at the page's width."""
    assert problems(page.content()) == []
    found = page_problems(page)
    assert not found, "\n".join(found)
    assert page.evaluate(WIDE), page.evaluate("document.documentElement.scrollWidth")


def test_a_rule_in_words_previewed_saved_and_undone_step_by_step(page, desk):
    record = factories.records()[0]
    analyzed_final(desk.legal, record)
    sign_in(page, desk, next_path=FORM)
    discussion = page.locator("textarea[name='heading.discussion']")
    assert discussion.input_value().splitlines() == ["דיון והכרעה", "דיון", "הכרעה"]
    assert "|" not in page.inner_text("main")  # no pattern anywhere on the page
    clean(page)
    # A heading added in words, then its preview over her finals (what she typed kept).
    discussion.fill("דיון והכרעה\nדיון\nהכרעה\nדיון (המשך)")
    with page.expect_navigation():
        page.click("button.preview[value='heading.discussion']")
    result = page.locator("#preview-heading-discussion")
    assert result.is_visible() and "הכרעה" in result.inner_text()
    assert record["case_number"] in result.inner_text()
    assert page.evaluate("document.activeElement.id") == "preview-heading-discussion"
    assert discussion.input_value().endswith("דיון (המשך)")
    clean(page)
    rule = page.locator("div.rule", has=result)  # the rule and its preview, beside each other
    rule.screenshot(path=str(screenshot(page, "methodology-preview")))
    page.fill("input[name=reason]", "כותרת דיון נוספת")
    with page.expect_navigation():
        page.click("button.save")
    assert "נשמרה גרסה 2" in page.inner_text("[role=status]")
    headings = methodology.show(desk.legal, "universal")["profile"]["blocks"]["headings"]
    assert headings["discussion"].endswith(r"דיון\s+\(המשך\)")
    # A second change, then two steps back: to version 2's state, then to the first.
    anti = page.locator("textarea[name='list.anti_patterns']")
    anti.fill(anti.input_value() + "\nבמאמר מוסגר")
    with page.expect_navigation():
        page.click("button.save")
    step = page.locator("li[data-version='3']")
    assert "ביטויים להימנע מהם: נוסף ״במאמר מוסגר״" in step.inner_text()
    assert "ביטול הצעד האחרון (חזרה למצב של גרסה 2)" in page.inner_text("form.undo")
    screenshot(page, "methodology")
    with page.expect_navigation():
        page.click("form.undo button")
    assert "הצעד האחרון בוטל" in page.inner_text("[role=status]")
    assert "במאמר מוסגר" not in anti.input_value()
    assert discussion.input_value().endswith("דיון (המשך)")
    with page.expect_navigation():
        page.click("form.undo button")
    assert discussion.input_value().splitlines() == ["דיון והכרעה", "דיון", "הכרעה"]
    assert page.locator("form.undo").count() == 0 and page.locator(".no-undo").count() == 1
    last = page.locator("li[data-version='5']")
    assert "ביטול צעד: חזרה למצב של גרסה 1" in last.inner_text()
    assert "כותרת דיון והכרעה: הוסר ״דיון (המשך)״" in last.inner_text()
    clean(page)
    # On a phone: the rules, the steps and the lessons without sideways scroll.
    page.set_viewport_size(PHONE)
    page.goto(FORM)
    clean(page)
    screenshot(page, "methodology-phone")


def test_a_lesson_she_approved_is_vetoed_on_the_methodology_page(page, desk):
    lesson = lessons.propose(desk.legal, None, "style", "לפתוח כל פרק במשפט מסכם")
    lessons.review(desk.legal.acting_as(CHAIR), lesson["id"], "approve")
    sign_in(page, desk, next_path=FORM)
    row = page.locator(f"#approved ~ .table-wrap tr[data-lesson='{lesson['id']}']")
    assert "לפתוח כל פרק במשפט מסכם" in row.inner_text()
    row.locator("summary").click()
    # Sent without a reason (the browser's own check off): the server says it beside the field.
    row.locator("form.veto").evaluate("form => { form.noValidate = true; }")
    with page.expect_navigation():
        row.locator("button.danger").click()
    error = page.locator(f"#veto-{lesson['id']}-error")
    assert error.is_visible() and "כתבי נימוק" in error.inner_text()
    clean(page)
    row = page.locator(f"tr[data-lesson='{lesson['id']}']")
    row.locator("input[name=reason]").fill("הכלל הזה אינו שלי")
    with page.expect_navigation():
        row.locator("button.danger").click()
    assert "הלקח נפסל (וטו)" in page.inner_text("[role=status]")
    assert page.locator(f"tr[data-lesson='{lesson['id']}']").count() == 0
    vetoed = lessons.LESSONS.show(desk.legal, lesson["id"])
    assert (vetoed["review_status"], vetoed["review_reason"]) == ("vetoed", "הכלל הזה אינו שלי")
    page.set_viewport_size(PHONE)
    page.goto(FORM + "#approved")
    clean(page)


def test_today_puts_first_what_matters_on_a_laptop_and_a_phone(page, desk):
    record = factories.records()[0]
    analyzed_final(desk.legal, record)
    lessons.propose(desk.legal, None, "style", "לקח ממתין")
    escalated = lessons.propose(desk.legal, None, "style", "לקח שהפאנל העביר")
    with desk.legal.store.transaction() as conn:
        conn.execute(
            "UPDATE decision_lessons SET needs_chair = true WHERE id = %s", (escalated["id"],)
        )
    sign_in(page, desk)
    first = page.locator("section.today-first")
    cards = first.locator("[data-card], [data-today]")
    keys = [
        cards.nth(i).get_attribute("data-card") or cards.nth(i).get_attribute("data-today")
        for i in range(cards.count())
    ]
    assert keys == ["escalations", "lessons", "metadata", "promote"]  # decide, overdue, learn
    box = first.bounding_box()
    quiet = page.locator("section.quiet").bounding_box()
    assert box["y"] < quiet["y"]  # what matters first, nothing-waiting last
    clean(page)
    page.set_viewport_size(PHONE)
    page.goto("/")
    clean(page)
    screenshot(page, "today-phone")
