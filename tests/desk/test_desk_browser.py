"""The chair's desk in a real headless Chromium (the fixtures in tests/desk/conftest.py, the
helpers in tests/desk_browser.py): sign in and land on what waits for her (then /review and
/system), search and open a source at its span, upload a draft and a final
and see the pair advance, the dashboard's plot with one point per final, a methodology edit
refused at its field then saved, diffed and restored, a principle approved from its queue, a
voice document approved beside her marked words, a decision's headnote, summary and tags written
on /training/metadata after an empty field was refused, a page printed (content only, folds
open). Each page is saved as docs/desk/NAME.png
(embedded in docs/desk.md and README). The review queue by keyboard: test_desk_review_browser.py."""

import pytest
from test_desk_hebrew import problems

import factories
from desk_browser import screenshot, sign_in
from legal_ai.learning.lessons import lessons

pytestmark = pytest.mark.db
RULING = (
    "החלטה בעניין הקלה בקו בניין צדדי ברחוב הרצל 12. הוועדה המקומית דחתה את הבקשה.\n"
    "בית המשפט קבע כי סטייה ניכרת מתוכנית אינה יכולה להינתן כהקלה, ולכן הערר נדחה."
)


def test_sign_in_search_and_source(page, desk, tmp_path):
    ruling = tmp_path / "ruling.txt"
    ruling.write_text(RULING, encoding="utf-8")
    meta = {
        "title": "הקלה בקו בניין",
        "case_number": 'עע"מ 1234/05',
        "court": "בית המשפט העליון",
        "decided_on": "2005-03-01",
        "practice_area": "planning",
    }
    assert desk.legal.ingest([ruling], "external", meta=meta, doc_id="ruling-1").ingested == 1
    page.goto("/search")
    assert "/login" in page.url
    screenshot(page, "login")
    page.fill("input[name=password]", "wrong password!")
    page.fill("input[name=name]", "chair")
    with page.expect_navigation():
        page.click("form[action='/login'] button[type=submit]")
    assert "שגויים" in page.inner_text("[role=alert]")
    sign_in(page, desk)
    page.goto("/search?corpus=external")
    page.fill("input[name=q]", "סטייה ניכרת")
    with page.expect_navigation():
        page.press("input[name=q]", "Enter")
    assert page.locator(".hit").count() == 1
    assert page.locator(".hit mark").count() >= 1
    assert page.evaluate("getComputedStyle(document.body).direction") == "rtl"
    # The search's and the source's screenshots: test_desk_search_browser.py (a fuller library).
    with page.expect_navigation():
        page.click(".hit h2 a")
    marked = page.locator("mark#span")
    assert "סטייה ניכרת" in marked.inner_text() or marked.inner_text() in RULING
    assert marked.is_visible()
    # Printed: the content only (no menu, forms or banner), every folded part open.
    page.goto("/search?corpus=external&q=" + "סטייה ניכרת")
    page.emulate_media(media="print")
    assert not page.locator("header.top").is_visible()
    assert all(not f.is_visible() for f in page.locator("main form").all())
    assert page.locator(".hit").first.is_visible()
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    assert page.locator("main details:not([open])").count() == 0
    page.evaluate("window.dispatchEvent(new Event('afterprint'))")
    page.emulate_media(media="screen")
    assert page.locator("header.top").is_visible()


def test_today_then_review_and_system(page, desk):
    """Sign-in lands on "מה מחכה לי": a card per thing waiting with its count and link, the
    menu's six items with their badges; then /review and /system."""
    for n in range(3):
        lessons.propose(desk.legal, None, "style", f"לקח ממתין {n}")
    sign_in(page, desk)
    assert page.url.rstrip("/") == desk.url.rstrip("/")
    assert page.inner_text("h1") == "מה מחכה לי"
    assert page.get_attribute("[data-card=lessons] .num", "data-count") == "3"
    assert page.locator("header nav a").count() == 6
    assert page.inner_text("header nav a[href='/review'] .count") == "3"
    assert "3 ממתינים" in page.inner_text("header nav a[href='/review'] .sr-only")
    screenshot(page, "today")
    with page.expect_navigation():
        page.click("[data-card=lessons] a")
    assert "לקח ממתין 0" in page.inner_text("#current")  # the queue, at the card's lane
    assert page.locator(".queue-list li").count() == 3
    page.goto("/system")
    assert page.locator("a[href='/health']").count() >= 1
    screenshot(page, "system")


