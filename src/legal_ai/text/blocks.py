"""Segment a decision into its 12 blocks (DESIGN §7) from its headings.

The heading patterns are not here: they come from the chair's methodology profile (`blocks` in
the universal profile: `order`, `headings` — one regular expression per block, matched against
a whole line, optionally numbered or ending with a colon — and `signature_start`). The header is
everything before the first heading; the signature starts at the line matching
`signature_start`. Blocks that cannot be found are reported, never guessed. A document's
footnotes and endnotes, kept after its body (text/notes.py), are in no block.

The patterns are the chair's data, so they run under a time limit: compiled with the `regex`
package, whose matching functions take a `timeout` (in process, no fork per match, and the same
engine checks a pattern when the methodology is edited: `check_pattern`). A stored pattern that
runs away refuses the upload with a message naming it, instead of hanging it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

import regex

from ..errors import InvalidInput
from .hebrew import fold_quotes
from .notes import body_end

BLOCKS: tuple[str, ...] = (
    "header",
    "opening",
    "background",
    "subject",
    "decision_under_appeal",
    "appellants_claims",
    "respondents_claims",
    "hearing",
    "legal_framework",
    "discussion",
    "conclusion",
    "signature",
)
MIN_HEADINGS = 3  # fewer recognizable headings than this: not a decision we can read
MAX_HEADING_CHARS = 60  # longer lines are never headings
DEFAULT_SIGNATURE = "ניתנה היום"
# One match of a profile pattern against one line takes microseconds; a second means the
# pattern backtracks without bound. It is then remembered (per process) and refused at once.
MATCH_SECONDS = 1.0
PROBE_SECONDS = 0.25  # check_pattern: each pathological probe
_RUNAWAY: set[str] = set()


_FIX = "fix it with `legal-ai methodology edit`"


def compile_pattern(pattern: str, what: str, *, signature: bool = False) -> regex.Pattern:
    """A profile pattern as segmentation applies it (a heading: the whole line; the signature:
    the start of a line). InvalidInput naming `what` when it is not a regular expression."""
    if not isinstance(pattern, str) or not pattern.strip():
        raise InvalidInput(
            f"{what}: the pattern is empty or not text; write a regular expression",
            code="pattern.invalid",
        )
    try:
        return _compile(rf"^\s*(?:{pattern})" if signature else rf"(?:{pattern})")
    except (regex.error, ValueError, OverflowError, RecursionError) as exc:
        raise InvalidInput(
            f"{what}: not a valid regular expression ({exc})", code="pattern.invalid"
        ) from None


@functools.lru_cache(maxsize=256)
def _compile(source: str) -> regex.Pattern:
    return regex.compile(source)


def _match(compiled: regex.Pattern, line: str, what: str, *, whole: bool) -> bool:
    if compiled.pattern in _RUNAWAY:
        raise InvalidInput(
            f"{what}: this pattern ran away on an earlier text; {_FIX}", code="pattern.backtracks"
        )
    try:
        method = compiled.fullmatch if whole else compiled.match
        return method(line, timeout=MATCH_SECONDS) is not None
    except TimeoutError:
        _RUNAWAY.add(compiled.pattern)
        raise InvalidInput(
            f"{what}: matching one line took over {MATCH_SECONDS:g} s (catastrophic "
            f"backtracking); {_FIX}",
            code="pattern.backtracks",
        ) from None


def _probes(pattern: str) -> list[str]:
    """Lines that make a backtracking pattern run away: long runs of the characters the pattern
    names (and of letters, digits, spaces), alone, spaced and as the pattern's own words, then a
    character that fails the match (so every way of splitting the run is tried) and the
    pattern's words (so a search for a required word does not skip the line)."""
    literal = " ".join("".join(ch if ch.isalnum() else " " for ch in pattern).split())
    chars = [ch for ch in dict.fromkeys(literal) if ch != " "][:24]
    length, tail = 20000, "\x01" + literal
    probes = []
    for ch in dict.fromkeys([*chars, "a", "א", "1", " ", "\t"]):
        probes += [ch * length + tail, (ch + " ") * (length // 2) + tail]
    for word in dict.fromkeys([literal, literal.replace(" ", ""), *literal.split()]):
        if word:
            repeat = max(1, length // len(word))
            probes += [word * repeat + tail, word + word[-1] * length + tail]
    return probes


def check_pattern(pattern: str, what: str, *, signature: bool = False) -> None:
    """Compile a profile pattern and time-box it against pathological lines: InvalidInput
    naming `what` when it is not a regular expression or backtracks without bound (such as
    `(a+)+$` or `(a|aa)+$`). Run before a methodology edit is saved."""
    compiled = compile_pattern(pattern, what, signature=signature)
    for probe in _probes(pattern):
        try:
            compiled.match(probe, timeout=PROBE_SECONDS)
            compiled.fullmatch(probe[:MAX_HEADING_CHARS], timeout=PROBE_SECONDS)
        except TimeoutError:
            raise InvalidInput(
                f"{what}: the pattern {pattern!r} backtracks without bound on a long line "
                "(nested or overlapping repetition such as (a+)+ or (a|aa)+); rewrite it "
                "without the nested repetition",
                code="pattern.backtracks",
            ) from None


@dataclass
class Segmentation:
    blocks: dict[str, str]  # block -> its text without the heading ("" when missing)
    headings: dict[str, str] = field(default_factory=dict)  # block -> the heading line found
    missing: list[str] = field(default_factory=list)
    out_of_order: list[str] = field(default_factory=list)


def heading_line(line: str) -> str:
    """A line as a heading pattern is matched against it: quotes folded, its numbering
    ("א." / "3)") and final colon taken off."""
    line = fold_quotes(line).strip()
    line = re.sub(r"^(?:[א-ת]|\d{1,2})[.)]\s+", "", line)  # "א. רקע" / "3) דיון"
    return line.rstrip(":").strip()


def segment(text: str, spec: dict) -> Segmentation:
    """Split `text` by the profile's block spec. Raises InvalidInput when fewer than
    MIN_HEADINGS headings are recognizable (not a decision, or another format)."""
    patterns = {
        block: compile_pattern(pattern, f"methodology blocks.headings.{block}")
        for block, pattern in (spec.get("headings") or {}).items()
    }
    order: list[str] = list(spec.get("order") or BLOCKS)
    order += [b for b in (*patterns, "signature") if b not in order]  # a partial order
    signature_what = "methodology blocks.signature_start"
    signature = compile_pattern(
        spec.get("signature_start", DEFAULT_SIGNATURE), signature_what, signature=True
    )
    # A document's footnotes and endnotes follow its body (text/notes.py): not a block's text.
    text = text[: body_end(text)]
    lines = text.replace("\r\n", "\n").split("\n")
    starts: list[tuple[int, str, str]] = []  # (line index, block, heading)
    seen: set[str] = set()
    for index, line in enumerate(lines):
        candidate = heading_line(line)
        if not candidate or len(candidate) > MAX_HEADING_CHARS:
            continue
        for block, pattern in patterns.items():
            what = f"methodology blocks.headings.{block}"
            if block not in seen and _match(pattern, candidate, what, whole=True):
                starts.append((index, block, line.strip()))
                seen.add(block)
                break
        else:
            if (
                "signature" not in seen
                and starts
                and _match(signature, line, signature_what, whole=False)
            ):
                starts.append((index, "signature", ""))
                seen.add("signature")
    if len([s for s in starts if s[1] != "signature"]) < MIN_HEADINGS:
        raise InvalidInput(
            "no decision blocks found: expected headings such as 'פתח דבר', 'רקע עובדתי', "
            "'דיון והכרעה', 'סוף דבר' on lines of their own (the methodology profile lists them)",
            code="file.no_blocks",
            field="file",
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


# Each block as the chair names it (the desk, the dashboard; the same as decision_blocks.label_he).
BLOCK_LABELS = {
    "header": "כותרת",
    "opening": "פתח דבר",
    "background": "רקע עובדתי",
    "subject": "נשוא הערר",
    "decision_under_appeal": "ההחלטה נשוא הערר",
    "appellants_claims": "טענות העוררים",
    "respondents_claims": "טענות המשיבים",
    "hearing": "הדיון בפנינו",
    "legal_framework": "המסגרת הנורמטיבית",
    "discussion": "דיון והכרעה",
    "conclusion": "סוף דבר",
    "signature": "חתימה",
}


# -- the chair a decision names -----------------------------------------------------------------

# "בפני:" / "לפני:" at the head of a line of the header (the panel the decision was given before).
_BEFORE = re.compile(r"^\s*(?:בפני|לפני)\s*:\s*(.*)$")
_CHAIR_ROLE = 'יו"ר'
_ROLE_CUT = re.compile(r"\s*(?:,|;|\s[-–—]\s).*$")  # "X, יו"ר ..." / "X – יו"ר": the name is X
_PARENTHESES = re.compile(r"\s*\([^)]*\)")
_NAME = re.compile(r"^[\u05d0-\u05ea'\". ]+$")  # Hebrew letters, geresh, gershayim, dots, spaces
MAX_NAME_WORDS = 6


def _name(line: str) -> str | None:
    """The person's name of a line that names one ("עו"ד רותם לוי, יו"ר הוועדה" -> "עו"ד רותם
    לוי"): its role and remarks in parentheses dropped; None when what is left is not a name."""
    text = _PARENTHESES.sub("", fold_quotes(line)).strip()
    text = _ROLE_CUT.sub("", text).strip()
    if text.startswith(_CHAIR_ROLE):
        return None
    words = text.split()
    if not words or len(words) > MAX_NAME_WORDS or not _NAME.match(text):
        return None
    return " ".join(words)


def _before_line(header: str) -> str | None:
    """The chair in the header's "בפני:" line: its rest, or the lines right after it (the one
    marked יו"ר when several are listed, else the first)."""
    lines = [fold_quotes(line).strip() for line in header.splitlines()]
    for index, line in enumerate(lines):
        found = _BEFORE.match(line)
        if found is None:
            continue
        named = [part for part in found.group(1).split(";") if part.strip()]
        if not named:
            after = lines[index + 1 : index + 1 + MAX_NAME_WORDS]
            named = [x for x in after[: after.index("")] if x] if "" in after else after
        chosen = next((n for n in named if _CHAIR_ROLE in n), named[0] if named else "")
        return _name(chosen)
    return None


def _signed(signature: str) -> str | None:
    """The chair in the signature block: the name on the line marked יו"ר, or on the line above
    it ("רותם לוי, עו"ד" over "יו"ר ועדת הערר")."""
    lines = [line.strip() for line in fold_quotes(signature).splitlines() if line.strip()]
    for index, line in enumerate(lines):
        if _CHAIR_ROLE not in line:
            continue
        own = _name(line.split(_CHAIR_ROLE)[0])
        if own:
            return own
        if index > 0:
            return _name(lines[index - 1])
    return None


def chair_named(blocks: dict[str, str]) -> str | None:
    """The committee chair a segmented decision names (`segment`'s blocks): in the header's
    "בפני:" line, else in the signature block beside "יו"ר"; None when it names none (never
    guessed: a line that is not a name gives None)."""
    return _before_line(blocks.get("header") or "") or _signed(blocks.get("signature") or "")
