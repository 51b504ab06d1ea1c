"""Metrics through ir-measures (trec_eval's definitions), and a paired bootstrap interval."""

from __future__ import annotations

import numpy as np


def _measures():
    from ir_measures import RR, P, R, nDCG

    return {
        "ndcg@10": nDCG @ 10,
        "recall@10": R @ 10,
        "recall@100": R @ 100,
        "p@10": P @ 10,
        "mrr@10": RR @ 10,
    }


Run = dict[str, list[str]]  # query_id -> doc_ids, best first


def _scored(run: Run):
    import ir_measures

    for qid, docs in run.items():
        for rank, doc_id in enumerate(docs, start=1):
            # strictly decreasing scores: no ties for trec_eval to reorder
            yield ir_measures.ScoredDoc(qid, doc_id, float(len(docs) - rank + 1))


def _qrels(qrels: dict[str, dict[str, int]]):
    import ir_measures

    for qid, docs in qrels.items():
        for doc_id, rel in docs.items():
            yield ir_measures.Qrel(qid, doc_id, rel)


def per_query(run: Run, qrels: dict[str, dict[str, int]]) -> dict[str, dict[str, float]]:
    """metric -> query_id -> value, for every judged query (missing runs count as 0)."""
    import ir_measures

    measures = _measures()
    names = {str(m): name for name, m in measures.items()}
    out: dict[str, dict[str, float]] = {name: dict.fromkeys(qrels, 0.0) for name in measures}
    for metric in ir_measures.iter_calc(
        list(measures.values()), list(_qrels(qrels)), list(_scored(run))
    ):
        out[names[str(metric.measure)]][metric.query_id] = metric.value
    return out


def aggregate(values: dict[str, dict[str, float]]) -> dict[str, float]:
    return {
        name: round(float(np.mean(list(v.values()))), 4) if v else 0.0 for name, v in values.items()
    }


def paired_bootstrap(
    a: dict[str, float], b: dict[str, float], *, samples: int = 2000, seed: int = 13
) -> tuple[float, float, float]:
    """Mean of a - b over queries and its 95 % percentile interval (queries resampled)."""
    queries = sorted(set(a) & set(b))
    if not queries:
        return 0.0, 0.0, 0.0
    diff = np.array([a[q] - b[q] for q in queries])
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, len(diff), size=(samples, len(diff)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return round(float(diff.mean()), 4), round(float(low), 4), round(float(high), 4)
