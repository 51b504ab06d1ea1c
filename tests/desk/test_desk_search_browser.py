"""Search as the chair uses it, in the real headless Chromium (tests/desk/conftest.py): a search
with one result per ruling and the others behind "עוד N קטעים" (opened without a script), the
ruling's source opened at its passage, its citation copied to the clipboard in the Israeli style
with its paragraph; then the bad inputs — an empty form, a 5,000-character query, reversed
dates — each answered in Hebrew beside its field with what she typed kept; the one box across
every corpus with its facets and counts, and exact identifiers first (issue 37 items 5, 11).
Screenshots: docs/desk/search.png, source.png, search-refused.png, search-all.png,
search-facet.png, search-not-found.png."""

import json

import pytest

from desk_a11y import page_problems
from desk_browser import screenshot, sign_in
from helpers import DECISION_FIELDS, write

pytestmark = pytest.mark.db

TITLE = "עע\"מ 9101/20 פלוני נ' הוועדה המקומית (בדוי)"
PARAGRAPHS = (
    "הערעור נסב על החלטה לאשר הקלה בקו בניין צדדי לתוספת בנייה בבית צמוד קרקע.",
    "הקלה היא חריגה מוגבלת מהוראות התכנית, והיא אינה עניין שבשגרה; על מוסד התכנון לבחון אם"
    " קיימת הצדקה תכנונית להקלה, ולא להסתפק ברצון המבקש להגדיל את זכויותיו.",
    "בבחינת ההקלה יש לשקול את הפגיעה בשכנים, ובכלל זה הפגיעה בפרטיות, באור ובאוויר.",
    "פרסום ההקלה לפי סעיף 149 לחוק הוא תנאי מהותי.",
    "הערעור נדחה, משום שהוועדה שקלה את מכלול השיקולים ואיזנה ביניהם כראוי.",
)
CITATION = "עע\"מ 9101/20 פלוני נ' הוועדה המקומית, פס' 2 (נבו 1.6.2021)"


def library(app, tmp_path) -> None:
    """The ruling (long enough to be found in several passages) and a levy ruling."""
    filler = " ".join(["הדיון בהקלה ובהצדקה התכנונית נמשך גם בפסקה זו"] * 5)
    body = "\n\n".join(
        f"{n}. {p}" + ("" if n == 2 else f" {filler}") for n, p in enumerate(PARAGRAPHS, 1)
    )
    rulings = (
        ("demo-ext-9101", f"# {TITLE}\n\n{body}", 'עע"מ 9101/20', TITLE, "planning"),
        (
            "demo-ext-9233",
            "1. **היטל השבחה** אינו חל על הקלה שלא מומשה.\n\n2. הערעור התקבל.",
            'בר"מ 9233/19',
            'בר"מ 9233/19 א.ב. יזמות בע"מ נ\' הוועדה המקומית (בדוי)',
            "betterment_levy",
        ),
    )
    for doc_id, text, number, title, area in rulings:
        path = tmp_path / f"{doc_id}.md"
        path.write_text(text, encoding="utf-8")
        meta = {
            "title": title,
            "case_number": number,
            "court": "בית המשפט העליון",
            "decided_on": "2021-06-01",
            "practice_area": area,
        }
        assert app.ingest([path], "external", meta=meta, doc_id=doc_id).ingested == 1


def test_search_open_a_source_and_copy_its_citation(page, desk, tmp_path):
    library(desk.legal, tmp_path)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=desk.url)
    sign_in(page, desk)
    page.goto("/search?corpus=external")
    page.fill("input[name=q]", "הצדקה תכנונית להקלה")
    page.select_option("select[name=court]", label="בית המשפט העליון")
    with page.expect_navigation():
        page.press("input[name=q]", "Enter")
    ruling = page.locator(".hit", has=page.locator("a[href*='demo-ext-9101']")).first
    assert page.locator(".hit a[href*='demo-ext-9101']").count() >= 1
    assert page.locator(".hit").count() == len(
        set(page.eval_on_selector_all(".hit h2 a", "links => links.map(a => a.pathname)"))
    )  # one result per document
    more = ruling.locator("details.more")
    if more.count():  # the ruling's other passages, opened by its summary (no script needed)
        assert not more.locator("li").first.is_visible()
        more.locator("summary").click()
        assert more.locator("li").first.is_visible()
    snippet = ruling.locator("p.snippet").first
    assert "איך נמצא" in snippet.get_attribute("title")
    assert "מקום" not in snippet.inner_text() and "#" not in snippet.inner_text()
    assert ruling.locator("button.copy").first.get_attribute("data-copy") == CITATION
    screenshot(page, "search")
    with page.expect_navigation():
        ruling.locator("h2 a").click()
    assert page.locator("mark#span").is_visible()
    assert page.inner_text("code.cite") == CITATION
    page.click("button.copy")
    page.wait_for_function("document.querySelector('button.copy').textContent === 'הועתק'")
    assert page.evaluate("navigator.clipboard.readText()") == CITATION
    screenshot(page, "source")


