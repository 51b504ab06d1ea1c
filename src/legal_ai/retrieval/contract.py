"""The JSON a search answers with (DESIGN.md §10; docs/search.md): every search tool of the
CLI, the HTTP API and the MCP server returns a `SearchAnswer` (with the tool's name), each of its
hits a `Hit`. Typed here so that a key renamed in one place fails the type check everywhere."""

from __future__ import annotations

from typing import Any, TypedDict


class Explain(TypedDict):
    rank: int  # the hit's rank in that leg, from 1


class Rerank(TypedDict, total=False):
    score: float | None  # the reranker's score; None when it was skipped
    fused_rank: int  # where RRF had put it
    by: str  # the reranker
    skipped: str  # why the fused order stands


class ShownTerm(TypedDict):
    term: str | None  # a principle's term as shown (retrieval/terms.py: shown_term)
    unconfirmed: bool
    term_once_confirmed: str | None


class _HitFields(ShownTerm):
    corpus: str
    source_kind: str | None
    kind: str  # chunk | principle | precedent | page
    doc_id: str
    case_law_id: int | None
    document_id: int | None
    chunk_id: int | None
    principle_id: int | None
    case_number: str | None
    title: str | None
    court: str | None
    decided_on: str | None  # ISO date
    page: int | None
    section: str | None
    char_start: int | None
    char_end: int | None
    snippet: str
    supporting_quote: str | None
    citable: bool
    score: float  # the fused (RRF) score
    explain: dict[str, Explain]  # leg name -> its rank
    exact: bool  # in the "exact match" group ahead of the fused list


class Hit(_HitFields, total=False):
    # a principle
    corroboration: int
    canonical_statement: str | None
    approved_by: str | None
    confirmed: bool
    # a precedent the chair attached
    note: str | None
    precedent_id: int
    # a citable unit
    doc_type: str | None
    law_title: str | None
    section_num: str | None
    parties: str | None
    citation: str  # ready to paste (text/citation_style.py)
    rerank: Rerank  # when a reranker ran


class Identifier(TypedDict):
    identifier: str
    kind: str  # section | case_number
    found: bool


class _AnswerFields(TypedDict):
    hits: list[Hit]
    dropped_by_cap: int  # hits the per-item cap passed over


class SearchAnswer(_AnswerFields, total=False):
    identifiers: list[Identifier]  # what the query names, and whether the corpus holds it
    semantic_query_chars: int  # a long query: the characters its semantic legs read
    dropped_unverified: int  # hits whose span no longer reads its text, left out
    rerank: dict[str, Any]


class _ToolFields(SearchAnswer):
    tool: str  # the tool's name


class ToolAnswer(_ToolFields, total=False):
    """What a search tool answers (the MCP server's tools, `legal-ai search --json`)."""

    search_id: int  # its search_log row, when the search was logged (app.App.tool)
