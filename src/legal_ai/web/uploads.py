"""Uploads at the HTTP edge: the multipart body is parsed as it streams in (python-multipart) and
the file part is written in chunks to a private folder under `HOME/uploads`, so memory stays
bounded whatever is sent. The file is capped while it is read (413 the moment it passes the
cap) by its kind's limit (`Caps`): our draft and her final are text, LEGAL_AI_MAX_DECISION_MB as
PDF, DOCX, DOC, RTF or ODT and LEGAL_AI_MAX_DECISION_TEXT_MB as TXT or MD; a ruling uploaded
for a missing precedent (maybe a long or scanned PDF, whose scan goes to the OCR queue)
LEGAL_AI_MAX_FILE_MB; only PDF, DOCX, DOC, RTF, ODT, TXT and MD are accepted, by extension,
declared content type and (PDF, DOCX) leading bytes (DOC, RTF, ODT: their content is checked
by text/office.py before LibreOffice converts them); the client's file name is reduced to a safe basename and never
used as a path.

Each request's folder (`HOME/uploads/up-<random>`) holds a lock file that the request keeps
`flock`ed: it is removed when the request ends, whatever happens, and a folder left by a killed
process (its lock is free again) is swept when the API next starts.
"""

from __future__ import annotations

import fcntl
import logging
import os
import secrets
import shutil
import time
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from python_multipart.exceptions import MultipartParseError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request

from ..config import Settings
from ..errors import AppError, InvalidInput, TooLarge, UnsupportedFile
from ..learning.methodology import file_limit
from ..learning.methodology import too_large as decision_too_large
from ..metrics import uploaded

if TYPE_CHECKING:  # the parser's own type of its callbacks (python_multipart types them only)
    from python_multipart.multipart import MultipartCallbacks

logger = logging.getLogger(__name__)
# The form fields an upload takes beside its file (the API's and the desk's forms alike).
DRAFT_FIELDS = frozenset({"appeal_type", "outcome", "practice_area"})
FINAL_FIELDS = frozenset(
    {
        "practice_area",
        "decided_on",
        "appeal_type",
        "outcome",
        "labels_from_draft",
        "accept_open_changes",
    }
)

# extension -> (kind shown to the user, content types a client may declare for it)
ACCEPTED: dict[str, tuple[str, frozenset[str]]] = {
    ".pdf": ("PDF", frozenset({"application/pdf", "application/x-pdf"})),
    ".docx": (
        "DOCX",
        frozenset({"application/vnd.openxmlformats-officedocument.wordprocessingml.document"}),
    ),
    ".txt": ("TXT", frozenset({"text/plain"})),
    ".md": ("MD", frozenset({"text/markdown", "text/x-markdown", "text/plain"})),
    # The old formats, read through LibreOffice (text/office.py; refused there, with what to
    # install, where it is absent, and when the content is not what the extension says).
    ".doc": ("DOC", frozenset({"application/msword"})),
    ".rtf": ("RTF", frozenset({"application/rtf", "text/rtf", "application/x-rtf"})),
    ".odt": ("ODT", frozenset({"application/vnd.oasis.opendocument.text"})),
}
# Types that say nothing about the content: the extension decides.
GENERIC_TYPES = frozenset({"", "application/octet-stream", "binary/octet-stream"})
ACCEPTED_TEXT = "PDF, DOCX, DOC, RTF, ODT, TXT or MD (.pdf, .docx, .doc, .rtf, .odt, .txt, .md)"

MAX_NAME_BYTES = 150  # the sanitized name, in UTF-8 (file systems allow 255)
MAX_FIELD_BYTES = 1024  # a form field's value
MAX_PARTS = 16
SNIFF_BYTES = 1024
LOCK_NAME = ".lock"
FOLDER_PREFIX = "up-"
STAGING_PREFIX = ".new-"
STALE_STAGING_S = 60  # a staging folder older than this was left by a killed process


