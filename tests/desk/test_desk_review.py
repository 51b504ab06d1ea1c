"""The chair's one review queue, /review (issue 23 item 2), against the real database through
FastAPI's TestClient: every lane and source in one list, its filters (lane, kind, source, case)
and its order (the panel's confidence), the evidence beside the item, only the decisions that
apply, each decision (approve and on to the next, reject with a reason, veto with a reason, edit
then approve audited as hers, confirm a principle), undo after one decision and after a bulk
action (whose confirmation lists the lessons by their text and takes a reason), a decision
another tab made first (answered in Hebrew beside the item, what she typed kept), the old
/training addresses, the cards' and the menu's links, and Hebrew only."""

from __future__ import annotations

import re

import pytest
from test_desk_hebrew import problems

import review_world
from helpers import csrf_of, text_of
from legal_ai.auth import CHAIR
from legal_ai.learning.lessons import lessons
from legal_ai.learning.principles import review as principle_review
from legal_ai.web.desk import menu

pytestmark = pytest.mark.db
T = review_world.TEXTS


@pytest.fixture
def world(desk_app, tmp_path):
    return review_world.build(desk_app, tmp_path)


def order_of(page: str) -> list[str]:
    """The items' texts in the list's order."""
    listed = page.split('class="queue-list"')[1]
    return [
        name
        for href, text in re.findall(r'<li[^>]*>.*?<a href="([^"]+)">([^<]+)</a>', listed, re.S)
        for name, value in T.items()
        if value == text.strip()
    ]


def current_text(page: str) -> str:
    return text_of(page.split('id="current"')[1].split('class="lesson">')[1].split("<")[0])


def status_of(app, lesson_id: int) -> str:
    with app.store.connection() as conn:
        return conn.execute(
            "SELECT review_status FROM decision_lessons WHERE id = %s", (lesson_id,)
        ).fetchone()["review_status"]


def post(client, path: str, **data):
    token = csrf_of(client.get("/review").text)
    return client.post(path, data={"csrf": token, **data}, follow_redirects=False)


def test_one_queue_sorted_by_the_panels_confidence(world, chair):
    page = text_of(chair.get("/review").text)
    assert order_of(page) == [
        "to_confirm",  # 3 of 3, score 1.0
        "approved",  # 2 of 2
        "pending",  # 2 of 3
        "split",  # 1 of 2
        "plain",  # no vote: after those the panel voted on, by arrival
        "curator",
        "substance",
    ]
    assert current_text(page) == T["to_confirm"]  # the first is the current item
    assert "הפאנל: 3 מתוך 3 בעד · ציון 1.00" in page
    assert "הפאנל: 1 מתוך 2 בעד" in page and "הפאנל לא הצביע" in page
    doubtful = text_of(chair.get("/review", params={"order": "doubtful"}).text)
    assert order_of(doubtful) == [
        "split",
        "pending",
        "approved",
        "to_confirm",
        "plain",
        "curator",
        "substance",
    ]


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"lane": "panel_approved"}, ["approved"]),
        ({"lane": "escalations"}, ["split"]),
        ({"lane": "curator"}, ["curator"]),
        ({"lane": "proposed"}, ["plain", "substance"]),
        ({"lane": "principles"}, ["pending"]),
        ({"lane": "to_confirm"}, ["to_confirm"]),
        ({"kind": "substance"}, ["substance"]),
        ({"kind": "principle"}, ["to_confirm", "pending"]),
        ({"kind": "style"}, ["approved", "split", "plain", "curator"]),
        ({"source": "curator"}, ["curator"]),
        ({"source": "external"}, ["to_confirm", "pending"]),
        ({"case": review_world.CASE_A}, ["approved", "split"]),
        ({"case": review_world.CASE_B, "source": "distillation"}, ["plain"]),
        ({"lane": "nonsense", "kind": "curator"}, list(T)),  # unknown values are dropped
    ],
)
def test_filters(world, chair, params, expected):
    page = text_of(chair.get("/review", params=params).text)
    assert sorted(order_of(page)) == sorted(expected)
    if set(expected) != set(T):
        assert f"(מתוך {len(T)})" in page


