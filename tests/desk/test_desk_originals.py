"""A case's uploads as she sent them (issue 37 item 16, migration 0046): the draft's and the
final's files kept byte for byte and downloadable from the case page; an item with no original
said so in Hebrew; the desk's session only (an API token, an agent's or the chair's, is refused
over HTTP), and the agent-only database login reads no original."""

from __future__ import annotations

from urllib.parse import quote

import psycopg
import pytest
from test_desk_hebrew import problems

import factories
from helpers import AGENT, CHAIR_TOKEN, csrf_of, final_landed, text_of
from word_docs import p, word_docx


def _uploaded(chair, tmp_path) -> tuple[str, bytes, bytes]:
    """A case's draft (a Word file) and final (text) uploaded through the desk's forms."""
    record = factories.records()[0]
    case = record["case_number"]
    fields = {k: record[k] for k in ("appeal_type", "outcome", "practice_area")}
    lines = [p(line) for line in record["draft_text"].split("\n") if line.strip()]
    draft = word_docx(tmp_path / "draft.docx", lines).read_bytes()
    final = record["final_text"].encode()
    token = csrf_of(chair.get("/cases").text)
    answer = chair.post(
        "/cases/draft/upload",
        data={"csrf": token, "case_number": case, **fields},
        files={"file": ("טיוטה ראשונה.docx", draft, "application/octet-stream")},
    )
    assert answer.status_code == 200, answer.text
    answer = final_landed(
        chair,
        chair.post(
            "/cases/final/upload",
            data={"csrf": token, "case_number": case, **fields},
            files={"file": ("final.txt", final, "text/plain")},
        ),
    )
    assert answer.status_code == 200, answer.text
    return case, draft, final


def test_her_draft_and_final_are_downloaded_as_she_uploaded_them(chair, tmp_path):
    case, draft, final = _uploaded(chair, tmp_path)
    page = chair.get("/cases/" + quote(case, safe="")).text
    section = page.split('id="files"')[1].split("</section>")[0]
    assert "הורדת הקובץ המקורי" in section
    # each file by the name it was sent under: no label of how it arrived ("upload:")
    assert "<bdi>טיוטה ראשונה.docx</bdi>" in section and "<bdi>final.txt</bdi>" in section
    assert "upload" not in section
    assert problems(page) == []
    got = chair.get("/original", params={"case": case, "kind": "draft", "version": 1})
    assert got.status_code == 200 and got.content == draft, got.text[-3000:]
    disposition = got.headers["content-disposition"]
    assert disposition == "attachment; filename*=UTF-8''" + quote("טיוטה ראשונה.docx")
    assert "no-store" in got.headers["cache-control"]
    got = chair.get("/original", params={"case": case, "kind": "final"})
    assert got.status_code == 200 and got.content == final
    assert got.headers["content-type"].startswith("text/plain")
    assert got.headers["content-disposition"].endswith("UTF-8''final.txt")


def test_a_file_kept_under_its_upload_label_downloads_by_its_own_name(chair, desk_app, tmp_path):
    """Files kept before the label was left out of the name (`upload:final.txt`): listed and
    downloaded by the file's own name all the same."""
    case, _, final = _uploaded(chair, tmp_path)
    with desk_app.store.as_role(None).transaction() as conn:
        conn.execute("UPDATE original_files SET file_name = 'upload:' || file_name")
    section = chair.get("/cases/" + quote(case, safe="")).text.split('id="files"')[1]
    assert "upload" not in section.split("</section>")[0]
    got = chair.get("/original", params={"case": case, "kind": "final"})
    assert got.status_code == 200 and got.content == final
    assert got.headers["content-disposition"].endswith("UTF-8''final.txt")


def test_an_upload_without_its_original_is_said_in_hebrew(chair, desk_app, tmp_path):
    case, _, _ = _uploaded(chair, tmp_path)
    with desk_app.store.as_role(None).transaction() as conn:  # as uploaded before 0046
        conn.execute("DELETE FROM draft_originals")
    page = chair.get("/cases/" + quote(case, safe="")).text
    section = text_of(page.split('id="files"')[1].split("</section>")[0])
    assert "הקובץ המקורי לא נשמר" in section and "הורדת הקובץ המקורי" in section  # the final's
    got = chair.get("/original", params={"case": case, "kind": "draft", "version": 1})
    assert got.status_code == 404 and "לא נשמר" in text_of(got.text)
    assert problems(got.text) == []
    for bad in ({"case": "לא-תיק", "kind": "final"}, {"case": case, "kind": "other"}):
        assert chair.get("/original", params=bad).status_code == 404


def test_an_api_token_downloads_no_original(chair, client, tmp_path):
    case, _, _ = _uploaded(chair, tmp_path)
    client.cookies.clear()  # no session: an API token, even the chair's, opens no desk page
    for token in (AGENT, CHAIR_TOKEN):
        got = client.get(
            "/original",
            params={"case": case, "kind": "final"},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert got.status_code == 403, token


def test_the_store_keeps_a_file_only_under_its_own_hash(desk_app):
    with desk_app.store.as_role(None).connection() as conn:
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute(
                "INSERT INTO original_files (file_sha256, content, file_name)"
                " VALUES (repeat('a', 64), 'x', 'x.txt')"
            )


def test_the_agents_own_login_reads_no_original(chair, agent_db_url, tmp_path):
    _uploaded(chair, tmp_path)
    with psycopg.connect(agent_db_url) as conn:
        for table in ("original_files", "draft_originals"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(f"SELECT count(*) FROM {table}")  # noqa: S608 - fixed names
            conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(
                "INSERT INTO original_files (file_sha256, content, file_name)"
                " VALUES (encode(sha256('x'), 'hex'), 'x', 'x.txt')"
            )
