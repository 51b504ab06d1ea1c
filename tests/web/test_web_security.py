"""The HTTP API's edge against hostile and careless callers: who may do what (401/403, the actor
from the token, never from the body), uploads streamed under a size cap with their type and name
checked, temp folders that never outlive a request (or a killed process), blocking work off the
event loop, a bounded wait for the pool, and one JSON error body for every failure with no
path, traceback or connection detail in it. Some tests go through a real uvicorn on 127.0.0.1."""

import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from urllib.parse import quote, urlsplit

import httpx
import psycopg
import pytest
from fastapi.testclient import TestClient

from helpers import serving
from legal_ai.app import App
from legal_ai.errors import StoreError
from legal_ai.learning import vocabulary as vocab
from legal_ai.web import uploads
from legal_ai.web.app import create_app

pytestmark = pytest.mark.db

AGENT, CHAIR, LEGACY = "agent-tok-1", "chair-tok-1", "legacy-tok-1"
CASE = "ערר 1/25"
CASE_URL = quote(CASE)
DRAFT = (
    "ועדת הערר\nהחלטה\n\nפתח דבר\n\nערר על היתר.\n\nרקע עובדתי\n\nהבקשה הוגשה.\n\n"
    "דיון והכרעה\n\nהערר נדחה.\n\nסוף דבר\n\nהערר נדחה.\n"
).encode()
BOUNDARY = "legalAiBoundary7"


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def web_settings(app, tmp_path):
    return app.settings.model_copy(
        update={
            "home": tmp_path / "home",
            "agent_token": f"writer={AGENT}",
            "chair_token": CHAIR,
            "api_token": LEGACY,
            "max_file_mb": 1,
            "max_decision_mb": 1,
            "max_decision_text_mb": 1,
            "committee_chair": 'עו"ד בדיקה',
        }
    )


@pytest.fixture
def client(app, web_settings):
    with TestClient(create_app(web_settings, legal=app), raise_server_exceptions=False) as c:
        yield c


def upload_dirs(settings) -> list[Path]:
    root = settings.home / "uploads"
    return sorted(root.iterdir()) if root.exists() else []


def multipart(
    filename: bytes | str | None,
    content: bytes,
    ctype: str = "text/plain",
    fields: dict[str, str] | None = None,
) -> tuple[dict, bytes]:
    """A multipart/form-data body built by hand, so file names go out byte for byte."""
    parts = []
    for name, value in (fields or {}).items():
        parts.append(
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
            f"{value}\r\n".encode()
        )
    disposition = b'Content-Disposition: form-data; name="file"'
    if filename is not None:
        raw = filename.encode() if isinstance(filename, str) else filename
        disposition += b'; filename="' + raw + b'"'
    parts.append(
        f"--{BOUNDARY}\r\n".encode()
        + disposition
        + f"\r\nContent-Type: {ctype}\r\n\r\n".encode()
        + content
        + b"\r\n"
    )
    body = b"".join(parts) + f"--{BOUNDARY}--\r\n".encode()
    return {"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"}, body


def draft(
    client,
    filename,
    content: bytes = DRAFT,
    ctype: str = "text/plain",
    token: str = AGENT,
    case: str = CASE_URL,
):
    headers, body = multipart(filename, content, ctype)
    return client.post(
        f"/api/cases/{case}/draft/upload", headers={**headers, **auth(token)}, content=body
    )


def audit_rows(app) -> list[dict]:
    with app.store.connection() as conn:
        return conn.execute("SELECT actor, action, lesson_id FROM learning_audit").fetchall()


# -- roles ---------------------------------------------------------------------------------------
def test_missing_or_wrong_token_is_401_json(client):
    for headers in (
        {},
        auth("nope"),
        {"Authorization": f"Basic {AGENT}"},
        {"Authorization": AGENT},
    ):
        response = client.get("/api/lessons", headers=headers)
        assert response.status_code == 401, headers
        assert response.headers["www-authenticate"] == "Bearer"
        assert "token" in response.json()["error"]
    assert client.get("/api/lessons", headers=auth(AGENT)).status_code == 200
    assert client.get("/api/lessons", headers=auth(CHAIR)).status_code == 200
    assert client.get("/api/lessons", headers=auth(LEGACY)).status_code == 200


def test_the_api_refuses_a_chair_token_equal_to_an_agent_token(app, tmp_path):
    settings = app.settings.model_copy(
        update={"home": tmp_path, "agent_token": "same", "chair_token": "same"}
    )
    with pytest.raises(Exception, match="must differ"):
        create_app(settings, legal=app)


