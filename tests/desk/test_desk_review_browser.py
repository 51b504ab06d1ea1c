"""The review queue in a real headless Chromium (issue 23 item 2): the chair decides by keyboard
with her layout Hebrew — key presses whose `event.key` is a Hebrew letter and whose
`event.code` is the Latin key's (sent through the browser's own input pipeline, CDP
Input.dispatchKeyEvent, as a Hebrew layout sends them; one also as a KeyboardEvent built on the
page, and one as Playwright's press("KeyR")); a letter typed in the reason field decides
nothing; a panel approval vetoed with a reason; the last decision undone; the bulk confirmation
listing the lessons by their text; and the shortcuts hidden on a touch screen. Screenshots:
docs/desk/review.png, review-bulk.png and audit.png (the trail of those decisions)."""

import pytest

import review_world
from desk_browser import VIEWPORT, screenshot, sign_in
from legal_ai.learning.lessons import lessons
from legal_ai.learning.principles import review as principle_review

pytestmark = pytest.mark.db
T = review_world.TEXTS
# The keys she presses, as a Hebrew layout sends them: (event.code, event.key).
HEBREW = {"KeyA": "ש", "KeyR": "ר", "KeyV": "ה", "KeyZ": "ז"}


def hebrew_press(cdp, code: str) -> None:
    """A real key press on a Hebrew layout: the key at `code`, typing its Hebrew letter."""
    key = HEBREW[code]
    base = {"code": code, "key": key, "windowsVirtualKeyCode": ord(code[-1])}
    cdp.send("Input.dispatchKeyEvent", {"type": "keyDown", "text": key, **base})
    cdp.send("Input.dispatchKeyEvent", {"type": "keyUp", **base})


def current(page) -> str:
    return page.inner_text("#current blockquote.lesson")


def status(app, lesson_id: int) -> str:
    (row,) = [r for r in lessons.list_lessons(app)["lessons"] if r["id"] == lesson_id]
    return row["review_status"]


def test_decide_by_keyboard_on_a_hebrew_layout_veto_and_undo(page, desk, tmp_path, chromium):
    ids = review_world.build(desk.legal, tmp_path)
    sign_in(page, desk, next_path="/review")
    cdp = page.context.new_cdp_session(page)
    assert current(page) == T["to_confirm"]  # the panel's surest first
    assert page.is_visible(".evidence-side") and page.is_visible("section.keys")
    # 1. Confirm the panel's principle: ש at KeyA.
    with page.expect_navigation():
        hebrew_press(cdp, "KeyA")
    assert "אישרת את אישור הפאנל" in page.inner_text("[role=status]")
    assert principle_review.list_principles(desk.legal, "to_confirm")["principles"] == []
    # 2. The panel approved this lesson on its own: only a veto, with a reason.
    assert current(page) == T["approved"]
    assert page.locator("#decide button[value=approve]").count() == 0
    screenshot(page, "review")
    hebrew_press(cdp, "KeyV")  # ה: the cursor goes to the reason
    assert page.evaluate("document.activeElement.name") == "reason"
    assert "נימוק לווטו" in page.inner_text("#decide .pending")
    page.keyboard.press("Enter")  # no reason yet: asked again, nothing sent
    assert "נימוק חובה" in page.inner_text("#decide .pending")
    hebrew_press(cdp, "KeyA")  # typing ש in the field approves nothing
    page.keyboard.insert_text("ניסוח מליצי מדי")
    assert page.input_value("#reason") == "שניסוח מליצי מדי"
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert status(desk.legal, ids["approved"]) == "vetoed"
    # 3. The pending principle: a KeyboardEvent built on the page, key ש at KeyA.
    assert current(page) == T["pending"]
    with page.expect_navigation():
        page.evaluate(
            "document.dispatchEvent(new KeyboardEvent('keydown',"
            " {key: 'ש', code: 'KeyA', bubbles: true}))"
        )
    approved = principle_review.list_principles(desk.legal, "approved")["principles"]
    assert ids["pending"] in {p["id"] for p in approved}
    # 4. Reject the split lesson with a reason: Playwright's press("KeyR") sends code KeyR.
    assert current(page) == T["split"]
    page.keyboard.press("KeyR")
    page.keyboard.insert_text("ארוך מדי")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert status(desk.legal, ids["split"]) == "rejected"
    # Undo the last decision: ז at KeyZ. The split lesson is hers to decide again.
    with page.expect_navigation():
        hebrew_press(cdp, "KeyZ")
    assert "ההחלטה בוטלה" in page.inner_text("[role=status]")
    assert status(desk.legal, ids["split"]) == "proposed" and current(page) == T["split"]
    # A bulk approval lists the lessons by their text before anything is done.
    for name in ("split", "plain"):
        page.check(f"#mark-lesson-{ids[name]}")
    with page.expect_navigation():
        page.click(".bulk-actions button[value=approve]")
    listed = page.inner_text(".confirm-items")
    assert T["split"] in listed and T["plain"] in listed
    page.fill(".bulk-confirm input[name=reason]", "שניהם נכונים")
    screenshot(page, "review-bulk")
    with page.expect_navigation():
        page.click(".bulk-confirm button[type=submit]")
    assert status(desk.legal, ids["plain"]) == "approved"
    with page.expect_navigation():
        hebrew_press(cdp, "KeyZ")  # the whole bulk action undone
    assert status(desk.legal, ids["plain"]) == status(desk.legal, ids["split"]) == "proposed"
    page.goto("/audit")  # each decision and each undo, hers, newest first
    assert page.locator("table.audit tbody tr").count() >= 8
    screenshot(page, "audit")
    # On a touch screen the shortcuts are not shown.
    touch = chromium.new_context(
        base_url=desk.url, locale="he-IL", viewport=VIEWPORT, has_touch=True, is_mobile=True
    )
    try:
        phone = touch.new_page()
        phone.context.add_cookies(page.context.cookies())
        phone.goto("/review")
        assert phone.evaluate("matchMedia('(pointer: coarse)').matches")
        assert not phone.is_visible("section.keys") and not phone.is_visible(".shortcut")
        assert phone.is_visible("#decide button[value=approve]")
    finally:
        touch.close()
