"""`/healthz` (no credential), and `/openapi.json` for authenticated callers, which `create_app`
includes only with LEGAL_AI_API_SCHEMA=true."""

from fastapi import APIRouter, Request

from ..deps import Principal

router = APIRouter()
schema = APIRouter()


@router.get("/healthz")
def healthz() -> dict:
    return {"ok": True}


@schema.get("/openapi.json", include_in_schema=False)
def openapi(request: Request, _: Principal) -> dict:
    return request.app.openapi()
