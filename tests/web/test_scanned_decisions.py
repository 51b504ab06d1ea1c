"""A draft or final uploaded as a scan (issue 38 item 1, issue 37 item 0): through the API and
the desk an image-only PDF (factories.scanned_pdf: known Hebrew text rendered into pictures, no
text layer) is kept and queued for OCR instead of refused; the upload's answer (the desk's
stages page for a final) says it waits; once the worker's OCR pass has read it, the draft is
added and the final uploaded through the same services as a text upload (pairing, analysis,
the learning queue), with the form's fields and the principal recorded at upload. A scan in
which OCR reads nothing is said on the desk in the catalog's Hebrew for its code; her scanned
final cancelled while it waits leaves nothing (its queued OCR job and kept scan gone). The
agent-only login's attacks on the record: tests/store/test_decision_scans_grants.py."""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from urllib.parse import quote

import pytest

import factories
from helpers import AGENT, CHAIR_TOKEN, csrf_of, run, text_of
from legal_ai.ingest import ocr_jobs
from legal_ai.learning.pairs import scanned_decisions
from legal_ai.text import ocr

pytestmark = [
    pytest.mark.db,
    pytest.mark.skipif(
        shutil.which("tesseract") is None and os.environ.get("CI") != "true",
        reason="needs tesseract-ocr and tesseract-ocr-heb (make install)",
    ),
]

CASE = "ערר (מרכז) 4471/25"
LABELS = {"appeal_type": "permit", "outcome": "accepted", "practice_area": "planning"}
DRAFT = (
    "ועדת הערר לתכנון ובנייה מחוז מרכז\n"
    "פתח דבר\n"
    "לפנינו ערר על החלטת הוועדה המקומית לדחות בקשה להיתר בנייה לתוספת קומה.\n"
    "רקע עובדתי\n"
    "העוררים הגישו בקשה להיתר לתוספת של 25 מטרים רבועים בקומה השנייה.\n"
    "דיון והכרעה\n"
    "לאחר שעיינו בטענות הצדדים מצאנו כי התוכנית מאפשרת את התוספת המבוקשת.\n"
    "סוף דבר\n"
    "הערר מתקבל והוועדה המקומית תיתן את ההיתר."
)
FINAL = (
    "ועדת הערר לתכנון ובנייה מחוז מרכז\n"
    "פתח דבר\n"
    "לפנינו ערר על החלטת הוועדה המקומית שדחתה בקשה להיתר בנייה לתוספת קומה.\n"
    "רקע עובדתי\n"
    "העוררים ביקשו היתר לתוספת של 25 מטרים רבועים בקומה השנייה של ביתם.\n"
    "דיון והכרעה\n"
    "עיינו בטענות הצדדים ומצאנו כי התוכנית החלה מתירה את התוספת המבוקשת במלואה.\n"
    "סוף דבר\n"
    "הערר מתקבל. הוועדה המקומית תיתן את ההיתר בתוך שלושים ימים."
)


def _scan(tmp_path, name: str, text: str) -> bytes:
    return factories.scanned_pdf(tmp_path / name, [text], dpi=200).read_bytes()


def _api(client, kind: str, token: str, name: str, body: bytes, **fields):
    return client.post(
        f"/api/cases/{quote(CASE, safe='')}/{kind}/upload",
        headers={"Authorization": f"Bearer {token}"},
        files={"file": (name, body, "application/pdf")},
        data={**LABELS, **fields},
    )


def _rows(app, query: str, *params):
    with app.store.as_role(None).connection() as conn:
        return conn.execute(query, params).fetchall()


def _work(app) -> dict:
    """The worker's OCR pass, then the scanned decisions it read (as `legal-ai worker` does)."""
    read = ocr_jobs.run(app)
    assert read["failed"] == []
    return scanned_decisions.run(app)


