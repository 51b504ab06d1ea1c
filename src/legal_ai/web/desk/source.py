"""/source/{corpus}/{doc_id}: the stored text with a hit's span highlighted and scrolled to, its
pages when it has them, and the citation of the passage shown (Israeli style, its paragraph as
the pinpoint: the one the search page named, `pinpoint`, when it is the span's; else the span's
paragraph, or its first and last). Opened from a search (`sid`, `rank`), it records a click."""

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from ... import telemetry
from ...corpora import SEARCHABLE
from ...errors import NotFound
from ...retrieval.source import item_with_pages
from ...text.citation_style import israeli_citation, kind_of
from ...text.passages import paragraph_of, paragraphs_over
from . import core, labels

MAX_SOURCE_CHARS = 400_000


def routes(api: FastAPI, signed_in: Any) -> None:
    Chair = Annotated[core.Desk, Depends(signed_in)]

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
        pinpoint: str | None = None,
    ) -> Response:
        target = SEARCHABLE.get(corpus)
        if target is None or target.item_table is None:
            raise NotFound("אין מאגר מסמכים כזה")
        if sid is not None and rank is not None:  # opened from a search: a click (never fails)
            await run_in_threadpool(telemetry.record_click, desk.view, sid, rank, doc_id)

        def read() -> tuple[dict | None, list[int]]:
            return item_with_pages(desk.view, target, doc_id)

        item, images = await run_in_threadpool(read)
        if item is None:
            raise NotFound(f"המסמך אינו במאגר «{labels.label(corpus, 'corpus')}»")
        content = (item["content"] or "")[:MAX_SOURCE_CHARS]
        if not (start is not None and end is not None and 0 <= start < end <= len(content)):
            start = end = None
        pages = Pages(item.get("page_starts") or [], len(item["content"] or ""))
        span_pages = (
            (pages.of(start), pages.of(end - 1)) if start is not None and end is not None else None
        )
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
            cite=citation(item, corpus, content, start, end, pinpoint, span_pages),
            label=labels.CORPUS[corpus],
        )


def citation(
    item: dict,
    corpus: str,
    content: str,
    start: int | None,
    end: int | None,
    pinpoint: str | None,
    span_pages: tuple[int | None, int | None] | None,
) -> str:
    """The citation of the passage shown (of the document, when no passage is)."""
    paragraph = None
    if start is not None and end is not None:
        numbers = [n for _, _, n in paragraphs_over(content, start, end)]
        paragraph = pinpoint if pinpoint in numbers else paragraph_of(content, start, end)
    case_number = item.get("case_number")
    return israeli_citation(
        case_number=case_number,
        title=item.get("title"),
        decided_on=item.get("decided_on"),
        paragraph=paragraph,
        page=span_pages[0] if span_pages else None,
        kind=kind_of(item.get("doc_type"), item.get("source_kind"), corpus, case_number),
        law_title=item.get("law_title"),
        section_num=item.get("section_num"),
        content=content,
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
