"""A heading rule of the methodology in words: the phrases the chair writes, one a line, as the
pattern segmentation matches (`pattern_of`: each phrase escaped, its spaces any run of spaces,
the phrases as alternatives), and a stored pattern back as the phrases it matches (`words_of`),
when it matches a finite, small set of them (`פתח דבר|מבוא`, `טענות העוררי[םן]`,
`(?:הבקשה|התכנית) נשוא הערר`, `ניתנ(?:ה|ו) היום` ...). A pattern written as a real regular
expression on the command line (`\\d+`, `.*`) has no such set: None, and the desk says so
instead of showing the pattern."""

from __future__ import annotations

import itertools
import re
from re import _constants as sre  # type: ignore[attr-defined]  # the parser's opcodes
from re import _parser as sre_parse  # type: ignore[attr-defined]

from .hebrew import PREFIX_CLASS, clean_text, fold_quotes, fold_spelling, normalize

MAX_PHRASES = 64  # a pattern matching more phrases than this is not shown as words
MAX_CLASS = 8  # a character class of more characters than this is not a choice of letters
_SPACES = r"\s+"


def clean_phrase(text: str) -> str:
    """A phrase as written, its spaces one space, the ends trimmed, one kind of quote mark (as
    segmentation reads a heading line)."""
    return " ".join(fold_quotes(clean_text(text)).split())


def pattern_of(phrases: list[str]) -> str:
    """The pattern matching exactly these phrases (their spaces: any run of spaces)."""
    parts = []
    for phrase in dict.fromkeys(clean_phrase(p) for p in phrases):
        if phrase:
            parts.append(_SPACES.join(re.escape(word) for word in phrase.split(" ")))
    return "|".join(parts)


class _Open(Exception):
    """The pattern matches an open (or too large) set of phrases."""


def words_of(pattern: str | None) -> list[str] | None:
    """The phrases `pattern` matches, in the pattern's order; None when it matches more than
    MAX_PHRASES or an open set (a repetition without bound other than a run of spaces, any
    character, a character range)."""
    if not pattern:
        return []
    try:
        parsed = sre_parse.parse(pattern)
        phrases = _expand(list(parsed))
    except (_Open, re.error, RecursionError, OverflowError):
        return None
    out = list(dict.fromkeys(clean_phrase(p) for p in phrases))
    return [p for p in out if p] or None


def _expand(items: list) -> list[str]:
    out = [""]
    for op, arg in items:
        out = [a + b for a, b in itertools.product(out, _one(op, arg))]
        if len(out) > MAX_PHRASES:
            raise _Open
    return out


def _one(op, arg) -> list[str]:
    if op is sre.LITERAL:
        return [chr(arg)]
    if op is sre.SUBPATTERN:
        return _expand(list(arg[3]))
    if op is sre.BRANCH:
        found: list[str] = []
        for branch in arg[1]:
            found += _expand(list(branch))
        return found
    if op is sre.IN:
        return _choices(arg)
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
        low, high, body = arg
        body = list(body)
        if _is_space(body):
            return [" "]
        if high is sre.MAXREPEAT or high > 3:
            raise _Open
        one = _expand(body)
        found = []
        for times in range(low, high + 1):
            found += ["".join(combo) for combo in itertools.product(one, repeat=times)]
        return found
    raise _Open


def _choices(items: list) -> list[str]:
    letters = []
    for op, arg in items:
        if op is not sre.LITERAL:
            raise _Open  # a range, a category, a negation
        letters.append(chr(arg))
    if len(letters) > MAX_CLASS:
        raise _Open
    return letters


def _is_space(body: list) -> bool:
    """`\\s` or ` ` (a run of spaces, written `\\s+` or ` +`)."""
    if len(body) != 1:
        return False
    op, arg = body[0]
    if op is sre.LITERAL:
        return chr(arg) == " "
    return op is sre.IN and arg == [(sre.CATEGORY, sre.CATEGORY_SPACE)]


def count_phrases(text: str, phrases: list[str]) -> dict[str, int]:
    """Occurrences of each phrase in `text`, compared normalized and spelling-folded, at word
    boundaries (a prefix letter before the phrase still counts: ולאור כל האמור לעיל)."""

    def fold(s: str) -> str:
        return " ".join(fold_spelling(normalize(s)).split())

    haystack = fold(text)
    counts = {}
    for phrase in phrases:
        needle = re.escape(fold(phrase))
        found = len(re.findall(rf"(?<![א-ת]){PREFIX_CLASS}?{needle}(?![א-ת])", haystack))
        if found:
            counts[phrase] = found
    return counts
