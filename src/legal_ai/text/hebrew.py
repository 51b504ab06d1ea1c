"""Hebrew normalization and the lexical analyzer.

PostgreSQL's `simple` configuration keeps niqqud inside words, splits acronyms at the quote mark
(עע"מ -> עע, מ) and has no prefix handling, so every text is analyzed here first and the
database indexes the analyzed string. Index and query go through the same `analyze()`.
"""

from __future__ import annotations

import functools
import logging
import re
import unicodedata
from dataclasses import dataclass

from . import morphology

# Characters that are invisible in the text yet split or glue its words, so a query, a filter
# value or a stored text carrying them would match nothing: zero-width space/non-joiner/joiner
# (U+200B-U+200D), LRM/RLM, the bidi embeddings, overrides and isolates, the Arabic letter mark,
# word joiner and invisible operators (U+2060-U+2064), BOM/ZWNBSP and the soft hyphen; plus what
# cannot be stored at all: C0/C1 controls (NUL: PostgreSQL refuses it in text), lone surrogates
# (not encodable as UTF-8) and the noncharacters U+FFFE/U+FFFF. Tab and line feed are kept.
_INVISIBLE = (
    "\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff"
    "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff"
)
_INVISIBLE_RE = re.compile(f"[{_INVISIBLE}]")
# Hebrew presentation forms (wide letters, letters with a point, the alef-lamed ligature): NFKC
# folds each to its base letter (plus the point as a combining mark, which `normalize` strips).
_PRESENTATION_RE = re.compile("[\ufb1d-\ufb4f]")
# Hebrew points and cantillation (U+0591-U+05C7) except maqaf U+05BE, paseq U+05C0, sof pasuq
# U+05C3 and nun hafukha U+05C6, which are punctuation; and the Judeo-Spanish varika U+FB1E.
_NIQQUD_RE = re.compile("[\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7\ufb1e]")
# Every quote-mark variant and the ASCII geresh (') or gershayim (") it folds to.
_QUOTES = {
    **dict.fromkeys("\u05f3\u2019\u2018`\u00b4", "'"),
    **dict.fromkeys("\u05f4\u201c\u201d\u201e\u2033\u201f", '"'),
}
_QUOTES_RE = re.compile(f"[{''.join(_QUOTES)}]")

PREFIX_LETTERS = frozenset("והבכלמש")
PREFIX_CLASS = "[והבכלמש]"  # the same letters as a regular-expression class


