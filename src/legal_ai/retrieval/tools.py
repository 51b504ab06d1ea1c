"""The search tools the chair and the writing agents call (CLI, MCP). Each tool fixes its corpus;
no tool takes a corpus argument, so no call can cross corpora. Every tool returns the JSON shape
`{"tool", "hits": [...], "dropped_by_cap"}`, hits as in DESIGN §4.

A required argument counts as given only when something is left of it after cleaning (a case
number of zero-width spaces is no case number). A filter the tool's corpus cannot apply (a date
range on the chair's finals, which carry no decision date) is refused by the search, naming the
filters the corpus has."""

from __future__ import annotations

from typing import Protocol

import numpy as np

from ..corpora import get_corpus
from ..errors import InvalidInput, NotFound
from ..text.hebrew import clean_text
from .contract import ToolAnswer
from .legs import Filters
from .search import SearchResult, filter_value


class Searcher(Protocol):
    """What the tools need: `app.App` provides it."""

    def search(self, corpus: str, query: str, **kwargs) -> SearchResult: ...

    def case_profile(self, case_number: str) -> tuple[str, np.ndarray | None]: ...

    def case_practice_area(self, case_number: str) -> str | None: ...


# The two kinds of the precedent library a search may keep to (its rulings, the law's sections).
LIBRARY_KINDS = ("ruling", "legislation")
# find_similar_cases by a text: the first 2,000 characters of it, embedded whole (a case is like
# a text by all of it), as a case's own profile is its documents' first 2,000 (store/precedents).
SIMILAR_TEXT_CHARS = 2000


def _result(tool: str, result: SearchResult) -> ToolAnswer:
    return {"tool": tool, **result.as_dict()}


def search_decisions(
    app: Searcher,
    query: str,
    practice_area: str,
    *,
    date_from: str | None = None,
    date_to: str | None = None,
    limit: int = 10,
    mode: str = "hybrid",
) -> ToolAnswer:
    """The chair's signed finals (style corpus), within one practice area (required)."""
    if not filter_value("practice_area", practice_area):
        raise InvalidInput(
            "search_decisions needs practice_area (e.g. planning, betterment_levy, compensation)",
            code="search.practice_area_needed",
            field="practice_area",
        )
    filters = Filters(practice_area=practice_area, date_from=date_from, date_to=date_to)
    return _result(
        "search_decisions", app.search("style", query, filters=filters, limit=limit, mode=mode)
    )


def search_my_decisions(
    app: Searcher,
    query: str,
    *,
    practice_area: str | None = None,
    limit: int = 10,
    mode: str = "hybrid",
) -> ToolAnswer:
    """The chair's own signed finals (style corpus), across her practice areas unless she keeps
    to one. Hers alone (CHAIR_TOOLS): the writing agents keep to one practice area through
    `search_decisions` (DESIGN §3), the chair looking for what she wrote need not."""
    filters = Filters(practice_area=practice_area)
    return _result(
        "search_my_decisions", app.search("style", query, filters=filters, limit=limit, mode=mode)
    )


def search_case_documents(
    app: Searcher, query: str, case_number: str, *, limit: int = 10, mode: str = "hybrid"
) -> ToolAnswer:
    """The documents of one case (pleadings, protocols, exhibits)."""
    if not filter_value("case_number", case_number):
        raise InvalidInput(
            "search_case_documents needs the case_number, in full",
            code="search.case_number_needed",
            field="case_number",
        )
    filters = Filters(case_number=case_number)
    return _result(
        "search_case_documents", app.search("case", query, filters=filters, limit=limit, mode=mode)
    )


def find_similar_cases(
    app: Searcher,
    *,
    case_number: str | None = None,
    text: str | None = None,
    practice_area: str | None = None,
    limit: int = 5,
) -> ToolAnswer:
    """Other cases like a given case (by its documents) or like a text: one hit per case, within
    one practice area (03 §5) — the given case's own, or `practice_area` (required with a text)."""
    if text is not None and not isinstance(text, str):
        raise InvalidInput(
            "find_similar_cases: text must be text", code="query.not_text", field="text"
        )
    exclude = filter_value("case_number", case_number)
    text = clean_text(text).strip()[:SIMILAR_TEXT_CHARS] if text else None
    if bool(exclude) == bool(text):
        raise InvalidInput(
            "find_similar_cases needs exactly one of case_number or text",
            code="search.similar_target",
        )
    area = filter_value("practice_area", practice_area)
    vector = None
    if exclude:
        text, vector = app.case_profile(exclude)
        if not text:
            raise NotFound(f"case {exclude!r} has no searchable documents to compare")
        own = app.case_practice_area(exclude)
        if not own:
            raise InvalidInput(
                f"find_similar_cases: case {exclude!r} has no practice_area; set it",
                code="search.practice_area_needed",
                field="practice_area",
            )
        if area and area != own:
            raise InvalidInput(
                f"find_similar_cases: practice_area {area!r} is not the case's own ({own!r});"
                " leave practice_area out",
                code="search.practice_area_mismatch",
                field="practice_area",
            )
        area = own
    elif not area:
        raise InvalidInput(
            "find_similar_cases by text needs practice_area"
            " (e.g. planning, betterment_levy, compensation)",
            code="search.practice_area_needed",
            field="practice_area",
        )
    if not text:  # the case's profile or the text given, as checked above
        raise InvalidInput("find_similar_cases needs exactly one of case_number or text")
    filters = Filters(practice_area=area, exclude_case_number=exclude)
    result = app.search(
        "case",
        text[:SIMILAR_TEXT_CHARS],
        filters=filters,
        limit=limit,
        vector=vector,
        group_by=lambda row: row.get("case_number"),
        cap=1,
        semantic_chars=SIMILAR_TEXT_CHARS,  # a case is like a text by all of it
    )
    return _result("find_similar_cases", result)


