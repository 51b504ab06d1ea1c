"""Scanned PDFs -> text with pages, by OCR: pages rendered with poppler (`pdftoppm`), read by
Tesseract with its Hebrew model (Debian's tesseract-ocr and tesseract-ocr-heb, installed by
`make install`).

A scan of more pages than LEGAL_AI_MAX_PAGES is refused, and a page that would render to more
than LEGAL_AI_OCR_MAX_PAGE_MEGAPIXELS is left empty and flagged before it is rendered
(text/bounds.py). Every page is two processes of its own (render, then read), each under the same kind of limits
as pdftotext (`extract.run_bounded`: wall-clock seconds LEGAL_AI_OCR_PAGE_SECONDS, output capped,
address space capped), so one bad page is left empty and flagged instead of stopping the file.
Tesseract runs with one thread (OMP_THREAD_LIMIT=1): the pages of a file are read one after
another, in the background, and the machine's cores stay free for searches.

Tesseract writes Hebrew in logical order (the order it is typed), words of a line right to left
in its TSV; numbers and Latin words inside a Hebrew line come as words of their own, in their
place. Each page's text passes through `clean_text` (no bidi controls, NUL or zero-width
characters), like every stored text. A page's confidence is the mean of Tesseract's word
confidences (0-100) over the words it read; a page with no word has none (None). A
two-column page is read right column first, and the running header and footer are taken out of
the pages' text like a text PDF's (text/ocr_layout.py).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

from ..config import Settings
from ..errors import OverBound, UnsupportedFile
from . import ocr_layout
from . import ocr_numbers as numbers
from .bounds import Limits, check_pages
from .extract import _Overflow, join_pages, run_bounded
from .hebrew import clean_text

MEMORY_BYTES = 2 * 2**30  # each page's renderer and reader: address space (RLIMIT_AS)
TSV_BYTES = 16 * 2**20  # one page's TSV from Tesseract
INFO_SECONDS = 60.0  # pdfinfo counting the pages (it reads the page tree, not the pages)
INSTALL = "apt-get install tesseract-ocr tesseract-ocr-heb (or `make install`)"
# A page scanned below this resolution is flagged low-confidence whatever Tesseract's confidence
# says: at 100 dpi it still reads ~92 (docs/benchmarks.md), yet digits are a few pixels high.
MIN_SCAN_PPI = 150


@dataclass(frozen=True)
class Page:
    """One page as read: its text, mean word confidence (None: no word read), words read, why
    it could not be read (None: it was), and the numbers read with low confidence."""

    page: int
    text: str
    confidence: float | None
    words: int
    error: str | None = None
    # number tokens read with low confidence: [{"text", "start", "end", "confidence"}], spans in
    # the page's text (text/ocr_numbers.py)
    low_confidence_numbers: list[dict] = field(default_factory=list)
    # the resolution the page was scanned at (its largest picture's pixels per inch; None: no
    # picture, or poppler's pdfimages could not say) and why the page is doubtful whatever its
    # confidence (a scan below MIN_SCAN_PPI)
    scan_ppi: float | None = None
    warning: str | None = None

    def as_dict(self) -> dict:
        return {
            "page": self.page,
            "confidence": self.confidence,
            "words": self.words,
            "error": self.error,
            "low_confidence_numbers": self.low_confidence_numbers,
            "scan_ppi": self.scan_ppi,
            "warning": self.warning,
        }


@dataclass(frozen=True)
class Result:
    engine: str
    pages: list[Page] = field(default_factory=list)

    @property
    def text_and_starts(self) -> tuple[str, list[int]]:
        return join_pages([p.text for p in self.pages])

    @property
    def confidence(self) -> float | None:
        """Mean word confidence over the file (each page weighted by its words)."""
        words = sum(p.words for p in self.pages if p.confidence is not None)
        if not words:
            return None
        total = sum(p.confidence * p.words for p in self.pages if p.confidence is not None)
        return round(total / words, 1)


def _binary(settings: Settings) -> str | None:
    return shutil.which(settings.tesseract)


@lru_cache(maxsize=8)
def _probe(binary: str) -> tuple[str, frozenset[str]]:
    """(version line, installed languages) of a Tesseract binary."""
    version = subprocess.run(
        [binary, "--version"], capture_output=True, text=True, timeout=30, check=False
    )
    first = (version.stdout or version.stderr).strip().splitlines()
    langs = subprocess.run(
        [binary, "--list-langs"], capture_output=True, text=True, timeout=30, check=False
    )
    lines = (langs.stdout + "\n" + langs.stderr).splitlines()
    installed = frozenset(
        line.strip() for line in lines if line.strip() and not line.startswith("List of")
    )
    return (first[0].strip() if first else "tesseract"), installed


def problem(settings: Settings) -> str | None:
    """What to install or set before scanned files can be read (None: nothing)."""
    binary = _binary(settings)
    if binary is None:
        return (
            f"OCR needs Tesseract: {settings.tesseract!r} (LEGAL_AI_TESSERACT) was not found; "
            f"{INSTALL}"
        )
    for tool in ("pdftoppm", "pdfinfo"):
        if shutil.which(tool) is None:
            return f"OCR renders pages with poppler's {tool}: apt-get install poppler-utils"
    try:
        _, installed = _probe(binary)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"OCR: {binary} does not run ({type(exc).__name__}); {INSTALL}"
    absent = [lang for lang in settings.ocr_languages.split("+") if lang not in installed]
    if absent:
        packages = " ".join(f"tesseract-ocr-{lang}" for lang in absent)
        return (
            f"OCR: Tesseract's model for {'+'.join(absent)} is not installed "
            f"(LEGAL_AI_OCR_LANGUAGES={settings.ocr_languages}); apt-get install {packages}"
        )
    return None


def engine(settings: Settings) -> str:
    """e.g. `tesseract 5.3.0 (heb)`: what read a file, kept with its text."""
    binary = _binary(settings)
    version = _probe(binary)[0] if binary else "tesseract"
    return f"{version} ({settings.ocr_languages})"


def _pdfinfo(pdf: Path, *options: str) -> bytes:
    try:
        code, out, _ = run_bounded(
            ["pdfinfo", *options, str(pdf.absolute())], INFO_SECONDS, 4 * 2**20, MEMORY_BYTES
        )
    except (subprocess.TimeoutExpired, _Overflow):
        code, out = 1, b""
    if code != 0:
        raise UnsupportedFile(f"{pdf.name}: poppler cannot count the scan's pages (a damaged PDF)")
    return out


def page_count(pdf: Path, settings: Settings) -> int:
    """The PDF's number of pages (poppler's pdfinfo), refused past LEGAL_AI_MAX_PAGES."""
    found = re.search(rb"^Pages:\s+(\d+)", _pdfinfo(pdf), re.MULTILINE)
    if not found:
        raise UnsupportedFile(f"{pdf.name}: poppler cannot count the scan's pages (a damaged PDF)")
    pages = int(found.group(1))
    try:
        check_pages(pages, Limits.of(settings))
    except OverBound as exc:
        raise OverBound(f"{pdf.name}: {exc}", exc.what) from None
    return pages


def page_sizes(pdf: Path, pages: int) -> dict[int, tuple[float, float]]:
    """{page: (width, height) in points} as pdfinfo reads each page's box."""
    out = _pdfinfo(pdf, "-f", "1", "-l", str(pages))
    sizes = re.finditer(rb"^Page\s+(\d+)\s+size:\s+([\d.]+) x ([\d.]+) pts", out, re.MULTILINE)
    return {int(m.group(1)): (float(m.group(2)), float(m.group(3))) for m in sizes}


