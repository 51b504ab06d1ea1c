"""The desk's search hits and reader beyond test_desk.py's: the reader shows the pages of a PDF's
span (and no page image it does not have), and a principle hit carries its term (הלכה, עיקרון,
כלל פרשני) in the JSON and on the page. Against the real database, through FastAPI's
TestClient (conftest.py's `chair`)."""

import html
import re

import pytest
from test_desk_hebrew import problems

from helpers import csrf_of, text_of
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


# --- Search as a lawyer expects (issue 23 item 5) ------------------------------------------------

PARAGRAPHS = (
    "רקע: העוררים מבקשים היתר לתוספת בנייה בבית צמוד קרקע, והוועדה המקומית דחתה את בקשתם.",
    "הקלה בקו בניין צדדי היא חריגה מוגבלת מהוראות התכנית, והיא אינה עניין שבשגרה; על מוסד"
    " התכנון לבחון אם יש לה הצדקה תכנונית של ממש.",
    "בבחינת ההקלה יש לשקול את הפגיעה בשכנים, ובכלל זה בפרטיות, באור ובאוויר.",
    "פרסום ההקלה לפי סעיף 149 לחוק הוא תנאי מהותי, ופגם בו עשוי להביא לביטול ההחלטה.",
    "סוף דבר: הערעור נדחה, והמערערים יישאו בהוצאות המשיבה.",
)


def numbered(paragraphs, heading: str = "") -> str:
    body = "\n\n".join(f"{n}. {p}" for n, p in enumerate(paragraphs, start=1))
    return f"{heading}\n\n{body}" if heading else body


def ruling(app, tmp_path, doc_id: str, text: str, **meta) -> None:
    path = tmp_path / f"{doc_id}.md"
    path.write_text(text, encoding="utf-8")
    fields = {
        "title": f"פסק דין {doc_id}",
        "case_number": f'עע"מ {abs(hash(doc_id)) % 9000 + 100}/20',
        "court": "בית המשפט העליון",
        "decided_on": "2021-06-01",
        "practice_area": "planning",
        **meta,
    }
    assert app.ingest([path], "external", meta=fields, doc_id=doc_id).ingested == 1


def results(page: str) -> list[dict]:
    """The page's results: each document's heading link, its passages' ranks (the best first),
    its "more" summary, the passages' texts, tooltips and citations."""
    from lxml import html as lxml_html

    def each(node, path):
        return node.xpath(path)

    out = []
    for li in each(lxml_html.fromstring(page), '//ol[@class="hits"]/li[@class="hit"]'):
        heading = each(li, "./h2/a")
        summary = each(li, './details[@class="more"]/summary')
        more = each(li, './details[@class="more"]//li')
        out.append(
            {
                "href": heading[0].get("href") if heading else None,
                "ranks": [int(n.get("id")[4:]) for n in [li, *more]],
                "more": summary[0].text_content() if summary else None,
                "snippets": [p.text_content() for p in each(li, './/p[@class="snippet"]')],
                "titles": [p.get("title") for p in each(li, './/p[@class="snippet"]')],
                "cites": [b.get("data-copy") for b in each(li, './/button[@class="copy"]')],
            }
        )
    return out


def test_one_result_per_document_its_other_passages_behind_more(chair, desk_app, tmp_path):
    long = [f"{p} " + " ".join(["הדיון בהקלה בקו בניין נמשך גם כאן"] * 6) for p in PARAGRAPHS]
    ruling(desk_app, tmp_path, "long", numbered(long * 2), case_number='עע"מ 9101/20')
    ruling(desk_app, tmp_path, "short", numbered(PARAGRAPHS[:2]), case_number='עע"מ 5/21')
    hits = desk_app.tool("search_precedent_library", query="הקלה בקו בניין", limit=50)["hits"]
    by_doc: dict[str, list[int]] = {}
    for rank, hit in enumerate(hits, start=1):
        by_doc.setdefault(hit["doc_id"], []).append(rank)
    assert len(by_doc["long"]) >= 2  # the same ruling returned more than once
    page = chair.get("/search", params={"corpus": "external", "q": "הקלה בקו בניין"})
    shown = results(page.text)
    assert [r["ranks"] for r in shown] == list(by_doc.values())  # the service's order, grouped
    long_result = next(r for r in shown if "/source/external/long" in r["href"])
    more = len(by_doc["long"]) - 1
    assert long_result["more"] == (
        "עוד קטע אחד מהמסמך הזה" if more == 1 else f"עוד {more} קטעים מהמסמך הזה"
    )
    assert '<details class="more">' in page.text  # closed: no script needed to open it
    assert "מסמכים במאגר «פסיקה וחקיקה»" in text_of(page.text) and "2 מסמכים" in text_of(page.text)
    # How each passage was found is a tooltip, not text on the page.
    assert all(t and t.startswith("איך נמצא: ") and "מקום" in t for r in shown for t in r["titles"])
    assert "נמצא:" not in "".join(s for r in shown for s in r["snippets"])
    assert "(מקום" not in re.sub(r'title="[^"]*"', "", text_of(page.text))
    # Marked, a passage behind "more" comes back with its document's passages open.
    hidden = long_result["ranks"][1]
    sid = re.search(r'name="sid" value="(\d+)"', page.text).group(1)
    marked = chair.post(
        "/search/useful",
        data={"csrf": csrf_of(page.text), "sid": sid, "rank": hidden, "useful": "1"},
    )
    assert '<details class="more" open>' in marked.text


