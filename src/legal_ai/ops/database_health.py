"""What the database holds that cannot be searched, or that changed outside the paths that
write it (App.health, `legal-ai health`, the desk's /health, and the backups' proof of a restored
database): per corpus and per unit kind the missing, stale and mismatched embeddings and the
stale analysis, the isolation audit, the roles, the embedders, OCR's queue, what changed outside
ingest (store/integrity.py), the principles' and her paragraphs' state, the upkeep on arrival,
the decisions awaiting metadata and the library's unseen re-keys."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

from ..context import Context
from ..corpora import CORPORA
from ..ingest import ocr_jobs
from ..ingest.chunk_context import chunk_analyzers
from ..knowledge import exemplars
from ..learning.arrival import metadata, rekey
from ..learning.arrival import upkeep as arrival
from ..learning.principles import spans as principle_spans
from ..paging import Listing
from ..retrieval import audit
from ..store import integrity, maintenance, meta_fold
from ..store.cache import active_embedder
from ..store.rows import Conn


def found(ctx: Context) -> AppHealth:
    """What cannot be searched and why, stale or missing embeddings and stale analysis (of
    chunks, and under `units` of principles, attached precedents, canonical statements and
    page images; the totals count all of them), the isolation audit and the roles (App.health;
    the backups' proof reads it of the restored database)."""
    images = ctx.images
    image = (images.id, images.dim) if images else (None, None)
    with ctx.store.connection() as conn:
        counts = maintenance.chunk_counts(
            conn, chunk_analyzers(ctx.analyzer.id, ctx.settings.chunk_context)
        )
        units = maintenance.unit_counts(conn, ctx.analyzer.id, *image)
        unsearchable = maintenance.unsearchable_items(conn)
        items = maintenance.searchable_counts(conn)
        config = active_embedder(conn)
        ocr = ocr_jobs.health(conn, ctx.settings)  # scans: the queue, low-confidence pages
        upkeep = arrival.upkeep(conn)  # unresolved digests, open missing precedents, enrichment
        awaiting_metadata = metadata.awaiting(conn)  # decisions without their 3
        changed = _changed_outside_ingest(conn)
        unfolded = meta_fold.count_pending(conn)  # decisions' metadata not yet searched
        principles = principle_spans.health(conn)  # spans, rules, canonical statements
        paragraphs = exemplars.health(conn)  # her finals' paragraphs as they were cut
    every: list[Mapping[str, int | None]] = [
        *counts.values(),
        *(u for kinds in units.values() for u in kinds.values()),
    ]
    total = {
        key: sum(c.get(key) or 0 for c in every)
        for key in (
            "missing_embeddings",
            "stale_embeddings",
            "dimension_mismatches",
            "stale_analysis",
        )
    }
    return {
        "unsearchable": len(unsearchable),
        "stale_embeddings": total["stale_embeddings"],
        "missing_embeddings": total["missing_embeddings"],
        "dimension_mismatches": total["dimension_mismatches"],
        "stale_analysis": total["stale_analysis"],
        "isolation": audit.isolation(ctx, audit.PROBE),
        # Whether the database itself tells the chair's decisions from an agent's (roles
        # legal_ai_chair / legal_ai_agent exist); docs/security.md.
        "roles_enforced": ctx.store.roles_enforced,
        "embedder": dict(config) if config else None,
        # The image leg's embedder (None: MULTIMODAL_ENABLED is off; page images unchecked).
        "image_embedder": {"embedder": images.id, "dim": images.dim} if images else None,
        "corpora": {key: {**items[key], **counts[key]} for key in CORPORA},
        "units": units,
        "unsearchable_items": unsearchable,
        "ocr": ocr,
        # Texts or chunks changed outside ingest (hash/span check; `reindex` repairs them).
        "changed_outside_ingest": changed,
        # Decisions whose headnote, summary and tags their first chunk does not yet hold (an
        # edit by SQL; `reindex` folds them in: ingest/metadata_fold.py).
        "metadata_unfolded": unfolded,
        # Principles whose rule or span changed outside the gate (`reindex` finds the span
        # again or returns them to the chair), canonical statements changed outside it, and
        # the principles returned to the chair awaiting her (learning/principles/spans.py).
        **principles,
        # Her finals' paragraphs (block exemplars) edited, deleted or added outside their
        # cut (knowledge/exemplars.health; `reindex` cuts them again).
        **paragraphs,
        # Upkeep on arrival (learning/arrival/upkeep.py): `unresolved_digests`, `missing_precedents`
        # (open), `awaiting_enrichment` and `awaiting_metadata` (internal decisions not
        # searchable without their headnote, summary and tags), each {"count", "items"}.
        # and `ambiguous_citations` (several rulings fit: the chair picks).
        **upkeep,
        "awaiting_metadata": awaiting_metadata,
        # What the re-key of migration 0029 changed, until marked seen (learning/arrival/rekey.py).
        "library_rekey": rekey.unseen(ctx),
    }


class AppHealth(principle_spans.PrincipleHealth, exemplars.ExemplarHealth, arrival.Upkeep):
    """What App.health answers (`found`; `legal-ai health --json` adds the scheduler's, the
    backups', the reranker's and the re-checks' parts: ops/health.Health): the totals over every unit,
    the isolation audit, the roles, the embedders, per corpus and per unit kind, the
    unsearchable items, OCR, what changed outside ingest, the principles', paragraphs' and
    upkeep's lists (each a `Listing`) and the library's unseen re-keys."""

    unsearchable: int
    stale_embeddings: int
    missing_embeddings: int
    dimension_mismatches: int
    stale_analysis: int
    isolation: audit.IsolationReport
    roles_enforced: bool
    embedder: dict[str, Any] | None
    image_embedder: dict[str, Any] | None
    corpora: dict[str, dict[str, Any]]
    units: dict[str, dict[str, dict[str, int | None]]]
    unsearchable_items: list[dict]
    ocr: dict[str, Any]
    changed_outside_ingest: Listing[ChangedItem]
    metadata_unfolded: int
    awaiting_metadata: Listing[metadata.AwaitingMetadata]
    library_rekey: list[dict]


class ChangedItem(TypedDict):
    """An item whose stored text or chunks changed outside ingest, and what changed."""

    corpus: str
    doc_id: str
    text_changed: bool
    chunks: list[int]
    count_changed: bool
    reason: str


def _changed_outside_ingest(conn: Conn) -> Listing[ChangedItem]:
    """Every item whose stored text or chunks changed outside ingest (store/integrity.py)."""
    items: list[ChangedItem] = []
    for corpus in CORPORA.values():
        for row in integrity.damaged(conn, corpus):
            what = (
                (["its stored text"] if row["text_changed"] else [])
                + [f"chunk {n}" for n in row["chunks"] or []]
                + (["its chunks deleted or added"] if row["count_changed"] else [])
            )
            items.append(
                {
                    "corpus": corpus.key,
                    "doc_id": row["doc_id"],
                    "text_changed": row["text_changed"],
                    "chunks": list(row["chunks"] or []),
                    "count_changed": bool(row["count_changed"]),
                    "reason": f"changed outside ingest: {', '.join(what)}; run `legal-ai reindex`",
                }
            )
    return {"count": len(items), "items": items}
