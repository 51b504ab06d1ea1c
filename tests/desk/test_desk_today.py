"""The chair's first page, "מה מחכה לי" (issue 23 item 1): a card per thing that needs her with
its count and its link, the same counts in the menu's badges (six items at most), /review and
/system; each count equal to what its own page's service lists; an agent's token sees nothing."""

import json
import re
from urllib.parse import quote

import pytest

from helpers import AGENT, CHAIR_TOKEN, PASSWORD, csrf_of, text_of
from legal_ai.knowledge import voice_review
from legal_ai.learning.arrival import enrichment_review, metadata
from legal_ai.learning.lessons import lessons
from legal_ai.learning.library import links as library_links
from legal_ai.learning.pairs import finals
from legal_ai.learning.principles import review as principle_review
from legal_ai.ops.tasks import reminders
from legal_ai.web.desk import menu
from scenarios import ingest, ingest_decision

pytestmark = pytest.mark.db
RULING = "פסק דין בעניין הקלה בקו בניין. סטייה ניכרת מתוכנית אינה הקלה, ולכן הערר נדחה."
SUBSTANCE = {"passages": [{"kind": "substance", "text": "קטע", "source": {"case": "ערר 1/24"}}]}
# What the world below holds: each card's count.
EXPECTED = {
    "lessons": 2,
    "escalations": 1,
    "curator": 1,
    "panel_approved": 1,
    "principles": 1,
    "principles_to_confirm": 1,
    "principles_returned": 0,  # tests/learning/test_principle_spans.py returns one
    "voice": 1,
    "enrichment": 1,
    "metadata": 1,
    "copy_substance": 1,
    "missing_precedents": 2,
    "ambiguous": 1,
    "stale": 1,
}


def _plant(conn, ruling: int) -> None:
    """What the model stages and uploads would have left (their triggers off: a fixture)."""
    conn.execute("SET LOCAL session_replication_role = replica")
    conn.execute(
        "INSERT INTO case_law_principles (source_kind, case_law_id, rule_text, supporting_quote,"
        " review_status, reviewed_by, votes, score, text_hash, analyzed, analyzer) VALUES"
        " ('external_upload', %(r)s, 'כלל', 'סטייה ניכרת', 'proposed', NULL, 2, 0.6, 'h1', 'a',"
        " 'simple'), ('external_upload', %(r)s, 'כלל אחר', 'הערר נדחה', 'approved', 'panel', 3,"
        " 1.0, 'h2', 'a', 'simple')",
        {"r": ruling},
    )
    conn.execute(
        "INSERT INTO cases (case_number, created_at) VALUES ('ערר (מרכז) 10/24', now()),"
        " ('ערר (מרכז) 11/24', now() - interval '90 days')"
    )
    draft = conn.execute(
        "INSERT INTO drafts (case_number, version, content, content_hash, blocks, copy_report)"
        " VALUES ('ערר (מרכז) 10/24', 1, 'טיוטה', 'h', '{}', %s) RETURNING id",
        (json.dumps(SUBSTANCE, ensure_ascii=False),),
    ).fetchone()["id"]
    conn.execute(
        "INSERT INTO draft_final_pairs (case_number, status, draft_id)"
        " VALUES ('ערר (מרכז) 10/24', 'draft_done', %s)",
        (draft,),
    )
    conn.execute(
        "INSERT INTO voice_documents (case_number, status, marked_by, document, claims,"
        " final_hash) VALUES ('ערר (מרכז) 10/24', 'pending_review', 'chair',"
        " '{\"blocks\": []}', 0, 'h')"
    )
    conn.execute(
        "INSERT INTO case_law_enrichments (case_law_id, doc_id, content_hash, status, headnote,"
        " summary, sentences, model, written_by) VALUES (%s, 'ruling-1', 'h', 'pending_review',"
        " 'תקציר', 'סיכום', '[]', 'm', 'system:enricher')",
        (ruling,),
    )
    conn.execute(
        "INSERT INTO authorities (ref, kind, candidates) VALUES ('עע\"מ 1/01', 'ruling', '{}'),"
        " ('עע\"מ 2/02', 'ruling', '{}'), ('ערר 1042/23', 'ruling', %s)",
        ([ruling, ruling],),
    )
    conn.execute(
        "INSERT INTO missing_precedents (authority_id) SELECT id FROM authorities"
        " WHERE ref LIKE 'עע\"מ%%'"
    )


@pytest.fixture
def world(desk_app, tmp_path):
    """Something of every kind waiting for the chair."""
    app = desk_app
    ids = [lessons.propose(app, None, "style", f"לקח {n}")["id"] for n in range(5)]
    lessons.propose(app, None, "style", "ממצא של הקורא", source="curator")
    ingest(app, tmp_path, "ruling-1", RULING)
    ingest_decision(app, tmp_path)  # without its headnote, summary and tags: awaiting them
    with app.store.transaction() as conn:
        ruling = conn.execute("SELECT id FROM case_law WHERE doc_id = 'ruling-1'").fetchone()
        _plant(conn, ruling["id"])
        conn.execute("UPDATE decision_lessons SET needs_chair = true WHERE id = %s", (ids[0],))
        conn.execute(
            "UPDATE decision_lessons SET review_status = 'approved', reviewed_by = 'panel'"
            " WHERE id = %s",
            (ids[1],),
        )
        conn.execute(
            "UPDATE decision_lessons SET review_status = 'rejected', reviewed_by = 'chair'"
            " WHERE id = %s",
            (ids[2],),
        )
    return app


