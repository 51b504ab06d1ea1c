"""A decision's headnote, summary and tags folded into its first chunk (migration 0041), so both
legs find a decision by them while every hit keeps its chunk's exact span:

- lexical: the metadata through the same Hebrew analyzer as every text, stored beside the
  chunk's own analysis; the database indexes it (tsv, BM25 term frequencies at a title's weight)
  only while it is the decision's current metadata.
- semantic: the chunk is embedded from its text, a blank line, then the metadata (headnote, tags,
  summary, at most SEMANTIC_META_CHARS characters, cut at a word): the chunk's own words come
  first and a long summary cannot outweigh them. Its text, span and text_hash do not change.

`fold` runs in the transaction of every write of the fields (ingest, the enricher, the chair's
edit, revert, approve); an edit by SQL waits for `legal-ai reindex`, and meanwhile its old words
are already out of the lexical leg and an embedding made with them is stale (the database)."""

from __future__ import annotations

from ..providers.embedders import Embedder
from ..store import meta_fold
from ..store.rows import Conn
from ..text.hebrew import Analyzer

SEMANTIC_META_CHARS = 800


def semantic_meta(headnote: str | None, summary: str | None, tags: list[str] | None) -> str:
    """The metadata as the first chunk's embedding reads it: headnote, tags, summary, cut at a
    word within SEMANTIC_META_CHARS characters ('' when there is none)."""
    parts = [p.strip() for p in (headnote or "", ", ".join(tags or []), summary or "")]
    text = "\n".join(p for p in parts if p)
    if len(text) <= SEMANTIC_META_CHARS:
        return text
    cut = text[:SEMANTIC_META_CHARS]
    space = cut.rfind(" ")
    return cut[:space] if space > SEMANTIC_META_CHARS // 2 else cut


def semantic_text(text: str, meta: str) -> str:
    """What the first chunk is embedded from: its own text, then its decision's metadata."""
    return f"{text}\n\n{meta}" if meta else text


def fold(
    conn: Conn,
    analyzer: Analyzer,
    embedder: Embedder,
    case_law_ids: list[int] | None = None,
    *,
    batch: int = 64,
) -> int:
    """Fold the current metadata of the given decisions (None: of every decision waiting) into
    their first chunks, in the caller's transaction. Returns the chunks written."""
    written, after = 0, 0
    while rows := meta_fold.pending(conn, case_law_ids, after=after, batch=batch):
        texts = [
            semantic_text(r["text"], semantic_meta(r["headnote"], r["summary"], r["tags"]))
            for r in rows
            if r["needs_embedding"]
        ]
        vectors = iter(embedder.embed_passages(texts)) if texts else iter(())
        updates = [
            {
                "id": r["id"],
                "source_kind": r["source_kind"],
                "meta_hash": r["meta_hash"],
                "analyzed": analyzer.analyze(r["meta_text"] or "") if r["needs_analysis"] else None,
                "embedding": next(vectors) if r["needs_embedding"] else None,
            }
            for r in rows
        ]
        written += meta_fold.write(conn, updates, embedder=embedder.id)
        after = rows[-1]["id"]
    return written
