"""Block exemplars: the chair's own paragraphs of one block, chosen for the case at hand
(docs/learning.md "Block exemplars and templates").

Every final in the style corpus is kept cut into its 12 blocks and their paragraphs (table
block_exemplars, migration 0018): written in the final's ingest transaction (`index_document`,
called by the ingest pipeline for the style corpus, so `final upload` and `ingest --corpus style`
both fill it), replaced when its text changes, deleted with it. The paragraphs are embedded
before that transaction (`warm`: the embedder's cache), so the transaction only reads vectors.
`refresh` cuts finals stored before this existed and embeds what is missing or stale.

`get_block_exemplars` (CLI `legal-ai exemplars`, MCP get_block_exemplars, GET /api/exemplars):
hybrid retrieval over the paragraphs of that block only — a dense leg (cosine to the query's
embedding) and a Hebrew lexical leg (the Context's analyzer, ts_rank over the analyzed text), fused
by RRF (retrieval/fusion.rrf, RRF_K) — within the requested appeal type and outcome, at most
`per_final` paragraphs (1 or 2) per final, each with its provenance (case number, doc_id, exact
span in the final). A paragraph of the case being written (`case`) is never returned.

What makes the query:
- `query` when given;
- else, with `case`, the case's own documents in the case corpus (the first 2000 characters and
  the mean of their chunks' embeddings, as find_similar_cases reads a case);
- else the block itself: the dense leg ranks by closeness to the centroid of the block's
  paragraphs in the filter (her most typical paragraphs of that block), with no lexical leg.
  The block's name as a query would rank by the words of a heading that paragraphs do not
  repeat.

When nothing matches, filters are relaxed in order — outcome, then appeal type — and `relaxed`
and `note` say so. An appeal type with no final in the style corpus (but the excluded case)
gets an empty result whose `note` says so: another type's paragraphs are not her voice for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypedDict

import numpy as np

from ..errors import InvalidInput
from ..learning import vocabulary as vocab
from ..learning.methodology import merged_profile
from ..paging import Listing
from ..providers.embedders import text_hash
from ..retrieval.fusion import rrf
from ..retrieval.search import cap_per_item, clean_query
from ..store import exemplars as exemplar_store
from ..store import precedents as precedent_store
from ..text.blocks import BLOCK_LABELS, BLOCKS
from . import paragraphs as cutter
from . import templates

if TYPE_CHECKING:
    from ..context import Context

MAX_LIMIT = 50
MAX_TERMS = 200  # analyzed query terms the lexical leg matches at most (a case's text is long)
WINDOW = 100  # candidates per leg


# -- writing the paragraphs -----------------------------------------------------------------------
class LegRank(TypedDict):
    """A paragraph's rank in one leg (from 1)."""

    rank: int


class Exemplar(TypedDict):
    """One of her paragraphs of a block, where it stands in her final and why it was chosen
    (its fused score, each leg's rank)."""

    case_number: str | None
    block: str
    text: str
    doc_id: str
    char_start: int
    char_end: int
    score: float
    document_id: int
    paragraph: int
    appeal_type: str | None
    outcome: str | None
    practice_area: str | None
    decided_on: str | None
    explain: dict[str, LegRank]


class Exemplars(TypedDict):
    """`legal-ai exemplars BLOCK --json`, MCP get_block_exemplars: the block's best matching
    paragraphs of her finals, what they were matched against (`query_from`: query, case,
    block), the filters relaxed, and a note when there is little or nothing to show."""

    block: str
    block_label: str
    appeal_type: str
    outcome: str | None
    case_number: str | None
    query_from: Literal["query", "case", "block"] | None
    relaxed: list[str]
    exemplars: list[Exemplar]
    note: NotRequired[str]


def cut(conn, text: str) -> list[cutter.Paragraph]:
    """The paragraphs of a final by the methodology's block headings; [] when the text is not
    a decision they can read (such a style document simply has no exemplars)."""
    try:
        return cutter.split(text, merged_profile(conn, None).get("blocks", {}))
    except InvalidInput:
        return []