def too_many_pixels(size: tuple[float, float] | None, settings: Settings) -> str | None:
    """Why a page of `size` (points) is not rendered at LEGAL_AI_OCR_DPI (None: it is)."""
    if size is None:
        return None
    scale = settings.ocr_dpi / 72
    pixels = size[0] * scale * size[1] * scale
    bound = Limits.of(settings).page_pixels
    if pixels <= bound:
        return None
    return (
        f"the page asks for {pixels / 1e6:,.0f} million pixels at {settings.ocr_dpi} dpi (over "
        f"{bound / 1e6:,.0f}) and was not rendered (LEGAL_AI_OCR_MAX_PAGE_MEGAPIXELS)"
    )


def parse_tsv(tsv: str) -> tuple[str, float | None, int]:
    """Tesseract's TSV -> (text, mean word confidence, words). Lines of a paragraph are joined
    by a newline, paragraphs by a blank line; each line's words in Tesseract's order (logical)."""
    words = numbers.parse_words(tsv)
    return numbers.join_words(words)[0], numbers.mean_confidence(words), len(words)


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env["OMP_THREAD_LIMIT"] = "1"
    return env


def _tesseract(settings: Settings, image: str, languages: str, *options: str) -> list[str]:
    binary = _binary(settings) or settings.tesseract
    return [binary, image, "stdout", "-l", languages, *options, "tsv"]


