"""The learning dashboard's figures (the desk's /learning): the held-out style distance
of our drafts to the chair's finals over time, one point per row of `style_distance_history`
(one analyzed final version) placed in the order the finals were learned (the rows' order:
the first final learned on the left; its decision date is shown in the table), with its two Ns — the lesson
pool's size (approved lessons) and the specification's N, the discussion rules, folded lessons
and transition phrases of the `universal` methodology then (`methodology_size`, migration 0042;
07 §0.7) — and each block's share changed.

`plot_svg` draws them with matplotlib (Agg canvas, written out as SVG). Its text stays text
(`svg.fonttype = none`): the browser shapes the Hebrew labels right to left with the page's
fonts, which matplotlib's own renderer does not (drawn as glyphs, כותרת would read תרתוכ). Each
series is an SVG group with an id (`change_percent`, `anti_pattern_total`, `ratio_deviation`,
`stylometric_delta`, `lesson_pool_size`, `methodology_size`, `block_<block>`) whose markers are
one per history row. The horizontal axis is the order learned (1, 2, 3 …: at most eight
numbered ticks), never the decision date: a final decided long ago but learned today is a
point of today's learning; every axis's range holds all its values. A drawing is kept per
distinct data (`_drawn`): the page draws again only when a row is added or changes."""

from __future__ import annotations

import io
import json
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ...store import style_history
from ...text.blocks import BLOCK_LABELS, BLOCKS

if TYPE_CHECKING:
    from ...context import Context

SERIES = ("change_percent", "anti_pattern_total", "ratio_deviation", "stylometric_delta")
LABELS = {
    "change_percent": "אחוז השינוי",
    "anti_pattern_total": "ביטויים להימנע מהם",
    "ratio_deviation": "סטיית יחסי הבלוקים",
    "stylometric_delta": "המרחק הסגנוני (סטיות תקן)",
    "lesson_pool_size": "מאגר הלקחים",
    # The specification's N: what it counts, in words (the plot's axis and the page's column).
    "methodology_size": "כללי דיון, לקחים וביטויי מעבר במתודולוגיה הכללית",
    "blocks": "שינוי לפי בלוק (%)",
    "decided_on": "תאריך ההחלטה",
    "learned": "סדר הלמידה",
}
# The horizontal axis's name: the order learned, which end is first.
ORDER_AXIS = "סדר הלמידה: ההחלטה הסופית שנלמדה ראשונה משמאל"
MOST_TICKS = 8
# Series whose scale starts at 0: the percent of words changed, the count of phrases to avoid.
FROM_ZERO = ("change_percent", "anti_pattern_total")
MARKED_BLOCKS = 40  # up to this many finals, each block's line marks its points
MARGINS = {"left": 0.09, "right": 0.8, "top": 0.985, "bottom": 0.065, "hspace": 0.12}
# The N axis's label on two lines (one would run past the axis's height).
N_AXIS = "כללי דיון, לקחים וביטויי מעבר\nבמתודולוגיה הכללית"