def _listed(app) -> dict[str, int]:
    """Each count as the page's own service lists it."""
    proposed = lessons.list_lessons(app, "proposed")["lessons"]
    approved = lessons.list_lessons(app, "approved")["lessons"]
    pairs = finals.pairs(app)["pairs"]
    return {
        "lessons": sum(1 for r in proposed if not r["needs_chair"] and r["source"] != "curator"),
        "escalations": sum(1 for r in proposed if r["needs_chair"]),
        "curator": sum(1 for r in proposed if r["source"] == "curator" and not r["needs_chair"]),
        "panel_approved": sum(
            1 for r in approved if r["reviewed_by"] == "panel" and r["folded_into"] is None
        ),
        "principles": len(principle_review.list_principles(app, "pending_review")["principles"]),
        "principles_to_confirm": len(
            principle_review.list_principles(app, "to_confirm")["principles"]
        ),
        "principles_returned": len(principle_review.list_principles(app, "returned")["principles"]),
        "voice": len(voice_review.list_documents(app, "pending_review")["voice_documents"]),
        "enrichment": len(enrichment_review.list_enrichments(app, "pending_review")["enrichments"]),
        "metadata": metadata.to_fill(app)["count"],
        "copy_substance": sum(
            1
            for p in pairs
            if p["status"] == "draft_done" and (p["copy_summary"] or {})["passages"]["substance"]
        ),
        "missing_precedents": len(finals.missing_precedents(app)["missing_precedents"]),
        "ambiguous": len(library_links.ambiguous(app)["ambiguous"]),
        "stale": reminders(app)["count"],
    }


def _cards(page: str) -> dict[str, tuple[int, str]]:
    found = re.findall(
        r'data-card="(\w+)">\s*<a href="([^"]+)">\s*<span class="num" data-count="(\d+)"', page
    )
    return {key: (int(n), href) for key, href, n in found}


def test_today_shows_each_card_with_its_count_and_link(world, chair):
    assert menu.counts(world) == EXPECTED
    assert _listed(world) == EXPECTED  # each count is what its page's service lists
    page = chair.get("/")
    assert page.status_code == 200
    html = text_of(page.text)
    assert "<h1>מה מחכה לי</h1>" in html
    shown = _cards(html)
    assert shown == {c.key: (EXPECTED[c.key], c.href) for c in menu.CARDS}
    assert 'data-total="15"' in html
    # Every link opens its page.
    for key, (_, href) in shown.items():
        assert chair.get(href.split("#")[0]).status_code == 200, key
    # The chair's words only: no setting, no command, no id of the system's.
    visible = re.sub(r"<[^>]+>", " ", re.split(r"<main[^>]*>", html)[1])
    assert not re.search(r"LEGAL_AI_|legal-ai|[a-z]{3,}_[a-z]{3,}", visible)


def test_the_menu_has_six_items_at_most_with_their_counts(world, chair):
    html = text_of(chair.get("/").text)
    nav = html.split('<nav aria-label="ניווט ראשי">')[1].split("</nav>")[0]
    items = re.findall(r'<a href="([^"]+)"', nav)
    assert items == ["/", "/search", "/cases", "/review", "/methodology", "/system"]
    assert len(items) <= 6
    review = sum(EXPECTED[c.key] for c in menu.CARDS if c.group == "review")
    cases = sum(EXPECTED[c.key] for c in menu.CARDS if c.group == "cases")
    assert (review, cases) == (10, 5)
    assert f'<span class="count" aria-hidden="true">{review}</span>' in nav
    assert f'<span class="sr-only">, {review} ממתינים</span>' in nav
    assert f'<span class="sr-only">, {cases} ממתינים</span>' in nav
    assert 'href="/" aria-current="page"' in nav
    # A page of a group marks its menu item, and carries the same badges.
    for path, current in (
        ("/training/voice", "/review"),
        ("/audit", "/review"),
        ("/health", "/system"),
        ("/reminders", "/system"),
        ("/source/external/ruling-1", "/search"),
        ("/methodology", "/methodology"),
    ):
        shown = text_of(chair.get(path).text)
        assert f'href="{current}" aria-current="page"' in shown, path
        assert f"{cases} ממתינים" in shown, path


