"""Legal principles (docs/principles.md) and the canonical principles synthesized
from them: lists, the chair's review, extraction and synthesis queued for the worker (a request
never runs a model), the cull, a canonical statement's edit and revert (the chair's)."""

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from pydantic import Field

from ...learning.principles import canonical, synthesis
from ...learning.principles import cull as principle_cull
from ...learning.principles import requests as extraction_requests
from ...learning.principles import review as principle_review
from ..deps import Acting, Paged, chair
from .bodies import Body, ReviewBody

router = APIRouter()


class ExtractBody(Body):
    doc_id: str | None = Field(default=None, max_length=500)
    corpus: str | None = Field(default=None, max_length=20)
    all: bool = False


class CullBody(Body):
    apply: bool = False


class StatementBody(Body):
    statement: str = Field(max_length=4000)
    reason: str | None = Field(default=None, max_length=2000)


class RevertBody(Body):
    version: int | None = Field(default=None, ge=1)
    reason: str | None = Field(default=None, max_length=2000)


@router.get("/api/principles")
def list_principles(view: Acting, paged: Paged, status: str | None = None) -> dict:
    return dict(principle_review.list_principles(view, status, paged))


class BulkReviewBody(Body):
    ids: list[int] = Field(min_length=1, max_length=principle_review.BULK_MAX)
    decision: str = Field(max_length=20)
    reason: str | None = Field(default=None, max_length=2000)


# Registered before /{principle_id}/review so that "review-bulk" is never read as an id.
@router.post("/api/principles/review-bulk")
def review_principles_bulk(
    body: BulkReviewBody,
    view: Annotated[Any, Depends(chair("reviewing principles"))],
) -> dict:
    """The chair's decision on many principles at once (principle_review.bulk_review)."""
    return principle_review.bulk_review(view, body.ids, body.decision, body.reason)


@router.post("/api/principles/{principle_id}/review")
def review_principle(
    principle_id: int,
    body: ReviewBody,
    view: Annotated[Any, Depends(chair("reviewing a principle"))],
) -> dict:
    return view.review_principle(principle_id, body.decision, body.reason, body.expected_status)


@router.get("/api/principles/{principle_id}/votes")
def principle_votes(principle_id: int, view: Acting) -> dict:
    """The panel's votes on one principle, each model's reason beside its vote."""
    return principle_review.votes(view, principle_id)


# Queued, never run in the request (learning/extraction_requests): an agent queues one
# named item (idempotent); a corpus or `all` is the chair's (403 for an agent).
@router.post("/api/principles/extract", status_code=202)
def extract_principles(body: ExtractBody, view: Acting) -> dict:
    return extraction_requests.request(view, corpus=body.corpus, doc_id=body.doc_id, all=body.all)


@router.post("/api/principles/cull")
def cull_principles(body: CullBody, view: Acting) -> dict:
    return principle_cull.cull(view, apply=body.apply)  # applying it is the chair's (403)


@router.get("/api/canonical-principles")
def list_canonicals(view: Acting, paged: Paged, status: str | None = None) -> dict:
    return canonical.list_canonicals(view, status, paged)


@router.post("/api/canonical-principles/synthesize", status_code=202)
def synthesize_canonicals(view: Acting) -> dict:
    return synthesis.request(view)  # the worker synthesizes; a request never runs a model


@router.get("/api/canonical-principles/{canonical_id}")
def show_canonical(canonical_id: int, view: Acting) -> dict:
    return canonical.show(view, canonical_id)


@router.post("/api/canonical-principles/{canonical_id}/review")
def review_canonical(
    canonical_id: int,
    body: ReviewBody,
    view: Annotated[Any, Depends(chair("reviewing a canonical principle"))],
) -> dict:
    return canonical.review(view, canonical_id, body.decision, body.reason, body.expected_status)


@router.post("/api/canonical-principles/{canonical_id}/statement")
def edit_canonical(
    canonical_id: int,
    body: StatementBody,
    view: Annotated[Any, Depends(chair("editing a canonical statement"))],
) -> dict:
    return canonical.edit(view, canonical_id, body.statement, body.reason)


@router.post("/api/canonical-principles/{canonical_id}/revert")
def revert_canonical(
    canonical_id: int,
    body: RevertBody,
    view: Annotated[Any, Depends(chair("reverting a canonical statement"))],
) -> dict:
    return canonical.revert(view, canonical_id, body.version, body.reason)