def test_filter_selects_show_hebrew_and_send_ids(world, chair):
    page = chair.get("/review", params={"lane": "curator"}).text
    assert '<option value="curator" selected>הערות כתיבה מקריאת ההחלטות (1)</option>' in page
    assert '<option value="panel_approved">אושר על ידי הפאנל — לעיון (1)</option>' in page
    assert '<option value="principle">עיקרון משפטי (2)</option>' in page
    assert '<option value="distillation">השוואת הטיוטה להחלטה (4)</option>' in page
    assert '<option value="external">פסיקה וחקיקה (2)</option>' in page
    assert f'<option value="{review_world.CASE_A}">{review_world.CASE_A} (2)</option>' in (
        text_of(page)
    )
    # Every form keeps the filter: the next page after a decision is the same lane.
    assert page.count('<input type="hidden" name="lane" value="curator">') >= 3
    empty = text_of(chair.get("/review", params={"case": "ערר (מרכז) 99/99"}).text)
    assert "אין פריטים שמתאימים לסינון הזה" in empty


def test_evidence_beside_the_item_and_only_the_buttons_that_apply(world, chair):
    split = chair.get("/review", params={"item": f"lesson-{world['split']}"}).text
    side = split.split('class="evidence-side"')[1].split("</section>")[0]
    assert "הטיוטה שלנו" in side and "ההחלטה שלך" in side and "פרק דיון" in text_of(side)
    assert "<del>הוועדה</del>" in side and "<ins>אני</ins>" in side
    decide = split.split('id="decide"')[1].split("</form>")[0]
    assert 'value="approve"' in decide and 'value="reject"' in decide
    assert 'value="veto"' not in decide  # no veto on a proposed lesson
    assert 'data-code="KeyA"' in decide and 'data-code="KeyR"' in decide
    assert 'data-code="KeyE"' in split and "טבעי" not in split  # the edit; no vote reasons
    approved = chair.get("/review", params={"item": f"lesson-{world['approved']}"}).text
    decide = approved.split('id="decide"')[1].split("</form>")[0]
    assert 'value="veto"' in decide and 'data-reason="required"' in decide
    assert 'value="approve"' not in decide and 'value="reject"' not in decide
    assert 'data-code="KeyE"' not in approved  # a decided lesson's text is frozen
    assert "נימוק (חובה)" in text_of(decide)
    principle = chair.get("/review", params={"item": f"principle-{world['to_confirm']}"}).text
    decide = principle.split('id="decide"')[1].split("</form>")[0]
    assert 'value="confirm"' in decide and 'value="revert"' in decide
    assert 'value="approve"' not in decide
    assert "/source/external/ruling-1?start=0&amp;end=9#span" in principle
    curator = text_of(chair.get("/review", params={"item": f"lesson-{world['curator']}"}).text)
    assert "ההערה נכתבה מקריאת ההחלטות שלך" in curator


def test_approve_goes_on_to_the_next_and_undoes(world, chair, desk_app):
    page = chair.get("/review", params={"lane": "proposed"}).text
    assert current_text(page) == T["plain"]
    done = post(
        chair,
        "/review/decide",
        lane="proposed",
        ref=f"lesson-{world['plain']}",
        expected_status="proposed",
        next=f"lesson-{world['substance']}",
        decision="approve",
    )
    assert done.status_code == 303
    assert done.headers["location"].startswith("/review?lane=proposed&item=lesson-")
    after = text_of(chair.get(done.headers["location"]).text)
    assert current_text(after) == T["substance"]  # the next one
    assert f'הלקח "{T["plain"]}": אושר' in after and "ביטול ההחלטה האחרונה" in after
    assert status_of(desk_app, world["plain"]) == "approved"
    token = csrf_of(after)
    undo = chair.post(
        "/review/undo",
        data={
            "csrf": token,
            "lane": "proposed",
            "refs": f"lesson-{world['plain']}",
            "status": "approved",
        },
        follow_redirects=False,
    )
    assert undo.status_code == 303
    back = text_of(chair.get(undo.headers["location"]).text)
    assert "ההחלטה בוטלה; הפריט חזר להכרעתך" in back and current_text(back) == T["plain"]
    assert status_of(desk_app, world["plain"]) == "proposed"


