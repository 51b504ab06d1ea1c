"""Hybrid search over one corpus: for each of the corpus's sources (chunks, approved principles,
or attached precedents) a semantic and a lexical leg; Reciprocal Rank Fusion of all legs; the
diversity cap; and provenance on every hit (DESIGN §4). Each leg is run by
retrieval/search_legs.py; no leg waits for another: the query's embedding and the lexical and
reference legs start at once, and the semantic legs as soon as the query's vector exists, on a
spare pooled connection when one is free (else after the lexical legs, on the search's own).

Every argument is checked before the database is touched (retrieval/arguments.py): the query and
each filter value are text, cleaned like stored text (no NUL, zero-width or bidi characters),
and bounded in length; case numbers take their canonical spelling; dates are YYYY-MM-DD; a
filter the corpus cannot apply is refused (InvalidInput naming the corpus's filters), never
ignored."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Hashable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..config import Settings
from ..corpora import Corpus, Source
from ..providers.embedders import Embedder
from ..providers.rerankers import Reranker, rerank
from ..store import spans
from ..store.db import Store
from ..text.citation_style import cited_parties, israeli_citation, kind_of
from ..text.passages import paragraph_marks
from . import exact, legs
from .arguments import MAX_FILTER_CHARS as MAX_FILTER_CHARS
from .arguments import MAX_LIMIT as MAX_LIMIT
from .arguments import MAX_QUERY_CHARS as MAX_QUERY_CHARS
from .arguments import MODES as MODES
from .arguments import SEMANTIC_QUERY_CHARS, checked, semantic_text
from .arguments import clean_query as clean_query
from .arguments import filter_value as filter_value
from .arguments import normalized_filters as normalized_filters
from .contract import Hit, Identifier, Rerank, SearchAnswer
from .fusion import Fused, rrf
from .search_legs import (
    SemanticPlan,
    hnsw_configured,
    hydrate_found,
    image_leg,
    lexical_legs,
    rankings,
    semantic_beside,
    timer,
)
from .terms import approved_by, principle_term, shown_term

SNIPPET_CHARS = 400
logger = logging.getLogger(__name__)


@dataclass
class SearchResult:
    """The hits and how many the diversity cap passed over. `timings`: milliseconds per phase
    (embedding — the model's own time, embedding_wait — how long the semantic legs waited for it,
    lexical, reference, semantic, semantic_join — how long the search waited for the semantic
    legs run beside its lexical legs after its own work, image, hydrate, total) and `parallel`
    (1: the semantic legs ran beside the lexical legs on a spare connection; 0: after them, on
    the search's connection); not part of the JSON."""

    hits: list[Hit] = field(default_factory=list)
    dropped_by_cap: int = 0
    timings: dict[str, float] = field(default_factory=dict)
    # Hits whose span no longer read the text it was cut or drawn from (INV-RET5): not
    # returned, backfilled from the window; `legal-ai health` lists them, `reindex` repairs.
    unverified: list[dict] = field(default_factory=list)
    # The second phase (LEGAL_AI_RERANKER; None: none ran): {"by", "candidates", "ms",
    # "skipped"} — skipped is why the fused order stands (None: reranked).
    rerank: dict | None = None
    # The identifiers the query names (a section, a case number) and whether the corpus holds
    # each (retrieval/exact.py): [{"identifier", "kind", "found"}]; empty when it names none.
    identifiers: list[Identifier] = field(default_factory=list)
    # How many of the query's characters the semantic legs read, when fewer than it has (a long
    # query: arguments.semantic_text); None when they read it all.
    semantic_chars: int | None = None

    def as_dict(self) -> SearchAnswer:
        out: SearchAnswer = {"hits": self.hits, "dropped_by_cap": self.dropped_by_cap}
        if self.identifiers:
            out["identifiers"] = self.identifiers
        if self.semantic_chars is not None:
            out["semantic_query_chars"] = self.semantic_chars
        if self.unverified:
            out["dropped_unverified"] = len(self.unverified)
        if self.rerank is not None:
            out["rerank"] = self.rerank
        return out


def cap_per_item(
    fused: list[Fused], group_of: dict[Hashable, Hashable], limit: int, cap: int
) -> tuple[list[Fused], int]:
    """Keep at most `cap` hits per group (ruling, document, case), backfilling from further down
    the window so `limit` hits come back whenever that many eligible exist. Returns the kept
    hits and how many the cap passed over on the way."""
    kept: list[Fused] = []
    per_group: dict[Hashable, int] = {}
    dropped = 0
    for entry in fused:
        if len(kept) == limit:
            break
        group = group_of.get(entry.key)
        if group is None:
            continue
        if per_group.get(group, 0) >= cap:
            dropped += 1
            continue
        per_group[group] = per_group.get(group, 0) + 1
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
    vector: np.ndarray | None = None,
    group_by: Callable[[dict], Hashable] | None = None,
    cap: int | None = None,
    image_embedder: Embedder | None = None,
    reranker: Reranker | None = None,
    semantic_chars: int = SEMANTIC_QUERY_CHARS,
) -> SearchResult:
    """Search one corpus. `vector` replaces the query's embedding (find_similar_cases);
    `group_by`/`cap` change what the diversity cap counts (default: per ruling/document);
    `image_embedder` adds the weighted image leg when MULTIMODAL_ENABLED; `reranker` reorders
    the first LEGAL_AI_RERANK_TOP_N of the fused list (not for a search by `vector`). The
    semantic legs, the image leg and the reranker read the query's first `semantic_chars`
    (arguments.semantic_text); the lexical and reference legs read all of it."""
    corpus, text, filters = checked(corpus_key, mode, limit, query, filters)
    meaning = semantic_text(text, semantic_chars)
    cap, use_semantic, use_lexical, window, image_source, use_image = _plan(
        settings, corpus, mode, limit, cap, image_embedder
    )
    rows: dict[tuple[str, int], dict] = {}
    timings: dict[str, float] = {}
    clock = time.perf_counter()
    embedding, image_vector = _embeddings(
        embedder, image_embedder, meaning, vector, use_semantic, use_lexical, use_image
    )
    found: dict[str, list[int]] = {}  # leg name -> unit ids, best first
    plan = SemanticPlan(corpus, filters, meaning, vector, embedding, embedder, settings, window)
    with store.connection() as conn, ExitStack() as stack:
        beside = None  # the semantic legs' future, when they run beside the lexical legs
        if use_semantic and use_lexical and settings.search_parallel_legs:
            beside = stack.enter_context(semantic_beside(store, plan))
        own_semantic = use_semantic and beside is None
        configured = hnsw_configured(conn, settings, own_semantic or use_image)
        if use_lexical:
            lexical_legs(conn, corpus, filters, text, settings, embedder, window, found, timings)
        waiting = beside if beside is not None else embedding
        if waiting is not None and not waiting.done():
            hydrate_found(conn, corpus, found, rows, timings)
        if beside is not None:
            with timer(timings, "semantic_join"):
                semantic_found, semantic_timings = beside.result()
            found.update(semantic_found)
            timings.update(semantic_timings)
        elif use_semantic:
            plan.run(conn, configured, found, timings)
        if image_vector is not None and image_source is not None and image_embedder is not None:
            with timer(timings, "image"):
                found["image"] = image_leg(
                    conn,
                    corpus,
                    image_source,
                    filters,
                    image_vector,
                    image_embedder,
                    settings,
                    window,
                    configured,
                )
        fused = rrf(
            rankings(corpus, found), k=settings.rrf_k, weights={"image": settings.image_weight}
        )
        sources = (*corpus.sources, *([image_source] if image_source and use_image else []))
        head, stage = 0, None
        provenance: dict[tuple[str, int], Rerank] = {}
        if reranker is not None and vector is None and fused:
            fused, head, stage, provenance = _reranked(
                conn, corpus, sources, fused, rows, reranker, meaning, settings, timings
            )
        # An exact identifier's items first, as their own group; the rest in fused order.
        # (Not for a search by a case's own vector: its text is no query she typed.)
        exact_ids = (found.get(exact.REFERENCE_LEG) or []) if vector is None else []
        fused, head = exact.first(fused, head, exact_ids)
        identifiers = []
        if use_lexical and vector is None:
            names = exact.named(text, settings.reference_lookups_per_query)
            keys = [("chunk", unit_id) for unit_id in exact_ids]
            _hydrate(conn, corpus, {s.kind: s for s in sources}, keys, rows, timings)
            identifiers = exact.report(names, [rows[k] for k in keys if k in rows])
        kept, dropped, unverified = _capped(
            conn, corpus, sources, fused, rows, group_by, limit, cap, timings, head
        )
    timings["total"] = (time.perf_counter() - clock) * 1000
    timings["parallel"] = 1.0 if beside is not None else 0.0
    bad = [
        {"kind": key[0], "unit_id": key[1], "doc_id": rows[key]["doc_id"]}
        for key in sorted(unverified)
    ]
    if bad:
        logger.warning(
            "search %s: %d hit(s) whose span no longer reads its text were not returned: %s"
            " (legal-ai health lists them, legal-ai reindex repairs them)",
            corpus.key,
            len(bad),
            ", ".join(f"{b['kind']} {b['unit_id']} of {b['doc_id']}" for b in bad),
        )
    lifted = {("chunk", unit_id) for unit_id in exact_ids}
    hits = [_hit(corpus, rows[f.key], f, f.key in lifted) for f in kept]
    if stage is not None:
        for hit, entry in zip(hits, kept, strict=True):
            hit["rerank"] = {**provenance[entry.key], "by": stage["by"]}
            if stage["skipped"]:
                hit["rerank"]["skipped"] = stage["skipped"]
    shortened = len(meaning) if use_semantic and vector is None and meaning != text else None
    return SearchResult(hits, dropped, timings, bad, stage, identifiers, shortened)


