"""A decision as the learning loop reads it: its file's text (or a clear error) and its blocks as
the chair's methodology names them. Shared by the draft/final upload (finals.py), the copy policy
(copy_policy.py) and the voice documents; the library item a citation names is
library_links.match's."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InvalidInput, OverBound
from ..text import blocks as text_blocks
from ..text import extract, isolated
from ..text.bounds import Limits
from .methodology import merged_profile

if TYPE_CHECKING:
    from ..context import Context


def read_decision(app: Context, path: Path | str, name: str | None = None) -> extract.Extracted:
    """A decision file's text, or a clear error (missing, empty, corrupt, image-only, too big).
    `name` is what messages call the file (an upload's own name, not its temp path). It is read
    in a child process bounded in time and memory (text/isolated.py)."""
    path = Path(path)
    name = name or str(path)
    extract.check_size(path, app.settings.max_file_mb * 2**20)
    try:
        extracted = isolated.read(path, Limits.of(app.settings))
    except OverBound as exc:  # said of the file by its own name
        raise OverBound(str(exc).replace(str(path), name), exc.what) from None
    if extracted.issue == extract.IMAGE_ONLY:
        raise InvalidInput(
            f"{name}: a scan (a PDF without a text layer): upload the decision as it was written "
            "(DOCX, or a PDF saved from the word processor). Text read from a scan by OCR "
            "carries recognition errors that the comparison with the draft would take for edits"
        )
    if extracted.issue:
        raise InvalidInput(f"{name}: {extracted.issue}")
    if not extracted.text.strip():
        raise InvalidInput(f"{name}: no text in the file; export the decision again")
    return extracted


def segment(conn, text: str) -> text_blocks.Segmentation:
    return text_blocks.segment(text, merged_profile(conn, None).get("blocks", {}))
