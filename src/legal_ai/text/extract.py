"""Files -> text with pages: PDF (poppler's pdftotext, logical Hebrew order), DOCX, TXT/MD.

Every failure is an `UnsupportedFile` naming the file and what to do about it, never a raw
exception. Size is checked before anything is read, and what a file can expand into is bounded
too (`Limits`, text/bounds.py: a list's start, runs, cells, notes, objects, pages, characters):
pdftotext runs under a time limit with its output capped, and a DOCX's declared
uncompressed size and compression ratio are checked before python-docx opens it (a zip bomb
is refused without being inflated).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import resource
import selectors
import shutil
import subprocess
import time
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import OverBound, UnsupportedFile
from . import office, pdf_layout, pdf_words
from .bounds import LIMITS, Limits, check_characters, check_pages
from .docx_reader import Unreadable, read_docx
from .hebrew import clean_text
from .notes import Note

TEXT_SUFFIXES = {".txt", ".md"}
SUPPORTED = (".pdf", ".docx", ".doc", ".rtf", ".odt", ".txt", ".md", ".jsonl", ".xml")

# Hebrew letters must make up at least this share of the letters of a legacy-encoded file.
_MIN_HEBREW_SHARE = 0.3


def _size(n: float) -> str:
    return f"{n / 2**20:.0f} MB" if n >= 2**20 else f"{n:,.0f} bytes"


@dataclass(frozen=True)
class Extracted:
    """A file's text. `page_starts` holds each page's offset in `text` (None: no pages).

    A DOCX's reading (text/docx_reader.py) adds its footnotes and endnotes (`notes`: each one's
    span in `text`, after the body, and its anchor in the body; text/notes.py), where the body
    ends (`body_end`), the tracked changes accepted in reading (`tracked_changes`: inserted,
    deleted, moved) and what the reading says (`reading`: changes accepted, comments left out,
    notes that could not be read), which the upload reports carry as notes."""

    text: str
    source_format: str
    page_starts: list[int] | None = None
    issue: str | None = None  # why there is no text (the item is stored, never searchable)
    notes: tuple[Note, ...] = ()
    body_end: int | None = None  # None: the text is all body
    tracked_changes: dict[str, int] | None = None
    reading: tuple[str, ...] = ()
    hidden_text: dict[str, int] | None = None  # runs of hidden text left out: direct, style
    comments: tuple[str, ...] = ()  # a DOCX's comments' texts (not in `text`)

    def reading_metadata(self) -> dict:
        """What the reading found, kept in the item's metadata: the notes' places
        (`note_spans`, `body_end`), the tracked changes accepted and the reading's notes."""
        found: dict = {}
        if self.notes:
            found["note_spans"] = [note.as_dict() for note in self.notes]
            found["body_end"] = self.body_end
        if self.tracked_changes:
            found["tracked_changes_accepted"] = dict(self.tracked_changes)
        if self.hidden_text:
            found["hidden_text_left_out"] = dict(self.hidden_text)
        if self.reading:
            found["reading"] = list(self.reading)
        return found


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
        raise UnsupportedFile(
            f"{path}: the file is empty; export the document again", code="file.empty", field="file"
        )
    if size > max_bytes:
        raise UnsupportedFile(
            f"{path}: {size / 2**20:.0f} MB is over the {max_bytes / 2**20:.0f} MB limit; "
            "split the file or raise LEGAL_AI_MAX_FILE_MB",
            code="file.too_large",
            field="file",
        )
    return size


def extract(path: Path, limits: Limits = LIMITS) -> Extracted:
    """Extract a single-document file (PDF, DOCX, TXT, MD), in this process (text/isolated.py
    reads an upload in a child process of its own). A file that asks for more than `limits`
    is refused (OverBound, naming the file and the bound)."""
    try:
        extracted = _extract(path, limits)
        check_characters(extracted.text, limits)
    except OverBound as exc:
        raise OverBound(f"{path}: {exc}", exc.what) from None
    return extracted


def _extract(path: Path, limits: Limits) -> Extracted:
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        return _pdf(path, limits)
    if suffix == ".docx":
        return _docx(path, limits)
    if suffix in office.SUFFIXES:
        return _office(path, limits)
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
        f"{path}: not UTF-8 and not Hebrew windows-1255 text; save it as UTF-8 and try again",
        code="file.encoding",
        field="file",
    )


