"""/training/metadata, the desk's one screen for an internal decision's headnote, summary and tags
(issue 21 item 6), through FastAPI's TestClient against the real database: a decision ingested
without them is listed (and on /health, linked here); an agent's token posts nothing; an empty or
too-long field answers in Hebrew with what she typed kept in the form and nothing saved; the
chair's form makes the decision searchable at once (app.search finds it) and the page says so.
Hebrew only on the screen: no ids, no English. /health says in Hebrew what changed outside
ingest. The same page in a real browser:
test_desk_browser.py."""

import re

import pytest

from helpers import AGENT, DECISION_FIELDS, csrf_of, section, sign_in, text_of
from legal_ai.learning.arrival import metadata
from scenarios import ENRICHED_CASE as CASE
from scenarios import ingest_decision, item

pytestmark = pytest.mark.db
PAGE = "/training/metadata"
QUERY = "הקלה בקווי הבניין פרטיות השכנים"
HEADNOTE = "הקלה של 6% בקווי בניין אינה סטייה ניכרת; הערר התקבל."
SUMMARY = "העוררים ביקשו הקלה בקווי הבניין. הוועדה קיבלה את הערר בתנאי חלונות עמומים."


def shown_text(html: str) -> str:
    """What the chair reads in the page's main part: its text, without tags, attributes and the
    form's values."""
    main = re.split(r"<main[^>]*>", html)[1].split("</main>")[0]
    main = re.sub(r"<textarea[^>]*>.*?</textarea>", " ", main, flags=re.S)
    return text_of(re.sub(r"<[^>]+>", " ", main))


def english_in(text: str) -> list[str]:
    return re.findall(r"[A-Za-z_]{2,}", text)


def test_the_chair_fills_the_three_fields_and_the_decision_is_searchable(
    chair, client, desk_app, tmp_path
):
    ingest_decision(desk_app, tmp_path)  # no headnote, summary or tags: not searchable
    assert desk_app.search("internal", QUERY).hits == []
    [waiting] = desk_app.health()["awaiting_metadata"]["items"]
    assert waiting["doc_id"] == "d-1042" and PAGE in waiting["set"]

    page = chair.get(PAGE)
    assert page.status_code == 200
    html = text_of(page.text)
    assert '<html lang="he" dir="rtl">' in html
    assert '<a href="/review" aria-current="page">לבדיקתי' in html  # her queues' menu item
    listed = section(html, "awaiting")
    assert CASE in listed and "כהן נ' הוועדה המקומית רעננה" in listed
    assert "ניתנה ב־2.11.2023" in listed and "חסרים: תקציר, סיכום, תגיות" in listed
    assert 'name="doc_id" value="d-1042"' in listed  # the id in the form, never as text
    said = shown_text(page.text)
    assert "d-1042" not in said and english_in(said) == [], english_in(said)

    # The health page lists it in Hebrew, linked here.
    health = text_of(chair.get("/health/technical").text)
    awaiting = health.split('<h2 id="metadata">')[1].split("</table>")[0]
    case_law_id = item(desk_app)["id"]
    assert f'<a href="/training/metadata#decision-{case_law_id}">{CASE}</a>' in awaiting
    assert "<td>תקציר, סיכום, תגיות</td>" in awaiting
    assert f'id="decision-{case_law_id}"' in html

    token = csrf_of(page.text)
    form = {
        "doc_id": "d-1042",
        "headnote": HEADNOTE,
        "summary": SUMMARY,
        "tags": "הקלה, קווי בניין",
    }
    # Without the CSRF token, or with an agent's token: nothing is written.
    assert chair.post(f"{PAGE}/set", data=form).status_code == 403
    client.cookies.clear()
    as_agent = client.post(
        f"{PAGE}/set", data={**form, "csrf": token}, headers={"Authorization": f"Bearer {AGENT}"}
    )
    assert as_agent.status_code == 403 and 'הדסק הוא של היו"ר' in text_of(as_agent.text)
    assert item(desk_app)["headnote"] is None

    assert sign_in(client).status_code == 303
    token = csrf_of(client.get(PAGE).text)
    done = client.post(f"{PAGE}/set", data={**form, "csrf": token}, follow_redirects=False)
    assert done.status_code == 303 and done.headers["location"] == f"{PAGE}?saved=d-1042"
    written = item(desk_app)
    assert (written["headnote"], written["summary"]) == (HEADNOTE, SUMMARY)
    assert written["tags"] == ["הקלה", "קווי בניין"] and written["searchable"]
    assert {h["doc_id"] for h in desk_app.search("internal", QUERY).hits} == {"d-1042"}
    assert desk_app.health()["awaiting_metadata"]["count"] == 0

    after = client.get(done.headers["location"])
    assert after.status_code == 200
    notice = text_of(after.text).split('class="notice saved"')[1].split("</p>")[0]
    assert f"ההחלטה {CASE}" in notice and "ניתנת לחיפוש מעכשיו" in notice
    assert "אין החלטות שממתינות לפרטים" in section(text_of(after.text), "awaiting")
    assert english_in(shown_text(after.text)) == []


