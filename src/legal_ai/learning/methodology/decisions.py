"""A decision as the learning loop reads it: its file's text (or a clear error) and its blocks as
the chair's methodology names them. Shared by the draft/final upload (finals.py), the copy policy
(copy_policy.py) and the voice documents; the library item a citation names is
library_links.match's."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ...config import Settings
from ...errors import InvalidInput, OverBound, TooLarge
from ...text import blocks as text_blocks
from ...text import extract, isolated
from ...text.bounds import Limits
from .profiles import merged_profile

if TYPE_CHECKING:
    from ...context import Context


TEXT_SUFFIXES = frozenset({".txt", ".md"})


def file_limit(settings: Settings, suffix: str) -> tuple[int, str]:
    """The largest draft or final file of this kind, in MB, and the setting that sets it: a
    decision is text (20-80 thousand characters), so its file is small — LEGAL_AI_MAX_DECISION_MB
    for PDF and DOCX (fonts, a logo, a scanned signature), LEGAL_AI_MAX_DECISION_TEXT_MB for
    TXT and MD (config.py says why)."""
    if suffix.lower() in TEXT_SUFFIXES:
        return settings.max_decision_text_mb, "LEGAL_AI_MAX_DECISION_TEXT_MB"
    return settings.max_decision_mb, "LEGAL_AI_MAX_DECISION_MB"


def too_large(name: str, suffix: str, mb: int, setting: str) -> TooLarge:
    kind = suffix.lstrip(".").upper() or "file"
    return TooLarge(
        f"{name}: over the {mb} MB upload limit of a draft or final as {kind} (a decision's text is "
        f"far smaller: is it the decision's file? the operator sets {setting})",
        limit_mb=mb,
        code="file.decision_too_large",
    )


class ScannedDecision(InvalidInput):
    """A draft or final that is a scan (a PDF without a text layer): its upload through the
    desk, the API or the CLI keeps it for OCR (learning/pairs/scanned_decisions.or_queue); a
    caller that calls the service directly gets this refusal."""


def read_decision(app: Context, path: Path | str, name: str | None = None) -> extract.Extracted:
    """A decision file's text, or a clear error (missing, empty, corrupt, image-only, too big:
    over its kind's limit, `file_limit`, or over LEGAL_AI_MAX_DECISION_CHARS characters once
    read). `name` is what messages call the file (an upload's own name, not its temp path). It
    is read in a child process bounded in time and memory (text/isolated.py)."""
    path = Path(path)
    name = name or str(path)
    mb, setting = file_limit(app.settings, path.suffix)
    # A PDF over a decision's limit may still be a scan (kept for OCR up to LEGAL_AI_MAX_FILE_MB,
    # the limit of a ruling's upload): read it to tell, else it is refused as too large.
    oversized = path.is_file() and path.stat().st_size > mb * 2**20
    if oversized and path.suffix.lower() != ".pdf":
        raise too_large(name, path.suffix, mb, setting)
    extract.check_size(path, app.settings.max_file_mb * 2**20)
    most = app.settings.max_decision_chars
    limits = replace(Limits.of(app.settings), characters=min(most, app.settings.max_text_chars))
    try:
        extracted = isolated.read(path, limits)
    except OverBound as exc:  # said of the file by its own name
        if oversized:
            raise too_large(name, path.suffix, mb, setting) from None
        if exc.what == "characters":
            raise OverBound(
                f"{name}: the file's text is over {limits.characters:,} characters, far more "
                "than a decision (20-80 thousand): is it the decision's file? (the operator "
                "sets LEGAL_AI_MAX_DECISION_CHARS)",
                exc.what,
                code="file.too_long",
                field="file",
            ) from None
        raise OverBound(
            str(exc).replace(str(path), name), exc.what, code=exc.code, field=exc.field
        ) from None
    if extracted.issue == extract.IMAGE_ONLY:
        raise ScannedDecision(
            f"{name}: a scan (a PDF without a text layer): upload the decision as it was written "
            "(DOCX, or a PDF saved from the word processor). Text read from a scan by OCR "
            "carries recognition errors that the comparison with the draft would take for edits",
            code="file.scan",
            field="file",
        )
    if oversized:
        raise too_large(name, path.suffix, mb, setting)
    if extracted.issue:
        raise InvalidInput(f"{name}: {extracted.issue}")
    if not extracted.text.strip():
        raise InvalidInput(
            f"{name}: no text in the file; export the decision again",
            code="file.empty",
            field="file",
        )
    return extracted


def segment(conn, text: str) -> text_blocks.Segmentation:
    return text_blocks.segment(text, merged_profile(conn, None).get("blocks", {}))
