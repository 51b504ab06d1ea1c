"""Reciprocal Rank Fusion (Cormack, Clarke & Büttcher, SIGIR 2009):

    score(d) = Σ_leg  w_leg / (k + rank_leg(d)),   ranks from 1, k = RRF_K (default 3;
    DESIGN said 60; 3 won on the dev sets: docs/evaluation.md).

Only ranks are fused, never raw scores. Ties are broken by a total order: score descending,
then the best single-leg rank ascending, then the stable id ascending.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

# What a leg ranks: a search's (kind, unit id), a bench's document id.
K = TypeVar("K", bound=Hashable)


@dataclass
class Fused(Generic[K]):
    key: K
    score: float
    ranks: dict[str, int] = field(default_factory=dict)

    @property
    def best_rank(self) -> int:
        return min(self.ranks.values())


def rrf(
    legs: Mapping[str, Sequence[K]],
    *,
    k: int = 60,
    weights: Mapping[str, float] | None = None,
) -> list[Fused[K]]:
    """Fuse ranked lists of keys (best first). Keys must be sortable for the final tie-break."""
    fused: dict[K, Fused[K]] = {}
    for leg, ranking in legs.items():
        weight = (weights or {}).get(leg, 1.0)
        for rank, key in enumerate(ranking, start=1):
            entry = fused.setdefault(key, Fused(key, 0.0))
            if leg in entry.ranks:
                continue  # a key counts once per leg, at its best rank
            entry.ranks[leg] = rank
            entry.score += weight / (k + rank)
    return sorted(fused.values(), key=lambda f: (-f.score, f.best_rank, f.key))
