"""The learning dashboard (issue 12): figures per analyzed final and per block, the SVG plot with
one marker per history row in each series, its Hebrew left as text for the browser, and the
chair's feedback counted by week, as a series and as the table of the desk's /learning page
(conftest.py's `chair`)."""

import datetime as dt
import re
import xml.etree.ElementTree as ET

import pytest

import factories
from helpers import write
from legal_ai.errors import InvalidInput
from legal_ai.learning.pairs import dashboard, drafts, finals
from legal_ai.text.blocks import BLOCK_LABELS, BLOCKS
from scenarios import upload_pair

pytestmark = pytest.mark.db

SVG = "{http://www.w3.org/2000/svg}"


def _upload_pairs(app, tmp_path, count):
    for record in factories.records()[:count]:
        upload_pair(app, tmp_path, record)


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
    # a label with Hebrew (an axis's name) is laid out right to left.
    root = ET.fromstring(svg)
    assert root.get("direction") == "ltr"
    labels = {t.text: t for t in root.iter(f"{SVG}text")}
    axis_label = labels[dashboard.ORDER_AXIS]
    assert axis_label.get("direction") == "rtl" and "text-anchor: middle" in axis_label.get("style")
    numbers = [t for text, t in labels.items() if text and text.replace(".", "").isdigit()]
    assert numbers and all(t.get("direction") is None for t in numbers)  # numbers untouched
    assert not re.search(r"<dc:date>", svg)  # no timestamp: the same history, the same SVG


def test_finals_are_placed_in_the_order_learned_not_by_decision_date(app, tmp_path):
    """The second final uploaded was decided first: it still comes second, where it was
    learned; its decision date is kept for the table."""
    records = factories.records()[:2]
    for record, decided in zip(records, ("2025-09-01", "2024-02-29"), strict=True):
        slug = factories.slug(record["case_number"])
        drafts.add_draft(
            app,
            record["case_number"],
            write(tmp_path / f"{slug}.draft.txt", record["draft_text"]),
            appeal_type=record["appeal_type"],
            outcome=record["outcome"],
            practice_area=record["practice_area"],
        )
        final = write(tmp_path / f"{slug}.final.txt", record["final_text"])
        finals.upload_final(app, record["case_number"], final, decided_on=decided)
    shown = dashboard.figures(app)["finals"]
    assert [f["case_number"] for f in shown] == [r["case_number"] for r in records]
    assert [f["learned"] for f in shown] == [1, 2]
    assert [f["decided_on"] for f in shown] == ["2025-09-01", "2024-02-29"]
    assert tick_numbers(dashboard.plot_svg(app)) == [1, 2]


# -- the drawing alone, over figures made here (no database) -----------------------------------


def made(dates: list[str]) -> dict:
    """Figures as `dashboard.figures` gives them, one final per date (in that order), with the
    extremes: a change of 100 % and of 0 %, every block once at 100 and once at 0, a pool of
    hundreds of lessons."""
    finals = []
    for n, day in enumerate(dates):
        finals.append(
            {
                "id": n + 1,
                "learned": n + 1,
                "case_number": f"ערר (מרכז) {8000 + n}/24",
                "final_version": 1,
                "decided_on": day,
                "captured_at": "2026-01-01T10:00:00+00:00",
                "held_out": True,
                "change_percent": [100.0, 0.0][n] if n < 2 else 30.0 + n % 60,
                "anti_pattern_total": n % 7,
                "ratio_deviation": None if n == 0 else 0.5 + n / 10,
                "stylometric_delta": None if n == 0 else 2.0 - n / 20,
                "lesson_pool_size": 150 * n,
                "blocks": {b: [100.0, 0.0][n] if n < 2 else 10.0 * (n % 10) for b in BLOCKS},
            }
        )
    blocks = {b: [f["blocks"][b] for f in finals] for b in BLOCKS}
    return {"finals": finals, "blocks": blocks}


def tick_numbers(svg: str) -> list[int]:
    """The horizontal axis's tick labels (the order learned), in the order drawn (left to
    right)."""
    root = ET.fromstring(svg)
    ticks = []
    for group in root.iter(f"{SVG}g"):
        if (group.get("id") or "").startswith("xtick_"):
            ticks += [(t.get("transform"), t.text) for t in group.iter(f"{SVG}text")]
    ordered = sorted(ticks, key=lambda t: float(t[0].split("(")[1].split()[0]))
    return [int(text) for _transform, text in ordered]


def markers_within_axes(svg: str, gid: str) -> list[tuple[float, float]]:
    """The markers of series `gid` (x, y), asserting each lies inside the axes it is clipped
    to, with room for the marker itself (none cut at an edge)."""
    root = ET.fromstring(svg)
    rects = {
        c.get("id"): {k: float(r.get(k)) for k in ("x", "y", "width", "height")}
        for c in root.iter(f"{SVG}clipPath")
        for r in c.iter(f"{SVG}rect")
    }
    group = next(g for g in root.iter(f"{SVG}g") if g.get("id") == gid)
    points = []
    for clipped in group.iter(f"{SVG}g"):
        clip = clipped.get("clip-path")
        for use in clipped.findall(f"{SVG}use"):  # its own, not those of a group inside
            assert clip, gid  # every marker is clipped to its axes...
            box = rects[clip[len("url(#") : -1]]
            x, y = float(use.get("x")), float(use.get("y"))
            # ...and lies inside them, with its radius (3) to spare
            assert box["x"] + 3 <= x <= box["x"] + box["width"] - 3, (gid, x, box)
            assert box["y"] + 3 <= y <= box["y"] + box["height"] - 3, (gid, y, box)
            points.append((x, y))
    return points