def clean_text(text: str) -> str:
    """Text as stored and shown: LF line ends; no NUL, control, zero-width or bidi characters,
    soft hyphens, lone surrogates; Hebrew presentation forms folded to their letters (NFKC).

    Every text that reaches the database or the analyzer passes through here (stored texts,
    queries, filter values and metadata, and `normalize`). Niqqud and the original quote marks
    are kept (they are what the chair wrote)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u2028", "\n")
    text = text.replace("\u2029", "\n")
    text = _INVISIBLE_RE.sub("", text)
    if _PRESENTATION_RE.search(text):
        text = _PRESENTATION_RE.sub(lambda m: unicodedata.normalize("NFKC", m.group()), text)
    return text


def clean_value(value: str) -> str:
    """A short field value (a filter, a court, a practice area) as stored and as compared:
    `clean_text`, one ASCII geresh/gershayim, single spaces, no edge spaces."""
    return " ".join(fold_quotes(clean_text(value)).split())


def fold_quotes(text: str) -> str:
    """One ASCII geresh and gershayim for every quote-mark variant; length-preserving, so
    offsets into the folded text are offsets into the original."""
    # A regular expression finds the few marks to replace (str.translate with a table looks up
    # every character in Python: 30 times slower on a decision's header, measured).
    return _QUOTES_RE.sub(lambda found: _QUOTES[found.group()], text)


def fold_spelling(text: str) -> str:
    """וו → ו and יי → י: the law's spelling (הועדה, בניה) and today's (הוועדה, בנייה) meet."""
    return text.replace("וו", "ו").replace("יי", "י")


def normalize(text: str) -> str:
    """Fold for matching: NFC, no niqqud, one ASCII geresh and gershayim, maqaf as hyphen."""
    text = unicodedata.normalize("NFC", clean_text(text))
    text = _NIQQUD_RE.sub("", text)
    text = fold_quotes(text).replace("\u05be", "-")
    return text


# What `folded` drops or joins: a doubled geresh written for the gershayim (בג''ץ), the
# invisible characters `clean_text` removes, and niqqud.
_FOLD_DROP_RE = re.compile(f"''|[{_INVISIBLE}]|{_NIQQUD_RE.pattern}")


@dataclass(frozen=True)
class Folded:
    """A text folded for matching (`folded`), with where each of its characters came from:
    `origin(i)` is the original text's offset of the folded text's offset `i` (len(folded) maps
    to len(original)), so a span found in the folded text is cut from the original."""

    text: str
    _origin: tuple[int, ...] | None  # None: the same offsets

    def origin(self, at: int) -> int:
        return at if self._origin is None else self._origin[at]


def folded(text: str) -> Folded:
    """`normalize`'s folds of single characters, for finding spans in a text as written: one
    ASCII geresh and gershayim for every quote mark, `''` read as `"`, maqaf as a hyphen; no
    niqqud and no invisible characters (LRM around a number, as pdftotext leaves them)."""
    text_folded = fold_quotes(text).replace("\u05be", "-")
    if not _FOLD_DROP_RE.search(text_folded):
        return Folded(text_folded, None)
    parts: list[str] = []
    origin: list[int] = []
    at = 0
    for found in _FOLD_DROP_RE.finditer(text_folded):
        parts.append(text_folded[at : found.start()])
        origin.extend(range(at, found.start()))
        if found.group() == "''":
            parts.append('"')
            origin.append(found.start())
        at = found.end()
    parts.append(text_folded[at:])
    origin.extend(range(at, len(text_folded) + 1))
    return Folded("".join(parts), tuple(origin))


# A token: a case number (1234/05), a section reference (152(א)(2), 14א), an acronym with
# gershayim (עע"מ, בג"ץ), a word with a trailing geresh (נ'), or a run of letters/digits.
_TOKEN_RE = re.compile(
    r"\d+/\d+"
    r"|\d+[א-ת]?(?:\([א-ת0-9]{1,3}\))+"
    r"|[א-ת]+\"[א-ת]+"
    r"|[^\W_]+'?",
    re.UNICODE,
)


def tokens(text: str) -> list[str]:
    """Normalized surface tokens: quotes removed from acronyms, section references flattened."""
    out = []
    for match in _TOKEN_RE.finditer(normalize(text).lower()):
        token = match.group(0)
        token = token.replace('"', "").replace("'", "")
        token = re.sub(r"[()]", "", token) if "(" in token else token
        if token:
            out.append(token)
    return out


def prefix_variants(token: str, min_stem: int = 3) -> list[str]:
    """Forms of a Hebrew token without 1-3 leading prefix letters (ו ה ב כ ל מ ש), keeping at
    least `min_stem` letters: ובהיתר -> בהיתר, היתר (and יתר with min_stem 3)."""
    variants = []
    for cut in range(1, 4):
        if len(token) - cut < min_stem or token[cut - 1] not in PREFIX_LETTERS:
            break
        variants.append(token[cut:])
    return variants


def comparison_key(token: str) -> str:
    """A normalized token as texts are compared word by word (a draft against the final, a draft
    against other decisions): spelling folded (וו→ו, יי→י) and without prefix letters while four
    letters remain (והוועדה = הוועדה); a case or section reference (with "/") is kept whole."""
    token = fold_spelling(token)
    if "/" in token:
        return token
    variants = prefix_variants(token, min_stem=4)
    return variants[-1] if variants else token


_SECTION_NUMBER = re.compile(r"^(\d+)[א-ת]")


@dataclass(frozen=True)
class Analyzer:
    """One way of turning text into index terms; index and query use the same one. Chunks record
    its id, and `legal-ai reindex` re-analyzes chunks of another analyzer."""

    id: str
    strip_prefixes: bool
    min_stem: int = 3
    fold_spelling: bool = False  # וו -> ו, יי -> י: the law's spelling (הועדה, בניה) vs today's
    lemmas: bool = False  # also index hspell's lemmas (text/morphology.py)

    def _fold(self, token: str) -> str:
        return fold_spelling(token) if self.fold_spelling else token

    def _expand(self, token: str, lemmas: tuple[str, ...] = ()) -> list[str]:
        token = self._fold(token)
        forms = [token]
        if self.strip_prefixes and "/" not in token and token[:1] in PREFIX_LETTERS:
            forms.extend(prefix_variants(token, self.min_stem))
        forms.extend(
            f for f in dict.fromkeys(self._fold(lemma) for lemma in lemmas) if f not in forms
        )
        # Section references also match their bare number: 152א2 -> 152.
        number = _SECTION_NUMBER.match(token)
        if number:
            forms.append(number.group(1))
        return forms

    def terms(self, text: str) -> list[str]:
        """Every index term of `text` in order: each token followed by its other forms."""
        return self._forms(tokens(text))

    def _forms(self, words: list[str]) -> list[str]:
        found = morphology.lemmas(words) if self.lemmas else {}
        return [form for token in words for form in self._expand(token, found.get(token, ()))]

    def analyze(self, text: str) -> str:
        """The string PostgreSQL indexes."""
        return " ".join(self.terms(text))

    def query_terms(self, text: str) -> list[str]:
        """Distinct analyzed forms of a query, in order (empty when nothing is searchable).
        Each distinct token is analyzed once: a repeated one adds no form (a pasted page of
        5,000 characters repeats most of its words)."""
        distinct = list(dict.fromkeys(tokens(text)))
        return list(dict.fromkeys(self._forms(distinct)))


# Measured in docs/evaluation.md; the default is the best on the dev sets.
ANALYZERS = {
    a.id: a
    for a in (
        Analyzer("he-plain-v1", strip_prefixes=False),
        Analyzer("he-prefix-v1", strip_prefixes=True, min_stem=3),
        Analyzer("he-prefix4-v1", strip_prefixes=True, min_stem=4),
        Analyzer("he-fold-prefix-v1", strip_prefixes=True, min_stem=3, fold_spelling=True),
        Analyzer("he-fold-prefix4-v1", strip_prefixes=True, min_stem=4, fold_spelling=True),
        Analyzer(
            "he-fold-prefix4-hspell-v1",
            strip_prefixes=True,
            min_stem=4,
            fold_spelling=True,
            lemmas=True,
        ),
    )
}
DEFAULT_ANALYZER = "he-fold-prefix4-hspell-v1"


def get_analyzer(analyzer_id: str) -> Analyzer:
    """The analyzer with this id. One that needs hspell falls back, when hspell is not
    installed, to the same rules without lemmas (its own id, so `legal-ai reindex` re-analyzes
    once hspell arrives) and logs a warning saying so."""
    try:
        analyzer = ANALYZERS[analyzer_id]
    except KeyError:
        raise ValueError(
            f"unknown analyzer {analyzer_id!r}; choose one of: {', '.join(ANALYZERS)}"
        ) from None
    if analyzer.lemmas and not morphology.available():
        return _fallback(analyzer_id)
    return analyzer


@functools.cache
def _fallback(analyzer_id: str) -> Analyzer:
    fallback = ANALYZERS[analyzer_id.replace("-hspell", "")]
    logging.getLogger(__name__).warning(
        "hspell is not installed (apt install hspell, or `make install`): analyzer %s falls "
        "back to %s",
        analyzer_id,
        fallback.id,
    )
    return fallback


def analyze(text: str) -> str:
    """`analyze` of the default analyzer."""
    return get_analyzer(DEFAULT_ANALYZER).analyze(text)


def query_terms(text: str) -> list[str]:
    """`query_terms` of the default analyzer."""
    return get_analyzer(DEFAULT_ANALYZER).query_terms(text)
