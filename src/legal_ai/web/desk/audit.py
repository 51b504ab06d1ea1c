"""/audit ("יומן החלטות"): what was decided on lessons, principles, the methodology, enrichment,
citations and voice documents, newest first, a page at a time — filtered by days (as she
writes them, 1.6.2026, each a day on Israel's clock), by kind, by case and by who decided, with a
text found in the reason or in the lesson's or principle's own words (store/decisions_log.py).
Each row names its item by its text (a lesson's words, a principle's rule, a promote's folded
lessons) and links to it: a lesson still waiting to /review, a principle to its quote in the
ruling, an enrichment to its decision, else the case. (The queues that /training held are one
queue now, /review: web/desk/review.py, which also answers the old /training addresses.)"""

import datetime as dt
from typing import Annotated, Any
from urllib.parse import quote, urlencode

from fastapi import Depends, FastAPI, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from ... import catalog
from ...errors import InvalidInput
from ...learning import decisions_log
from ...learning import vocabulary as vocab
from ...text import clock
from . import core, labels

AUDIT_PAGE = 50
MAX_QUERY = 200
KIND_LABELS = {
    "lessons": "לקחים",
    "principles": "עקרונות",
    "methodology": "מתודולוגיה",
    "enrichment": "העשרת החלטות",
    "citations": "ציטוטים ופסקי דין",
    "voice": "מסמכי קול",
}
WHO_LABELS = {"chair": "החלטות שלי", "others": "של הפאנל והמערכת"}
EXCERPT = 160


def _excerpt(text: str | None) -> str | None:
    text = " ".join(str(text or "").split())
    if not text:
        return None
    return text if len(text) <= EXCERPT else text[: EXCERPT - 1].rstrip() + "…"


def read_filters(raw: Any) -> tuple[dict[str, Any], dict[str, str], dict[str, str]]:
    """The log's filters from the query: (for the store, as she typed them, what is wrong with
    each field she typed — in Hebrew, beside it)."""
    typed = {
        name: " ".join(str(raw.get(name) or "").split())[:MAX_QUERY]
        for name in ("since", "until", "kind", "case", "who", "q")
    }
    errors: dict[str, str] = {}
    chosen: dict[str, Any] = {
        "kind": typed["kind"] if typed["kind"] in KIND_LABELS else None,
        "who": typed["who"] if typed["who"] in WHO_LABELS else None,
        "q": typed["q"] or None,
        "case": None,
    }
    days: dict[str, dt.date | None] = {}
    for name in ("since", "until"):
        if typed[name]:
            days[name] = clock.parse_day(typed[name])
            if days[name] is None:
                errors[name] = catalog.hebrew("date.invalid") or ""
    since, until = days.get("since"), days.get("until")
    if since and until and until < since:
        errors["until"] = "היום האחרון קודם ליום הראשון"
    chosen["since"] = clock.day_start(since) if since else None
    chosen["until"] = clock.day_start(until + dt.timedelta(days=1)) if until else None
    if typed["case"]:
        try:
            chosen["case"] = vocab.case_number(typed["case"])
        except InvalidInput:
            chosen["case"] = typed["case"]  # as typed: a case the log never named finds nothing
    return chosen, typed, errors


def _link(row: dict) -> tuple[str | None, str | None]:
    """Where the row's item is, and what the link says."""
    if row["lesson_id"] is not None and row["lesson_text"] is not None:
        waiting = row["lesson_status"] == "proposed" or (
            row["lesson_status"] == "approved"
            and row["lesson_by"] == "panel"
            and row["lesson_folded"] is None
        )
        if waiting:
            return f"/review?item=lesson-{row['lesson_id']}", "ללקח בתור"
    if row["principle_doc"]:
        corpus = "external" if row["source_kind"] == "external_upload" else "internal"
        span = ""
        if row["char_start"] is not None and row["char_end"] is not None:
            span = f"?start={row['char_start']}&end={row['char_end']}"
        return f"/source/{corpus}/{quote(row['principle_doc'], safe='')}{span}#span", (
            "לעיקרון בפסק הדין"
        )
    details = row["details"] or {}
    if row["action"] == "enrichment" and details.get("doc_id"):
        return f"/source/internal/{quote(str(details['doc_id']), safe='')}", "להחלטה"
    if row["case_number"]:
        return f"/cases/{quote(row['case_number'], safe='')}", "לתיק"
    return None, None


def shown(rows: list[dict], folded: dict[int, str]) -> list[dict]:
    """Each row as the page shows it: its subject in words (never a bare id) and its link."""
    out = []
    for row in rows:
        details = row["details"] or {}
        subject = _excerpt(row["lesson_text"] or row["principle_text"])
        ids = details.get("lessons") if row["action"] == "promote" else None
        texts = [_excerpt(folded[i]) for i in ids or [] if isinstance(i, int) and i in folded]
        href, link_said = _link(row)
        out.append({**row, "subject": subject, "folded": texts, "href": href, "link": link_said})
    return out


def _url(typed: dict[str, str], page_no: int | None = None, **changed: str) -> str:
    pairs = {**typed, **changed}
    pairs = {k: v for k, v in pairs.items() if v}
    if page_no and page_no > 1:
        pairs["page_no"] = str(page_no)
    return "/audit" + (f"?{urlencode(pairs)}" if pairs else "")


def _weeks() -> dict[str, str]:
    """The two quick spans, this week and last (Sunday to Saturday, Israel's clock)."""
    today = clock.local(dt.datetime.now(dt.UTC)).date()
    start = clock.week_start(today)
    last = start - dt.timedelta(days=7)
    return {
        "this": _url({"since": clock.hebrew_date(start), "until": clock.hebrew_date(today)}),
        "last": _url(
            {
                "since": clock.hebrew_date(last),
                "until": clock.hebrew_date(start - dt.timedelta(days=1)),
            }
        ),
    }


def routes(api: FastAPI, signed_in: Any) -> None:
    Chair = Annotated[core.Desk, Depends(signed_in)]

    @api.get("/audit", include_in_schema=False)
    async def audit(request: Request, desk: Chair, page_no: int = 1) -> Response:
        page_no = max(1, min(page_no, 100_000))
        chosen, typed, errors = read_filters(request.query_params)
        if errors:  # nothing is filtered by a day she did not write plainly
            chosen = {**chosen, "since": None, "until": None}

        def load() -> tuple[list[dict], int, list[str]]:
            read = decisions_log.page(desk.view, chosen, AUDIT_PAGE, (page_no - 1) * AUDIT_PAGE)
            return shown(read["rows"], read["folded"]), read["total"], read["cases"]

        rows, total, cases = await run_in_threadpool(load)
        pages = max(1, -(-total // AUDIT_PAGE))
        filtered = any(typed.values())
        return core.render(
            request,
            "audit.html",
            status=400 if errors else 200,
            desk=desk,
            rows=rows,
            total=total,
            page_no=page_no,
            pages=pages,
            typed=typed,
            errors=errors,
            filtered=filtered,
            kinds=KIND_LABELS,
            who=WHO_LABELS,
            cases=cases,
            weeks=_weeks(),
            newer=_url(typed, page_no - 1) if page_no > 1 else None,
            older=_url(typed, page_no + 1) if page_no < pages else None,
            statuses=labels.STATUS,
        )
