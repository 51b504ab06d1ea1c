"""Hebrew lemmas from Debian's `hspell -l` (installed by `make install`; ISO-8859-8 only).

One `hspell` process per batch of unseen words; results are cached for the process. Words are
sent one per line with a sentinel word between them, so each word's analyses can be told apart
(hspell prints a block per analysis and collects unknown words at the end). For each word the
lemmas of its preferred reading are kept: the whole word when hspell accepts it as is, else the
shortest prefix split (ו+הקלות → הקלה). Without hspell every lookup returns nothing, and the
analyzer that uses it falls back to its prefix rules (`available()` says which).
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from collections.abc import Iterable

SENTINEL = "אבטיח"  # a word hspell knows, used only as a separator
_BLOCK_RE = re.compile(r"^(מילה חוקית|צירוף חוקי): (.+)$")
_LEMMA_RE = re.compile(r"^\t([א-ת]+)\(")
_cache: dict[str, tuple[str, ...]] = {}


@functools.cache
def available() -> bool:
    return shutil.which("hspell") is not None


def _run(words: list[str]) -> list[list[tuple[str, list[str]]]]:
    """Per word: its analysis blocks, each (kind, lemmas)."""
    lines = []
    for word in words:
        lines += [word, SENTINEL]
    data = "\n".join(lines).encode("iso-8859-8", errors="replace")
    out = subprocess.run(
        ["hspell", "-l"], input=data, capture_output=True, timeout=120, check=False
    )
    text = out.stdout.decode("iso-8859-8", errors="replace")
    groups: list[list[tuple[str, list[str]]]] = [[]]
    for line in text.split("\n"):
        if line.startswith("שגיאות כתיב"):
            break
        block = _BLOCK_RE.match(line)
        if block:
            if block.group(1) == "מילה חוקית" and block.group(2) == SENTINEL:
                groups.append([])
                groups[-1].append(("sentinel", []))
                continue
            if groups[-1] and groups[-1][0][0] == "sentinel":
                groups[-1] = []  # the sentinel's own analyses end here
            groups[-1].append((block.group(1), []))
            continue
        lemma = _LEMMA_RE.match(line)
        if lemma and groups[-1] and groups[-1][-1][0] != "sentinel":
            groups[-1][-1][1].append(lemma.group(1))
    # groups[0] is the first word's; a trailing sentinel opens one empty group per word
    result = [[b for b in group if b[0] != "sentinel"] for group in groups[: len(words)]]
    return result + [[] for _ in range(len(words) - len(result))]


def _preferred(blocks: list[tuple[str, list[str]]], word: str) -> tuple[str, ...]:
    if not blocks:
        return ()
    whole = [lemmas for kind, lemmas in blocks if kind == "מילה חוקית"]
    lemmas = whole[0] if whole else blocks[0][1]
    if word in lemmas:  # already a base form
        return (word,)
    return tuple(dict.fromkeys(lemmas))


def lemmas(words: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Lemmas of each Hebrew word (empty for unknown words, or when hspell is absent)."""
    wanted = list(dict.fromkeys(w for w in words if re.fullmatch(r"[א-ת]{2,}", w)))
    todo = [w for w in wanted if w not in _cache and w != SENTINEL]
    if todo and available():
        for start in range(0, len(todo), 5000):
            batch = todo[start : start + 5000]
            for word, blocks in zip(batch, _run(batch), strict=True):
                _cache[word] = _preferred(blocks, word)
    return {w: _cache.get(w, ()) for w in wanted}
