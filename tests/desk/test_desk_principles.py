"""The chair's gate for legal principles on the desk (issue 13 item 4): /training/principles lists
the principles pending her review with their term, rule, verbatim quote at its page, source, the
panel's votes and score, occurrences and corroboration; approving one makes it a search hit at
once and withdrawing it (revert) takes it out at once; canonical principles are approved,
rejected, reworded (a new version) and reverted to an earlier version. Refusals are Hebrew
messages on the page; a form without the CSRF token, an agent's token and no session change
nothing. Principles come from the three-model panel (conftest.py's `panel`, scripted servers)
over a three-page PDF (scenarios.extracted); through FastAPI's TestClient against the real
database."""

import pytest

from helpers import AGENT, csrf_of, section, text_of
from legal_ai.auth import CHAIR, agent
from legal_ai.errors import Forbidden
from legal_ai.learning.principles import canonical
from legal_ai.learning.principles import review as principle_review
from scenarios import PDF_RULING_CASE as CASE
from scenarios import Q1, Q2, R1, R2, extracted

pytestmark = pytest.mark.db
PAGE = "/training/principles"


def principle_hits(app, query: str) -> dict[int, dict]:
    """The principle hits of an external search, by principle id."""
    hits = app.search("external", query).hits
    return {h["principle_id"]: h for h in hits if h["kind"] == "principle"}


def test_queue_approve_then_revert(chair, desk_app, tmp_path, panel):
    """Approving from the page makes the principle a search hit; revert withdraws it at once."""
    script, _ = panel
    rows = extracted(desk_app, tmp_path, script)
    pending, approved = rows["R2"], rows["R1"]
    page = chair.get(PAGE)
    assert page.status_code == 200
    html = text_of(page.text)
    assert '<html lang="he" dir="rtl">' in html
    assert '<a href="/review" aria-current="page">לבדיקתי' in html  # her queues' menu item
    queue = section(html, "pending")
    # Its label (not הלכה before her word), rule, verbatim quote at its page, source, the
    # panel's votes in words (no raw score, no id), counts.
    for shown in (
        "הצעת הפאנל",
        pending["rule_text"],
        Q2,
        "עמ' 3",
        CASE,
        "שניים משלושת מודלי הפאנל הציעו אותו",
        "הופעות: 1",
        "טרם צוטט בהחלטות",
    ):
        assert shown in queue, shown
    for hidden in ("0.70", "ציון", f"עיקרון {pending['id']}"):
        assert hidden not in queue, hidden
    assert approved["rule_text"] not in queue
    listed = section(html, "approved")
    assert approved["rule_text"] in listed and "כל מודלי הפאנל" in listed and "עמ' 2" in listed
    assert 'value="revert"' in listed
    # Not searchable before her approval.
    assert pending["id"] not in principle_hits(desk_app, R2[0])
    assert approved["id"] in principle_hits(desk_app, R1[0])  # the panel approved it

    token = csrf_of(page.text)
    done = chair.post(
        f"{PAGE}/decide",
        data={
            "csrf": token,
            "id": pending["id"],
            "decision": "approve",
            "expected_status": "pending_review",
            "reason": "נכון",
        },
        follow_redirects=False,
    )
    assert done.status_code == 303
    assert done.headers["location"] == f"{PAGE}?done=approve&principle={pending['id']}"
    shown = chair.get(done.headers["location"])
    assert "העיקרון אושר; הוא נכנס לחיפוש עכשיו" in text_of(shown.text)
    assert pending["rule_text"] in section(shown.text, "approved")
    hit = principle_hits(desk_app, R2[0])[pending["id"]]
    assert hit["term"] == "הלכה" and hit["page"] == 3 and hit["supporting_quote"] == Q2

    # The page showed it pending; another tab approved it meanwhile: nothing changes.
    stale = chair.post(
        f"{PAGE}/decide",
        data={
            "csrf": token,
            "id": pending["id"],
            "decision": "reject",
            "expected_status": "pending_review",
        },
    )
    assert stale.status_code == 409
    assert "לא בוצע דבר" in stale.text and 'הפריט כבר במצב "אושר"' in text_of(stale.text)
    assert "Traceback" not in stale.text

    withdrawn = chair.post(
        f"{PAGE}/decide",
        data={
            "csrf": token,
            "id": pending["id"],
            "decision": "revert",
            "expected_status": "approved",
        },
    )
    assert withdrawn.status_code == 200  # followed to the page
    assert "נמשך מהחיפוש" in withdrawn.text
    assert pending["id"] not in principle_hits(desk_app, R2[0])
    assert pending["rule_text"] not in section(withdrawn.text, "approved")
    [row] = [r for r in principle_review.list_principles(desk_app, "vetoed")["principles"]]
    assert row["id"] == pending["id"] and row["reviewed_by"] == "chair"
    # The panel's own approval can be withdrawn too.
    chair.post(
        f"{PAGE}/decide",
        data={
            "csrf": token,
            "id": approved["id"],
            "decision": "revert",
            "expected_status": "approved",
        },
    )
    assert principle_hits(desk_app, R1[0]) == {}
    unknown = chair.post(
        f"{PAGE}/decide", data={"csrf": token, "id": approved["id"], "decision": "delete"}
    )
    assert unknown.status_code == 400 and "החלטה לא מוכרת" in unknown.text


