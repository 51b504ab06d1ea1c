"""Numbers in scanned Hebrew pages: Tesseract's Hebrew model drops the leading
digits of numbers in right-to-left lines (`סעיף 198(ד)` read `סעיף 8(ד)`, paragraph `10.` read
`0.`), even on a clean 300-dpi page, while its word boxes hold the whole number. So every word
of the Hebrew reading that holds a digit is cut out of the page picture and read again by the
`eng` model as one line (`--psm 7`) with only digits and their punctuation allowed — all the
words of a page in one Tesseract process (a list of pictures). That reading is visual, left to
right: its pieces are put back in logical order (`(א)146` is `146(א)`, `.10` is `10.`) and its
digits replace the Hebrew reading's (a Hebrew prefix such as `ל-` stays the Hebrew reading's).
Where the Hebrew model boxed only part of a number, the box is widened over the ink beside it up
to a word space (`ink_reach`); the pieces of a number it split are
joined and read as one, and each piece on its own too (`kept_apart`: apart where the number
model sees a space, marked where the two readings differ).
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
_PIECE = re.compile(r"[\d/.,:\-]+")  # a piece of a split number: no letter, no bracket
JOIN_SHARE = 1.6  # pieces of one number: at most this share of the line's median space apart
# A number's box is widened over the ink beside it up to a blank run of this share of its
# height (a word space; the gaps between a number's glyphs are narrower), by at most this many of
# its heights (`ink_reach`).
SPACE_SHARE = 0.3
WIDEN_HEIGHTS = 8
# ... only on a side where the gap to the neighbouring word is wider than this share of the
# line's median space (`open_sides`): elsewhere the Hebrew model boxed the whole number.
WIDEN_SHARE = 2.0
_SEPARATORS = "./,:-"
# d.m.yyyy with a colon for one of its dots (never a time: hh:mm has no year after it)
_MIXED_DATE = re.compile(r"(?<![\d.:])(\d{1,2})[.:](\d{1,2})[.:](\d{4})(?![\d.:])")
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
    pieces: tuple[Word, ...] = ()  # a joined word's pieces, in Tesseract's order (`joined`)

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


def joined(words: list[Word]) -> list[Word]:
    """`words` with the pieces of one number the Hebrew model split (`9.2.2025` read as `2025`
    and `.2..`, `1,200` as `200` and `,1`) joined into one word over their boxes: neighbours on
    a line, each of digits and number punctuation only, a separator between them, the space
    between them at most `JOIN_SHARE` of the line's median space between words
    (`_one_number`). The joined word takes the first piece's place and line and the lowest
    confidence; its text is read again by the number model (the pieces' own text is the visual
    concatenation, a placeholder)."""
    lines: dict[tuple[int, int, int], list[int]] = {}
    for i, word in enumerate(words):
        lines.setdefault(word.line, []).append(i)
    groups: dict[int, list[int]] = {}  # first index -> the indexes joined into it
    for indexes in lines.values():
        visual = sorted(indexes, key=lambda i: words[i].box[0])
        gaps = [_gap(words[a], words[b]) for a, b in zip(visual, visual[1:], strict=False)]
        spaces = [g for g in gaps if g > 0]
        if not spaces:
            continue
        median = statistics.median(spaces)
        run: list[int] = []
        for k, i in enumerate(visual):
            piece = _PIECE.fullmatch(words[i].text) is not None
            if (
                run
                and piece
                and _one_number(words[run[-1]].text, words[i].text, gaps[k - 1], median)
            ):
                run.append(i)
                continue
            _keep(run, words, groups)
            run = [i] if piece else []
        _keep(run, words, groups)
    if not groups:
        return words
    dropped = {i for run in groups.values() for i in run}
    out = []
    for i, word in enumerate(words):
        if i in groups:
            union = _union([words[k] for k in groups[i]])
            out.append(replace(union, pieces=tuple(words[k] for k in sorted(groups[i]))))
        elif i not in dropped:
            out.append(word)
    return out


def _one_number(left: str, right: str, gap: int, median: float) -> bool:
    """Whether two neighbouring pieces (visual order) are one number: a separator at an end of
    one of them (`3.1.` beside `2025`, `,1` beside `200`) and they are at most
    `JOIN_SHARE` of the line's median space apart. Two numbers side by side without a separator
    (`2025 20`) stay two."""
    # either end of either piece: the Hebrew reading mirrors a number's punctuation (`,1`)
    separated = any(p[0] in _SEPARATORS or p[-1] in _SEPARATORS for p in (left, right))
    return separated and gap <= JOIN_SHARE * median


def _gap(left: Word, right: Word) -> int:
    return right.box[0] - (left.box[0] + left.box[2])


def _keep(run: list[int], words: list[Word], groups: dict[int, list[int]]) -> None:
    """A run of two pieces or more, one of them with a digit, is joined."""
    if len(run) > 1 and any(c.isdigit() for i in run for c in words[i].text):
        groups[min(run)] = run


def _union(pieces: list[Word]) -> Word:
    """One word over `pieces` (in visual order)."""
    left = min(w.box[0] for w in pieces)
    top = min(w.box[1] for w in pieces)
    right = max(w.box[0] + w.box[2] for w in pieces)
    bottom = max(w.box[1] + w.box[3] for w in pieces)
    return Word(
        pieces[0].line,
        (left, top, right - left, bottom - top),
        min(w.confidence for w in pieces),
        "".join(w.text for w in pieces),
    )


def open_sides(words: list[Word], index: int) -> tuple[bool, bool]:
    """Whether word `index` stands beside an empty stretch of its line on its left and on its
    right: a gap to the neighbouring word wider than `WIDEN_SHARE` of the line's median space
    between words, where the Hebrew model left part of a number unboxed."""
    word = words[index]
    line = sorted((w for w in words if w.line == word.line), key=lambda w: w.box[0])
    gaps = [_gap(a, b) for a, b in zip(line, line[1:], strict=False)]
    spaces = [g for g in gaps if g > 0]
    if not spaces:
        return False, False
    wide = WIDEN_SHARE * statistics.median(spaces)
    at = next(k for k, w in enumerate(line) if w is word)
    return (at > 0 and gaps[at - 1] > wide, at < len(line) - 1 and gaps[at] > wide)


def ink_reach(
    dark: list[bool], left: int, right: int, height: int, sides: tuple[bool, bool] = (True, True)
) -> tuple[int, int]:
    """The columns [left, right) of a number word's box widened over the ink beside it on the
    page (`dark`: whether each column of the word's band holds ink) up to the first blank run
    of a word space (`SPACE_SHARE` of its height) on each side `sides` allows (`open_sides`), by
    at most `WIDEN_HEIGHTS` of its height. The Hebrew model keeps a box over part of a number and leaves the rest unboxed or
    inside its neighbour's box (`9474/24` read `4` over its right end, `94` inside the box of
    `אלמוני` beside it): the number model reads the whole number there."""
    space = max(2, round(SPACE_SHARE * height))
    reach = WIDEN_HEIGHTS * height
    start, blank, x = left, 0, left - 1
    while sides[0] and x >= max(0, left - reach) and blank < space:
        blank = 0 if dark[x] else blank + 1
        start = x if dark[x] else start
        x -= 1
    end, blank, x = right, 0, right
    while sides[1] and x < min(len(dark), right + reach) and blank < space:
        blank = 0 if dark[x] else blank + 1
        end = x + 1 if dark[x] else end
        x += 1
    return start, end


def widened_checked(word: Word, box: tuple[int, int, int, int], read: Word) -> Word:
    """A number read in a widened box (`box` wider than the word's): its digits other than the
    Hebrew reading's are the widened box's alone, so the number is marked."""
    if box != word.box and _CORE.findall(read.text) != _CORE.findall(word.text):
        return replace(read, doubtful=True)
    return read


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


def _dotted(read: str) -> str:
    """A date read with a colon among its dots (`12.5:2025`: a speck on the dot) as a date."""
    return _MIXED_DATE.sub(r"\1.\2.\3", read)


def checked(
    word: Word, pieces: list[tuple[str, float]], again: list[tuple[str, float]] | None = None
) -> Word:
    """`word` after its number reading (`pieces`: the words Tesseract read in its box, visual
    order, with their confidences); no piece: the number reading found nothing (doubtful).
    `again`: the same box read once more, binarized; a reading whose digits differ makes the
    number doubtful (marked, never silently taken)."""
    if not pieces:
        return replace(word, checked=0.0, doubtful=True)
    read = _dotted(logical("".join(text for text, _ in pieces)))
    confidence = min(c for _, c in pieces)
    text, doubtful = merge(word.text, read)
    if again is not None and _CORE.findall(read) != _CORE.findall(
        logical("".join(t for t, _ in again))
    ):
        doubtful = True
    if text == word.text and not doubtful:  # the two readings agree
        confidence = max(confidence, word.confidence)
    return replace(word, text=text, checked=round(confidence, 1), doubtful=doubtful)


def kept_apart(
    word: Word,
    whole: list[tuple[str, float]],
    again: list[tuple[str, float]],
    apart: list[list[tuple[str, float]]],
) -> list[Word]:
    """A joined word (`word.pieces`) after its number readings: `whole` and `again` its box read
    as scanned and binarized, `apart` each piece's own box read. Where the number model sees a
    space in the joined box (two words or more: `2025` and `20` side by side, not one number)
    the pieces stay apart, each with its own reading — where each word the model sees holds two
    digits at least (`1 1` in the box of a paragraph's `11.` is one number spaced); otherwise the joined word is taken, and
    marked when its pieces read apart give other digits (never silently taken)."""
    if len(whole) > 1 and all(sum(c.isdigit() for c in text) >= 2 for text, _ in whole):
        return [checked(piece, read) for piece, read in zip(word.pieces, apart, strict=True)]
    one = checked(word, whole, again)
    visual = sorted(zip(word.pieces, apart, strict=True), key=lambda p: p[0].box[0])
    pieces = logical("".join(text for _, read in visual for text, _ in read))
    if whole and _CORE.findall(_dotted(pieces)) != _CORE.findall(_dotted(logical(whole[0][0]))):
        one = replace(one, doubtful=True)
    return [one]


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
