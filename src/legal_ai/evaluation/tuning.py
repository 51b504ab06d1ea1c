"""`legal-ai eval tune`: choose retrieval parameters by cross-validation over query folds
(docs/evaluation.md, "Honest tuning"), so a figure is never reported on the queries that chose it.

The dataset is ingested once (harness.loaded); every configuration of the grid runs every query
through the project's own search (hybrid, or hybrid+rerank), and each query's nDCG@10 is kept.
Queries are split into folds by `folds`: queries sharing a judged document are one group and a
group is never split, so a held-out fold asks about documents no training query was judged on.
For each fold the configuration with the best mean nDCG@10 on the other folds is chosen (ties go
to the current settings, then to the grid's order) and scored on the held-out fold. The report
gives each fold's choice and figures, their mean and spread, the current settings on the same
folds, and the "dev" figure (the best configuration scored on the queries that chose it)."""

from __future__ import annotations

import hashlib
import itertools
import statistics
from typing import Any

from ..config import Settings
from ..errors import InvalidInput
from ..progress import QUIET, Progress
from . import metrics
from .datasets import Dataset
from .harness import RERANKED, loaded, ranked

# The parameters a grid may vary: the settings fusion and the second phase read at query time,
# and (re-ingested once per value, embeddings from the cache) chunk_context, by its number in
# CHUNK_CONTEXT (0 off, 1 legislation, 2 all). rerank_top_n only with a reranker configured.
CHUNK_CONTEXT = ("off", "legislation", "all")
AT_INGEST = ("chunk_context",)
TUNABLE = ("rrf_k", "leg_window", "lexical_candidate_budget", "rerank_top_n", *AT_INGEST)
DEFAULT_GRID = "rrf_k=1,2,3,5,10,20,60;leg_window=20,50,100"
FOLDS = 5
DEPTH = 10  # nDCG@10 is what is chosen on


def parse_grid(spec: str) -> dict[str, tuple[int, ...]]:
    """`name=v1,v2;name=v3` into {name: (values...)}; InvalidInput naming what to fix."""
    grid: dict[str, tuple[int, ...]] = {}
    for part in (p.strip() for p in spec.split(";")):
        if not part:
            continue
        name, sep, values = part.partition("=")
        name = name.strip()
        if not sep or name not in TUNABLE:
            raise InvalidInput(
                f"--grid: {part!r} is not NAME=V1,V2 with NAME one of {', '.join(TUNABLE)}"
            )
        try:
            numbers = tuple(int(v) for v in values.split(",") if v.strip())
        except ValueError:
            raise InvalidInput(f"--grid: {name} takes whole numbers, not {values!r}") from None
        if name in AT_INGEST and not set(numbers) <= {0, 1, 2}:
            raise InvalidInput(f"--grid: {name} takes 0 (off), 1 (legislation) and 2 (all)")
        if not numbers or min(numbers) < (0 if name in AT_INGEST else 1):
            raise InvalidInput(f"--grid: {name} needs at least one value, each 1 or more")
        grid[name] = tuple(dict.fromkeys(numbers))
    if not grid:
        raise InvalidInput("--grid names no parameter (e.g. rrf_k=1,3,5;leg_window=20,50)")
    return grid


def configurations(grid: dict[str, tuple[int, ...]]) -> list[dict[str, int]]:
    """Every combination of the grid, in a fixed order."""
    names = sorted(grid)
    return [
        dict(zip(names, values, strict=True))
        for values in itertools.product(*(grid[n] for n in names))
    ]


def folds(qrels: dict[str, dict[str, int]], n: int, seed: int = 0) -> list[list[str]]:
    """The judged queries split into `n` folds. Queries sharing a judged document form one group
    (connected through any chain of shared documents) and stay together. Groups, largest first
    (equal sizes in an order fixed by a hash of `seed` and the group), each go to the fold with
    the fewest queries so far (the lowest-numbered on a tie). Deterministic; each fold sorted."""
    if n < 2:
        raise InvalidInput("--folds must be 2 or more")
    parent = {q: q for q in qrels}

    def root(q: str) -> str:
        while parent[q] != q:
            parent[q] = parent[parent[q]]
            q = parent[q]
        return q

    first_judged: dict[str, str] = {}
    for qid in sorted(qrels):
        for doc in sorted(d for d, rel in qrels[qid].items() if rel > 0):
            if doc in first_judged:
                parent[root(qid)] = root(first_judged[doc])
            else:
                first_judged[doc] = qid
    groups: dict[str, list[str]] = {}
    for qid in sorted(qrels):
        groups.setdefault(root(qid), []).append(qid)
    if len(groups) < n:
        raise InvalidInput(
            f"--folds {n}: the queries form only {len(groups)} group(s) sharing no judged "
            "document; use fewer folds"
        )

    def order(group: list[str]) -> tuple[int, str]:
        return -len(group), hashlib.sha256(f"{seed}:{group[0]}".encode()).hexdigest()

    out: list[list[str]] = [[] for _ in range(n)]
    for group in sorted(groups.values(), key=order):
        min(out, key=len).extend(group)  # min() returns the first of equal lengths
    return [sorted(fold) for fold in out]


def _at_ingest(config: dict[str, int]) -> tuple[tuple[str, str], ...]:
    """The ingest-time part of a configuration (what needs its own load), as settings."""
    return tuple((name, CHUNK_CONTEXT[config[name]]) for name in AT_INGEST if name in config)