def test_csrf_agent_and_no_session_change_nothing(chair, client, desk_app, tmp_path):
    path = tmp_path / "ruling.txt"
    path.write_text(
        "נקבע כי סטייה ניכרת מתוכנית אינה יכולה להינתן כהקלה. הערר נדחה.", encoding="utf-8"
    )
    meta = {
        "title": "פסק דין",
        "case_number": CASE,
        "court": "בית המשפט העליון",
        "is_binding": True,
        "practice_area": "planning",
    }
    assert desk_app.ingest([path], "external", meta=meta, doc_id="ruling-2").ingested == 1
    added = desk_app.add_principle(
        "external",
        "ruling-2",
        "סטייה ניכרת אינה הקלה",
        "סטייה ניכרת מתוכנית אינה יכולה להינתן כהקלה",
    )
    queue = chair.get("/training?queue=principles")  # the old address: the review queue
    assert '<a href="/review" aria-current="page">לבדיקתי' in queue.text  # her queues' menu item
    assert 'href="/training/principles"' in queue.text  # linked from the queue
    page = chair.get(PAGE)
    assert "לא הוצע בידי הפאנל" in section(page.text, "pending")
    form = {"id": added, "decision": "approve", "expected_status": "pending_review"}
    missing = chair.post(f"{PAGE}/decide", data=form)
    assert missing.status_code == 403 and "CSRF" in missing.text
    wrong = chair.post(f"{PAGE}/decide", data={**form, "csrf": "not-the-token"})
    assert wrong.status_code == 403
    # An agent's token opens no desk page, even with the session's form token.
    token = csrf_of(page.text)
    client.cookies.clear()
    as_agent = client.post(
        f"{PAGE}/decide", data={**form, "csrf": token}, headers={"Authorization": f"Bearer {AGENT}"}
    )
    assert as_agent.status_code == 403 and 'הדסק הוא של היו"ר' in text_of(as_agent.text)
    nobody = client.post(f"{PAGE}/decide", data={**form, "csrf": token}, follow_redirects=False)
    assert nobody.status_code == 303 and nobody.headers["location"].startswith("/login")
    assert client.get(PAGE, follow_redirects=False).headers["location"].startswith("/login")
    # The service refuses an agent whatever the page does.
    with pytest.raises(Forbidden):
        desk_app.acting_as(agent("writer")).review_principle(added, "approve")
    [row] = principle_review.list_principles(desk_app)["principles"]
    assert row["review_status"] == "pending_review" and row["reviewed_by"] is None
    assert principle_hits(desk_app, "סטייה ניכרת הקלה") == {}


