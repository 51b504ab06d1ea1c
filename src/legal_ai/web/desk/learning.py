"""/learning: first one plain sentence — are her edits to our drafts shrinking, by the order the
finals were learned (`trend_said`) — then the held-out style distance in the order the
finals were learned, never by decision date (dashboard.plot_svg inline, the figures in a table
in that order, each with its decision date), the panel's agreement with the chair
(panel_stats: in words, no statistics jargon), this week's feedback by category and, of the last
12 weeks (Israel's weeks, feedback.by_week), only those with feedback, and a feedback form
(feedback.record)."""

import re
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import RedirectResponse, Response
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool

from ...errors import InvalidInput, NotFound
from ...learning import vocabulary as vocab
from ...learning.lessons import feedback
from ...learning.lessons import panel_stats as panel_figures
from ...learning.pairs import dashboard
from . import core, labels
from .messages import refusal


def _inline(svg: str) -> Markup:
    """matplotlib's SVG document (its text escaped by matplotlib) as an inline <svg> element,
    without its <metadata> (matplotlib's name and the format, in English, never drawn)."""
    svg = re.sub(r"<metadata>.*?</metadata>", "", svg, flags=re.S)
    return Markup(svg[svg.find("<svg") :])


TREND_MIN = 4  # finals compared with their drafts before the page says which way it goes
TREND_CLOSE = 0.1  # within 10% of the earlier mean: "about the same"


def trend_said(finals: list[dict]) -> Markup:
    """Whether her edits to our drafts are shrinking, in one sentence: the mean share of words
    she changed in the later half of the finals, by the order they were learned (captured),
    against the earlier half."""
    learned = sorted(
        (f for f in finals if f.get("change_percent") is not None),
        key=lambda f: (f["captured_at"], f["id"]),
    )
    if len(learned) < TREND_MIN:
        return Markup(
            "עוד מוקדם לומר אם השינויים שלך בטיוטות שלנו הולכים וקטנים: עד עכשיו הושוו לטיוטה {}, "
            "ונדרשות לפחות {}."
        ).format(
            Markup("החלטה אחת")
            if len(learned) == 1
            else Markup("{} החלטות").format(labels.bdi(len(learned))),
            labels.bdi(TREND_MIN),
        )
    half = len(learned) // 2
    early, late = learned[:half], learned[-half:]
    before = sum(f["change_percent"] for f in early) / len(early)
    after = sum(f["change_percent"] for f in late) / len(late)
    if after < before * (1 - TREND_CLOSE):
        head = "השינויים שלך בטיוטות שלנו הולכים וקטנים"
    elif after > before * (1 + TREND_CLOSE):
        head = "השינויים שלך בטיוטות שלנו אינם קטנים — הם גדלו"
    else:
        head = "השינויים שלך בטיוטות שלנו נשארו בערך כשהיו"
    return Markup(
        "{}: ב־{} ההחלטות האחרונות שלמדנו שינית בממוצע כ־{} מהנוסח, לעומת כ־{} ב־{} הראשונות."
    ).format(
        head,
        labels.bdi(half),
        labels.percent(after),
        labels.percent(before),
        labels.bdi(half),
    )


def routes(api: FastAPI, signed_in: Any) -> None:
    Chair = Annotated[core.Desk, Depends(signed_in)]

    async def page(
        request: Request, desk: core.Desk, status: int = 200, **context: Any
    ) -> Response:
        def load() -> dict:
            figures = dashboard.figures(desk.view)  # read once: the plot and the table
            return {
                "plot": _inline(dashboard.plot_svg(desk.view, figures)),
                "figures": figures,
                "panel": panel_figures.stats(desk.view),
                "week": feedback.weekly_summary(desk.view),
                "weekly": feedback.by_week(desk.view, weeks=12),
                "trend": trend_said(figures["finals"]),
            }

        data = await run_in_threadpool(load)
        return core.render(
            request,
            "learning.html",
            status=status,
            desk=desk,
            labels=labels.TREND,
            series=dashboard.SERIES,
            categories=vocab.FEEDBACK_CATEGORIES,
            blocks=vocab.BLOCKS,
            **data,
            **context,
        )

    @api.get("/learning", include_in_schema=False)
    async def learning(request: Request, desk: Chair, sent: int = 0) -> Response:
        return await page(request, desk, notice="המשוב נשמר" if sent else None)

    @api.post("/learning/feedback", include_in_schema=False)
    async def send_feedback(request: Request, desk: Chair) -> Response:
        form = await core.form_of(request, desk)
        try:
            await run_in_threadpool(
                feedback.record,
                desk.view,
                str(form.get("category") or ""),
                str(form.get("text") or ""),
                case=str(form.get("case_number") or "") or None,
                block=str(form.get("block") or "") or None,
            )
        except (InvalidInput, NotFound) as exc:
            return await page(
                request, desk, status=400, message=refusal("המשוב לא נשמר", exc), given=form
            )
        return RedirectResponse("/learning?sent=1", 303)