def test_an_empty_or_too_long_field_keeps_what_she_typed(chair, desk_app, tmp_path):
    ingest_decision(desk_app, tmp_path)
    token = csrf_of(chair.get(PAGE).text)
    typed = {"doc_id": "d-1042", "headnote": HEADNOTE, "summary": "  ", "tags": "הקלה, פרטיות"}
    refused = chair.post(f"{PAGE}/set", data={**typed, "csrf": token})
    assert refused.status_code == 400
    html = text_of(refused.text)
    assert (
        '<div class="error" role="alert">לא נשמר דבר: הסיכום ריק; כתבי אותו ונסי שוב</div>' in html
    )
    card = section(html, "awaiting")
    assert f">{HEADNOTE}</textarea>" in card and 'value="הקלה, פרטיות"' in card
    assert 'name="summary" rows="6" cols="80" aria-invalid="true"' in card
    assert english_in(shown_text(refused.text)) == []
    assert item(desk_app)["headnote"] is None and not item(desk_app)["searchable"]

    too_long = {**typed, "summary": SUMMARY, "headnote": "א" * (metadata.MAX_HEADNOTE + 1)}
    refused = chair.post(f"{PAGE}/set", data={**too_long, "csrf": token})
    assert refused.status_code == 400
    html = text_of(refused.text)
    assert "התקציר ארוך מדי: עד 600 תווים (נשלחו 601)" in html
    assert f">{SUMMARY}</textarea>" in section(html, "awaiting")

    no_tags = chair.post(
        f"{PAGE}/set", data={**typed, "summary": SUMMARY, "tags": " , ", "csrf": token}
    )
    assert no_tags.status_code == 400 and "התגיות ריקות" in text_of(no_tags.text)
    unknown = chair.post(
        f"{PAGE}/set", data={**typed, "summary": SUMMARY, "doc_id": "nope", "csrf": token}
    )
    assert unknown.status_code == 404 and "ההחלטה לא נמצאה" in text_of(unknown.text)
    assert item(desk_app)["headnote"] is None


def test_health_says_in_hebrew_what_changed_outside_ingest(chair, desk_app, tmp_path):
    ingest_decision(desk_app, tmp_path, **DECISION_FIELDS)
    with desk_app.store.transaction() as conn:
        conn.execute(
            "UPDATE case_law_chunks SET text = replace(text, 'הקלה', 'הריסה')"
            " WHERE case_law_id = %s AND ordinal = 0",
            (item(desk_app)["id"],),
        )
    html = text_of(chair.get("/health/technical").text)
    changed = html.split('<h2 id="changed">')[1].split("</table>")[0]
    assert "פריטים שהשתנו במסד הנתונים שלא דרך הקליטה (1)" in changed
    assert "<td>החלטות ועדות</td>" in changed and 'href="/source/internal/d-1042"' in changed
    assert "<td>קטע 0 שונה</td>" in changed
    assert "legal-ai reindex" in html.split('<h2 id="changed">')[1].split("<h2")[0]
    metadata_list = html.split('<h2 id="metadata">')[1].split("</table>")[0]
    assert "(0)" in metadata_list and '<td colspan="3">אין.</td>' in metadata_list