def _pgm(path: Path):
    """A binary PGM (what `pdftoppm -gray` writes) as a 2-D array of grey levels."""
    import numpy as np

    data = path.read_bytes()
    head = re.match(rb"P5\s+(\d+)\s+(\d+)\s+(\d+)\s", data)
    if head is None or int(head.group(3)) > 255:
        raise ValueError("not an 8-bit binary PGM")
    width, height = int(head.group(1)), int(head.group(2))
    return np.frombuffer(data, np.uint8, width * height, head.end()).reshape(height, width)


def _number_words(
    image: Path, words: list[numbers.Word], settings: Settings, workdir: Path
) -> list[numbers.Word]:
    """The words holding digits read again by the number model (text/ocr_numbers.py), the
    pieces of a number the Hebrew model split joined first; each cut out of the page's picture
    twice — as scanned and binarized (`_binarized`), its box widened over the ink beside it
    (`_inked`) — a joined word's pieces once more each on its own
    (`numbers.kept_apart`), and all read in one Tesseract process. The words as they were when
    that model is not installed or the reading fails."""
    binary = _binary(settings)
    if binary is None or numbers.NUMBER_MODEL not in _probe(binary)[1]:
        return words
    joined = numbers.joined(words)
    chosen = numbers.candidates(joined)
    if not chosen:
        return words
    picture = _pgm(image)
    names: list[str] = []
    pad = numbers.PAD

    def crop(box: tuple[int, int, int, int], variants: tuple[str, ...]) -> list[int]:
        left, top, width, height = box
        pixels = picture[
            max(0, top - pad) : top + height + pad, max(0, left - pad) : left + width + pad
        ]
        at = []
        for variant in variants:
            shown = _binarized(pixels) if variant == "binary" else pixels
            name = workdir / f"number-{len(names)}.pgm"
            header = b"P5\n%d %d\n255\n" % (shown.shape[1], shown.shape[0])
            name.write_bytes(header + shown.tobytes())
            at.append(len(names))
            names.append(str(name))
        return at

    # per candidate: its box (a lone word's widened) as scanned and binarized, then a joined
    # word's pieces
    boxes = {i: joined[i].box if joined[i].pieces else _inked(picture, joined, i) for i in chosen}
    pictures = [
        (
            crop(boxes[i], ("grey", "binary")),
            [crop(piece.box, ("grey",))[0] for piece in joined[i].pieces],
        )
        for i in chosen
    ]
    listing = workdir / "numbers.txt"
    listing.write_text("\n".join(names) + "\n", encoding="utf-8")
    command = _tesseract(
        settings,
        str(listing),
        numbers.NUMBER_MODEL,
        "--psm",
        "7",
        "-c",
        f"tessedit_char_whitelist={numbers.WHITELIST}",
    )
    try:
        code, out, _ = run_bounded(
            command, settings.ocr_page_seconds, TSV_BYTES, MEMORY_BYTES, env=_environment()
        )
    except (subprocess.TimeoutExpired, _Overflow):
        code = 1
    finally:
        for made in names:
            Path(made).unlink(missing_ok=True)
    if code != 0:
        return words
    pieces = numbers.parse_pieces(out.decode("utf-8", "replace"))
    read: dict[int, list[numbers.Word]] = {}
    for i, ((grey, binarized), apart) in zip(chosen, pictures, strict=True):
        whole, again = pieces.get(grey, []), pieces.get(binarized, [])
        if joined[i].pieces:
            read[i] = numbers.kept_apart(
                joined[i], whole, again, [pieces.get(a, []) for a in apart]
            )
        else:
            one = numbers.checked(joined[i], whole, again)
            read[i] = [numbers.widened_checked(joined[i], boxes[i], one)]
    return [w for i, word in enumerate(joined) for w in read.get(i, [word])]


