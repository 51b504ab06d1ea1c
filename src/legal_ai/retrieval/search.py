"""Hybrid search over one corpus: semantic + lexical legs, RRF fusion, diversity cap, and
provenance on every hit (DESIGN §4)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..config import Settings
from ..errors import InvalidInput
from ..providers.embedders import Embedder
from ..store.db import Store
from ..text.hebrew import clean_text, normalize_case_number, websearch_query
from . import legs
from .corpora import get_corpus
from .fusion import rrf

Mode = Literal["hybrid", "semantic", "lexical"]
MODES: tuple[str, ...] = ("hybrid", "semantic", "lexical")
MAX_QUERY_CHARS = 2000
MAX_LIMIT = 200
SNIPPET_CHARS = 400


@dataclass
class SearchResult:
    hits: list[dict] = field(default_factory=list)
    dropped_by_cap: int = 0

    def as_dict(self) -> dict:
        return {"hits": self.hits, "dropped_by_cap": self.dropped_by_cap}


def clean_query(query: str) -> str:
    text = clean_text(query or "").strip()
    if not text:
        raise InvalidInput("the query is empty; type what to search for")
    if len(text) > MAX_QUERY_CHARS:
        raise InvalidInput(
            f"the query is {len(text)} characters; shorten it to at most {MAX_QUERY_CHARS}"
        )
    return text


def cap_per_item(fused: list, item_of: dict[int, int], limit: int, cap: int) -> tuple[list, int]:
    """Keep at most `cap` hits per item, backfilling from further down the window, so `limit`
    hits come back whenever that many eligible exist. Returns (kept, dropped before limit)."""
    kept, per_item, dropped = [], {}, 0
    for entry in fused:
        if len(kept) == limit:
            break
        item = item_of.get(entry.key)
        if item is None:
            continue
        if per_item.get(item, 0) >= cap:
            dropped += 1
            continue
        per_item[item] = per_item.get(item, 0) + 1
        kept.append(entry)
    return kept, dropped


def search(
    store: Store,
    embedder: Embedder,
    settings: Settings,
    corpus_key: str,
    query: str,
    *,
    filters: legs.Filters | None = None,
    limit: int = 10,
    mode: str = "hybrid",
) -> SearchResult:
    corpus = get_corpus(corpus_key)
    if mode not in MODES:
        raise InvalidInput(f"unknown mode {mode!r}; choose one of: {', '.join(MODES)}")
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"limit must be between 1 and {MAX_LIMIT}")
    text = clean_query(query)
    filters = filters or legs.Filters()
    if filters.case_number:
        filters = legs.Filters(
            **{**filters.__dict__, "case_number": normalize_case_number(filters.case_number)}
        )
    use_semantic = mode in ("hybrid", "semantic")
    use_lexical = mode == "lexical" or (mode == "hybrid" and settings.bm25_hybrid_enabled)
    window = max(settings.leg_window, limit * settings.max_per_case_law, limit)
    rankings: dict[str, list[int]] = {}
    with store.pool.connection() as conn:
        if use_semantic:
            rankings["semantic"] = legs.semantic(
                conn, corpus, filters, embedder.embed_query(text),
                embedder=embedder.id, dim=embedder.dim, window=window,
                max_scan_tuples=settings.hnsw_max_scan_tuples,
            )  # fmt: skip
        if use_lexical:
            rankings["lexical"] = legs.lexical(
                conn, corpus, filters, websearch_query(text), embedder=embedder.id, window=window
            )
        fused = rrf(rankings, k=settings.rrf_k)
        rows = legs.hydrate(conn, corpus, [f.key for f in fused])
    item_of = {chunk_id: row["item_id"] for chunk_id, row in rows.items()}
    kept, dropped = cap_per_item(fused, item_of, limit, settings.max_per_case_law)
    hits = [_hit(corpus.key, rows[f.key], f) for f in kept]
    return SearchResult(hits, dropped)


def _hit(corpus_key: str, row: dict, fused) -> dict:
    decided = row.get("decided_on")
    return {
        "corpus": corpus_key,
        "source_kind": row.get("source_kind"),
        "kind": "chunk",
        "doc_id": row["doc_id"],
        "case_law_id": row.get("case_law_id"),
        "document_id": row.get("document_id"),
        "chunk_id": row["chunk_id"],
        "case_number": row.get("case_number"),
        "title": row.get("title"),
        "court": row.get("court"),
        "decided_on": decided.isoformat() if decided else None,
        "page": row.get("page"),
        "section": row.get("section"),
        "char_start": row["char_start"],
        "char_end": row["char_end"],
        "snippet": row["text"][:SNIPPET_CHARS],
        "supporting_quote": None,
        "citable": corpus_key != "digests",
        "score": round(fused.score, 6),
        "explain": {leg: {"rank": rank} for leg, rank in fused.ranks.items()},
    }