def test_agents_are_refused_every_chair_route_before_anything_changes(app, client):
    assert draft(client, "d.txt").status_code == 200
    findings = ["[סגנון] פחות מילים", "[מבנה] כותרת לכל פרק", "[טבלאי] טבלת היטלים"]
    found = client.post(
        f"/api/cases/{CASE_URL}/curator-findings", headers=auth(AGENT), json={"findings": findings}
    )
    assert found.status_code == 200, found.text
    lesson = found.json()["lessons"][0]
    assert lesson["proposed_by"] == "agent:writer"
    before = audit_rows(app)
    profile = client.get("/api/methodology/universal", headers=auth(AGENT)).json()
    smuggled = {"actor": "chair", "reviewed_by": "chair"}
    attempts = [
        ("post", f"/api/lessons/{lesson['id']}/review", {"decision": "approve", **smuggled}),
        ("post", f"/api/lessons/{lesson['id']}/review", {"decision": "veto", "reason": "x"}),
        ("post", f"/api/cases/{CASE_URL}/promote", {"lesson_ids": [lesson["id"]], **smuggled}),
        ("post", "/api/methodology/universal", {"changes": {"lessons": []}, **smuggled}),
    ]
    for token in (AGENT, LEGACY):
        for method, path, body in attempts:
            response = client.request(method, path, headers=auth(token), json=body)
            assert response.status_code == 403, (token, path, response.text)
            message = response.json()["error"]
            assert "chair's decision" in message and "LEGAL_AI_CHAIR_TOKEN" in message
        final = client.post(
            f"/api/cases/{CASE_URL}/final/upload",
            headers=auth(token),
            files={"file": ("f.txt", DRAFT, "text/plain")},
        )
        assert final.status_code == 403 and "chair's decision" in final.json()["error"]
    # nothing changed: the lesson is still proposed, no audit row, the profile is the same
    lessons = client.get("/api/lessons", headers=auth(AGENT)).json()["lessons"]
    assert {row["review_status"] for row in lessons} == {"proposed"}
    assert audit_rows(app) == before
    after = client.get("/api/methodology/universal", headers=auth(AGENT)).json()
    assert after == profile
    assert (
        client.get("/api/learning/pairs", headers=auth(AGENT)).json()["pairs"][0]["status"]
        == "draft_done"
    )


def test_the_actor_comes_from_the_token_never_from_the_body(app, client):
    assert draft(client, "d.txt").status_code == 200
    findings = ["[סגנון] א", "[מבנה] ב", "[טבלאי] ג"]
    lesson = client.post(
        f"/api/cases/{CASE_URL}/curator-findings", headers=auth(AGENT), json={"findings": findings}
    ).json()["lessons"][0]
    # the chair's own token with a body naming someone else: refused, not half-applied
    named = client.post(
        f"/api/lessons/{lesson['id']}/review",
        headers=auth(CHAIR),
        json={"decision": "approve", "reviewed_by": "agent:writer"},
    )
    assert named.status_code == 400 and "reviewed_by" in named.json()["error"]
    # an agent route with a smuggled actor: refused (unknown field), nothing stored
    feedback = client.post(
        "/api/chair-feedback",
        headers=auth(AGENT),
        json={"category": "missing_content", "text": "חסר", "actor": "chair"},
    )
    assert feedback.status_code == 400 and "actor" in feedback.json()["error"]
    listed = client.get("/api/chair-feedback", headers=auth(AGENT)).json()
    assert listed["feedback"] == []
    approved = client.post(
        f"/api/lessons/{lesson['id']}/review", headers=auth(CHAIR), json={"decision": "approve"}
    )
    assert approved.status_code == 200 and approved.json()["reviewed_by"] == "chair"
    actors = {(row["actor"], row["action"]) for row in audit_rows(app)}
    assert all(actor in ("chair", "agent:writer") for actor, _ in actors), actors