def test_canonical_edit_versions_revert_and_approve(chair, desk_app, tmp_path, panel):
    script, _ = panel
    rows = extracted(desk_app, tmp_path, script)
    kid = rows["R1"]["canonical_id"]
    assert canonical.show(desk_app, kid)["status"] == "pending_synthesis"
    page = chair.get(PAGE)
    waiting = text_of(section(page.text, "waiting"))
    assert f'id="canonical-{kid}"' in waiting and "ממתין לסינתזה" in waiting
    assert 'action="/training/principles/canonical/edit"' in waiting
    token = csrf_of(page.text)

    # Approving a canonical still pending synthesis: refused in Hebrew, nothing changes.
    early = chair.post(
        f"{PAGE}/canonical/decide",
        data={
            "csrf": token,
            "id": kid,
            "decision": "approve",
            "expected_status": "pending_synthesis",
        },
    )
    assert early.status_code == 409 and "עדיין ממתין לסינתזה" in early.text
    assert "Traceback" not in early.text
    assert canonical.show(desk_app, kid)["status"] == "pending_synthesis"
    # Her wording without the token does nothing; an empty one is refused in Hebrew.
    assert (
        chair.post(f"{PAGE}/canonical/edit", data={"id": kid, "statement": "x"}).status_code == 403
    )
    empty = chair.post(f"{PAGE}/canonical/edit", data={"csrf": token, "id": kid, "statement": " "})
    assert empty.status_code == 400 and "נוסח העיקרון ריק" in empty.text
    assert canonical.show(desk_app, kid)["version"] == 1

    wording = "סטייה ניכרת מתכנית אינה ניתנת לאישור כהקלה"
    edited = chair.post(
        f"{PAGE}/canonical/edit",
        data={"csrf": token, "id": kid, "statement": wording, "reason": "נוסח קצר"},
        follow_redirects=False,
    )
    assert edited.status_code == 303 and edited.headers["location"].endswith("&version=2")
    shown = canonical.show(desk_app, kid)
    assert shown["statement"] == wording and shown["status"] == "pending_review"
    assert [(v["version"], v["author"]) for v in shown["versions"]][-1] == (2, "chair")
    page = chair.get(edited.headers["location"])
    assert "עיקרון קנוני: הנוסח שלך נשמר כגרסה 2" in text_of(page.text)
    card = section(page.text, "canonical")
    for part in (
        wording,
        R1[0],
        "הנוסח במקור",
        Q1,
        "עמ' 2",
        "כל מודלי הפאנל הציעו אותו",
        'data-version="2"',
        'data-version="1"',
        '<option value="1">גרסה 1 (הנוסח המקורי)</option>',
    ):
        assert part in text_of(card), part

    # A second wording (version 3), then back to version 1 (the source wording) as version 4.
    chair.post(
        f"{PAGE}/canonical/edit",
        data={"csrf": token, "id": kid, "statement": wording + " בשום מקרה"},
    )
    assert canonical.show(desk_app, kid)["version"] == 3
    bad = chair.post(f"{PAGE}/canonical/revert", data={"csrf": token, "id": kid, "version": 9})
    assert bad.status_code == 400 and "אין גרסה קודמת 9" in text_of(bad.text)
    current = chair.post(f"{PAGE}/canonical/revert", data={"csrf": token, "id": kid, "version": 3})
    assert current.status_code == 400 and canonical.show(desk_app, kid)["version"] == 3
    back = chair.post(
        f"{PAGE}/canonical/revert",
        data={"csrf": token, "id": kid, "version": 1},
        follow_redirects=False,
    )
    assert back.status_code == 303
    assert back.headers["location"].endswith("&restored=1&version=4")
    reverted = canonical.show(desk_app, kid)
    assert reverted["version"] == 4 and reverted["statement"] == R1[0]
    assert "גרסה 1 שוחזרה כגרסה חדשה, 4" in text_of(chair.get(back.headers["location"]).text)

    approved = chair.post(
        f"{PAGE}/canonical/decide",
        data={
            "csrf": token,
            "id": kid,
            "decision": "approve",
            "expected_status": "pending_review",
            "reason": "הנוסח המקורי מדויק",
        },
        follow_redirects=False,
    )
    assert approved.status_code == 303
    final = canonical.show(desk_app, kid)
    assert final["status"] == "approved" and final["reviewed_by"] == "chair"
    after = chair.get(approved.headers["location"])
    assert "עיקרון קנוני: הנוסח אושר" in text_of(after.text)
    assert f'id="canonical-{kid}"' not in after.text  # no longer awaiting her
    again = chair.post(
        f"{PAGE}/canonical/decide",
        data={"csrf": token, "id": kid, "decision": "reject", "expected_status": "pending_review"},
    )
    assert again.status_code == 409 and 'כבר במצב "אושר"' in text_of(again.text)
    assert canonical.show(desk_app, kid)["status"] == "approved"
    # The services refuse an agent.
    with pytest.raises(Forbidden):
        canonical.edit(desk_app.acting_as(agent("writer")), kid, "נוסח של סוכן")
    assert canonical.show(desk_app.acting_as(CHAIR), kid)["version"] == 4


