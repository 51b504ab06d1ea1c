"""The chair's methodology: her profiles, one per appeal type, versioned (profiles), with what a rule
catches in her decisions before she saves it (preview) and her steps undone (undo), and a decision
read as the methodology names its blocks (decisions).

The face below is what the rest of the package may import from this room; its other modules
are its own."""

from . import preview, profiles, undo
from .decisions import ScannedDecision, file_limit, read_decision, segment, too_large
from .profiles import diff, edit, merged_profile, restore, show

__all__ = [
    "ScannedDecision",
    "diff",
    "edit",
    "file_limit",
    "merged_profile",
    "preview",
    "profiles",
    "read_decision",
    "restore",
    "segment",
    "show",
    "too_large",
    "undo",
]
