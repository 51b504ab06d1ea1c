"""Our drafts and the chair's finals: a draft registered (drafts), a final uploaded with its pair and
held-out measure (finals, held_out), block alignment and stylometric distance (alignment,
stylometry), the gold set from her citations (gold_set) and the learning dashboard's figures
(dashboard), the files as she uploaded them (originals), and
her style portrait's measured figures (portrait),
and a draft or final uploaded as a scan, stored once the worker has read it (scanned_decisions).

The face below is what the rest of the package may import from this room; its other modules
are its own."""

from . import dashboard, drafts, finals, gold_set, originals, portrait, scanned_decisions
from .drafts import add_draft
from .finals import missing_precedents, pairs, segment, upload_final
from .held_out import MIN_USUAL, USUAL_KEYS, chair_ratios, usual_of

__all__ = [
    "add_draft",
    "chair_ratios",
    "dashboard",
    "drafts",
    "finals",
    "gold_set",
    "MIN_USUAL",
    "missing_precedents",
    "originals",
    "pairs",
    "portrait",
    "scanned_decisions",
    "segment",
    "upload_final",
    "USUAL_KEYS",
    "usual_of",
]
