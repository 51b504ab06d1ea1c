"""The case pages in a real headless Chromium (issue 23 item 4; fixtures in tests/desk/conftest.py):
a draft uploaded from the list lands on its case's page with the copy check's findings first —
the substance passage in red, linked to its source — and bad input answered beside its field in
Hebrew with what she filled in kept: an empty form, a wrong file type, a malformed case number
(the file she chose stays chosen), and a double submit (one request sent). Screenshots:
case-findings.png (the findings after a draft), upload-refused.png (a refused form)."""

import re

import pytest
from test_desk_hebrew import problems

import factories
from desk_browser import screenshot, sign_in
from legal_ai.learning.pairs import finals
from scenarios import COPY_CASE, other_finals, planted_draft

pytestmark = pytest.mark.db
BAD = "rgb(179, 38, 30)"  # desk.css --bad


def beside(page, error: str, field: str) -> bool:
    """Whether the message `error` sits right below its field (the label's next line)."""
    shown, box = page.locator(error).bounding_box(), page.locator(field).bounding_box()
    return abs(shown["y"] - (box["y"] + box["height"])) < 40


PHONE = {"width": 390, "height": 844}


def test_a_draft_lands_on_its_case_with_the_findings_first(page, desk, tmp_path, chromium):
    other_finals(desk.legal, tmp_path)  # the other cases' finals the copy check reads
    record = factories.records()[0]
    draft = tmp_path / "draft.txt"
    draft.write_text(planted_draft(), encoding="utf-8")
    sign_in(page, desk, next_path="/cases")
    form = page.locator("#upload-draft")
    form.locator("input[name=case_number]").fill(COPY_CASE)
    form.locator("select[name=appeal_type]").select_option(record["appeal_type"])
    form.locator("select[name=outcome]").select_option(record["outcome"])
    form.locator("input[name=file]").set_input_files(str(draft))
    with page.expect_navigation(url=re.compile(r"/cases/.+\?uploaded=draft$")):
        form.locator("button").click()
    assert "הטיוטה נקלטה — גרסה 1" in page.inner_text("[role=status]")
    # The newest cite-check report's problems first (issue 33), then the copy check's findings.
    assert page.evaluate("document.querySelector('main section').id") == "cite-check"
    assert page.evaluate("document.querySelector('#cite-check ~ section').id") == "findings"
    assert page.get_attribute("#copy", "open") is not None
    first = page.locator("#copy li.passage").first
    assert first.get_attribute("data-kind") == "substance"
    badge = first.locator(".badge")
    assert badge.inner_text() == "מהות — אסור להעתיק"
    assert badge.evaluate("e => getComputedStyle(e).color") == BAD
    assert first.locator("a").is_visible()
    assert problems(page.content()) == []
    screenshot(page, "case-findings")
    case_url = page.url
    with page.expect_navigation():
        first.locator("a").click()  # the source, at the copied span
    assert "/source/style/" in page.url and page.locator("mark#span").is_visible()
    # On a phone the case's page does not scroll sideways (its tables scroll in their frames).
    phone = chromium.new_context(base_url=desk.url, locale="he-IL", viewport=PHONE)
    try:
        small = phone.new_page()
        small.context.add_cookies(page.context.cookies())
        small.goto(case_url)
        wide = small.evaluate("document.documentElement.scrollWidth")
        assert wide <= PHONE["width"], f"the case page is {wide}px wide on a 390px phone"
    finally:
        phone.close()


def test_bad_uploads_answered_beside_the_field_then_one_submit(page, desk, tmp_path):
    record = factories.records()[0]
    sign_in(page, desk, next_path="/cases")
    # An empty form: the case number and the file, each named beside its field.
    page.locator("#upload-draft button").click()
    page.wait_for_selector("#err-draft-file")
    assert "מספר התיק ריק" in page.inner_text("#err-draft-case_number")
    assert "לא נבחר קובץ" in page.inner_text("#err-draft-file")
    assert beside(page, "#err-draft-case_number", "#upload-draft input[name=case_number]")
    assert beside(page, "#err-draft-file", "#upload-draft input[name=file]")
    # A wrong type: refused beside the file, what she typed and chose kept.
    form = page.locator("#upload-draft")
    form.locator("input[name=case_number]").fill(record["case_number"])
    form.locator("select[name=appeal_type]").select_option(record["appeal_type"])
    form.locator("select[name=outcome]").select_option(record["outcome"])
    exe = {"name": "x.exe", "mimeType": "application/octet-stream", "buffer": b"MZ\x90\x00"}
    form.locator("input[name=file]").set_input_files(files=[exe])
    form.locator("button").click()
    page.wait_for_selector("#err-draft-file >> text=סוג הקובץ אינו נתמך")
    form = page.locator("#upload-draft")
    assert form.locator("input[name=case_number]").input_value() == record["case_number"]
    assert form.locator("select[name=appeal_type]").input_value() == record["appeal_type"]
    assert form.locator("select[name=outcome]").input_value() == record["outcome"]
    assert form.locator("input[name=file]").get_attribute("aria-invalid") == "true"
    assert "ההעלאה לא בוצעה" in page.inner_text("[role=alert]")
    assert problems(page.content()) == []
    screenshot(page, "upload-refused")
    # A malformed case number with a right file: refused beside the number, the file kept.
    text = {"name": "טיוטה.txt", "mimeType": "text/plain", "buffer": record["draft_text"].encode()}
    form.locator("input[name=file]").set_input_files(files=[text])
    form.locator("input[name=case_number]").fill("9/25")
    form.locator("button").click()
    page.wait_for_selector("#err-draft-case_number >> text=מספר התיק אינו תקין")
    form = page.locator("#upload-draft")
    assert form.locator("input[name=file]").evaluate("i => i.files[0].name") == "טיוטה.txt"
    assert form.locator("select[name=appeal_type]").input_value() == record["appeal_type"]
    # A double submit: the second is not sent, and the form says so beside its button.
    posts = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    form.locator("input[name=case_number]").fill(record["case_number"])
    with page.expect_navigation(url=re.compile(r"\?uploaded=draft$")):
        said = page.evaluate(
            """() => { const f = document.getElementById("upload-draft");
                       f.requestSubmit(); f.requestSubmit();
                       return f.querySelector(".upload-state").textContent; }"""
        )
    assert said == "ההעלאה כבר נשלחת; המתיני לתשובה"
    assert [u for u in posts if u.endswith("/cases/draft/upload")] == [
        desk.url.rstrip("/") + "/cases/draft/upload"
    ]
    pairs = [
        p for p in finals.pairs(desk.legal)["pairs"] if p["case_number"] == record["case_number"]
    ]
    assert [p["draft_version"] for p in pairs] == [1]
