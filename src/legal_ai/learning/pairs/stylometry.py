"""The chair's measured style profile: block-length ratios over her finals
(`measure_corpus_ratios`) and a function-word stylometric distance to them (Burrows' Delta:
Burrows, "Delta: a measure of stylistic difference and a guide to likely authorship", LLC 2002).

Delta here: for each function word, its relative frequency in a text as a z-score against the
chair's finals (their mean and standard deviation); the distance is the mean absolute z-score
(her own centroid is 0 by construction). About 1 means "as far as a typical final of hers"."""

from __future__ import annotations

import statistics

from ...text.hebrew import tokens
from .alignment import BODY_BLOCKS, block_shares

# Hebrew function words (prepositions, conjunctions, particles, pronouns): topic-free, so their
# rates reflect the writer, not the case.
FUNCTION_WORDS: tuple[str, ...] = (
    "של",
    "את",
    "על",
    "כי",
    "לא",
    "אשר",
    "גם",
    "אם",
    "זה",
    "זו",
    "כל",
    "או",
    "עם",
    "אין",
    "יש",
    "הוא",
    "היא",
    "הם",
    "הן",
    "בין",
    "לפי",
    "כן",
    "אך",
    "אולם",
    "לכן",
    "כאשר",
    "עוד",
    "רק",
    "אף",
    "מן",
    "אל",
    "כך",
    "ככל",
    "כדי",
    "לאחר",
    "טרם",
    "אלא",
    "שכן",
    "ולא",
    "אינו",
    "אינה",
    "היה",
    "היתה",
    "הייתה",
    "יהיה",
    "תהיה",
    "לו",
    "לה",
    "להם",
    "בו",
    "בה",
    "בהם",
    "אותו",
    "אותה",
    "עצמו",
    "כבר",
    "שלא",
    "מכאן",
    "לעיל",
    "להלן",
    "ואף",
    "וכן",
    "ואולם",
    "דהיינו",
    "קרי",
)
MIN_FINALS_FOR_DELTA = 2


def measure_corpus_ratios(finals: list[dict[str, str]]) -> dict[str, float]:
    """Mean share of each body block over the chair's finals (each a {block: text} dict)."""
    if not finals:
        return {}
    shares = [block_shares(blocks) for blocks in finals]
    return {block: round(statistics.fmean(s[block] for s in shares), 4) for block in BODY_BLOCKS}


def _rates(text: str) -> dict[str, float]:
    words = tokens(text)
    total = len(words) or 1
    counts = dict.fromkeys(FUNCTION_WORDS, 0)
    for word in words:
        if word in counts:
            counts[word] += 1
    return {w: c / total for w, c in counts.items()}


def burrows_delta(text: str, corpus: list[str]) -> float | None:
    """Delta of `text` to the chair's finals in `corpus`; None with fewer than two finals."""
    if len(corpus) < MIN_FINALS_FOR_DELTA:
        return None
    rates = [_rates(doc) for doc in corpus]
    target = _rates(text)
    zs = []
    for word in FUNCTION_WORDS:
        values = [r[word] for r in rates]
        sd = statistics.pstdev(values)
        if sd > 0:
            zs.append(abs((target[word] - statistics.fmean(values)) / sd))
    return round(statistics.fmean(zs), 4) if zs else None
