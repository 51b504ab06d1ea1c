"""One large upload never takes the desk down (issue 37 item 0). Against a real uvicorn and the
real database:

- a long draft (most of the 1,000,000 characters a draft may have, its discussion copied from
  the other cases' finals, so the copy check has work) and an ordinary draft of another case
  sent at once: while the long one is read, checked and written, pg_stat_activity is sampled —
  no session stays "idle in transaction" and none waits on a lock — the ordinary upload and the
  desk's pages answer, and both drafts are stored whole;
- a file over a draft's limit is refused with the limit in Hebrew before anything is stored,
  on the desk (its form again) and on the API (JSON, 413);
- a busy database (every pooled connection taken) answers the desk with its own Hebrew page,
  503 with Retry-After, and the API with JSON.
"""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

import httpx
import psycopg
import pytest

import factories
from helpers import csrf_of, serving, sign_in, text_of
from legal_ai.app import App
from legal_ai.store.db import Store
from legal_ai.web.app import create_app
from scenarios import COPY_CASE, other_finals, planted_draft

pytestmark = pytest.mark.db
CHAIR_TOKEN = "chair-load-token-0123456789abcdef"
AGENT = "agent-load-token-0123456789abcdef"
OTHER_CASE = "ערר (מרכז) 7002/25"
LONG_CHARS = 900_000


def long_draft() -> str:
    """7001's planted draft with its discussion grown to about LONG_CHARS characters from the
    other cases' finals (numbered paragraphs: each sentence copied, none the same twice)."""
    text = planted_draft()
    sources = [r["final_text"] for r in factories.records()[1:]]
    paragraphs = [p for s in sources for p in s.split("\n\n") if len(p) > 200]
    grown, n = [], 0
    while sum(len(p) for p in grown) < LONG_CHARS - len(text):
        grown.append(f"{n + 1}. {paragraphs[n % len(paragraphs)]} (פסקה {n + 1})")
        n += 1
    at = text.index("\n\nסוף דבר")
    return text[:at] + "\n\n" + "\n\n".join(grown) + text[at:]


def stored_drafts(app) -> dict[str, int]:
    with app.store.as_role(None).connection() as conn:
        rows = conn.execute(
            "SELECT case_number, length(content) AS n FROM drafts ORDER BY id"
        ).fetchall()
    return {r["case_number"]: r["n"] for r in rows}


class Activity(threading.Thread):
    """Samples pg_stat_activity of the test database every 20 ms until stopped: the longest a
    session stayed "idle in transaction", and every session seen waiting on a lock."""

    def __init__(self, db_url: str) -> None:
        super().__init__(daemon=True)
        self.db_url, self.stop, self.samples = db_url, threading.Event(), 0
        self.idle_in_transaction: list[tuple[float, str]] = []
        self.lock_waits: list[str] = []

    def run(self) -> None:
        with psycopg.connect(self.db_url, autocommit=True) as conn:
            while not self.stop.is_set():
                rows = conn.execute(
                    "SELECT state, wait_event_type, query,"
                    " extract(epoch FROM now() - state_change) AS idle_s"
                    " FROM pg_stat_activity WHERE datname = current_database()"
                    " AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
                ).fetchall()
                for state, wait, query, idle_s in rows:
                    if state and state.startswith("idle in transaction"):
                        self.idle_in_transaction.append((float(idle_s), query[:120]))
                    if wait == "Lock":
                        self.lock_waits.append(query[:120])
                self.samples += 1
                time.sleep(0.02)


def upload(client: httpx.Client, case: str, text: str, name: str = "draft.txt"):
    token = csrf_of(client.get("/cases").text)
    return client.post(
        "/cases/draft/upload",
        data={"csrf": token, "case_number": case},
        files={"file": (name, text.encode(), "text/plain")},
        follow_redirects=False,
    )


@pytest.fixture
def served(desk_app):
    settings = desk_app.settings.model_copy(
        update={"chair_token": CHAIR_TOKEN, "agent_token": f"writer={AGENT}"}
    )
    with serving(create_app(settings, legal=desk_app)) as url:
        yield url


