"""Contrastive pairs (07-learning §0.2 channel B): where our draft and the chair's
final of an analyzed pair differ, as (our wording -> her wording) with the word-level diff,
served per block: "write like the right side, not the left".

For each analyzed pair (draft_final_pairs at `analyzed` or `lessons_folded`), the block's words
on both sides are aligned (difflib on learning/pairs/alignment.py's comparison keys, `autojunk=False`)
and cut along her paragraphs: each paragraph of the final gets the stretch of our draft the
alignment maps onto it (words we dropped at a paragraph's start go with that paragraph). A
pair whose two sides are equal, or either side shorter than MIN_WORDS, or sharing less than
MIN_SHARED of the shorter side's words (a paragraph she added, removed or wrote anew is content,
not wording), is no example.

Only style is served (INV-LRN5, the purity rules of learning/checks/purity.py): a pair is dropped when
its difference is substance: a number, date, amount, plan or parcel, address, citation (ruling
or statute) or party name that one side has and the other has not (a number moved within the
sentence is not a change), a number written in words, or the outcome and its operative terms
(נדחה / מתקבל / מוחזר / יותנה …).

Examples are ranked by how much changed (1 - difflib's ratio: the paragraphs where we were
furthest from her first), one per case before a second of any case, each with its provenance: case number,
block and the character spans of both sides (the draft's id and version; the final's doc_id in
the style corpus).
"""

from __future__ import annotations

import difflib
from collections import Counter
from typing import TYPE_CHECKING, Literal, NotRequired, TypedDict

from ..errors import InvalidInput
from ..learning import vocabulary as vocab
from ..learning.checks import (
    Word,
    block_spans,
    fold,
    keyed_words,
    purity,
    through_punctuation,
    word_key,
)
from ..store import drafts_lessons as learning_store
from ..text import citations
from ..text.blocks import BLOCKS

if TYPE_CHECKING:
    from ..context import Context

INSTRUCTION = "write like the right side, not the left"
INSTRUCTION_HE = 'כתבו כמו הצד הימני (נוסח היו"ר), לא כמו השמאלי (הטיוטה שלנו)'
MAX_K = 50
_PARAGRAPH_GAP = "\n\n"

# Numbers in words (a count, a floor, an age): facts. "אחד/אחת" are left out (אחד הטעמים).
NUMBER_WORDS = frozenset(
    word_key(w)
    for w in (
        "שניים שתיים שני שתי שלוש שלושה ארבע ארבעה חמש חמישה שש שישה שבע שבעה שמונה תשע תשעה "
        "עשר עשרה עשרים שלושים ארבעים חמישים שישים שבעים שמונים תשעים מאה מאתיים מאות אלף "
        "אלפיים אלפים מיליון"
    ).split()
)
# The outcome of the appeal and its operative terms: one vocabulary with the lessons' purity.
OUTCOME_WORDS = purity.OUTCOME_WORDS
MIN_WORDS = 4  # words on each side of an example
# Words the two sides share, at least this share of the shorter side: below it she did not
# reword our paragraph but wrote another one (content, not wording).
MIN_SHARED = 0.4


class DiffPiece(TypedDict):
    """One piece of the diff of our words against hers (difflib's operation)."""

    op: Literal["equal", "replace", "delete", "insert"]
    left: str
    right: str


class DraftSpan(TypedDict):
    """Where our words lie in the draft."""

    draft_id: int
    draft_version: int
    char_start: int
    char_end: int


class FinalSpan(TypedDict):
    """Where her words lie in her final."""

    doc_id: str
    char_start: int
    char_end: int


class Spans(TypedDict):
    draft: DraftSpan
    final: FinalSpan


class Contrast(TypedDict):
    """One paragraph of a block as our draft wrote it (`left`) and as she rewrote it
    (`right`), the diff, the share of words changed and where both lie."""

    case_number: str
    block: str
    appeal_type: str | None
    left: str
    right: str
    diff: list[DiffPiece]
    diff_text: str
    share_changed: float
    spans: Spans


class Contrasts(TypedDict):
    """MCP get_contrastive_examples, `legal-ai contrastive`, GET /api/contrastive/{block}: her rewrites of our drafts
    in a block, the instruction, how many pairs were read and how many examples were left out
    as substance, and a note when there is none."""

    block: str
    appeal_type: str | None
    instruction: str
    instruction_he: str
    examples: list[Contrast]
    pairs_considered: int
    dropped_as_substance: int
    note: NotRequired[str]


def _paragraph_starts(text: str, words: list[Word], base: int) -> list[int]:
    """Word indices where her paragraphs start (a blank line before them)."""
    starts = [0]
    for i in range(1, len(words)):
        if _PARAGRAPH_GAP in text[words[i - 1].end - base : words[i].start - base]:
            starts.append(i)
    return starts


