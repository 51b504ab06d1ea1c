"""`legal-ai reindex`: repair what changed outside ingest — an item's stored text (taken back
from `item_versions`, where ingest kept it) or its chunks (cut again from the stored text) — then
re-embed what changed or what the active embedder has not embedded — chunks, principles,
attached precedents, block exemplars, canonical statements, page images — and re-analyze what an
older analyzer analyzed. Each text reaches the model at most once (the embedder's cache); a
batch is written in one transaction."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TypedDict

from ..context import Context
from ..corpora import CORPORA
from ..progress import QUIET, Progress
from ..providers.embedders import text_hash
from ..providers.multimodal import render_pages
from ..store import integrity, maintenance
from ..store import items as sql_items
from . import metadata_fold
from .chunk_context import chunk_analyzers, context_line, indexed_text
from .pipeline import Ingestor
from .sources import IngestItem
from .staging import content_hash


class Mended(TypedDict):
    """One kind's texts embedded again and analyzed again."""

    reembedded: int
    reanalyzed: int


class Reembedded(TypedDict):
    """The canonical statements embedded again (they have no lexical form)."""

    reembedded: int


class PageImages(TypedDict):
    """The page images embedded again, those skipped, and why (None: none was)."""

    reembedded: int
    skipped: int
    reason: str | None


class Repaired(TypedDict):
    """An item whose text or chunks changed outside ingest, and what `repair` did with it."""

    corpus: str
    doc_id: str
    text_restored: bool
    chunks: list[int]
    count_changed: bool
    repaired: bool
    reason: str | None


class ReindexAnswer(TypedDict):
    """`legal-ai reindex --json` (DESIGN §10, `{"reembedded": n}` extended): the totals, each
    kind's counts, the items repaired and the decisions' metadata folded into their chunks."""

    reembedded: int
    reanalyzed: int
    chunks: Mended
    principles: Mended
    precedents: Mended
    exemplars: Mended
    canonical_statements: Reembedded
    page_images: PageImages
    repaired: list[Repaired]
    metadata_folded: int


def _mend(ctx: Context, rows: list[dict]) -> tuple[list[dict], int, int]:
    """The updates of stale rows (new embeddings, new analysis), and how many of each."""
    texts = [r["text"] for r in rows if r["needs_embedding"]]
    vectors = iter(ctx.embedder.embed_passages(texts)) if texts else iter(())
    updates = [
        {
            "id": row["id"],
            "text_hash": row["text_hash"] or text_hash(row["text"]),
            "embedding": next(vectors) if row["needs_embedding"] else None,
            "analyzed": ctx.analyzer.analyze(row.get("indexed") or row["text"])
            if row["needs_analysis"]
            else None,
        }
        for row in rows
    ]
    return updates, len(texts), sum(row["needs_analysis"] for row in rows)


def _phase(progress: Progress, what: str, batches: list[list[dict]]) -> Iterator[list[dict]]:
    """The batches of one kind of stale rows, a phase of `progress` (none when nothing is
    stale): its total the rows, each batch counted when it was written."""
    total = sum(len(rows) for rows in batches)
    if total:
        progress.start(f"reindex {what}", total, "rows")
    done = 0
    for rows in batches:
        yield rows
        done += len(rows)
        progress.update(done, current=what)


def _chunks(ctx: Context, batch: int, done: Mended, progress: Progress) -> None:
    embedder, mode = ctx.embedder, ctx.settings.chunk_context
    expected = chunk_analyzers(ctx.analyzer.id, mode)
    for corpus in CORPORA.values():
        with ctx.store.connection() as read_conn:
            batches = list(maintenance.stale_chunks(read_conn, corpus, expected, batch))
        for rows in _phase(progress, f"{corpus.key} chunks", batches):
            for row in rows:  # analyzed after their context line, as ingest does
                item = {k: row[k] for k in ("law_title", "court", "title")}
                line = context_line(
                    mode,
                    row["doc_type"],
                    item,
                    row["metadata"] or {},
                    row["content"],
                    row["char_start"],
                )
                row["indexed"] = indexed_text(line, row["text"])
            updates, embedded, analyzed = _mend(ctx, rows)
            recorded = {
                u["id"]: row["expected_analyzer"] for u, row in zip(updates, rows, strict=True)
            }
            with ctx.store.transaction() as conn:
                for analyzer in sorted(set(recorded.values())):
                    maintenance.update_chunks(
                        conn,
                        corpus,
                        [u for u in updates if recorded[u["id"]] == analyzer],
                        embedder=embedder.id,
                        analyzer=analyzer,
                    )
            done["reembedded"] += embedded
            done["reanalyzed"] += analyzed


