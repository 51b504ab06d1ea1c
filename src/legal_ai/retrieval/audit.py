"""The isolation audit (INV-RET1), run by `legal-ai health`: every chunk a corpus's partition
holds belongs to an item of that corpus, and every unit each leg returns for a probe query
belongs to the corpus searched (judged from the root tables, not the leg's own SQL)."""

from __future__ import annotations

from ..context import Context
from ..corpora import SEARCHABLE
from ..store.audit import Checked, ChunkAudit, audit_isolation, foreign_units
from . import legs

PROBE = "ערר על החלטת הוועדה המקומית"


class IsolationReport(ChunkAudit):
    """`legal-ai health`'s `isolation`: the chunk audit (ChunkAudit) and, per
    corpus/source/leg, the units the leg returned for the probe checked (`legs`); `checked`
    and `leaks` count both."""

    legs: dict[str, Checked]


def isolation(ctx: Context, probe: str = PROBE) -> IsolationReport:
    """INV-RET1, checked two ways: every chunk a corpus's partition holds belongs to an item
    of that corpus; and, per corpus and per leg, every unit the leg returns for a probe
    query belongs to that corpus (judged from the root tables, not the leg's own SQL)."""
    embedder = ctx.embedder
    vector = embedder.embed_query(probe)
    window = ctx.settings.leg_window
    with ctx.store.connection() as conn:
        report: IsolationReport = {**audit_isolation(conn), "legs": {}}
        for corpus in SEARCHABLE.values():
            for source in corpus.sources:
                semantic, lexical, reference = _probed(
                    ctx, embedder, conn, corpus, source, probe, vector, window
                )
                for leg, ids in (
                    ("semantic", semantic),
                    ("lexical", lexical),
                    ("reference", reference),
                ):
                    _audit_leg(report, conn, corpus, source, leg, ids, foreign_units)
            if ctx.images is not None and corpus.image_source is not None:
                images = legs.semantic(
                    conn,
                    corpus,
                    corpus.image_source,
                    legs.Filters(),
                    ctx.images.embed_query(probe),
                    embedder=ctx.images.id,
                    dim=ctx.images.dim,
                    window=window,
                    max_scan_tuples=ctx.settings.hnsw_max_scan_tuples,
                )
                _audit_leg(
                    report, conn, corpus, corpus.image_source, "image", images, foreign_units
                )
    return report


def _probed(ctx: Context, embedder, conn, corpus, source, probe: str, vector, window: int) -> tuple:
    """The units the semantic, lexical and reference legs of one source return for the probe."""
    semantic = legs.semantic(
        conn,
        corpus,
        source,
        legs.Filters(),
        vector,
        embedder=embedder.id,
        dim=embedder.dim,
        window=window,
        max_scan_tuples=ctx.settings.hnsw_max_scan_tuples,
    )
    lexical = legs.lexical(
        conn,
        corpus,
        source,
        legs.Filters(),
        ctx.analyzer.query_terms(probe),
        embedder=embedder.id,
        window=window,
    )
    # Every item with a section or case number: the widest reference lookup.
    reference = legs.reference(
        conn,
        corpus,
        source,
        legs.Filters(),
        [legs.Reference("eid", "."), legs.Reference("case_number", ".")],
        embedder=embedder.id,
        window=window,
    )
    return semantic, lexical, reference


def _audit_leg(report: IsolationReport, conn, corpus, source, leg, ids, foreign_units) -> None:
    leaks = foreign_units(conn, corpus, source, ids)
    report["legs"][f"{corpus.key}/{source.kind}/{leg}"] = {"checked": len(ids), "leaks": leaks}
    report["checked"] += len(ids)
    report["leaks"] += leaks