def test_upload_draft_and_final_then_dashboard(page, desk, tmp_path):
    record = factories.records()[0]
    draft, final = tmp_path / "draft.txt", tmp_path / "final.txt"
    draft.write_text(record["draft_text"], encoding="utf-8")
    final.write_text(record["final_text"], encoding="utf-8")
    sign_in(page, desk, next_path="/cases")
    form = page.locator("form[action='/cases/draft/upload']")
    form.locator("input[name=case_number]").fill(record["case_number"])
    form.locator("select[name=appeal_type]").select_option(record["appeal_type"])
    form.locator("select[name=outcome]").select_option(record["outcome"])
    form.locator("select[name=practice_area]").select_option(record["practice_area"])
    form.locator("input[name=file]").set_input_files(str(draft))
    form.locator("button").click()  # sent by desk.js (progress shown); lands on the case's page
    page.wait_for_selector("[data-status=draft_done]")
    page.goto("/cases")
    form = page.locator("form[action='/cases/final/upload']")
    form.locator("input[name=case_number]").fill(record["case_number"])
    for label in ("appeal_type", "outcome", "practice_area"):  # her final's labels: hers
        form.locator(f"select[name={label}]").select_option(record[label])
    form.locator("input[name=file]").set_input_files(str(final))
    form.locator("button").click()
    page.wait_for_selector("[data-status=analyzed]")
    assert "ההחלטה החתומה נקלטה" in page.inner_text("[role=status]")
    screenshot(page, "case")
    page.goto("/cases")
    screenshot(page, "cases")
    page.goto("/learning")
    assert page.get_attribute("figure.plot", "data-points") == "1"
    assert page.locator("figure.plot svg").count() == 1
    screenshot(page, "learning")
    page.goto("/health/technical")
    assert "תקין" in page.inner_text("table.summary")
    screenshot(page, "health")


WATCH_PROGRESS = """() => {
  const seen = {shown: 0, max: 0};
  new MutationObserver(() => {
    const bar = document.querySelector("progress.upload");
    if (!bar) return;
    seen.shown += 1;
    seen.max = Math.max(seen.max, bar.value);
    sessionStorage.setItem("progress", JSON.stringify(seen));  // kept across the navigation
  }).observe(document.body, {subtree: true, childList: true, attributes: true,
                              characterData: true});
}"""
DROP = """([selector, name, text]) => {
  const files = new DataTransfer();
  files.items.add(new File([text], name, {type: "text/plain"}));
  const form = document.querySelector(selector);
  for (const type of ["dragenter", "dragover", "drop"]) {
    form.dispatchEvent(new DragEvent(type, {bubbles: true, cancelable: true,
                                            dataTransfer: files}));
  }
}"""