def figures(app: Context) -> dict:
    """Per analyzed final, in the order learned (the history rows' order; `learned`, from 1):
    its decision date, when it was analyzed, which case, the four distances, its two Ns (the lesson pool's
    size then, and the specification's N: `methodology_size`, None for a row written before it
    was recorded) and each block's percent changed; per block, its series."""
    with app.store.connection() as conn:
        rows = style_history.history_as_learned(conn)
    finals: list[dict[str, Any]] = []
    for learned, row in enumerate(rows, start=1):
        measured = (row["metrics"] or {}).get("blocks") or {}
        finals.append(
            {
                "id": row["id"],
                "learned": learned,
                "case_number": row["case_number"],
                "final_version": row["final_version"],
                "decided_on": row["decided_on"].isoformat(),
                "captured_at": row["captured_at"].isoformat(),
                "held_out": row["held_out"],
                "change_percent": row["change_percent"],
                "anti_pattern_total": row["anti_pattern_total"],
                "ratio_deviation": row["ratio_deviation"],
                "stylometric_delta": row["stylometric_delta"],
                "lesson_pool_size": row["lesson_pool_size"],
                "methodology_size": row["methodology_size"],
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


def plot_svg(app: Context, data: dict | None = None) -> str:
    """The dashboard's plot of `data` (else `figures(app)`) as an SVG document: one point per
    history row in every series. Drawn once per distinct data (`_drawn` keeps the last few by
    the data itself, so a new or changed row draws anew and nothing stale is ever shown)."""
    data = figures(app) if data is None else data
    return _drawn(json.dumps(data, sort_keys=True, ensure_ascii=False))


@lru_cache(maxsize=8)
def _drawn(key: str) -> str:
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    data = json.loads(key)
    with matplotlib.rc_context(
        {"svg.fonttype": "none", "svg.hashsalt": "legal-ai", "font.size": 9}
    ):
        # Fixed margins (room for the Hebrew axis labels, the pool's scale and the blocks'
        # legend): the constrained layout took half of the drawing's time.
        fig = Figure(figsize=(8, 11))
        fig.subplots_adjust(**MARGINS)
        FigureCanvasAgg(fig)
        if not data["finals"]:
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
    return _directions(_rounded(out.getvalue()))


_TEXT = re.compile(r"(>[^<]*</text>)")  # a label's words, from its tag's end to its close
_LONG = re.compile(r"(\d\.\d)\d+")


def _rounded(svg: str) -> str:
    """Numbers to a tenth (matplotlib writes coordinates to six places): a third of the size,
    the same drawing. Never in a label's words (0.75 stays as written)."""
    parts = _TEXT.split(svg)
    return "".join(part if n % 2 else _LONG.sub(r"\1", part) for n, part in enumerate(parts))


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


def positions(finals: list[dict]) -> list[float]:
    """Each final's place on the horizontal axis: the order it was learned (1, 2, 3 …)."""
    return [float(n) for n in range(1, len(finals) + 1)]


def order_ticks(count: int, most: int = MOST_TICKS) -> list[int]:
    """At most `most` of the places 1..count: the first, the last and evenly between."""
    if count <= most:
        return list(range(1, count + 1))
    return sorted({1 + round(i * (count - 1) / (most - 1)) for i in range(most)})


def _hold(ax, values: list[float | None], *, floor: float | None = None) -> None:
    """The axis's range holds every value with a margin of 8 % of their range (a value at the
    edge is never cut, nothing above 100 % or below 0 is clipped); `floor` kept in view."""
    present = [v for v in values if v is not None]
    if not present:
        return
    low, high = min(present), max(present)
    if floor is not None:
        low = min(low, floor)
    pad = 0.08 * (high - low) or 0.5 * abs(high) or 1.0  # one value: half of it either side
    ax.set_ylim(low - pad, high + pad)


def _draw(fig, data: dict) -> None:
    finals = data["finals"]
    x = positions(finals)
    axes = fig.subplots(len(SERIES) + 2, 1, sharex=True)
    for ax, key in zip(axes, SERIES, strict=False):
        _series(ax, key, x, [f[key] for f in finals])
    _pool(axes[0], x, [f["lesson_pool_size"] for f in finals])
    _methodology(axes[len(SERIES)], x, [f.get("methodology_size") for f in finals])
    _blocks(axes[-1], x, data["blocks"])
    pad = max(0.5, 0.02 * len(finals))  # room for the first and the last point's marker
    axes[-1].set_xlim(1 - pad, len(finals) + pad)
    ticks = order_ticks(len(finals))
    axes[-1].set_xticks([float(t) for t in ticks], [str(t) for t in ticks], fontsize=8)
    axes[-1].set_xlabel(ORDER_AXIS)


def _series(ax, key: str, x: list[float], values: list[float | None]) -> None:
    from matplotlib.ticker import MaxNLocator

    # None (no earlier finals to compare with) is a gap, not a zero.
    (line,) = ax.plot(
        x,
        [float("nan") if v is None else v for v in values],
        marker="o",
        markersize=6 if len(x) <= MARKED_BLOCKS else 3,
        color="#1f4e79",
    )
    line.set_gid(key)
    ax.set_ylabel(LABELS[key])
    ax.grid(True, alpha=0.3)
    # Five ticks at most on a scale: the ticks are most of the drawing's time (320 -> 240 ms).
    ax.yaxis.set_major_locator(MaxNLocator(nbins=5, integer=key == "anti_pattern_total"))
    _hold(ax, values, floor=0 if key in FROM_ZERO else None)
    if all(v is None for v in values):
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


def _pool(ax, x: list[float], sizes: list[int]) -> None:
    """The lesson pool's size on a second scale beside the change percent."""
    from matplotlib.ticker import MaxNLocator

    pool = ax.twinx()
    (line,) = pool.step(x, sizes, where="mid", marker="s", color="#b5651d", linewidth=1, alpha=0.8)
    line.set_gid("lesson_pool_size")
    pool.set_ylabel(LABELS["lesson_pool_size"], color="#b5651d")
    pool.yaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))
    _hold(pool, [*sizes, 4], floor=0)


def _methodology(ax, x: list[float], sizes: list[int | None]) -> None:
    """The specification's N (07 §0.7): how many discussion rules, folded lessons and
    transition phrases the universal methodology held at each final, as steps; a row written
    before it was recorded is a gap."""
    from matplotlib.ticker import MaxNLocator

    (line,) = ax.step(
        x,
        [float("nan") if v is None else v for v in sizes],
        where="mid",
        marker="D",
        markersize=5 if len(x) <= MARKED_BLOCKS else 3,
        color="#2e7d32",
        linewidth=1,
    )
    line.set_gid("methodology_size")
    ax.set_ylabel(N_AXIS, fontsize=8)
    ax.yaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))
    ax.grid(True, alpha=0.3)
    _hold(ax, [*sizes, 0], floor=0)


def _blocks(ax, x: list[float], blocks: dict[str, list[float | None]]) -> None:
    """Each block's percent of words changed (words edited over the longer side's words,
    alignment.BlockDiff.share_changed): the scale shows 0 to 100 and anything beyond."""
    from matplotlib.ticker import MaxNLocator

    marker = "." if len(x) <= MARKED_BLOCKS else None  # beyond, a point per block is noise
    for block, values in sorted(blocks.items(), key=lambda kv: BLOCKS.index(kv[0])):
        series = [float("nan") if v is None else v for v in values]
        (line,) = ax.plot(
            x, series, linewidth=1, marker=marker, label=BLOCK_LABELS.get(block, block)
        )
        line.set_gid(f"block_{block}")
    ax.set_ylabel(LABELS["blocks"])
    ax.yaxis.set_major_locator(MaxNLocator(nbins=5))
    ax.grid(True, alpha=0.3)
    _hold(ax, [v for values in blocks.values() for v in values] + [0.0, 100.0])
    if blocks:
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