def _inked(picture, words: list[numbers.Word], index: int) -> tuple[int, int, int, int]:
    """Word `index`'s box widened over the ink beside it on its band of the page, on a side where
    an empty stretch of its line stands (`numbers.open_sides`, `numbers.ink_reach`): a column is
    inked when three pixels of it at least are dark (a speck is not a glyph)."""
    left, top, width, height = words[index].box
    sides = numbers.open_sides(words, index)
    if not any(sides):
        return words[index].box
    dark = ((picture[max(0, top) : top + height] < 128).sum(axis=0) >= 3).tolist()
    start, end = numbers.ink_reach(dark, left, left + width, height, sides)
    return (start, top, end - start, height)


def _binarized(crop):
    """A word's crop in black and white at Otsu's threshold (the grey level that best splits its
    histogram in two): the second reading of a number, which must agree with the first."""
    import numpy as np

    if crop.size == 0 or crop.min() == crop.max():
        return crop
    counts = np.bincount(crop.ravel(), minlength=256).astype(float)
    levels = np.arange(256)
    weight = np.cumsum(counts)
    mass = np.cumsum(counts * levels)
    total, total_mass = weight[-1], mass[-1]
    background = total - weight
    with np.errstate(divide="ignore", invalid="ignore"):
        between = (total_mass * weight - total * mass) ** 2 / (weight * background)
    threshold = int(np.nanargmax(np.where(background > 0, between, np.nan)))
    return np.where(crop > threshold, 255, 0).astype(np.uint8)


def _render(pdf: Path, number: int, settings: Settings, image: Path) -> str | None:
    """Render page `number` into `image` (a grey PGM); why it could not be (None: it was)."""
    render = ["pdftoppm", "-r", str(settings.ocr_dpi), "-gray", "-f", str(number), "-l"]
    render += [str(number), "-singlefile", str(pdf.absolute()), str(image.with_suffix(""))]
    code, _, err = run_bounded(render, settings.ocr_page_seconds, 2**20, MEMORY_BYTES)
    if code == 0 and image.is_file():
        return None
    detail = err.decode("utf-8", "replace").strip().splitlines()
    return "poppler could not render the page" + (
        f" ({clean_text(detail[-1])[:120]})" if detail else ""
    )


def read_page(pdf: Path, number: int, settings: Settings, workdir: Path) -> Page:
    """Render page `number` of `pdf` and read it, its numbers read again; a page that cannot be
    read is empty, with why."""
    seconds = settings.ocr_page_seconds
    image = workdir / f"page-{number}.pgm"
    try:
        failed = _render(pdf, number, settings, image)
        if failed:
            return Page(number, "", None, 0, failed)
        read = _tesseract(settings, str(image), settings.ocr_languages, "--psm", "3")
        code, out, err = run_bounded(read, seconds, TSV_BYTES, MEMORY_BYTES, env=_environment())
        if code != 0:
            detail = err.decode("utf-8", "replace").strip().splitlines()
            reason = clean_text(detail[-1])[:120] if detail else f"exit status {code}"
            return Page(number, "", None, 0, f"Tesseract failed on the page ({reason})")
        words = numbers.parse_words(out.decode("utf-8", "replace"))
        words = ocr_layout.reading_order(_number_words(image, words, settings, workdir))
    except subprocess.TimeoutExpired:
        return Page(
            number,
            "",
            None,
            0,
            f"reading the page took over {seconds:g} s and was stopped (LEGAL_AI_OCR_PAGE_SECONDS)",
        )
    except _Overflow:
        return Page(number, "", None, 0, "the page's OCR output was over its limit")
    finally:
        image.unlink(missing_ok=True)
    text, offsets = numbers.join_words(words)
    low = numbers.low_confidence(words, offsets, settings.ocr_min_confidence)
    return Page(number, text, numbers.mean_confidence(words), len(words), None, low)


