"""Segment a decision into its 12 blocks (DESIGN §7) from its headings.

The heading patterns are not here: they come from the chair's methodology profile (`blocks` in
the universal profile: `order`, `headings` — one regular expression per block, matched against
a whole line, optionally numbered or ending with a colon — and `signature_start`). The header is
everything before the first heading; the signature starts at the line matching
`signature_start`. Blocks that cannot be found are reported, never guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import InvalidInput
from .hebrew import fold_quotes

BLOCKS: tuple[str, ...] = (
    "header", "opening", "background", "subject", "decision_under_appeal", "appellants_claims",
    "respondents_claims", "hearing", "legal_framework", "discussion", "conclusion", "signature",
)  # fmt: skip
MIN_HEADINGS = 3  # fewer recognizable headings than this: not a decision we can read


@dataclass
class Segmentation:
    blocks: dict[str, str]  # block -> its text without the heading ("" when missing)
    headings: dict[str, str] = field(default_factory=dict)  # block -> the heading line found
    missing: list[str] = field(default_factory=list)
    out_of_order: list[str] = field(default_factory=list)


def _heading_line(line: str) -> str:
    line = fold_quotes(line).strip()
    line = re.sub(r"^(?:[א-ת]|\d{1,2})[.)]\s+", "", line)  # "א. רקע" / "3) דיון"
    return line.rstrip(":").strip()


def segment(text: str, spec: dict) -> Segmentation:
    """Split `text` by the profile's block spec. Raises InvalidInput when fewer than
    MIN_HEADINGS headings are recognizable (not a decision, or another format)."""
    order: list[str] = list(spec.get("order") or BLOCKS)
    patterns = {
        block: re.compile(rf"(?:{pattern})") for block, pattern in spec.get("headings", {}).items()
    }
    signature = re.compile(rf"^\s*(?:{spec.get('signature_start', 'ניתנה היום')})")
    lines = text.replace("\r\n", "\n").split("\n")
    starts: list[tuple[int, str, str]] = []  # (line index, block, heading)
    seen: set[str] = set()
    for index, line in enumerate(lines):
        candidate = _heading_line(line)
        if not candidate or len(candidate) > 60:
            continue
        for block, pattern in patterns.items():
            if block not in seen and pattern.fullmatch(candidate):
                starts.append((index, block, line.strip()))
                seen.add(block)
                break
        else:
            if "signature" not in seen and starts and signature.match(line):
                starts.append((index, "signature", ""))
                seen.add("signature")
    if len([s for s in starts if s[1] != "signature"]) < MIN_HEADINGS:
        raise InvalidInput(
            "no decision blocks found: expected headings such as 'פתח דבר', 'רקע עובדתי', "
            "'דיון והכרעה', 'סוף דבר' on lines of their own (the methodology profile lists them)"
        )
    blocks = dict.fromkeys(order, "")
    headings: dict[str, str] = {}
    blocks["header"] = "\n".join(lines[: starts[0][0]]).strip()
    for position, (index, block, heading) in enumerate(starts):
        end = starts[position + 1][0] if position + 1 < len(starts) else len(lines)
        body_from = index if block == "signature" else index + 1
        blocks[block] = "\n".join(lines[body_from:end]).strip()
        if heading:
            headings[block] = heading
    found_order = [block for _, block, _ in starts]
    expected = [b for b in order if b in found_order]
    out_of_order = [b for b, e in zip(found_order, expected, strict=True) if b != e]
    missing = [b for b in order if not blocks.get(b)]
    return Segmentation(blocks, headings, missing, out_of_order)
