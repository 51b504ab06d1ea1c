"""Treatment over HTTP (learning/library/treatment.py): a ruling's later history in the
library (`treatment`, `treatments`, `cited_by`), the readings of petitions and appeals, and the
chair's confirmation of one (her role only: an agent's token gets 403, and the database refuses
any other role besides)."""

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from ...learning.library import treatment
from ..deps import Acting, Paged, chair
from .bodies import ReviewBody

router = APIRouter()


@router.get("/api/rulings/history")
def ruling_history(
    view: Acting,
    doc_id: Annotated[str | None, Query(max_length=500)] = None,
    case_number: Annotated[str | None, Query(max_length=200)] = None,
) -> dict:
    return treatment.history(view, doc_id=doc_id, case_number=case_number)


@router.get("/api/treatments")
def list_treatments(view: Acting, paged: Paged, status: str | None = None) -> dict:
    return treatment.list_treatments(view, status, paged)


@router.get("/api/treatments/{treatment_id}")
def show_treatment(treatment_id: int, view: Acting) -> dict:
    return treatment.show(view, treatment_id)


@router.post("/api/treatments/{treatment_id}/review")
def review_treatment(
    treatment_id: int,
    body: ReviewBody,
    view: Annotated[Any, Depends(chair("confirming what became of a ruling"))],
) -> dict:
    return treatment.review(view, treatment_id, body.decision, body.reason, body.expected_status)