def read_pdf(
    pdf: Path, settings: Settings, keep_going: Callable[[int, int], bool] | None = None
) -> Result | None:
    """Read every page of `pdf`, one after another. `keep_going(page, pages)` is asked before
    each page (a worker renews its lease there); False stops the read (None is returned)."""
    pages = page_count(pdf, settings)
    sizes = page_sizes(pdf, pages)
    resolutions = scan_resolutions(pdf, settings)
    result = Result(engine(settings))
    with tempfile.TemporaryDirectory(prefix="legal-ai-ocr-") as tmp:
        for number in range(1, pages + 1):
            if keep_going is not None and not keep_going(number, pages):
                return None
            oversized = too_many_pixels(sizes.get(number), settings)
            if oversized:
                result.pages.append(Page(number, "", None, 0, oversized))
                continue
            page = read_page(pdf, number, settings, Path(tmp))
            ppi = resolutions.get(number)
            result.pages.append(replace(page, scan_ppi=ppi, warning=resolution_warning(ppi)))
    return replace(result, pages=without_furniture(result.pages))


def without_furniture(pages: list[Page]) -> list[Page]:
    """The pages without their running header and footer (text/ocr_layout.py)."""
    out = []
    cuts = ocr_layout.furniture([p.text for p in pages])
    for page, (top, bottom) in zip(pages, cuts, strict=True):
        text, low = ocr_layout.cut(page.text, page.low_confidence_numbers, top, bottom)
        out.append(replace(page, text=text, low_confidence_numbers=low))
    return out


def scan_resolutions(pdf: Path, settings: Settings) -> dict[int, float]:
    """{page: the resolution its largest picture was scanned at (pixels per inch, the lower of
    the two axes)}, from poppler's `pdfimages -list`; {} when it cannot say."""
    if shutil.which("pdfimages") is None:
        return {}
    command = ["pdfimages", "-list", str(pdf.absolute())]
    try:
        code, out, _ = run_bounded(command, INFO_SECONDS, 4 * 2**20, MEMORY_BYTES)
    except (subprocess.TimeoutExpired, _Overflow):
        return {}
    if code != 0:
        return {}
    largest: dict[int, tuple[int, float]] = {}  # page -> (pixels, ppi)
    for line in out.decode("utf-8", "replace").splitlines()[2:]:
        cells = line.split()
        if len(cells) < 14 or cells[2] != "image":
            continue
        try:
            page, pixels = int(cells[0]), int(cells[3]) * int(cells[4])
            ppi = float(min(int(cells[12]), int(cells[13])))
        except ValueError:
            continue
        if pixels > largest.get(page, (-1, 0.0))[0]:
            largest[page] = (pixels, ppi)
    return {page: ppi for page, (_, ppi) in largest.items()}


def resolution_warning(ppi: float | None) -> str | None:
    """Why a page scanned at `ppi` is doubtful (None: it is not, or the resolution is unknown)."""
    if ppi is None or round(ppi) >= MIN_SCAN_PPI:
        return None
    return f"scanned at about {round(ppi)} dpi: below {MIN_SCAN_PPI}; read again from a better scan"


def doubtful(page: dict, floor: float) -> str | None:
    """Why a page as kept with its scan (`Page.as_dict`) is low-confidence: not read, its mean
    word confidence below `floor`, or scanned below MIN_SCAN_PPI; None: it is not."""
    reasons = []
    if page.get("error"):
        reasons.append(page["error"])
    elif page.get("confidence") is None:
        reasons.append("no word was read")
    elif page["confidence"] < floor:
        reasons.append(f"mean word confidence {page['confidence']:g}: below {floor:g}")
    if page.get("warning"):
        reasons.append(page["warning"])
    return "; ".join(reasons) or None


def character_accuracy(reference: str, read: str) -> float:
    """1 - CER: one minus the character edit distance (Levenshtein: insertions, deletions and
    substitutions) between `read` and `reference`, over the reference's length; whitespace runs
    count as one space on both sides (line breaks are layout, not text). Floored at 0."""
    import numpy as np

    ref = " ".join(reference.split())
    got = " ".join(read.split())
    if not ref:
        return 1.0 if not got else 0.0
    a = np.frombuffer(ref.encode("utf-32-le"), dtype=np.uint32)
    b = np.frombuffer(got.encode("utf-32-le"), dtype=np.uint32)
    columns = np.arange(len(b) + 1)
    row = columns.copy()
    for char in a:
        # substitution or match from the previous row, deletion from above ...
        best = np.minimum(row[1:] + 1, row[:-1] + (b != char))
        row = np.concatenate(([row[0] + 1], best))
        # ... then insertions along the row: a running minimum of (cost - column) + column.
        row = np.minimum.accumulate(row - columns) + columns
    return max(0.0, 1.0 - float(row[-1]) / len(a))