def _hebrew_share(text: str) -> float:
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return 0.0
    return sum("\u05d0" <= ch <= "\u05ea" for ch in letters) / len(letters)


# --- PDF ---------------------------------------------------------------------------------------
# The issue of a PDF with no text layer (a scan). Ingest queues it for OCR (ingest/ocr_jobs.py);
# a final's upload, which needs its text at once, refuses it with this message.
IMAGE_ONLY = "image-only PDF (no text layer); run OCR and upload again"


class _Overflow(Exception):
    """A bounded command's output went over its cap."""


def run_bounded(
    command: list[str],
    seconds: float,
    max_bytes: int,
    memory_bytes: int | None = None,
    env: dict[str, str] | None = None,
) -> tuple[int, bytes, bytes]:
    """Run `command` with a wall-clock limit and its standard output capped at `max_bytes`
    (killed when either is exceeded: `subprocess.TimeoutExpired` / `_Overflow`), its address
    space limited to `memory_bytes` (an allocation past it fails in the child, which exits with
    an error), with `env` as its environment when given. Both pipes are drained together so a
    chatty stderr cannot block the child; only stderr's tail is kept."""
    process = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    stdout, stderr = process.stdout, process.stderr
    if stdout is None or stderr is None:  # both are pipes (PIPE above): never
        raise ValueError("the child's output was not piped")
    if memory_bytes:
        # prlimit on the child's pid, not a preexec_fn (unsafe with the staging thread running).
        with contextlib.suppress(OSError):  # it may already have exited
            resource.prlimit(process.pid, resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    out, err = bytearray(), bytearray()
    deadline = time.monotonic() + seconds
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(stdout, selectors.EVENT_READ, out)
            selector.register(stderr, selectors.EVENT_READ, err)
            while selector.get_map():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise subprocess.TimeoutExpired(command, seconds)
                for key, _ in selector.select(left):
                    data = os.read(key.fd, 1 << 16)
                    if not data:
                        selector.unregister(key.fileobj)
                    elif key.data is err:
                        err[:] = (err + data)[-4096:]
                    else:
                        out += data
                        if len(out) > max_bytes:
                            raise _Overflow
        returncode = process.wait(timeout=max(deadline - time.monotonic(), 0.01))
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        stdout.close()
        stderr.close()
    return returncode, bytes(out), bytes(err)


def _pdf(path: Path, limits: Limits = LIMITS) -> Extracted:
    if shutil.which("pdftotext") is None:
        raise UnsupportedFile(
            f"{path}: reading PDF needs poppler's pdftotext; run `make install` "
            "(or apt-get install poppler-utils)"
        )
    # An absolute path: a file named "-x.pdf" must not be read as an option.
    command = ["pdftotext", "-bbox-layout", "-enc", "UTF-8", str(path.absolute()), "-"]
    try:
        returncode, stdout, stderr = run_bounded(
            command, limits.pdf_seconds, limits.text_bytes, limits.pdf_memory_bytes
        )
    except subprocess.TimeoutExpired:
        raise UnsupportedFile(
            f"{path}: reading the PDF's text took over {limits.pdf_seconds:g} s and was stopped; "
            "split the file or export it again (print to PDF)",
            code="file.read_time",
            field="file",
        ) from None
    except _Overflow:
        raise UnsupportedFile(
            f"{path}: the PDF's text is over {_size(limits.text_bytes)} and was not read; "
            "split the file",
            code="file.too_long",
            field="file",
        ) from None
    if returncode != 0:
        detail = stderr.decode("utf-8", "replace").strip().splitlines()
        reason = clean_text(detail[-1])[:200] if detail else "pdftotext failed"
        raise UnsupportedFile(
            f"{path}: not a readable PDF ({reason}); "
            "the file is corrupt or truncated, export it again",
            code="file.unreadable",
            field="file",
        )
    # Each line from its word boxes, joined by the geometry and in logical order (pdf_words).
    raw_pages = pdf_words.pages(stdout.decode("utf-8", "replace"))
    check_pages(len(raw_pages), limits)
    pages = [clean_text(page).strip("\n") for page in raw_pages]
    layout = pdf_layout.tidy(pages)  # page furniture out, paragraphs joined
    text, starts = join_pages(layout.pages, layout.continued)
    if not text.strip():
        return Extracted("", "pdf", starts, issue=IMAGE_ONLY)
    return Extracted(text, "pdf", starts)


def join_pages(pages: list[str], continued: list[bool] | None = None) -> tuple[str, list[int]]:
    """Concatenate pages with a blank line between them — a space where a page continues the
    previous page's last paragraph (`continued[i]`, pdf_layout) — and return the text and each
    page's offset in it."""
    parts: list[str] = []
    starts: list[int] = []
    offset = 0
    for index, page in enumerate(pages):
        if index:
            parts.append(" " if continued and continued[index] else "\n\n")
            offset += len(parts[-1])
        starts.append(offset)
        parts.append(page)
        offset += len(page)
    return "".join(parts), starts


# --- DOCX --------------------------------------------------------------------------------------
def check_docx_archive(path: Path, limits: Limits = LIMITS) -> None:
    """Refuse a DOCX whose zip directory declares more than it may unpack to, before anything
    is inflated. zipfile never inflates a member past its declared size, so the declared sizes
    bound what python-docx can read."""
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError):
        raise UnsupportedFile(
            f"{path}: not a readable DOCX (not a zip archive, or a damaged one); "
            "open it in Word and save it again",
            code="file.unreadable",
            field="file",
        ) from None
    if len(members) > limits.docx_members:
        raise UnsupportedFile(
            f"{path}: the DOCX holds {len(members)} parts (over {limits.docx_members}); "
            "it is not a document we can read, save it again from Word",
            code="file.unreadable",
            field="file",
        )
    total = sum(member.file_size for member in members)
    if total > limits.docx_bytes:
        raise UnsupportedFile(
            f"{path}: the DOCX unpacks to {_size(total)}, over the {_size(limits.docx_bytes)} "
            "limit; split the document or remove its images",
            code="file.too_large",
            field="file",
        )
    for member in members:
        ratio = member.file_size / max(member.compress_size, 1)
        if member.file_size > 2**20 and ratio > limits.docx_ratio:
            raise UnsupportedFile(
                f"{path}: a part of the DOCX expands {ratio:.0f} times (over "
                f"{limits.docx_ratio}); this looks like a zip bomb, not a document",
                code="file.unreadable",
                field="file",
            )