def test_a_scanned_draft_and_final_through_the_api_wait_for_ocr_then_are_stored(
    client, desk_app, tmp_path
):
    # The agent's draft, a scan: kept and queued, nothing stored as a draft yet.
    answer = _api(client, "draft", AGENT, "draft-scan.pdf", _scan(tmp_path, "d.pdf", DRAFT))
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["status"] == "waiting_for_ocr" and body["kind"] == "draft"
    assert "queued for OCR" in body["notes"][0]
    assert _rows(desk_app, "SELECT id FROM drafts WHERE case_number = %s", CASE) == []
    [row] = _rows(desk_app, "SELECT * FROM decision_scans WHERE id = %s", body["scan_id"])
    assert (row["actor_kind"], row["actor_name"], row["status"]) == ("agent", "writer", "waiting")
    assert row["fields"] == LABELS and row["source_name"] == "upload:draft-scan.pdf"
    [job] = _rows(desk_app, "SELECT status FROM jobs WHERE key = %s", f"ocr:{row['file_sha256']}")
    assert job["status"] == "queued"

    report = _work(desk_app)
    assert report["failed"] == [] and [d["kind"] for d in report["done"]] == ["draft"]
    [draft] = _rows(desk_app, "SELECT * FROM drafts WHERE case_number = %s", CASE)
    assert ocr.character_accuracy(DRAFT, draft["content"]) > 0.9
    assert (draft["appeal_type"], draft["outcome"], draft["practice_area"]) == tuple(
        LABELS.values()
    )
    assert draft["source_path"] == "upload:draft-scan.pdf"
    # The draft's original (the case page's download) is the scan she sent, not its OCR text.
    [kept] = _rows(
        desk_app,
        "SELECT o.file_sha256, o.file_name, o.content FROM draft_originals d"
        " JOIN original_files o USING (file_sha256) WHERE d.draft_id = %s",
        draft["id"],
    )
    assert kept["file_sha256"] == row["file_sha256"] and bytes(kept["content"]).startswith(b"%PDF")
    assert kept["file_name"].endswith("draft-scan.pdf")  # as a text upload's is named
    [pair] = _rows(desk_app, "SELECT status FROM draft_final_pairs WHERE case_number = %s", CASE)
    assert pair["status"] == "draft_done"
    # Stored for the agent who uploaded, not for the worker that read the scan.
    [opened] = _rows(desk_app, "SELECT created_by FROM cases WHERE case_number = %s", CASE)
    assert opened["created_by"] == "agent:writer"

    # Her final, a scan: queued; once read it is paired with the draft, analyzed and queued
    # for learning like a text final.
    final = _api(
        client,
        "final",
        CHAIR_TOKEN,
        "final-scan.pdf",
        _scan(tmp_path, "f.pdf", FINAL),
        decided_on="2025-11-03",
    )
    assert final.status_code == 200, final.text
    assert final.json()["status"] == "waiting_for_ocr"
    report = _work(desk_app)
    assert report["failed"] == [] and [d["kind"] for d in report["done"]] == ["final"]
    [pair] = _rows(desk_app, "SELECT * FROM draft_final_pairs WHERE case_number = %s", CASE)
    assert pair["status"] == "analyzed"
    [stored] = _rows(
        desk_app,
        "SELECT content, decided_on, file_sha256 FROM case_law WHERE case_number = %s",
        CASE,
    )
    # Her final's file is the scan: its original kept under the scan's hash.
    [scanned] = _rows(desk_app, "SELECT file_sha256 FROM decision_scans WHERE kind = 'final'")
    assert stored["file_sha256"] == scanned["file_sha256"]
    [original] = _rows(
        desk_app,
        "SELECT content FROM original_files WHERE file_sha256 = %s",
        scanned["file_sha256"],
    )
    assert bytes(original["content"]).startswith(b"%PDF")
    assert ocr.character_accuracy(FINAL, stored["content"]) > 0.9
    assert str(stored["decided_on"]) == "2025-11-03"
    learning = _rows(
        desk_app, "SELECT id FROM jobs WHERE kind = 'learning' AND case_number = %s", CASE
    )
    assert learning
    done = _rows(desk_app, "SELECT status, result FROM decision_scans ORDER BY id")
    assert [d["status"] for d in done] == ["done", "done"]
    assert done[1]["result"]["pair_status"] == "analyzed"


def _her_scanned_final(chair, tmp_path):
    """Her final sent as a scan on the desk's form: (the form's CSRF token, the answer)."""
    token = csrf_of(chair.get("/cases").text)
    sent = chair.post(
        "/cases/final/upload",
        data={"csrf": token, "case_number": CASE, "decided_on": "2025-11-03", **LABELS},
        files={"file": ("final-scan.pdf", _scan(tmp_path, "f.pdf", FINAL), "application/pdf")},
        follow_redirects=False,
    )
    return token, sent


