"""Templates found: the passages the chair repeats nearly verbatim across her finals (the opening
formula, the hearing formula, the closing and costs formula, the signature), found by
measurement, never written by hand (docs/learning.md "Block exemplars and templates").

How a template is found, per block, over the paragraphs of every final in the style corpus
(table block_exemplars, one row per paragraph):

1. Slots. Each paragraph is read as tokens, with its variable parts replaced by a slot first:
   case numbers (rulings the citation parser finds, `text/citations`, and bare NNNN/YY) become
   `{case_number}` and a cited ruling's parties `{name}`; dates (`12.5.2025`, `3 ביוני 2025`)
   `{date}`; quoted names, initials (`ג' פרידמן`) and companies (`... בע"מ`) `{name}`; other
   numbers, amounts and section numbers (`146(א)`, `1,250,000`, `45`) `{number}`. The leading
   paragraph number (`10.`) and punctuation are not compared.
2. Shingles. Word 3-shingles of the tokens; a shingle is shared when paragraphs of at least
   two distinct finals (distinct case numbers) in the same block contain it.
3. Recurring passages. In each paragraph, the maximal runs of tokens covered by shared shingles,
   cut where no two finals share the whole run; a run is a candidate when it has at least
   MIN_WORDS words besides slots, and its support is the number of distinct finals whose
   paragraphs of that block contain it contiguously (checked, not assumed from the shingles).
4. Formulas, not phrases. A candidate must open a sentence (or the paragraph) in every final it
   recurs in; a run of words inside free prose is a phrase, not a passage to copy.
5. Only the blocks the copy policy lets a writer copy (07-learning §0.1): the header, the
   opening, the hearing, the normative framework (doctrinal openings), the conclusion (closing
   and costs) and the signature (FORMULAIC_BLOCKS). The facts, the decision under appeal, the
   claims (the case's substance) and the discussion (analysis: generalized, never copied) get
   none, whatever recurs in them. What recurs is still measured there and reported: each
   block's share of words in recurring passages (`block_shares`). On the fictional finals the
   discussion's opening sentence ("לאחר שעיינו בכתבי הטענות ושמענו את הצדדים, הגענו למסקנה
   כי") recurs in all four (16% of the discussion's words); it is in the methodology's
   discussion rules (channel A), not a template. A share cannot tell formula from prose by
   itself: on the larger synthetic set the conclusions' share (14%) is below that.
6. Selection. Candidates with support >= MIN_SUPPORT, greedily by the words they cover (length
   x support), skipping one that contains or is contained in a template already chosen. Its
   text is its first final's wording with the slots marked; `{text}` marks where the sentence
   goes on in some of the finals (the writer completes it).

One final alone has no shingle shared with another final: no template is invented.

Pure text: a few milliseconds per final. knowledge/templates.py stores what this measures and
serves it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..text import citations
from ..text.blocks import BLOCKS
from ..text.hebrew import fold_quotes

SHINGLE = 3  # words per shingle
MIN_WORDS = 3  # words (besides slots) a template has at least
MIN_SUPPORT = 2  # distinct finals a template recurs in at least
# The blocks whose recurring passages a writer may copy (07-learning §0.1); the rest are the
# case's substance (facts, the decision under appeal, claims) or analysis (the discussion).
FORMULAIC_BLOCKS = ("header", "opening", "hearing", "legal_framework", "conclusion", "signature")
SLOTS = ("{case_number}", "{date}", "{name}", "{number}", "{text}")

_MONTHS = "ינואר|פברואר|מרץ|מרס|אפריל|מאי|יוני|יולי|אוגוסט|ספטמבר|אוקטובר|נובמבר|דצמבר"
_DATE_RE = re.compile(
    rf"(?<!\d)\d{{1,2}}\s+ב?(?:{_MONTHS})\s+\d{{4}}(?!\d)"
    r"|(?<![\d.])\d{1,2}[./]\d{1,2}[./](?:\d{4}|\d{2})(?![\d])"
)
_CASE_RE = re.compile(r"(?<![\d/])\d{1,6}/\d{2}(?:\d{2})?(?![\d/])")
_QUOTED_RE = re.compile(r'(?<![א-ת])"[^"\n]{2,40}"(?![א-ת])')
_INITIALS_RE = re.compile(r"(?<![א-ת'])ו?[א-ת]'\s?[א-ת]{2,}(?:\s+ו?[א-ת]'\s?[א-ת]{2,})*")
_COMPANY_RE = re.compile(r'(?<![א-ת])(?:[א-ת]\.){1,4}\s?(?:[א-ת]+\s){0,3}בע"מ')
_NUMBER_RE = re.compile(r"\d+(?:[.,]\d+)*[א-ת]?(?:\([א-ת0-9]{1,3}\))*%?")
_WORD_RE = re.compile(r'[א-ת]+"[א-ת]+|[^\W\d_]+\'?')
_NUMBERING_RE = re.compile(r"^\s*(?:\d{1,3}|[א-ת])[.)]\s+")
_SENTENCE_END = ".:;?!\n"


@dataclass(frozen=True)
class Token:
    key: str  # what is compared: a folded word, or a slot
    start: int
    end: int

    @property
    def slot(self) -> bool:
        return self.key.startswith("{")


def _slot_spans(text: str) -> list[tuple[int, int, str]]:
    """Non-overlapping (start, end, slot) spans of the variable parts of `text`."""
    folded = fold_quotes(text)  # same length as text
    spans: list[tuple[int, int, str]] = []

    def free(start: int, end: int) -> bool:
        return all(end <= s or start >= e for s, e, _ in spans)

    def add(start: int, end: int, slot: str) -> None:
        if end > start and free(start, end):
            spans.append((start, end, slot))

    for cited in citations.extract(text):
        if cited.kind != "ruling":
            continue
        number = _CASE_RE.search(folded, cited.start, cited.end)
        cut = number.end() if number else cited.end
        add(cited.start, cut, "{case_number}")
        parties = len(folded[cut : cited.end]) - len(folded[cut : cited.end].lstrip())
        add(cut + parties, cited.end, "{name}")
    for pattern, slot in (
        (_CASE_RE, "{case_number}"),
        (_DATE_RE, "{date}"),
        (_COMPANY_RE, "{name}"),
        (_QUOTED_RE, "{name}"),
        (_INITIALS_RE, "{name}"),
        (_NUMBER_RE, "{number}"),
    ):
        for match in pattern.finditer(folded):
            add(match.start(), match.end(), slot)
    return sorted(spans)


def tokens(text: str) -> list[Token]:
    """The tokens of a paragraph: words (quotes folded) and slots, without its leading number."""
    folded = fold_quotes(text)
    numbering = _NUMBERING_RE.match(folded)
    begin = numbering.end() if numbering else 0
    out: list[Token] = []
    cursor = begin
    for start, end, slot in [s for s in _slot_spans(text) if s[0] >= begin]:
        out += [
            Token(m.group(0), m.start(), m.end()) for m in _WORD_RE.finditer(folded, cursor, start)
        ]
        out.append(Token(slot, start, end))
        cursor = end
    out += [Token(m.group(0), m.start(), m.end()) for m in _WORD_RE.finditer(folded, cursor)]
    return out


@dataclass
class Source:
    """One paragraph of one final, as the detector reads it."""

    final: str  # the final's key: its case number (distinct finals = distinct cases)
    block: str
    text: str
    case_number: str | None = None
    doc_id: str | None = None
    document_id: int | None = None
    char_start: int = 0
    appeal_type: str | None = None
    decided_on: str | None = None
    toks: list[Token] = field(default_factory=list)


@dataclass
class Template:
    block: str
    text: str
    slots: list[str]
    support: int
    examples: list[str]  # case numbers of the finals it recurs in, oldest first
    sources: list[dict]  # where: case_number, doc_id, document_id, char_start, char_end
    appeal_types: dict[str, int]  # finals it recurs in per appeal type
    words: int

    def as_dict(self) -> dict:
        return {
            "block": self.block,
            "text": self.text,
            "slots": self.slots,
            "support": self.support,
            "examples": self.examples,
            "sources": self.sources,
            "appeal_types": self.appeal_types,
        }


def _find(seq: list[str], sub: tuple[str, ...]) -> int:
    """The first index of `sub` in `seq` as a contiguous run, or -1."""
    n = len(sub)
    first = sub[0]
    for i in range(len(seq) - n + 1):
        if seq[i] == first and tuple(seq[i : i + n]) == sub:
            return i
    return -1


def _runs(keys: list[str], shared: dict[tuple[str, ...], set[str]]) -> list[tuple[int, int]]:
    """Token ranges [start, end) of the maximal runs covered by shared shingles, each cut where
    the finals sharing all its shingles drop below MIN_SUPPORT."""
    out: list[tuple[int, int]] = []
    start = end = -1
    finals: set[str] = set()
    for i in range(len(keys) - SHINGLE + 1):
        who = shared.get(tuple(keys[i : i + SHINGLE]))
        if who is None:
            if start >= 0:
                out.append((start, end))
                start = -1
            continue
        if start >= 0 and i < end and len(finals & who) >= MIN_SUPPORT:
            finals &= who
            end = i + SHINGLE
            continue
        if start >= 0:
            out.append((start, end))
        start, end, finals = i, i + SHINGLE, set(who)
    if start >= 0:
        out.append((start, end))
    return out


def _words(run: tuple[str, ...]) -> int:
    return sum(1 for key in run if not key.startswith("{"))


@dataclass
class Measured:
    templates: list[Template]
    shares: dict[str, float]  # block -> share of its words in recurring passages
    finals: int


def detect(sources: Iterable[Source]) -> Measured:
    """Templates of every formulaic block among the paragraphs `sources` (pure text)."""
    by_block: dict[str, list[Source]] = defaultdict(list)
    finals_seen: set[str] = set()
    for source in sources:
        source.toks = tokens(source.text)
        by_block[source.block].append(source)
        finals_seen.add(source.final)
    templates: list[Template] = []
    shares: dict[str, float] = {}
    for block in BLOCKS:
        paragraphs = by_block.get(block, [])
        if not paragraphs:
            continue
        found, share = _block_templates(block, paragraphs)
        shares[block] = round(share, 3)
        if block in FORMULAIC_BLOCKS:
            templates += found
    return Measured(templates, shares, len(finals_seen))


def _starts_sentence(p: Source, i: int) -> bool:
    """Whether token `i` of paragraph `p` opens a sentence (or the paragraph)."""
    if i == 0:
        return True
    between = p.text[p.toks[i - 1].end : p.toks[i].start]
    return any(ch in _SENTENCE_END for ch in between)


def _block_templates(block: str, paragraphs: list[Source]) -> tuple[list[Template], float]:
    keys = [[t.key for t in p.toks] for p in paragraphs]
    index: dict[tuple[str, ...], set[str]] = defaultdict(set)
    for p, seq in zip(paragraphs, keys, strict=True):
        for i in range(len(seq) - SHINGLE + 1):
            index[tuple(seq[i : i + SHINGLE])].add(p.final)
    shared = {s: who for s, who in index.items() if len(who) >= MIN_SUPPORT}
    of_final: dict[str, list[int]] = defaultdict(list)
    for n, p in enumerate(paragraphs):
        of_final[p.final].append(n)
    candidates: set[tuple[str, ...]] = set()
    for seq in keys:
        for start, end in _runs(seq, shared):
            run = tuple(seq[start:end])
            if _words(run) >= MIN_WORDS:
                candidates.add(run)
    # Where each candidate recurs (paragraph index, token start; one paragraph per final), kept
    # when it opens a sentence wherever it recurs: a formula, not a phrase inside free prose.
    occurrences: dict[tuple[str, ...], list[tuple[int, int]]] = {}
    for run in candidates:
        who = set.intersection(
            *(shared[tuple(run[i : i + SHINGLE])] for i in range(len(run) - SHINGLE + 1))
        )
        seen: dict[str, tuple[int, int]] = {}
        for final in sorted(who):
            for n in of_final[final]:
                at = _find(keys[n], run)
                if at >= 0:
                    seen[final] = (n, at)
                    break
        anchored = all(_starts_sentence(paragraphs[n], at) for n, at in seen.values())
        if len(seen) >= MIN_SUPPORT and anchored:
            occurrences[run] = list(seen.values())
    covered: set[tuple[int, int]] = set()
    for run, places in occurrences.items():
        for n, at in places:
            covered.update((n, i) for i in range(at, at + len(run)))
    total = sum(len(seq) for seq in keys)
    share = len(covered) / total if total else 0.0
    chosen: list[tuple[str, ...]] = []
    ranked = sorted(occurrences, key=lambda r: (-len(r) * len(occurrences[r]), -len(r), r))
    for run in ranked:
        if any(_find(list(c), run) >= 0 or _find(list(run), c) >= 0 for c in chosen):
            continue
        chosen.append(run)
    return [_template(block, run, occurrences[run], paragraphs) for run in chosen], share


_CLOSING = ")]\"'.,;:!?"


def _template(
    block: str, run: tuple[str, ...], places: list[tuple[int, int]], paragraphs: list[Source]
) -> Template:
    places = sorted(
        places, key=lambda pl: (paragraphs[pl[0]].decided_on or "", paragraphs[pl[0]].final)
    )
    first, at = places[0]
    source = paragraphs[first]
    toks = source.toks[at : at + len(run)]
    text = source.text
    pieces: list[str] = []
    cursor = toks[0].start
    for tok in toks:
        pieces.append(text[cursor : tok.start])
        pieces.append(tok.key if tok.slot else text[tok.start : tok.end])
        cursor = tok.end
    rest = text[cursor:]
    closing = rest[: len(rest) - len(rest.lstrip(_CLOSING))]
    body = ("".join(pieces) + closing).strip()
    goes_on = False
    sources = []
    for n, i in places:
        p = paragraphs[n]
        span = p.toks[i : i + len(run)]
        tail = fold_quotes(p.text[span[-1].end :])
        punct = tail[: len(tail) - len(tail.lstrip(_CLOSING))]
        after = tail[len(punct) :]
        if after.strip() and not any(ch in _SENTENCE_END for ch in punct + after[:1]):
            goes_on = True
        sources.append(
            {
                "case_number": p.case_number,
                "doc_id": p.doc_id,
                "document_id": p.document_id,
                "char_start": p.char_start + span[0].start,
                "char_end": p.char_start + span[-1].end,
            }
        )
    if goes_on:
        body += " {text}"
    slots = [s.strip("{}") for s in SLOTS if s in body]
    types: dict[str, int] = defaultdict(int)
    for n, _ in places:
        appeal_type = paragraphs[n].appeal_type
        if appeal_type:
            types[appeal_type] += 1
    return Template(
        block=block,
        text=body,
        slots=slots,
        support=len(places),
        examples=[paragraphs[n].case_number or paragraphs[n].final for n, _ in places],
        sources=sources,
        appeal_types=dict(types),
        words=_words(run),
    )