def test_bad_search_input_is_said_beside_its_field_and_kept(page, desk, tmp_path):
    sign_in(page, desk)
    page.goto("/search?corpus=external")
    with page.expect_navigation():  # an empty form
        page.press("input[name=q]", "Enter")
    assert "השאילתה ריקה" in page.inner_text("#msg-q")
    assert page.get_attribute("input[name=q]", "aria-invalid") == "true"
    long = "הקלה " * 1000  # 5,000 characters: searched (its meaning by its first 200)
    page.fill("input[name=q]", long)
    with page.expect_navigation():
        page.press("input[name=q]", "Enter")
    assert "התווים הראשונים שלה" in page.inner_text("[data-note=long-query]")
    assert page.input_value("input[name=q]") == long.strip()
    too_long = "a" * 20_001
    page.fill("input[name=q]", too_long)
    with page.expect_navigation():
        page.press("input[name=q]", "Enter")
    assert "השאילתה ארוכה מדי" in page.inner_text("#msg-q")
    assert page.input_value("input[name=q]") == too_long
    page.fill("input[name=q]", "הקלה בקו בניין")
    page.fill("input[name=date_from]", "1.6.2021")  # as she writes a date: day first
    page.fill("input[name=date_to]", "1.1.2020")
    with page.expect_navigation():
        page.click("form.search button[type=submit]")
    assert "תאריך ההתחלה מאוחר מתאריך הסיום" in page.inner_text("#msg-date_to")
    assert page.input_value("input[name=q]") == "הקלה בקו בניין"
    assert page.input_value("input[name=date_from]") == "1.6.2021"
    assert page.input_value("input[name=date_to]") == "1.1.2020"
    assert page.locator(".hit").count() == 0
    screenshot(page, "search-refused")


def everything(app, tmp_path) -> None:
    """The ruling above, three sections of the law (255כ names "סעיף 152" again and again) and
    a committee decision numbered 8092/24: a library every facet has something of."""
    library(app, tmp_path)
    sections = [
        ("pbl-152", "point_152", "152", "הוועדה המקומית רשאית לדחות בקשה להקלה בקו בניין."),
        ("pbl-255k", "point_255כ", "255כ", "לעניין סעיף 152 וסעיף 152 ולפי סעיף 152: הקלה."),
    ]
    lines = [
        {
            "doc_id": doc_id,
            "doc_type": "legislation",
            "title": f"חוק התכנון והבנייה, סעיף {num}",
            "law_title": 'חוק התכנון והבנייה, התשכ"ה-1965',
            "section_num": num,
            "eid": eid,
            "text": text,
        }
        for doc_id, eid, num, text in sections
    ]
    path = write(
        tmp_path / "law.jsonl", "\n".join(json.dumps(x, ensure_ascii=False) for x in lines)
    )
    assert app.ingest([path], "external").ingested == 2
    decision = write(tmp_path / "d.txt", "החלטת ועדת הערר: הקלה בקו בניין צדדי נדחתה.")
    meta = {
        "case_number": "ערר (מרכז) 8092/24",
        "title": "ערר (מרכז) 8092/24 כהן נ' הוועדה המקומית (בדוי)",
        "decided_on": "2024-06-01",
        "practice_area": "planning",
        **DECISION_FIELDS,
    }
    assert app.ingest([decision], "internal", doc_id="d-8092", meta=meta).ingested == 1


def test_one_box_its_facets_and_counts_and_exact_identifiers(page, desk, tmp_path):
    """Issue 37 items 5 and 11 as she walks them: one box (no corpus to choose first), the
    results grouped by facet with their counts, a facet opened, a case number found first, one
    not found said plainly, section 152 before 255כ; each page axe-clean."""
    everything(desk.legal, tmp_path)
    sign_in(page, desk)
    page.goto("/search")
    assert page.is_checked("input[name=corpus][value=all]")
    page.fill("input[name=q]", "הקלה בקו בניין")
    with page.expect_navigation():
        page.press("input[name=q]", "Enter")
    counts = page.locator("nav.facet-counts li")
    labels = [t.split("(")[0].strip() for t in counts.all_inner_texts()]
    assert labels[:4] == ["פסיקה", "חקיקה", "החלטות ועדות", "החלטותיי"]
    assert page.locator("section.facet").count() == len(labels)
    law = page.locator("section.facet", has=page.locator("h2#h-legislation"))
    assert law.locator("a[href*='pbl-152']").count() >= 1
    rulings = page.locator("section.facet", has=page.locator("h2#h-rulings"))
    assert rulings.locator("a[href*='pbl-']").count() == 0  # the law is not "פסיקה"
    assert "יומונים" not in page.inner_text("main") and "תקדימים" not in page.inner_text("main")
    assert page_problems(page) == []
    screenshot(page, "search-all")
    with page.expect_navigation():
        page.click("nav.facet-counts a:has-text('חקיקה')")
    assert page.is_checked("input[name=corpus][value=legislation]")
    assert page.locator(".hit a[href*='demo-ext-']").count() == 0
    assert page_problems(page) == []
    screenshot(page, "search-facet")
    page.fill("input[name=q]", "סעיף 152")
    with page.expect_navigation():
        page.press("input[name=q]", "Enter")
    first = page.locator("ol.hits > li").first
    assert "pbl-152?" in first.locator("h2 a").get_attribute("href")
    assert "התאמה מדויקת" in first.inner_text()
    page.goto("/search")
    page.fill("input[name=q]", "8092/24")
    with page.expect_navigation():
        page.press("input[name=q]", "Enter")
    exact = page.locator("section.exact li").first
    assert "d-8092" in exact.locator("a").first.get_attribute("href")
    assert "מתוך: החלטות ועדות" in exact.inner_text()
    page.fill("input[name=q]", "9999/24")
    with page.expect_navigation():
        page.press("input[name=q]", "Enter")
    said = page.locator("p.not-found").first
    assert said.inner_text() == "לא נמצאה החלטה שמספרה 9999/24" and said.is_visible()
    assert page.locator("section.exact").count() == 0
    assert page_problems(page) == []
    screenshot(page, "search-not-found")
