"""Templates: the passages the chair repeats nearly verbatim across her finals (the opening
formula, the hearing formula, the closing and costs formula, the signature), found by
measurement, never written by hand (docs/learning.md "Block exemplars and templates").
How they are found is knowledge/template_detection.py (pure text); this module keeps and
serves them.

The templates are kept in block_templates with the fingerprint of the paragraphs they were
measured on (template_state). Uploading a final recomputes them right after its transaction;
any read whose fingerprint no longer matches the corpus (a final ingested or deleted since)
recomputes them first. Pure text: a few milliseconds per final.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

import psycopg

from ..learning import vocabulary as vocab
from ..store import templates as template_store
from ..text.blocks import BLOCKS
from .template_detection import FORMULAIC_BLOCKS, MIN_SUPPORT, Measured, Source, detect
from .template_detection import Template as Template
from .template_detection import tokens as tokens

if TYPE_CHECKING:
    from ..context import Context


def fingerprint(conn) -> str:
    """What the templates were measured on: every final's paragraphs (their text's hash) with
    its case number and appeal type."""
    return template_store.fingerprint(conn)


def _sources(conn) -> list[Source]:
    return [
        Source(
            final=r["case_number"] or f"document:{r['document_id']}",
            block=r["block"],
            text=r["text"],
            case_number=r["case_number"],
            doc_id=r["doc_id"],
            document_id=r["document_id"],
            char_start=r["char_start"],
            appeal_type=r["appeal_type"],
            decided_on=r["decided_on"].isoformat() if r["decided_on"] else None,
        )
        for r in template_store.paragraphs(conn)
    ]


def recompute(conn) -> Measured:
    """Measure the templates again and store them (inside the caller's transaction; one
    recomputation at a time)."""
    template_store.lock_recompute(conn)
    print_ = fingerprint(conn)
    measured = detect(_sources(conn))
    template_store.delete_templates(conn)
    for t in measured.templates:
        template_store.insert_template(
            conn,
            t.block,
            t.text,
            t.slots,
            t.support,
            t.examples,
            t.sources,
            t.appeal_types,
            t.words,
        )
    template_store.save_state(conn, print_, measured.finals, measured.shares)
    return measured


def refresh(app: Context) -> dict:
    """Recompute the templates when the finals changed since they were measured. The usual
    answer (nothing changed) is read without a write transaction; a change is re-checked and
    measured inside one, through the login's own store (Context.derived_store: the templates are
    measured here from her finals, and no request's role writes them). A login that may not
    write them (an agent-only MCP server) serves what was measured last (`stale`)."""
    with app.store.connection() as conn:
        if _current(conn):
            return {"recomputed": False, "templates": _count(conn)}
    try:
        with app.derived_store.transaction() as conn:
            if _current(conn):
                return {"recomputed": False, "templates": _count(conn)}
            recompute(conn)
            return {"recomputed": True, "templates": _count(conn)}
    except psycopg.errors.InsufficientPrivilege:
        with app.store.connection() as conn:
            return {"recomputed": False, "stale": True, "templates": _count(conn)}


def _current(conn) -> bool:
    """Whether the templates were measured on the finals as they are now."""
    state = template_store.measured_fingerprint(conn)
    return state is not None and state["fingerprint"] == fingerprint(conn)


def _count(conn) -> int:
    return template_store.count(conn)


class ListedTemplate(TypedDict):
    """A passage of a formulaic block recurring nearly verbatim across her finals: its text
    with its `slots` (what differs from final to final), how many finals it recurs in
    (`support`), their case numbers (`examples`), where it lies in each (`sources`) and in how
    many finals of each appeal type."""

    block: str
    text: str
    slots: list[str]
    support: int
    examples: list[str]
    sources: list[dict[str, Any]]
    appeal_types: dict[str, int]


class Templates(TypedDict):
    """`legal-ai templates --json`, MCP get_templates, GET /api/templates: her templates, with
    the finals they were measured over and each block's share of recurring words, and a note
    when there are none."""

    block: str | None
    appeal_type: str | None
    finals: int
    formulaic_blocks: list[str]
    block_shares: dict[str, float]
    templates: list[ListedTemplate]
    note: NotRequired[str]


def get_templates(
    app: Context, block: str | None = None, appeal_type: str | None = None
) -> Templates:
    """The chair's templates, per block and appeal type, with support and examples
    (`legal-ai templates`, MCP get_templates, GET /api/templates)."""
    block = vocab.block(block)
    appeal_type = vocab.choice(appeal_type, vocab.APPEAL_TYPES, "appeal type")
    refresh(app)
    with app.store.connection() as conn:
        state = template_store.state(conn) or {}
        rows = template_store.templates(conn, block, appeal_type)
        typed = None
        if appeal_type is not None:
            typed = template_store.finals_of_type(conn, appeal_type)
    order = {b: i for i, b in enumerate(BLOCKS)}
    rows = sorted(
        rows,
        key=lambda r: (
            order[r["block"]],
            -(r["appeal_types"].get(appeal_type, 0) if appeal_type else 0),
            -r["support"] * r["words"],
            r["text"],
        ),
    )
    out: Templates = {
        "block": block,
        "appeal_type": appeal_type,
        "finals": state.get("finals", 0),
        "formulaic_blocks": list(FORMULAIC_BLOCKS),
        "block_shares": state.get("shares") or {},
        "templates": [
            {
                "block": r["block"],
                "text": r["text"],
                "slots": list(r["slots"]),
                "support": r["support"],
                "examples": r["examples"],
                "sources": r["sources"],
                "appeal_types": r["appeal_types"],
            }
            for r in rows
        ],
    }
    note = _note(out, block, appeal_type, typed)
    if note:
        out["note"] = note
    return out


def _note(
    out: Templates, block: str | None, appeal_type: str | None, typed: int | None
) -> str | None:
    if out["templates"]:
        return None
    if appeal_type is not None and not typed:
        return (
            f"no final of appeal type {appeal_type} is in the style corpus yet, so none of "
            "her templates can be told for it"
        )
    if out["finals"] < MIN_SUPPORT:
        return (
            f"{out['finals']} final(s) in the style corpus: a template must recur in at "
            f"least {MIN_SUPPORT} distinct finals, so none is invented"
        )
    if block is not None and block not in FORMULAIC_BLOCKS:
        share = out["block_shares"].get(block, 0.0)
        return (
            f"block {block} has no templates: it is the case's own substance or analysis, "
            f"which the copy policy never copies (recurring passages cover {share:.0%} of "
            f"its words); templates are kept for {', '.join(FORMULAIC_BLOCKS)}"
        )
    return "no passage recurs in at least two of her finals here"
