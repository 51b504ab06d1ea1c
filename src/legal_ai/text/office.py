"""Word 97 `.doc`, `.rtf` and `.odt` through LibreOffice: an optional system
dependency (`scripts/install-system --office`: libreoffice-writer-nogui, the `soffice` command).

The file is copied into a private temporary folder under a fixed name (so no name is read as an
option), LibreOffice converts it there to DOCX headless, with a profile folder of its own
(`-env:UserInstallation`: no shared profile, no lock another conversion holds), in a process
group of its own that is killed whole at `Limits.office_seconds`; the DOCX is then read by the
DOCX reader (notes, tracked changes, tables as a Word final's) and the folder removed. Before
LibreOffice sees it, the file must be what its extension says (a `.doc` that is HTML is refused,
not rendered), an `.rtf` that embeds an object is refused, and so is a document protected by a
password (`check_unlocked`, for a `.docx` too): its content is encrypted, and LibreOffice would
only fail on it later, less plainly.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import signal
import subprocess
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import olefile

from ..errors import UnsupportedFile
from .bounds import LIMITS, Limits

SUFFIXES = (".doc", ".rtf", ".odt")
ENABLE = (
    "install LibreOffice to read it (scripts/install-system --office; Debian: apt-get install "
    "libreoffice-writer-nogui) or save it as .docx"
)
OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # the compound file a Word 97 .doc is
_ODT = b"application/vnd.oasis.opendocument.text"
_NAMES = {".doc": "Word 97 document", ".rtf": "RTF document", ".odt": "OpenDocument text"}
# The import filter named, so that LibreOffice never falls back to another (a damaged .doc read
# as plain text): it refuses what its filter cannot load.
_FILTERS = {".doc": "MS Word 97", ".rtf": "Rich Text Format", ".odt": "writer8"}
# A Word 97 file's FIB (the WordDocument stream's start): its flags at 10-11, fEncrypted 0x0100
_FIB_FLAGS, _F_ENCRYPTED = slice(10, 12), 0x0100
_LOCKED = (
    "is protected by a password (its content is encrypted); open it in Word, remove the "
    "password (File > Info > Protect Document) and save it as .docx"
)
# RTF control words that embed an object (OLE, a linked file) or its data.
_RTF_OBJECTS = (b"\\object", b"\\objdata", b"\\objemb", b"\\objlink", b"\\objautlink")


def soffice() -> str | None:
    """The LibreOffice command, None where it is not installed."""
    return shutil.which("soffice") or shutil.which("libreoffice")


def problem() -> str | None:
    """What keeps the old formats from being read here (doctor): None when LibreOffice is in."""
    return None if soffice() else f".doc, .rtf and .odt are refused: {ENABLE}"


def check_kind(path: Path, data: bytes) -> None:
    """Refuse a file that is not what its extension says, or an RTF that embeds an object."""
    suffix = path.suffix.lower()
    name = _NAMES[suffix]
    if suffix == ".doc":
        ok = data.startswith(OLE2)
    elif suffix == ".rtf":
        ok = data.lstrip(b"\xef\xbb\xbf \r\n\t").startswith(b"{\\rtf")
    else:
        ok = _is_odt(path)
    if not ok:
        head = data[:512].lstrip().lower()
        what = (
            "HTML" if head.startswith((b"<!doctype html", b"<html")) or b"<html" in head else None
        )
        said = f"it is {what}, not a {name}" if what else f"not a {name} (its content is not one)"
        raise UnsupportedFile(
            f"{path}: {said}; open it in Word and save it as .docx",
            code="file.html_as_word" if what else "file.office_mismatch",
            field="file",
        )
    if suffix == ".rtf" and any(word in data for word in _RTF_OBJECTS):
        raise UnsupportedFile(
            f"{path}: the RTF embeds an object (\\object), which is not read; "
            "delete the object, or save the document as .docx",
            code="file.rtf_object",
            field="file",
        )


def check_unlocked(path: Path, data: bytes) -> None:
    """Refuse a Word or OpenDocument file protected by a password, in one line."""
    if _encrypted(data):
        raise UnsupportedFile(f"{path}: the document {_LOCKED}", code="file.password", field="file")


def _encrypted(data: bytes) -> bool:
    """Whether the file's content is encrypted: a compound file holding an encrypted Word 2007+
    package (`EncryptedPackage`, whatever its extension says) or a Word 97 document whose FIB
    says fEncrypted; an OpenDocument zip whose manifest carries encryption data."""
    if data.startswith(OLE2):
        try:
            with olefile.OleFileIO(data) as ole:
                if ole.exists("EncryptedPackage"):
                    return True
                if not ole.exists("WordDocument"):
                    return False
                fib = ole.openstream("WordDocument").read(12)
        except (OSError, ValueError, IndexError, TypeError):  # not a compound file we can read
            return False
        return len(fib) == 12 and bool(int.from_bytes(fib[_FIB_FLAGS], "little") & _F_ENCRYPTED)
    if data.startswith(b"PK"):
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                if "META-INF/manifest.xml" not in archive.namelist():
                    return False
                manifest = archive.read("META-INF/manifest.xml")
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, RuntimeError):
            return False
        return b"encryption-data" in manifest
    return False


def _is_odt(path: Path) -> bool:
    try:
        with zipfile.ZipFile(path) as archive:
            return archive.read("mimetype").strip() == _ODT
    except (zipfile.BadZipFile, KeyError, OSError, ValueError, EOFError, RuntimeError):
        return False


def run(command: list[str], seconds: float) -> tuple[int, str]:
    """`command` in a process group of its own, killed whole (SIGKILL) when it runs past
    `seconds` (subprocess.TimeoutExpired). Returns its exit status and its output's tail."""
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        process_group=0,
    )
    try:
        out, _ = process.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # what it left behind (a soffice.bin)
    return process.returncode, out.decode("utf-8", "replace")[-400:]