def _units(ctx: Context, batch: int, done: dict[str, Mended], progress: Progress) -> None:
    """Principles, attached precedents and block exemplars (maintenance.text_units)."""
    embedder, analyzer = ctx.embedder, ctx.analyzer
    for units in maintenance.text_units():
        with ctx.store.connection() as read_conn:
            batches = list(maintenance.stale_units(read_conn, units, analyzer.id, batch))
        for rows in _phase(progress, f"{units.corpus.key} {units.kind}", batches):
            updates, embedded, analyzed = _mend(ctx, rows)
            with ctx.store.transaction() as conn:
                maintenance.update_units(
                    conn, units, updates, embedder=embedder.id, analyzer=analyzer.id
                )
            done[units.kind]["reembedded"] += embedded
            done[units.kind]["reanalyzed"] += analyzed


def _canonicals(ctx: Context, batch: int, progress: Progress) -> Reembedded:
    done: Reembedded = {"reembedded": 0}
    for corpus in maintenance.canonical_corpora():
        with ctx.store.connection() as read_conn:
            batches = list(maintenance.stale_canonicals(read_conn, corpus, batch))
        for rows in _phase(progress, f"{corpus.key} canonical statements", batches):
            vectors = ctx.embedder.embed_passages([r["text"] for r in rows])
            updates = [{**r, "embedding": v} for r, v in zip(rows, vectors, strict=True)]
            with ctx.store.transaction() as conn:
                done["reembedded"] += maintenance.update_canonicals(
                    conn, corpus, updates, embedder=ctx.embedder.id
                )
    return done


def reindex(ctx: Context, batch: int = 64, *, progress: Progress = QUIET) -> ReindexAnswer:
    """Re-embed chunks, principles, attached precedents and canonical statements whose text
    or embedder changed, re-analyze outdated chunks, principles and precedents, and re-embed
    page images with the image embedder (counted as skipped without one). Each text is sent
    to the model at most once (the embedder's cache); `reembedded` and `reanalyzed` are the
    totals, with the counts of each kind beside them. `progress` hears a phase per kind and
    corpus with stale rows: its rows, and those written."""
    done: dict[str, Mended] = {
        kind: {"reembedded": 0, "reanalyzed": 0}
        for kind in ("chunks", "principles", "precedents", "exemplars")
    }
    repaired = repair(ctx)
    _chunks(ctx, batch, done["chunks"], progress)
    with ctx.store.transaction() as conn:  # decisions' metadata edited outside the write paths
        folded = metadata_fold.fold(conn, ctx.analyzer, ctx.embedder, batch=batch)
    _units(ctx, batch, done, progress)
    canonicals = _canonicals(ctx, batch, progress)
    images = _page_images(ctx, batch, progress)
    mended = done.values()
    return {
        "reembedded": sum(d["reembedded"] for d in (*mended, canonicals, images)),
        "reanalyzed": sum(d["reanalyzed"] for d in mended),
        "chunks": done["chunks"],
        "principles": done["principles"],
        "precedents": done["precedents"],
        "exemplars": done["exemplars"],
        "canonical_statements": canonicals,
        "page_images": images,
        "repaired": repaired,
        "metadata_folded": folded,
    }


# -- what changed outside ingest ---------------------------------------------------------------


def repair(ctx: Context) -> list[Repaired]:
    """Every item whose stored text or chunks changed outside ingest (store/integrity.py): its
    text taken back from the version ingest stored under its hash, its chunks cut again from it
    and embedded (through the cache). One entry per item: {corpus, doc_id, text_restored,
    chunks, count_changed (chunks deleted or added), repaired, reason}; an item whose text no version holds is left as it is, and says
    so."""
    ingestor = Ingestor.of(ctx)
    out: list[Repaired] = []
    for corpus in CORPORA.values():
        with ctx.store.connection() as conn:
            found = integrity.damaged(conn, corpus)
        out.extend(_repair_one(ctx, ingestor, corpus, row) for row in found)
    return out


def _original(conn, corpus, stored: dict) -> tuple[str, list | None] | None:
    """The text (and pages) ingest stored for the item under its hash, or None."""
    for version in integrity.stored_texts(conn, corpus, stored["id"], stored["content_hash"]):
        item = IngestItem("", version["content"], "", "", "", page_starts=version["page_starts"])
        if content_hash(item) == stored["content_hash"]:
            return version["content"], version["page_starts"]
    return None