def _plan(
    settings: Settings,
    corpus: Corpus,
    mode: str,
    limit: int,
    cap: int | None,
    image_embedder: Embedder | None,
) -> tuple[int, bool, bool, int, Source | None, bool]:
    """Which legs a search runs and how wide: the diversity cap, whether the semantic and the
    lexical legs run, the window of hits each leg contributes, and the corpus's image source
    with whether the image leg runs."""
    cap = cap or settings.max_per_case_law
    use_semantic = mode in ("hybrid", "semantic")
    use_lexical = mode == "lexical" or (mode == "hybrid" and settings.bm25_hybrid_enabled)
    window = max(settings.leg_window, limit * cap)
    image_source = corpus.image_source if settings.multimodal_enabled and image_embedder else None
    use_image = image_source is not None and mode in ("hybrid", "semantic")
    return cap, use_semantic, use_lexical, window, image_source, use_image


def _embeddings(
    embedder: Embedder,
    image_embedder: Embedder | None,
    text: str,
    vector: np.ndarray | None,
    use_semantic: bool,
    use_lexical: bool,
    use_image: bool,
) -> tuple[Future | None, Future | None]:
    """The query's embeddings, started in threads: the query's embedding runs in a thread while
    the lexical and reference legs run in the database (the model releases the GIL; a cached
    query returns at once). Alone (semantic mode, or a given vector) there is nothing to overlap,
    so it runs inline (None here). The image leg's query vector always runs in a thread."""
    embedding: Future | None = None
    if use_semantic and vector is None and use_lexical:
        embedding = _submit(_timed_embedding, embedder, text)
    image_vector: Future | None = (
        _submit(image_embedder.embed_query, text) if use_image and image_embedder else None
    )
    return embedding, image_vector


