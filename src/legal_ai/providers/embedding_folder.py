"""A folder of embeddings shared by several homes (`LEGAL_AI_EMBEDDING_CACHE_DIR`).

The database's cache (store/cache.py) lives in one home's database; a machine with several
homes — a test run's fresh ones, the demo beside the office's own, a staging copy — would embed
the same text once per home. This folder sits behind the database's cache and before the model:
one file per (embedder id, sha256 of the text), `<folder>/<embedder>/<hash[:2]>/<hash>.f32`, the
vector's float32 bytes. A file is written to a temporary name and renamed into place, so readers
(other processes, other homes) see a whole vector or none. A file of the wrong size is ignored
(and rewritten by the next embedding of its text).

Trust: the folder is read as the system's own cache, so only the account that runs legal-ai may
write it (docs/security.md); an agent never names it (it is a setting of the process, not of a
request)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np


class EmbeddingFolder:
    """(embedder id, text sha256) -> vector, in files under `root` (made on first write)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def _path(self, embedder: str, text_hash: str) -> Path:
        return self.root / embedder / text_hash[:2] / f"{text_hash}.f32"

    def get_many(self, embedder: str, dim: int, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        for text_hash in hashes:
            try:
                raw = self._path(embedder, text_hash).read_bytes()
            except OSError:
                continue
            if len(raw) == dim * 4:
                found[text_hash] = np.frombuffer(raw, dtype=np.float32).copy()
        return found

    def put_many(self, embedder: str, items: dict[str, np.ndarray]) -> None:
        for text_hash, vector in items.items():
            path = self._path(embedder, text_hash)
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                fd, temp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            except OSError:
                return  # a read-only or missing folder: the vectors are used, not kept here
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(np.asarray(vector, dtype=np.float32).tobytes())
                os.replace(temp, path)
            except OSError:
                Path(temp).unlink(missing_ok=True)  # a full disk: this vector is not kept
                return