# -- JSON errors -----------------------------------------------------------------------------------
def test_every_failure_is_a_json_error(client):
    chair = auth(CHAIR)
    missing = client.post("/api/lessons/1/review", headers=chair, json={})
    assert missing.status_code == 400 and "decision" in missing.json()["error"]
    bad_id = client.post("/api/lessons/abc/review", headers=chair, json={"decision": "approve"})
    assert bad_id.status_code == 400 and "lesson_id" in bad_id.json()["error"]
    not_json = client.post(
        "/api/chair-feedback",
        headers={**auth(AGENT), "Content-Type": "application/json"},
        content=b"{not json",
    )
    assert not_json.status_code == 400 and "error" in not_json.json()
    wrong_type = client.post(
        "/api/cases/x/curator-findings", headers=auth(AGENT), json={"findings": "one string"}
    )
    assert wrong_type.status_code == 400 and "findings" in wrong_type.json()["error"]
    unknown = client.get("/api/nothing-here", headers=chair)
    assert unknown.status_code == 404 and "no route" in unknown.json()["error"]
    method = client.delete("/api/lessons", headers=chair)
    assert method.status_code == 405 and "DELETE" in method.json()["error"]
    no_lesson = client.post("/api/lessons/999999/review", headers=chair, json={"decision": "veto"})
    assert no_lesson.status_code == 404 and "error" in no_lesson.json()
    for path in ("/docs", "/redoc", "/openapi.json", "/docs/oauth2-redirect"):
        response = client.get(path, headers=chair)
        assert response.status_code == 404 and "error" in response.json(), path
    nul_url = client.get("/api/lessons?case=%00", headers=auth(AGENT))
    assert nul_url.status_code == 400 and "NUL" in nul_url.json()["error"]
    nul_path = client.get("/api/methodology/permit%00", headers=auth(AGENT))
    assert nul_path.status_code == 400
    nul_body = client.post(
        "/api/chair-feedback",
        headers=auth(AGENT),
        json={"category": "missing_content", "text": "a\x00b"},
    )
    assert nul_body.json()["error"] == "text: contains a NUL character"
    assert (nul_body.json()["code"], nul_body.json()["field"]) == ("request.invalid", "text")
    nested = client.post(
        "/api/methodology/universal", headers=chair, json={"changes": {"lessons": ["a\x00"]}}
    )
    assert nested.json()["error"] == "changes: contains a NUL character"
    huge_json = client.post(
        "/api/chair-feedback", headers=auth(AGENT), json={"category": "x", "text": "א" * (1 << 20)}
    )
    assert huge_json.status_code == 413 and "MB" in huge_json.json()["error"]


def test_the_schema_is_served_only_when_asked_and_only_with_a_token(app, web_settings):
    settings = web_settings.model_copy(update={"api_schema": True})
    with TestClient(create_app(settings, legal=app)) as c:
        assert c.get("/openapi.json").status_code == 401
        schema = c.get("/openapi.json", headers=auth(AGENT))
        assert schema.status_code == 200 and "/api/lessons" in schema.json()["paths"]
        assert c.get("/docs", headers=auth(AGENT)).status_code == 404


def test_unexpected_and_database_errors_say_nothing_internal(app, web_settings, caplog):
    api = create_app(web_settings, legal=app)

    def boom() -> dict:
        raise RuntimeError(f"secret detail in {web_settings.home}/uploads/x")

    def database() -> dict:
        psycopg.connect(
            "host=127.0.0.1 port=1 user=leaky_user password=pw dbname=leaky_db connect_timeout=2"
        )
        return {}

    def store() -> dict:
        raise StoreError("cannot reach PostgreSQL at host=db.internal user=leaky_user: refused")

    for path, handler in (("/boom", boom), ("/db", database), ("/store", store)):
        api.add_api_route(path, handler)
    with TestClient(api, raise_server_exceptions=False) as c:
        crashed = c.get("/boom")
        assert crashed.status_code == 500
        assert crashed.json()["error"].startswith("internal error (incident ")
        assert "secret" not in crashed.text and "Traceback" not in crashed.text
        for path in ("/db", "/store"):
            failed = c.get(path)
            assert failed.status_code == 503, path
            assert failed.json()["error"].startswith("the database")
            for leak in ("leaky_user", "leaky_db", "127.0.0.1", "db.internal", "pw"):
                assert leak not in failed.text, (path, leak)
    assert "secret detail" in caplog.text  # the server log keeps what the body leaves out