def warm(store, embedder, text: str) -> int:
    """Embed a final's paragraphs into the embedder's cache before its transaction (the ingest
    pipeline's staging step), so the transaction never waits for the model."""
    with store.connection() as conn:
        pieces = cut(conn, text)
    if pieces:
        embedder.embed_passages([p.text for p in pieces])
    return len(pieces)


def _cached(embedder, texts: list[str]) -> dict[str, Any]:
    cache = getattr(embedder, "cache", None)
    if embedder is None or cache is None or not texts:
        return {}
    return cache.get_many(embedder.id, sorted({text_hash(t) for t in texts}))


def index_document(conn, document_id: int, analyzer, embedder=None) -> int:
    """Cut one style document into its paragraphs again, inside the caller's transaction (its
    ingest): the old rows go, the new ones carry the vectors the cache holds (NULL otherwise,
    filled by `refresh`). Returns the paragraphs written."""
    doc = exemplar_store.style_document(conn, document_id)
    exemplar_store.delete_paragraphs(conn, document_id)
    if doc is None or doc["extraction_issue"] or not doc["content"].strip():
        return 0
    pieces = cut(conn, doc["content"])
    found = _cached(embedder, [p.text for p in pieces])
    rows = []
    for p in pieces:
        digest = text_hash(p.text)
        vector = found.get(digest)
        rows.append(
            (
                document_id,
                p.block,
                p.ordinal,
                p.char_start,
                p.char_end,
                p.text,
                doc["content_hash"],
                digest,
                analyzer.analyze(p.text),
                analyzer.id,
                vector,
                embedder.id if vector is not None else None,
                digest if vector is not None else None,
            )
        )
    if rows:
        exemplar_store.insert_paragraphs(conn, rows)
    return len(rows)


def refresh(app: Context, batch: int = 64) -> dict:
    """Cut every style final not cut yet (stored before migration 0018, or its text or the
    analyzer changed since), embed every paragraph missing an embedding from the active
    embedder, and measure the templates again when the finals changed (`legal-ai exemplars
    --refresh`)."""
    embedder, analyzer = app.embedder, app.analyzer
    with app.store.connection() as conn:
        todo = exemplar_store.uncut_finals(conn, analyzer.id)
    cut_finals, paragraphs, unreadable = 0, 0, []
    for doc in todo:
        warm(app.store, embedder, doc["content"])
        with app.store.transaction() as conn:
            exemplar_store.lock_document(conn, doc["id"])
            written = index_document(conn, doc["id"], analyzer, embedder)
        if written:
            cut_finals += 1
            paragraphs += written
        else:
            unreadable.append(doc["doc_id"])
    reembedded, after = 0, 0
    while True:
        with app.store.connection() as conn:
            rows = exemplar_store.unembedded(conn, after, batch)
        if not rows:
            break
        after = rows[-1]["id"]
        vectors = embedder.embed_passages([r["text"] for r in rows])
        with app.store.transaction() as conn:
            reembedded += exemplar_store.set_embeddings(
                conn,
                embedder.id,
                [r["id"] for r in rows],
                [r["text_hash"] for r in rows],
                list(vectors),
            )
    return {
        "finals_cut": cut_finals,
        "paragraphs": paragraphs,
        "reembedded": reembedded,
        "not_decisions": unreadable,  # style documents the block headings cannot read
        "templates": templates.refresh(app),
    }


class ChangedFinal(TypedDict):
    """A final whose kept paragraphs changed outside their cut, and how."""

    doc_id: str
    case_number: str | None
    edited: list[int]
    stale: bool
    gaps: list[str]
    reason: str


class ExemplarHealth(TypedDict):
    """What `legal-ai health` lists of her finals' paragraphs."""

    exemplars_changed: Listing[ChangedFinal]


