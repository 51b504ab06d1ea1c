"""Lessons and their gate: distilled from a pair (distill, evidence), the style panel and its votes,
audit and reliability (panel, lesson_panel, panel_audit, panel_stats), the chair's review and
promotion into the methodology (lessons, promotion), her feedback and the lessons proposed from
it (feedback, feedback_lessons), and the voice-fingerprint proposals and her decisions on their items (voice_proposals,
proposal_review).

The face below is what the rest of the package may import from this room; its other modules
are its own."""

from . import (
    distill,
    feedback,
    feedback_lessons,
    lessons,
    panel,
    panel_audit,
    panel_stats,
    proposal_review,
    voice_proposals,
)
from .distill import changed_blocks, find_span, word_diff
from .feedback import list_feedback, record, weekly_summary
from .lessons import list_lessons, promote, review
from .panel_audit import rebuild

__all__ = [
    "changed_blocks",
    "distill",
    "feedback",
    "feedback_lessons",
    "find_span",
    "lessons",
    "list_feedback",
    "list_lessons",
    "panel",
    "panel_audit",
    "panel_stats",
    "promote",
    "proposal_review",
    "rebuild",
    "record",
    "review",
    "voice_proposals",
    "weekly_summary",
    "word_diff",
]
