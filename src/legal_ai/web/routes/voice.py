"""Deep-read voice documents (docs/learning.md): a case
marked exemplary (the chair's), the documents, their run queued for the worker, their review
(the chair's)."""

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from pydantic import Field

from ...knowledge import voice, voice_review
from ..deps import Acting, Paged, chair
from .bodies import Body, ReviewBody

router = APIRouter()


class MarkBody(Body):
    note: str | None = Field(default=None, max_length=2000)


@router.post("/api/cases/{case:path}/mark-exemplary")
def mark_exemplary(
    case: str, body: MarkBody, view: Annotated[Any, Depends(chair("marking a case as exemplary"))]
) -> dict:
    return voice_review.mark(view, case, body.note)


@router.get("/api/voice-documents")
def list_voice_documents(view: Acting, paged: Paged, status: str | None = None) -> dict:
    return voice_review.list_documents(view, status, paged)


@router.post("/api/voice-documents/run", status_code=202)
def run_voice_documents(view: Acting) -> dict:
    return voice.request(view)  # the worker writes them; a request never runs a model


@router.get("/api/voice-documents/{document_id}")
def show_voice_document(document_id: int, view: Acting) -> dict:
    return voice_review.show(view, document_id)


@router.post("/api/voice-documents/{document_id}/review")
def review_voice_document(
    document_id: int,
    body: ReviewBody,
    view: Annotated[Any, Depends(chair("reviewing a voice document"))],
) -> dict:
    return voice_review.review(view, document_id, body.decision, body.reason, body.expected_status)
