"""The list numbers Word shows before a paragraph ("12.", "א.", "3.2"), which are not in the
paragraph's text: Word computes them from the numbering part (word/numbering.xml) and the styles.

A decision's paragraphs are numbered this way, and a paragraph is cited by its number ("סעיף 12
להחלטה"); the plain-text and PDF versions of the same decision carry the numbers, so the DOCX's
text carries them too (or the three would differ by a word a paragraph). What is computed: the
paragraph's own numbering or its style's (through `basedOn`), one counter per list (a list's
instances share it unless one restarts it with `startOverride`), deeper levels restarting under
a higher one, the level's text (`%1.%2`) in its format — decimal, Hebrew numerals (`hebrew1`:
א … י, יא, טו, טז), the Hebrew alphabet (`hebrew2`), Latin letters, Roman numerals; a bullet
is left out (it is not a word). Not computed: `lvlRestart`, `isLgl`'s mixed formats, numbering
changed by tracked formatting, and a list level replaced whole in a `lvlOverride`.
"""

from __future__ import annotations

from dataclasses import dataclass

from lxml import etree

from ..errors import OverBound
from .bounds import LIMITS, Limits

_UNITS = "אבגדהוזחט"
_TENS = "יכלמנסעפצ"
_HUNDREDS = "קרש"
_ALEPH_BET = "אבגדהוזחטיכלמנסעפצקרשת"
_ROMAN = (
    (1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
    (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"),
)  # fmt: skip


def hebrew_numeral(n: int) -> str:
    """1 → א, 10 → י, 15 → טו, 16 → טז, 42 → מב, 400 → ת (Word's `hebrew1`)."""
    out = []
    while n >= 400:
        out.append("ת")
        n -= 400
    if n >= 100:
        out.append(_HUNDREDS[n // 100 - 1])
        n %= 100
    if n in (15, 16):
        return "".join(out) + ("טו" if n == 15 else "טז")
    if n >= 10:
        out.append(_TENS[n // 10 - 1])
        n %= 10
    if n:
        out.append(_UNITS[n - 1])
    return "".join(out)


def _roman(n: int) -> str:
    out = []
    for value, letters in _ROMAN:
        while n >= value:
            out.append(letters)
            n -= value
    return "".join(out)


# A label in letters or Roman numerals longer than this is written in digits instead: its length
# grows with the value (hebrew2's 440,000,000 is 20 million letters), digits' with its logarithm.
MAX_LETTERS = 16


def _letters_length(n: int, fmt: str) -> int:
    """How many letters `n` takes in `fmt`, computed without writing them."""
    if fmt == "hebrew1":
        return n // 400 + 3
    if fmt == "hebrew2":
        return (n - 1) // 22 + 1
    if fmt in ("lowerLetter", "upperLetter"):
        return (n - 1) // 26 + 1
    if fmt in ("lowerRoman", "upperRoman"):
        return n // 1000 + 15
    return 0


def format_number(n: int, fmt: str) -> str:
    """`n` as Word writes it in `fmt`; in digits when that would take over MAX_LETTERS letters
    (so a label costs the value's digits, never the value)."""
    if n <= 0 or _letters_length(n, fmt) > MAX_LETTERS:
        return str(n)
    if fmt == "hebrew1":
        return hebrew_numeral(n)
    if fmt == "hebrew2":
        return _ALEPH_BET[(n - 1) % 22] * ((n - 1) // 22 + 1)
    if fmt in ("lowerLetter", "upperLetter"):
        letter = "abcdefghijklmnopqrstuvwxyz"[(n - 1) % 26] * ((n - 1) // 26 + 1)
        return letter.upper() if fmt == "upperLetter" else letter
    if fmt in ("lowerRoman", "upperRoman"):
        return _roman(n).upper() if fmt == "upperRoman" else _roman(n)
    if fmt == "decimalZero":
        return f"{n:02d}"
    return str(n)


@dataclass(frozen=True)
class _Level:
    start: int = 1
    fmt: str = "decimal"
    text: str = ""
    suffix: str = " "


class Numbering:
    """The labels of one document's numbered paragraphs, computed in document order."""

    def __init__(
        self,
        numbering: etree._Element | None,
        styles: etree._Element | None,
        w: str,
        limits: Limits = LIMITS,
    ):
        self.w = w
        self.limits = limits
        self.abstract: dict[str, dict[int, _Level]] = {}
        self.nums: dict[str, tuple[str, dict[int, int]]] = {}
        if numbering is not None:
            for node in numbering.iterchildren(w + "abstractNum"):
                self.abstract[self._val(node, "abstractNumId")] = self._levels(node)
            for node in numbering.iterchildren(w + "num"):
                self.nums[self._val(node, "numId")] = self._num(node)
        self.styles = self._style_numbering(styles) if styles is not None else {}
        self.counters: dict[str, dict[int, int]] = {}

    def _val(self, node: etree._Element, attribute: str = "val") -> str:
        return node.get(self.w + attribute) or ""

    def _child_val(self, node: etree._Element, tag: str) -> str | None:
        child = node.find(self.w + tag)
        return None if child is None else self._val(child)

    def _levels(self, abstract: etree._Element) -> dict[int, _Level]:
        levels = {}
        for lvl in abstract.iterchildren(self.w + "lvl"):
            start = self._start(self._child_val(lvl, "start"))
            suffix = {"nothing": "", "space": " "}.get(self._child_val(lvl, "suff") or "", " ")
            levels[self._level(self._val(lvl, "ilvl"))] = _Level(
                start=start,
                fmt=self._child_val(lvl, "numFmt") or "decimal",
                text=self._child_val(lvl, "lvlText") or "",
                suffix=suffix,
            )
        return levels

    def _num(self, num: etree._Element) -> tuple[str, dict[int, int]]:
        starts = {}
        for override in num.iterchildren(self.w + "lvlOverride"):
            start = self._child_val(override, "startOverride")
            if start is not None:
                starts[self._level(self._val(override, "ilvl"))] = self._start(start)
        return self._child_val(num, "abstractNumId") or "", starts

    def _style_numbering(self, styles: etree._Element) -> dict[str, tuple[str | None, int | None]]:
        own, based = {}, {}
        for style in styles.iterchildren(self.w + "style"):
            style_id = self._val(style, "styleId")
            based[style_id] = self._child_val(style, "basedOn")
            num_pr = style.find(f"{self.w}pPr/{self.w}numPr")
            if num_pr is not None:
                level = self._child_val(num_pr, "ilvl")
                own[style_id] = (
                    self._child_val(num_pr, "numId"),
                    None if level is None else self._level(level),
                )
        resolved = {}
        for style_id in based:
            current: str | None = style_id
            seen: set[str] = set()
            while current and current not in own and current not in seen:
                seen.add(current)
                current = based.get(current)
            if current in own:
                resolved[style_id] = own[current]
        return resolved

    def label(self, paragraph: etree._Element) -> str:
        """The number Word shows before `paragraph`, with its separator ("12. "), or ""."""
        w = self.w
        num_id, level = self.styles.get(self._style_of(paragraph) or "", (None, None))
        num_pr = paragraph.find(f"{w}pPr/{w}numPr")
        if num_pr is not None:
            num_id = self._child_val(num_pr, "numId") or num_id
            direct = self._child_val(num_pr, "ilvl")
            level = self._level(direct) if direct is not None else level
        if not num_id or num_id == "0" or num_id not in self.nums:
            return ""
        abstract_id, starts = self.nums[num_id]
        levels = self.abstract.get(abstract_id, {})
        level = level or 0
        if level not in levels:
            return ""
        key = f"num:{num_id}" if starts else f"abstract:{abstract_id}"
        counters = self.counters.setdefault(key, {})
        first = starts.get(level, levels[level].start)
        counters[level] = counters.get(level, first - 1) + 1
        for deeper in [k for k in counters if k > level]:
            del counters[deeper]
        return self._text(levels, counters, starts, level)

    def _text(self, levels: dict[int, _Level], counters: dict, starts: dict, level: int) -> str:
        this = levels[level]
        if this.fmt in ("bullet", "none") or not this.text:
            return ""
        text = this.text
        for k in range(9, 0, -1):
            if f"%{k}" in text:
                at = levels.get(k - 1, _Level())
                value = counters.get(k - 1, starts.get(k - 1, at.start))
                text = text.replace(f"%{k}", format_number(value, at.fmt))
        return text.strip() + this.suffix if text.strip() else ""

    def _start(self, value: str | None) -> int:
        """A level's start, refused outside 0 .. limits.list_start (its label is computed for
        every paragraph of the list)."""
        start = _int(value, 1)
        if not 0 <= start <= self.limits.list_start:
            raise OverBound(
                f"the file asks for a list that starts at {start:,} (outside 0 to "
                f"{self.limits.list_start:,}); restart the list's numbering in Word and save "
                "it again",
                "list start",
                code="file.list_numbering",
                field="file",
            )
        return start

    def _level(self, value: str | None) -> int:
        """A list level (w:ilvl), refused outside Word's 0 .. limits.list_levels - 1."""
        level = _int(value)
        if not 0 <= level < self.limits.list_levels:
            raise OverBound(
                f"the file asks for list level {level:,} (Word's levels are 0 to "
                f"{self.limits.list_levels - 1}); save the document again from Word",
                "list level",
                code="file.list_numbering",
                field="file",
            )
        return level

    def _style_of(self, paragraph: etree._Element) -> str | None:
        style = paragraph.find(f"{self.w}pPr/{self.w}pStyle")
        return None if style is None else self._val(style)


def _int(value: str | None, default: int = 0) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default
