"""The HTTP API of the learning loop. Thin: authenticate, parse, call the same services as the
CLI on an App acting for who authenticated, map errors once (web/errors.py).

`create_app(settings)` builds the FastAPI app, keeps its shared state on `api.state` (the App,
the settings, the upload folder and limit), and includes the route tables of web/routes/ (one
APIRouter per concern) in order, then /mcp and the chair's desk. Who acts is web/deps.py.

Every /api route needs `Authorization: Bearer <token>`: the chair's token (LEGAL_AI_CHAIR_TOKEN)
or an agent's (LEGAL_AI_AGENT_TOKEN; the older LEGAL_AI_API_TOKEN is an agent named `api`).
The services run on `legal.acting_as(principal)`: its transactions run under the principal's
database role, and the actor the audit records is the principal's, never a name from the body.
Chair-only routes (lesson review, promote, methodology edit and restore, final upload, a
principle's or canonical principle's review, a canonical statement's edit and revert, marking a
case as exemplary, a voice document's and an enrichment's review) refuse an
agent with 403 before anything is read or written. Without any credential configured the app is
not built.

Uploads stream to a private folder under HOME/uploads (web/uploads.py) and the blocking work
(extraction, embedding, the database) runs in a worker thread, so one upload never stalls other
requests. `/docs`, `/redoc` and `/openapi.json` are off; LEGAL_AI_API_SCHEMA=true serves
`/openapi.json` to authenticated callers.

`GET /metrics` (Prometheus; its own token, LEGAL_AI_METRICS_TOKEN, off without it) is
web/metrics.py; every request gets an id (X-Request-ID) carried into its log lines and the
rows it writes (web/request_ids.py, logs.py).

`GET /api/search` takes `legal-ai search`'s parameters and answers its `--json`; `/mcp` serves
the MCP tools over streamable HTTP with the same tokens (web/remote.py).

Case numbers contain `/` (`ערר (מרכז) 1042/23`), so case routes take the rest of the path
(`/api/cases/ערר (מרכז) 1042/23/final/upload`, URL-encoded by the client)."""

from typing import Any

from fastapi import FastAPI

from .. import auth
from ..app import App
from ..config import Settings
from ..errors import InvalidInput
from . import desk, errors, metrics, uploads
from .remote import McpOverHttp
from .request_ids import RequestContext
from .routes import API, health, include


def create_app(settings: Settings, legal: Any = None) -> FastAPI:
    """The API over one App (created here unless given). Refuses to build without a credential."""
    auth.agent_tokens(settings)  # a malformed list, or the chair's token reused: refused now
    if not auth.configured(settings):
        raise InvalidInput(
            "set LEGAL_AI_CHAIR_TOKEN and/or LEGAL_AI_AGENT_TOKEN: the HTTP API never runs "
            "without a credential"
        )
    if legal is None:
        legal = App(settings)
    upload_root = settings.home / "uploads"
    uploads.sweep(upload_root)

    mcp_http = McpOverHttp(settings, legal)  # the MCP tools at /mcp (web/remote.py)
    api = FastAPI(
        title="legal-ai",
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        lifespan=mcp_http.lifespan,
    )
    # What the handlers and web/deps.py reach through `request.app.state`.
    api.state.legal = legal
    api.state.settings = settings
    api.state.upload_root = upload_root
    api.state.max_file = settings.max_file_mb * 2**20
    # A draft's or final's file: its kind's cap (web/uploads.Caps; config says why).
    api.state.decision_caps = uploads.Caps.decisions(settings)
    errors.install(api, settings)
    api.add_middleware(
        errors.Edge,
        max_file=api.state.max_file,
        max_decision=api.state.decision_caps.largest,
        page=desk.edge_page,
    )
    # GET /metrics and the app's own registry (web/metrics.py); outermost, each request's id
    # and the registry its searches and uploads count in (web/request_ids.py).
    api.add_middleware(RequestContext, metrics=metrics.mount(api, settings, legal), legal=legal)

    include(api, health.router)
    if settings.api_schema:
        include(api, health.schema)  # /openapi.json, to authenticated callers
    for router in API:
        include(api, router)
    mcp_http.mount(api)

    desk.mount(api, legal, settings)  # the chair's pages (web/desk): sign-in, search, training
    return api
