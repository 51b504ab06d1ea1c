"""One search box across every corpus, with facets, and exact identifiers first (issue 37 items
5 and 11), through FastAPI's TestClient against the real database (conftest.py's `chair`).

The library: a ruling and three sections of the Planning and Building Law in the precedent
library (255כ's text names "סעיף 152" again and again), two committee decisions (8092/24 and
1042/23), one of her finals and a digest. "הכול" searches each facet on its own and shows each
under its name with its count; the law's sections are "חקיקה", never "פסיקה"; her finals need no
practice area; a digest says it is not to be cited; an identifier found is shown first as the
exact match, one found nowhere is said plainly; addresses saved before the facets still work."""

from __future__ import annotations

import re

import pytest
from test_desk_hebrew import problems

from helpers import text_of, write
from scenarios import committee_decisions, external_library

pytestmark = pytest.mark.db

SECTIONS = [
    ("pbl-152", "point_152", "152", "הקלה: הוועדה המקומית רשאית לדחות בקשה להקלה בקו בניין."),
    ("pbl-152a", "point_152א", "152א", "הוראות מעבר לעניין בקשות להקלה שהוגשו לפני התחילה."),
    (
        "pbl-255k",
        "point_255כ",
        "255כ",
        "סעיף 152 סעיף 152 לעניין סעיף 152: הסמכות לפי סעיף 152 חלה על הקלה לפי סעיף 152.",
    ),
]


@pytest.fixture
def library(desk_app, tmp_path):
    ruling = {
        "doc_id": "aam-1234",
        "title": "פסק דין בעניין הקלה בקו בניין",
        "decided_on": "2006-01-01",
        "case_number": 'עע"מ 1234/05',
        "text": "הקלה בקו בניין צדדי אינה עניין שבשגרה; נזכרו בו 8092/24 ו-9999/24.",
    }
    external_library(desk_app, tmp_path, SECTIONS, ruling)
    committee_decisions(
        desk_app,
        tmp_path,
        [("center-8092", "ערר (מרכז) 8092/24"), ("tlv-1042", "ערר 1042/23")],
        "החלטת ועדת הערר {doc_id}: הקלה בקו בניין נדחתה; הוזכר ערר 9999/24.",
        "2024-06-01",
    )
    final = write(tmp_path / "final.txt", "החלטתי: הבקשה להקלה בקו בניין נדחית.")
    meta = {"case_number": "ערר (מרכז) 7001/24", "practice_area": "betterment_levy"}
    assert desk_app.ingest([final], "style", meta=meta).ingested == 1
    digest = write(tmp_path / "digest.txt", "תקציר: הקלה בקו בניין אינה סטייה ניכרת.")
    meta = {"title": "תקציר תכנון", "points_to": 'עע"מ 1234/05'}
    assert desk_app.ingest([digest], "digests", doc_id="d-1", meta=meta).ingested == 1
    return desk_app


def _facet_counts(page: str) -> dict[str, str]:
    nav = page.split('class="facet-counts"')[1].split("</nav>")[0]
    return {
        re.sub(r"\s+", " ", text_of(label)).strip(): re.sub(r"\D", "", text_of(n)) or "—"
        for label, n in re.findall(r'<a href="[^"]+">([^<]+) <span class="n">(.*?)</span>', nav)
    }


def _section(page: str, key: str) -> str:
    return page.split(f'aria-labelledby="h-{key}"')[1].split("</section>")[0]


def test_one_box_searches_every_facet_apart_with_counts(chair, library):
    page = chair.get("/search", params={"q": "הקלה בקו בניין"})
    assert page.status_code == 200
    assert 'value="all" checked' in page.text  # no corpus asked: every facet
    counts = _facet_counts(page.text)
    assert counts == {
        "פסיקה": "1",
        "חקיקה": counts["חקיקה"],
        "החלטות ועדות": "2",
        "החלטותיי": "1",
        "מסמכי התיק": "—",
        "אסמכתאות שצירפתי לתיקים": "0",
        "תקצירי פסיקה (להפניה בלבד)": "1",
    }
    assert int(counts["חקיקה"]) >= 1
    # Each hit under the corpus it came from: the law's sections are legislation, not rulings.
    rulings, laws = _section(page.text, "rulings"), _section(page.text, "legislation")
    assert "aam-1234" in rulings and "pbl-" not in rulings
    assert "pbl-152" in laws and "aam-1234" not in laws
    assert "center-8092" in _section(page.text, "internal")
    assert "/source/style/" in _section(page.text, "style")  # her finals: no practice area asked
    digests = _section(page.text, "digests")
    assert "תקציר להפניה בלבד — אינו לציטוט" in digests and "העתקת ציטוט" not in digests
    assert "לחיפוש במסמכי תיק כתבי את מספר התיק" in _section(page.text, "case")
    assert "יומון" not in text_of(page.text) and "תקדימים מצורפים" not in text_of(page.text)
    # A facet's link is that facet's own search, with its count.
    legislation = chair.get("/search", params={"corpus": "legislation", "q": "הקלה בקו בניין"})
    assert 'value="legislation" checked' in legislation.text
    assert "aam-1234" not in legislation.text and "pbl-152" in legislation.text
    assert problems(page.text) == [] and problems(legislation.text) == []