def test_pool_exhaustion_is_a_prompt_503(web_settings, e5):
    settings = web_settings.model_copy(update={"pool_max_size": 1, "pool_timeout_s": 0.5})
    small = App(settings, embedder=e5)
    try:
        with TestClient(create_app(settings, legal=small)) as c:
            assert c.get("/api/lessons", headers=auth(AGENT)).status_code == 200
            with small.store.pool.connection():  # the only connection, held
                started = time.monotonic()
                busy = c.get("/api/lessons", headers=auth(AGENT))
                waited = time.monotonic() - started
            assert busy.status_code == 503 and "busy" in busy.json()["error"]
            assert busy.headers["retry-after"] == "1"
            assert 0.4 < waited < 3, waited
            assert c.get("/api/lessons", headers=auth(AGENT)).status_code == 200
    finally:
        small.store.close()


# -- uploads -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "safe"),
    [
        ("החלטה סופית.txt", "החלטה סופית.txt"),
        ("../../../etc/cron.d/x.txt", "x.txt"),
        ("C:\\Users\\chair\\draft.DOCX", "draft.docx"),
        ("a\x00b.md", "ab.md"),
        ("\u200fהחלטה\u200e.pdf", "החלטה.pdf"),
        ("evil\u202etxt.pdf", "eviltxt.pdf"),
        ("..txt", "upload.txt"),
        (".pdf", "upload.pdf"),
        ("line\nbreak\t.txt", "line break.txt"),
        ("א" * 400 + ".txt", "א" * 75 + ".txt"),
    ],
)
def test_file_names_are_reduced_to_a_safe_basename(raw, safe):
    assert uploads.safe_name(raw) == safe
    assert "/" not in safe and len(safe.encode()) <= uploads.MAX_NAME_BYTES + 5


@pytest.mark.parametrize("raw", ["", "..", "/etc/passwd", "x.exe", "\u202etxt.exe", "a.pdf.sh"])
def test_names_without_an_accepted_type_are_415(raw):
    with pytest.raises(uploads.UnsupportedMediaType, match=r"PDF, DOCX, DOC, RTF, ODT, TXT or MD"):
        uploads.safe_name(raw)


def test_upload_names_types_and_contents_over_http(client, web_settings, tmp_path):
    hebrew = draft(client, "טיוטה ב\u200fערר.txt")
    assert hebrew.status_code == 200, hebrew.text
    # the safe name is what an error shows; the client path never reaches the disk
    for raw, shown in (
        (b"../../escape.txt", "escape.txt"),
        (b"a\x00b.txt", "ab.txt"),
        ("א" * 300 + ".txt", "א" * 75 + ".txt"),
        (None, "upload.txt"),
    ):
        empty = draft(client, raw, b"")
        assert empty.status_code == 400, raw
        assert empty.json()["error"] == f"{shown}: the file is empty; export the document again"
    assert (
        not (tmp_path / "escape.txt").exists() and not (web_settings.home / "escape.txt").exists()
    )
    for raw, content, ctype in (
        ("/etc/passwd", b"root:x:0:0", "application/octet-stream"),
        ("..", DRAFT, "application/octet-stream"),
        ("", DRAFT, "application/octet-stream"),
        ("x.exe", b"MZ", "application/octet-stream"),
        ("d.txt", DRAFT, "image/png"),
        ("d.pdf", b"not a pdf at all", "application/pdf"),
        ("d.docx", b"plain text, not a zip", "application/octet-stream"),
    ):
        refused = draft(client, raw, content, ctype)
        assert refused.status_code == 415, (raw, refused.text)
        assert "PDF, DOCX, DOC, RTF, ODT, TXT or MD" in refused.json()["error"]
    # a PDF-looking file that is not readable: the error names the file, never the temp path
    broken = draft(client, "שבור.pdf", b"%PDF-1.4\n garbage", "application/pdf")
    assert broken.status_code == 400 and broken.json()["error"].startswith("שבור.pdf: ")
    legacy = draft(client, "bad.txt", b"\xff\xfe\x00\x01\x02 bytes", "text/plain")
    assert legacy.status_code == 400 and legacy.json()["error"].startswith("bad.txt: ")
    for response in (broken, legacy):
        assert str(web_settings.home) not in response.text and "up-" not in response.text
    assert upload_dirs(web_settings) == []  # every request's folder is gone


