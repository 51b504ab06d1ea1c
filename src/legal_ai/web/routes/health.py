"""The probes, without a credential: `/healthz` (the process is alive and answers; it touches no
database, so a restart of PostgreSQL restarts nothing) and `/readyz` (it can serve: the database
answers within READY_S and has every shipped migration; 200, else 503 JSON naming what is
wrong). And `/openapi.json` for authenticated callers, which `create_app` includes only with
LEGAL_AI_API_SCHEMA=true."""

import logging

import psycopg
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from psycopg_pool import PoolTimeout

from ..deps import Principal

logger = logging.getLogger(__name__)

router = APIRouter()
schema = APIRouter()

READY_S = 1.0  # seconds /readyz waits for a database connection, and for its read
SHOWN = 3  # pending migrations named in the answer


@router.get("/healthz")
def healthz() -> dict:
    return {"ok": True}


@router.get("/readyz")
def readyz(request: Request) -> JSONResponse:
    """200 `{"ok": true, "database": "up", "migrations_pending": []}`, or 503 with `ok` false,
    what is wrong in `error`, and `database` down or `migrations_pending` named."""
    try:
        missing = request.app.state.legal.pending_migrations(READY_S)
    except (psycopg.Error, PoolTimeout) as exc:
        logger.warning("readyz: the database did not answer: %s", type(exc).__name__)
        return JSONResponse(
            {
                "ok": False,
                "database": "down",
                "migrations_pending": None,
                "error": f"the database did not answer within {READY_S:g} s "
                f"({type(exc).__name__}): is PostgreSQL running and LEGAL_AI_DATABASE_URL right?",
            },
            status_code=503,
        )
    if missing:
        shown = ", ".join(missing[:SHOWN]) + (
            f" and {len(missing) - SHOWN} more" if len(missing) > SHOWN else ""
        )
        return JSONResponse(
            {
                "ok": False,
                "database": "up",
                "migrations_pending": missing,
                "error": f"the database needs {len(missing)} migration(s) ({shown}): run "
                "`legal-ai db migrate` with the application's login",
            },
            status_code=503,
        )
    return JSONResponse({"ok": True, "database": "up", "migrations_pending": []})


@schema.get("/openapi.json", include_in_schema=False)
def openapi(request: Request, _: Principal) -> dict:
    return request.app.openapi()
