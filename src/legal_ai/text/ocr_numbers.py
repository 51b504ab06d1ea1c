"""Numbers in scanned Hebrew pages: Tesseract's Hebrew model drops the leading
digits of numbers in right-to-left lines (`סעיף 198(ד)` read `סעיף 8(ד)`, paragraph `10.` read
`0.`), even on a clean 300-dpi page, while its word boxes hold the whole number. So every word
of the Hebrew reading that holds a digit is cut out of the page picture and read again by the
`eng` model as one line (`--psm 7`) with only digits and their punctuation allowed — all the
words of a page in one Tesseract process (a list of pictures). That reading is visual, left to
right: its pieces are put back in logical order (`(א)146` is `146(א)`, `.10` is `10.`) and its
digits replace the Hebrew reading's (a Hebrew prefix such as `ל-` stays the Hebrew reading's).
The measurements behind each choice: docs/benchmarks.md (OCR).

A number is never silently wrong: a number token whose reading is doubtful — its confidence
below the floor, or the two readings disagree in a way that cannot be reconciled — is listed
with its span on the page (`low_confidence_numbers`).
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, replace

from .hebrew import clean_text

NUMBER_MODEL = "eng"
WHITELIST = "0123456789./(),-:"
PAD = 6  # pixels around a word's box when it is cut out

# A number token: digits with their separators (1042/23, 12.3.2015, 5,000, 12345-06-19) and
# the subsections attached to them (198(ד), 4(1)).
NUMBER_RE = re.compile(r"\d+(?:[/.,:\-–]\d+)*(?:\([\u05d0-\u05ea0-9]{1,3}\))*")
_CORE = re.compile(r"\d+(?:[/.,:\-]\d+)*")
_PURE = re.compile(r"[\d/.,:\-()]+")
_SEGMENT = re.compile(r"\d+(?:[/.,:\-]\d+)*|\([^()\s]{0,4}\)|.")
_HEBREW = "\u05d0-\u05ea"


@dataclass(frozen=True)
class Word:
    """One word of Tesseract's TSV: its line (block, paragraph, line), box, confidence and text;
    `checked` is the number reading's confidence, `doubtful` that the readings disagree."""

    line: tuple[int, int, int]
    box: tuple[int, int, int, int]  # left, top, width, height
    confidence: float
    text: str
    checked: float | None = None
    doubtful: bool = False

    @property
    def number_confidence(self) -> float:
        if self.checked is None:
            return self.confidence
        return min(self.confidence, self.checked) if self.doubtful else self.checked


def numbers(text: str) -> list[str]:
    """The number tokens of `text`, in order."""
    return NUMBER_RE.findall(text)


def parse_words(tsv: str) -> list[Word]:
    """The words of Tesseract's TSV (level 5 rows with text and a confidence), in its order."""
    words = []
    for row in tsv.splitlines()[1:]:
        cells = row.split("\t")
        if len(cells) < 12 or cells[0] != "5":
            continue
        text = clean_text(cells[11]).strip()
        try:
            confidence = float(cells[10])
            line = (int(cells[2]), int(cells[3]), int(cells[4]))
            box = (int(cells[6]), int(cells[7]), int(cells[8]), int(cells[9]))
        except ValueError:
            continue
        if text and confidence >= 0:
            words.append(Word(line, box, confidence, text))
    return words


def join_words(words: list[Word]) -> tuple[str, list[int]]:
    """(text, each word's offset): words of a line joined by a space, lines of a paragraph by a
    newline, paragraphs by a blank line."""
    parts: list[str] = []
    offsets: list[int] = []
    at = 0
    previous: Word | None = None
    for word in words:
        if previous is not None:
            gap = (
                " "
                if previous.line == word.line
                else "\n"
                if previous.line[:2] == word.line[:2]
                else "\n\n"
            )
            parts.append(gap)
            at += len(gap)
        offsets.append(at)
        parts.append(word.text)
        at += len(word.text)
        previous = word
    return "".join(parts), offsets


def mean_confidence(words: list[Word]) -> float | None:
    return round(statistics.fmean(w.confidence for w in words), 1) if words else None


