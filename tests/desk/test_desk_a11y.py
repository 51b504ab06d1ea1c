"""Accessibility (issue 23 item 6), in the test Chromium. Every desk page the FastAPI app serves
by GET — found from its routes, so a page added later is checked too, its path parameters filled
from a small world — with the pages' variants of tests/desk/test_desk_hebrew.py, both upload
answers, the sign-in page (also with its refusal) and the error page, is checked (its <details>
opened) by axe-core against WCAG 2.1 A and AA: a serious or critical violation fails, named by
its rule, its elements and axe's help. Beside axe, what it does not measure (tests/desk_a11y.py):
each control's border against what is behind it (3:1), a Hebrew name on every control, no
timestamp broken over two lines (at 1280 and 768 wide), <html lang="he" dir="rtl">; the skip
link first, taking her to <main>; a focus ring of 3:1 on everything Tab reaches; and desk.css's
colours by the WCAG formula."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from fastapi.routing import APIRoute
from test_desk_hebrew import PAGES, world

from desk_a11y import (
    BROKEN_TIMES,
    FOCUSED,
    WHITE,
    contrast,
    custom_properties,
    hex_rgb,
    page_problems,
    weak_focus,
)
from desk_browser import sign_in
from helpers import set_chair_password
from legal_ai.auth import CHAIR
from legal_ai.learning.methodology import profiles as methodology
from legal_ai.web.desk import core

pytestmark = pytest.mark.db

CSS = core.HERE / "static" / "desk.css"
NARROW = {"width": 768, "height": 1024}
# A page's path parameters, from the world below (a new page with another parameter fails the
# test until its value is added here), and the query parameters a page requires.
PATH_VALUES = {"corpus": "external", "doc_id": "ruling-1", "appeal_type": "permit"}
QUERY_VALUES = {"a": "1", "b": "2"}
# Desk paths that are no page of their own here: the static files, a kept file sent as it was
# uploaded, an upload on its way (its token or scan lives only while it waits), a case's
# cite-check report (tests/desk/test_cite_report_browser.py draws it).
ELSEWHERE = ("/desk-static", "/original", "/uploads/", "/cite-report/")


def desk_paths(api, values: dict[str, str]) -> list[str]:
    """Every desk page served by GET, its path parameters filled from `values` (the API's
    routes and the static files left out)."""
    paths = []
    for route in api.routes:
        if not isinstance(route, APIRoute) or "GET" not in route.methods:
            continue
        if not core.is_desk(route.path) or route.path.startswith(ELSEWHERE):
            continue
        params = {p.name for p in route.dependant.path_params}
        missing = params - values.keys()
        assert not missing, f"{route.path}: give its {sorted(missing)} a value in PATH_VALUES"
        path = route.path_format.format(**{p: quote(values[p], safe="") for p in params})
        query = [
            f"{p.name}={QUERY_VALUES[p.name]}"
            for p in route.dependant.query_params
            if p.field_info.is_required()
        ]
        paths.append(path + ("?" + "&".join(query) if query else ""))
    return paths


def check(page, found: dict, name: str) -> None:
    """The page at the laptop's width, then its timestamps at a tablet's."""
    problems = page_problems(page)
    wide = page.viewport_size
    page.set_viewport_size(NARROW)
    problems += [f"a timestamp broken at 768 wide: {t}" for t in page.evaluate(BROKEN_TIMES)]
    page.set_viewport_size(wide)
    if problems:
        found[name] = problems


def test_every_desk_page_passes_axe(page, desk, chair, desk_app, tmp_path):
    shown = world(chair, desk_app, tmp_path)
    methodology.edit(
        desk_app.acting_as(CHAIR), "permit", {"anti_patterns": ["במאמר מוסגר"]}, reason="השוואה"
    )
    set_chair_password(desk_app, desk.password)  # `chair` set its own
    sign_in(page, desk)
    assert "/login" not in page.url
    paths = desk_paths(desk.api, {**PATH_VALUES, "case": shown["case"]})
    assert {"/", "/search", "/cases", "/training", "/login"} <= set(paths)
    found: dict[str, list[str]] = {}
    checked = []
    for path in dict.fromkeys([p for p in paths if p != "/login"] + list(PAGES)):
        response = page.goto(path)
        assert response.status == 200 and "/login" not in page.url, (path, page.url)
        if "text/html" not in response.headers.get("content-type", ""):
            continue  # a JSON answer on a desk path is no page
        checked.append(path)
        check(page, found, path)
    for name in ("draft", "final"):  # the upload's answers, as the browser would show them
        page.goto("/cases")
        page.set_content(shown[name])
        check(page, found, f"{name} upload")
    response = page.goto("/training/no-such-page")
    assert response.status == 404 and page.locator("h1").inner_text() == "לא בוצע"
    check(page, found, "error page")
    page.goto("/")
    with page.expect_navigation():
        page.click("form.logout button")
    check(page, found, "/login")
    page.fill("input[name=password]", "wrong password!")
    with page.expect_navigation():
        page.click("form[action='/login'] button[type=submit]")
    assert page.locator("[role=alert]").count() == 1
    check(page, found, "/login refused")
    assert len(checked) >= len(paths) - 1
    report = "\n".join(f"{where}:\n  " + "\n  ".join(p) for where, p in found.items())
    assert not found, "accessibility (axe-core WCAG 2.1 A/AA serious+, and more):\n" + report


def test_skip_link_first_then_a_visible_focus_ring(page, desk):
    """Tab's first stop is "דלג לתוכן", shown when focused; Enter puts the focus on <main>;
    every stop Tab reaches on three pages shows a ring of 2px or more at 3:1."""
    sign_in(page, desk)
    page.keyboard.press("Tab")
    skip = page.evaluate(FOCUSED)
    assert (skip["tag"], skip["text"]) == ("A", "דלג לתוכן"), skip
    assert skip["box"]["width"] > 0 and skip["box"]["top"] >= 0, skip  # seen when focused
    assert weak_focus(skip) is None
    page.keyboard.press("Enter")
    assert page.evaluate("[document.activeElement.tagName, location.hash]") == ["MAIN", "#content"]
    weak = []
    for path in ("/", "/search?corpus=external", "/cases"):
        page.goto(path)
        seen = set()
        for _ in range(40):
            page.keyboard.press("Tab")
            focused = page.evaluate(FOCUSED)
            key = (focused["tag"], focused["id"], focused["name"], focused["href"], focused["text"])
            if focused["tag"] == "BODY" or (seen and focused["text"] == "דלג לתוכן"):
                break  # around the page, back at its start
            seen.add(key)
            if problem := weak_focus(focused):
                weak.append(f"{path}: {problem}")
        assert len(seen) >= 5, (path, seen)
    assert weak == []


def test_stylesheet_colours_meet_wcag_contrast():
    """desk.css's custom properties: text 4.5:1 on white and on the page's background; a
    field's border and the focus ring 3:1 on both (WCAG 1.4.11); the fields take that border,
    checkboxes keep their own box, and :focus-visible draws the ring."""
    css = CSS.read_text(encoding="utf-8")
    colour = {k: hex_rgb(v) for k, v in custom_properties(css).items() if v.startswith("#")}
    grounds = {"white": WHITE, "page": colour["bg"]}
    low = [
        (name, where, round(contrast(colour[name], ground), 2))
        for need, names in (
            (4.5, ("ink", "muted", "accent", "ok", "bad", "warn")),
            (3, ("control", "focus")),
        )
        for name in names
        for where, ground in grounds.items()
        if contrast(colour[name], ground) < need
    ]
    assert low == []
    fields = re.search(r"\ninput:where\(:not\(\[type=checkbox\][^{]*\{([^}]*)\}", css).group(1)
    assert "border: 1px solid var(--control)" in fields
    assert re.search(r"\n:focus-visible\s*\{[^}]*outline: 3px solid var\(--focus\)", css)
    assert contrast(colour["line"], WHITE) < 3  # why --line never marks a control alone
    assert contrast(hex_rgb("#767676"), WHITE) == pytest.approx(4.54, abs=0.01)  # the formula


FAULTY = """<!doctype html><html lang="en"><head><title>x</title></head><body><main>
<h1>בדיקה</h1>
<label>שדה <input name="faint" style="border: 1px solid #d7dce3"></label>
<input name="nameless">
<label style="display: flex; flex-direction: column">בחירה <input type="checkbox" name="bar"></label>
<p style="width: 5.5rem">עודכן ב־1.6.2021 19:05</p>
</main></body></html>"""


def test_the_checks_find_what_they_look_for(page):
    """Each check of tests/desk_a11y.py on a page with its fault: a field's faint border, a
    control without a name, a checkbox stretched into a bar, a broken timestamp, English."""
    page.set_content(FAULTY)
    found = "\n".join(page_problems(page))
    assert "<html lang dir> is ['en', '']" in found
    assert "label (critical)" in found and 'input[name="nameless"]' in found  # axe-core
    assert "control border 1.38:1 at 1px (WCAG 1.4.11 wants 3:1): faint" in found
    assert 'a control without a Hebrew name: <input name="nameless">' in found
    assert "a checkbox drawn as a bar: bar" in found
    assert "a timestamp broken over two lines: 1.6.2021 19:05" in found
