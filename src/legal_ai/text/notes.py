"""Footnotes and endnotes in a stored text: where each note's text is and where it is anchored.

A document's notes are kept after its body, one section per kind, so that their citations are
read with the rest of the text and a hit inside a note can be pointed at it:

    <body>

    הערות שוליים

    [1] the first footnote's text

    [2] ...

    הערות סיום

    [1] the first endnote's text

Each note is a `Note`: its kind, its mark (Word's number, or the custom mark the author gave),
the offset in the body where its reference mark stands (`anchor`; the mark itself is not written
into the body, so the body reads as the plain-text version of the same decision does), and the
span of its text (`text[start:end]`, the `[mark] ` prefix excluded). The body ends where the
first section's heading starts (`body_end`): the decision's blocks are segmented from the body
alone (text/blocks.py), so a note never lands in the signature block.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

FOOTNOTES_HEADING = "הערות שוליים"
ENDNOTES_HEADING = "הערות סיום"
HEADINGS = {"footnote": FOOTNOTES_HEADING, "endnote": ENDNOTES_HEADING}
SEPARATOR = "\n\n"

# A notes section as `with_notes` writes it: its heading on a line of its own after a blank line
# (or at the start), then a blank line and the first note's mark. A PDF's text (pdf_layout) keeps
# no blank line between paragraphs: there the heading and the first mark follow single line breaks.
_SECTION = re.compile(
    rf"(?:^|(?<=\n))(?:{FOOTNOTES_HEADING}|{ENDNOTES_HEADING})\n\n?\[[^\]\n]{{1,16}}\] "
)


@dataclass(frozen=True)
class Note:
    kind: str  # "footnote" | "endnote"
    mark: str  # "1", "2", ... in order of reference, or the author's custom mark
    anchor: int  # offset in the body where the note's reference mark stands
    start: int  # the note's text is text[start:end]
    end: int

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Written:
    """A note read from its part: kind, mark, anchor in the body, text (cleaned)."""

    kind: str
    mark: str
    anchor: int
    text: str


def with_notes(body: str, notes: list[Written]) -> tuple[str, tuple[Note, ...], int | None]:
    """The body followed by its notes' sections (footnotes, then endnotes), each note's span,
    and where the body ends (None: no notes, the text is the body)."""
    written = [n for n in notes if n.text.strip()]
    if not written:
        return body, (), None
    parts, placed = [body], []
    offset = len(body)
    for kind, heading in HEADINGS.items():
        of_kind = [n for n in written if n.kind == kind]
        if not of_kind:
            continue
        parts.append(SEPARATOR + heading)
        offset += len(SEPARATOR) + len(heading)
        for note in of_kind:
            prefix = f"{SEPARATOR}[{note.mark}] "
            text = note.text.strip()
            start = offset + len(prefix)
            parts.append(prefix + text)
            placed.append(Note(kind, note.mark, note.anchor, start, start + len(text)))
            offset = start + len(text)
    return "".join(parts), tuple(placed), len(body)


def body_end(text: str) -> int:
    """Where the body of a text ends: the start of its first notes section, else its length."""
    match = _SECTION.search(text)
    if match is None:
        return len(text)
    end = match.start()
    for _ in SEPARATOR:  # the line breaks before the heading are not the body's
        end -= 1 if end and text[end - 1] == "\n" else 0
    return end