def test_review_and_system_pages(world, chair):
    # /review is the one queue (test_desk_review.py); what is decided on a page of its own is
    # carded there with its count.
    review = text_of(chair.get("/review").text)
    assert {k for k in _cards(review)} == {"voice", "enrichment", "metadata"}
    assert 'class="queue-list"' in review
    for href in ("/training/principles", "/audit", "/learning"):
        assert f'href="{href}"' in review
    system = text_of(chair.get("/system").text)
    assert 'href="/health"' in system and 'href="/reminders"' in system
    assert "תיק אחד לא זז זמן רב" in system
    (stale,) = reminders(world)["cases"]  # the reminders list each stale case's page
    listed = chair.get("/reminders").text
    assert f'<a href="/cases/{quote(stale["case_number"], safe="")}">' in listed
    visible = re.sub(r"<[^>]+>", " ", re.split(r"<main[^>]*>", system)[1])
    assert not re.search(r"LEGAL_AI_|legal-ai", visible)


def test_the_panel_approved_lane_vetoes(world, chair):
    page = text_of(chair.get("/training", params={"queue": "panel_approved"}).text)
    [lesson] = lessons.list_lessons(world, "approved")["lessons"]
    lesson_id = lesson["id"]
    decide = page.split('id="decide"')[1].split("</form>")[0]
    assert f'name="ref" value="lesson-{lesson_id}"' in decide
    assert 'name="expected_status" value="approved"' in decide
    assert 'value="veto"' in decide and 'value="approve"' not in decide  # only a veto applies
    token = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    done = chair.post(
        "/training/decide",
        data={
            "csrf": token,
            "queue": "panel_approved",
            "id": lesson["id"],
            "decision": "veto",
            "expected_status": "approved",
            "reason": "לא מתאים",
        },
        follow_redirects=False,
    )
    assert done.status_code == 303
    assert menu.counts(world)["panel_approved"] == 0


def test_an_empty_day_and_who_may_see_it(desk_app, client, chair):
    html = text_of(chair.get("/").text)
    assert "אין כרגע דבר שממתין לך" in html
    assert all(n == 0 for n, _ in _cards(html).values())
    assert '<span class="count"' not in html  # no badge for nothing
    client.cookies.clear()  # no session: an API token, even the chair's, opens no desk page
    for token in (AGENT, CHAIR_TOKEN):
        for path in ("/", "/review", "/system"):
            shown = client.get(path, headers={"Authorization": f"Bearer {token}"})
            assert shown.status_code == 403, (token, path)
            assert "מה מחכה לי" not in shown.text


def test_sign_in_lands_on_today(client):
    form = client.get("/login")
    assert 'name="next" value="/"' in form.text
    answer = client.post(
        "/login",
        data={"name": "chair", "password": PASSWORD, "csrf": csrf_of(form.text)},
        follow_redirects=False,
    )
    assert answer.status_code == 303 and answer.headers["location"] == "/"
    assert client.get("/").status_code == 200


def _order(page: str, section_id: str) -> list[str]:
    part = page.split(f'aria-labelledby="{section_id}"')[1].split("</section>")[0]
    return re.findall(r'data-(?:card|today)="(\w+)"', part)


def test_today_puts_first_what_matters_today(world, chair, desk_app):
    """What waits for her decision (the most pressing first), then what is overdue, then her
    finals waiting for their learning; the rest after; the cards with nothing waiting last.
    Every card once."""
    import factories
    from scenarios import analyzed_final

    records = factories.records()[:2]
    for record in records:
        analyzed_final(desk_app, record)
    with desk_app.store.transaction() as conn:  # the second's learning not yet run
        conn.execute("SET LOCAL session_replication_role = replica")
        conn.execute(
            "UPDATE draft_final_pairs SET status = 'final_received' WHERE case_number = %s",
            (records[1]["case_number"],),
        )
    page = text_of(chair.get("/").text)
    first = _order(page, "today-first")
    assert first == [
        "escalations",
        "copy_substance",
        "lessons",
        "principles_to_confirm",
        "principles",
        "curator",
        "voice",
        "enrichment",
        "stale",
        "metadata",
        "learning",
        "promote",
    ]
    counts = menu.counts(desk_app)
    rest = [c.key for c in menu.CARDS if c.key not in first and counts[c.key]]
    assert _order(page, "today-rest") == rest and {"panel_approved", "missing_precedents"} <= set(
        rest
    )
    empty = [c.key for c in menu.CARDS if not counts[c.key]]
    assert _order(page, "today-empty") == empty and "principles_returned" in empty
    assert page.index('id="today-first"') < page.index('id="today-rest"')
    assert page.index('id="today-rest"') < page.index('id="today-empty"')
    assert 'href="/cases?status=final_received"' in page
    assert 'href="/cases?status=analyzed"' in page
    listed = chair.get("/cases?status=final_received").text
    assert records[1]["case_number"] in text_of(listed)


def test_today_with_nothing_waiting_says_so(chair):
    page = text_of(chair.get("/").text)
    assert "אין כרגע דבר שממתין לך" in page
    assert 'id="today-first"' not in page and 'id="today-rest"' not in page
    assert len(_order(page, "today-empty")) == len(menu.CARDS)
