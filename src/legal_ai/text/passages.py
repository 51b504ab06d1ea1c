"""A passage as a reader is shown it: Markdown's marks taken out (headings, emphasis, bullets,
quotes, links, code), a window of a long passage around the words that matched, cut at a
sentence's end (text/sentences.py; else between words), and the numbered paragraph a place in a decision
belongs to (its `12.` at a line's start) — the pinpoint of a citation (text/citation_style.py).

Paragraph numbers: a line that starts with a number of one to three digits and `.` or `)`
followed by a space (`12. הערר נדחה`) opens paragraph 12; `3.5` and `1.3.2023` at a line's start
are not paragraph numbers, nor is `(א)` (a sub-paragraph stays in its paragraph)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from .sentences import sentence_ends

# A numbered paragraph's opening: at a line's start, 1-3 digits, "." or ")", then a space.
_PARAGRAPH_RE = re.compile(r"^[ \t]*(?:\*\*)?(\d{1,3})[.)](?:\*\*)?[ \t]+", re.MULTILINE)

# Markdown marks, each replaced by what it marks (applied in order).
_MARKDOWN: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^[ \t]*#{1,6}[ \t]+", re.MULTILINE), ""),  # # heading
    (re.compile(r"^[ \t]*#{1,6}[ \t]*$", re.MULTILINE), ""),  # a lone #
    (re.compile(r"^[ \t]*(?:>[ \t]?)+", re.MULTILINE), ""),  # > quote
    (re.compile(r"^[ \t]*[-*+•][ \t]+", re.MULTILINE), ""),  # - bullet
    (re.compile(r"^[ \t]*(?:[-*_][ \t]*){3,}$", re.MULTILINE), ""),  # --- rule
    (re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)"), r"\1"),  # [text](link), ![alt](image)
    (re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1", re.DOTALL), r"\2"),  # **bold**
    (re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])"), r"\1"),  # *italic*
    (re.compile(r"`+([^`\n]*)`+"), r"\1"),  # `code`
    (re.compile(r"\*\*|__"), ""),  # an unpaired ** (cut off by the window)
    (re.compile(r"^[ \t]*\|?(?:[ \t]*:?-{3,}:?[ \t]*\|)+[ \t]*:?-*:?[ \t]*$", re.MULTILINE), ""),
)
_BLANK_LINES = re.compile(r"\n[ \t]*(?:\n[ \t]*)+")


def plain(text: str) -> str:
    """`text` without Markdown's marks: headings, bullets and quote marks at a line's start,
    **bold**, *italic*, `code`, links (their text kept) and table rules. Numbered paragraphs
    keep their numbers (`12.`): they are the decision's own. Runs of blank lines become one."""
    out = text
    for pattern, replacement in _MARKDOWN:
        out = pattern.sub(replacement, out)
    return _BLANK_LINES.sub("\n", out).strip()


def paragraph_marks(text: str) -> list[tuple[int, str]]:
    """Each numbered paragraph's opening in `text`: (offset of its line, its number)."""
    return [(m.start(), m.group(1)) for m in _PARAGRAPH_RE.finditer(text)]


def paragraphs_over(text: str, start: int, end: int) -> list[tuple[int, int, str]]:
    """The numbered paragraphs that `text[start:end]` touches, in order: (their span's start and
    end within `text`, clipped to [start, end), and the number). The first is the paragraph
    open at `start` (the last one opened before it), when there is one."""
    marks = paragraph_marks(text)
    before = [m for m in marks if m[0] <= start]
    inside = [m for m in marks if start < m[0] < end]
    opened = ([before[-1]] if before else []) + inside
    out = []
    for n, (at, number) in enumerate(opened):
        stop = opened[n + 1][0] if n + 1 < len(opened) else end
        out.append((max(at, start), min(stop, end), number))
    return out


def paragraph_of(text: str, start: int, end: int, hits: Iterable[int] = ()) -> str | None:
    """The paragraph to cite for the passage `text[start:end]`: the one holding most of `hits`
    (offsets in `text` of the words that matched the query; the earliest on a tie); without
    hits, the passage's paragraph when it has one, or its first and last ("3–5") when it spans
    several. None when the passage lies in no numbered paragraph."""
    spans = paragraphs_over(text, start, end)
    if not spans:
        return None
    points = list(hits)
    counts = [sum(1 for p in points if a <= p < b) for a, b, _ in spans]
    if points and max(counts) > 0:
        return spans[counts.index(max(counts))][2]
    if len(spans) == 1 or spans[0][2] == spans[-1][2]:
        return spans[0][2]
    return f"{spans[0][2]}–{spans[-1][2]}"


def window(text: str, hits: Iterable[int], size: int = 400) -> tuple[int, int]:
    """The span of `text` (about `size` characters) to show of a long passage: starting at the
    beginning of the sentence of its first matched word (the densest stretch of `hits` when they
    do not all fit), ending at a sentence's end within `size` when there is one, else between
    words. A passage of at most `size` characters is shown whole."""
    if len(text) <= size:
        return 0, len(text)
    points = sorted(p for p in hits if 0 <= p < len(text))
    anchor = _densest(points, size // 2) if points else 0
    start = _sentence_start(text, anchor) if anchor else 0
    if anchor - start > size // 2:  # a very long sentence: start between words before the hit
        start = _word_start(text, anchor - size // 4)
    end = _sentence_end(text, start, start + size)
    return start, end


def _densest(points: list[int], reach: int) -> int:
    """The first of `points` that begins the run with the most points within `reach`."""
    best, best_count = points[0], 0
    for n, p in enumerate(points):
        count = sum(1 for q in points[n:] if q - p <= reach)
        if count > best_count:
            best, best_count = p, count
    return best


def _sentence_start(text: str, at: int) -> int:
    """Where the sentence holding `at` begins (text/sentences: after the previous one's end)."""
    ends = sentence_ends(text, max(0, at - 2000), at)
    last = ends[-1] if ends else (0 if at <= 2000 else at)
    while last < at and text[last].isspace():
        last += 1
    return last


def _word_start(text: str, at: int) -> int:
    at = max(0, at)
    while 0 < at < len(text) and not text[at - 1].isspace():
        at -= 1
    return at


def _sentence_end(text: str, start: int, limit: int) -> int:
    """The end of the last sentence that ends within text[start:limit] (text/sentences), or
    the last space before `limit` when none does (the text's end when it is shorter)."""
    if limit >= len(text):
        return len(text)
    ends = [e for e in sentence_ends(text, start, limit) if e > start + 40]
    if ends:
        return ends[-1]
    space = text.rfind(" ", start, limit)
    return space if space > start else limit
