"""Channel B of the writer's brief (knowledge/brief.py): her real paragraphs, gathered from the
modules of knowledge/ that serve them (block exemplars, templates, contrastive pairs), each
imported when the brief is asked for, each item with its provenance and ranked so that cutting
from the end drops the least relevant first; never a paragraph of the case being written."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ..errors import AppError

if TYPE_CHECKING:
    from ..context import Context

# The blocks the brief brings exemplars of (where her own voice is; the formulaic blocks come as
# templates), and how many of each.
EXEMPLAR_BLOCKS = ("opening", "hearing", "legal_framework", "discussion", "conclusion")
EXEMPLARS_PER_BLOCK = 2
EXEMPLAR_KEYS = ("block", "text", "case_number", "appeal_type", "outcome", "score")
CONTRASTIVE_BLOCKS = EXEMPLAR_BLOCKS
CONTRASTIVE_PER_BLOCK = 2


def _module(name: str, notes: list[str]) -> Any:
    """knowledge.<name>, imported when the brief is asked for (None, noted, when absent)."""
    try:
        return importlib.import_module(f"{__package__}.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__package__}.{name}":
            raise
        notes.append(f"channel B: knowledge/{name}.py is not installed; its part is empty")
        return None


def _gathered(what: str, notes: list[str], call) -> dict:
    """One channel-B call; an AppError (no finals of this appeal type yet, say) is a note."""
    try:
        result = call()
    except AppError as exc:
        notes.append(f"{what}: {exc}")
        return {}
    for note in (result or {}).get("notes", []) or []:
        notes.append(f"{what}: {note}")
    if (result or {}).get("note"):
        notes.append(f"{what}: {result['note']}")
    return result or {}


def _round_robin(ranked: list[list[dict]]) -> list[dict]:
    """Every block's best, then every block's second...: cutting from the end drops the
    lowest-ranked items of every block before any block loses its best."""
    out = []
    for rank in range(max((len(items) for items in ranked), default=0)):
        out += [items[rank] for items in ranked if rank < len(items)]
    return out


def _exemplars(
    app: Context, appeal_type: str, outcome: str | None, case: str | None, notes: list[str]
) -> list[dict]:
    module = _module("exemplars", notes)
    if module is None:
        return []
    ranked: list[list[dict]] = []
    for block in EXEMPLAR_BLOCKS:
        found = _gathered(
            f"exemplars of {block}",
            notes,
            lambda block=block: module.get_block_exemplars(
                app, block, appeal_type, outcome=outcome, case=case, limit=EXEMPLARS_PER_BLOCK
            ),
        )
        items = []
        for item in found.get("exemplars", []):
            if case is not None and item.get("case_number") == case:
                continue  # never a paragraph of the case being written
            items.append(
                {
                    **{k: item.get(k) for k in EXEMPLAR_KEYS},
                    "provenance": {
                        "channel": "B",
                        "source": "block exemplars (her paragraph of that block)",
                        "corpus": "style",
                        "case_number": item.get("case_number"),
                        "doc_id": item.get("doc_id"),
                        "char_start": item.get("char_start"),
                        "char_end": item.get("char_end"),
                        "decided_on": item.get("decided_on"),
                    },
                }
            )
        ranked.append(items[:EXEMPLARS_PER_BLOCK])
    return _round_robin(ranked)


def _templates(app: Context, appeal_type: str, notes: list[str]) -> list[dict]:
    module = _module("templates", notes)
    if module is None:
        return []
    found = _gathered(
        "templates", notes, lambda: module.get_templates(app, appeal_type=appeal_type)
    )
    out = []
    for item in found.get("templates", []):
        item = dict(item)
        item.setdefault(
            "provenance",
            {
                "channel": "B",
                "source": "templates (recurring nearly verbatim across her finals)",
                "corpus": "style",
                "support": item.get("support"),
                "examples": item.get("examples"),
                "sources": item.pop("sources", None),
            },
        )
        out.append(item)
    # The best supported first: cutting from the end drops the least supported.
    return sorted(out, key=lambda t: -(t.get("support") or 0))


def _contrastive(app: Context, appeal_type: str, case: str | None, notes: list[str]) -> list[dict]:
    module = _module("contrastive", notes)
    if module is None:
        return []
    ranked: list[list[dict]] = []
    instruction = None
    for block in CONTRASTIVE_BLOCKS:
        found = _gathered(
            f"contrastive pairs of {block}",
            notes,
            lambda block=block: module.get_contrastive_examples(
                app, block, appeal_type=appeal_type, k=CONTRASTIVE_PER_BLOCK + 1
            ),
        )
        instruction = instruction or found.get("instruction")
        items = []
        for item in found.get("examples", []):
            if case is not None and item.get("case_number") == case:
                continue
            items.append(
                {
                    **{
                        k: item.get(k)
                        for k in (
                            "block",
                            "case_number",
                            "left",
                            "right",
                            "diff_text",
                            "share_changed",
                        )
                    },
                    "instruction": found.get("instruction"),
                    "provenance": {
                        "channel": "B",
                        "source": "contrastive pairs (our draft -> her final, style only)",
                        "case_number": item.get("case_number"),
                        "spans": item.get("spans"),
                    },
                }
            )
        ranked.append(items[:CONTRASTIVE_PER_BLOCK])
    return _round_robin(ranked)