@contextmanager
def signed_in(url: str) -> Iterator[httpx.Client]:
    """A client of the desk at `url`, signed in as the chair; closed after the block."""
    with httpx.Client(base_url=url, timeout=120) as client:
        assert sign_in(client).status_code == 303
        yield client


def test_a_long_upload_holds_no_transaction_and_the_desk_keeps_answering(
    desk_app, tmp_path, served, db_url
):
    other_finals(desk_app, tmp_path)
    text = long_draft()
    assert 800_000 < len(text) <= 1_000_000
    with signed_in(served) as long_client, signed_in(served) as other:
        answers, timings, activity = sent_at_once(long_client, other, text, db_url)
    print(
        f"long upload {answers['long_s']:.1f} s; the others {timings}; {activity.samples} samples"
    )

    assert answers["ordinary"].status_code == 303, answers["ordinary"].text[:500]
    assert answers["long"].status_code == 303, answers["long"].text[:500]
    assert answers["overlap"], "the long upload ended before the others were asked"
    assert activity.samples > 20
    # No session held a transaction open while it computed, none waited on a lock.
    longest = max(activity.idle_in_transaction, default=(0.0, ""))
    assert longest[0] < 0.5, longest
    assert activity.lock_waits == []
    drafts = stored_drafts(desk_app)
    assert drafts[COPY_CASE] > 800_000 and OTHER_CASE in drafts


def sent_at_once(long_client: httpx.Client, other: httpx.Client, text: str, db_url: str):
    """The long draft sent; while it is on its way, the desk's pages and an ordinary draft of
    another case asked for by another session: the answers (`overlap`: the long upload still
    running when the others were done), their timings, what pg_stat_activity showed."""
    activity = Activity(db_url)
    answers: dict = {}

    def send_long() -> None:
        started = time.monotonic()
        answers["long"] = upload(long_client, COPY_CASE, text)
        answers["long_s"] = time.monotonic() - started

    activity.start()
    sender = threading.Thread(target=send_long)
    sender.start()
    time.sleep(0.5)  # the long draft is on its way or being checked
    timings = {}
    for path in ("/cases", "/", "/search", "/learning"):
        started = time.monotonic()
        page = other.get(path)
        timings[path] = round(time.monotonic() - started, 2)
        assert page.status_code == 200, (path, page.status_code)
    started = time.monotonic()
    answers["ordinary"] = upload(other, OTHER_CASE, planted_draft().replace("7001/25", "7002/25"))
    timings["ordinary upload"] = round(time.monotonic() - started, 2)
    answers["overlap"] = sender.is_alive()
    sender.join(120)
    activity.stop.set()
    activity.join(5)
    return answers, timings, activity


def test_a_draft_over_its_limit_is_refused_in_hebrew_before_anything_is_stored(desk_app, served):
    with signed_in(served) as client:
        refused_over_its_limit(desk_app, served, client)


def refused_over_its_limit(desk_app, served: str, client: httpx.Client) -> None:
    form = client.get("/cases").text
    said = text_of(form)
    # Said in the form before she sends: a Word, old-format or PDF file up to 10 MB, text 2 MB,
    # a scan (kept for OCR) up to a ruling's 50 MB.
    assert "PDF, DOCX, DOC, RTF או ODT עד 10 מגה־בייט; TXT או MD עד 2 מגה־בייט" in said
    assert "סריקה, PDF ללא שכבת טקסט, עד 50 מגה־בייט" in said
    assert 'data-caps="pdf:50,docx:10,doc:10,rtf:10,odt:10,txt:2,md:2"' in form
    big = "פסקה ארוכה של טקסט. " * 70_000  # 2.3 MB as UTF-8
    assert len(big.encode()) > 2 << 20
    refused = upload(client, "ערר (מרכז) 7003/25", big, "big.txt")
    assert refused.status_code == 413
    page = text_of(refused.text)
    assert "הקובץ גדול מהמותר לטיוטה או להחלטה: עד 2 מגה־בייט" in page
    assert "דבר לא נשמר" in page
    assert 'aria-invalid="true"' in refused.text  # beside the file field
    assert stored_drafts(desk_app) == {}
    with desk_app.store.as_role(None).connection() as conn:
        assert conn.execute("SELECT count(*) AS n FROM cases").fetchone()["n"] == 0
    # Declared larger than any draft may be: refused before the body is read, in Hebrew.
    declared = declared_upload(served, client, 64 << 20)
    assert declared.startswith("HTTP/1.1 413"), declared[:200]
    assert "עד 50 מגה־בייט" in text_of(declared)  # the largest it takes: a scan's
    # The API: JSON, the limit named.
    api = httpx.post(
        f"{served}/api/cases/{COPY_CASE}/draft/upload",
        headers={"Authorization": f"Bearer {AGENT}"},
        files={"file": ("big.txt", big.encode(), "text/plain")},
    )
    assert api.status_code == 413
    assert "over the 2 MB upload limit of a draft or final as TXT" in api.json()["error"]
    assert stored_drafts(desk_app) == {}


