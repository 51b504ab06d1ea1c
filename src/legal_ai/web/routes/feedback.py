"""The chair's feedback on drafts: record it, list it, its weekly summary."""

from fastapi import APIRouter
from pydantic import Field

from ...learning.lessons import feedback
from ..deps import Acting, Limit, Offset
from .bodies import Body

router = APIRouter()


class FeedbackBody(Body):
    category: str = Field(max_length=100)
    text: str = Field(max_length=20000)
    case_number: str | None = Field(default=None, max_length=200)
    block: str | None = Field(default=None, max_length=100)


@router.post("/api/chair-feedback")
def record_feedback(body: FeedbackBody, view: Acting) -> dict:
    return feedback.record(view, body.category, body.text, case=body.case_number, block=body.block)


@router.get("/api/chair-feedback")
def list_feedback(
    view: Acting,
    case: str | None = None,
    category: str | None = None,
    limit: Limit = 50,
    offset: Offset = 0,
) -> dict:
    return feedback.list_feedback(view, case=case, category=category, limit=limit, offset=offset)


@router.get("/api/chair-feedback/weekly-summary")
def weekly_summary(view: Acting) -> dict:
    return feedback.weekly_summary(view)
