"""What a decision or ruling gets on arrival: the upkeep its ingest settles (upkeep), an internal
decision's headnote, summary and tags (metadata), written by the enricher, grounded and reviewed
(enrichment, enrichment_grounding, enrichment_review), and the library re-keyed by one identity
per ruling (rekey).

The face below is what the rest of the package may import from this room; its other modules
are its own."""

from . import enrichment, enrichment_review, metadata, rekey, upkeep
from .rekey import describe, planned
from .upkeep import resolve_all

__all__ = [
    "describe",
    "enrichment",
    "enrichment_review",
    "metadata",
    "planned",
    "rekey",
    "resolve_all",
    "upkeep",
]
