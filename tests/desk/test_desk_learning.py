"""/learning in the real headless Chromium (issue 23 item 3): the style-distance plot as the chair
sees it — every Hebrew label of the drawn SVG (the legend's blocks, the axes' names) read back
from the page with where the browser put its first and its last letter, which must run right to
left (כותרת drawn as written, never תרתוכ); the time axis's dates (1.6.2021) in the order of the
decisions' dates, not of their uploads; the table by decision date too. The SVG itself (every
value inside its axes, the legend as text, the dates) is tested in tests/learning/test_dashboard.py."""

import datetime as dt

import pytest

import factories
from desk_browser import screenshot, sign_in
from legal_ai.learning.pairs import drafts, finals

pytestmark = pytest.mark.db

# Every <text> of the plot holding Hebrew: its text, and the x of its first and last letter in
# the text's own coordinates (getExtentOfChar: where the browser drew each character).
DRAWN = """() => [...document.querySelectorAll('figure.plot svg text')]
  .filter(t => /[\\u0590-\\u05ff]/.test(t.textContent))
  .map(t => {
    const n = t.getNumberOfChars();
    return {text: t.textContent, first: t.getExtentOfChar(0).x,
            last: t.getExtentOfChar(n - 1).x};
  })"""
TICKS = """() => [...document.querySelectorAll('figure.plot svg g[id^=xtick_] text')]
  .map(t => [t.getBoundingClientRect().left, t.textContent])"""


def _pairs(app, tmp_path, decided: list[str]) -> list[str]:
    """The first fixture pairs uploaded in order, their finals decided on `decided`."""
    cases = []
    for record, day in zip(factories.records(), decided, strict=False):
        draft, final = tmp_path / f"{day}.draft.txt", tmp_path / f"{day}.final.txt"
        draft.write_text(record["draft_text"], encoding="utf-8")
        final.write_text(record["final_text"], encoding="utf-8")
        drafts.add_draft(
            app,
            record["case_number"],
            draft,
            appeal_type=record["appeal_type"],
            outcome=record["outcome"],
            practice_area=record["practice_area"],
        )
        finals.upload_final(app, record["case_number"], final, decided_on=day)
        cases.append(record["case_number"])
    return cases


def test_the_plot_reads_right_to_left_by_decision_date(page, desk, tmp_path):
    # Uploaded in this order; the second was decided two years before the first.
    cases = _pairs(desk.legal, tmp_path, ["2025-09-01", "2023-06-15"])
    sign_in(page, desk, next_path="/learning")
    assert page.get_attribute("figure.plot", "data-points") == "2"
    drawn = {d["text"]: d for d in page.evaluate(DRAWN)}
    # The legend's blocks and the axes' names, each drawn from right to left as it is written.
    for label in ("כותרת", "פתח דבר", "דיון והכרעה", "אחוז השינוי", "תאריך ההחלטה"):
        assert label in drawn, (label, sorted(drawn))
    for text, where in drawn.items():
        assert where["first"] > where["last"], f"{text} drawn left to right (reversed)"
    # The time axis: the two decision dates, the earlier on the left, written 15.6.2023.
    ticks = [text for _, text in sorted(page.evaluate(TICKS))]
    assert ticks == ["15.6.2023", "1.9.2025"]
    dates = [dt.datetime.strptime(t, "%d.%m.%Y").date() for t in ticks]
    assert dates == sorted(dates)
    # The table: by decision date, the later upload first.
    rows = page.locator("table.figures tbody tr")
    assert rows.count() == 2
    assert "15.6.2023" in rows.nth(0).inner_text() and cases[1] in rows.nth(0).inner_text()
    assert "1.9.2025" in rows.nth(1).inner_text()
    screenshot(page, "learning")
