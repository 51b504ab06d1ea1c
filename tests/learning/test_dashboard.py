"""The learning dashboard (issue 12): figures per analyzed final and per block, the SVG plot with
one marker per history row in each series, its Hebrew left as text for the browser, and the
chair's feedback counted by week, as a series and as the table of the desk's /learning page
(conftest.py's `chair`)."""

import re
import xml.etree.ElementTree as ET

import pytest

import factories
from helpers import write
from legal_ai.errors import InvalidInput
from legal_ai.learning import dashboard, drafts, finals

pytestmark = pytest.mark.db

SVG = "{http://www.w3.org/2000/svg}"


def _upload_pairs(app, tmp_path, count):
    for record in factories.records()[:count]:
        slug = factories.slug(record["case_number"])
        draft = write(tmp_path / f"{slug}.draft.txt", record["draft_text"])
        final = write(tmp_path / f"{slug}.final.txt", record["final_text"])
        drafts.add_draft(
            app,
            record["case_number"],
            draft,
            appeal_type=record["appeal_type"],
            outcome=record["outcome"],
            practice_area=record["practice_area"],
        )
        finals.upload_final(app, record["case_number"], final)


def markers(svg: str, gid: str) -> int:
    """How many markers the series `gid` draws (matplotlib writes each as a <use> in its group)."""
    root = ET.fromstring(svg)
    group = next(g for g in root.iter(f"{SVG}g") if g.get("id") == gid)
    return sum(1 for _ in group.iter(f"{SVG}use"))


def test_an_empty_history_says_so(app):
    assert dashboard.figures(app) == {"finals": [], "blocks": {}}
    svg = dashboard.plot_svg(app)
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert "אין עדיין מדידות" in svg  # text, not paths: the browser shapes it right to left


def test_one_point_per_history_row(app, tmp_path):
    _upload_pairs(app, tmp_path, 2)
    rows = finals.history(app)["rows"]
    assert len(rows) == 2
    data = dashboard.figures(app)
    assert [f["case_number"] for f in data["finals"]] == [r["case_number"] for r in rows]
    first = data["finals"][0]
    assert (
        first["change_percent"] == rows[0]["change_percent"] and 0 < first["change_percent"] < 100
    )
    assert first["ratio_deviation"] is None  # nothing before the first final to compare with
    assert data["finals"][1]["ratio_deviation"] is not None
    assert first["lesson_pool_size"] == 0 and first["captured_at"] == rows[0]["captured_at"]
    assert "discussion" in first["blocks"] and 0 <= first["blocks"]["discussion"] <= 100
    assert data["blocks"]["discussion"] == [f["blocks"]["discussion"] for f in data["finals"]]

    svg = dashboard.plot_svg(app)
    # One marker per history row; a distance with nothing to compare against (the first
    # final's ratio deviation and stylometric delta) is a gap, not a zero.
    for gid in ("change_percent", "anti_pattern_total", "lesson_pool_size", "block_discussion"):
        assert markers(svg, gid) == len(rows), gid
    assert [r["ratio_deviation"] is None for r in rows] == [True, False]
    for gid in ("ratio_deviation", "stylometric_delta"):
        assert markers(svg, gid) == sum(r[gid] is not None for r in rows), gid
    assert "אחוז השינוי" in svg and "מאגר הלקחים" in svg
    # Inside the desk's right-to-left page: the plot keeps its own left-to-right anchoring, and
    # a label with Hebrew (a case number) is laid out right to left.
    root = ET.fromstring(svg)
    assert root.get("direction") == "ltr"
    labels = {t.text: t for t in root.iter(f"{SVG}text")}
    case_label = labels[f"{rows[0]['case_number']} ({rows[0]['final_version']})"]
    assert case_label.get("direction") == "rtl" and "text-anchor: end" in case_label.get("style")
    numbers = [t for text, t in labels.items() if text and text.replace(".", "").isdigit()]
    assert numbers and all(t.get("direction") is None for t in numbers)  # numbers untouched
    assert not re.search(r"<dc:date>", svg)  # no timestamp: the same history, the same SVG


def test_feedback_by_week_series_and_the_dashboard_table(chair, desk_app):
    import datetime as dt

    from legal_ai.learning import feedback

    ids = [
        feedback.record(desk_app, cat, "הערה")["id"]
        for cat in ("style", "style", "wrong_tone", "missing_content")
    ]
    with desk_app.store.transaction() as conn:  # one three weeks back, one long before
        conn.execute(
            "UPDATE chair_feedback SET created_at = now() - interval '21 days' WHERE id = %s",
            (ids[2],),
        )
        conn.execute(
            "UPDATE chair_feedback SET created_at = now() - interval '200 days' WHERE id = %s",
            (ids[3],),
        )
    result = feedback.by_week(desk_app, weeks=12)
    weeks = result["weeks"]
    today = dt.datetime.now(dt.UTC).date()
    monday = today - dt.timedelta(days=today.weekday())
    assert len(weeks) == 12 and weeks[-1]["week"] == monday.isoformat()
    assert weeks[0]["week"] == (monday - dt.timedelta(weeks=11)).isoformat()
    assert weeks[-1]["by_category"]["style"] == 2 and weeks[-1]["total"] == 2
    assert weeks[-4]["by_category"] == {**dict.fromkeys(result["categories"], 0), "wrong_tone": 1}
    assert result["total"] == 3  # the one of 200 days ago is outside the 12 weeks
    assert sum(w["total"] for w in feedback.by_week(desk_app, weeks=52)["weeks"]) == 4
    with pytest.raises(InvalidInput, match="weeks"):
        feedback.by_week(desk_app, weeks=0)
    page = chair.get("/learning")
    assert 'data-weeks="12"' in page.text
    row = page.text.split(f'<tr data-week="{monday.isoformat()}">')[1].split("</tr>")[0]
    row = row.replace("<bdi>", "").replace("</bdi>", "")  # the numbers are isolated in <bdi>
    assert row.endswith("<td>2</td>") and "<td>2</td>" in row
    assert page.text.index(monday.isoformat()) < page.text.index(weeks[-4]["week"])  # newest first