def health(conn) -> ExemplarHealth:
    """What health reports of the paragraphs (`exemplars_changed`): the finals whose kept
    paragraphs were edited, deleted or added outside their cut, or cut from another text of the
    final (store/exemplars.changed); `legal-ai reindex` cuts them again (`repair`)."""
    items: list[ChangedFinal] = []
    for row in exemplar_store.changed(conn):
        what = (
            ([f"paragraph(s) {', '.join(map(str, row['edited']))} edited"] if row["edited"] else [])
            + (["cut from another text of the final"] if row["stale"] else [])
            + ([f"paragraphs deleted or added in {', '.join(row['gaps'])}"] if row["gaps"] else [])
        )
        items.append(
            {
                "doc_id": row["doc_id"],
                "case_number": row["case_number"],
                "edited": list(row["edited"] or []),
                "stale": row["stale"],
                "gaps": list(row["gaps"] or []),
                "reason": f"{'; '.join(what)}: run `legal-ai reindex`",
            }
        )
    return {"exemplars_changed": {"count": len(items), "items": items}}


def repair(app: Context) -> list[str]:
    """Cut again every final whose paragraphs changed outside their cut (its vectors from the
    embedder's cache, the rest embedded by the re-index that follows): the doc_ids."""
    with app.store.connection() as conn:
        todo = exemplar_store.changed(conn)
    for row in todo:
        with app.store.transaction() as conn:
            exemplar_store.lock_document(conn, row["id"])
            index_document(conn, row["id"], app.analyzer, app.embedder)
    return [row["doc_id"] for row in todo]


# -- reading them ---------------------------------------------------------------------------------
def _filter(block: str, filters: dict, case: str | None) -> exemplar_store.Filter:
    return exemplar_store.Filter(block, filters["appeal_type"], filters["outcome"], case)


def _centroid(conn, chosen: exemplar_store.Filter, embedder: str, dim: int) -> np.ndarray | None:
    mean = exemplar_store.centroid(conn, chosen, embedder, dim)
    if mean is None:
        return None
    vector = np.asarray(mean.to_numpy(), dtype=np.float32)
    return vector / (np.linalg.norm(vector) or 1.0)


def _lexical(conn, chosen: exemplar_store.Filter, terms: list[str]) -> list[int]:
    if not terms:
        return []
    return exemplar_store.lexical(conn, chosen, " or ".join(terms), WINDOW)


