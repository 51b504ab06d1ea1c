"""The desk's browser fixtures (their helpers, `sign_in` and `screenshot`, are in
tests/desk_browser.py): `chromium` per module, `desk_server` per session, `desk` and `page` per
test. The fixtures every desk test uses (`desk_app`, `client`, `chair`) are tests/conftest.py's,
shared with the tests of other folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from desk_browser import AGENT_TOKEN, CHAIR_TOKEN, CHROMIUM, FLAGS, VIEWPORT, Desk, unavailable
from helpers import serving, set_chair_password


@pytest.fixture(scope="module")
def chromium():
    """A headless Chromium (Debian's, driven by Playwright) for one test module. Not longer:
    Playwright's sync API keeps an asyncio loop running in the main thread while it is started,
    and every later test that calls asyncio.run (the MCP client, the model SDKs) would fail."""
    if not Path(CHROMIUM).exists():
        unavailable(f"no chromium at {CHROMIUM}: run scripts/install-system (apt: chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("the playwright package is not installed: make install (the dev extra)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="session")
def desk_server(session_app, settings):
    """One uvicorn server in a thread for the session, serving create_app over the test App."""
    from legal_ai.web.app import create_app
    from legal_ai.web.clients import uvicorn_options

    served = settings.model_copy(update={"chair_token": CHAIR_TOKEN, "agent_token": AGENT_TOKEN})
    api = create_app(served, session_app)
    # `legal-ai serve`'s own options (the request head's size: a long query in the address).
    with serving(api, access_log=False, **uvicorn_options(served)) as url:
        yield Desk(url, session_app, api, served)


@pytest.fixture
def desk(app, desk_server):
    """The desk over this test's emptied database (the desk's tables with the rest), with the
    chair's password set (helpers.set_chair_password: hashed once per session)."""
    set_chair_password(app, desk_server.password)
    return desk_server


@pytest.fixture
def page(chromium, desk):
    """A fresh browser context (no cookies) and its page; relative URLs go to the desk."""
    context = chromium.new_context(base_url=desk.url, locale="he-IL", viewport=VIEWPORT)
    try:
        yield context.new_page()
    finally:
        context.close()
