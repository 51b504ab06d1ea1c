"""Her signed final on the desk (issue 37 items 13, 14, 15): the upload answers at once and its
stages follow (polled); a Word final with open tracked changes and a comment stops at a confirm
step on the desk and is refused over the API without accept_open_changes; a case number she
types as number/year is completed when it names one case and refused, naming them, when it
names several."""

from __future__ import annotations

import io
import time
from pathlib import Path
from urllib.parse import quote

import docx
import pytest
from docx.oxml.ns import qn
from docx.oxml.parser import OxmlElement

import factories
from helpers import CHAIR_TOKEN, csrf_of, text_of
from legal_ai.learning.pairs import drafts

pytestmark = pytest.mark.db
COMMENT = "לבדוק מול התכנית לפני החתימה"
CHANGES = 107
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


def with_open_changes(text: str) -> bytes:
    """Her final as Word writes it (python-docx), with CHANGES tracked changes still open
    (w:ins and w:del runs added to its paragraphs' XML) and one comment."""
    document = docx.Document()
    paragraphs = [document.add_paragraph(p) for p in text.split("\n") if p.strip()]
    long = [p for p in paragraphs if len(p.text) > 80]  # never a heading's line
    for n in range(CHANGES):  # spread over the paragraphs, several to a paragraph
        paragraph = long[n % len(long)]
        kind = "w:ins" if n % 2 else "w:del"
        change = OxmlElement(kind)
        change.set(qn("w:id"), str(1000 + n))
        change.set(qn("w:author"), "עורך")
        run, said = OxmlElement("w:r"), OxmlElement("w:delText" if kind == "w:del" else "w:t")
        said.text = " מילה"
        run.append(said)
        change.append(run)
        paragraph._p.append(change)
    document.add_comment(paragraphs[0].runs, text=COMMENT, author="יו״ר")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def labels(record: dict) -> dict:
    return {k: record[k] for k in ("appeal_type", "outcome", "practice_area")}


def with_draft(desk_app, record: dict) -> str:
    path = Path(desk_app.settings.home) / "draft.txt"
    path.write_text(record["draft_text"], encoding="utf-8")
    drafts.add_draft(desk_app, record["case_number"], path, **labels(record))
    return record["case_number"]


def send_final(chair, case: str, name: str, body: bytes, kind: str, **fields):
    token = csrf_of(chair.get("/cases").text)
    started = time.perf_counter()
    sent = chair.post(
        "/cases/final/upload",
        data={"csrf": token, "case_number": case, **fields},
        files={"file": (name, body, kind)},
        follow_redirects=False,
    )
    return sent, time.perf_counter() - started


def until_over(chair, stages: str, seen: set | None = None):
    """Its stages asked for until the upload ends (or waits for her): the ending answer."""
    for _ in range(1200):
        status = chair.get(stages + "/status").json()
        if seen is not None:
            seen.update(s["name"] for s in status["stages"] if s["state"] in ("now", "done"))
        if status["status"] != "running":
            return chair.get(stages, follow_redirects=False)
        time.sleep(0.05)
    raise AssertionError("the final's upload never ended")


def test_a_final_answers_at_once_and_its_stages_follow(chair, desk_app):
    record = factories.records()[0]
    case = with_draft(desk_app, record)
    sent, took = send_final(
        chair, case, "final.txt", record["final_text"].encode(), "text/plain", **labels(record)
    )
    print(f"final upload answered in {took * 1000:.0f} ms")
    assert sent.status_code == 303 and took < 1.0, took
    stages = sent.headers["location"]
    page = chair.get(stages)
    assert page.status_code == 200 and 'id="upload-stages"' in page.text
    shown = text_of(page.text)
    for said in ("הקובץ התקבל", "קריאת הקובץ", "בדיקת האזכורים", "השוואה לטיוטה שלנו"):
        assert said in shown
    seen: set = set()
    ended = until_over(chair, stages, seen)
    assert {"reading", "citations", "aligning", "learning"} <= seen
    assert ended.status_code == 303
    assert ended.headers["location"] == "/cases/" + quote(case, safe="") + "?uploaded=final"
    landed = chair.get(ended.headers["location"])
    assert "ההחלטה החתומה נקלטה" in text_of(landed.text)
    assert 'data-status="analyzed"' in landed.text
    # An upload the server does not know (restarted meanwhile) is said, never silent.
    lost = chair.get("/uploads/final/no-such-upload")
    assert lost.status_code == 404 and "אינה ידועה לשרת" in lost.text
    assert chair.get("/uploads/final/no-such-upload/status").json()["status"] == "lost"


