"""The corpus view on the desk (issue 37 item 16): /system/corpus says what the library holds by
kind — rulings, statutes (as laws and their sections), committee decisions, her signed finals,
digests — each with its count and its count by year, latest first, the undated last; linked from
/system; Hebrew only (test_desk_hebrew's check). In Chromium at 1280 wide and on a phone: no
sideways scroll, axe and tests/desk_a11y.py's checks clean. Through the real database."""

import re

import pytest
from test_desk_hebrew import problems

from desk_a11y import page_problems
from desk_browser import screenshot, sign_in
from helpers import section, text_of, write
from scenarios import committee_decisions, digest, external_library

pytestmark = pytest.mark.db
PAGE = "/system/corpus"
PHONE = {"width": 390, "height": 844}
SECTIONS = [(f"pbl-{n}", f"sec_{n}", str(n), f"סעיף {n} של חוק התכנון והבנייה.") for n in (1, 2, 3)]


def library(app, tmp_path) -> None:
    """Three sections of one law, three rulings (2005, and two of 2019 without their court: not
    searchable yet), two committee decisions of 2024, a final of hers of 2023 and a digest
    without a date."""
    ruling = {
        "doc_id": "ruling-2005",
        "case_number": 'עע"מ 1234/05',
        "title": "פסק דין",
        "decided_on": "2005-03-01",
        "text": "נקבע כי הקלה בקו בניין מחייבת הצדקה תכנונית.",
    }
    external_library(app, tmp_path, SECTIONS, ruling)
    for k in (1, 2):
        path = write(tmp_path / f"r19-{k}.txt", f"פסק דין {k} משנת 2019 בעניין שימוש חורג.")
        meta = {"title": "פסק דין", "case_number": f'עע"מ {k}/19', "decided_on": f"2019-06-0{k}"}
        assert app.ingest([path], "external", doc_id=f"r19-{k}", meta=meta).ingested == 1
    committee_decisions(
        app,
        tmp_path,
        [("d1", "ערר (מרכז) 1001/24"), ("d2", "ערר (מרכז) 1002/24")],
        "החלטה {doc_id}: הערר נדחה.",
        "2024-02-01",
    )
    final = write(tmp_path / "final.txt", "ההחלטה החתומה: הערר מתקבל בחלקו.")
    meta = {
        "case_number": "ערר (מרכז) 1042/23",
        "practice_area": "planning",
        "decided_on": "2023-05-01",
    }
    assert app.ingest([final], "style", doc_id="final-1", meta=meta).ingested == 1
    digest(app, tmp_path, "digest-1", 'עע"מ 1234/05')


def test_the_library_by_kind_and_year(chair, desk_app, tmp_path):
    empty = chair.get(PAGE)
    assert empty.status_code == 200 and "הספרייה עוד ריקה" in text_of(empty.text)
    library(desk_app, tmp_path)
    system = chair.get("/system")
    assert f'href="{PAGE}"' in system.text and "מה יש בספרייה" in text_of(system.text)
    page = chair.get(PAGE)
    assert page.status_code == 200
    html = text_of(page.text)
    assert '<html lang="he" dir="rtl">' in html
    assert problems(page.text) == []
    assert "בספרייה 10 פריטים." in html
    # In her order: rulings, statutes, committee decisions, her finals, digests.
    kinds = re.findall(r'<section id="kind-(\w+)"', html)
    assert kinds == ["ruling", "legislation", "decision", "final", "digest"]
    rulings = section(html, "kind-ruling")
    assert "<h2" in rulings and "פסקי דין" in rulings and '<p class="count">3 פסקי דין' in rulings
    # The two without their court are not searched yet: said beside the count.
    assert "2 מהם עוד אינם בחיפוש" in rulings
    years = re.findall(r'<th scope="row">([^<]+)</th><td>([^<]+)</td>', rulings)
    assert years == [("2019", "2 פסקי דין"), ("2005", "פסק דין אחד")]  # latest first
    laws = section(html, "kind-legislation")
    assert "חוק אחד (3 סעיפים)" in laws and "ללא תאריך" in laws
    decisions = section(html, "kind-decision")
    assert re.findall(r'<th scope="row">([^<]+)</th><td>([^<]+)</td>', decisions) == [
        ("2024", "2 החלטות")
    ]
    assert "ההחלטות החתומות שלי" in section(html, "kind-final")
    assert "2023" in section(html, "kind-final")
    digests = section(html, "kind-digest")
    assert "תקציר אחד" in digests and "ללא תאריך" in digests
    assert '<a href="/system" aria-current="page">' in html  # under the menu's "מערכת"


def test_on_a_laptop_and_a_phone(page, desk, tmp_path, chromium):
    library(desk.legal, tmp_path)
    sign_in(page, desk, next_path=PAGE)
    assert page.locator("h1").inner_text() == "מה יש בספרייה"
    assert page.locator("section.holding").count() == 5
    assert page_problems(page) == []
    screenshot(page, "corpus")
    phone = chromium.new_context(base_url=desk.url, locale="he-IL", viewport=PHONE)
    try:
        small = phone.new_page()
        small.context.add_cookies(page.context.cookies())
        small.goto(PAGE)
        assert small.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        assert page_problems(small) == []
    finally:
        phone.close()
