"""The learning dashboard's figures (issue 12, the desk's /learning): the held-out style distance
of our drafts to the chair's finals over time, one point per row of `style_distance_history`
(one analyzed final version), with the lesson pool's size and each block's share changed.

`plot_svg` draws them with matplotlib (Agg canvas, written out as SVG). Its text stays text
(`svg.fonttype = none`): the browser shapes the Hebrew labels and case numbers right to left
with the page's fonts, which matplotlib's own renderer does not. Each series is an SVG group
with an id (`change_percent`, `anti_pattern_total`, `ratio_deviation`, `stylometric_delta`,
`lesson_pool_size`) whose markers are one per history row."""

from __future__ import annotations

import io
import re
from typing import TYPE_CHECKING, Any

from ..store import learning as store
from ..text.blocks import BLOCK_LABELS, BLOCKS

if TYPE_CHECKING:
    from ..context import Context

SERIES = ("change_percent", "anti_pattern_total", "ratio_deviation", "stylometric_delta")
LABELS = {
    "change_percent": "אחוז השינוי",
    "anti_pattern_total": "ביטויים להימנע מהם",
    "ratio_deviation": "סטיית יחסי הבלוקים",
    "stylometric_delta": "דלתא סגנונית",
    "lesson_pool_size": "מאגר הלקחים",
    "blocks": "שינוי לפי בלוק",
}


def figures(app: Context) -> dict:
    """Per analyzed final (in the order captured): when, which case, the four distances, the
    lesson pool's size then, and each block's percent changed; per block, its series."""
    with app.store.connection() as conn:
        rows = store.history(conn)
    finals: list[dict[str, Any]] = []
    for row in rows:
        measured = (row["metrics"] or {}).get("blocks") or {}
        finals.append(
            {
                "id": row["id"],
                "case_number": row["case_number"],
                "final_version": row["final_version"],
                "captured_at": row["captured_at"].isoformat(),
                "held_out": row["held_out"],
                "change_percent": row["change_percent"],
                "anti_pattern_total": row["anti_pattern_total"],
                "ratio_deviation": row["ratio_deviation"],
                "stylometric_delta": row["stylometric_delta"],
                "lesson_pool_size": row["lesson_pool_size"],
                "blocks": {
                    block: round(100 * measured[block]["share_changed"], 2)
                    for block in BLOCKS
                    if block in measured
                },
            }
        )
    blocks = {
        block: [f["blocks"].get(block) for f in finals]
        for block in BLOCKS
        if any(f["blocks"].get(block) is not None for f in finals)
    }
    return {"finals": finals, "blocks": blocks}


def plot_svg(app: Context) -> str:
    """The dashboard's plot as an SVG document (one point per history row in every series)."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    data = figures(app)
    finals = data["finals"]
    style = {"svg.fonttype": "none", "svg.hashsalt": "legal-ai", "font.size": 9}
    with matplotlib.rc_context(style):
        fig = Figure(figsize=(8, 9.5), layout="constrained")
        FigureCanvasAgg(fig)
        if not finals:
            ax = fig.add_subplot()
            ax.set_axis_off()
            ax.text(
                0.5,
                0.5,
                "אין עדיין מדידות: העלו טיוטה ואת ההחלטה הסופית שלה",
                ha="center",
                va="center",
                transform=ax.transAxes,
            )
        else:
            _draw(fig, data)
        out = io.StringIO()
        fig.savefig(out, format="svg", metadata={"Date": None})
    return _directions(out.getvalue())


_HEBREW_TEXT = re.compile(r"<text (?P<attrs>[^>]*)>(?P<body>[^<]*[\u0590-\u05ff][^<]*)</text>")
_FLIP = {"start": "end", "end": "start", "middle": "middle"}


def _directions(svg: str) -> str:
    """Matplotlib anchors every label left to right. The root says `direction="ltr"` (inside
    the desk's right-to-left page it would inherit rtl and swap every anchor); a label holding
    Hebrew is laid out right to left (so `ערר (מרכז) 1042/23` reads as written) with its anchor
    mirrored, which keeps it where matplotlib placed it."""

    def rtl(match: re.Match) -> str:
        attrs = match["attrs"]
        if "text-anchor:" not in attrs:  # SVG's default anchor is start
            attrs = re.sub(r'style="([^"]*)"', r'style="\1; text-anchor: start"', attrs, count=1)
        attrs = re.sub(
            r"text-anchor: (start|end|middle)", lambda m: f"text-anchor: {_FLIP[m[1]]}", attrs
        )
        return f'<text direction="rtl" {attrs}>{match["body"]}</text>'

    return _HEBREW_TEXT.sub(rtl, svg.replace("<svg ", '<svg direction="ltr" ', 1))


def _draw(fig, data: dict) -> None:
    from matplotlib.ticker import MaxNLocator

    finals = data["finals"]
    x = list(range(1, len(finals) + 1))
    axes = fig.subplots(len(SERIES) + 1, 1, sharex=True)
    for ax, key in zip(axes, SERIES, strict=False):
        # None (no earlier finals to compare with) is a gap, not a zero.
        values = [float("nan") if f[key] is None else f[key] for f in finals]
        (line,) = ax.plot(x, values, marker="o", color="#1f4e79", linewidth=1.5)
        line.set_gid(key)
        ax.set_ylabel(LABELS[key])
        ax.grid(True, alpha=0.3)
        if all(f[key] is None for f in finals):
            ax.set_yticks([])
            ax.text(
                0.5,
                0.5,
                "אין עדיין ערכים: נדרשות החלטות קודמות להשוואה",
                ha="center",
                va="center",
                transform=ax.transAxes,
                color="#666666",
            )
    axes[1].yaxis.set_major_locator(MaxNLocator(integer=True))
    axes[1].set_ylim(bottom=0)
    pool = axes[0].twinx()
    (line,) = pool.step(
        x,
        [f["lesson_pool_size"] for f in finals],
        where="mid",
        marker="s",
        color="#b5651d",
        linewidth=1,
        alpha=0.8,
    )
    line.set_gid("lesson_pool_size")
    pool.set_ylabel(LABELS["lesson_pool_size"], color="#b5651d")
    pool.yaxis.set_major_locator(MaxNLocator(integer=True))
    pool.set_ylim(bottom=0, top=max(4, *(f["lesson_pool_size"] for f in finals)) * 1.1)
    blocks_ax = axes[-1]
    for block, values in data["blocks"].items():
        series = [float("nan") if v is None else v for v in values]
        (line,) = blocks_ax.plot(
            x, series, linewidth=1, marker=".", label=BLOCK_LABELS.get(block, block)
        )
        line.set_gid(f"block_{block}")
    blocks_ax.set_ylabel(LABELS["blocks"])
    blocks_ax.grid(True, alpha=0.3)
    blocks_ax.set_ylim(-5, 105)
    if data["blocks"]:
        blocks_ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    blocks_ax.set_xticks(
        x,
        [f"{f['case_number']} ({f['final_version']})" for f in finals],
        rotation=20,
        ha="right",
        fontsize=8,
    )
    blocks_ax.set_xlim(0.7, len(finals) + 0.3)
