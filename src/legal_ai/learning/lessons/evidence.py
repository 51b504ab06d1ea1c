"""Lessons rest on her edits: which distilled lessons the system's style panel
may see. The distiller's evidence is first found verbatim in the stored pair (learning/lessons/distill.py:
the spans as they stand in our draft's and her final's blocks, with their offsets — never the
model's claim). Then, on the pair as stored:

- The evidence shows a change of hers: her final's span holds words she wrote (added, or in
  place of ours), or our draft's span holds words of ours she removed — her final's span being
  the context where they stood. Evidence made of text she kept on both sides shows nothing she
  changed.
- The lesson does not copy our words she removed: a run of COPY_RUN words of the lesson, or
  COPY_SHARE of a short lesson's words, taken from a stretch of our draft that is not in her
  final. An instruction planted in our draft that she deleted never comes back as her lesson.
- The lesson prescribes no outcome and no party's position (learning/checks/purity.py `prescribes`).

A lesson that fails any of these goes to the chair (needs_chair, with the reason) and keeps its
category; one that passes is stored with `evidence_verified`, which the database forces false for
any role but the worker's and requires for every panel decision (migration 0035).
"""

from __future__ import annotations

import difflib

from ...text.hebrew import normalize
from ..checks import Word, keyed_words, purity

COPY_RUN = 5  # words in a row of ours she removed: a copy, whatever the lesson's length
COPY_SHARE = 0.8  # or this share of a short lesson's words (at least MIN_COPY of them)
MIN_COPY = 2


def _aligned(draft_text: str, final_text: str) -> tuple[list[Word], list[Word], set[int], set[int]]:
    """The words of a block on both sides, and the indices of our words she removed (deleted or
    replaced) and of the words she wrote (inserted or in place of ours)."""
    left, right = keyed_words(draft_text or ""), keyed_words(final_text or "")
    matcher = difflib.SequenceMatcher(
        None, [w.key for w in left], [w.key for w in right], autojunk=False
    )
    removed: set[int] = set()
    written: set[int] = set()
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op in ("delete", "replace"):
            removed.update(range(i1, i2))
        if op in ("insert", "replace"):
            written.update(range(j1, j2))
    return left, right, removed, written


def _overlaps(span: dict, words: list[Word], indices: set[int]) -> bool:
    return any(span["start"] < words[i].end and words[i].start < span["end"] for i in indices)


def her_edit(found: dict, draft: dict, final: dict) -> str | None:
    """What of hers `found` (the verified evidence: block, draft and final spans with offsets)
    rests on: "final" (her span holds words she wrote), "removal" (our span holds words she
    removed) or None (both spans are text she kept)."""
    block = found["block"]
    left, right, removed, written = _aligned(draft.get(block, ""), final.get(block, ""))
    if _overlaps(found["final"], right, written):
        return "final"
    if _overlaps(found["draft"], left, removed):
        return "removal"
    return None


def _removed_runs(draft: dict, final: dict) -> list[list[Word]]:
    """Each stretch of our draft's words she removed, block by block."""
    runs: list[list[Word]] = []
    for block in draft:
        left, _, removed, _ = _aligned(draft.get(block, ""), final.get(block, ""))
        run: list[Word] = []
        for i, word in enumerate(left):
            if i in removed:
                run.append(word)
            elif run:
                runs.append(run)
                run = []
        if run:
            runs.append(run)
    return runs


def copies_removed(text: str, draft: dict, final: dict) -> str | None:
    """The words of `text` copied from our draft's words she removed (None: no copy): a run of
    COPY_RUN of them, or COPY_SHARE of a short lesson's words, that her final does not hold
    anywhere (words she moved elsewhere are hers)."""
    norm = normalize(text or "")
    lesson = keyed_words(norm)
    keys = [w.key for w in lesson]
    if len(keys) < MIN_COPY:
        return None
    hers = " " + " ".join(w.key for b in final.values() for w in keyed_words(b or "")) + " "
    for run in _removed_runs(draft, final):
        matcher = difflib.SequenceMatcher(None, keys, [w.key for w in run], autojunk=False)
        at, _, size = matcher.find_longest_match(0, len(keys), 0, len(run))
        if size < MIN_COPY or (size < COPY_RUN and size < COPY_SHARE * len(keys)):
            continue
        if " " + " ".join(keys[at : at + size]) + " " in hers:
            continue
        return norm[lesson[at].start : lesson[at + size - 1].end]
    return None


def to_the_chair(text: str, found: dict, draft: dict, final: dict) -> str | None:
    """Why the lesson `text` with its verified evidence `found` goes to the chair rather than to
    the panel (None: the panel may see it)."""
    copied = copies_removed(text, draft, final)
    if copied:
        return f"rests on our draft: it copies words she removed ({copied[:200]})"
    prescribed = purity.prescribes(text)
    if prescribed:
        return f"not a voice lesson: it {prescribed}"
    if her_edit(found, draft, final) is None:
        return "rests on no edit of hers: both evidence spans are text she kept"
    return None
