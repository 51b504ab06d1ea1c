"""The chair's desk: server-rendered pages (Jinja2, Hebrew, right to left) in the API's FastAPI
app, over the same services as the CLI and the API. `mount(api, legal, settings)` adds the
pages, the stylesheet and script under /desk-static, and HTML answers to errors on desk paths
(the API keeps its JSON errors). Pages work with plain forms; desk.js adds keyboard shortcuts.

Modules: core (templates, session, CSRF), session (/login, /logout), today (/: what waits
for her, /system: the operator's pages gathered), review (/review: the one queue of what she
decides, keyboard-first; the old /training addresses lead there), search (/search,
/source), audit (/audit), principles (/training/principles: the chair's gate
for legal principles), voice (/training/voice: exemplary finals and their deep-read voice
documents), enrichment (/training/enrichment: the headnote, summary and tags proposed for
internal decisions), metadata (/training/metadata: the chair writes the headnote, summary and
tags of the internal decisions awaiting them), treatments (/training/treatments: she confirms
what a later ruling did to one of the library's), health_technical (/health: what cannot be searched, embeddings, isolation), cases (/cases: the list, a page
per case, the uploads), learning (/learning),
methodology (/methodology: the profiles' editor, versions, diff, restore), reminders (/reminders:
stale cases and the scheduled jobs), corpus (/system/corpus: what the library holds, by kind and
year), fingerprint (/training/fingerprint: the voice-fingerprint proposals, adopted item by item
into the methodology or dismissed), portrait (/training/portrait: everything of her style that
reaches the writer, each part with where she withdraws it). Beside them what a page needs that is not a route:
review_queue (the queue's items, lanes, filters and order), review_page (its page and
what it says after a decision), methodology_form (the profile as form fields and
back), pages_hebrew (the upkeep's reasons and refused uploads in Hebrew), menu (the six menu
items and the cards of what waits, with their counts)."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import psycopg
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from markupsafe import Markup
from starlette.exceptions import HTTPException

from ... import catalog
from ...config import Settings
from ...errors import AppError, StoreError
from .. import errors as web_errors
from . import (
    audit,
    cases,
    cite_report,
    core,
    health_technical,
    learning,
    methodology,
    originals,
    principles,
    review,
    search,
    session,
    today,
    treatments,
    voice,
)
from .corpus import routes as corpus
from .enrichment import routes as enrichment
from .fingerprint import routes as fingerprint
from .messages import said, technical
from .metadata import routes as metadata
from .pages_hebrew import too_large
from .portrait import routes as portrait
from .reminders import routes as reminders


def mount(api: FastAPI, legal: Any, settings: Settings) -> None:
    api.mount("/desk-static", StaticFiles(directory=core.HERE / "static"), name="desk-static")
    signed_in = core.signed_in(legal)
    session.routes(api, legal, settings)
    today.routes(api, signed_in)  # /, /system
    review.routes(api, signed_in)  # /review: the one queue (and the old /training addresses)
    search.routes(api, signed_in)
    audit.routes(api, signed_in)
    principles.routes(api, signed_in)
    voice.routes(api, signed_in)
    enrichment(api, signed_in)  # /training/enrichment: proposals for internal decisions
    metadata(api, signed_in)  # /training/metadata: she writes a decision's three fields
    treatments.routes(api, signed_in)  # /training/treatments: what became of a ruling
    health_technical.routes(api, signed_in)  # /health
    cases.routes(api, signed_in, settings)  # /cases and a page per case
    originals.routes(api, signed_in)  # /original: a case's upload as she sent it
    cite_report.routes(api, signed_in)  # /cite-report: a case's cite-check report
    learning.routes(api, signed_in)
    methodology.routes(api, signed_in)
    reminders(api, signed_in)  # /reminders: stale cases and the scheduled jobs
    corpus(api, signed_in)  # /system/corpus: what the library holds, by kind and year
    fingerprint(api, signed_in)  # /training/fingerprint: the voice-fingerprint proposals
    portrait(api, signed_in)  # /training/portrait: everything of her style the writer reads
    _html_errors(api)


E = TypeVar("E", bound=Exception)


def _handling(
    kind: type[E], handler: Callable[[Request, E], Awaitable[Response]]
) -> Callable[[Request, Exception], Awaitable[Response]]:
    """`handler` as Starlette takes an exception handler (any exception: it passes `kind`'s)."""

    async def handle(request: Request, exc: Exception) -> Response:
        if not isinstance(exc, kind):
            raise exc
        return await handler(request, exc)

    return handle


async def _answered(handler: Any, request: Request, exc: Exception) -> Response:
    """What one of the API's own handlers answers (a handler may be a plain function)."""
    answer = handler(request, exc)
    return await answer if inspect.isawaitable(answer) else answer


def _html_errors(api: FastAPI) -> None:
    """On desk paths errors are pages; elsewhere the API's JSON handlers answer as before."""
    json_app_error = api.exception_handlers[AppError]
    json_http_error = api.exception_handlers[HTTPException]
    json_invalid = api.exception_handlers[RequestValidationError]
    json_database_error = api.exception_handlers[psycopg.Error]

    async def database_error(request: Request, exc: psycopg.Error) -> Response:
        """A busy database (no pooled connection, a lock or a statement past its timeout) on a
        desk path: the desk's own page, 503 with Retry-After; the API keeps its JSON."""
        if not core.is_desk(request.url.path) or not web_errors.busy(exc):
            return await _answered(json_database_error, request, exc)
        return busy_page(request)

    async def sign_in(request: Request, exc: core.SignInNeeded) -> Response:
        # A form sent without a session (she signed out in another tab, or it expired) did
        # nothing: back to the page it came from after signing in, where static/keep.js puts
        # back what she typed; the sign-in page says so (unsent=1).
        unsent = request.method != "GET"
        target = session.page_sent_from(request) if unsent else exc.target
        query = f"?next={core.env.filters['q'](target)}" + ("&expired=1" if exc.expired else "")
        return RedirectResponse("/login" + query + ("&unsent=1" if unsent else ""), 303)

    async def app_error(request: Request, exc: AppError) -> Response:
        if not core.is_desk(request.url.path):
            return await _answered(json_app_error, request, exc)
        if isinstance(exc, StoreError):
            return core.error_page(request, 503, "מסד הנתונים אינו זמין כרגע; נסי שוב בעוד רגע")
        status = web_errors.status_of(exc)
        return core.error_page(request, status, said(exc))

    async def http_error(request: Request, exc: HTTPException) -> Response:
        if not core.is_desk(request.url.path):
            return await _answered(json_http_error, request, exc)
        message = {404: "הדף לא נמצא", 405: "הפעולה אינה אפשרית בדף הזה"}.get(
            exc.status_code, str(exc.detail)
        )
        return core.error_page(request, exc.status_code, message)

    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        if not core.is_desk(request.url.path):
            return await _answered(json_invalid, request, exc)
        fields = ", ".join(str(e.get("loc", ("", "?"))[-1]) for e in exc.errors()[:3])
        return core.error_page(request, 400, Markup("שדה חסר או שגוי בטופס. ") + technical(fields))

    api.add_exception_handler(core.SignInNeeded, _handling(core.SignInNeeded, sign_in))
    api.add_exception_handler(AppError, _handling(AppError, app_error))
    api.add_exception_handler(HTTPException, _handling(HTTPException, http_error))
    api.add_exception_handler(RequestValidationError, _handling(RequestValidationError, invalid))
    api.add_exception_handler(psycopg.Error, _handling(psycopg.Error, database_error))


BUSY = "המערכת עמוסה כרגע, ולא התפנה לה מקום לבקשה בזמן. {} נסי שוב בעוד כמה שניות."


def busy_page(request: Request) -> Response:
    """The desk's answer when the database is busy: its own Hebrew page (rendered without the
    database), 503 with Retry-After; an upload is said plainly not to have been stored."""
    sent = request.method == "POST"
    done = "הפעולה לא בוצעה ודבר לא נשמר" + (" — גם הקובץ ששלחת לא נשמר." if sent else ".")
    answer = core.error_page(request, 503, BUSY.format(done))
    answer.headers["Retry-After"] = web_errors.RETRY_AFTER
    return answer


def edge_page(scope: Any, status: int, code: str, limit: int) -> Response | None:
    """web/errors.Edge's answer on a desk path, in Hebrew (None elsewhere: the API's JSON): an
    upload declared larger than its kind may be (before a byte of it is read) with the limit, a
    form too large or a NUL in the address by the catalog's words for `code`, and an error no
    handler answered (500: its incident is in the server's log)."""
    request = Request(scope)
    if not core.is_desk(request.url.path):
        return None
    decision = web_errors.is_upload(request.method, request.url.path)
    upload = decision or web_errors.is_file_upload(request.method, request.url.path)
    if code == "request.too_large" and upload:
        return core.error_page(request, status, too_large(limit / 2**20, decision))
    return core.error_page(request, status, catalog.hebrew(code) or catalog.REFUSED)
