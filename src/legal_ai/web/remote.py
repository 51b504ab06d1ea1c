"""Agents over the network (docs/search.md "Agents over the network"): the MCP tools of `legal-ai mcp`
served by `legal-ai serve` at `/mcp` over the MCP SDK's streamable HTTP transport.

- Stateless, JSON answers: every POST is answered on its own and no session lives in the
  server, so any number of workers or replicas behind a balancer can serve it.
- Every request needs `Authorization: Bearer <token>` with the same principals as /api
  (auth.py): no token or an unknown one is answered 401 before the MCP layer reads the body.
  Each tool call runs on the App acting for whoever called (`legal.acting_as`): an agent's
  transactions under the database role legal_ai_agent, its searches logged as coming from
  `mcp`. None of the MCP tools decides anything (approving lessons, principles, statements
  or voice documents stays the chair's, on the desk and her /api routes); an MCP tool that
  ever decides must check `auth.require_chair` like those routes.
- The SDK's DNS-rebinding guard (a Host/Origin allow-list for unauthenticated servers on
  localhost) is off: the bearer token, which a web page cannot know, is the guard here, and
  the service may sit behind a proxy under any host name.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from .. import auth
from ..config import Settings
from ..errors import Unauthorized
from ..mcp_server import build_server
from .errors import error

MCP_PATH = "/mcp"

# Who is calling, for the duration of one HTTP request to /mcp. The SDK carries the request's
# context variables into the tool's handler (and anyio into its worker thread).
CALLER: ContextVar[auth.Principal | None] = ContextVar("legal_ai_mcp_caller", default=None)


class BearerGate:
    """ASGI in front of the MCP transport: authenticates the bearer token (401 JSON with
    `WWW-Authenticate: Bearer` otherwise), answers 503 while the transport is not running (a
    server started without its lifespan), and sets CALLER for the request."""

    def __init__(self, app: ASGIApp, settings: Settings, running: Callable[[], bool]) -> None:
        self.app = app
        self.settings = settings
        self.running = running

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        header = dict(scope["headers"]).get(b"authorization", b"").decode("latin-1")
        scheme, _, token = header.partition(" ")
        try:
            who = auth.authenticate(self.settings, token if scheme.lower() == "bearer" else None)
        except Unauthorized as exc:
            await error(401, str(exc), {"WWW-Authenticate": "Bearer"})(scope, receive, send)
            return
        if not self.running():
            await error(
                503,
                "the MCP transport is not running (start the server with its "
                "lifespan: legal-ai serve)",
            )(scope, receive, send)
            return
        mark = CALLER.set(who)
        try:
            await self.app(scope, receive, send)
        finally:
            CALLER.reset(mark)


class McpOverHttp:
    """The MCP server of `legal-ai mcp` bound to the web app's App, its streamable HTTP
    session manager, and the lifespan that runs it."""

    def __init__(self, settings: Settings, legal: Any) -> None:
        from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
        from mcp.server.transport_security import TransportSecuritySettings

        self.settings = settings
        self.legal = legal
        self._running = False
        self.server = build_server(settings, app_for_call=self.app_for_call)
        self.server.streamable_http_app(
            streamable_http_path=MCP_PATH,
            stateless_http=True,
            json_response=True,
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        self.manager = self.server.session_manager
        self.endpoint = BearerGate(
            StreamableHTTPASGIApp(self.manager), settings, lambda: self._running
        )

    def app_for_call(self) -> Any:
        """The App acting for the caller of the tool call in progress."""
        who = CALLER.get()
        if who is None:  # only BearerGate lets a request through, and it sets the caller
            raise Unauthorized(
                "missing token: send Authorization: Bearer <token>", code="auth.missing_token"
            )
        return self.legal.acting_as(who, surface="mcp")

    @asynccontextmanager
    async def lifespan(self, _: Any) -> AsyncIterator[None]:
        async with self.manager.run():
            self._running = True
            try:
                yield
            finally:
                self._running = False

    def mount(self, api: Any) -> None:
        """Route MCP_PATH (every method) of `api` to the authenticated transport."""
        api.add_route(MCP_PATH, self.endpoint, include_in_schema=False)
