"""The browser-test infrastructure itself (tests/desk/conftest.py, tests/desk_browser.py):
Debian's chromium, driven by Playwright, opens a Hebrew right-to-left page served by the desk's
server, lays it out right to left, draws its letters with a real Hebrew font (not boxes), and a
screenshot is saved."""

import subprocess

import pytest
from fastapi.responses import HTMLResponse

from desk_browser import screenshot, sign_in

pytestmark = pytest.mark.db

TITLE = 'שולחן היו"ר — בדיקת עברית'
CASE = "ערר (מרכז) 1042/23"
SMOKE = f"""<!doctype html>
<html lang="he" dir="rtl"><head><meta charset="utf-8"><title>בדיקה</title>
<style>body {{ font-family: sans-serif; margin: 24px; }} h1 {{ font-size: 28px; }}</style>
</head><body><h1 id="title">{TITLE}</h1><p id="case">{CASE}</p>
<p id="niqqud">בְּרֵאשִׁית — גֵּרֵשׁ: ג׳, גרשיים: תשפ״ה</p></body></html>"""


@pytest.fixture
def smoke_route(desk):
    """A static Hebrew page on the desk's server, for this test only (the desk's own pages are
    tested by the UI's browser tests)."""
    if not any(getattr(r, "path", None) == "/__browser-smoke" for r in desk.api.routes):
        desk.api.add_api_route("/__browser-smoke", lambda: HTMLResponse(SMOKE), methods=["GET"])
    return "/__browser-smoke"


def test_hebrew_renders_right_to_left(page, smoke_route):
    response = page.goto(smoke_route)
    assert response.status == 200
    assert page.inner_text("#title") == TITLE
    assert page.inner_text("#case") == CASE
    assert page.evaluate("getComputedStyle(document.getElementById('title')).direction") == "rtl"
    # Right to left: the heading's text hugs the right margin, not the left.
    box = page.evaluate("""() => {
        const range = document.createRange();
        range.selectNodeContents(document.getElementById('title'));
        const r = range.getBoundingClientRect();
        return {left: r.left, right: r.right, width: document.documentElement.clientWidth};
    }""")
    assert abs(box["width"] - 24 - box["right"]) < 2 and box["left"] > 200
    # The letters are drawn from a font that has them (a box glyph comes from no font): one
    # fontconfig says covers Hebrew (Noto's, DejaVu, or Liberation when LibreOffice brought it).
    listed = subprocess.run(
        ["fc-list", ":lang=he", "family"], capture_output=True, text=True, check=True
    ).stdout
    hebrew = {name.strip() for line in listed.splitlines() for name in line.split(",")}
    cdp = page.context.new_cdp_session(page)
    root = cdp.send("DOM.getDocument")["root"]["nodeId"]
    cdp.send("CSS.enable")
    for selector in ("#title", "#case", "#niqqud"):
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
        families = {f["familyName"] for f in fonts}
        assert families and families <= hebrew, (selector, families)
    path = screenshot(page, "browser-smoke")
    assert path.stat().st_size > 2000


def test_the_desk_signs_the_chair_in(page, desk):
    """The desk fixture's password signs the chair in through the real /login form."""
    sign_in(page, desk)
    cookies = {c["name"]: c for c in page.context.cookies()}
    assert cookies["legal_ai_desk"]["httpOnly"] and cookies["legal_ai_desk"]["sameSite"] == "Strict"
    assert "/login" not in page.url