def _hydrate(
    conn,
    corpus: Corpus,
    by_kind: dict,
    keys: list,
    rows: dict[tuple[str, int], dict],
    timings: dict[str, float],
) -> None:
    """Provenance rows of `keys` not yet in `rows`, into `rows`."""
    missing = [key for key in keys if key not in rows]
    if missing:
        with timer(timings, "hydrate"):
            for kind, source in by_kind.items():
                wanted = [key[1] for key in missing if key[0] == kind]
                for unit_id, row in legs.hydrate(conn, corpus, source, wanted).items():
                    rows[(kind, unit_id)] = {**row, "kind": kind}


def _tie_order(fused: list[Fused], rows: dict[tuple[str, int], dict]) -> list[Fused]:
    """A tie of fused scores between principles goes to the one whose ruling more decisions
    cite (corroboration); everything else keeps the RRF order (stable)."""
    return sorted(
        fused, key=lambda f: (-f.score, -((rows.get(f.key) or {}).get("corroboration") or 0))
    )


def _reranked(
    conn,
    corpus: Corpus,
    sources: tuple,
    fused: list[Fused],
    rows: dict[tuple[str, int], dict],
    reranker: Reranker,
    query: str,
    settings: Settings,
    timings: dict[str, float],
) -> tuple[list[Fused], int, dict, dict]:
    """The second phase: the first LEGAL_AI_RERANK_TOP_N of the fused list (in the order the
    cap would read them) reordered by the reranker's relevance, ties kept in fused order, the
    rest behind them in fused order. Nothing is summed: the RRF scores stay as fused. Past the
    budget, or when the reranker fails, the fused order stands. Returns the list, how many
    entries lead it in their own order, the stage's record and each key's provenance
    ({"score", "fused_rank"})."""
    by_kind = {s.kind: s for s in sources}
    window = _prefix_end(fused, settings.rerank_top_n)
    _hydrate(conn, corpus, by_kind, [f.key for f in fused[:window]], rows, timings)
    ordered = _tie_order(fused[:window], rows) + fused[window:]
    head = ordered[: settings.rerank_top_n]
    documents = [_rerank_text(rows.get(f.key) or {}) for f in head]
    outcome = rerank(reranker, query, documents, settings.rerank_budget_ms)
    timings["rerank"] = outcome.ms
    provenance: dict[tuple[str, int], Rerank] = {
        f.key: {"score": None, "fused_rank": n} for n, f in enumerate(ordered, 1)
    }
    stage = {
        "by": reranker.name,
        "candidates": len(head),
        "ms": outcome.ms,
        "skipped": outcome.skipped,
    }
    scores = outcome.scores
    if scores is None:
        return ordered, len(head), stage, provenance
    for entry, score in zip(head, scores, strict=True):
        provenance[entry.key]["score"] = round(score, 6)
    order = sorted(range(len(head)), key=lambda i: (-scores[i], i))
    return [head[i] for i in order] + ordered[len(head) :], len(head), stage, provenance