def test_a_case_number_found_is_first_one_not_found_is_said(chair, library):
    for query in ("8092/24", "ערר 8092/24", "ערר (מרכז) 8092/24"):
        page = chair.get("/search", params={"q": query})
        exact = page.text.split('aria-labelledby="exact-h"')[1].split("</section>")[0]
        assert "/source/internal/center-8092" in exact and "מתוך: החלטות ועדות" in exact
        assert "לא נמצאה" not in page.text
        facet = chair.get("/search", params={"corpus": "internal", "q": query})
        first = facet.text.split('<ol class="hits">')[1]
        assert first.index("center-8092") < first.index("tlv-1042") if "tlv-1042" in first else 1
        assert 'class="hit exact"' in facet.text and "התאמה מדויקת" in facet.text
    missing = chair.get("/search", params={"q": "9999/24"})
    said = text_of(missing.text)
    assert "לא נמצאה החלטה שמספרה 9999/24" in said
    assert said.index("לא נמצאה החלטה שמספרה 9999/24") < said.index("בכל המאגרים")
    assert "ואינו המזהה שביקשת" in said and 'aria-labelledby="exact-h"' not in missing.text
    facet = chair.get("/search", params={"corpus": "internal", "q": "ערר 9999/24"})
    assert "לא נמצאה החלטה שמספרה ערר 9999/24 במאגר «החלטות ועדות»" in text_of(facet.text)
    assert "חיפוש בכל המאגרים" in facet.text and 'class="hit exact"' not in facet.text
    # Her own case is hers, never "not found".
    hers = chair.get("/search", params={"q": "7001/24"})
    assert "לא נמצאה" not in hers.text
    assert problems(missing.text) == [] and problems(facet.text) == []


def test_section_152_first_never_255k(chair, library):
    for query in ("סעיף 152", "סעיף 152 לחוק התכנון והבניה"):
        page = chair.get("/search", params={"corpus": "legislation", "q": query})
        hits = re.findall(
            r'href="/source/external/([^?"]+)', page.text.split('<ol class="hits">')[1]
        )
        assert hits[0] == "pbl-152", hits
        everywhere = chair.get("/search", params={"q": query})
        exact = everywhere.text.split('aria-labelledby="exact-h"')[1].split("</section>")[0]
        assert "pbl-152?" in exact and "pbl-152a" not in exact and "pbl-255k" not in exact
    page = chair.get("/search", params={"corpus": "legislation", "q": "סעיף 152א"})
    assert re.findall(r'href="/source/external/([^?"]+)', page.text)[0] == "pbl-152a"
    nothing = chair.get("/search", params={"q": "סעיף 153"})
    assert "לא נמצא סעיף 153" in text_of(nothing.text)


def test_addresses_saved_before_the_facets_still_work(chair, library):
    old_law = chair.get(
        "/search", params={"corpus": "external", "doc_type": "legislation", "q": "הקלה"}
    )
    assert 'value="legislation" checked' in old_law.text and "aam-1234" not in old_law.text
    old_rulings = chair.get(
        "/search", params={"corpus": "external", "doc_type": "ruling", "q": "הקלה"}
    )
    assert 'value="rulings" checked' in old_rulings.text and "pbl-152" not in old_rulings.text
    old = chair.get("/search", params={"corpus": "external", "q": "הקלה"})
    assert 'value="external" checked' in old.text and "aam-1234" in old.text
    assert "pbl-152" in old.text  # the library as it was: rulings and the law together
    style = chair.get("/search", params={"corpus": "style", "q": "הקלה"})
    assert "/source/style/" in style.text and "field-error" not in style.text
    long = chair.get("/search", params={"q": "a" * 20_001})  # every facet: said once, beside
    assert long.status_code == 200 and 'id="msg-q"' in long.text
    assert "השאילתה ארוכה מדי" in long.text and "facet-counts" not in long.text