def declared_upload(served: str, client: httpx.Client, length: int) -> str:
    """A draft upload on the desk that declares `length` bytes and sends none (httpx would not
    send a length it does not hold): the raw answer."""
    port = urlsplit(served).port
    cookies = "; ".join(f"{k}={v}" for k, v in client.cookies.items())
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(
            (
                "POST /cases/draft/upload HTTP/1.1\r\nHost: x\r\n"
                f"Cookie: {cookies}\r\nContent-Length: {length}\r\n"
                "Content-Type: multipart/form-data; boundary=x\r\n\r\n"
            ).encode()
        )
        answer = b""
        while b"</html>" not in answer:
            chunk = conn.recv(65536)
            if not chunk:
                break
            answer += chunk
    return answer.decode("utf-8", errors="replace")


@pytest.fixture
def small_pool(desk_app, settings, e5):
    """An App over the test database whose pool has two connections (a desk page may take a
    second while it holds one) and waits 1 s for one."""
    store = Store(settings.database_url, max_size=2, timeout=1.0, migrate=False)
    legal = App(settings, store=store, embedder=e5, migrate=False)
    try:
        yield legal
    finally:
        store.close()


def test_a_busy_pool_answers_the_desk_in_hebrew_and_the_api_in_json(small_pool, desk_app):
    settings = small_pool.settings.model_copy(
        update={"chair_token": CHAIR_TOKEN, "agent_token": f"writer={AGENT}"}
    )
    with serving(create_app(settings, legal=small_pool)) as url, signed_in(url) as client:
        assert client.get("/cases").status_code == 200
        pool = small_pool.store.pool
        with pool.connection(), pool.connection():  # every connection, taken
            page = client.get("/cases")
            sent = upload_without_form(client, url)
            api = httpx.get(
                f"{url}/api/learning/pairs", headers={"Authorization": f"Bearer {AGENT}"}
            )
        assert page.status_code == 503
        assert page.headers["Retry-After"] == "1"
        said = text_of(page.text)
        assert "המערכת עמוסה כרגע" in said and "נסי שוב בעוד כמה שניות" in said
        shown = re.sub(r"<[^>]+>", " ", page.text.split("<main", 1)[1].split(">", 1)[1])
        assert not re.search(r"[A-Za-z]{4,}", shown), shown
        assert sent.status_code == 503 and "גם הקובץ ששלחת לא נשמר" in text_of(sent.text)
        assert api.status_code == 503 and api.headers["Retry-After"] == "1"
        assert api.json()["error"] == (
            "the database is busy: no connection or lock was free in time; nothing "
            "was written, try again shortly"
        )
        assert api.json()["code"] == "store.busy"
        assert client.get("/cases").status_code == 200  # free again: the desk answers
    assert stored_drafts(desk_app) == {}


def upload_without_form(client: httpx.Client, url: str):
    """A draft sent while the pool is taken (its token never checked: the session cannot be
    read)."""
    return client.post(
        "/cases/draft/upload",
        data={"csrf": "stale", "case_number": OTHER_CASE},
        files={"file": ("draft.txt", planted_draft().encode(), "text/plain")},
        follow_redirects=False,
    )