def test_a_required_field_left_empty_is_said_in_hebrew(page, desk):
    """The browser here runs in English: its bubble for an empty required field says "Please
    fill out this field." (so it does with scripts off). With the desk's script the field says
    it in Hebrew, a list asks to choose, and typing clears it so the form can go."""
    page.goto("/login")
    password = page.locator("input[name=password]")
    page.click("form[action='/login'] button[type=submit]")  # no password: the form stays
    assert page.url.endswith("/login")
    assert password.evaluate("i => i.validationMessage") == "יש למלא את השדה הזה"
    password.fill("x")
    assert password.evaluate("i => i.validationMessage") == ""
    chosen = page.evaluate(
        """() => {
          const form = document.createElement("form"), list = document.createElement("select");
          list.required = true;
          list.innerHTML = '<option value="">—</option><option value="a">א</option>';
          form.append(list);
          document.querySelector("main").append(form);
          form.reportValidity();
          const said = list.validationMessage;
          list.value = "a";
          list.dispatchEvent(new Event("change", {bubbles: true}));
          return [said, list.validationMessage, form.checkValidity()];
        }"""
    )
    assert chosen == ["יש לבחור מהרשימה", "", True]
    plain = page.context.browser.new_context(base_url=desk.url, java_script_enabled=False)
    try:
        other = plain.new_page()
        other.goto("/login")
        english = other.locator("input[name=password]").evaluate("i => i.validationMessage")
        assert english and not any("\u0590" <= c <= "\u05ff" for c in english)  # the browser's
    finally:
        plain.close()


def test_a_file_field_speaks_hebrew_whatever_the_browsers_language(page, desk, tmp_path):
    """The browser here runs in English: its own file control would say "Choose File" and "No
    file chosen". The desk's field shows its own Hebrew face instead, which opens the picker,
    names the file chosen, and shows the keyboard's focus; the native control stays in the
    form (labelled, focusable), drawn invisibly."""
    sign_in(page, desk, next_path="/cases")
    form = page.locator("form[action='/cases/draft/upload']")
    native = form.locator("input[type=file]")
    box = native.bounding_box()
    assert box and box["width"] <= 1 and box["height"] <= 1
    assert native.evaluate("i => getComputedStyle(i).opacity") == "0"
    assert form.locator(".file-button").inner_text() == "בחירת קובץ"
    assert form.locator(".file-chosen").inner_text() == "לא נבחר קובץ"
    assert "קובץ" in native.evaluate("i => i.labels[0].innerText")  # still labelled
    chosen = tmp_path / "טיוטה שנייה.txt"
    chosen.write_text("טיוטה", encoding="utf-8")
    with page.expect_file_chooser() as chooser:
        form.locator(".file-button").click()
    chooser.value.set_files(chosen)
    assert form.locator(".file-chosen").inner_text() == "טיוטה שנייה.txt"
    native.focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")  # reached by the keyboard: the face shows where the focus is
    assert native.evaluate("i => document.activeElement === i")
    ring = form.locator(".file-button").evaluate("b => getComputedStyle(b).outlineStyle")
    assert ring == "solid"


def test_upload_dropped_file_with_progress_then_plain_form(page, desk):
    """A draft dropped on its form and sent with a progress bar (desk.js); the final through
    the same form with scripts off (the plain multipart post): both advance the pair."""
    record = factories.records()[0]
    case = record["case_number"]
    sign_in(page, desk, next_path="/cases")
    page.evaluate(WATCH_PROGRESS)
    selector = "form[action='/cases/draft/upload']"
    form = page.locator(selector)
    form.locator("input[name=case_number]").fill(case)
    form.locator("select[name=appeal_type]").select_option(record["appeal_type"])
    form.locator("select[name=outcome]").select_option(record["outcome"])
    page.evaluate(DROP, [selector, "טיוטה.txt", record["draft_text"]])
    assert form.locator(".file-chosen").inner_text() == "טיוטה.txt"
    assert form.locator("input[name=file]").evaluate("i => i.files[0].name") == "טיוטה.txt"
    form.locator("button").click()
    page.wait_for_selector("[data-status=draft_done]")
    seen = page.evaluate("() => JSON.parse(sessionStorage.getItem('progress'))")
    assert seen["shown"] > 0 and seen["max"] == 100  # the bar appeared and reached the end
    assert page.url.endswith("?uploaded=draft") and "נקלטה" in page.inner_text("[role=status]")
    # Without JavaScript the same form posts as a plain multipart form.
    plain = page.context.browser.new_context(base_url=desk.url, java_script_enabled=False)
    try:
        other = plain.new_page()
        sign_in(other, desk, next_path="/cases")
        final = other.locator("form[action='/cases/final/upload']")
        final.locator("input[name=case_number]").fill(case)
        for label in ("appeal_type", "outcome", "practice_area"):
            final.locator(f"select[name={label}]").select_option(record[label])
        final.locator("input[name=file]").set_input_files(
            files=[
                {
                    "name": "final.txt",
                    "mimeType": "text/plain",
                    "buffer": record["final_text"].encode(),
                }
            ]
        )
        final.locator("button").click()  # answered at once: its stages, then the case's page
        other.wait_for_url("**?uploaded=final", timeout=60_000)
        assert other.locator("[data-status=analyzed]").count() == 1
        assert other.locator("progress").count() == 0
    finally:
        plain.close()


