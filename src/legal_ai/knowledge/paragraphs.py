"""A final cut into its blocks and each block into its paragraphs, with exact offsets.

`text/blocks.segment` returns each block's text as a stripped piece of the decision; here each
piece is found again in the text (after its heading line, in the order the headings appear) and
split at blank lines. Every paragraph's `char_start`/`char_end` index the text as stored, so
`text[char_start:char_end] == paragraph.text` (a `\\r\\n` text included). Pure text, no database.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..text import blocks as text_blocks

_BLANK_LINE = re.compile(r"\n[ \t]*\n\s*")


@dataclass(frozen=True)
class Paragraph:
    block: str
    ordinal: int  # its place in the block, from 0
    char_start: int
    char_end: int
    text: str


def _positions(text: str) -> list[int]:
    """For each character of the `\\r\\n`-folded text, its index in `text`."""
    if "\r\n" not in text:
        return []
    return [i for i, ch in enumerate(text) if not (ch == "\r" and text[i + 1 : i + 2] == "\n")]


def _body_starts(norm: str, seg: text_blocks.Segmentation) -> dict[str, int]:
    """Where to look for each block's body: after its heading line (headings are found in the
    order they appear, each once), the signature after the last heading, the header at 0."""
    anchors: dict[str, int] = {"header": 0}
    wanted = {heading: block for block, heading in seg.headings.items()}
    offset = 0
    for line in norm.split("\n"):
        block = wanted.get(line.strip())
        if block is not None and block not in anchors:
            anchors[block] = offset + len(line)
        offset += len(line) + 1
    anchors.setdefault("signature", max(anchors.values()))
    return anchors


def split(text: str, spec: dict) -> list[Paragraph]:
    """The paragraphs of every block found in `text` (InvalidInput when it is not a decision
    the profile's headings can read), in document order."""
    seg = text_blocks.segment(text, spec)
    norm = text.replace("\r\n", "\n")
    where = _positions(text)

    def real(index: int) -> int:
        return where[index] if where else index

    anchors = _body_starts(norm, seg)
    found: list[tuple[int, str, str]] = []
    for block, body in seg.blocks.items():
        if not body:
            continue
        start = norm.find(body, anchors.get(block, 0))
        if start < 0:
            start = norm.find(body)
        if start >= 0:
            found.append((start, block, body))
    out: list[Paragraph] = []
    for start, block, body in sorted(found):
        ordinal = 0
        cursor = 0
        for piece in [*_BLANK_LINE.split(body)]:
            at = body.find(piece, cursor)
            cursor = at + len(piece)
            stripped = piece.strip()
            if not stripped:
                continue
            lead = len(piece) - len(piece.lstrip())
            begin = start + at + lead
            finish = begin + len(stripped)
            char_start, char_end = real(begin), real(finish - 1) + 1
            out.append(Paragraph(block, ordinal, char_start, char_end, text[char_start:char_end]))
            ordinal += 1
    return out