def test_bulk_by_words_confirms_each_as_hers_and_refuses_an_agent(
    chair, client, desk_app, tmp_path, panel
):
    """Issue 37 item 10: she filters the panel's approvals by words and confirms the ticked
    ones in one action, each audited as hers; until then search calls them "הצעת הפאנל" with
    `unconfirmed`, never הלכה; an agent's token (HTTP, the desk and the API) changes nothing."""
    script, _ = panel
    rows = extracted(desk_app, tmp_path, script)
    approved = rows["R1"]
    # Before her word: search does not call it הלכה.
    hit = principle_hits(desk_app, R1[0])[approved["id"]]
    assert hit["term"] == "הצעת הפאנל" and hit["unconfirmed"] is True
    assert hit["term_once_confirmed"] == "הלכה"
    [listed] = principle_review.list_principles(desk_app, "to_confirm")["principles"]
    assert listed["term"] == "הצעת הפאנל" and listed["unconfirmed"] is True

    # Filtered by words: what matches is listed ticked; what does not is not listed.
    words = R1[0].split()[1]
    page = chair.get(PAGE, params={"q": words})
    confirm = section(page.text, "to_confirm")
    assert approved["rule_text"] in text_of(confirm)
    assert f'value="{approved["id"]}" form="bulk-confirm"' in confirm and " checked" in confirm
    none = chair.get(PAGE, params={"q": "מילה-שאינה-בשום-עיקרון"})
    assert "אין אישורי פאנל שמתאימים לסינון" in text_of(section(none.text, "to_confirm"))

    token = csrf_of(page.text)
    form = {"csrf": token, "decision": "confirm", "ids": [str(approved["id"])], "q": words}
    # Nothing ticked: asked again in Hebrew, nothing done.
    empty = chair.post(f"{PAGE}/bulk", data={"csrf": token, "decision": "confirm", "q": words})
    assert empty.status_code == 400 and "לא סומן אף עיקרון" in text_of(empty.text)
    done = chair.post(f"{PAGE}/bulk", data=form, follow_redirects=False)
    assert done.status_code == 303
    shown = chair.get(done.headers["location"])
    assert "אישרת את אישור הפאנל של עיקרון אחד" in text_of(shown.text)
    assert principle_review.list_principles(desk_app, "to_confirm")["principles"] == []
    hit = principle_hits(desk_app, R1[0])[approved["id"]]
    assert hit["term"] == "הלכה" and hit["unconfirmed"] is False
    audit = desk_app.store.connection()
    with audit as conn:
        actors = [
            r["actor"]
            for r in conn.execute(
                "SELECT actor FROM learning_audit WHERE principle_id = %s ORDER BY id",
                (approved["id"],),
            ).fetchall()
        ]
    assert actors[-1] == CHAIR.actor  # her confirmation, the last word on it
    # Rejecting it now, as the page showed it pending: it is not, so it is skipped and said.
    stale = {**form, "decision": "reject"}
    again = chair.post(f"{PAGE}/bulk", data=stale, follow_redirects=False)
    assert "n=0&skipped=1" in again.headers["location"]
    said_again = text_of(chair.get(again.headers["location"]).text)
    assert "1 לא שונו, כי הוכרעו בינתיים" in said_again
    # An agent (the chair's session gone): refused on the desk (its token opens no page) and
    # on the API; nothing changes.
    client.cookies.clear()
    as_agent = client.post(
        f"{PAGE}/bulk",
        data={**form, "decision": "approve", "ids": [str(rows["R2"]["id"])]},
        headers={"Authorization": f"Bearer {AGENT}"},
    )
    assert as_agent.status_code == 403
    api = client.post(
        "/api/principles/review-bulk",
        json={"ids": [rows["R2"]["id"]], "decision": "approve"},
        headers={"Authorization": f"Bearer {AGENT}"},
    )
    assert api.status_code == 403
    with pytest.raises(Forbidden):
        principle_review.bulk_review(
            desk_app.acting_as(agent("writer")), [rows["R2"]["id"]], "approve"
        )
    [still] = principle_review.list_principles(desk_app, "pending_review")["principles"]
    assert still["id"] == rows["R2"]["id"] and still["reviewed_by"] is None
