"""The persistent embedding cache (table `embedding_cache`) and the active-embedder record."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import psycopg

from .db import Store
from .rows import Conn


class EmbeddingCache:
    """(embedder id, text sha256) -> vector, shared by every ingest and rebuild on this database.

    Only the system's rows are served: each row records the role that wrote it, forced by the
    database (migration 0036), and a vector an agent (its role or its own login) or a request
    put there is never read back; the system's own write replaces it. A login that may not
    write the cache (an agent's) embeds without storing."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def get_many(self, embedder: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        if not hashes:
            return {}
        with self.store.connection() as conn:
            rows = conn.execute(
                "SELECT text_hash, embedding FROM embedding_cache"
                " WHERE embedder = %s AND text_hash = ANY(%s) AND by_system",
                (embedder, list(hashes)),
            ).fetchall()
        return {
            r["text_hash"]: np.asarray(r["embedding"].to_numpy(), dtype=np.float32) for r in rows
        }

    def put_many(self, embedder: str, items: dict[str, np.ndarray]) -> None:
        if not items:
            return
        try:
            with self.store.transaction() as conn, conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO embedding_cache (embedder, text_hash, embedding)"
                    " VALUES (%s, %s, %s) ON CONFLICT (embedder, text_hash) DO UPDATE"
                    " SET embedding = EXCLUDED.embedding WHERE NOT embedding_cache.by_system",
                    [(embedder, h, v) for h, v in items.items()],
                )
        except psycopg.errors.InsufficientPrivilege:
            return  # an agent's login: the vectors are used, not kept


def active_embedder(conn: Conn) -> dict | None:
    """The embedder in force ({"embedder", "dim"}), None before the first embedding."""
    return conn.execute("SELECT embedder, dim FROM embedding_config").fetchone()


def set_active_embedder(conn: Conn, embedder: str, dim: int) -> bool:
    """Record the embedder in force; returns True when it changed (items are re-evaluated)."""
    row = active_embedder(conn)
    if row and row["embedder"] == embedder and row["dim"] == dim:
        return False
    conn.execute(
        "INSERT INTO embedding_config (singleton, embedder, dim) VALUES (true, %s, %s)"
        " ON CONFLICT (singleton) DO UPDATE SET embedder = EXCLUDED.embedder,"
        " dim = EXCLUDED.dim, updated_at = now()",
        (embedder, dim),
    )
    return True
