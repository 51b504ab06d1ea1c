"""Browser-test helpers for the chair's desk (issue 12), imported by the browser tests:

    from desk_browser import (  # noqa: F401 - the fixtures register under their names
        chromium_fixture, desk_fixture, desk_server_fixture, page_fixture, screenshot, sign_in)

and use the fixtures by name: `def test_x(page, desk): ...`.

- `chromium` (session): Playwright's Python package driving Debian's chromium (/usr/bin/chromium,
  installed by scripts/install-system with fonts-noto-core for Hebrew) through
  `executable_path`: Playwright's own browser download is never used (`playwright install` is
  not run; its download host is unreachable here). Without chromium the test is skipped with the
  reason, except under CI=true, where it fails.
- `desk` (per test): the app's HTTP server (`create_app`, the desk's pages and the API) served by
  uvicorn on 127.0.0.1 at a free port, in a thread, over the test `app` (the database emptied
  per test, the desk's sign-in tables too), with a chair token, an agent token and the chair's
  desk password set. One server per session; each test gets it fresh.
- `page` (per test): a new browser context (Hebrew locale, a laptop's viewport) and its page,
  whose relative URLs go to the desk.
- `sign_in(page, desk)`: the chair signs in through the /login form.
- `screenshot(page, name)`: a full-page PNG at docs/desk/NAME.png (docs/desk.md embeds them).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "docs" / "desk"
CHROMIUM = (
    os.environ.get("LEGAL_AI_TEST_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
)
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
CHAIR_TOKEN = "desk-test-chair-token"
AGENT_TOKEN = "desk-test-agent-token"
PASSWORD = "סיסמת-בדיקה 1042/23"  # Hebrew, a space, digits and a slash
VIEWPORT = {"width": 1280, "height": 860}


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="module", name="chromium")
def chromium_fixture():
    """A headless Chromium (Debian's, driven by Playwright) for one test module. Not longer:
    Playwright's sync API keeps an asyncio loop running in the main thread while it is started,
    and every later test that calls asyncio.run (the MCP client, the model SDKs) would fail."""
    if not Path(CHROMIUM).exists():
        _unavailable(f"no chromium at {CHROMIUM}: run scripts/install-system (apt: chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package is not installed: make install (the dev extra)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class Desk:
    """The served desk: its base URL, the App under it, the FastAPI app, the credentials."""

    url: str
    legal: Any
    api: Any
    settings: Any
    chair_token: str = CHAIR_TOKEN
    agent_token: str = AGENT_TOKEN
    name: str = "chair"
    password: str = PASSWORD


def _free_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


@pytest.fixture(scope="session", name="desk_server")
def desk_server_fixture(session_app, settings):
    """One uvicorn server in a thread for the session, serving create_app over the test App."""
    import uvicorn

    from legal_ai.web.app import create_app

    served = settings.model_copy(update={"chair_token": CHAIR_TOKEN, "agent_token": AGENT_TOKEN})
    api = create_app(served, session_app)
    sock = _free_socket()
    config = uvicorn.Config(api, log_level="warning", lifespan="off", access_log=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the desk's test server did not start")
        time.sleep(0.02)
    host, port = sock.getsockname()
    try:
        yield Desk(f"http://{host}:{port}", session_app, api, served)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@pytest.fixture(name="desk")
def desk_fixture(app, desk_server):
    """The desk over this test's emptied database, with the chair's password set."""
    from legal_ai import accounts

    with app.store.transaction() as conn:
        conn.execute("TRUNCATE desk_sessions, desk_login_failures, desk_users")
    accounts.set_password(app, desk_server.name, desk_server.password)
    return desk_server


@pytest.fixture(name="page")
def page_fixture(chromium, desk):
    """A fresh browser context (no cookies) and its page; relative URLs go to the desk."""
    context = chromium.new_context(base_url=desk.url, locale="he-IL", viewport=VIEWPORT)
    try:
        yield context.new_page()
    finally:
        context.close()


def sign_in(page, desk: Desk, *, next_path: str | None = None) -> None:
    """The chair signs in through the desk's /login form."""
    page.goto("/login" + (f"?next={next_path}" if next_path else ""))
    page.fill("input[name=name]", desk.name)
    page.fill("input[name=password]", desk.password)
    with page.expect_navigation():
        page.click("form[action='/login'] button[type=submit]")


def screenshot(page, name: str) -> Path:
    """Save a full-page screenshot as docs/desk/NAME.png (name: letters, digits, - and _)."""
    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]{0,60}", name):
        raise ValueError(f"screenshot name {name!r}: use a-z, 0-9, - and _")
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
