"""Staging an item for the ingest pipeline (ingest/pipeline.py): everything an item needs
before its transaction — its column values, its text chunked, analyzed and embedded (through
the cache), its PDF pages rendered and embedded for the image leg, and a scan without a text
layer given the text OCR read from it (or kept to wait for OCR). No transaction is held while
the model runs."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from psycopg.types.json import Jsonb

from ..config import Settings
from ..context import ArrivalHooks
from ..corpora import Corpus
from ..providers.embedders import Embedder, text_hash
from ..providers.multimodal import render_pages
from ..retrieval.terms import binding_of
from ..store import items as sql_items
from ..store import originals
from ..store.db import Store
from ..text.case_numbers import identity_columns
from ..text.chunking import chunk_text
from ..text.extract import IMAGE_ONLY
from ..text.hebrew import Analyzer
from . import ocr_reading
from .chunk_context import chunk_analyzer, context_line, indexed_text
from .sources import IngestItem


@dataclass
class Staged:
    """An item ready to write: its column values and (when its text must be (re)indexed) its
    embedded chunks and page images; `chunks` None means the stored text is expected to match.
    `scan`: the bytes of a PDF without a text layer, to keep and queue for OCR; `original`: the
    file of a final or a case document as it came, to keep (store/originals.py)."""

    item: IngestItem
    corpus: Corpus
    values: dict[str, Any]
    chunks: list[sql_items.ChunkRow] | None
    pages: list[tuple[int, str, Any]] | None
    scan: bytes | None = None
    original: bytes | None = None


# The corpora whose uploads are the chair's files: her finals (in two) and a case's documents.
KEEPS_ORIGINAL = frozenset({"internal", "style", "case"})


def original_of(item: IngestItem, corpus: Corpus, scan: bytes | None) -> bytes | None:
    """The uploaded file's bytes to keep, read before the transaction: a single file of a corpus
    that keeps originals, within originals.MAX_BYTES (a scan is kept for OCR already)."""
    if corpus.key not in KEEPS_ORIGINAL or not item.file_sha256 or scan is not None:
        return None
    path = Path(item.file_path or item.source_path)
    try:
        if path.stat().st_size > originals.MAX_BYTES:
            return None
        return path.read_bytes()
    except OSError:
        return None


def content_hash(item: IngestItem) -> str:
    digest = hashlib.sha256(item.text.encode("utf-8"))
    digest.update(repr(item.page_starts).encode())
    return digest.hexdigest()


class Stager:
    """The staging half of the Ingestor: reads its `store`, `embedder`, `images`, `settings`,
    `analyzer` and `hooks`."""

    store: Store
    embedder: Embedder
    images: Any  # the multimodal embedder (MULTIMODAL_ENABLED) or None
    settings: Settings
    analyzer: Analyzer
    hooks: ArrivalHooks

    def _values(self, item: IngestItem, corpus: Corpus) -> dict[str, Any]:
        values: dict[str, Any] = dict(item.fields)
        if corpus.key == "internal":
            values.setdefault("chair_name", None)
        if "is_binding" in corpus.columns and values.get("is_binding") is None:
            # Not given: derived from its court, or its case number's proceeding type (neither
            # telling: the column's default, not binding).
            binding = binding_of(values.get("court"), values.get("case_number"))
            if binding is not None:
                values["is_binding"] = binding
        if corpus.item_table == "case_law":
            # The ruling's identity (proceeding, district, number/year): how every citation,
            # digest and reference finds it (text/case_numbers).
            values.update(identity_columns(values.get("case_number")))
        values.update(
            doc_id=item.doc_id,
            doc_type=item.doc_type,
            source_path=item.source_path,
            source_format=item.source_format,
            content=item.text,
            page_starts=item.page_starts,
            content_hash=content_hash(item),
            file_sha256=item.file_sha256,
            extraction_issue=item.issue,
            metadata=Jsonb(item.metadata),
        )
        return values

    def _scanned(self, item: IngestItem) -> tuple[IngestItem, bytes | None]:
        """A PDF without a text layer takes the text OCR read from it, or waits for OCR
        (ingest/ocr_reading.py)."""
        if item.issue != IMAGE_ONLY:
            return item, None
        with self.store.connection() as conn:
            return ocr_reading.scanned(conn, item, self.settings)

    def stage(self, item: IngestItem, corpus: Corpus) -> Staged:
        """Everything an item needs before its transaction: values, chunks and embeddings
        (through the cache; no transaction is held while the model runs)."""
        return self._stage(*self._scanned(item), corpus)

    def _stage(self, item: IngestItem, scan: bytes | None, corpus: Corpus) -> Staged:
        staged = Staged(
            item,
            corpus,
            self._values(item, corpus),
            self._chunks(item),
            self._page_images(item),
            scan,
            original_of(item, corpus, scan),
        )
        if corpus.key == "style" and staged.chunks:  # her paragraphs, embedded before it is written
            self.hooks.final_warm(self.store, self.embedder, item.text)
        return staged

    def _stage_if_changed(self, item: IngestItem, corpus: Corpus) -> Staged:
        """Stage `item`, skipping chunks and embeddings when the stored text is the same."""
        item, scan = self._scanned(item)
        values = self._values(item, corpus)
        with self.store.connection() as conn:
            existing = sql_items.find_item(conn, corpus, item.doc_id)
        if existing and existing["content_hash"] == values["content_hash"]:
            original = original_of(item, corpus, scan)
            return Staged(item, corpus, values, None, None, scan, original)  # nothing to embed
        return self._stage(item, scan, corpus)

    def _page_images(self, item: IngestItem) -> list[tuple[int, str, Any]]:
        """Rendered and embedded pages of a PDF for the image leg (cached by image hash)."""
        if self.images is None or item.source_format != "pdf" or item.issue:
            return []
        rendered = render_pages(Path(item.file_path or item.source_path))
        cache = getattr(self.embedder, "cache", None)
        found = cache.get_many(self.images.id, [sha for _, _, sha in rendered]) if cache else {}
        todo = [(png, sha) for _, png, sha in rendered if sha not in found]
        if todo:
            vectors = self.images.embed_images([png for png, _ in todo])
            fresh = {sha: vector for (_, sha), vector in zip(todo, vectors, strict=True)}
            if cache:
                cache.put_many(self.images.id, fresh)
            found.update(fresh)
        return [(page, sha, found[sha]) for page, _, sha in rendered]

    def chunks_of(self, item: IngestItem) -> list[sql_items.ChunkRow]:
        """The item's text cut into chunks, analyzed and embedded (through the cache): what
        ingest stores, and what `legal-ai reindex` cuts again for a chunk changed outside it."""
        return self._chunks(item)

    def _context(self, item: IngestItem, char_start: int) -> str:
        """The chunk's context line for the lexical index (LEGAL_AI_CHUNK_CONTEXT)."""
        mode = self.settings.chunk_context
        return context_line(mode, item.doc_type, item.fields, item.metadata, item.text, char_start)

    def _chunks(self, item: IngestItem) -> list[sql_items.ChunkRow]:
        if item.issue or not item.text.strip():
            return []
        pieces = chunk_text(
            item.text,
            self.embedder.count_tokens,
            page_starts=item.page_starts,
            target_tokens=self.settings.chunk_tokens,
            overlap_tokens=self.settings.chunk_overlap_tokens,
        )
        vectors = self.embedder.embed_passages([p.text for p in pieces])
        section = item.fields.get("eid")
        return [
            sql_items.ChunkRow(
                ordinal=p.ordinal,
                page=p.page,
                char_start=p.char_start,
                char_end=p.char_end,
                section=section,
                text=p.text,
                text_hash=text_hash(p.text),
                analyzed=self.analyzer.analyze(
                    indexed_text(self._context(item, p.char_start), p.text)
                ),
                analyzer=chunk_analyzer(
                    self.analyzer.id, self.settings.chunk_context, item.doc_type
                ),
                embedding=vector,
                embedder=self.embedder.id,
            )
            for p, vector in zip(pieces, vectors, strict=True)
        ]
