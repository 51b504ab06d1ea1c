"""Channel B of the writer's brief (knowledge/brief.py): her real paragraphs, gathered from the
modules of knowledge/ that serve them (block exemplars, templates, contrastive pairs), each item
with its provenance and ranked so that cutting from the end drops the least relevant first;
never a paragraph of the case being written. A part that cannot be gathered (no final of this
appeal type yet) is empty, and the brief's notes say why."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, TypedDict, TypeVar

from ..errors import AppError
from . import contrastive, exemplars, templates

if TYPE_CHECKING:
    from ..context import Context

# The blocks the brief brings exemplars of (where her own voice is; the formulaic blocks come as
# templates), and how many of each.
EXEMPLAR_BLOCKS = ("opening", "hearing", "legal_framework", "discussion", "conclusion")
EXEMPLARS_PER_BLOCK = 2
CONTRASTIVE_BLOCKS = EXEMPLAR_BLOCKS
CONTRASTIVE_PER_BLOCK = 2


class ExemplarSource(TypedDict):
    """Where a brief's exemplar comes from: her final's paragraph, by its span."""

    channel: Literal["B"]
    source: str
    corpus: Literal["style"]
    case_number: str | None
    doc_id: str
    char_start: int
    char_end: int
    decided_on: str | None


class BriefExemplar(TypedDict):
    """One paragraph of her finals for a block (knowledge/exemplars.Exemplar, cut to these)."""

    block: str
    text: str
    case_number: str | None
    appeal_type: str | None
    outcome: str | None
    score: float
    provenance: ExemplarSource


class TemplateSource(TypedDict):
    """Where a template comes from: the finals it recurs in and where it lies in each."""

    channel: Literal["B"]
    source: str
    corpus: Literal["style"]
    support: int
    examples: list[str]
    sources: list[dict[str, Any]]


class BriefTemplate(TypedDict):
    """One of her formulaic passages (knowledge/templates.ListedTemplate, its sources moved
    into its provenance)."""

    block: str
    text: str
    slots: list[str]
    support: int
    examples: list[str]
    appeal_types: dict[str, int]
    provenance: TemplateSource


class ContrastSource(TypedDict):
    """Where a contrastive pair comes from: our draft's span and her final's."""

    channel: Literal["B"]
    source: str
    case_number: str
    spans: contrastive.Spans


class BriefContrast(TypedDict):
    """Our wording against hers in one block (knowledge/contrastive.Contrast, cut to these),
    with the instruction the pairs are read by."""

    block: str
    case_number: str
    left: str
    right: str
    diff_text: str
    share_changed: float
    instruction: str
    provenance: ContrastSource


Found = TypeVar("Found", exemplars.Exemplars, templates.Templates, contrastive.Contrasts)
Item = TypeVar("Item")


def _gathered(what: str, notes: list[str], call: Callable[[], Found]) -> Found | None:
    """One channel-B call; an AppError (no finals of this appeal type yet, say) is a note, as
    is what the call notes itself."""
    try:
        found = call()
    except AppError as exc:
        notes.append(f"{what}: {exc}")
        return None
    if note := found.get("note"):
        notes.append(f"{what}: {note}")
    return found


def _round_robin(ranked: list[list[Item]]) -> list[Item]:
    """Every block's best, then every block's second...: cutting from the end drops the
    lowest-ranked items of every block before any block loses its best."""
    out: list[Item] = []
    for rank in range(max((len(items) for items in ranked), default=0)):
        out += [items[rank] for items in ranked if rank < len(items)]
    return out


def _exemplars(
    app: Context, appeal_type: str, outcome: str | None, case: str | None, notes: list[str]
) -> list[BriefExemplar]:
    ranked: list[list[BriefExemplar]] = []
    for block in EXEMPLAR_BLOCKS:
        found = _gathered(
            f"exemplars of {block}",
            notes,
            partial(
                exemplars.get_block_exemplars,
                app,
                block,
                appeal_type,
                outcome=outcome,
                case=case,
                limit=EXEMPLARS_PER_BLOCK,
            ),
        )
        items: list[BriefExemplar] = []
        for item in found["exemplars"] if found else []:
            if case is not None and item["case_number"] == case:
                continue  # never a paragraph of the case being written
            items.append(
                {
                    "block": item["block"],
                    "text": item["text"],
                    "case_number": item["case_number"],
                    "appeal_type": item["appeal_type"],
                    "outcome": item["outcome"],
                    "score": item["score"],
                    "provenance": {
                        "channel": "B",
                        "source": "block exemplars (her paragraph of that block)",
                        "corpus": "style",
                        "case_number": item["case_number"],
                        "doc_id": item["doc_id"],
                        "char_start": item["char_start"],
                        "char_end": item["char_end"],
                        "decided_on": item["decided_on"],
                    },
                }
            )
        ranked.append(items[:EXEMPLARS_PER_BLOCK])
    return _round_robin(ranked)


def _templates(app: Context, appeal_type: str, notes: list[str]) -> list[BriefTemplate]:
    found = _gathered(
        "templates", notes, lambda: templates.get_templates(app, appeal_type=appeal_type)
    )
    out: list[BriefTemplate] = [
        {
            "block": item["block"],
            "text": item["text"],
            "slots": item["slots"],
            "support": item["support"],
            "examples": item["examples"],
            "appeal_types": item["appeal_types"],
            "provenance": {
                "channel": "B",
                "source": "templates (recurring nearly verbatim across her finals)",
                "corpus": "style",
                "support": item["support"],
                "examples": item["examples"],
                "sources": item["sources"],
            },
        }
        for item in (found["templates"] if found else [])
    ]
    # The best supported first: cutting from the end drops the least supported.
    return sorted(out, key=lambda t: -t["support"])


def _contrastive(
    app: Context, appeal_type: str, case: str | None, notes: list[str]
) -> list[BriefContrast]:
    ranked: list[list[BriefContrast]] = []
    for block in CONTRASTIVE_BLOCKS:
        found = _gathered(
            f"contrastive pairs of {block}",
            notes,
            partial(
                contrastive.get_contrastive_examples,
                app,
                block,
                appeal_type=appeal_type,
                k=CONTRASTIVE_PER_BLOCK + 1,
            ),
        )
        if found is None:
            continue
        items: list[BriefContrast] = []
        for item in found["examples"]:
            if case is not None and item["case_number"] == case:
                continue
            items.append(
                {
                    "block": item["block"],
                    "case_number": item["case_number"],
                    "left": item["left"],
                    "right": item["right"],
                    "diff_text": item["diff_text"],
                    "share_changed": item["share_changed"],
                    "instruction": found["instruction"],
                    "provenance": {
                        "channel": "B",
                        "source": "contrastive pairs (our draft -> her final, style only)",
                        "case_number": item["case_number"],
                        "spans": item["spans"],
                    },
                }
            )
        ranked.append(items[:CONTRASTIVE_PER_BLOCK])
    return _round_robin(ranked)