def test_malformed_upload_bodies_are_400(client, web_settings):
    headers = {**auth(AGENT), "Content-Type": f"multipart/form-data; boundary={BOUNDARY}"}
    path = f"/api/cases/{CASE_URL}/draft/upload"
    cut = multipart("d.txt", DRAFT)[1][:-20]
    cases = [
        ({"Content-Type": "application/json"}, b"{}", "multipart/form-data"),
        ({}, cut, "ended early"),
        ({}, multipart("d.txt", DRAFT, fields={"actor": "chair"})[1], "unknown form part"),
        ({}, f"--{BOUNDARY}--\r\n".encode(), "no file"),
        ({}, multipart("d.txt", DRAFT, fields={"outcome": "x" * 2000})[1], "over 1024 bytes"),
    ]
    for extra, body, expected in cases:
        response = client.post(path, headers={**headers, **extra}, content=body)
        assert response.status_code == 400, (expected, response.text)
        assert expected in response.json()["error"]
    two = multipart("d.txt", DRAFT)[1].replace(f"--{BOUNDARY}--".encode(), b"")
    twice = two + multipart("e.txt", DRAFT)[1]
    response = client.post(path, headers=headers, content=twice)
    assert response.status_code == 400 and "exactly one" in response.json()["error"]
    assert upload_dirs(web_settings) == []


def test_leftover_folders_of_a_killed_process_are_swept_at_start(app, web_settings):
    root = web_settings.home / "uploads"
    script = (
        "import sys, time; from pathlib import Path; from legal_ai.web.uploads import "
        "private_folder\nwith private_folder(Path(sys.argv[1])) as f:\n"
        "    (f / 'half.pdf').write_bytes(b'%PDF-1.4 ...')\n    print(f, flush=True)\n"
        "    time.sleep(60)\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(root)], stdout=subprocess.PIPE, text=True
    )
    dead = Path(child.stdout.readline().strip())
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    child.stdout.close()
    assert (dead / "half.pdf").exists()
    stale = root / f"{uploads.STAGING_PREFIX}old"
    stale.mkdir()
    os.utime(stale, (time.time() - 3600, time.time() - 3600))
    with uploads.private_folder(root) as live:  # a request of a running server
        create_app(web_settings, legal=app)  # sweeps at start
        assert live.exists() and not dead.exists() and not stale.exists()
    assert upload_dirs(web_settings) == []


# -- through a real server (helpers.serving) ---------------------------------------------------
def read_response(conn: socket.socket, timeout: float = 10) -> tuple[int, dict]:
    conn.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    length = int(headers.get("content-length", 0))
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return int(lines[0].split()[1]), json.loads(body[:length])


def test_an_oversized_upload_is_stopped_while_it_streams(app, web_settings):
    with (
        serving(create_app(web_settings, legal=app)) as base,
        socket.create_connection(("127.0.0.1", urlsplit(base).port)) as conn,
    ):
        head = (
            f"POST /api/cases/{CASE_URL}/draft/upload HTTP/1.1\r\nHost: x\r\n"
            f"Authorization: Bearer {AGENT}\r\nTransfer-Encoding: chunked\r\n"
            f"Content-Type: multipart/form-data; boundary={BOUNDARY}\r\n\r\n"
        )
        preamble = multipart("big.txt", b"")[1].split(b"\r\n\r\n")[0] + b"\r\n\r\n"
        conn.sendall(head.encode() + b"%x\r\n%s\r\n" % (len(preamble), preamble))
        block, sent, total = b"\xd7\x90" * 32768, 0, 64 << 20  # 64 MB offered, cap 1 MB
        conn.setblocking(False)
        answered = False
        while sent < total and not answered:
            answered = bool(select.select([conn], [], [], 0)[0])
            if select.select([], [conn], [], 2)[1] == []:
                break  # the server stopped reading: our send buffer stays full
            try:
                sent += conn.send(b"%x\r\n%s\r\n" % (len(block), block))
            except (BrokenPipeError, ConnectionResetError, BlockingIOError):
                break
        conn.setblocking(True)
        status, body = read_response(conn)
    assert status == 413, body
    assert "big.txt: over the 1 MB upload limit" in body["error"]
    assert sent < 16 << 20, sent  # refused long before the 64 MB were taken
    assert upload_dirs(web_settings) == []


def test_a_huge_declared_length_is_refused_before_the_body(app, web_settings):
    with serving(create_app(web_settings, legal=app)) as base:
        port = urlsplit(base).port
        with socket.create_connection(("127.0.0.1", port)) as conn:
            started = time.monotonic()
            conn.sendall(
                (
                    f"POST /api/cases/{CASE_URL}/draft/upload HTTP/1.1\r\nHost: x\r\n"
                    f"Authorization: Bearer {AGENT}\r\nContent-Length: {10 << 30}\r\n"
                    f"Content-Type: multipart/form-data; boundary={BOUNDARY}\r\n\r\n"
                ).encode()
            )
            status, body = read_response(conn, timeout=5)
        assert status == 413 and "1 MB" in body["error"]
        assert time.monotonic() - started < 3
        # the same for a JSON route (1 MB for bodies that are not uploads)
        response = httpx.post(
            f"http://127.0.0.1:{port}/api/chair-feedback",
            headers={**auth(AGENT), "Content-Length": str(5 << 20)},
            content=b"{" * (5 << 20),
        )
        assert response.status_code == 413 and "error" in response.json()
    assert upload_dirs(web_settings) == []