def test_reject_and_veto_carry_her_reason(world, chair, desk_app):
    rejected = post(
        chair,
        "/review/decide",
        ref=f"lesson-{world['curator']}",
        expected_status="proposed",
        decision="reject",
        reason="לא מתאים לסגנון שלי",
    )
    assert rejected.status_code == 303
    (row,) = lessons.list_lessons(desk_app, "rejected")["lessons"]
    assert row["review_reason"] == "לא מתאים לסגנון שלי" and row["reviewed_by"] == "chair"
    # A veto without a reason: refused beside the field, nothing done.
    ref = f"lesson-{world['approved']}"
    bare = post(chair, "/review/decide", ref=ref, expected_status="approved", decision="veto")
    assert bare.status_code == 400
    said = text_of(bare.text)
    assert 'id="reason-error"' in said and "כתבי נימוק" in said
    assert current_text(bare.text) == T["approved"] and status_of(desk_app, world["approved"]) == (
        "approved"
    )
    vetoed = post(
        chair,
        "/review/decide",
        ref=ref,
        expected_status="approved",
        decision="veto",
        reason="הניסוח מליצי מדי",
    )
    assert vetoed.status_code == 303
    assert status_of(desk_app, world["approved"]) == "vetoed"
    assert menu.counts(desk_app)["panel_approved"] == 0
    after = text_of(chair.get(vetoed.headers["location"]).text)
    assert "נפסל (וטו)" in after and "אישור הפאנל אינו חוזר מעצמו" in after
    # Approving what the panel approved is not a decision of this queue.
    forged = post(
        chair,
        "/review/decide",
        ref=f"lesson-{world['split']}",
        expected_status="approved",
        decision="approve",
    )
    assert forged.status_code == 400 and "אינה אפשרית בפריט הזה" in text_of(forged.text)


def test_principles_confirm_and_approve(world, chair, desk_app):
    confirmed = post(
        chair,
        "/review/decide",
        ref=f"principle-{world['to_confirm']}",
        expected_status="approved",
        decision="confirm",
    )
    assert confirmed.status_code == 303
    after = text_of(chair.get(confirmed.headers["location"]).text)
    assert "אישרת את אישור הפאנל" in after and 'action="/review/undo"' not in after
    assert principle_review.list_principles(desk_app, "to_confirm")["principles"] == []
    approved = post(
        chair,
        "/review/decide",
        ref=f"principle-{world['pending']}",
        expected_status="pending_review",
        decision="approve",
    )
    assert approved.status_code == 303
    (row,) = [
        p
        for p in principle_review.list_principles(desk_app, "approved")["principles"]
        if p["id"] == world["pending"]
    ]
    assert row["reviewed_by"] == "chair"


def test_edit_then_approve_is_audited_as_hers(world, chair, desk_app):
    ref = f"lesson-{world['plain']}"
    empty = post(chair, "/review/edit", ref=ref, text="  ", then="approve")
    assert empty.status_code == 400 and 'id="text-error"' in empty.text
    assert '<details class="edit" open>' in empty.text
    done = post(
        chair,
        "/review/edit",
        ref=ref,
        text="פסקת סיכום קצרה בסוף הדיון",
        category="structure",
        then="approve",
        next=f"lesson-{world['substance']}",
    )
    assert done.status_code == 303 and "done=approve" in done.headers["location"]
    (row,) = [
        r
        for r in lessons.list_lessons(desk_app, "approved")["lessons"]
        if r["id"] == world["plain"]
    ]
    assert row["text"] == "פסקת סיכום קצרה בסוף הדיון" and row["reviewed_by"] == "chair"
    with desk_app.store.connection() as conn:
        audit = conn.execute(
            "SELECT actor, details FROM learning_audit WHERE lesson_id = %s"
            " AND action = 'edit_lesson'",
            (world["plain"],),
        ).fetchall()
    assert [a["actor"] for a in audit] == ["chair"]
    assert audit[0]["details"]["before"]["text"] == T["plain"]
    saved = post(chair, "/review/edit", ref=f"lesson-{world['curator']}", text="כותרת", then="save")
    assert saved.status_code == 303 and "edited=1" in saved.headers["location"]
    assert status_of(desk_app, world["curator"]) == "proposed"


