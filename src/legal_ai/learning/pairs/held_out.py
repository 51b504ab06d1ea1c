"""The held-out measure of a final (learning/pairs/finals.py, on upload; DESIGN §7): our draft
aligned with the chair's final block by block, and the style distance between them, taken
before any lesson of the case is folded: edits, anti-patterns, block-length ratios against
hers (measured over her other finals), stylometric delta — and her usual then (`usual_of`: the
median of each over the other cases' latest rows), stored with the row so that what the case
page says of this final ("better than usual") never changes as later finals arrive."""

from __future__ import annotations

import statistics
from typing import Any

from ...errors import InvalidInput
from ...store import drafts_lessons as store
from ...text import blocks as text_blocks
from ...text.phrases import count_phrases
from ..methodology import merged_profile
from .alignment import align, block_shares, change_percent, ratio_deviation
from .stylometry import burrows_delta, measure_corpus_ratios

USUAL_KEYS = ("change_percent", "anti_pattern_total", "ratio_deviation", "stylometric_delta")
MIN_USUAL = 3  # "your usual" rests on at least this many of her other finals


def usual_of(rows: list[dict]) -> dict[str, Any]:
    """Her usual over `rows` (the other cases' latest held-out rows): how many finals, and the
    median of each measure (None where none has it)."""
    out: dict[str, Any] = {"finals": len(rows)}
    for key in USUAL_KEYS:
        values = [r[key] for r in rows if r.get(key) is not None]
        out[key] = statistics.median(values) if values else None
    return out


def chair_ratios(
    conn, profile: dict, finals: list[dict] | None = None
) -> tuple[dict[str, float], list[dict]]:
    """The chair's block-length ratios measured over her finals in the style corpus (the
    profile's golden ratios when none can be read), and the finals' blocks."""
    finals = store.style_finals(conn) if finals is None else finals
    found = []
    for row in finals:
        try:
            found.append(text_blocks.segment(row["content"], profile.get("blocks", {})).blocks)
        except InvalidInput:
            continue
    return measure_corpus_ratios(found) or profile.get("golden_ratios") or {}, found


def measure(conn, case: str, draft: dict, final_blocks: dict, final_text: str) -> dict:
    """Block alignment and the held-out style distance of our draft to the chair's final: what
    does not depend on the pair's row. It reads (the profile, her other finals) and computes,
    so an upload runs it before its write transaction (Store.reading); `rows` completes it."""
    profile = merged_profile(conn, draft["appeal_type"])
    diffs = align(draft["blocks"], final_blocks)
    edits = sum(d.edit_distance for d in diffs)
    draft_words = sum(d.draft_words for d in diffs)
    final_words = sum(d.final_words for d in diffs)
    anti = profile.get("anti_patterns", [])
    draft_anti = count_phrases(draft["content"], anti)
    final_anti = count_phrases(final_text, anti)
    past = store.style_finals(conn, exclude_case=case)
    past_texts = [r["content"] for r in past]
    ratios, past_blocks = chair_ratios(conn, profile, past)
    draft_shares = block_shares(draft["blocks"])
    final_shares = block_shares(final_blocks)
    metrics: dict[str, Any] = {
        "blocks": {d.block: d.as_dict() for d in diffs},
        "unchanged_blocks": [d.block for d in diffs if d.unchanged],
        "draft_anti_patterns": draft_anti,
        "final_anti_patterns": final_anti,
        "draft_block_shares": draft_shares,
        "final_block_shares": final_shares,
        "profile_block_shares": ratios,
        "final_ratio_deviation": ratio_deviation(final_shares, ratios),
        "final_stylometric_delta": burrows_delta(final_text, past_texts),
        "draft_words": draft_words,
        "final_words": final_words,
        "draft_version": draft["version"],
        "usual": usual_of(store.latest_of_others(conn, case)),
    }
    return {
        "draft_id": draft["id"],
        "appeal_type": draft["appeal_type"],
        "outcome": draft["outcome"],
        "anti_pattern_total": sum(draft_anti.values()),
        "final_anti_pattern_total": sum(final_anti.values()),
        "ratio_deviation": ratio_deviation(draft_shares, ratios),
        "change_percent": change_percent(diffs),
        "word_edit_distance": edits,
        "stylometric_delta": burrows_delta(draft["content"], past_texts),
        "profile_finals": len(past_blocks),
        "lesson_pool_size": store.lesson_pool_size(conn),
        "metrics": metrics,
    }


def rows(measured: dict, pair: dict) -> tuple[dict, dict]:
    """The pair's analysis and its held-out history row, from `measure` and the pair as the
    upload's transaction left it."""
    history = {
        "pair_id": pair["id"],
        "case_number": pair["case_number"],
        "final_version": pair["final_version"],
        **{k: v for k, v in measured.items() if k != "draft_id"},
        "held_out": pair["status"] in ("final_received", "analyzed"),
    }
    metrics = measured["metrics"]
    analysis = {
        "blocks": metrics["blocks"],
        "unchanged_blocks": metrics["unchanged_blocks"],
        "change_percent": history["change_percent"],
    }
    return analysis, history
