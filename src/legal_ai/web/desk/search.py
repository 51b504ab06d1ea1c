"""/search: one box, a corpus switch, the filters that corpus supports, hits with what found them;
/source/{corpus}/{doc_id}: the stored text with a hit's span highlighted and scrolled to.

Every search here is logged (telemetry.py, surface `desk`); each hit carries a "useful" (שימושי)
button (POST /search/useful, with the session's CSRF token) and its source link carries the
search's id and the hit's rank, so opening it records a click. Coming back from a mark shows the
same search again (`sid`) without logging it twice.

Each corpus searches through its own tool (retrieval/tools.py), so the desk applies exactly the
rules the CLI and the agents do: a required filter (her finals need a practice area, a case's
documents the case number) is asked for, and a filter the corpus cannot apply is never offered
(retrieval/legs.py SUPPORTED_FILTERS)."""

import re
from dataclasses import dataclass
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import Depends, FastAPI, Request
from fastapi.responses import RedirectResponse, Response
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool

from ... import telemetry
from ...corpora import SEARCHABLE
from ...errors import InvalidInput, NotFound
from ...learning import vocabulary as vocab
from ...store import desk as desk_store
from . import core, labels
from .messages import said


@dataclass(frozen=True)
class CorpusForm:
    key: str
    label: str
    tool: str
    filters: tuple[str, ...]  # the tool's filter arguments, in the form's order
    required: tuple[str, ...] = ()


CORPUS_FORMS: dict[str, CorpusForm] = {
    f.key: f
    for f in (
        CorpusForm(
            "style",
            labels.CORPUS["style"],
            "search_decisions",
            ("practice_area", "date_from", "date_to"),
            ("practice_area",),
        ),
        CorpusForm(
            "case",
            labels.CORPUS["case"],
            "search_case_documents",
            ("case_number",),
            ("case_number",),
        ),
        CorpusForm(
            "external",
            labels.CORPUS["external"],
            "search_precedent_library",
            ("court", "practice_area", "date_from", "date_to"),
        ),
        CorpusForm(
            "internal",
            labels.CORPUS["internal"],
            "search_internal_decisions",
            ("practice_area", "date_from", "date_to"),
        ),
        CorpusForm("digests", labels.CORPUS["digests"], "search_digests", ("practice_area",)),
        CorpusForm(
            "case_precedents",
            labels.CORPUS["case_precedents"],
            "precedent_search_library",
            ("case_number",),
        ),
    )
}

FILTER_LABELS = {
    "practice_area": "תחום",
    "court": "ערכאה",
    "date_from": "מתאריך",
    "date_to": "עד תאריך",
    "case_number": "מספר תיק",
}
PRACTICE_AREAS = vocab.PRACTICE_AREAS  # a select: the value the id, the text its Hebrew
_WORD = re.compile(r"[\w\"'׳״-]+")
MAX_SOURCE_CHARS = 400_000


def highlight(analyzer: Any, text: str, query: str) -> Markup:
    """`text` escaped, with each word whose analyzed forms meet the query's wrapped in <mark>."""
    wanted = set(analyzer.query_terms(query))
    out: list[str] = []
    last = 0
    for match in _WORD.finditer(text):
        word = match.group(0)
        if wanted and wanted.intersection(analyzer.terms(word)):
            out.append(str(labels.mixed(text[last : match.start()])))
            out.append(f"<mark>{labels.mixed(word)}</mark>")
            last = match.end()
    out.append(str(labels.mixed(text[last:])))
    return Markup("".join(out))


def citation_of(hit: dict) -> str:
    if hit.get("citation"):
        return hit["citation"]
    parts = [hit.get("title") or "", hit.get("case_number") or ""]
    if hit.get("court"):
        parts.append(f"({hit['court']})")
    if hit.get("decided_on"):
        parts.append(f"({labels.hebrew_date(hit['decided_on'])})")
    if hit.get("page"):
        parts.append(f"עמ' {hit['page']}")
    return " ".join(p for p in parts if p)