def test_paging_keeps_the_query_and_filters_and_logs_one_search(chair, desk_app, tmp_path):
    for n in range(12):
        ruling(
            desk_app,
            tmp_path,
            f"r{n}",
            f"{n + 1}. הקלה בקו בניין במגרש מספר {n + 1} נדחתה.",
            case_number=f'עע"מ {n + 100}/20',
        )
    params = {"corpus": "external", "q": "הקלה בקו בניין", "court": "בית המשפט העליון"}
    first = chair.get("/search", params=params)
    assert len(results(first.text)) == 10
    assert "12 מסמכים" in text_of(first.text) and "עמוד 1 מתוך 2" in text_of(first.text)
    following = re.search(r'<a href="([^"]+)" rel="next">הבא</a>', first.text)
    assert following, first.text
    href = html.unescape(following.group(1))
    assert "page=2" in href and "court=" in href and "q=" in href and "sid=" in href
    second = chair.get(href)
    assert len(results(second.text)) == 2 and 'rel="prev">הקודם</a>' in second.text
    assert "עמוד 2 מתוך 2" in text_of(second.text)
    assert 'value="בית המשפט העליון" selected' in second.text  # the filter kept
    ranks = [r["ranks"][0] for r in results(first.text) + results(second.text)]
    assert ranks == sorted(ranks) and len(set(ranks)) == 12
    with desk_app.store.connection() as conn:
        assert conn.execute("SELECT count(*) AS n FROM search_log").fetchone()["n"] == 1
    # A page past the last is the last.
    assert "עמוד 2 מתוך 2" in text_of(chair.get(href.replace("page=2", "page=9")).text)
    # A mark on page 2's passage comes back to page 2, at it.
    rank = results(second.text)[0]["ranks"][0]
    marked = chair.post(
        "/search/useful",
        data={
            "csrf": csrf_of(second.text),
            "sid": re.search(r"sid=(\d+)", href).group(1),
            "rank": rank,
            "page": 2,
            "useful": "1",
        },
    )
    assert "עמוד 2 מתוך 2" in text_of(marked.text) and "✓ שימושי" in marked.text


def test_filters_by_their_hebrew_names_courts_of_the_library_and_partial_case_numbers(
    chair, desk_app, tmp_path
):
    ruling(desk_app, tmp_path, "planning", numbered(PARAGRAPHS[:2]))
    ruling(
        desk_app,
        tmp_path,
        "levy",
        numbered(["הקלה בקו בניין אינה משנה את היטל ההשבחה."]),
        practice_area="betterment_levy",
        court="בית המשפט המחוזי בתל אביב",
    )
    base = {"corpus": "external", "q": "הקלה בקו בניין"}
    # Practice area by its id or by its Hebrew name: only the planning ruling.
    for area in ("planning", "תכנון ובנייה"):
        page = chair.get("/search", params=base | {"practice_area": area})
        assert [r["href"].split("?")[0] for r in results(page.text)] == [
            "/source/external/planning"
        ], area
        assert '<option value="planning" selected>תכנון ובנייה</option>' in page.text
    # Courts are the library's, shown in Hebrew; "עליון" is the supreme court.
    page = chair.get("/search", params=base)
    assert '<option value="בית המשפט העליון">בית המשפט העליון</option>' in page.text
    assert '<option value="בית המשפט המחוזי בתל אביב">' in page.text
    supreme = chair.get("/search", params=base | {"court": "עליון"})
    assert [r["href"].split("?")[0] for r in results(supreme.text)] == ["/source/external/planning"]
    assert '<option value="בית המשפט העליון" selected>' in supreme.text
    unknown = chair.get("/search", params=base | {"court": "שלום"})
    assert 'id="msg-court"' in unknown.text and "אין בספרייה פסקי דין של ערכאה כזו" in unknown.text
    assert '<option value="שלום" selected>שלום</option>' in unknown.text  # what she typed, kept
    assert results(unknown.text) == []


