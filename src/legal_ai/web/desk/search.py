"""/search: one box across every corpus, its facets (פסיקה · חקיקה · החלטות ועדות · החלטותיי ·
מסמכי התיק · אסמכתאות · תקצירים) and the filters a facet takes (web/desk/search_form.py: each a
select or a completion list, her words resolved against the library, what is wrong said beside
its field), and the hits as a lawyer reads them (web/desk/search_results.py: one result a
document, ten a page, the citation to copy). /source is web/desk/source.py.

"הכול" is each facet searched on its own — corpora never mix: one search per facet, through its
own tool, each with its own cap per ruling — shown grouped under the facet with its count and
its first documents, every hit under the corpus it came from. An identifier the query names (a
section, a case number) found anywhere is shown first as the exact match; one found nowhere is
said plainly ("לא נמצאה החלטה שמספרה …") above whatever else the words found.

Every search here is logged (telemetry.py, surface `desk`; "הכול" logs one search per facet);
each passage carries a "useful" (שימושי) button (POST /search/useful, with the session's CSRF
token) and its source link carries the search's id and the passage's rank, so opening it records
a click. Another page of the same results, or coming back from a mark, shows the same search
again (`sid`) without logging it twice.

Each facet searches through its own tool (retrieval/tools.py), so the desk applies exactly the
rules the CLI and the agents do: a required filter (a case's documents need the case number) is
asked for, and a filter the corpus cannot apply is never offered (retrieval/legs.py
SUPPORTED_FILTERS). Her own finals go through `search_my_decisions`, the chair's own tool, which
demands no practice area. The search is asked for HITS passages at once; paging shows them ten
documents at a time, in the service's order."""

from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import Depends, FastAPI, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from ... import telemetry
from ...errors import InvalidInput, NotFound
from . import core, search_form, search_results, source
from .search_form import address
from .search_results import HITS, PER_FACET


def routes(api: FastAPI, signed_in: Any) -> None:
    Chair = Annotated[core.Desk, Depends(signed_in)]
    source.routes(api, signed_in)

    @api.get("/search", include_in_schema=False)
    async def search_page(request: Request, desk: Chair) -> Response:
        params = request.query_params
        asked = await run_in_threadpool(search_form.read, params, desk.view)
        shown = None
        if asked.ready and asked.form.key == "all":
            shown = await run_in_threadpool(_search_all, desk.view, asked)
        elif asked.ready:
            shown = await run_in_threadpool(
                _search,
                desk.view,
                asked,
                _number(params.get("sid")),
                _number(params.get("page")),
                _number(params.get("at")),
            )
        return core.render(
            request,
            "search.html",
            desk=desk,
            forms=search_form.CORPUS_FORMS,
            facets=search_form.FACETS,
            form=asked.form,
            asked=asked,
            query=asked.query,
            values=asked.values,
            labels=search_form.FILTER_LABELS,
            practice_areas=search_form.PRACTICE_AREAS,
            **(shown or {"searched": False}),
        )

    @api.post("/search/useful", include_in_schema=False)
    async def mark_useful(request: Request, desk: Chair) -> Response:
        """The chair marks a passage of a desk search useful (useful=0 takes the mark back);
        back to the same search, its page, at that passage."""
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
        query.update(page=_number(posted.get("page")) or "", at=rank)
        return RedirectResponse(f"{address(query)}#hit-{rank}", status_code=303)