def test_a_blocked_upload_does_not_stall_other_requests(app, web_settings):
    """The upload handler's blocking work runs in a worker thread: while one upload waits on a
    database lock (held here), health and a cheap /api read are answered at once."""
    case = vocab.case_number(CASE)
    with ExitStack() as stack:
        port = urlsplit(stack.enter_context(serving(create_app(web_settings, legal=app)))).port
        holder = stack.enter_context(psycopg.connect(web_settings.database_url))
        base = f"http://127.0.0.1:{port}"
        holder.execute("SELECT pg_advisory_xact_lock(hashtext('learning:' || %s))", (case,))
        result: dict = {}

        def upload() -> None:
            headers, body = multipart("d.txt", DRAFT)
            result["response"] = httpx.post(
                f"{base}/api/cases/{CASE_URL}/draft/upload",
                headers={**headers, **auth(AGENT)},
                content=body,
                timeout=30,
            )

        worker = threading.Thread(target=upload)
        worker.start()
        deadline = time.monotonic() + 10
        waiting = 0
        while not waiting and time.monotonic() < deadline:
            with app.store.connection() as conn:
                waiting = conn.execute(
                    "SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
                ).fetchone()["n"]
            time.sleep(0.05)
        assert waiting, "the upload never reached the case lock"
        # a second upload whose body trickles in is also no obstacle
        slow = stack.enter_context(socket.create_connection(("127.0.0.1", port)))
        headers, body = multipart("s.txt", DRAFT)
        slow.sendall(
            (
                f"POST /api/cases/{quote('ערר 2/25')}/draft/upload HTTP/1.1\r\nHost: x"
                f"\r\nAuthorization: Bearer {AGENT}\r\nContent-Type: "
                f"{headers['Content-Type']}\r\nContent-Length: {len(body)}\r\n\r\n"
            ).encode()
            + body[:40]
        )
        for _ in range(3):
            started = time.monotonic()
            assert httpx.get(f"{base}/healthz", timeout=5).json() == {"ok": True}
            lessons = httpx.get(f"{base}/api/lessons", headers=auth(AGENT), timeout=5)
            assert lessons.status_code == 200
            assert time.monotonic() - started < 1.5
        assert "response" not in result  # the upload is still waiting on the lock
        slow.sendall(body[40:])
        assert read_response(slow)[0] == 200
        holder.rollback()  # release the lock: the upload completes
        worker.join(30)
    assert result["response"].status_code == 200, result["response"].text
    assert upload_dirs(web_settings) == []


def test_on_the_desk_what_the_edge_refuses_or_what_crashed_is_a_hebrew_page(app, web_settings):
    """The same refusals on the chair's paths are the desk's page in Hebrew (a NUL in the
    address, a form over the body limit, an error no handler answered), while the API's paths
    keep their JSON."""
    api = create_app(web_settings, legal=app)

    def boom() -> dict:
        raise RuntimeError(f"secret detail in {web_settings.home}/uploads/x")

    api.add_api_route("/search/boom", boom)  # a desk path ("search") that crashes
    with TestClient(api, raise_server_exceptions=False) as c:
        for path, status, hebrew in (
            ("/search?q=%00", 400, "הכתובת מכילה תו אסור"),
            ("/search/boom", 500, "אירעה שגיאה פנימית"),
        ):
            page = c.get(path)
            assert page.status_code == status, path
            assert page.headers["content-type"].startswith("text/html"), path
            assert hebrew in page.text and 'dir="rtl"' in page.text, path
            assert "secret" not in page.text and "incident" not in page.text
        big = c.post(
            "/review/lesson", content=b"x" * (2 << 20), headers={"content-length": str(2 << 20)}
        )
        assert big.status_code == 413 and "הבקשה גדולה מהמותר" in big.text
        assert c.get("/api/lessons?case=%00").json()["code"] == "request.nul"