def test_a_partial_case_number_finds_its_case(chair, desk_app, tmp_path):
    for number, district in (("1157/23", "מרכז"), ("2040/24", "מרכז"), ("2040/24", "חיפה")):
        path = tmp_path / f"{district}-{number.replace('/', '-')}.txt"
        path.write_text(f"כתב ערר ({district}) בעניין הקלה בקו בניין, תיק {number}.", "utf-8")
        meta = {"case_number": f"ערר ({district}) {number}", "practice_area": "planning"}
        assert desk_app.ingest([path], "case", meta=meta).ingested == 1
    base = {"corpus": "case", "q": "הקלה בקו בניין"}
    page = chair.get("/search", params=base | {"case_number": "1157/23"})
    assert len(results(page.text)) == 1
    assert 'value="ערר (מרכז) 1157/23"' in page.text.replace("&#34;", '"')
    assert "מספר התיק הושלם: ערר (מרכז) 1157/23" in text_of(page.text)
    # The completion list holds her cases.
    assert '<datalist id="case-numbers">' in page.text
    assert '<option value="ערר (חיפה) 2040/24"></option>' in page.text
    # Another spelling of the same case (a district's abbreviation) is the case.
    spelled = chair.get("/search", params=base | {"case_number": "ערר(מרכז) 1157-23"})
    assert len(results(spelled.text)) == 1
    # A number two cases share: she chooses, nothing is searched.
    two = chair.get("/search", params=base | {"case_number": "2040/24"})
    assert results(two.text) == [] and "כמה תיקים מתאימים" in two.text
    assert two.text.count('<ul class="choose">') == 1 and "ערר (חיפה) 2040/24" in two.text
    assert 'value="2040/24"' in two.text  # what she typed, kept
    # A district the case does not have: the ones it could be.
    wrong = chair.get("/search", params=base | {"case_number": "ערר (ירושלים) 1157/23"})
    assert "אין תיק בכתיב הזה" in wrong.text and "ערר (מרכז) 1157/23" in wrong.text
    none = chair.get("/search", params=base | {"case_number": "9999/99"})
    assert "אין תיק במספר הזה" in none.text and 'value="9999/99"' in none.text


def test_zero_results_suggest_how_to_widen(chair, desk_app, tmp_path):
    ruling(desk_app, tmp_path, "planning", numbered(PARAGRAPHS[:2]))
    params = {
        "corpus": "external",
        "q": "הקלה בקו בניין ערר (מרכז) 1157/23",
        "court": "בית המשפט העליון",
        "date_from": "1.1.2024",  # as she types a date: day first
        "date_to": "31.12.2024",
    }
    page = chair.get("/search", params=params)
    shown = text_of(page.text)
    assert "0 תוצאות במאגר «פסיקה וחקיקה»" in shown and "לא נמצאו תוצאות" in shown
    links = dict(
        (html.unescape(t), html.unescape(h))
        for h, t in re.findall(r'<li><a href="([^"]+)">(.*?)</a></li>', page.text)
    )
    widened = {re.sub(r"</?bdi>", "", t): h for t, h in links.items()}
    assert "בלי טווח התאריכים" in widened
    assert "date_from" not in widened["בלי טווח התאריכים"]
    assert "בלי הסינון לפי ערכאה «בית המשפט העליון»" in widened
    assert any(t.startswith("בלי המחוז: «הקלה בקו בניין ערר 1157/23»") for t in widened)
    assert any(t.startswith("אותו חיפוש במאגר «החלטות ועדות»") for t in widened)
    # Widened, the ruling is found.
    again = chair.get(widened["בלי טווח התאריכים"])
    assert len(results(again.text)) == 1


def test_snippets_without_markdown(chair, desk_app, tmp_path):
    text = (
        "# עע\"מ 4242/21 פלוני נ' הוועדה המקומית\n\n"
        "## רקע\n\n"
        "- **הקלה בקו בניין** צדדי נדחתה *בשל* הפגיעה בשכנים.\n"
        "* סעיף 149 לחוק: ראו [החוק](https://example.org/law).\n\n"
        "> ציטוט: `הקלה` אינה עניין שבשגרה.\n"
    )
    ruling(desk_app, tmp_path, "md", text, case_number='עע"מ 4242/21')
    page = chair.get("/search", params={"corpus": "external", "q": "הקלה בקו בניין"})
    [result] = results(page.text)
    snippet = result["snippets"][0]
    assert "הקלה בקו בניין צדדי נדחתה בשל הפגיעה בשכנים" in snippet
    for mark in ("#", "**", "*", "`", "](", "> ", "- "):
        assert mark not in snippet, (mark, snippet)
    assert "עע\"מ 4242/21 פלוני נ' הוועדה המקומית" in snippet and "ראו החוק" in snippet