@dataclass(frozen=True)
class Caps:
    """The largest file an upload route takes, by extension: {".pdf": (MB, setting), ...};
    `decision` True: a draft or final (said as such when refused)."""

    by_suffix: dict[str, tuple[int, str]]
    decision: bool = False

    @classmethod
    def decisions(cls, settings: Settings) -> Caps:
        caps = {s: file_limit(settings, s) for s in ACCEPTED}
        # A scanned PDF is kept for OCR (learning/pairs/scanned_decisions.py) within a ruling's limit;
        # a PDF with text over a decision's own limit is refused once read (read_decision).
        if ".pdf" in caps and settings.max_file_mb > caps[".pdf"][0]:
            caps[".pdf"] = (settings.max_file_mb, "LEGAL_AI_MAX_FILE_MB")
        return cls(caps, decision=True)

    @classmethod
    def files(cls, settings: Settings) -> Caps:
        return cls({s: (settings.max_file_mb, "LEGAL_AI_MAX_FILE_MB") for s in ACCEPTED})

    @property
    def largest(self) -> int:
        """The largest file of any kind, in bytes (the request body's bound, web/errors.Edge)."""
        return max(mb for mb, _ in self.by_suffix.values()) * 2**20

    def refuse(self, name: str, suffix: str) -> TooLarge:
        mb, setting = self.by_suffix[suffix]
        if self.decision:
            return decision_too_large(name, suffix, mb, setting)
        return TooLarge(
            f"{name}: over the {mb} MB upload limit; split the file (the operator sets the "
            f"limit: {setting})",
            limit_mb=mb,
        )


class UnsupportedMediaType(UnsupportedFile):
    """A file of a type the API does not accept (HTTP 415)."""

    code = "file.type"


def _refuse_type(what: str, code: str = "file.type") -> UnsupportedMediaType:
    return UnsupportedMediaType(f"{what}; send a {ACCEPTED_TEXT} file", code=code, field="file")


def safe_name(raw: str | None, content_type: str = "") -> str:
    """The client's file name reduced to a basename that is safe to write and to show: no
    directories (`/`, `\\`), no control, format (bidi marks, zero-width) or unassigned
    characters, no leading dots, at most MAX_NAME_BYTES, with an accepted extension (taken from
    the declared content type when the name has none). UnsupportedMediaType otherwise."""
    text = unicodedata.normalize("NFC", raw or "").replace("\\", "/").rsplit("/", 1)[-1]
    text = " ".join(text.split())  # newlines, tabs and runs of spaces -> one space
    text = "".join(ch for ch in text if not unicodedata.category(ch).startswith("C"))
    stem, dot, ext = text.rpartition(".")
    if not dot:
        stem, ext = text, ""
    suffix = f".{ext.lower()}" if ext else ""
    if suffix not in ACCEPTED:
        by_type = [s for s, (_, types) in ACCEPTED.items() if content_type in types]
        if suffix or not by_type:
            shown = f"{suffix!r}" if suffix else "no extension"
            raise _refuse_type(f"file type {shown} is not accepted")
        suffix = by_type[0]  # a name without extension, a specific type: e.g. application/pdf
        stem = text
    stem = stem.strip(" .")
    encoded = stem.encode("utf-8")[:MAX_NAME_BYTES]
    stem = encoded.decode("utf-8", errors="ignore").strip(" .") or "upload"
    return stem + suffix


@dataclass
class Upload:
    """A received upload: the saved file, its safe name (the only name ever shown), the form
    fields, and the number of bytes written."""

    path: Path
    name: str
    fields: dict[str, str] = field(default_factory=dict)
    size: int = 0


