"""Split a document's text into chunks sized for the embedder.

Chunks never cross a page boundary, prefer to end at a line or sentence end, and carry their
page number and character span in the document's text: `text[char_start:char_end]` is exactly
the chunk, so every hit can be checked against its source. Consecutive chunks share a small
overlap (whole sentences, up to `overlap_tokens`) so a passage cut at a boundary is still found.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .sentences import trimmed

TokenCounter = Callable[[str], int]

# A unit ends at a line break or after a sentence-ending mark followed by a space.
_UNIT_END = re.compile(r"\n+|(?<=[.?!:;])\s+")
_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class Chunk:
    ordinal: int
    page: int | None
    char_start: int
    char_end: int
    text: str


def _units(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Spans of sentences/lines within text[start:end], whitespace trimmed."""
    spans, cursor = [], start
    for match in _UNIT_END.finditer(text, start, end):
        spans.append((cursor, match.start()))
        cursor = match.end()
    spans.append((cursor, end))
    return [(a, b) for a, b in (trimmed(text, *span) for span in spans) if b > a]


def _split_long(text: str, span: tuple[int, int], target: int, count: TokenCounter):
    """Cut one over-long unit into word windows of about `target` tokens."""
    words = [(m.start(), m.end()) for m in _WORD.finditer(text, span[0], span[1])]
    pieces, first = [], 0
    while first < len(words):
        last = first
        # grow by doubling then back off: token counting is the cost, keep calls few
        step = 1
        while (
            last + step < len(words)
            and count(text[words[first][0] : words[last + step][1]]) <= target
        ):
            last += step
            step *= 2
        while step > 1:
            step //= 2
            if (
                last + step < len(words)
                and count(text[words[first][0] : words[last + step][1]]) <= target
            ):
                last += step
        pieces.append((words[first][0], words[last][1]))
        first = last + 1
    return pieces


def chunk_text(
    text: str,
    count: TokenCounter,
    *,
    page_starts: list[int] | None = None,
    target_tokens: int = 300,
    overlap_tokens: int = 40,
) -> list[Chunk]:
    """Chunk `text` (pages given by their start offsets) into spans of <= target tokens."""
    if page_starts:
        bounds = list(zip(page_starts, [*page_starts[1:], len(text)], strict=True))
    else:
        bounds = [(0, len(text))]
    chunks: list[Chunk] = []
    for page_index, (page_start, page_end) in enumerate(bounds):
        page = page_index + 1 if page_starts else None
        units: list[tuple[int, int, int]] = []  # (start, end, tokens)
        for span in _units(text, page_start, page_end):
            n = count(text[span[0] : span[1]])
            if n <= target_tokens:
                units.append((*span, n))
            else:
                for piece in _split_long(text, span, target_tokens, count):
                    units.append((*piece, count(text[piece[0] : piece[1]])))
        i = 0
        while i < len(units):
            j, total = i, units[i][2]
            while j + 1 < len(units) and total + units[j + 1][2] <= target_tokens:
                j += 1
                total += units[j][2]
            start, end = units[i][0], units[j][1]
            chunks.append(Chunk(len(chunks), page, start, end, text[start:end]))
            if j + 1 >= len(units):
                break
            # next chunk starts with trailing units of this one, up to the overlap budget
            k, carried = j + 1, 0
            while k - 1 > i and carried + units[k - 1][2] <= overlap_tokens:
                k -= 1
                carried += units[k][2]
            i = k
    return chunks