def _boundary(opcodes: list, j: int, left_len: int, right_len: int) -> int:
    """The draft word index the alignment maps her word boundary `j` onto."""
    if j >= right_len:
        return left_len
    for tag, i1, i2, j1, j2 in opcodes:
        if j1 == j:
            return i1
        if j1 < j < j2:
            if tag == "equal":
                return i1 + (j - j1)
            return i1 + round((j - j1) * (i2 - i1) / (j2 - j1))
    return left_len


def _end(full: str, words: list[Word]) -> int:
    """Where a side ends: after its last word and the punctuation closing it."""
    return through_punctuation(full, words[-1].end)


def _piece(full: str, words: list[Word], i: int, j: int) -> str:
    """Words i..j-1 with what follows them up to the next word (its punctuation and spaces), so
    that the pieces of a diff put together are the side's text exactly."""
    if i >= j:
        return ""
    end = words[j].start if j < len(words) else _end(full, words)
    return full[words[i].start : end]


def _count(haystack: str, needle: str) -> int:
    return f" {haystack} ".count(f" {needle} ") if needle else 0


def _numbers(text: str) -> Counter:
    """The numbers of a text as words (a date is three; paragraph numbers are not counted)."""
    return Counter(w.key for w in keyed_words(text) if any(ch.isdigit() for ch in w.key))


def _substance(left: str, right: str, changed: list[str], names: set[str]) -> str | None:
    """Why the difference between `left` and `right` is substance (None: it is style)."""
    cited_left = Counter(c.ref for c in citations.extract(left))
    cited_right = Counter(c.ref for c in citations.extract(right))
    for ref in cited_left.keys() | cited_right.keys():
        if cited_left[ref] != cited_right[ref]:
            return f"a citation ({ref})"
    numbers_left, numbers_right = _numbers(left), _numbers(right)
    if numbers_left != numbers_right:
        changed_numbers = (numbers_left - numbers_right) + (numbers_right - numbers_left)
        return f"a number ({', '.join(sorted(changed_numbers))})"
    folded_left, folded_right = fold(left), fold(right)
    for part in changed:
        for finding in purity.check(part, names):
            if finding.rule in ("holding", "ruling_citation", "statute_citation"):
                continue  # citations: compared above; holdings: by the outcome words below
            key = fold(finding.match)
            if _count(folded_left, key) != _count(folded_right, key):
                return finding.describe()
    keys_left = folded_left.split()
    keys_right = folded_right.split()
    for words, what in ((NUMBER_WORDS, "a number in words"), (OUTCOME_WORDS, "the outcome")):
        if sorted(k for k in keys_left if k in words) != sorted(
            k for k in keys_right if k in words
        ):
            return what
    return None


def _block_words(row: dict, block: str) -> tuple | None:
    """Our draft's and her final's words of `block` (left, right), the texts their offsets point
    into, and her block with its offset; None when either side has no words there."""
    draft_text, final_text = row["draft_content"], row["final_content"]
    left_block = (row["draft_blocks"] or {}).get(block) or ""
    right_block = (row["final_blocks"] or {}).get(block) or ""
    if not left_block.strip() or not right_block.strip():
        return None
    left_at = block_spans(draft_text, row["draft_blocks"]).get(block)
    right_at = block_spans(final_text, row["final_blocks"]).get(block)
    # Offsets into the whole texts when the block is found there, else into the block itself.
    left_base = left_at[0] if left_at else 0
    right_base = right_at[0] if right_at else 0
    left_src = draft_text if left_at else left_block
    right_src = final_text if right_at else right_block
    left = keyed_words(left_block, left_base)
    right = keyed_words(right_block, right_base)
    if not left or not right:
        return None
    return left, right, left_src, right_src, right_block, right_base


def _rewording(
    left_src: str, right_src: str, ours: list[Word], hers: list[Word], local: list
) -> tuple[str, str, int, int, list[DiffPiece], list[str]]:
    """Our words and hers as texts (with their ends), the diff between them and the pieces
    that changed."""
    ours_end, hers_end = _end(left_src, ours), _end(right_src, hers)
    ours_text = left_src[ours[0].start : ours_end]
    hers_text = right_src[hers[0].start : hers_end]
    diff: list[DiffPiece] = []
    changed: list[str] = []
    for op, i1, i2, j1, j2 in local:
        was, now = _piece(left_src, ours, i1, i2), _piece(right_src, hers, j1, j2)
        diff.append({"op": op, "left": was, "right": now})
        if op != "equal":
            changed += [t for t in (was, now) if t]
    return ours_text, hers_text, ours_end, hers_end, diff, changed


def _example(
    row: dict,
    block: str,
    ours: list[Word],
    hers: list[Word],
    ours_text: str,
    hers_text: str,
    ours_end: int,
    hers_end: int,
    diff: list[DiffPiece],
    matcher: difflib.SequenceMatcher,
) -> Contrast:
    return {
        "case_number": row["case_number"],
        "block": block,
        "appeal_type": row["appeal_type"],
        "left": ours_text,
        "right": hers_text,
        "diff": diff,
        "diff_text": _diff_text(diff),
        "share_changed": round(1 - matcher.ratio(), 4),
        "spans": {
            "draft": {
                "draft_id": row["draft_id"],
                "draft_version": row["draft_version"],
                "char_start": ours[0].start,
                "char_end": ours_end,
            },
            "final": {
                "doc_id": row["final_doc_id"],
                "char_start": hers[0].start,
                "char_end": hers_end,
            },
        },
    }


