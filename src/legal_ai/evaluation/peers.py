"""The do-it-yourself peers, on identical data in the same run: BM25 (`bm25s`, plain whitespace
tokens, whole documents), exact dense cosine with the same embedder over the same chunks (a
document scores its best chunk), and the two fused by the same RRF."""

from __future__ import annotations

import numpy as np

from ..retrieval.fusion import rrf
from ..store.db import Store
from ..store.items import as_array, external_chunk_embeddings
from .datasets import Dataset


def run_peers(store: Store, embedder, dataset: Dataset, *, k: int, depth: int) -> dict[str, dict]:
    import bm25s

    doc_ids = sorted(dataset.corpus)
    texts = [dataset.doc_text(d) for d in doc_ids]
    retriever = bm25s.BM25()
    retriever.index([t.split() for t in texts], show_progress=False)
    with store.connection() as conn:
        rows = external_chunk_embeddings(conn)
    chunk_docs = [r["doc_id"] for r in rows]
    matrix = (
        np.stack([as_array(r["embedding"]) for r in rows]) if rows else np.zeros((0, embedder.dim))
    )
    runs: dict[str, dict] = {"bm25s": {}, "dense_exact": {}, "bm25s+dense_rrf": {}}
    for qid, text in dataset.queries.items():
        tokens = text.split()
        scores = retriever.get_scores(tokens) if tokens else np.zeros(len(doc_ids))
        order = np.argsort(-scores, kind="stable")
        lexical = [doc_ids[i] for i in order[:depth] if scores[i] > 0]
        sims = matrix @ embedder.embed_query(text) if len(matrix) else np.zeros(0)
        dense: list[str] = []
        for i in np.argsort(-sims, kind="stable"):
            if chunk_docs[i] not in dense:
                dense.append(chunk_docs[i])
            if len(dense) == depth:
                break
        runs["bm25s"][qid] = lexical
        runs["dense_exact"][qid] = dense
        runs["bm25s+dense_rrf"][qid] = [
            f.key for f in rrf({"semantic": dense, "lexical": lexical}, k=k)
        ][:depth]
    return runs