def test_citation_in_israeli_style_with_its_paragraph_on_search_and_source(
    chair, desk_app, tmp_path
):
    text = numbered(PARAGRAPHS, heading="# עע\"מ 9101/20 פלוני נ' הוועדה המקומית (בדוי)")
    ruling(
        desk_app,
        tmp_path,
        "demo-ext-9101",
        text,
        case_number='עע"מ 9101/20',
        title="עע\"מ 9101/20 פלוני נ' הוועדה המקומית (בדוי)",
    )
    page = chair.get("/search", params={"corpus": "external", "q": "הצדקה תכנונית של ממש"})
    [result] = results(page.text)
    expected = "עע\"מ 9101/20 פלוני נ' הוועדה המקומית, פס' 2 (נבו 1.6.2021)"
    assert result["cites"][0] == expected
    assert text_of(page.text).count("9101/20") >= 1 and "T00" not in page.text
    # The source page offers the same citation for the passage it shows.
    source = chair.get(result["href"])
    assert source.status_code == 200, source.text
    assert f'<code class="cite">{expected}</code>' in text_of(source.text)
    assert f'data-copy="{expected}"' in text_of(source.text)
    assert "ציטוט הקטע המסומן" in source.text
    # Without a passage, the document's citation (no pinpoint).
    whole = chair.get("/source/external/demo-ext-9101")
    assert "עע\"מ 9101/20 פלוני נ' הוועדה המקומית (נבו 1.6.2021)" in text_of(whole.text)


def test_statute_and_committee_decision_cited_as_the_rules_write_them(chair, desk_app, tmp_path):
    """Issue 37 item 6: a section of a law is cited with its law (never `פס' 197`, never the
    law's date); a committee decision with the parties of its header and `החלטה מיום`."""
    ruling(
        desk_app,
        tmp_path,
        "pbl#point_197",
        "פגיעה על ידי תכנית\nנפגעו על ידי תכנית מקרקעין הנמצאים בתחום התכנית זכאי הנפגע לפיצויים.",
        doc_type="legislation",
        case_number=None,
        court=None,
        decided_on="1965-08-12",
        title='חוק התכנון והבניה, תשכ"ה–1965, סעיף 197 – פגיעה על ידי תכנית',
        law_title='חוק התכנון והבניה, תשכ"ה–1965',
        section_num="197",
    )
    law = results(
        chair.get("/search", params={"corpus": "external", "q": "זכאי הנפגע לפיצויים"}).text
    )
    assert law[0]["cites"][0] == 'סעיף 197 לחוק התכנון והבניה, התשכ"ה-1965'
    path = tmp_path / "int-1042.md"
    header = "העוררים: י' כהן (בדוי)\nהמשיבים: הוועדה המקומית לתכנון ובנייה מודיעין\n\n"
    path.write_text(header + numbered(PARAGRAPHS), encoding="utf-8")
    meta = {
        "case_number": "ערר (מרכז) 1042/23",
        "title": "ערר (מרכז) 1042/23 – הקלה בקו בניין",
        "decided_on": "2024-04-03",
        "practice_area": "planning",
    }
    assert desk_app.ingest([path], "internal", meta=meta, doc_id="int-1042").ingested == 1
    source = chair.get("/source/internal/int-1042")
    assert source.status_code == 200, source.text
    assert (
        "ערר (מרכז) 1042/23 י' כהן נ' הוועדה המקומית לתכנון ובנייה מודיעין (החלטה מיום 3.4.2024)"
    ) in text_of(source.text)


def test_bad_input_is_said_beside_its_field_and_kept(chair, desk_app, tmp_path):
    too_long = "a" * 20_001
    long = chair.get("/search", params={"corpus": "external", "q": too_long, "go": "1"})
    assert 'id="msg-q"' in long.text and "השאילתה ארוכה מדי" in long.text
    assert f'value="{too_long}"' in long.text and 'aria-invalid="true"' in long.text
    swapped = chair.get(
        "/search",
        params={
            "corpus": "external",
            "q": "הקלה",
            "date_from": "2021-06-01",
            "date_to": "2020-01-01",
        },
    )
    assert 'id="msg-date_to"' in swapped.text and "תאריך ההתחלה מאוחר" in swapped.text
    assert 'value="2021-06-01"' in swapped.text and 'value="2020-01-01"' in swapped.text
    empty = chair.get("/search", params={"corpus": "style", "q": "", "go": "1"})
    assert 'id="msg-q"' in empty.text and "השאילתה ריקה" in empty.text
    assert 'id="msg-practice_area"' not in empty.text  # her finals demand no practice area
    # Opening the page (or switching corpus) is no error.
    assert "field-error" not in chair.get("/search", params={"corpus": "style", "q": ""}).text
    for page in (long, swapped, empty):
        assert problems(page.text) == []
