"""Every failure of the HTTP API is one JSON body `{"error": "..."}` with a status mapped here,
an AppError's with its `code`, its `field` when known and `message_he`, the catalog's Hebrew
(catalog.py; "the system refused" for a code it lacks),
once: the AppError tree (400 bad input, 401 no or unknown token, 403 the chair's decision,
429 too many failed sign-ins, 404, 409 an item whose state refuses the change or is no longer
what the caller saw, 413 over a size limit, 415 a file type we do not take, 502 provider,
503 database),
FastAPI's validation errors (400, naming the field), unknown routes and methods (404, 405),
database errors (503; 403 when the database refuses a role; 400 for a value it cannot store) and
anything unexpected (500, logged here with an incident id; the body says only that).

No body ever carries a traceback, a path under the data directory or the temp folder, a
connection string or a database user: database messages are replaced, not passed on, and every
other message goes through errors.Scrubber (the one scrubber, which the jobs' errors use too).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable

import psycopg
import psycopg_pool
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .. import catalog
from ..config import Settings
from ..errors import (
    AppError,
    CapReached,
    Conflict,
    Forbidden,
    InvalidInput,
    NotFound,
    ProviderError,
    RateLimited,
    Scrubber,
    StoreError,
    TooLarge,
    Unauthorized,
)
from ..learning import agent_bounds
from ..metrics import uploaded
from .uploads import UnsupportedMediaType, upload_kind

logger = logging.getLogger("legal_ai.web")

JSON_BODY_LIMIT = 1 << 20  # every non-upload request body: 1 MiB
UPLOAD_OVERHEAD = 1 << 20  # an upload body: the file's cap plus multipart framing and fields

# Most specific first: TooLarge and UnsupportedMediaType are InvalidInput too.
STATUS: tuple[tuple[type[AppError], int], ...] = (
    (TooLarge, 413),
    (UnsupportedMediaType, 415),
    (Unauthorized, 401),
    (RateLimited, 429),  # a Forbidden: before it
    (Forbidden, 403),
    (NotFound, 404),
    (Conflict, 409),  # an InvalidInput: before it
    (InvalidInput, 400),
    (StoreError, 503),
    (ProviderError, 502),
)


def status_of(exc: AppError) -> int:
    return next((status for kind, status in STATUS if isinstance(exc, kind)), 500)


def error(
    status: int,
    message: str,
    headers: dict[str, str] | None = None,
    *,
    code: str | None = None,
    field: str | None = None,
) -> JSONResponse:
    body = {"error": message, **(keyed(code, field) if code else {})}
    return JSONResponse(body, status_code=status, headers=headers)


def keyed(code: str | None, field: str | None = None) -> dict:
    """What a refusal adds to `error`: its code, its field when known, and its Hebrew (the
    catalog's; "the system refused" for a code it lacks)."""
    found = catalog.entry(code)
    said: dict[str, str | None] = {
        "code": code,
        "message_he": found.hebrew if found else catalog.REFUSED,
    }
    field = field or (found.field if found else None)
    if field:
        said["field"] = field
    return said


def coded(exc: AppError) -> dict:
    """An AppError's code, field and Hebrew (catalog.py)."""
    return keyed(exc.code, exc.field)


def too_large(max_file: int, upload: bool) -> str:
    if upload:
        return (
            f"the upload is too large: a file may have up to {max_file / 2**20:.0f} MB "
            "(the operator sets LEGAL_AI_MAX_DECISION_MB for a draft or final, "
            "LEGAL_AI_MAX_FILE_MB for other files); split the file"
        )
    return f"the request body is over {JSON_BODY_LIMIT >> 20} MB; send less"


def install(api: FastAPI, settings: Settings) -> None:
    """Register the handlers and the edge middleware on `api`."""
    scrub = Scrubber.of(settings)  # the one scrubber (errors.py), as the jobs' errors use

    @api.exception_handler(AppError)
    async def app_error(request: Request, exc: AppError) -> JSONResponse:
        status = status_of(exc)
        if isinstance(exc, StoreError):
            logger.error("database unavailable: %s", exc)
            said = "the database is unavailable; try again (details in the server log)"
            return JSONResponse({"error": said, **coded(exc)}, status_code=503)
        headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
        if isinstance(exc, CapReached):  # an agent's cap: its name and value, nothing written
            capped = {**exc.as_json(), "error": scrub(str(exc)), **coded(exc)}
            wait = {"Retry-After": str(exc.retry_after)} if exc.retry_after else None
            return JSONResponse(capped, status_code=429, headers=wait)
        if isinstance(exc, RateLimited):
            headers = {"Retry-After": str(exc.retry_after)}
        body = {"error": scrub(str(exc)), **coded(exc)}
        return JSONResponse(body, status_code=status, headers=headers)

    @api.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems, fields = [], []
        for item in exc.errors()[:3]:
            where = ".".join(str(p) for p in item.get("loc", ())[1:]) or "the JSON body"
            what = str(item.get("msg") or "invalid").removeprefix("Value error, ")
            problems.append(f"{where}: {what[:1].lower()}{what[1:]}")
            fields.append(where)
        field = fields[0] if len(fields) == 1 and fields[0] != "the JSON body" else None
        return error(
            400, "; ".join(problems) or "invalid request", code="request.invalid", field=field
        )

    @api.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        status, headers = exc.status_code, dict(exc.headers or {})
        code = HTTP_CODES.get(status)
        if status == 404 and exc.detail == "Not Found":
            message = f"no route {request.method} {request.url.path}; see docs/api.md"
            code = "route.unknown"
        elif status == 405:
            message = f"{request.method} is not allowed on {request.url.path}"
        elif status == 400 and exc.detail == "There was an error parsing the body":
            message = "the request body could not be read; send JSON (or a multipart upload)"
            code = "request.unreadable"
        else:
            message = scrub(str(exc.detail))
        return error(status, message, headers or None, code=code or "request.refused")

    @api.exception_handler(psycopg.Error)
    async def database_error(request: Request, exc: psycopg.Error) -> JSONResponse:
        if busy(exc):
            logger.warning("database busy (%s): %s %s", busy(exc), request.method, request.url.path)
            return error(503, BUSY, {"Retry-After": RETRY_AFTER}, code="store.busy")
        if isinstance(exc, psycopg.errors.ConfigurationLimitExceeded):  # migration 0034
            return await app_error(request, agent_bounds.from_database(exc))
        if isinstance(exc, psycopg.errors.InsufficientPrivilege):
            return error(
                403,
                "the database refused this for your credential's role; the chair's "
                "decisions need LEGAL_AI_CHAIR_TOKEN",
                code="store.role_refused",
            )
        if isinstance(exc, psycopg.DataError):
            primary = getattr(exc.diag, "message_primary", None) or str(exc).splitlines()[0]
            return error(
                400, f"a value was refused by the database: {scrub(primary)}", code="store.value"
            )
        logger.error("database error on %s %s", request.method, request.url.path, exc_info=exc)
        return error(
            503,
            "the database could not complete the request; try again (details in the server log)",
            code="store.failed",
        )


BUSY = (
    "the database is busy: no connection or lock was free in time; nothing was written, "
    "try again shortly"
)
RETRY_AFTER = "1"
# An HTTPException's code by its status (a route's own 404 or 413, say), when no better is known.
HTTP_CODES = {
    400: "request.invalid",
    404: "not_found",
    405: "method.not_allowed",
    413: "request.too_large",
}


def busy(exc: BaseException) -> str | None:
    """Why a request found the database busy — no pooled connection free in time, a lock not
    granted within LEGAL_AI_REQUEST_LOCK_TIMEOUT_S, a statement stopped at
    LEGAL_AI_REQUEST_STATEMENT_TIMEOUT_S (its transaction rolled back) — or None."""
    if isinstance(exc, psycopg_pool.PoolTimeout | psycopg_pool.TooManyRequests):
        return "no free connection"
    if isinstance(exc, psycopg.errors.LockNotAvailable):
        return "lock timeout"
    if isinstance(exc, psycopg.errors.QueryCanceled):
        return "statement timeout"
    return None


def is_upload(method: str, path: str) -> bool:
    """A draft's or final's upload (bounded by the decisions' caps)."""
    return method == "POST" and path.endswith(("/draft/upload", "/final/upload"))


def is_file_upload(method: str, path: str) -> bool:
    """Any other upload route (a missing precedent's ruling): LEGAL_AI_MAX_FILE_MB."""
    return method == "POST" and path.endswith("/upload") and not is_upload(method, path)


class Edge:
    """Pure ASGI middleware in front of the routes:
    - refuses NUL characters in the URL (400);
    - bounds the request body: the largest draft or final (`max_decision`) + UPLOAD_OVERHEAD
      bytes for their upload routes, `max_file` + UPLOAD_OVERHEAD for the other uploads,
      JSON_BODY_LIMIT for every other; a declared Content-Length over it is answered 413 before
      the body is read, a body that grows past it (chunked) is stopped at that point;
    - turns any exception that escaped the handlers into a logged incident and a bare 500 JSON
      body (never a traceback).
    On the desk's paths each of these answers is its Hebrew page instead: `page(scope, status,
    code, limit)` (web/desk.edge_page; None elsewhere, where the API's JSON answers)."""

    def __init__(
        self,
        app: ASGIApp,
        max_file: int,
        max_decision: int | None = None,
        page: Callable[[Scope, int, str, int], Response | None] | None = None,
    ) -> None:
        self.app = app
        self.max_file = max_file
        self.max_decision = max_decision or max_file
        self.page = page

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if "\x00" in scope["path"] or b"%00" in scope.get("query_string", b""):
            refused = error(400, "the URL contains a NUL character", code="request.nul")
            await (self._page(scope, 400, "request.nul") or refused)(scope, receive, send)
            return
        decision = is_upload(scope["method"], scope["path"])
        upload = decision or is_file_upload(scope["method"], scope["path"])
        largest = self.max_decision if decision else self.max_file
        limit = largest + UPLOAD_OVERHEAD if upload else JSON_BODY_LIMIT
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > limit:
            if upload:  # refused before web/uploads.py sees it: counted here
                uploaded(upload_kind(scope["path"]), "too_large")
            answer = self._page(scope, 413, "request.too_large", largest)
            refused = error(413, too_large(largest, upload), code="request.too_large")
            await (answer or refused)(scope, receive, send)
            return
        received = 0

        async def bounded() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise HTTPException(413, too_large(largest, upload))
            return message

        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, bounded, tracked)
        except ClientDisconnect:
            logger.info("client went away: %s %s", scope["method"], scope["path"])
        except Exception:
            incident = secrets.token_hex(4)
            logger.exception("internal error %s on %s %s", incident, scope["method"], scope["path"])
            if started:
                raise
            body = f"internal error (incident {incident}); the server log has the details"
            answer = self._page(scope, 500, "internal")
            await (answer or error(500, body, code="internal"))(scope, receive, send)

    def _page(self, scope: Scope, status: int, code: str, limit: int = 0) -> Response | None:
        """The desk's page for this answer on a desk path (None: the API's JSON). A page that
        cannot be drawn falls back to the JSON, never to a second failure."""
        if self.page is None:
            return None
        try:
            return self.page(scope, status, code, limit)
        except Exception:
            logger.exception("the desk's error page could not be drawn (%s)", code)
            return None
