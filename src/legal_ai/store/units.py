"""A unit as the store writes it (a chunk, a principle, an attached precedent: `ChunkRow`) and
a vector as the store reads it back (`as_array`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def as_array(value) -> np.ndarray:
    """A vector read back from the database (pgvector's `Vector` or an array) as float32."""
    return np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value, dtype=np.float32)


@dataclass(frozen=True)
class ChunkRow:
    ordinal: int
    page: int | None
    char_start: int
    char_end: int
    section: str | None
    text: str
    text_hash: str
    analyzed: str
    analyzer: str
    embedding: np.ndarray | None
    embedder: str | None
