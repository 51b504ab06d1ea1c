"""Pair a draft and a final block by block and measure the distance between them (07-learning
§0.7): a word-level diff on normalized, prefix-aware Hebrew tokens per block (difflib with
`autojunk=False`, so frequent words are never dropped from the comparison), the share of each
block that changed, unchanged blocks, and the anti-patterns of the methodology counted."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from ...text.blocks import BLOCKS
from ...text.hebrew import comparison_key, tokens

BODY_BLOCKS = BLOCKS[1:-1]  # opening .. conclusion: what block-length ratios are measured on


def word_keys(text: str) -> list[str]:
    """Comparison keys of a text's words: normalized (niqqud, quotes), spelling folded
    (וו→ו, יי→י) and without prefix letters while four letters remain (והוועדה = הוועדה)."""
    return [comparison_key(token) for token in tokens(text)]


def edit_distance(a: list[str], b: list[str]) -> int:
    """Words inserted, deleted or replaced to turn `a` into `b` (a replace of n by m words
    counts max(n, m))."""
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return sum(
        max(i2 - i1, j2 - j1) for op, i1, i2, j1, j2 in matcher.get_opcodes() if op != "equal"
    )


@dataclass(frozen=True)
class BlockDiff:
    block: str
    draft_words: int
    final_words: int
    edit_distance: int

    @property
    def share_changed(self) -> float:
        return round(self.edit_distance / max(self.draft_words, self.final_words, 1), 4)

    @property
    def unchanged(self) -> bool:
        return self.edit_distance == 0 and self.final_words > 0

    def as_dict(self) -> dict:
        return {
            "draft_words": self.draft_words,
            "final_words": self.final_words,
            "edit_distance": self.edit_distance,
            "share_changed": self.share_changed,
            "unchanged": self.unchanged,
        }


def align(draft: dict[str, str], final: dict[str, str]) -> list[BlockDiff]:
    out = []
    for block in BLOCKS:
        a, b = word_keys(draft.get(block, "")), word_keys(final.get(block, ""))
        out.append(BlockDiff(block, len(a), len(b), edit_distance(a, b)))
    return out


def change_percent(diffs: list[BlockDiff]) -> float:
    """The style distance of a pair (`history.change_percent`): word edits over all blocks, as
    a percent of the longer side's words."""
    edits = sum(d.edit_distance for d in diffs)
    words = max(sum(d.draft_words for d in diffs), sum(d.final_words for d in diffs), 1)
    return round(100 * edits / words, 2)


def block_shares(blocks: dict[str, str]) -> dict[str, float]:
    """Each body block's share of the body's words."""
    counts = {block: len(word_keys(blocks.get(block, ""))) for block in BODY_BLOCKS}
    total = sum(counts.values()) or 1
    return {block: round(n / total, 4) for block, n in counts.items()}


def ratio_deviation(shares: dict[str, float], profile: dict[str, float]) -> float | None:
    """Total variation distance between two block-length distributions (0 = the same
    proportions, 1 = disjoint); None without a profile to compare with."""
    if not profile:
        return None
    return round(0.5 * sum(abs(shares.get(b, 0.0) - profile.get(b, 0.0)) for b in BODY_BLOCKS), 4)