def candidates(words: list[Word]) -> list[int]:
    """The indexes of the words read again for their numbers: those holding a digit."""
    return [i for i, w in enumerate(words) if any(c.isdigit() for c in w.text)]


def logical(visual: str) -> str:
    """A number reading in visual order (left to right) in logical order as a right-to-left line
    keeps it: digit runs stay as they are, the pieces around them swap (`(א)146` -> `146(א)`)."""
    return "".join(reversed(_SEGMENT.findall(visual)))


def merge(hebrew: str, read: str) -> tuple[str, bool]:
    """(the word with the number reading's digits, whether the two disagree beyond repair).
    `read` is the number reading in logical order."""
    if not any(c.isdigit() for c in read):
        return hebrew, True
    ours, theirs = _CORE.findall(hebrew), _CORE.findall(read)
    if ours == theirs:  # the same digits: the Hebrew reading keeps its punctuation
        return hebrew, False
    if _PURE.fullmatch(hebrew) and _PURE.fullmatch(read):
        return read, False
    if len(ours) == 1 and len(theirs) == 1:
        number = theirs[0]
        if number.count("-") > ours[0].count("-"):
            # a Hebrew prefix joined by a hyphen (ל-20) is read as one more group: drop it
            if re.search(f"[{_HEBREW}]-{re.escape(ours[0])}", hebrew):
                number = number.rsplit("-", 1)[0]
            elif re.search(f"{re.escape(ours[0])}-[{_HEBREW}]", hebrew):
                number = number.split("-", 1)[1]
        return _CORE.sub(lambda _: number, hebrew, count=1), False
    if len(ours) == len(theirs):
        rest = iter(theirs)
        return _CORE.sub(lambda _: next(rest), hebrew), False
    return hebrew, True


def checked(word: Word, pieces: list[tuple[str, float]]) -> Word:
    """`word` after its number reading (`pieces`: the words Tesseract read in its box, visual
    order, with their confidences); no piece: the number reading found nothing (doubtful)."""
    if not pieces:
        return replace(word, checked=0.0, doubtful=True)
    read = logical("".join(text for text, _ in pieces))
    confidence = min(c for _, c in pieces)
    text, doubtful = merge(word.text, read)
    if text == word.text and not doubtful:  # the two readings agree
        confidence = max(confidence, word.confidence)
    return replace(word, text=text, checked=round(confidence, 1), doubtful=doubtful)


def parse_pieces(tsv: str) -> dict[int, list[tuple[str, float]]]:
    """The number reading's TSV (one page per picture) -> {picture index: [(text, conf)]}."""
    out: dict[int, list[tuple[str, float]]] = {}
    for row in tsv.splitlines()[1:]:
        cells = row.split("\t")
        if len(cells) < 12 or cells[0] != "5" or not cells[11].strip():
            continue
        try:
            out.setdefault(int(cells[1]) - 1, []).append((cells[11].strip(), float(cells[10])))
        except ValueError:
            continue
    return out


def low_confidence(words: list[Word], offsets: list[int], floor: float) -> list[dict]:
    """The number tokens of a page read with low confidence: [{"text", "start", "end",
    "confidence"}], spans in the page's text."""
    out = []
    for word, at in zip(words, offsets, strict=True):
        confidence = word.number_confidence
        if not word.doubtful and confidence >= floor:
            continue
        for m in NUMBER_RE.finditer(word.text):
            out.append(
                {
                    "text": m.group(),
                    "start": at + m.start(),
                    "end": at + m.end(),
                    "confidence": round(confidence, 1),
                }
            )
    return out


def number_accuracy(reference: str, read: str) -> tuple[int, int, int]:
    """(reference number tokens read right, reference number tokens, tokens read that the
    reference lacks): a multiset comparison of the two texts' number tokens."""
    want: dict[str, int] = {}
    for token in numbers(reference):
        want[token] = want.get(token, 0) + 1
    right = extra = 0
    for token in numbers(read):
        if want.get(token, 0) > 0:
            want[token] -= 1
            right += 1
        else:
            extra += 1
    return right, right + sum(want.values()), extra