def _rerank_text(row: dict) -> str:
    """What the reranker reads of a candidate: its text (a principle's rule and its quote)."""
    text = row.get("snippet") or ""
    quote = row.get("supporting_quote")
    return f"{text}\n{quote}" if quote else text


def _capped(
    conn,
    corpus: Corpus,
    sources: tuple,
    fused: list[Fused],
    rows: dict[tuple[str, int], dict],
    group_by: Callable[[dict], Hashable] | None,
    limit: int,
    cap: int,
    timings: dict[str, float],
    head: int = 0,
) -> tuple[list[Fused], int, set]:
    """Provenance for as much of the fused list as the cap needs: a prefix of it, grown until
    `limit` hits are kept. A prefix never splits a tie of scores, so the tie-break below orders
    it as it would order the whole list. The first `head` entries (the reranked ones) keep
    their order. Each hit kept is verified (its span still reads its text: store/spans.py);
    one that does not is passed over like a capped one and the list backfilled. Returns the
    kept hits, how many the cap dropped and the keys not verified."""
    grouping = group_by or (lambda row: row["item_id"])
    by_kind = {s.kind: s for s in sources}
    upto = 0
    asked = set(rows)
    verified: set = set()
    unverified: set = set()
    while True:
        upto = max(_prefix_end(fused, upto + limit * cap), min(head, len(fused)))
        missing = [f.key for f in fused[:upto] if f.key not in asked]
        asked.update(missing)
        _hydrate(conn, corpus, by_kind, missing, rows, timings)
        ordered = fused[:head] + _tie_order(fused[head:upto], rows)
        group_of = {
            f.key: grouping(rows[f.key])
            for f in ordered
            if f.key in rows and f.key not in unverified
        }
        kept, dropped = cap_per_item(ordered, group_of, limit, cap)
        fresh = [f.key for f in kept if f.key not in verified]
        if fresh:
            with timer(timings, "verify"):
                for kind, source in by_kind.items():
                    wanted = [key[1] for key in fresh if key[0] == kind]
                    good = spans.verified(conn, corpus, source, wanted)
                    verified.update((kind, unit_id) for unit_id in good)
                    unverified.update((kind, unit_id) for unit_id in set(wanted) - good)
            if any(key in unverified for key in fresh):
                continue  # cap again without them, backfilling from the window
        if len(kept) == limit or upto >= len(fused):
            return kept, dropped, unverified


# Query embeddings run here while a search's SQL runs (one task per search that needs both).
_EMBEDDING_THREADS = ThreadPoolExecutor(max_workers=8, thread_name_prefix="legal-ai-query")