def _limit(value: Any, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInput(
            f"{what} must be a whole number from {low} to {high}", code="number.out_of_range"
        )
    return value


def _relaxed(
    conn,
    block: str,
    appeal_type: str,
    outcome: str | None,
    case: str | None,
    out: Exemplars,
    notes: list[str],
) -> exemplar_store.Filter:
    """The paragraphs' filter: the outcome, then the appeal type, relaxed (and said) when no
    paragraph of the block has it."""
    filters = {"appeal_type": appeal_type, "outcome": outcome}
    for name in ("outcome", "appeal_type"):
        if filters[name] is None or exemplar_store.count(conn, _filter(block, filters, case)):
            continue
        notes.append(
            f"no paragraph of block {block} in her finals of {name.replace('_', ' ')} "
            f"{filters[name]}; that filter was relaxed"
        )
        out["relaxed"].append(name)
        filters[name] = None
    return _filter(block, filters, case)


def _query(
    app: Context, text: str | None, case: str | None, out: Exemplars
) -> tuple[str | None, np.ndarray | None]:
    """What the paragraphs are matched against: the query, else the case's documents (their
    text and mean embedding), embedded when no vector came with it."""
    embedder = app.embedder
    vector = None
    if text is not None:
        out["query_from"] = "query"
    elif case is not None:
        with app.store.connection() as conn:
            profile_text, vector = precedent_store.case_profile(conn, case, embedder.id)
        if profile_text.strip():
            text, out["query_from"] = profile_text, "case"
    if text is not None and vector is None:
        vector = embedder.embed_query(text)
    return text, vector


def _legs(
    app: Context,
    conn,
    chosen: exemplar_store.Filter,
    text: str | None,
    vector: np.ndarray | None,
    out: Exemplars,
    notes: list[str],
) -> dict[str, list[int]]:
    """The semantic and lexical legs over the chosen paragraphs (the block's centroid without a
    query); her most recent paragraphs when neither finds one."""
    embedder = app.embedder
    legs: dict[str, list[int]] = {}
    if text is None:
        out["query_from"] = "block"
        vector = _centroid(conn, chosen, embedder.id, embedder.dim)
    if vector is not None:
        legs["semantic"] = exemplar_store.nearest(
            conn, chosen, vector, embedder.id, embedder.dim, WINDOW
        )
    if text is not None:
        terms = list(dict.fromkeys(app.analyzer.query_terms(text)))[:MAX_TERMS]
        legs["lexical"] = _lexical(conn, chosen, terms)
    if not any(legs.values()):
        legs = {"recent": exemplar_store.recent(conn, chosen, WINDOW)}
        notes.append(
            "no paragraph matched the query or is embedded yet (run `legal-ai "
            "exemplars --refresh`): her most recent paragraphs are given"
        )
    return legs


def get_block_exemplars(
    app: Context,
    block: str,
    appeal_type: str,
    outcome: str | None = None,
    case: str | None = None,
    query: str | None = None,
    limit: int = 5,
    per_final: int = 1,
) -> Exemplars:
    """The chair's best-matching real paragraphs of `block` for a decision of `appeal_type`
    (and `outcome`), never from `case`, at most `per_final` per final, with provenance."""
    block = vocab.choice(block, BLOCKS, "block", required=True)
    appeal_type = vocab.choice(appeal_type, vocab.APPEAL_TYPES, "appeal type", required=True)
    outcome = vocab.choice(outcome, vocab.OUTCOMES, "outcome")
    case = vocab.case_number(case) if case not in (None, "") else None
    text = clean_query(query) if query is not None else None
    limit = _limit(limit, "limit", 1, MAX_LIMIT)
    per_final = _limit(per_final, "per_final", 1, 2)
    out: Exemplars = {
        "block": block,
        "block_label": BLOCK_LABELS[block],
        "appeal_type": appeal_type,
        "outcome": outcome,
        "case_number": case,
        "query_from": None,
        "relaxed": [],
        "exemplars": [],
    }
    notes: list[str] = []
    with app.store.connection() as conn:
        if not exemplar_store.finals_of_type(conn, appeal_type, case):
            other = f" other than {case}" if case else ""
            out["note"] = (
                f"no final of appeal type {appeal_type}{other} is in the style corpus "
                "yet: there is nothing of hers to show for it"
            )
            return out
        chosen = _relaxed(conn, block, appeal_type, outcome, case, out, notes)
        if not exemplar_store.count(conn, chosen):
            out["note"] = f"no final in the style corpus has a {block} block"
            return out
        text, vector = _query(app, text, case, out)
        legs = _legs(app, conn, chosen, text, vector, out, notes)
        fused = rrf(legs, k=app.settings.rrf_k)
        ids = [f.key for f in fused]
        rows = {r["id"]: r for r in exemplar_store.paragraphs(conn, ids)}
    kept, _ = cap_per_item(fused, {k: rows[k]["document_id"] for k in rows}, limit, per_final)
    out["exemplars"] = [_exemplar(rows[f.key], f) for f in kept if f.key in rows]
    if notes:
        out["note"] = "; ".join(notes)
    return out


def _exemplar(row: dict, fused) -> Exemplar:
    decided = row["decided_on"]
    return {
        "case_number": row["case_number"],
        "block": row["block"],
        "text": row["text"],
        "doc_id": row["doc_id"],
        "char_start": row["char_start"],
        "char_end": row["char_end"],
        "score": round(fused.score, 6),
        "document_id": row["document_id"],
        "paragraph": row["ordinal"],
        "appeal_type": row["appeal_type"],
        "outcome": row["outcome"],
        "practice_area": row["practice_area"],
        "decided_on": decided.isoformat() if decided else None,
        "explain": {leg: {"rank": rank} for leg, rank in fused.ranks.items()},
    }
