"""Enrichment of internal decisions (docs/ingest.md "Upkeep on arrival"): the
proposed headnotes, summaries and tags, and their review (the chair's)."""

from typing import Annotated, Any

from fastapi import APIRouter, Depends

from ...learning.arrival import enrichment_review
from ..deps import Acting, Paged, chair
from .bodies import ReviewBody

router = APIRouter()


@router.get("/api/enrichments")
def list_enrichments(view: Acting, paged: Paged, status: str | None = None) -> dict:
    return enrichment_review.list_enrichments(view, status, paged)


@router.get("/api/enrichments/{enrichment_id}")
def show_enrichment(enrichment_id: int, view: Acting) -> dict:
    return enrichment_review.show(view, enrichment_id)


@router.post("/api/enrichments/{enrichment_id}/review")
def review_enrichment(
    enrichment_id: int,
    body: ReviewBody,
    view: Annotated[Any, Depends(chair("reviewing an enrichment"))],
) -> dict:
    return enrichment_review.review(
        view, enrichment_id, body.decision, body.reason, body.expected_status
    )