def test_the_desk_says_a_scanned_final_waits_and_a_failed_reading(chair, desk_app, tmp_path):
    token, sent = _her_scanned_final(chair, tmp_path)
    assert sent.status_code == 303, text_of(sent.text)
    stages_href = sent.headers["location"]
    for _ in range(100):
        state = chair.get(f"{stages_href}/status").json()
        if state["status"] != "running":
            break
        time.sleep(0.1)
    assert state["status"] == "ocr"
    page = text_of(chair.get(stages_href).text)
    assert "ממתין לזיהוי הטקסט" in page and "הקובץ הוא סריקה" in page
    shown = re.sub(r"<[^>]+>", " ", page.split("<main", 1)[1].split(">", 1)[1])
    assert not re.search(r"[A-Za-z]{3,}", shown)  # Hebrew only

    # A blank scan as a draft: OCR reads nothing; its page and the case's say so.
    blank = chair.post(
        "/cases/draft/upload",
        data={"csrf": token, "case_number": CASE, **LABELS},
        files={"file": ("blank.pdf", _scan(tmp_path, "b.pdf", ""), "application/pdf")},
        follow_redirects=False,
    )
    assert blank.status_code == 303 and blank.headers["location"].startswith("/uploads/scan/")
    assert "ממתינה לזיהוי הטקסט בסריקה" in text_of(chair.get(blank.headers["location"]).text)
    report = _work(desk_app)
    assert [f["kind"] for f in report["failed"]] == ["draft"]
    assert "OCR read no text" in report["failed"][0]["error"]
    assert report["failed"][0]["code"] == "scan.ocr_empty"
    assert [d["kind"] for d in report["done"]] == ["final"]
    said = text_of(chair.get(blank.headers["location"]).text)
    assert "הטיוטה לא נקלטה" in said and "זיהוי הטקסט בסריקה לא מצא בה טקסט" in said
    case_page = text_of(chair.get(f"/cases/{quote(CASE, safe='')}").text)
    assert "טיוטה שהועלתה כסריקה" in case_page and "לא נקלטה" in case_page


def test_her_scanned_final_cancelled_while_it_waits_leaves_nothing(chair, desk_app, tmp_path):
    _, sent = _her_scanned_final(chair, tmp_path)
    stages_href = sent.headers["location"]
    for _ in range(100):
        if chair.get(f"{stages_href}/status").json()["status"] != "running":
            break
        time.sleep(0.1)
    page = chair.get(stages_href).text
    assert "ביטול ההעלאה" in text_of(page)
    [row] = _rows(desk_app, "SELECT file_sha256 FROM decision_scans")
    sha = row["file_sha256"]
    cancelled = chair.post(
        f"{stages_href}/cancel", data={"csrf": csrf_of(page)}, follow_redirects=True
    )
    assert "ההעלאה בוטלה; דבר לא נשמר" in text_of(cancelled.text)
    assert _rows(desk_app, "SELECT id FROM decision_scans") == []
    assert _rows(desk_app, "SELECT id FROM jobs WHERE key = %s", f"ocr:{sha}") == []
    assert _rows(desk_app, "SELECT 1 FROM scanned_files WHERE file_sha256 = %s", sha) == []
    # The worker finds nothing to store; no final arrived.
    assert scanned_decisions.run(desk_app) == {"done": [], "failed": []}
    assert _rows(desk_app, "SELECT id FROM case_law WHERE case_number = %s", CASE) == []


def test_her_scanned_draft_is_cancelled_from_its_page_an_agents_is_not(
    chair, client, desk_app, tmp_path
):
    token = csrf_of(chair.get("/cases").text)
    sent = chair.post(
        "/cases/draft/upload",
        data={"csrf": token, "case_number": CASE, **LABELS},
        files={"file": ("draft-scan.pdf", _scan(tmp_path, "d.pdf", DRAFT), "application/pdf")},
        follow_redirects=False,
    )
    page_href = sent.headers["location"]
    page = chair.get(page_href).text
    assert "ביטול ההעלאה" in text_of(page)
    cancelled = chair.post(f"{page_href}/cancel", data={"csrf": csrf_of(page)})
    assert cancelled.status_code == 200
    assert "ההעלאה בוטלה; דבר לא נשמר" in text_of(cancelled.text)
    assert _rows(desk_app, "SELECT id FROM decision_scans") == []
    assert _rows(desk_app, "SELECT id FROM jobs WHERE kind = 'ocr'") == []
    assert _rows(desk_app, "SELECT 1 FROM scanned_files") == []

    # The agent's scanned draft: shown to her, but not hers to cancel.
    answer = _api(client, "draft", AGENT, "agent-scan.pdf", _scan(tmp_path, "a.pdf", FINAL))
    scan_id = answer.json()["scan_id"]
    page = chair.get(f"/uploads/scan/{scan_id}").text
    assert "ממתינה לזיהוי הטקסט בסריקה" in text_of(page) and "ביטול ההעלאה" not in text_of(page)
    refused = chair.post(f"/uploads/scan/{scan_id}/cancel", data={"csrf": csrf_of(page)})
    assert refused.status_code == 404
    assert [r["id"] for r in _rows(desk_app, "SELECT id FROM decision_scans")] == [scan_id]


