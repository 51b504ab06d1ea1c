"""What the writer's brief reads about the chair's style, gathered in one read for her portrait
(web/desk/portrait.py): the methodology's universal and typed profiles and their merge, her
finals in the style corpus (for the measured figures), the approved lessons, the voice documents
the brief gathers, and the voice-fingerprint items she adopted."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..learning.lessons import proposal_review
from ..learning.methodology import merged_profile
from ..store import drafts_lessons as store
from ..store import voice as voice_store
from .voice import for_brief

if TYPE_CHECKING:
    from ..context import Context


def sources(ctx: Context, appeal_type: str) -> dict:
    """{universal, typed: the profiles' rows ({} when none), profile: their merge, finals,
    approved: lessons approved for the type (any outcome), documents: the voice documents the
    brief takes, approved_documents: how many are approved, adopted: her adopted items}."""
    with ctx.store.connection() as conn:
        return {
            "universal": store.get_profile(conn, "universal") or {},
            "typed": store.get_profile(conn, appeal_type) or {},
            "profile": merged_profile(conn, appeal_type),
            "finals": store.style_finals(conn),
            "approved": store.approved_lessons_any_outcome(conn, appeal_type),
            "documents": for_brief(conn, appeal_type, None, None)[0],
            "approved_documents": len(voice_store.approved(conn, appeal_type, None)),
            "adopted": proposal_review.adopted(conn),
        }
