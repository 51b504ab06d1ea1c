"""Issue 14 on the chair's desk, through FastAPI's TestClient against the real database:
/training/voice (deep-read voice documents: she marks a case whose final is exemplary from a
picker, the queue says in Hebrew what to set while no model is configured, a written document
is shown block by block with each claim beside the verbatim span of her final, approve / reject
with a reason, a stale decision answered 409, approved ones listed and withdrawn). A form
without the CSRF token or with an agent's token changes nothing. The writer model is a scripted
server (conftest.py's `voice_writer`, as in knowledge/test_voice.py). The copy-policy report of
a draft, on its case's page, is test_desk_cases.py's."""

import re

import pytest

from helpers import AGENT, csrf_of, section, sign_in, text_of
from legal_ai.auth import CHAIR
from legal_ai.knowledge import brief, voice, voice_review
from scenarios import blocks_of, claims, upload

pytestmark = pytest.mark.db
PAGE = "/training/voice"


def picker(html: str) -> list[str]:
    form = section(html, "mark")
    return [text_of(v) for v in re.findall(r'<option value="([^"]+)"', form)]


def test_mark_then_the_queue_says_what_to_set(chair, client, desk_app, tmp_path):
    rec = upload(desk_app, tmp_path, 1, draft=False)
    case = rec["case_number"]
    page = chair.get(PAGE)
    assert page.status_code == 200
    html = text_of(page.text)
    assert '<html lang="he" dir="rtl">' in html
    assert '<a href="/review" aria-current="page">לבדיקתי' in html  # her queues' menu item
    assert picker(page.text) == [case]
    assert "אין תיקים בתור." in section(html, "queued")
    # Linked from the review queue.
    assert 'href="/training/voice"' in chair.get("/review").text

    token = csrf_of(page.text)
    form = {"case_number": case, "note": "פתיחה ומבנה לדוגמה"}
    assert chair.post(f"{PAGE}/mark", data=form).status_code == 403  # no CSRF token
    client.cookies.clear()
    as_agent = client.post(
        f"{PAGE}/mark", data={**form, "csrf": token}, headers={"Authorization": f"Bearer {AGENT}"}
    )
    assert as_agent.status_code == 403 and 'הדסק הוא של היו"ר' in text_of(as_agent.text)
    assert voice_review.list_documents(desk_app)["voice_documents"] == []

    assert sign_in(client).status_code == 303
    token = csrf_of(client.get(PAGE).text)
    done = client.post(f"{PAGE}/mark", data={**form, "csrf": token}, follow_redirects=False)
    assert done.status_code == 303
    [row] = voice_review.list_documents(desk_app)["voice_documents"]
    assert (row["case_number"], row["status"], row["marked_by"]) == (case, "queued", "chair")
    assert row["note"] == "פתיחה ומבנה לדוגמה"
    shown = client.get(done.headers["location"])
    html = text_of(shown.text)
    assert f"מסמך הקול של {case}: סומן כמופתי ונכנס לתור הכתיבה" in html
    queue = section(html, "queued")
    assert case in queue and "פתיחה ומבנה לדוגמה" in queue
    # No model: what to set, in Hebrew, with the variable's name.
    assert "לא הוגדר מודל שכותב את מסמכי הקול" in queue and "LEGAL_AI_VOICE_WRITER" in queue
    assert picker(shown.text) == []  # marked: no longer offered

    # Marked again (a stale picker), or approved while still queued: refused in Hebrew.
    again = client.post(f"{PAGE}/mark", data={**form, "csrf": token})
    assert again.status_code == 400 and "התיק כבר מסומן" in text_of(again.text)
    assert "Traceback" not in again.text
    early = client.post(
        f"{PAGE}/decide",
        data={"csrf": token, "id": row["id"], "decision": "approve", "expected_status": "queued"},
    )
    assert early.status_code == 409 and "רק מסמך שנכתב וממתין להכרעתך" in text_of(early.text)
    unknown = client.post(f"{PAGE}/mark", data={"csrf": token, "case_number": "ערר 9999/25"})
    assert unknown.status_code == 404 and "אין לתיק החלטה סופית" in text_of(unknown.text)
    # She drops the case from the queue, with a reason: offered again in the picker.
    dropped = client.post(
        f"{PAGE}/decide",
        data={
            "csrf": token,
            "id": row["id"],
            "decision": "reject",
            "reason": "לא מופתי",
            "expected_status": "queued",
        },
    )
    assert dropped.status_code == 200 and "נדחה; הוא אינו מגיע לכותב" in text_of(dropped.text)
    assert voice_review.show(desk_app, row["id"])["status"] == "rejected"
    rejected = text_of(section(dropped.text, "rejected"))
    assert "לא מופתי" in rejected and "(הוסר מהתור)" in rejected
    assert picker(dropped.text) == [case]


