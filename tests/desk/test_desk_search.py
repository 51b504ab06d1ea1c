"""The desk's search hits and reader beyond test_desk.py's: the reader shows the pages of a PDF's
span (and no page image it does not have), and a principle hit carries its term (הלכה, עיקרון,
כלל פרשני) in the JSON and on the page. Against the real database, through FastAPI's
TestClient (conftest.py's `chair`)."""

import pytest

from helpers import text_of
from legal_ai.auth import CHAIR

pytestmark = pytest.mark.db


def test_reader_shows_the_pages_of_a_pdf_span_and_no_invented_image(chair, desk_app, tmp_path):
    import re

    import factories

    pages = [
        "עמוד ראשון: רקע עובדתי של הערר.",
        "עמוד שני: הקלה בקו בניין צדדי נדחתה.",
        "עמוד שלישי: סוף דבר, הערר נדחה.",
    ]
    pdf = factories.hebrew_pdf(tmp_path / "ruling.pdf", pages)
    meta = {
        "title": "פסק דין בן שלושה עמודים",
        "case_number": 'עע"מ 77/19',
        "court": "בית המשפט העליון",
        "practice_area": "planning",
    }
    assert desk_app.ingest([pdf], "external", meta=meta, doc_id="pdf-1").ingested == 1
    with desk_app.store.transaction() as conn:
        item = conn.execute(
            "SELECT id, content, page_starts FROM case_law WHERE doc_id = 'pdf-1'"
        ).fetchone()
        # What the image leg stores (MULTIMODAL_ENABLED): a hash per page, never a file.
        for page in (1, 2, 3):
            conn.execute(
                "INSERT INTO case_law_page_images (source_kind, case_law_id, page,"
                " text_hash) VALUES ('external_upload', %s, %s, %s)",
                (item["id"], page, f"sha-{page}"),
            )
    starts, content = item["page_starts"], item["content"]
    assert len(starts) == 3
    start = content.index("הקלה")
    end = start + len("הקלה בקו בניין")
    page = chair.get(f"/source/external/pdf-1?start={start}&end={end}")
    assert page.status_code == 200
    assert "הקטע בעמ' 2 מתוך 3" in text_of(page.text)
    assert f"(תווים {starts[1]}–{starts[2]})" in text_of(page.text)
    assert (
        f'href="/source/external/pdf-1?start={start}&amp;end={end}&amp;page=1#page-1"' in page.text
    )
    assert (
        f'href="/source/external/pdf-1?start={start}&amp;end={end}&amp;page=3#page-3"' in page.text
    )
    assert [int(n) for n in re.findall(r'id="page-(\d+)"', page.text)] == [1, 2, 3]
    assert page.text.index('id="page-2"') < page.text.index('<mark id="span"')
    assert page.text.index('<mark id="span"') < page.text.index('id="page-3"')
    assert "לא קובץ התמונה" in page.text and "<img" not in page.text
    last = chair.get(f"/source/external/pdf-1?start={start}&end={end}&page=3")
    assert "עמ' 3 מתוך 3" in text_of(last.text) and 'rel="next"' not in last.text
    assert '<mark id="span"' in last.text  # the span stays highlighted on another page
    # A span across a page boundary: one anchor, both pages named.
    across = chair.get(f"/source/external/pdf-1?start={starts[1] - 5}&end={starts[1] + 5}")
    assert "הקטע בעמ' 1–2 מתוך 3" in text_of(across.text) and across.text.count('id="span"') == 1


def test_principle_hits_carry_their_term_in_json_and_on_the_page(chair, desk_app, tmp_path):
    path = tmp_path / "ruling.txt"
    path.write_text(
        "בית המשפט קבע כי סטייה ניכרת מתוכנית אינה יכולה להינתן כהקלה.\nהערר נדחה.",
        encoding="utf-8",
    )
    meta = {
        "title": "הלכת הסטייה הניכרת",
        "case_number": 'עע"מ 1234/05',
        "is_binding": True,
        "court": "בית המשפט העליון",
        "practice_area": "planning",
        "decided_on": "2005-03-01",
    }
    assert desk_app.ingest([path], "external", meta=meta, doc_id="ruling-b").ingested == 1
    principle = desk_app.add_principle(
        "external",
        "ruling-b",
        "סטייה ניכרת אינה הקלה",
        "סטייה ניכרת מתוכנית אינה יכולה להינתן כהקלה",
    )
    desk_app.acting_as(CHAIR).review_principle(principle, "approve")
    hits = desk_app.tool("search_precedent_library", query="סטייה ניכרת הקלה")["hits"]
    kinds = {h["kind"]: h for h in hits}
    assert kinds["principle"]["term"] == "הלכה" and kinds["chunk"]["term"] is None
    page = chair.get("/search", params={"corpus": "external", "q": "סטייה ניכרת הקלה"})
    assert page.text.count('<span class="badge term"') == 1
    assert 'המונח לפי מקור הכלל">הלכה</span>' in page.text