def convert(
    source: Path, target: str, folder: Path, seconds: float, infilter: str | None = None
) -> Path:
    """`source` converted by LibreOffice to `target` (an extension: docx, doc, rtf, odt, pdf,
    or `ext:Filter`) in `folder`, with a profile folder of its own there, read by the import
    filter `infilter` when given (else LibreOffice's guess). Raises
    subprocess.TimeoutExpired past `seconds`, UnsupportedFile where nothing was written."""
    command = soffice()
    if command is None:
        raise UnsupportedFile(f"{source.name}: {ENABLE}", code="file.office_missing", field="file")
    profile = (folder / "profile").absolute().as_uri()
    out = folder / "out"
    out.mkdir(exist_ok=True)
    status, said = run(
        [
            command,
            "--headless",
            "--norestore",
            "--nolockcheck",
            f"-env:UserInstallation={profile}",
            *([f"--infilter={infilter}"] if infilter else []),
            "--convert-to",
            target,
            "--outdir",
            str(out.absolute()),
            str(source.absolute()),
        ],
        seconds,
    )
    written = out / f"{source.stem}.{target.split(':')[0]}"
    if status != 0 or not written.is_file() or written.stat().st_size == 0:
        raise UnsupportedFile(f"{source.name}: LibreOffice wrote nothing (status {status})")
    return written


@contextlib.contextmanager
def as_docx(path: Path, limits: Limits = LIMITS) -> Iterator[Path]:
    """`path` (.doc, .rtf, .odt) converted to a DOCX in a private temporary folder, removed after
    the block. One line refuses what is not the format, an RTF with an object, a file LibreOffice
    cannot open (damaged, password-protected) and a conversion past `limits.office_seconds`."""
    suffix = path.suffix.lower()
    if soffice() is None:
        raise UnsupportedFile(
            f"{path}: a {_NAMES[suffix]} ({suffix}) is read through LibreOffice; {ENABLE}",
            code="file.office_missing",
            field="file",
        )
    data = path.read_bytes()
    check_kind(path, data)
    check_unlocked(path, data)
    with tempfile.TemporaryDirectory(prefix="legal-ai-office-") as tmp:
        folder = Path(tmp)
        source = folder / f"document{suffix}"
        shutil.copyfile(path, source)
        try:
            docx = convert(source, "docx", folder, limits.office_seconds, _FILTERS[suffix])
        except subprocess.TimeoutExpired:
            raise UnsupportedFile(
                f"{path}: converting the {_NAMES[suffix]} took over "
                f"{limits.office_seconds:g} s and was stopped; save it as .docx",
                code="file.office_time",
                field="file",
            ) from None
        except UnsupportedFile:
            raise UnsupportedFile(
                f"{path}: LibreOffice could not open the {_NAMES[suffix]} (damaged, or "
                "password-protected); open it in Word, remove any password and save it as .docx",
                code="file.office_unreadable",
                field="file",
            ) from None
        yield docx