def test_bulk_lists_by_text_takes_a_reason_and_undoes(world, chair, desk_app):
    refs = [f"lesson-{world[n]}" for n in ("plain", "curator", "approved")]
    ask = post(chair, "/review/bulk", decision="approve", refs=refs)
    assert ask.status_code == 200
    said = text_of(ask.text)
    assert "אישור של 2 לקחים?" in said
    confirm = said.split('class="confirm-items"')[1].split("</ol>")[0]
    assert T["plain"] in confirm and T["curator"] in confirm and T["approved"] not in confirm
    assert T["approved"] in said.split('class="confirm-skipped"')[1]  # not approvable: listed
    assert 'name="reason"' in said and status_of(desk_app, world["plain"]) == "proposed"
    done = post(
        chair,
        "/review/bulk",
        decision="approve",
        confirm="yes",
        refs=refs[:2],
        reason="שניהם נכונים",
    )
    assert done.status_code == 303
    rows = lessons.list_lessons(desk_app, "approved")["lessons"]
    decided = {r["id"]: r["review_reason"] for r in rows if r["reviewed_by"] == "chair"}
    assert decided == {world["plain"]: "שניהם נכונים", world["curator"]: "שניהם נכונים"}
    after = chair.get(done.headers["location"]).text
    assert "אושרו 2 לקחים" in text_of(after) and "(2 לקחים)" in text_of(after)
    undo_form = after.split('action="/review/undo"')[1].split("</form>")[0]
    sent = dict(re.findall(r'name="(csrf|status)" value="([^"]+)"', undo_form))
    sent["refs"] = re.findall(r'name="refs" value="([^"]+)"', undo_form)
    assert sorted(sent["refs"]) == sorted(refs[:2]) and sent["status"] == "approved"
    undone = chair.post("/review/undo", data=sent, follow_redirects=False)
    assert undone.status_code == 303
    assert "2 פריטים חזרו להכרעתך" in text_of(chair.get(undone.headers["location"]).text)
    assert (
        status_of(desk_app, world["plain"]) == status_of(desk_app, world["curator"]) == ("proposed")
    )
    # A bulk veto needs its reason, asked beside the field, with the list kept.
    veto = post(
        chair,
        "/review/bulk",
        decision="veto",
        confirm="yes",
        refs=[f"lesson-{world['approved']}"],
    )
    assert veto.status_code == 400 and 'id="reason-error"' in veto.text
    assert T["approved"] in text_of(veto.text) and status_of(desk_app, world["approved"]) == (
        "approved"
    )
    nothing = post(chair, "/review/bulk", decision="approve")
    assert nothing.status_code == 400 and "לא סומן אף לקח" in text_of(nothing.text)