def _office(path: Path, limits: Limits = LIMITS) -> Extracted:
    """A .doc, .rtf or .odt: LibreOffice's DOCX of it (text/office.py) read as a DOCX, the
    messages naming the file itself."""
    with office.as_docx(path, limits) as converted:
        try:
            read = _docx(converted, limits)
        except UnsupportedFile as exc:
            raise UnsupportedFile(str(exc).replace(str(converted), str(path))) from None
    return replace(read, source_format=path.suffix.lower()[1:])


def _docx(path: Path, limits: Limits = LIMITS) -> Extracted:
    with path.open("rb") as file:
        compound = file.read(8) == office.OLE2  # a password-protected DOCX is not a zip
    if compound:
        office.check_unlocked(path, path.read_bytes())
    check_docx_archive(path, limits)
    try:
        read = read_docx(path, limits)
    except OverBound:
        raise
    except MemoryError:
        raise
    except Exception as exc:  # any failure of the reader on this file
        # A damaged package raises many types (KeyError for a missing part, lxml's
        # XMLSyntaxError, BadZipFile, RuntimeError on an encrypted member, ...): all mean the
        # same to the caller. Unreadable says itself what is wrong.
        reason = str(exc) if isinstance(exc, Unreadable) else type(exc).__name__
        raise UnsupportedFile(
            f"{path}: not a readable DOCX ({reason}); open it in Word and save it again",
            code="file.unreadable",
            field="file",
        ) from None
    return Extracted(
        read.text,
        "docx",
        notes=read.notes,
        body_end=read.body_end,
        tracked_changes=read.changes or None,
        reading=read.messages,
        hidden_text=read.hidden or None,
        comments=read.comments,
    )
