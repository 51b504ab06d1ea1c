"""What a use case receives (DESIGN.md §2): the settings, the store acting as the principal's
database role, the (cached) embedder, the analyzer, the acting principal and where its searches
come from — and the upkeep that runs when an item arrives.

The composition root (app.py) builds one `Context` subclass, `App`, and hands it down; the use
cases (retrieval/, ingest/, evaluation/, learning/, knowledge/, ops/) import this module, never app.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import psycopg

from .auth import OPERATOR, Principal
from .config import Settings
from .errors import Forbidden
from .providers.embedders import CachedEmbedder, Embedder, make_embedder
from .providers.embedding_folder import EmbeddingFolder
from .providers.multimodal import make_multimodal
from .providers.rerankers import Reranker, make_reranker
from .store.cache import EmbeddingCache, set_active_embedder
from .store.db import Store, open_store
from .store.rows import Conn
from .text.hebrew import get_analyzer


def _nothing(*_args: Any, **_kwargs: Any) -> None:
    return None


@dataclass(frozen=True)
class ArrivalHooks:
    """The upkeep an item's arrival starts, in its transaction (ingest/pipeline.py calls them).
    They live in learning/ and knowledge/, which ingest/ may not import: the composition root
    (app.py `arrival_hooks`) passes them in; without them an item is written and nothing else.

    - `arrived(conn, corpus, item_id, values, text_changed=...) -> dict`: links, resolutions and
      queued enrichment (learning/arrival/upkeep.on_arrival); its answer is returned as `arrival`.
    - `ruling_arrived(conn, item_id, content_hash)`: its principles are queued for extraction.
    - `ruling_changed(conn, item_id) -> dict`: the principles of a ruling whose text changed
      found again in the new text, or returned to the chair (learning/principles/spans.py).
    - `final_warm(store, embedder, text)`: a final's paragraphs embedded before the transaction.
    - `final_arrived(conn, item_id, analyzer, embedder)`: a final cut into block exemplars.
    - `finals_changed(conn)`: the chair's templates measured again."""

    arrived: Callable[..., dict | None] = _nothing
    ruling_arrived: Callable[[Conn, int, str], object] = _nothing
    ruling_changed: Callable[[Conn, int], dict | None] = _nothing
    final_warm: Callable[[Store, Embedder, str], object] = _nothing
    final_arrived: Callable[..., object] = _nothing
    finals_changed: Callable[[Conn], object] = _nothing


NO_HOOKS = ArrivalHooks()


class Context:
    """A configured legal-ai acting for one principal: one store, one (cached) embedder."""

    _root: Context  # set on a view (`as_principal`): the context every view shares a model with
    surface: str | None = None  # where its searches come from (telemetry.py); None: not logged
    hooks: ArrivalHooks = NO_HOOKS

    def __init__(
        self,
        settings: Settings,
        *,
        store: Store | None = None,
        embedder: Embedder | None = None,
        cache_store: Store | None = None,
        principal: Principal = OPERATOR,
        surface: str | None = None,
        migrate: bool = True,
        hooks: ArrivalHooks = NO_HOOKS,
    ) -> None:
        self.settings = settings
        # Where its searches come from (cli | mcp | api | desk): they are logged (telemetry.py);
        # None (the evaluation harness, benchmarks, internal callers): not logged.
        self.surface = surface
        self.hooks = hooks
        # migrate=False: the store is opened without writing (an agent-only login, the MCP
        # server): pending migrations are refused in one line, never applied (store/db.Store).
        base = store or open_store(settings, migrate=migrate)
        self._owns_store = store is None
        self._inner_embedder = embedder
        self._cache_store = cache_store or base  # the embedding cache (maybe another database)
        self._login_store = base  # this database as its login: what the server derives itself
        self._embedder: CachedEmbedder | None = None
        self.analyzer = get_analyzer(settings.analyzer)
        self.principal = principal
        self.store = base.as_role(principal.db_role) if principal.db_role else base

    def acting_as(self, principal: Principal, *, surface: str | None = None) -> Any:
        """This context (same pool, embedder and caches, same class) acting for `principal`:
        its transactions run under the principal's database role, and the services check its
        rights. `surface`, when given, is where its searches are logged as coming from.

        The system's own stages (a `worker` principal, role legal_ai_worker) are never assumed
        by a request: a context acting for the chair or an agent may not become one (Forbidden)
        — model work asked for over HTTP or MCP is queued for `legal-ai worker`."""
        if principal.kind == "worker" and self.principal.is_request:
            raise Forbidden(
                f"{principal.name} is the system's own stage: it runs in the worker "
                f"(legal-ai worker), never for a request of {self.principal.actor}"
            )
        view = object.__new__(type(self))
        view.__dict__.update(self.__dict__)
        view.principal = principal
        if surface is not None:
            view.surface = surface
        view.store = self.store.as_role(principal.db_role)
        view._owns_store = False
        view._root = getattr(self, "_root", None) or self  # one model for every view
        return view

    def ingestor(self) -> Any:
        """An Ingestor writing through this context: the composition root makes it (app.App;
        ingest/ may not import app.py, nor the scan's OCR job the pipeline that runs it)."""
        raise NotImplementedError("an Ingestor is made by the composition root (app.App)")

    def on_surface(self, surface: str) -> Any:
        """This context, same principal, its searches logged as coming from `surface`."""
        return self.acting_as(self.principal, surface=surface)

    @property
    def derived_store(self) -> Store:
        """The login's own store, for what is derived here from stored texts and nothing a
        caller sends — the embedding cache, the templates measured from her finals: a request's
        role may not write those tables (an agent would plant their content), so a request's
        read that finds them stale refreshes them through this store. (The embedding cache may
        live in another database: the demo's and the evaluation's share the home's.)"""
        return self._login_store

    @property
    def embedder(self) -> CachedEmbedder:
        """Created on first use: commands that do not embed never load the model."""
        root = self.__dict__.get("_root")
        if root is not None:
            return root.embedder
        if self._embedder is None:
            inner = self._inner_embedder or make_embedder(self.settings)
            folder = self.settings.embedding_cache_dir
            self._embedder = CachedEmbedder(
                inner,
                EmbeddingCache(self._cache_store),
                EmbeddingFolder(folder) if folder else None,
            )
            # The embedder in force is the system's record (a change re-evaluates every item):
            # written through the login's own store, never a request's role (migration 0033).
            # An agent-only login (the MCP server) records nothing.
            try:
                with self._login_store.transaction() as conn:
                    set_active_embedder(conn, inner.id, inner.dim)
            except psycopg.errors.InsufficientPrivilege:
                pass
        return self._embedder

    @property
    def images(self):
        """The multimodal embedder of the image leg (None unless MULTIMODAL_ENABLED)."""
        if not hasattr(self, "_images"):
            self._images = make_multimodal(self.settings)
        return self._images

    @property
    def reranker(self) -> Reranker | None:
        """The second-phase reranker LEGAL_AI_RERANKER names (None: off); built on first use,
        one for every view of this context."""
        root = self.__dict__.get("_root")
        if root is not None:
            return root.reranker
        if "_reranker" not in self.__dict__:
            self._reranker = make_reranker(self.settings)
        return self._reranker

    def close(self) -> None:
        if self._owns_store:
            self.store.close()

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
