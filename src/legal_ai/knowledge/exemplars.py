"""Block exemplars: the chair's own paragraphs of one block, chosen for the case at hand (issue 14
item 1; README "Block exemplars and templates").

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

from typing import TYPE_CHECKING, Any

import numpy as np
from psycopg import sql

from ..errors import InvalidInput
from ..learning import vocabulary as vocab
from ..learning.methodology import merged_profile
from ..providers.embedders import text_hash
from ..retrieval.fusion import rrf
from ..retrieval.search import cap_per_item, clean_query
from ..text.blocks import BLOCK_LABELS, BLOCKS
from . import paragraphs as cutter
from . import templates

if TYPE_CHECKING:
    from ..context import Context

MAX_LIMIT = 50
MAX_TERMS = 200  # analyzed query terms the lexical leg matches at most (a case's text is long)
WINDOW = 100  # candidates per leg


# -- writing the paragraphs -----------------------------------------------------------------------
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
    doc = conn.execute(
        "SELECT id, content, content_hash, extraction_issue FROM documents"
        " WHERE id = %s AND corpus = 'style'",
        (document_id,),
    ).fetchone()
    conn.execute("DELETE FROM block_exemplars WHERE document_id = %s", (document_id,))
    if doc is None or doc["extraction_issue"] or not doc["content"].strip():
        return 0
    pieces = cut(conn, doc["content"])
    found = _cached(embedder, [p.text for p in pieces])
    rows = []
    for p in pieces:
        digest = text_hash(p.text)
        vector = found.get(digest)
        rows.append((
            document_id, p.block, p.ordinal, p.char_start, p.char_end, p.text,
            doc["content_hash"], digest, analyzer.analyze(p.text), analyzer.id, vector,
            embedder.id if vector is not None else None, digest if vector is not None else None,
        ))  # fmt: skip
    if rows:
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO block_exemplars (document_id, block, ordinal, char_start, char_end,"
                " text, source_hash, text_hash, analyzed, analyzer, embedding, embedder,"
                " embedded_hash) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                rows,
            )
    return len(rows)


_UNCUT = (
    "SELECT d.id, d.doc_id, d.content FROM documents d WHERE d.corpus = 'style'"
    " AND d.extraction_issue IS NULL AND btrim(d.content) <> '' AND (NOT EXISTS"
    " (SELECT 1 FROM block_exemplars e WHERE e.document_id = d.id) OR EXISTS"
    " (SELECT 1 FROM block_exemplars e WHERE e.document_id = d.id"
    "  AND (e.source_hash <> d.content_hash OR e.analyzer <> %s))) ORDER BY d.id"
)
_STALE = (
    "SELECT id, text, text_hash FROM block_exemplars WHERE (embedding IS NULL"
    " OR embedder IS DISTINCT FROM active_embedder() OR stale) AND id > %s ORDER BY id LIMIT %s"
)


def refresh(app: Context, batch: int = 64) -> dict:
    """Cut every style final not cut yet (stored before migration 0018, or its text or the
    analyzer changed since), embed every paragraph missing an embedding from the active
    embedder, and measure the templates again when the finals changed (`legal-ai exemplars
    --refresh`)."""
    embedder, analyzer = app.embedder, app.analyzer
    with app.store.connection() as conn:
        todo = conn.execute(_UNCUT, (analyzer.id,)).fetchall()
    cut_finals, paragraphs, unreadable = 0, 0, []
    for doc in todo:
        warm(app.store, embedder, doc["content"])
        with app.store.transaction() as conn:
            conn.execute("SELECT id FROM documents WHERE id = %s FOR UPDATE", (doc["id"],))
            written = index_document(conn, doc["id"], analyzer, embedder)
        if written:
            cut_finals += 1
            paragraphs += written
        else:
            unreadable.append(doc["doc_id"])
    reembedded, after = 0, 0
    while True:
        with app.store.connection() as conn:
            rows = conn.execute(_STALE, (after, batch)).fetchall()
        if not rows:
            break
        after = rows[-1]["id"]
        vectors = embedder.embed_passages([r["text"] for r in rows])
        with app.store.transaction() as conn:
            reembedded += conn.execute(
                "UPDATE block_exemplars e SET embedding = v.embedding, embedder = %s,"
                " embedded_hash = v.text_hash FROM unnest(%s::bigint[], %s::text[],"
                " %s::vector[]) AS v(id, text_hash, embedding)"
                " WHERE e.id = v.id AND e.text_hash = v.text_hash",
                (embedder.id, [r["id"] for r in rows], [r["text_hash"] for r in rows],
                 list(vectors)),
            ).rowcount  # fmt: skip
    return {
        "finals_cut": cut_finals,
        "paragraphs": paragraphs,
        "reembedded": reembedded,
        "not_decisions": unreadable,  # style documents the block headings cannot read
        "templates": templates.refresh(app),
    }


# -- reading them ---------------------------------------------------------------------------------
def _where(block: str, appeal_type: str | None, outcome: str | None, exclude: str | None
           ) -> tuple[sql.Composable, dict]:  # fmt: skip
    parts = [sql.SQL("e.block = %(block)s"), sql.SQL("e.source_hash = d.content_hash")]
    params: dict[str, Any] = {"block": block}
    for name, value in (("appeal_type", appeal_type), ("outcome", outcome)):
        if value is not None:
            parts.append(sql.SQL("e.{} = {}").format(sql.Identifier(name), sql.Placeholder(name)))
            params[name] = value
    if exclude is not None:
        parts.append(sql.SQL("e.case_number IS DISTINCT FROM %(exclude)s"))
        params["exclude"] = exclude
    return sql.SQL(" AND ").join(parts), params


_FROM = sql.SQL("block_exemplars e JOIN documents d ON d.id = e.document_id AND d.corpus = 'style'")


def _count(conn, *args) -> int:
    where, params = _where(*args)
    query = sql.SQL("SELECT count(*) AS n FROM {} WHERE {}").format(_FROM, where)
    return conn.execute(query, params).fetchone()["n"]


def _finals_of_type(conn, appeal_type: str, exclude: str | None) -> int:
    return conn.execute(
        "SELECT count(DISTINCT e.document_id) AS n FROM block_exemplars e JOIN documents d"
        " ON d.id = e.document_id AND d.corpus = 'style' WHERE e.source_hash = d.content_hash"
        " AND e.appeal_type = %s AND e.case_number IS DISTINCT FROM %s",
        (appeal_type, exclude),
    ).fetchone()["n"]


def _dense(conn, where, params, vector, embedder: str, dim: int) -> list[int]:
    vt = sql.SQL("vector({})").format(sql.SQL(str(int(dim))))
    query = sql.SQL(
        "SELECT e.id FROM {src} WHERE {where} AND e.embedding IS NOT NULL"
        " AND e.embedder = %(embedder)s AND NOT e.stale"
        " ORDER BY (e.embedding::{vt}) <=> %(qvec)s::{vt}, e.id LIMIT %(window)s"
    ).format(src=_FROM, where=where, vt=vt)
    rows = conn.execute(
        query, {**params, "embedder": embedder, "qvec": vector, "window": WINDOW}
    ).fetchall()
    return [r["id"] for r in rows]


def _centroid(conn, where, params, embedder: str, dim: int) -> np.ndarray | None:
    vt = sql.SQL("vector({})").format(sql.SQL(str(int(dim))))
    query = sql.SQL(
        "SELECT avg(e.embedding::{vt}) AS c FROM {src} WHERE {where}"
        " AND e.embedding IS NOT NULL AND e.embedder = %(embedder)s AND NOT e.stale"
    ).format(vt=vt, src=_FROM, where=where)
    row = conn.execute(query, {**params, "embedder": embedder}).fetchone()
    if row["c"] is None:
        return None
    vector = np.asarray(row["c"].to_numpy(), dtype=np.float32)
    return vector / (np.linalg.norm(vector) or 1.0)


def _lexical(conn, where, params, terms: list[str]) -> list[int]:
    if not terms:
        return []
    query = sql.SQL(
        "SELECT e.id FROM {src}, websearch_to_tsquery('simple', %(websearch)s) q"
        " WHERE {where} AND e.tsv @@ q ORDER BY ts_rank(e.tsv, q, 1) DESC, e.id"
        " LIMIT %(window)s"
    ).format(src=_FROM, where=where)
    rows = conn.execute(
        query, {**params, "websearch": " or ".join(terms), "window": WINDOW}
    ).fetchall()
    return [r["id"] for r in rows]


def _recent(conn, where, params) -> list[int]:
    query = sql.SQL(
        "SELECT e.id FROM {src} WHERE {where}"
        " ORDER BY e.decided_on DESC NULLS LAST, e.document_id DESC, e.ordinal LIMIT %(window)s"
    ).format(src=_FROM, where=where)
    return [r["id"] for r in conn.execute(query, {**params, "window": WINDOW}).fetchall()]


def _limit(value: Any, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInput(f"{what} must be a whole number from {low} to {high}")
    return value


def get_block_exemplars(
    app: Context,
    block: str,
    appeal_type: str,
    outcome: str | None = None,
    case: str | None = None,
    query: str | None = None,
    limit: int = 5,
    per_final: int = 1,
) -> dict:
    """The chair's best-matching real paragraphs of `block` for a decision of `appeal_type`
    (and `outcome`), never from `case`, at most `per_final` per final, with provenance."""
    block = vocab.choice(block, BLOCKS, "block", required=True)
    appeal_type = vocab.choice(appeal_type, vocab.APPEAL_TYPES, "appeal type", required=True)
    outcome = vocab.choice(outcome, vocab.OUTCOMES, "outcome")
    case = vocab.case_number(case) if case not in (None, "") else None
    text = clean_query(query) if query is not None else None
    limit = _limit(limit, "limit", 1, MAX_LIMIT)
    per_final = _limit(per_final, "per_final", 1, 2)
    out: dict[str, Any] = {
        "block": block, "block_label": BLOCK_LABELS[block], "appeal_type": appeal_type,
        "outcome": outcome, "case_number": case, "query_from": None, "relaxed": [],
        "exemplars": [],
    }  # fmt: skip
    notes: list[str] = []
    with app.store.connection() as conn:
        if not _finals_of_type(conn, appeal_type, case):
            other = f" other than {case}" if case else ""
            out["note"] = (f"no final of appeal type {appeal_type}{other} is in the style corpus "
                           "yet: there is nothing of hers to show for it")  # fmt: skip
            return out
        filters = {"appeal_type": appeal_type, "outcome": outcome}
        for name in ("outcome", "appeal_type"):
            if filters[name] is None or _count(conn, block, *filters.values(), case):
                continue
            notes.append(
                f"no paragraph of block {block} in her finals of {name.replace('_', ' ')} "
                f"{filters[name]}; that filter was relaxed"
            )
            out["relaxed"].append(name)
            filters[name] = None
        if not _count(conn, block, *filters.values(), case):
            out["note"] = f"no final in the style corpus has a {block} block"
            return out
        where, params = _where(block, *filters.values(), case)
        embedder = app.embedder
        vector = None
        if text is not None:
            out["query_from"] = "query"
        elif case is not None:
            profile_text, vector = app.case_profile(case)
            if profile_text.strip():
                text, out["query_from"] = profile_text, "case"
        if text is not None and vector is None:
            vector = embedder.embed_query(text)
        legs: dict[str, list[int]] = {}
        if text is None:
            out["query_from"] = "block"
            vector = _centroid(conn, where, params, embedder.id, embedder.dim)
        if vector is not None:
            legs["semantic"] = _dense(conn, where, params, vector, embedder.id, embedder.dim)
        if text is not None:
            terms = list(dict.fromkeys(app.analyzer.query_terms(text)))[:MAX_TERMS]
            legs["lexical"] = _lexical(conn, where, params, terms)
        if not any(legs.values()):
            legs = {"recent": _recent(conn, where, params)}
            notes.append("no paragraph matched the query or is embedded yet (run `legal-ai "
                         "exemplars --refresh`): her most recent paragraphs are given")  # fmt: skip
        fused = rrf(legs, k=app.settings.rrf_k)
        ids = [f.key for f in fused]
        rows = {
            r["id"]: r
            for r in conn.execute(
                "SELECT e.*, d.doc_id FROM block_exemplars e JOIN documents d"
                " ON d.id = e.document_id AND d.corpus = 'style' WHERE e.id = ANY(%s)",
                (ids,),
            ).fetchall()
        }
    kept, _ = cap_per_item(fused, {k: rows[k]["document_id"] for k in rows}, limit, per_final)
    out["exemplars"] = [_exemplar(rows[f.key], f) for f in kept if f.key in rows]
    if notes:
        out["note"] = "; ".join(notes)
    return out


def _exemplar(row: dict, fused) -> dict:
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