def test_methodology_edit_refused_field_then_saved_diffed_and_restored(page, desk):
    from legal_ai.learning.methodology import profiles as methodology

    seed = methodology.show(desk.legal, "universal")
    sign_in(page, desk, next_path="/methodology")
    assert page.url.endswith("/methodology/universal")
    assert page.inner_text("b.version") == "1"
    anti = page.locator("textarea[name='list.anti_patterns']")
    anti.fill(anti.input_value() + "\nבמאמר מוסגר")
    opening = page.locator("textarea[name='heading.opening']")
    opening.fill("פתח דבר\n" + "מילה " * 15)  # longer than any heading line
    with page.expect_navigation():
        page.click("button.save")
    error = page.locator("#err-heading-opening")
    assert error.is_visible() and "ארוכה מ-60 תווים" in error.inner_text()
    # The message sits beside its field, and what she typed is still in the form.
    field = opening.bounding_box()
    shown = error.bounding_box()
    assert abs(shown["y"] - (field["y"] + field["height"])) < 40
    assert "במאמר מוסגר" in anti.input_value()
    assert opening.input_value().startswith("פתח דבר\nמילה")
    assert opening.get_attribute("aria-invalid") == "true"
    assert problems(page.content()) == []  # Hebrew only: the English behind the details
    assert methodology.show(desk.legal, "universal")["version"] == 1
    opening.fill("פתח דבר\nמבוא")
    page.fill("input[name=reason]", "עוד ביטוי להימנע ממנו")
    with page.expect_navigation():
        page.click("button.save")
    assert "נשמרה גרסה 2" in page.inner_text("[role=status]")
    assert page.inner_text("b.version") == "2"
    assert page.locator("ol.steps > li").count() == 2
    with page.expect_navigation():
        page.click("li[data-version='2'] a.diff-link")
    assert page.locator("ins").all_inner_texts() == ["במאמר מוסגר"]
    screenshot(page, "methodology-diff")
    with page.expect_navigation():
        page.click("form.restore button")  # restore version 1, as a new version
    assert "גרסה 1 שוחזרה כגרסה חדשה, 3" in page.inner_text("[role=status]")
    restored = methodology.show(desk.legal, "universal")
    assert restored["version"] == 3 and restored["profile"] == seed["profile"]


def test_principles_queue_approve(page, desk, tmp_path, panel):
    from legal_ai.auth import CHAIR
    from legal_ai.learning.principles import canonical
    from scenarios import extracted

    script, _ = panel
    rows = extracted(desk.legal, tmp_path, script)
    pending = rows["R2"]
    canonical.edit(
        desk.legal.acting_as(CHAIR),
        rows["R1"]["canonical_id"],
        "סטייה ניכרת מתכנית אינה ניתנת לאישור כהקלה",
        "נוסח קצר",
    )
    sign_in(page, desk, next_path="/training/principles")
    assert page.evaluate("document.documentElement.dir") == "rtl"
    assert page.evaluate("getComputedStyle(document.body).direction") == "rtl"
    card = page.locator(f"#principle-{pending['id']}")
    assert pending["rule_text"] in card.inner_text() and "עמ' 3" in card.inner_text()
    card.locator("details.more summary").click()  # the quote and the panel's votes, in words
    assert "שניים משלושת מודלי הפאנל" in card.inner_text()
    assert card.locator(".term").inner_text() == "הצעת הפאנל"  # not הלכה before her word
    with page.expect_navigation():
        card.locator("button.approve").click()
    assert "נכנס לחיפוש" in page.inner_text("[role=status]")
    assert pending["rule_text"] in page.inner_text("#approved")
    hits = desk.legal.search("external", pending["rule_text"]).hits
    assert pending["id"] in {h["principle_id"] for h in hits}