def _search(
    view: Any, asked: Any, sid: int | None, page: int | None, at: int | None
) -> dict[str, Any]:
    """One facet's search (logged unless it is the desk search `sid` shown again), its page of
    results and the links around them; a refusal of the service goes beside its field."""
    form, query, args = asked.form, asked.query, asked.args
    called = {**args, **dict(form.fixed)}
    same = _same_search(view, sid, form.corpus, query, called)
    try:
        # The same search shown again (another page, back from a mark) is not logged again.
        runner = view if same else view.on_surface("desk")
        result = runner.tool(form.tool, query=query, limit=HITS, **called)
    except InvalidInput as exc:
        asked.refused(exc)
        return {"searched": False}
    search_id = same["id"] if same else result.get("search_id")
    useful = {m["rank"] for m in same["marks"] if m["kind"] == "useful"} if same else set()
    kept = {"corpus": form.key, "q": query, **args, "sid": search_id}
    groups = search_results.grouped(result["hits"])
    number = search_results.page_number(groups, page, at)
    shown = search_results.paged(view, result["hits"], query, number, _linker(search_id), useful)
    pages = [(n, address(kept | {"page": n})) for n in range(1, shown.count + 1)]
    not_found = [i for i in result.get("identifiers", []) if not i["found"]]
    return {
        "searched": True,
        "search_id": search_id,
        "shown": shown,
        "pager": pages if shown.count > 1 else [],
        "at": at,
        "capped": len(result["hits"]) >= HITS,
        "not_found": [search_results.not_found(i, form.label) for i in not_found],
        "everywhere": address({"q": query}) if not_found else None,
        "meaning_read": result.get("semantic_query_chars"),
        "suggestions": [] if shown.documents else search_results.suggestions(form, query, args),
    }


def _search_all(view: Any, asked: Any) -> dict[str, Any]:
    """Every facet searched on its own (its own tool, its own cap per ruling; nothing fused
    across corpora), each shown with its count and its first documents under its name; the
    exact matches of an identifier gathered first; an identifier found in none said so."""
    query, runner = asked.query, view.on_surface("desk")
    facets: list[dict[str, Any]] = []
    exact: list[tuple[str, search_results.Result]] = []
    named: dict[str, dict] = {}
    meaning_read = None
    for key in search_form.SEARCHED_IN_ALL:
        form = search_form.CORPUS_FORMS[key]
        args = {n: asked.args[n] for n in form.required if asked.args.get(n)}
        link = address({"corpus": key, "q": query, **args})
        if len(args) < len(form.required):  # a case's documents: only with its number
            facets.append({"form": form, "count": None, "href": link, "results": []})
            continue
        try:
            result = runner.tool(form.tool, query=query, limit=HITS, **args, **dict(form.fixed))
        except InvalidInput as exc:  # the query itself (too long): said beside the box
            asked.refused(exc)
            return {"searched": False}
        shown = search_results.paged(
            view, result["hits"], query, 1, _linker(result.get("search_id")), set(), PER_FACET
        )
        facets.append(
            {
                "form": form,
                "count": shown.documents,
                "href": link,
                "results": shown.results,
                "search_id": result.get("search_id"),
            }
        )
        exact += [(form.label, r) for r in shown.results if r.best.get("exact")]
        meaning_read = result.get("semantic_query_chars") or meaning_read
        for i in result.get("identifiers", []):
            seen = named.setdefault(i["identifier"], dict(i))
            seen["found"] = seen["found"] or i["found"]
    her_cases = set(asked.cases)
    missing = [
        i for i in named.values() if not i["found"] and not search_results.hers(i, her_cases)
    ]
    return {
        "searched": True,
        "all": True,
        "facets_found": facets,
        "exact": exact,
        "not_found": [search_results.not_found(i) for i in missing],
        "documents": sum(f["count"] or 0 for f in facets),
        "meaning_read": meaning_read,
    }


def _linker(search_id: int | None) -> Any:
    """The address of a hit's source: its span and paragraph, and the search's id and the
    hit's rank (opening it records the click against the search)."""

    def link(hit: dict, rank: int, paragraph: str | None) -> str | None:
        if hit.get("kind") == "precedent" or not hit.get("doc_id"):
            return None
        target = f"/source/{hit['corpus']}/{core.env.filters['q'](hit['doc_id'])}"
        params: dict[str, Any] = {}
        if hit.get("char_start") is not None and hit.get("char_end") is not None:
            params.update(start=hit["char_start"], end=hit["char_end"])
        if paragraph:
            params.update(pinpoint=paragraph)
        if search_id is not None:
            params.update(sid=search_id, rank=rank)
        return target + (f"?{urlencode(params)}" if params else "") + "#span"

    return link


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
