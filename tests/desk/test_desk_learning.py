"""/learning in the real headless Chromium (issue 23 item 3): the style-distance plot as the chair
sees it — every Hebrew label of the drawn SVG (the legend's blocks, the axes' names) read back
from the page with where the browser put its first and its last letter, which must run right to
left (כותרת drawn as written, never תרתוכ); the horizontal axis the order the finals were learned
(1, 2 …), not their decision dates; the table in that order too, each row with its decision
date; on a phone, no sideways scroll. The SVG itself (every value inside its axes, the legend as
text, the ticks) is tested in tests/learning/test_dashboard.py."""

import pytest

import factories
from desk_browser import PHONE, screenshot, sign_in
from legal_ai.learning.pairs import dashboard, drafts, finals

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


def test_the_plot_reads_right_to_left_in_the_order_learned(page, desk, tmp_path):
    # Uploaded in this order; the second was decided two years before the first.
    cases = _pairs(desk.legal, tmp_path, ["2025-09-01", "2023-06-15"])
    sign_in(page, desk, next_path="/learning")
    assert page.get_attribute("figure.plot", "data-points") == "2"
    drawn = {d["text"]: d for d in page.evaluate(DRAWN)}
    # The legend's blocks and the axes' names, each drawn from right to left as it is written.
    for label in ("כותרת", "פתח דבר", "דיון והכרעה", "אחוז השינוי", dashboard.ORDER_AXIS):
        assert label in drawn, (label, sorted(drawn))
    for text, where in drawn.items():
        assert where["first"] > where["last"], f"{text} drawn left to right (reversed)"
    # The horizontal axis: the order learned, the first learned on the left; no dates.
    ticks = [text for _, text in sorted(page.evaluate(TICKS))]
    assert ticks == ["1", "2"]
    assert "לפי הסדר שבו נלמדו" in page.inner_text("figure.plot figcaption")
    # The table: in the order learned, each row with its decision date.
    rows = page.locator("table.figures tbody tr")
    assert rows.count() == 2
    first, second = rows.nth(0).inner_text(), rows.nth(1).inner_text()
    assert first.startswith("1") and "1.9.2025" in first and cases[0] in first
    assert second.startswith("2") and "15.6.2023" in second and cases[1] in second
    # The plain sentence stays first.
    assert page.locator("p.said.trend").count() == 1
    screenshot(page, "learning")
    page.set_viewport_size(PHONE)
    page.goto("/learning")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