def _submit(function: Callable, *args: object) -> Future:
    return _EMBEDDING_THREADS.submit(function, *args)


def _timed_embedding(embedder: Embedder, text: str) -> tuple[np.ndarray, float]:
    started = time.perf_counter()
    vector = embedder.embed_query(text)
    return vector, time.perf_counter() - started


def _prefix_end(fused: list[Fused], end: int) -> int:
    """`end`, moved past any entries tied in score with the one before it (at most len)."""
    end = min(end, len(fused))
    while 0 < end < len(fused) and fused[end].score == fused[end - 1].score:
        end += 1
    return end


def _hit(corpus: Corpus, row: dict, fused: Fused, is_exact: bool = False) -> Hit:
    decided = row.get("decided_on")
    # A principle's term from its source (הלכה / כלל פרשני / עיקרון) once the chair stands behind
    # it, else "הצעת הפאנל" with `unconfirmed` true (terms.shown_term); None for other units.
    shown = shown_term(
        principle_term(row.get("source_kind"), row.get("court"), row.get("is_binding"))
        if row["kind"] == "principle"
        else None,
        bool(row.get("confirmed")),
    )
    hit: Hit = {
        "corpus": corpus.key,
        "source_kind": row.get("source_kind"),
        "kind": row["kind"],
        "doc_id": row["doc_id"],
        "case_law_id": row.get("case_law_id"),
        "document_id": row.get("document_id"),
        "chunk_id": row["unit_id"] if row["kind"] == "chunk" else None,
        "principle_id": row["unit_id"] if row["kind"] == "principle" else None,
        "case_number": row.get("case_number"),
        "title": row.get("title"),
        "court": row.get("court"),
        "decided_on": decided.isoformat() if decided else None,
        "page": row.get("page"),
        "section": row.get("section"),
        "char_start": row.get("char_start"),
        "char_end": row.get("char_end"),
        "snippet": (row.get("snippet") or "")[:SNIPPET_CHARS],
        "supporting_quote": row.get("supporting_quote"),
        "citable": corpus.citable,
        "score": round(fused.score, 6),
        "explain": {leg: {"rank": rank} for leg, rank in fused.ranks.items()},
        # In the "exact match" group ahead of the fused list: the item the query names.
        "exact": is_exact,
        "term": shown["term"],
        "unconfirmed": shown["unconfirmed"],
        "term_once_confirmed": shown["term_once_confirmed"],
    }
    if row["kind"] == "principle":
        hit["corroboration"] = row.get("corroboration") or 0
        hit["canonical_statement"] = row.get("canonical_statement")
        hit["approved_by"] = approved_by(
            row.get("review_status"), row.get("reviewed_by"), row.get("votes"), row.get("score")
        )
        hit["confirmed"] = bool(row.get("confirmed"))
    if row["kind"] == "precedent":
        hit["citation"] = row["citation"]
        hit["note"] = row.get("note")
        hit["precedent_id"] = row["unit_id"]
    elif corpus.citable:
        hit["doc_type"] = row.get("doc_type")
        hit["law_title"] = row.get("law_title")
        hit["section_num"] = row.get("section_num")
        hit["parties"] = cited_parties(row.get("title"), row.get("case_number"), row.get("header"))
        hit["citation"] = hit_citation(hit)
    return hit


def hit_citation(hit: Mapping[str, Any], paragraph: str | None = None) -> str:
    """A hit's citation, ready to paste (text/citation_style.py), its pinpoint `paragraph`
    (by default the one its passage opens, `12.`), else its page. The desk's search page cites
    the paragraph the query's words stand in."""
    if paragraph is None and hit["kind"] == "chunk":
        snippet = hit.get("snippet") or ""
        marks = paragraph_marks(snippet)
        paragraph = marks[0][1] if marks and not snippet[: marks[0][0]].strip() else None
    return israeli_citation(
        case_number=hit.get("case_number"),
        title=hit.get("title"),
        decided_on=hit.get("decided_on"),
        paragraph=paragraph,
        page=hit.get("page"),
        kind=kind_of(
            hit.get("doc_type"), hit.get("source_kind"), hit["corpus"], hit.get("case_number")
        ),
        law_title=hit.get("law_title"),
        section_num=hit.get("section_num"),
        named=hit.get("parties"),
    )