def search_precedent_library(
    app: Searcher,
    query: str,
    *,
    court: str | None = None,
    practice_area: str | None = None,
    date_from: str | None = None,
    date_to: str | None = None,
    doc_type: str | None = None,
    limit: int = 10,
    mode: str = "hybrid",
) -> ToolAnswer:
    """External authoritative sources: court rulings and legislation (chunks and approved
    principles); `doc_type` keeps to one of them (`ruling` | `legislation`)."""
    kind = filter_value("doc_type", doc_type)
    if kind not in (None, *LIBRARY_KINDS):
        raise InvalidInput(
            f"search_precedent_library: doc_type {kind!r} is not one of: {', '.join(LIBRARY_KINDS)}",
            code="choice.unknown",
            field="doc_type",
        )
    filters = Filters(
        court=court,
        practice_area=practice_area,
        date_from=date_from,
        date_to=date_to,
        doc_type=kind,
    )
    return _result(
        "search_precedent_library",
        app.search("external", query, filters=filters, limit=limit, mode=mode),
    )


def search_internal_decisions(
    app: Searcher,
    query: str,
    *,
    practice_area: str | None = None,
    date_from: str | None = None,
    date_to: str | None = None,
    limit: int = 10,
    mode: str = "hybrid",
) -> ToolAnswer:
    """The committee's own decisions (internal corpus)."""
    filters = Filters(practice_area=practice_area, date_from=date_from, date_to=date_to)
    return _result(
        "search_internal_decisions",
        app.search("internal", query, filters=filters, limit=limit, mode=mode),
    )


def precedent_search_library(
    app: Searcher,
    query: str,
    *,
    case_number: str | None = None,
    limit: int = 10,
    mode: str = "hybrid",
) -> ToolAnswer:
    """The citations the chair attached to her cases (case_precedents, not the external corpus)."""
    filters = Filters(case_number=case_number)
    return _result(
        "precedent_search_library",
        app.search("case_precedents", query, filters=filters, limit=limit, mode=mode),
    )


def search_digests(
    app: Searcher,
    query: str,
    *,
    practice_area: str | None = None,
    limit: int = 10,
    mode: str = "hybrid",
) -> ToolAnswer:
    """Digests: summaries that point at rulings. Pointers only: never cite a digest."""
    filters = Filters(practice_area=practice_area)
    return _result(
        "search_digests", app.search("digests", query, filters=filters, limit=limit, mode=mode)
    )


TOOLS = {
    f.__name__: f
    for f in (
        search_decisions,
        search_case_documents,
        find_similar_cases,
        search_precedent_library,
        search_internal_decisions,
        precedent_search_library,
        search_digests,
    )
}

# Tools only the chair may call (App.tool refuses them to anyone else; no MCP tool or HTTP
# route names them): the desk's search of her own finals without a practice area.
CHAIR_TOOLS = {search_my_decisions.__name__: search_my_decisions}

# `legal-ai search --corpus C` routes to the tool of that corpus, so the same rules apply.
TOOL_OF_CORPUS = {
    "style": "search_decisions",
    "case": "search_case_documents",
    "external": "search_precedent_library",
    "internal": "search_internal_decisions",
    "case_precedents": "precedent_search_library",
    "digests": "search_digests",
}


def corpus_tool(
    corpus: str, given: dict[str, str | None], spell=lambda name: name
) -> tuple[str, dict]:
    """The tool that searches `corpus` and the filters of `given` it takes. A filter given a
    value the tool does not take is refused (InvalidInput naming it as `spell(name)` spells it:
    `--practice-area` for the CLI, `practice_area` for HTTP), never dropped."""
    import inspect

    tool = TOOL_OF_CORPUS[get_corpus(corpus, searchable=True).key]
    parameters = inspect.signature(TOOLS[tool]).parameters
    accepted = set(parameters) - {"app"}
    unused = [spell(k) for k, v in given.items() if v and k not in accepted]
    if unused:
        raise InvalidInput(
            f"{' '.join(unused)} does not apply to {spell('corpus')} {corpus}",
            code="filter.not_applicable",
        )
    # A filter the tool requires goes in even when missing: the tool says what it needs.
    required = {
        k for k in given if k in parameters and parameters[k].default is parameters[k].empty
    }
    return tool, {
        k: v for k, v in given.items() if k in accepted and (v is not None or k in required)
    }