def routes(api: FastAPI, signed_in: Any) -> None:
    Chair = Annotated[core.Desk, Depends(signed_in)]

    @api.get("/search", include_in_schema=False)
    async def search_page(request: Request, desk: Chair) -> Response:
        params = request.query_params
        form = CORPUS_FORMS.get(params.get("corpus") or "external")
        if form is None:
            raise InvalidInput("אין מאגר כזה; בחרי אחד מהרשימה")
        query = (params.get("q") or "").strip()
        values = {name: (params.get(name) or "").strip() for name in form.filters}
        hits: list[dict] = []
        message = None
        searched = False
        search_id = None
        if query:
            missing = [FILTER_LABELS[n] for n in form.required if not values[n]]
            if missing:
                message = f"במאגר «{form.label}» החיפוש מחייב: {', '.join(missing)}"
            else:
                args = {k: v for k, v in values.items() if v}
                shown = await run_in_threadpool(
                    _same_search, desk.view, _number(params.get("sid")), form.key, query, args
                )
                # The same search shown again (back from a mark) is not logged again.
                view = desk.view if shown else desk.view.on_surface("desk")
                try:
                    result = await run_in_threadpool(view.tool, form.tool, query=query, **args)
                except InvalidInput as exc:
                    message = said(str(exc))
                else:
                    searched = True
                    search_id = shown["id"] if shown else result.get("search_id")
                    useful = (
                        {m["rank"] for m in shown["marks"] if m["kind"] == "useful"}
                        if shown
                        else set()
                    )
                    hits = [
                        _shown(desk.view.analyzer, hit, query, search_id, rank, rank in useful)
                        for rank, hit in enumerate(result["hits"], start=1)
                    ]
        return core.render(
            request,
            "search.html",
            desk=desk,
            forms=CORPUS_FORMS,
            form=form,
            query=query,
            values=values,
            hits=hits,
            searched=searched,
            message=message,
            labels=FILTER_LABELS,
            practice_areas=PRACTICE_AREAS,
            search_id=search_id,
        )

    @api.post("/search/useful", include_in_schema=False)
    async def mark_useful(request: Request, desk: Chair) -> Response:
        """The chair marks a hit of a desk search useful (useful=0 takes the mark back); back
        to the same search, at that hit."""
        posted = await core.form_of(request, desk)
        sid, rank = _number(posted.get("sid")), _number(posted.get("rank"))
        if sid is None or rank is None:
            raise InvalidInput("הסימון חסר את מספר החיפוש או את מקום התוצאה; טעני את הדף מחדש")

        def run() -> dict:
            row = telemetry.search_row(desk.view, sid)
            if row is None or row["surface"] != "desk":
                raise NotFound(f"אין חיפוש מספר {sid} בדסק")
            telemetry.mark(desk.view, sid, rank, "useful", on=posted.get("useful") != "0")
            return row

        row = await run_in_threadpool(run)
        query = {"corpus": row["corpus"], "q": row["query"], **row["filters"], "sid": row["id"]}
        return RedirectResponse(f"/search?{urlencode(query)}#hit-{rank}", status_code=303)

    @api.get("/source/{corpus}/{doc_id:path}", include_in_schema=False)
    async def source_page(
        request: Request,
        corpus: str,
        doc_id: str,
        desk: Chair,
        start: int | None = None,
        end: int | None = None,
        page: int | None = None,
        sid: int | None = None,
        rank: int | None = None,
    ) -> Response:
        target = SEARCHABLE.get(corpus)
        if target is None or target.item_table is None:
            raise NotFound("אין מאגר מסמכים כזה")
        if sid is not None and rank is not None:  # opened from a search: a click (never fails)
            await run_in_threadpool(telemetry.record_click, desk.view, sid, rank, doc_id)

        def read() -> tuple[dict | None, list[int]]:
            with desk.view.store.connection() as conn:
                item = desk_store.item_text(conn, target, doc_id)
                images = desk_store.page_images(conn, target, item["id"]) if item else []
                return item, images

        item, images = await run_in_threadpool(read)
        if item is None:
            raise NotFound(f"המסמך אינו במאגר «{labels.label(corpus, 'corpus')}»")
        content = (item["content"] or "")[:MAX_SOURCE_CHARS]
        if not (start is not None and end is not None and 0 <= start < end <= len(content)):
            start = end = None
        pages = Pages(item.get("page_starts") or [], len(item["content"] or ""))
        span_pages = (pages.of(start), pages.of(end - 1)) if start is not None else None
        current = page if page is not None and 1 <= page <= pages.count else None
        current = current or (span_pages[0] if span_pages else None)
        base = request.url.path + (f"?start={start}&end={end}" if start is not None else "")
        sep = "&" if "?" in base else "?"

        def link(n: int) -> str | None:
            return f"{base}{sep}page={n}#page-{n}" if 1 <= n <= pages.count else None

        return core.render(
            request,
            "source.html",
            desk=desk,
            item=item,
            corpus=corpus,
            segments=segments(content, pages, start, end),
            span=start is not None,
            pages=pages,
            span_pages=span_pages,
            current=current,
            boundaries=pages.bounds(current) if current else None,
            prev_link=link(current - 1) if current else None,
            next_link=link(current + 1) if current else None,
            images=images,
            citable=target.citable,
            label=CORPUS_FORMS[corpus].label,
        )