def _typed(config: dict[str, int]) -> dict[str, int | str]:
    """A configuration as settings (chunk_context by name)."""
    return {name: CHUNK_CONTEXT[v] if name in AT_INGEST else v for name, v in config.items()}


def _numbered(settings: Settings, name: str) -> int:
    """A setting's current value as the grid numbers it."""
    value = getattr(settings, name)
    return CHUNK_CONTEXT.index(value) if name in AT_INGEST else int(value)


def _mean(scores: dict[str, float], queries: list[str]) -> float:
    return float(statistics.fmean(scores[q] for q in queries)) if queries else 0.0


def choose(scores: list[dict[str, float]], queries: list[str], default: int | None) -> int:
    """The index of the configuration with the best mean over `queries`; a tie goes to
    `default` (the current settings) when it is among the best, else to the first."""
    means = [round(_mean(s, queries), 10) for s in scores]
    best = max(means)
    if default is not None and means[default] == best:
        return default
    return means.index(best)


def _spread(values: list[float]) -> dict[str, float]:
    return {
        "mean": round(statistics.fmean(values), 4),
        "sd": round(statistics.stdev(values), 4) if len(values) > 1 else 0.0,
        "min": round(min(values), 4),
        "max": round(max(values), 4),
    }


def cross_validate(
    configs: list[dict[str, int]],
    scores: list[dict[str, float]],
    split: list[list[str]],
    default: int | None,
) -> dict:
    """Choose on the training folds, score on the held-out one; per fold and summarised, with
    the current settings (`default`, when in the grid) on the same folds."""
    per_fold: list[dict[str, Any]] = []
    for number, held_out in enumerate(split):
        training = [q for i, fold in enumerate(split) if i != number for q in fold]
        chosen = choose(scores, training, default)
        row: dict[str, Any] = {
            "fold": number + 1,
            "queries": len(held_out),
            "chosen": configs[chosen],
            "train_ndcg@10": round(_mean(scores[chosen], training), 4),
            "held_out_ndcg@10": round(_mean(scores[chosen], held_out), 4),
        }
        if default is not None:
            row["current_held_out_ndcg@10"] = round(_mean(scores[default], held_out), 4)
        per_fold.append(row)
    every = sorted(q for fold in split for q in fold)
    dev = choose(scores, every, default)
    out: dict = {
        "folds": per_fold,
        "held_out": _spread([f["held_out_ndcg@10"] for f in per_fold]),
        "dev": {"chosen": configs[dev], "ndcg@10": round(_mean(scores[dev], every), 4)},
    }
    if default is not None:
        current = [f["current_held_out_ndcg@10"] for f in per_fold]
        gains = [f["held_out_ndcg@10"] - f["current_held_out_ndcg@10"] for f in per_fold]
        out["current"] = {
            "config": configs[default],
            "held_out": _spread(current),
            "dev_ndcg@10": round(_mean(scores[default], every), 4),
        }
        out["held_out_gain"] = {**_spread(gains), "folds_better": sum(g > 0 for g in gains)}
        out["keep_current"] = not (out["held_out_gain"]["mean"] > 0 and dev != default)
    return out


def tune(
    settings: Settings,
    dataset: Dataset,
    grid: dict[str, tuple[int, ...]],
    *,
    n_folds: int = FOLDS,
    mode: str = "hybrid",
    progress: Progress = QUIET,
) -> dict:
    """Score every configuration of `grid` on every query of `dataset` and cross-validate the
    choice over `n_folds` query folds; returns the `--json` object."""
    if mode == RERANKED and not settings.reranker:
        raise InvalidInput(f"{RERANKED} needs LEGAL_AI_RERANKER (docs/evaluation.md)")
    if "rerank_top_n" in grid and mode != RERANKED:
        raise InvalidInput("--grid rerank_top_n needs --mode hybrid+rerank")
    split = folds(dataset.qrels, n_folds)
    configs = configurations(grid)
    current = {name: _numbered(settings, name) for name in grid}
    default = configs.index(current) if current in configs else None
    scores: list[dict[str, float] | None] = [None] * len(configs)
    done = 0
    for ingest in dict.fromkeys(_at_ingest(c) for c in configs):  # one load per ingest value
        chosen = [i for i, c in enumerate(configs) if _at_ingest(c) == ingest]
        with loaded(settings.model_copy(update=dict(ingest)), dataset, progress=progress) as ready:
            progress.start("eval tune: searching", len(configs) * len(dataset.queries), "queries")
            for number in chosen:
                tried = ready.settings.model_copy(update=_typed(configs[number]))
                run = {
                    qid: ranked(ready, tried, mode, text, DEPTH)
                    for qid, text in dataset.queries.items()
                }
                scores[number] = metrics.per_query(run, dataset.qrels)["ndcg@10"]
                done += len(dataset.queries)
                progress.update(done, current=str(configs[number]))
    measured = [s for s in scores if s is not None]  # every configuration, each in its load
    result = {
        "dataset": dataset.name,
        "n_queries": len(dataset.queries),
        "n_docs": len(dataset.corpus),
        "mode": mode,
        "grid": {name: list(values) for name, values in grid.items()},
        "current": current,
        "fold_sizes": [len(f) for f in split],
        "configurations": [
            {**config, "ndcg@10": round(_mean(s, sorted(dataset.qrels)), 4)}
            for config, s in zip(configs, measured, strict=True)
        ],
    }
    result["cross_validation"] = cross_validate(configs, measured, split, default)
    result["folds"] = split
    result["per_query_ndcg@10"] = measured  # aligned with "configurations"
    return result
