"""The context a reader has of a chunk, for the lexical index (docs/search.md): a statute
section's law, chapter and side heading; a ruling's court, parties and the number of the
paragraph the chunk opens in. LEGAL_AI_CHUNK_CONTEXT names the kinds that carry it:
`legislation` (the default), `all` (rulings and decisions too) or `off`. Such a chunk is
analyzed from this line and then its own text, so the lexical leg finds it by the words that
name where it sits; its text, span and text_hash stay its own (provenance exact), and its
embedding is made from its text alone. It records its analyzer as `<id>+context`
(chunk_analyzer), so a change of the setting is a change of analyzer for the chunks it touches:
`reindex` analyzes them again. metadata_fold.py does the like for a decision's headnote, summary
and tags in its first chunk only; this line is short and goes to every chunk. Measured before
it was turned on: docs/evaluation.md, "Context in every chunk"."""

from __future__ import annotations

import re

from ..store import maintenance
from ..text.parties import party_line

MAX_CHARS = 300
KINDS = {
    "off": (),
    "legislation": ("legislation",),
    "all": ("legislation", "ruling", "decision"),
}
_PARAGRAPH = re.compile(r"^\s*(\d{1,3})\s*[.)]\s", re.M)


def _paragraph(text: str, start: int) -> str | None:
    """The number of the numbered paragraph (`12.` or `12)` at a line's start) the character at
    `start` falls in, or None before the first."""
    number = None
    for found in _PARAGRAPH.finditer(text, 0, start + 1):
        number = found.group(1)
    return number


def context_line(
    mode: str, doc_type: str, fields: dict, metadata: dict, text: str, char_start: int
) -> str:
    """The context of the chunk starting at `char_start` of an item's `text` ('' when `mode`
    gives its kind none, or the item names none), at most MAX_CHARS characters."""
    if doc_type not in KINDS[mode]:
        return ""
    if doc_type == "legislation":
        parts = [
            fields.get("law_title"),
            metadata.get("container"),
            metadata.get("heading"),
        ]
    else:  # a ruling or a decision
        paragraph = _paragraph(text, char_start)
        parts = [
            fields.get("court"),
            party_line(text[:2000]) or fields.get("title"),
            f"פסקה {paragraph}" if paragraph else None,
        ]
    line = " · ".join(str(p).strip() for p in parts if p and str(p).strip())
    return line[:MAX_CHARS]


def chunk_analyzer(analyzer_id: str, mode: str, doc_type: str) -> str:
    """The analyzer a chunk records: the analyzer's id, marked `+context` when its kind carries
    a context line, so a change of the setting is a change of analyzer for the chunks it
    touches (`legal-ai health` counts them stale, `legal-ai reindex` analyzes them again)."""
    return _marked(analyzer_id) if doc_type in KINDS[mode] else analyzer_id


def chunk_analyzers(analyzer_id: str, mode: str) -> dict:
    """What `legal-ai health` and `reindex` compare each chunk's recorded analyzer with."""
    return maintenance.analyzers(analyzer_id, _marked(analyzer_id), KINDS[mode])


def _marked(analyzer_id: str) -> str:
    return f"{analyzer_id}+context"


def indexed_text(context: str, text: str) -> str:
    """What the lexical index analyzes of a chunk: its context line, then its own text."""
    return f"{context}\n{text}" if context else text