def test_voice_document_claims_beside_spans_approve(page, desk, tmp_path, voice_writer):
    """A written voice document, block by block with each claim beside her marked words, and
    approved with one click (screenshot voice.png)."""
    from legal_ai.auth import CHAIR
    from legal_ai.knowledge import voice, voice_review
    from scenarios import blocks_of, claims, upload

    script, _ = voice_writer
    rec = upload(desk.legal, tmp_path, 0)
    marked = voice_review.mark(desk.legal.acting_as(CHAIR), rec["case_number"], note="מבנה לדוגמה")
    script.document = claims(blocks_of(desk.legal, rec["final_text"]))
    assert [d["id"] for d in voice.run(desk.legal)["written"]] == [marked["id"]]
    sign_in(page, desk, next_path="/training/voice")
    assert page.evaluate("document.documentElement.dir") == "rtl"
    assert page.evaluate("getComputedStyle(document.body).direction") == "rtl"
    card = page.locator(f"#voice-{marked['id']}")
    assert "פתח דבר" in card.inner_text() and "סוף דבר" in card.inner_text()
    first = card.locator("mark.span").first
    assert first.is_visible() and first.inner_text().strip() in rec["final_text"]
    screenshot(page, "voice")
    with page.expect_navigation():
        card.locator("button.approve").click()
    assert "אושר; הוא נכנס לתדריך הכותב" in page.inner_text("[role=status]")
    assert rec["case_number"] in page.inner_text("#approved")
    assert voice_review.show(desk.legal, marked["id"])["status"] == "approved"


def test_metadata_screen_refuses_an_empty_field_then_makes_the_decision_searchable(
    page, desk, tmp_path
):
    """An internal decision ingested without its headnote, summary and tags, on
    /training/metadata: right to left, Hebrew only; an empty summary answered in Hebrew beside
    its field with her headnote kept; then saved, and searchable (screenshot metadata.png)."""
    from scenarios import ENRICHED_CASE, ingest_decision

    ingest_decision(desk.legal, tmp_path)
    sign_in(page, desk, next_path="/training/metadata")
    assert page.evaluate("document.documentElement.dir") == "rtl"
    assert page.evaluate("getComputedStyle(document.body).direction") == "rtl"
    card = page.locator("article.metadata")
    assert ENRICHED_CASE in card.inner_text() and "חסרים: תקציר, סיכום, תגיות" in card.inner_text()
    assert "d-1042" not in page.inner_text("main")
    headnote = "הקלה של 6% בקווי בניין אינה סטייה ניכרת; הערר התקבל."
    card.locator("textarea[name=headnote]").fill(headnote)
    card.locator("input[name=tags]").fill("הקלה, קווי בניין")
    with page.expect_navigation():
        card.locator("button[type=submit]").click()
    assert "הסיכום ריק" in page.inner_text("[role=alert]")
    card = page.locator("article.metadata")
    assert card.locator("textarea[name=headnote]").input_value() == headnote
    assert card.locator("textarea[name=summary]").get_attribute("aria-invalid") == "true"
    screenshot(page, "metadata")  # the refusal beside the field still empty
    card.locator("textarea[name=summary]").fill("העוררים ביקשו הקלה בקווי הבניין; הערר התקבל.")
    with page.expect_navigation():
        card.locator("button[type=submit]").click()
    assert "ניתנת לחיפוש מעכשיו" in page.inner_text("[role=status]")
    assert desk.legal.search("internal", "הקלה בקווי הבניין").hits