def test_over_the_api_each_caller_lists_and_cancels_only_its_own_scans(client, desk_app, tmp_path):
    agent = {"Authorization": f"Bearer {AGENT}"}
    her = {"Authorization": f"Bearer {CHAIR_TOKEN}"}
    mine = _api(client, "draft", AGENT, "agent-scan.pdf", _scan(tmp_path, "a.pdf", DRAFT))
    her_scan = _scan(tmp_path, "f.pdf", FINAL)
    hers = _api(client, "final", CHAIR_TOKEN, "final-scan.pdf", her_scan, decided_on="2025-11-03")
    agent_id, her_id = mine.json()["scan_id"], hers.json()["scan_id"]

    listed = client.get("/api/scans", headers=agent).json()["scans"]
    assert [(s["scan_id"], s["kind"], s["status"]) for s in listed] == [
        (agent_id, "draft", "waiting")
    ]
    assert listed[0]["file_name"] == "agent-scan.pdf" and listed[0]["case_number"] == CASE
    assert [s["scan_id"] for s in client.get("/api/scans", headers=her).json()["scans"]] == [her_id]
    # Another's upload is not found, never said to exist: read or cancelled.
    for path in (f"/api/scans/{her_id}", f"/api/scans/{10**12}"):
        refused = client.get(path, headers=agent)
        assert refused.status_code == 404 and refused.json()["code"] == "scan.not_found"
    stranger = client.post(f"/api/scans/{her_id}/cancel", headers=agent)
    assert stranger.status_code == 404 and stranger.json()["code"] == "scan.not_found"
    assert client.get("/api/scans").status_code == 401
    assert client.get("/api/scans/abc", headers=agent).status_code == 400

    cancelled = client.post(f"/api/scans/{agent_id}/cancel", headers=agent)
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json() == {
        "scan_id": agent_id,
        "status": "cancelled",
        "job_removed": True,
        "scan_removed": True,
    }
    assert client.get("/api/scans", headers=agent).json()["scans"] == []
    assert client.post(f"/api/scans/{agent_id}/cancel", headers=agent).status_code == 404

    # Hers, once the worker has read and stored it: done, with the service's answer; too late
    # to cancel (409, the catalog's code and Hebrew).
    _work(desk_app)
    done = client.get(f"/api/scans/{her_id}", headers=her).json()
    assert done["status"] == "done", (done["error_code"], done["error"])
    assert done["result"]["case_number"] == CASE
    late = client.post(f"/api/scans/{her_id}/cancel", headers=her)
    assert late.status_code == 409 and late.json()["code"] == "scan.not_waiting"
    assert "אי אפשר לבטל" in late.json()["message_he"]


def test_the_cli_queues_a_scanned_draft_and_final_and_ocr_run_stores_them(
    desk_app, cli_env, tmp_path
):
    draft = factories.scanned_pdf(tmp_path / "draft-scan.pdf", [DRAFT], dpi=200)
    said = run(cli_env, "draft", "add", CASE, draft, "--appeal-type", "permit")
    assert said.stdout.startswith(f"{CASE}: the draft is a scan: kept and queued for OCR (scan ")
    assert "legal-ai ocr run" in said.stdout and said.stdout.count("\n") == 1
    final = factories.scanned_pdf(tmp_path / "final-scan.pdf", [FINAL], dpi=200)
    answer = json.loads(
        run(
            cli_env,
            "final",
            "upload",
            CASE,
            final,
            "--decided-on",
            "2025-11-03",
            *("--outcome", "accepted", "--practice-area", "planning", "--appeal-type", "permit"),
            "--json",
        ).stdout
    )
    assert answer["status"] == "waiting_for_ocr" and answer["kind"] == "final"
    [row] = _rows(desk_app, "SELECT * FROM decision_scans WHERE id = %s", answer["scan_id"])
    assert row["source_name"] == "final-scan.pdf" and row["actor_kind"] == "operator"
    assert row["fields"]["decided_on"] == "2025-11-03"
    assert _rows(desk_app, "SELECT id FROM drafts WHERE case_number = %s", CASE) == []

    stored = run(cli_env, "ocr", "run")
    assert "draft of" in stored.stdout and "final of" in stored.stdout, stored.stdout
    [kept] = _rows(desk_app, "SELECT appeal_type FROM drafts WHERE case_number = %s", CASE)
    assert kept["appeal_type"] == "permit"
    [pair] = _rows(desk_app, "SELECT status FROM draft_final_pairs WHERE case_number = %s", CASE)
    assert pair["status"] != "draft_done", stored.stdout  # the final arrived, paired
    blurred = run(cli_env, "draft", "add", CASE, tmp_path / "missing.pdf", check=False)
    assert blurred.returncode != 0 and "missing.pdf" in blurred.stderr