def test_a_stale_decision_from_a_second_tab(world, chair, desk_app):
    """Another tab (or the panel) decided the item first: nothing changes, the page says so
    beside the item in Hebrew, and what she typed is kept."""
    ref = f"lesson-{world['plain']}"
    lessons.review(desk_app.acting_as(CHAIR), world["plain"], "approve")  # the other tab
    stale = post(
        chair,
        "/review/decide",
        ref=ref,
        expected_status="proposed",
        decision="reject",
        reason="ארוך מדי",
    )
    assert stale.status_code == 409
    said = text_of(stale.text)
    box = said.split('id="stale"')[1].split("</div>")[0]
    assert f'הלקח "{T["plain"]}" כבר הוכרע בינתיים בידי היו"ר' in box
    assert 'עכשיו "אושר". לא בוצע דבר, ומה שכתבת נשמר כאן.' in box
    assert "ארוך מדי</textarea>" in box  # her reason, kept
    assert "פתיחה מחדש להכרעתך" in box and 'name="reason" value="ארוך מדי"' in box
    assert status_of(desk_app, world["plain"]) == "approved"
    # She reopens it from there: back in her queue, her reason back in its field.
    form = stale.text.split('id="stale"')[1].split("</form>")[0]
    sent = dict(re.findall(r'name="(\w+)" value="([^"]*)"', form))
    reopened = chair.post("/review/undo", data=sent, follow_redirects=False)
    assert reopened.status_code == 303
    back = chair.get(reopened.headers["location"]).text
    assert current_text(back) == T["plain"] and 'value="ארוך מדי"' in back
    # An edit from a stale tab: her text kept beside the item.
    lessons.review(desk_app.acting_as(CHAIR), world["curator"], "reject")
    edited = post(
        chair, "/review/edit", ref=f"lesson-{world['curator']}", text="נוסח חדש שלי", then="save"
    )
    assert edited.status_code == 409 and "נוסח חדש שלי</textarea>" in text_of(edited.text)
    # The panel approved it meanwhile: it is still hers to look over, in another lane.
    moved = post(
        chair,
        "/review/decide",
        ref=f"lesson-{world['approved']}",
        expected_status="proposed",
        decision="approve",
    )
    assert moved.status_code == 409
    assert "לפריט, במסלולו עכשיו: אושר על ידי הפאנל — לעיון" in text_of(moved.text)
    # Undo twice (the second tab's undo): refused in Hebrew.
    lessons.review(desk_app.acting_as(CHAIR), world["plain"], "approve")
    once = post(chair, "/review/undo", refs=ref, status="approved")
    again = post(chair, "/review/undo", refs=ref, status="approved")
    assert once.status_code == 303 and again.status_code == 409
    assert "לא בוטל דבר" in text_of(again.text)


def test_old_addresses_and_links_lead_into_the_queue(world, chair, desk_app):
    for old, new in (
        ("/training", "/review"),
        ("/training?queue=curator", "/review?lane=curator"),
        ("/training?queue=panel_approved", "/review?lane=panel_approved"),
        ("/training?queue=principles&item=7", "/review?lane=principles&item=principle-7"),
        ("/training?queue=proposed&item=3", "/review?lane=proposed&item=lesson-3"),
        ("/training?queue=nonsense", "/review"),
    ):
        answer = chair.get(old, follow_redirects=False)
        assert (answer.status_code, answer.headers["location"]) == (303, new), old
    # The old forms still decide.
    token = csrf_of(chair.get("/review").text)
    old_form = chair.post(
        "/training/decide",
        data={
            "csrf": token,
            "queue": "proposed",
            "id": world["plain"],
            "decision": "approve",
            "expected_status": "proposed",
        },
        follow_redirects=False,
    )
    assert old_form.status_code == 303
    # The cards of "מה מחכה לי" and the menu's "לבדיקתי" open the queue at their lane.
    lanes = {
        "lessons": "proposed",
        "escalations": "escalations",
        "curator": "curator",
        "panel_approved": "panel_approved",
        "principles": "principles",
        "principles_to_confirm": "to_confirm",
    }
    hrefs = {c.key: c.href for c in menu.CARDS}
    counts = menu.counts(desk_app)
    for card, lane in lanes.items():
        assert hrefs[card] == f"/review?lane={lane}"
        page = text_of(chair.get(hrefs[card]).text)
        assert f'<option value="{lane}" selected>' in page, card
        assert len(order_of(page)) == counts[card], card  # the card's count is the lane's
    today = chair.get("/").text
    assert 'href="/review?lane=panel_approved"' in today and 'href="/review"' in today


def test_the_queue_in_hebrew_only(world, chair):
    pages = [
        chair.get("/review").text,
        chair.get("/review", params={"item": f"lesson-{world['split']}"}).text,
        chair.get("/review", params={"item": f"principle-{world['pending']}"}).text,
        post(chair, "/review/bulk", decision="veto", refs=f"lesson-{world['approved']}").text,
    ]
    for page in pages:
        assert problems(page) == []
