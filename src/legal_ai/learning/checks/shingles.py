"""The words the copy check compares (learning/checks/copy_policy.py) and their fingerprints: each word
with its comparison key (normalized, spelling folded, without prefix letters) and its offsets,
paragraph numbers skipped; where each block of a decision lies in its text; and the word 8-grams
of a text as stable 64-bit fingerprints, stored per compared text (store/copy_sources.py).
knowledge/contrastive.py aligns a draft with its final on the same words."""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass

from ...store import copy_sources as fingerprint_store
from ...text import blocks as text_blocks
from ...text.hebrew import comparison_key, fold_quotes

SHINGLE = 8  # words per shingle
# A word: a case number, a section reference, an acronym, a word with a geresh, a letter/digit run
# (text/hebrew.py's tokens, here with their offsets in the original text).
_WORD = re.compile(r"\d+/\d+|\d+[א-ת]?(?:\([א-ת0-9]{1,3}\))+|[א-ת]+\"[א-ת]+|[^\W_]+'?", re.UNICODE)


@dataclass(frozen=True)
class Word:
    key: str
    start: int
    end: int


@functools.lru_cache(maxsize=65536)
def word_key(token: str) -> str:
    """A word's comparison key: no quotes or brackets, lower case, then text/hebrew's
    `comparison_key` (as the alignment of a draft with its final compares words)."""
    token = token.replace('"', "").replace("'", "").lower()
    if "(" in token:
        token = re.sub(r"[()]", "", token)
    return comparison_key(token)


def keyed_words(text: str, base: int = 0) -> list[Word]:
    """The words of `text` with their keys and offsets (plus `base`), without paragraph numbers
    ("12." or "3)" opening a line)."""
    folded = fold_quotes(text)
    out = []
    for m in _WORD.finditer(folded):
        token = m.group(0)
        if token.isdigit() and len(token) <= 3:
            line_start = folded.rfind("\n", 0, m.start()) + 1
            after = folded[m.end() : m.end() + 1]
            if not folded[line_start : m.start()].strip() and after in (".", ")"):
                continue
        out.append(Word(word_key(token), base + m.start(), base + m.end()))
    return out


def block_spans(text: str, blocks: dict[str, str]) -> dict[str, tuple[int, int]]:
    """Where each found block (its stripped text, as text/blocks.py's `segment` returns it) lies
    in `text`: {block: (char_start, char_end)}."""
    spans: dict[str, tuple[int, int]] = {}
    cursor = 0
    for block in text_blocks.BLOCKS:
        body = blocks.get(block) or ""
        if not body:
            continue
        at = text.find(body, cursor)
        if at < 0:
            at = text.find(body)
        if at >= 0:
            spans[block] = (at, at + len(body))
            cursor = at + len(body)
    return spans


def block_at(spans: dict[str, tuple[int, int]], offset: int) -> str | None:
    for block, (start, end) in spans.items():
        if start <= offset < end:
            return block
    return None


def fold(text: str) -> str:
    """A text as space-separated comparison keys (for containment checks)."""
    return " ".join(w.key for w in keyed_words(text))


# The method the stored fingerprints were taken by: another tokenizer or shingle size must
# take them again (store/copy_sources.py keeps the name with each row).
METHOD = f"keyed-words-v1:{SHINGLE}"


def fingerprints(words: list[Word]) -> list[int]:
    """The word 8-grams of `words` in order (item i opens at word i) as stable signed 64-bit
    fingerprints of their comparison keys: the same in every process (they are stored)."""
    keys = [w.key for w in words]
    return [
        int.from_bytes(
            hashlib.blake2b("\x1f".join(keys[i : i + SHINGLE]).encode(), digest_size=8).digest(),
            "big",
            signed=True,
        )
        for i in range(len(keys) - SHINGLE + 1)
    ]


def refresh_fingerprints(conn) -> int:
    """Take the fingerprints of every compared text that has none of its current content (new
    finals and decisions, changed texts; all of them once after the upgrade). Returns how many."""
    taken = 0
    for corpus, row in fingerprint_store.stale(conn, METHOD):
        shingles = fingerprints(keyed_words(row["content"]))
        fingerprint_store.save(conn, corpus, row["id"], row["content_hash"], METHOD, shingles)
        taken += 1
    return taken


def refresh_apart(store) -> int:
    """`refresh_fingerprints` for a request (through the login's own store): each stale text is
    read and its fingerprints computed with no transaction open (Store.reading), then saved in
    a short transaction of its own — a long final's fingerprints never hold a lock another
    upload waits on. A text that changed meanwhile keeps its new content's turn (its hash no
    longer matches: the next refresh takes it). Returns how many were taken."""
    with store.reading() as conn:
        stale = fingerprint_store.stale_keys(conn, METHOD)
    taken = 0
    for corpus, item_id, content_hash in stale:
        with store.reading() as conn:
            text = fingerprint_store.content(conn, corpus, item_id, content_hash)
        if text is None:
            continue
        shingles = fingerprints(keyed_words(text))
        with store.transaction() as conn:
            fingerprint_store.save(conn, corpus, item_id, content_hash, METHOD, shingles)
        taken += 1
    return taken


_TRAILING = ").,;:!?\"'”’״׳"


def through_punctuation(text: str, end: int) -> int:
    """`end` moved past the closing punctuation right after it (a sentence's `).`)."""
    while end < len(text) and text[end] in _TRAILING:
        end += 1
    return end