def test_the_plot_holds_every_value_in_the_order_learned_and_keeps_hebrew_as_text():
    dates = ["2023-01-08", "2023-03-01", "2023-03-01", "2023-02-10", "2024-12-31"]
    dates += [f"2024-{m:02d}-15" for m in range(1, 10)]  # more finals than ticks
    data = made(dates)  # learned in this order, whatever their decision dates
    svg = dashboard.plot_svg(None, data)
    root = ET.fromstring(svg)
    # Every marker of every series inside its axes (a change of 100 %, every block at 100 and
    # at 0, a pool of 1,950 lessons), one per final.
    for gid in ("change_percent", "anti_pattern_total", "lesson_pool_size", "block_header"):
        assert len(markers_within_axes(svg, gid)) == len(dates), gid
    for gid in ("ratio_deviation", "stylometric_delta"):
        assert len(markers_within_axes(svg, gid)) == len(dates) - 1, gid
    # The horizontal axis: the order learned, the first and the last among at most 8 ticks;
    # each final its own point, evenly apart, in the order learned (not by date).
    ticks = tick_numbers(svg)
    assert ticks == sorted(ticks) and 2 <= len(ticks) <= 8
    assert ticks[0] == 1 and ticks[-1] == len(dates)
    xs = [x for x, _ in markers_within_axes(svg, "change_percent")]
    assert xs == sorted(xs) and len(set(xs)) == len(xs)
    gaps = [round(b - a, 1) for a, b in zip(xs, xs[1:], strict=False)]
    assert max(gaps) - min(gaps) <= 0.2
    assert not any(re.fullmatch(r"\d+\.\d+\.\d{4}", t.text or "") for t in root.iter(f"{SVG}text"))
    # The legend's Hebrew is text in logical order (the browser shapes it right to left): the
    # header block reads כותרת, never as glyph paths or reversed.
    texts = {t.text: t for t in root.iter(f"{SVG}text")}
    assert texts["כותרת"].get("direction") == "rtl"
    assert "תרתוכ" not in svg and not any("glyph" in (p.get("id") or "") for p in root.iter())
    for block in BLOCKS:
        assert BLOCK_LABELS[block] in texts
    # Drawn once per distinct figures: the same figures, the same document, without drawing.
    assert dashboard.plot_svg(None, made(dates)) is svg
    changed = made(dates)
    changed["finals"][3]["change_percent"] = 55.5
    assert dashboard.plot_svg(None, changed) != svg


def test_many_finals_draw_lines_for_the_blocks_and_stay_small():
    """150 finals: each block a line (its points unmarked), the distances marked; the document
    well under 300 KB (coordinates to a tenth of a point)."""
    start = dt.date(2023, 1, 8)
    data = made([(start + dt.timedelta(days=(n * 7) // 2)).isoformat() for n in range(150)])
    svg = dashboard.plot_svg(None, data)
    assert len(svg) < 300_000
    assert len(markers_within_axes(svg, "change_percent")) == 150
    assert markers_within_axes(svg, "block_discussion") == []
    assert not re.search(r' [xy]="-?\d+\.\d\d', svg)
    # Coordinates to a tenth; a label's words as written.
    shown = dashboard._rounded('<path d="M 1.23456 -7.891"/><text x="51.8765">0.75 1.6.2021</text>')
    assert shown == '<path d="M 1.2 -7.8"/><text x="51.8">0.75 1.6.2021</text>'


def test_feedback_by_week_series_and_the_dashboard_table(chair, desk_app):
    import datetime as dt

    from legal_ai.learning.lessons import feedback

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
    from legal_ai.text import clock

    today = clock.day_of(dt.datetime.now(dt.UTC))  # Israel's weeks open on Sunday
    monday = clock.week_start(today)
    assert len(weeks) == 12 and weeks[-1]["week"] == monday.isoformat()
    assert weeks[0]["week"] == (monday - dt.timedelta(weeks=11)).isoformat()
    assert weeks[-1]["by_category"]["style"] == 2 and weeks[-1]["total"] == 2
    assert weeks[-4]["by_category"] == {**dict.fromkeys(result["categories"], 0), "wrong_tone": 1}
    assert result["total"] == 3  # the one of 200 days ago is outside the 12 weeks
    assert sum(w["total"] for w in feedback.by_week(desk_app, weeks=52)["weeks"]) == 4
    with pytest.raises(InvalidInput, match="weeks"):
        feedback.by_week(desk_app, weeks=0)
    page = chair.get("/learning")
    assert 'data-weeks="2"' in page.text  # only the weeks with feedback, no rows of zeros
    for jargon in ("קאפה", "דלתא סגנונית", "השעון העולמי"):
        assert jargon not in page.text, jargon
    row = page.text.split(f'<tr data-week="{monday.isoformat()}">')[1].split("</tr>")[0]
    row = row.replace("<bdi>", "").replace("</bdi>", "")  # the numbers are isolated in <bdi>
    assert row.endswith("<td>2</td>") and "<td>2</td>" in row
    assert page.text.index(monday.isoformat()) < page.text.index(weeks[-4]["week"])  # newest first
