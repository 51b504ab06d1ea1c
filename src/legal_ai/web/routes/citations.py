"""The citation graph's ambiguous citations over HTTP (learning/library/links.py): the list, and
the chair's pick of the ruling one names."""

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from pydantic import Field

from ...learning.library import links as library_links
from ..deps import Acting, chair
from .bodies import Body

router = APIRouter()


class PickBody(Body):
    case_law_id: int = Field(ge=1)


chair_pick = chair("picking the ruling a citation names (the library's links are hers to settle)")


@router.get("/api/citations/ambiguous")
def ambiguous(view: Acting) -> dict:
    return library_links.ambiguous(view)


@router.post("/api/citations/{authority_id}/pick")
def pick(authority_id: int, body: PickBody, view: Annotated[Any, Depends(chair_pick)]) -> dict:
    return library_links.pick(view, authority_id, body.case_law_id)
