"""Files -> text with pages: PDF (poppler's pdftotext, logical Hebrew order), DOCX, TXT/MD.

Every failure is an `UnsupportedFile` naming the file and what to do about it. Size is checked
before anything is read, so memory stays bounded whatever is uploaded.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import zipfile
from dataclasses import dataclass
from pathlib import Path

from ..errors import UnsupportedFile
from .hebrew import clean_text

TEXT_SUFFIXES = {".txt", ".md"}
SUPPORTED = (".pdf", ".docx", ".txt", ".md", ".jsonl", ".xml")

# Hebrew letters must make up at least this share of the letters of a legacy-encoded file.
_MIN_HEBREW_SHARE = 0.3


@dataclass(frozen=True)
class Extracted:
    """A file's text. `page_starts` holds each page's offset in `text` (None: no pages)."""

    text: str
    source_format: str
    page_starts: list[int] | None = None
    issue: str | None = None  # why there is no text (the item is stored, never searchable)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_size(path: Path, max_bytes: int) -> int:
    """Refuse missing, empty and oversized files before reading them."""
    if not path.is_file():
        raise UnsupportedFile(f"{path}: no such file")
    size = path.stat().st_size
    if size == 0:
        raise UnsupportedFile(f"{path}: the file is empty; export the document again")
    if size > max_bytes:
        raise UnsupportedFile(
            f"{path}: {size / 2**20:.0f} MB is over the {max_bytes / 2**20:.0f} MB limit; "
            "split the file or raise LEGAL_AI_MAX_FILE_MB"
        )
    return size


def extract(path: Path) -> Extracted:
    """Extract a single-document file (PDF, DOCX, TXT, MD)."""
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        return _pdf(path)
    if suffix == ".docx":
        return _docx(path)
    if suffix in TEXT_SUFFIXES:
        return Extracted(clean_text(decode_text(path.read_bytes(), path)), suffix[1:])
    raise UnsupportedFile(
        f"{path}: unsupported file type {suffix or '(none)'}; supported: {', '.join(SUPPORTED)}"
    )


def decode_text(data: bytes, path: Path) -> str:
    """UTF-8 (with or without BOM); else windows-1255 when the result reads as Hebrew."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        text = data.decode("windows-1255")
    except UnicodeDecodeError:
        text = None
    if text is not None and _hebrew_share(text) >= _MIN_HEBREW_SHARE:
        return text
    raise UnsupportedFile(
        f"{path}: not UTF-8 and not Hebrew windows-1255 text; save it as UTF-8 and try again"
    )


def _hebrew_share(text: str) -> float:
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return 0.0
    return sum("\u05d0" <= ch <= "\u05ea" for ch in letters) / len(letters)


# --- PDF ---------------------------------------------------------------------------------------
_LRE_RUN = re.compile("\u202a([^\u202a\u202c]*)\u202c")


def _logical_run(run: str) -> str:
    """pdftotext wraps left-to-right runs inside Hebrew lines in LRE..PDF, with the neutral
    characters at the run's edges in visual order (" .1" for "1. "). Move them to the logical
    side: trailing edge first, then the core, then the leading edge, each edge reversed."""
    chars = list(run)
    first = next((i for i, ch in enumerate(chars) if ch.isalnum()), None)
    if first is None:
        return run[::-1]
    last = max(i for i, ch in enumerate(chars) if ch.isalnum())
    lead, core, trail = run[:first], run[first : last + 1], run[last + 1 :]
    return trail[::-1] + core + lead[::-1]


def pdf_page_text(raw: str) -> str:
    """Clean one page of pdftotext output into logical order."""
    return clean_text(_LRE_RUN.sub(lambda m: _logical_run(m.group(1)), raw))


def _pdf(path: Path) -> Extracted:
    if shutil.which("pdftotext") is None:
        raise UnsupportedFile(
            f"{path}: reading PDF needs poppler's pdftotext; run `make install` "
            "(or apt-get install poppler-utils)"
        )
    result = subprocess.run(
        ["pdftotext", "-enc", "UTF-8", str(path), "-"],
        capture_output=True,
        timeout=300,
        check=False,
    )
    if result.returncode != 0:
        detail = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise UnsupportedFile(
            f"{path}: not a readable PDF ({detail[-1] if detail else 'pdftotext failed'}); "
            "the file is corrupt or truncated, export it again"
        )
    raw_pages = result.stdout.decode("utf-8", "replace").split("\f")
    if raw_pages and not raw_pages[-1].strip():
        raw_pages.pop()  # pdftotext ends the last page with a form feed too
    pages = [pdf_page_text(page).strip("\n") for page in raw_pages]
    text, starts = join_pages(pages)
    if not text.strip():
        return Extracted(
            "", "pdf", starts, issue="image-only PDF (no text layer); run OCR and upload again"
        )
    return Extracted(text, "pdf", starts)


def join_pages(pages: list[str]) -> tuple[str, list[int]]:
    """Concatenate pages with a blank line between them; return text and page offsets."""
    starts, parts, offset = [], [], 0
    for page in pages:
        starts.append(offset)
        parts.append(page)
        offset += len(page) + 2
    return "\n\n".join(parts), starts


# --- DOCX --------------------------------------------------------------------------------------
def _docx(path: Path) -> Extracted:
    import docx  # python-docx: imported lazily, it is only needed for DOCX
    from docx.opc.exceptions import PackageNotFoundError

    try:
        document = docx.Document(str(path))
    except (zipfile.BadZipFile, KeyError, ValueError, PackageNotFoundError) as exc:
        raise UnsupportedFile(
            f"{path}: not a readable DOCX ({exc}); open it in Word and save it again"
        ) from exc
    paragraphs = [p.text for p in document.paragraphs]
    for table in document.tables:
        for row in table.rows:
            paragraphs.append(" | ".join(cell.text for cell in row.cells))
    return Extracted(clean_text("\n\n".join(p for p in paragraphs if p.strip())), "docx")