@contextmanager
def private_folder(root: Path) -> Iterator[Path]:
    """A fresh folder under `root`, locked for the life of the block and removed at its end.
    It is created under a staging name and renamed once its lock is held, so a sweep never
    sees a live folder unlocked."""
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    staging = root / f"{STAGING_PREFIX}{secrets.token_hex(8)}"
    staging.mkdir(mode=0o700)
    fd = os.open(staging / LOCK_NAME, os.O_CREAT | os.O_RDWR, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        folder = root / f"{FOLDER_PREFIX}{staging.name.removeprefix(STAGING_PREFIX)}"
        staging.rename(folder)
        try:
            yield folder
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    finally:
        os.close(fd)
        shutil.rmtree(staging, ignore_errors=True)  # only if the rename never happened


def sweep(root: Path) -> int:
    """Remove upload folders whose request is gone (their lock is free: the process died);
    return how many. Folders of live requests (in this process or another) are kept."""
    if not root.is_dir():
        return 0
    removed = 0
    for entry in root.iterdir():
        if entry.is_symlink() or not entry.is_dir():
            continue
        if entry.name.startswith(STAGING_PREFIX):
            if time.time() - entry.stat().st_mtime > STALE_STAGING_S:
                shutil.rmtree(entry, ignore_errors=True)
                removed += 1
            continue
        if not entry.name.startswith(FOLDER_PREFIX):
            continue  # not ours
        try:
            fd = os.open(entry / LOCK_NAME, os.O_RDWR)
        except FileNotFoundError:
            shutil.rmtree(entry, ignore_errors=True)  # half-removed by its request
            removed += 1
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            continue  # a live request holds it
        else:
            shutil.rmtree(entry, ignore_errors=True)
            removed += 1
        finally:
            os.close(fd)
    if removed:
        logger.info("removed %d upload folder(s) left by a stopped process", removed)
    return removed


class _Receiver:
    """python-multipart callbacks: the one `file` part to disk, form fields to memory, each
    within its bound; any breach raises at once, which stops reading the body."""

    def __init__(self, folder: Path, caps: Caps, fields: frozenset[str]) -> None:
        self.folder, self.caps, self.allowed = folder, caps, fields
        self.max_bytes = caps.largest  # the chosen file's kind's, once its name is known
        self.upload: Upload | None = None
        self.fields: dict[str, str] = {}
        self.parts = 0
        self.ended = False
        self._headers: dict[bytes, bytes] = {}
        self._name = b""
        self._value = b""
        self._field: str | None = None
        self._data = bytearray()
        self._file: IO[bytes] | None = None
        self._head = bytearray()
        self._nameless = False  # a file part without a file name (a form sent with no file)

    def callbacks(self) -> MultipartCallbacks:
        return {
            "on_part_begin": self.on_part_begin,
            "on_part_data": self.on_part_data,
            "on_part_end": self.on_part_end,
            "on_header_field": self.on_header_field,
            "on_header_value": self.on_header_value,
            "on_header_end": self.on_header_end,
            "on_headers_finished": self.on_headers_finished,
            "on_end": self.on_end,
        }

    def on_part_begin(self) -> None:
        self.parts += 1
        if self.parts > MAX_PARTS:
            raise InvalidInput(
                f"too many form parts (over {MAX_PARTS}); send one file", code="form.malformed"
            )
        self._headers, self._field, self._data = {}, None, bytearray()

    def on_header_field(self, data: bytes, start: int, end: int) -> None:
        self._name += data[start:end]

    def on_header_value(self, data: bytes, start: int, end: int) -> None:
        self._value += data[start:end]

    def on_header_end(self) -> None:
        self._headers[self._name.lower()] = self._value
        self._name, self._value = b"", b""

    def on_headers_finished(self) -> None:
        _, options = parse_options_header(self._headers.get(b"content-disposition"))
        name = options.get(b"name", b"").decode("utf-8", errors="replace")
        if name == "file":
            if self.upload is not None:
                raise InvalidInput(
                    "send exactly one part named 'file'", code="form.malformed", field="file"
                )
            ctype = parse_options_header(self._headers.get(b"content-type"))[0].decode("latin-1")
            raw = options.get(b"filename", b"").decode("utf-8", errors="replace")
            if not raw.strip() and ctype in GENERIC_TYPES:
                self._nameless = True  # a browser's form with no file chosen: no file, if empty
                return
            safe = safe_name(raw, ctype)
            kind, types = ACCEPTED[Path(safe).suffix]
            if ctype not in GENERIC_TYPES and ctype not in types:
                raise _refuse_type(f"{safe}: declared content type {ctype!r} is not {kind}")
            path = self.folder / safe
            self.max_bytes = self.caps.by_suffix[path.suffix][0] * 2**20
            self.upload = Upload(path=path, name=safe)
            self._file = path.open("xb")
        elif name in self.allowed:
            if name in self.fields:
                raise InvalidInput(f"form field {name!r} is given twice", code="form.malformed")
            self._field = name
        else:
            shown = name or "(no name)"
            raise InvalidInput(
                f"unknown form part {shown!r}; send 'file' and any of: {', '.join(sorted(self.allowed))}",
                code="form.malformed",
            )

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        chunk = data[start:end]
        if self._nameless and chunk:
            raise _refuse_type("file type no extension is not accepted")
        if self._file is not None and self.upload is not None:
            self.upload.size += len(chunk)
            if self.upload.size > self.max_bytes:
                raise self.caps.refuse(self.upload.name, self.upload.path.suffix)
            if len(self._head) < SNIFF_BYTES:
                self._head += chunk[: SNIFF_BYTES - len(self._head)]
            self._file.write(chunk)
        elif self._field is not None:
            self._data += chunk
            if len(self._data) > MAX_FIELD_BYTES:
                raise InvalidInput(
                    f"form field {self._field!r} is over {MAX_FIELD_BYTES} bytes",
                    code="form.field_too_long",
                )

    def on_part_end(self) -> None:
        self._nameless = False
        if self._file is not None and self.upload is not None:
            self._file.close()
            self._file = None
            self._sniff(self.upload)
        elif self._field is not None:
            try:
                value = self._data.decode("utf-8")
            except UnicodeDecodeError:
                raise InvalidInput(
                    f"form field {self._field!r} is not UTF-8", code="form.malformed"
                ) from None
            if "\x00" in value:
                raise InvalidInput(
                    f"form field {self._field!r} contains a NUL character", code="form.malformed"
                )
            self.fields[self._field] = value.strip()
            self._field = None

    def on_end(self) -> None:
        self.ended = True

    def _sniff(self, upload: Upload) -> None:
        head, suffix = bytes(self._head), upload.path.suffix
        if upload.size == 0:
            raise UnsupportedFile(
                f"{upload.name}: the file is empty; export the document again",
                code="file.empty",
                field="file",
            )
        if suffix == ".pdf" and b"%PDF-" not in head:
            raise _refuse_type(
                f"{upload.name}: not a PDF (it does not start with %PDF-)", code="file.mismatch"
            )
        if suffix == ".docx" and not head.startswith(b"PK\x03\x04"):
            raise _refuse_type(
                f"{upload.name}: not a DOCX (it is not a zip package)", code="file.mismatch"
            )

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


async def receive(request: Request, folder: Path, *, caps: Caps, fields: frozenset[str]) -> Upload:
    """Stream a multipart/form-data request into `folder`: one part `file` (at most its kind's
    cap) and the form `fields` named; anything else is refused as soon as it is seen."""
    ctype, params = parse_options_header(request.headers.get("content-type"))
    boundary = params.get(b"boundary")
    if ctype != b"multipart/form-data" or not boundary:
        raise InvalidInput(
            "send the upload as multipart/form-data with the file in a part 'file'",
            code="form.malformed",
        )
    receiver = _Receiver(folder, caps, fields)
    try:
        try:
            parser = MultipartParser(boundary, receiver.callbacks())
            async for chunk in request.stream():
                parser.write(chunk)  # callbacks write the file part in place (bounded chunks)
            parser.finalize()
        except MultipartParseError:
            raise InvalidInput(
                "malformed multipart/form-data body; send the file again", code="form.malformed"
            ) from None
        finally:
            receiver.close()
        if not receiver.ended:
            raise InvalidInput(
                "the multipart body ended early; send the file again", code="form.malformed"
            )
        if receiver.upload is None:
            raise InvalidInput(
                "no file: send the document in a form part named 'file'",
                code="file.missing",
                field="file",
            )
    except AppError as exc:
        exc.fields = dict(receiver.fields)  # what the form held, to show it again
        raise
    receiver.upload.fields = receiver.fields
    return receiver.upload


async def handled(
    request: Request,
    root: Path,
    *,
    fields: frozenset[str],
    caps: Caps,
    work: Callable[[Upload], Any],
) -> Any:
    """Stream the request's file into a private folder under `root`, run `work(received)` on it
    in a worker thread (extraction and embedding block), and remove the folder whatever
    happens. An AppError names the file's safe name only, never its temp path. Each upload is
    counted for /metrics by its kind (draft, final) and outcome (metrics.uploaded)."""
    kind = upload_kind(request.url.path)
    try:
        with private_folder(root) as folder:
            received = await receive(request, folder, fields=fields, caps=caps)
            try:
                answer = await run_in_threadpool(work, received)
            except AppError as exc:
                message = str(exc).replace(str(received.path), received.name)
                # The same kind with what it carries (a cap's name, a wait), its message bare.
                refused = type(exc).__new__(type(exc))
                refused.__dict__.update(exc.__dict__)
                refused.args = (message.replace(str(folder), ""),)
                refused.fields = dict(received.fields)  # the form as it was filled, to show again
                raise refused from None
    except Exception as exc:
        uploaded(kind, refusal_of(exc))
        raise
    uploaded(kind, "stored")
    return answer


def upload_kind(path: str) -> str:
    """What an upload route receives, from its path (the API's and the desk's alike)."""
    for kind in ("draft", "final"):
        if path.endswith(f"/{kind}/upload"):
            return kind
    return "other"


def refusal_of(exc: BaseException) -> str:
    """Why an upload was not stored, as /metrics counts it (metrics.UPLOAD_OUTCOMES)."""
    if isinstance(exc, TooLarge) or (isinstance(exc, HTTPException) and exc.status_code == 413):
        return "too_large"
    if isinstance(exc, UnsupportedFile):
        return "unsupported_type"
    if isinstance(exc, InvalidInput):
        return "invalid"
    return "refused" if isinstance(exc, AppError) else "error"
