"""Browser-test helpers for the chair's desk (issue 12). The fixtures are tests/desk/conftest.py's,
offered to every test of tests/desk by name (`def test_x(page, desk): ...`):

- `chromium` (per module): Playwright's Python package driving Debian's chromium
  (/usr/bin/chromium, installed by scripts/install-system with fonts-noto-core for Hebrew)
  through `executable_path`: Playwright's own browser download is never used (`playwright
  install` is not run; its download host is unreachable here). Without chromium the test is
  skipped with the reason, except under CI=true, where it fails.
- `desk` (per test): the app's HTTP server (`create_app`, the desk's pages and the API) served by
  uvicorn on 127.0.0.1 at a free port, in a thread, over the test `app` (the database emptied
  per test, the desk's sign-in tables too), with a chair token, an agent token and the chair's
  desk password set. One server per session; each test gets it fresh.
- `page` (per test): a new browser context (Hebrew locale, a laptop's viewport) and its page,
  whose relative URLs go to the desk.

Here, imported by the browser tests: `sign_in(page, desk)` (the chair signs in through the /login
form), `screenshot(page, name)` (a full-page PNG at docs/desk/NAME.png, which docs/desk.md
embeds), the served `Desk`, and what the fixtures use (`CHROMIUM`, `FLAGS`, `VIEWPORT`, the
tokens and the password, `unavailable()`).
"""

from __future__ import annotations

import os
import re
import shutil
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
PHONE = {"width": 390, "height": 844}  # a phone held upright


def unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI: {reason}", pytrace=False)
    pytest.skip(reason)


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


def sign_in(page, desk: Desk, *, next_path: str | None = None) -> None:
    """The chair signs in through the desk's /login form."""
    page.goto("/login" + (f"?next={next_path}" if next_path else ""))
    page.fill("input[name=name]", desk.name)
    page.fill("input[name=password]", desk.password)
    with page.expect_navigation():
        page.click("form[action='/login'] button[type=submit]")


def screenshot(page, name: str) -> Path:
    """Save a full-page screenshot as docs/desk/NAME.png (name: letters, digits, - and _).
    Every page shot is first checked for a field whose placeholder is drawn cut off."""
    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]{0,60}", name):
        raise ValueError(f"screenshot name {name!r}: use a-z, 0-9, - and _")
    cut = cut_placeholders(page)
    assert not cut, f"{name}: the placeholder of {cut} does not fit its field"
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


# The fields whose placeholder the browser draws cut off: the placeholder's text, in the field's
# own computed font, wider than the field's content box (its width less its padding).
_CUT_PLACEHOLDERS = """() => {
  const measure = document.createElement("canvas").getContext("2d");
  return [...document.querySelectorAll("input[placeholder], textarea[placeholder]")]
    .filter((field) => field.offsetParent !== null)
    .filter((field) => {
      const style = getComputedStyle(field);
      measure.font = style.font;
      const room = field.clientWidth - parseFloat(style.paddingLeft)
        - parseFloat(style.paddingRight);
      return measure.measureText(field.placeholder).width > room + 1;
    })
    .map((field) => field.name || field.id);
}"""


def cut_placeholders(page) -> list[str]:
    """The names of the shown fields whose placeholder does not fit them (none: [])."""
    return page.evaluate(_CUT_PLACEHOLDERS)