def _repair_one(ctx: Context, ingestor: Ingestor, corpus, row: dict) -> Repaired:
    entry: Repaired = {
        "corpus": corpus.key,
        "doc_id": row["doc_id"],
        "text_restored": False,
        "chunks": list(row["chunks"] or []),
        "count_changed": bool(row["count_changed"]),
        "repaired": False,
        "reason": None,
    }
    with ctx.store.connection() as conn:
        stored = integrity.item(conn, corpus, row["id"])
        if stored is None:  # deleted since the check listed it
            entry["reason"] = "it is no longer stored"
            return entry
        original = _original(conn, corpus, stored) if row["text_changed"] else None
    if row["text_changed"] and original is None:
        entry["reason"] = (
            "its stored text changed and no version ingest kept has its hash: re-ingest it"
        )
        return entry
    text, pages = original or (stored["content"], stored["page_starts"])
    item = IngestItem(
        stored["doc_id"],
        text,
        stored["source_path"] or "",
        stored["source_format"] or "",
        stored["doc_type"],
        fields={"eid": stored["eid"]} if stored["eid"] else {},
        page_starts=pages,
        issue=stored["extraction_issue"],
    )
    chunks = ingestor.chunks_of(item)  # embedded outside the transaction
    with ctx.store.transaction() as conn:
        sql_items.lock_item(conn, corpus, stored["doc_id"])
        now = integrity.item(conn, corpus, row["id"])
        if now is None or now["content_hash"] != stored["content_hash"]:
            entry["reason"] = "an ingest wrote it meanwhile"
            return entry
        if original is not None:
            integrity.restore_text(conn, corpus, row["id"], text, pages)
        sql_items.replace_chunks(conn, corpus, row["id"], chunks)
    entry["text_restored"], entry["repaired"] = original is not None, True
    return entry


def _page_images(ctx: Context, batch: int, progress: Progress) -> PageImages:
    """Re-embed stale page images with the image embedder: from the embedding cache (keyed
    by the image's hash) or, when it lacks one, by rendering the item's PDF again. Without
    an image embedder nothing is re-embedded and every page image is counted as skipped; a
    page whose file can no longer be read (or renders differently) is skipped too."""
    images = ctx.images
    out: PageImages = {"reembedded": 0, "skipped": 0, "reason": None}
    if images is None:
        with ctx.store.connection() as conn:
            counts = maintenance.unit_counts(conn, ctx.analyzer.id, None, None)
        out["skipped"] = sum(
            kinds["page_images"]["units"] or 0
            for kinds in counts.values()
            if "page_images" in kinds
        )
        if out["skipped"]:
            out["reason"] = (
                "no image embedder is configured (MULTIMODAL_ENABLED is off): page images are"
                " counted, not re-embedded"
            )
        return out
    cache = getattr(ctx.embedder, "cache", None)
    unreadable: set[str] = set()
    for corpus in maintenance.image_corpora():
        with ctx.store.connection() as read_conn:
            batches = list(maintenance.stale_page_images(read_conn, corpus, images.id, batch))
        for rows in _phase(progress, f"{corpus.key} page images", batches):
            hashes = sorted({r["text_hash"] for r in rows})
            found = cache.get_many(images.id, hashes) if cache else {}
            todo = _rendered(rows, found, unreadable)
            if todo:
                vectors = images.embed_images(list(todo.values()))
                fresh = dict(zip(todo, vectors, strict=True))
                if cache:
                    cache.put_many(images.id, fresh)
                found.update(fresh)
            updates = [
                {**r, "embedding": found[r["text_hash"]]} for r in rows if r["text_hash"] in found
            ]
            out["skipped"] += len(rows) - len(updates)
            if updates:
                with ctx.store.transaction() as conn:
                    out["reembedded"] += maintenance.update_page_images(
                        conn, corpus, updates, embedder=images.id
                    )
    if out["skipped"]:
        out["reason"] = (
            "the file of these items can no longer be read as it was (re-ingest it to embed"
            f" its page images): {', '.join(sorted(unreadable))}"
        )
    return out


def _rendered(rows: list[dict], found: dict, unreadable: set[str]) -> dict[str, bytes]:
    """The page images of `rows` the cache lacks, rendered again from each item's PDF (by
    image hash); an item whose file is gone or renders otherwise is added to `unreadable`."""
    todo: dict[str, bytes] = {}
    for item_id in sorted({r["item_id"] for r in rows if r["text_hash"] not in found}):
        wanted = {
            r["text_hash"] for r in rows if r["item_id"] == item_id and r["text_hash"] not in found
        }
        first = next(r for r in rows if r["item_id"] == item_id)
        path = Path(first["source_path"] or "")
        if first["source_format"] != "pdf" or not path.is_file():
            unreadable.add(first["source_path"] or str(item_id))
            continue
        pngs = {sha: png for _, png, sha in render_pages(path) if sha in wanted}
        todo.update(pngs)
        if wanted - pngs.keys():
            unreadable.add(first["source_path"])
    return todo