def test_a_refusal_found_while_reading_comes_back_beside_its_field(chair, desk_app):
    record = factories.records()[0]
    with_draft(desk_app, record)
    sent, _ = send_final(
        chair, record["case_number"], "final.txt", b"\x00" * 10, "text/plain", **labels(record)
    )
    ended = until_over(chair, sent.headers["location"])
    assert ended.status_code >= 400
    form = ended.text.split('id="upload-final"')[1].split("</form>")[0]
    assert 'aria-invalid="true"' in form and "ההעלאה לא בוצעה" in ended.text


def test_a_word_final_with_open_changes_asks_her_to_confirm(chair, desk_app):
    record = factories.records()[0]
    case = with_draft(desk_app, record)
    body = with_open_changes(record["final_text"])
    sent, _ = send_final(chair, case, "final.docx", body, DOCX, **labels(record))
    stages = sent.headers["location"]
    asked = until_over(chair, stages)
    assert asked.status_code == 200 and "confirm-open" in asked.text
    shown = text_of(asked.text)
    assert f"{CHANGES} שינויים במעקב" in shown and "1 הערות" in shown and COMMENT in shown
    assert "האם זו ההחלטה החתומה?" in shown
    with desk_app.store.connection() as conn:  # nothing stored while she decides
        assert conn.execute("SELECT count(*) AS n FROM case_law").fetchone()["n"] == 0
    token = csrf_of(asked.text)
    confirmed = chair.post(f"{stages}/confirm", data={"csrf": token}, follow_redirects=False)
    assert confirmed.status_code == 303
    ended = until_over(chair, stages)
    assert ended.status_code == 303 and ended.headers["location"].endswith("?uploaded=final")

    # Cancelled at the confirm step: nothing stored, said so.
    other = factories.records()[1]
    case = with_draft(desk_app, other)
    sent, _ = send_final(
        chair, case, "final.docx", with_open_changes(other["final_text"]), DOCX, **labels(other)
    )
    asked = until_over(chair, sent.headers["location"])
    chair.post(f"{sent.headers['location']}/cancel", data={"csrf": csrf_of(asked.text)})
    ended = chair.get(sent.headers["location"], follow_redirects=False)
    assert ended.status_code >= 400 and "ההעלאה בוטלה; דבר לא נשמר" in text_of(ended.text)


def test_the_api_takes_a_word_final_with_open_changes_only_when_told(client, desk_app):
    record = factories.records()[0]
    case = with_draft(desk_app, record)
    body = with_open_changes(record["final_text"])
    url = f"/api/cases/{quote(case, safe='')}/final/upload"
    auth = {"Authorization": f"Bearer {CHAIR_TOKEN}"}
    fields = {**labels(record)}
    refused = client.post(url, headers=auth, data=fields, files={"file": ("f.docx", body, DOCX)})
    assert refused.status_code == 409, refused.text
    said = refused.json()["detail"] if "detail" in refused.json() else refused.text
    assert "accept_open_changes" in str(said) and f"{CHANGES} open tracked change" in str(said)
    taken = client.post(
        url,
        headers=auth,
        data={**fields, "accept_open_changes": "true"},
        files={"file": ("f.docx", body, DOCX)},
    )
    assert taken.status_code == 200, taken.text
    assert taken.json()["pair_status"] == "analyzed"


def test_a_case_number_as_number_and_year_is_completed(chair, desk_app):
    record = factories.records()[0]
    case = with_draft(desk_app, record)  # ערר (מרכז) 7001/25
    number = case.rsplit(" ", 1)[1]
    token = csrf_of(chair.get("/cases").text)
    sent = chair.post(
        "/cases/draft/upload",
        data={"csrf": token, "case_number": number, **labels(record)},
        files={"file": ("draft.txt", (record["draft_text"] + "\nתוספת").encode(), "text/plain")},
        follow_redirects=False,
    )
    assert sent.status_code == 303, text_of(sent.text)[:800]
    assert sent.headers["location"].startswith("/cases/" + quote(case, safe=""))
    landed = text_of(chair.get(sent.headers["location"]).text)
    assert f"מספר התיק הושלם: {case}" in landed
    # Another case with the same number/year: the short number names both, and she is told which.
    twin = "ערר (ירושלים) " + number
    path = Path(desk_app.settings.home) / "twin.txt"
    path.write_text(record["draft_text"], encoding="utf-8")
    drafts.add_draft(desk_app, twin, path, **labels(record))
    refused = chair.post(
        "/cases/draft/upload",
        data={"csrf": token, "case_number": number, **labels(record)},
        files={"file": ("draft.txt", record["draft_text"].encode(), "text/plain")},
    )
    assert refused.status_code == 400
    form = text_of(refused.text.split('id="upload-draft"')[1].split("</form>")[0])
    assert "המספר מתאים לכמה תיקים" in form and case in form and twin in form