def test_claims_beside_their_spans_approved_withdrawn(
    chair, client, desk_app, tmp_path, voice_writer
):
    script, _ = voice_writer
    rec = upload(desk_app, tmp_path, 0)
    case = rec["case_number"]
    token = csrf_of(chair.get(PAGE).text)
    chair.post(f"{PAGE}/mark", data={"csrf": token, "case_number": case})
    [row] = voice_review.list_documents(desk_app)["voice_documents"]
    queued = text_of(section(chair.get(PAGE).text, "queued"))
    assert "openai:voice" in queued and "legal-ai voice run" in queued  # a model is set
    blocks = blocks_of(desk_app, rec["final_text"])
    script.document = claims(blocks)
    assert [d["id"] for d in voice.run(desk_app)["written"]] == [row["id"]]
    doc = voice_review.show(desk_app, row["id"])

    page = chair.get(PAGE)
    pending = text_of(section(page.text, "pending"))
    assert f'id="voice-{row["id"]}"' in pending and case in pending
    # Block by block under her Hebrew names, each claim beside her words in the final.
    for label in ("פתח דבר", "הדיון בפנינו", "דיון והכרעה", "סוף דבר"):
        assert f"<h4>{label}</h4>" in pending, label
    opening = pending.split("<h4>פתח דבר</h4>")[1].split("</div>")[0]
    [first] = doc["blocks"][0]["claims"]
    assert first["claim"] in opening
    assert f'<mark class="span">{first["span"]}</mark>' in opening
    link = f"?start={first['char_start']}&end={first['char_end']}#span"
    assert link in opening and "/source/style/" in opening
    assert "נפסלו 1 שאינן מצביעות על ההחלטה" in pending and "נפסלו 1 שנשאו מהות" in pending
    assert "3 קומות" not in pending  # the claim carrying substance was dropped
    # The link opens her final with that span marked.
    href = text_of(re.search(r'href="(/source/style/[^"]+)"', opening).group(1))
    source = chair.get(href)
    assert source.status_code == 200 and first["span"] in text_of(source.text)

    token = csrf_of(page.text)
    form = {"csrf": token, "id": row["id"], "expected_status": "pending_review"}
    approved = chair.post(
        f"{PAGE}/decide",
        data={**form, "decision": "approve", "reason": "מבנה מופתי"},
        follow_redirects=False,
    )
    assert approved.status_code == 303
    shown = chair.get(approved.headers["location"])
    said = text_of(shown.text)
    assert "מסמך הקול" in said and ": אושר; הוא נכנס לתדריך הכותב" in said
    assert f"מסמך קול {row['id']}" not in said  # its row id is not hers to read
    listed = text_of(section(shown.text, "approved"))
    assert case in listed and "מבנה מופתי" in listed and 'אושר בידי: היו"ר' in listed
    assert first["claim"] in listed
    published = brief.writing_brief(desk_app, rec["appeal_type"], rec["outcome"])
    assert [d["id"] for d in published["voice_documents"]] == [row["id"]]

    # The page showed it pending; it was approved meanwhile: nothing changes (409).
    stale = chair.post(f"{PAGE}/decide", data={**form, "decision": "reject"})
    assert stale.status_code == 409
    assert 'מסמך קול כבר במצב "אושר (מגיע לכותב)" (בידי היו"ר)' in text_of(stale.text)
    assert voice_review.show(desk_app, row["id"])["status"] == "approved"
    # An agent's token and a missing token change nothing.
    client.cookies.clear()
    withdraw = {"csrf": token, "id": row["id"], "decision": "reject", "expected_status": "approved"}
    as_agent = client.post(
        f"{PAGE}/decide", data=withdraw, headers={"Authorization": f"Bearer {AGENT}"}
    )
    assert as_agent.status_code == 403
    assert voice_review.show(desk_app, row["id"])["status"] == "approved"
    # Withdrawn from the writer, with her reason.
    sign_in(client)
    token = csrf_of(client.get(PAGE).text)
    out = client.post(f"{PAGE}/decide", data={**withdraw, "csrf": token, "reason": "די"})
    assert out.status_code == 200 and voice_review.show(desk_app, row["id"])["status"] == "rejected"
    assert "די" in text_of(section(out.text, "rejected"))
    assert brief.writing_brief(desk_app, rec["appeal_type"])["voice_documents"] == []


def test_decide_refuses_without_csrf_and_bad_input(chair, desk_app, tmp_path):
    rec = upload(desk_app, tmp_path, 1, draft=False)
    marked = voice_review.mark(desk_app.acting_as(CHAIR), rec["case_number"])
    form = {"id": marked["id"], "decision": "reject", "expected_status": "queued"}
    missing = chair.post(f"{PAGE}/decide", data=form)
    assert missing.status_code == 403 and "CSRF" in missing.text
    wrong = chair.post(f"{PAGE}/decide", data={**form, "csrf": "not-the-token"})
    assert wrong.status_code == 403
    assert voice_review.show(desk_app, marked["id"])["status"] == "queued"
    token = csrf_of(chair.get(PAGE).text)
    maybe = chair.post(f"{PAGE}/decide", data={**form, "csrf": token, "decision": "maybe"})
    assert maybe.status_code == 400 and "החלטה לא מוכרת" in maybe.text
    nobody = chair.post(f"{PAGE}/decide", data={**form, "csrf": token, "id": "x"})
    assert nobody.status_code == 400 and "חסר מזהה מסמך הקול" in nobody.text
    gone = chair.post(f"{PAGE}/decide", data={**form, "csrf": token, "id": 999})
    assert gone.status_code == 404 and "הפריט לא נמצא" in gone.text
    blank = chair.post(f"{PAGE}/mark", data={"csrf": token, "case_number": " "})
    assert blank.status_code == 400 and "לא נבחר תיק" in blank.text
    long_note = chair.post(
        f"{PAGE}/mark", data={"csrf": token, "case_number": rec["case_number"], "note": "א" * 2001}
    )
    assert long_note.status_code == 400 and "ההערה ארוך מדי" in long_note.text
    assert voice_review.show(desk_app, marked["id"])["status"] == "queued"


def test_a_key_the_writer_needs_is_named(chair, desk_app, monkeypatch, tmp_path):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setattr(
        desk_app,
        "settings",
        desk_app.settings.model_copy(update={"voice_writer": "openai:gpt-4.1-mini"}),
    )
    queue = text_of(section(chair.get(PAGE).text, "queued"))
    assert "למודל שהוגדר חסר מפתח גישה" in queue
    technical = queue.split("פרטים טכניים")[1]  # the operator's words, behind the details
    assert "OPENAI_API_KEY" in technical and "LEGAL_AI_VOICE_WRITER" in technical