@dataclass(frozen=True)
class Pages:
    """A paginated item's page boundaries: `starts[n]` is the character where page n+1 begins
    (from the PDF's page_starts); an item without them has no pages (count 0)."""

    starts: list[int]
    length: int

    @property
    def count(self) -> int:
        return len(self.starts)

    def of(self, offset: int) -> int | None:
        """The page holding character `offset` (1-based), or None for an item without pages."""
        return sum(1 for s in self.starts if s <= offset) or None if self.starts else None

    def bounds(self, page: int) -> tuple[int, int]:
        """Page `page`'s characters [start, end)."""
        end = self.starts[page] if page < self.count else self.length
        return self.starts[page - 1], end


def segments(
    content: str, pages: Pages, start: int | None, end: int | None
) -> list[tuple[str, Any]]:
    """The reader's text cut at each page start (("page", n) markers) and around the span
    (("anchor", text) for its first piece, ("span", text) for a piece after a page start); the
    rest ("text", text). The template escapes every text."""
    cuts = {s: ("page", n) for n, s in enumerate(pages.starts, 1) if 0 < s < len(content)}
    out: list[tuple[str, Any]] = [("page", 1)] if pages.count else []
    points = sorted({0, len(content), *cuts, *((start, end) if start is not None else ())})
    for a, b in zip(points, points[1:], strict=False):
        if a in cuts:
            out.append(cuts[a])
        if a < b:
            inside = start is not None and start <= a and b <= end
            kind = ("anchor" if a == start else "span") if inside else "text"
            out.append((kind, content[a:b]))
    return out


def _number(value: Any) -> int | None:
    """A positive whole number from a form or query string, else None."""
    text = str(value or "").strip()
    return int(text) if text.isascii() and text.isdigit() and 0 < len(text) < 19 else None


def _same_search(view: Any, sid: int | None, corpus: str, query: str, args: dict) -> dict | None:
    """The logged desk search `sid` when it is this very search by this chair (shown again after
    a mark), with its marks; else None (the search is new and is logged)."""
    if sid is None:
        return None
    row = telemetry.search_row(view, sid)
    same = (
        row is not None
        and row["surface"] == "desk"
        and (
            (row["actor"], row["corpus"], row["query"], row["filters"])
            == (
                view.principal.actor,
                corpus,
                telemetry.bounded_text(query, telemetry.MAX_QUERY_CHARS),
                telemetry.clean_filters(args),
            )
        )
    )
    return row if same else None


def _shown(
    analyzer: Any,
    hit: dict,
    query: str,
    search_id: int | None = None,
    rank: int = 0,
    useful: bool = False,
) -> dict:
    legs = [
        {"label": labels.label(leg, "leg"), "rank": v["rank"]} for leg, v in hit["explain"].items()
    ]
    link = None
    if hit.get("kind") != "precedent" and hit.get("doc_id"):
        link = f"/source/{hit['corpus']}/{core.env.filters['q'](hit['doc_id'])}"
        params: dict[str, Any] = {}
        if hit.get("char_start") is not None and hit.get("char_end") is not None:
            params.update(start=hit["char_start"], end=hit["char_end"])
        if search_id is not None:  # opening it records the click against the search
            params.update(sid=search_id, rank=rank)
        link += (f"?{urlencode(params)}" if params else "") + "#span"
    return {
        **hit,
        "rank": rank,
        "useful": useful,
        "snippet_html": highlight(analyzer, hit.get("snippet") or "", query),
        "legs": legs,
        "link": link,
        "cite": citation_of(hit),
        "term": hit.get("term"),  # a principle's term (retrieval/terms.principle_term)
    }