def pair_examples(row: dict, block: str) -> tuple[list[Contrast], int]:
    """The contrastive examples of one analyzed pair in `block`, and how many were dropped as
    substance."""
    words = _block_words(row, block)
    if words is None:
        return [], 0
    left, right, left_src, right_src, right_block, right_base = words
    opcodes = difflib.SequenceMatcher(
        None, [w.key for w in left], [w.key for w in right], autojunk=False
    ).get_opcodes()
    names = purity.party_names((row["final_blocks"] or {}).get("header", "")) | purity.party_names(
        (row["draft_blocks"] or {}).get("header", "")
    )
    starts = _paragraph_starts(right_block, right, right_base)
    examples: list[Contrast] = []
    dropped = 0
    for n, a in enumerate(starts):
        b = starts[n + 1] if n + 1 < len(starts) else len(right)
        ia = _boundary(opcodes, a, len(left), len(right))
        ib = _boundary(opcodes, b, len(left), len(right))
        ours, hers = left[ia:ib], right[a:b]
        if not ours or not hers:
            continue
        if len(ours) < MIN_WORDS or len(hers) < MIN_WORDS:
            continue
        matcher = difflib.SequenceMatcher(
            None, [w.key for w in ours], [w.key for w in hers], autojunk=False
        )
        local = matcher.get_opcodes()
        shared = sum(i2 - i1 for op, i1, i2, _, _ in local if op == "equal")
        if shared == max(len(ours), len(hers)) or shared < MIN_SHARED * min(len(ours), len(hers)):
            continue  # the same words, or not a rewording of ours
        ours_text, hers_text, ours_end, hers_end, diff, changed = _rewording(
            left_src, right_src, ours, hers, local
        )
        if _substance(ours_text, hers_text, changed, names):
            dropped += 1
            continue
        examples.append(
            _example(
                row, block, ours, hers, ours_text, hers_text, ours_end, hers_end, diff, matcher
            )
        )
    return examples, dropped


def _diff_text(diff: list[DiffPiece]) -> str:
    """The diff in one line: [-ours-]{+hers+} around what changed."""
    parts = []
    for op in diff:
        was, now = op["left"].strip(), op["right"].strip()
        if op["op"] == "equal":
            parts.append(was)
            continue
        if was:
            parts.append(f"[-{was}-]")
        if now:
            parts.append(f"{{+{now}+}}")
    return " ".join(parts)


def _ranked(examples: list[Contrast], k: int) -> list[Contrast]:
    """Most changed first, one example per case before a second of any case."""
    ordered = sorted(examples, key=lambda e: (-e["share_changed"], -len(e["right"])))
    seen: dict[str, int] = {}
    rounds = []
    for example in ordered:
        rank = seen.get(example["case_number"], 0)
        seen[example["case_number"]] = rank + 1
        rounds.append((rank, example))
    return [e for _, e in sorted(rounds, key=lambda r: r[0])][:k]


def get_contrastive_examples(
    app: Context, block: str, appeal_type: str | None = None, k: int = 5
) -> Contrasts:
    """The chair's rewrites of our drafts in `block` (optionally of one appeal type), at most
    `k`, style only, each with its provenance and the instruction."""
    if block not in BLOCKS:
        raise InvalidInput(
            f"unknown block {block!r}; choose one of: {', '.join(BLOCKS)}",
            code="choice.unknown",
            field="block",
        )
    appeal_type = vocab.choice(appeal_type, vocab.APPEAL_TYPES, "appeal type")
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= MAX_K:
        raise InvalidInput(
            f"k must be a whole number from 1 to {MAX_K}", code="number.out_of_range", field="k"
        )
    with app.store.connection() as conn:
        rows = learning_store.analyzed_pairs(conn, appeal_type)
    found: list[Contrast] = []
    dropped = 0
    for row in rows:
        examples, gone = pair_examples(row, block)
        found += examples
        dropped += gone
    result: Contrasts = {
        "block": block,
        "appeal_type": appeal_type,
        "instruction": INSTRUCTION,
        "instruction_he": INSTRUCTION_HE,
        "examples": _ranked(found, k),
        "pairs_considered": len(rows),
        "dropped_as_substance": dropped,
    }
    if not rows:
        which = f"of appeal type {appeal_type} " if appeal_type else ""
        result["note"] = (
            f"no analyzed draft/final pair {which}yet: examples come once a final "
            "arrives for a case whose draft was registered"
        )
    elif not result["examples"]:
        result["note"] = (
            f"the analyzed pairs differ in {block} only in substance (or not at "
            "all): no style example to show"
        )
    return result
