"""Each HTTP request's id and its access line (issue 24 item 4; logs.py says where the id goes).

`RequestContext` is the outermost middleware of the web app (pure ASGI, so the context variables
it sets are those of the request's own task, which FastAPI's worker threads and the MCP tools'
handlers inherit). For each request it:

- takes the caller's `X-Request-ID` when well formed (logs.well_formed), else makes one, and
  returns it in the response's `X-Request-ID`, whatever the answer (an error, a desk page);
- sets `logs.REQUEST_ID` (log lines, and the store's transactions: the audit, search-log and
  model-call rows) and `metrics.CURRENT` (the app's registry: searches and uploads counted);
- logs one access line when the answer has gone (`legal_ai.web.access`: method, path without
  its query, status, milliseconds); /metrics and /healthz, polled by machines, at DEBUG.
  `legal-ai serve` turns uvicorn's own access log off (it would log the query string: the
  searches' text)."""

from __future__ import annotations

import logging
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..logs import REQUEST_ID, REQUEST_ID_HEADER, new_request_id, well_formed
from ..metrics import CURRENT, Metrics

access = logging.getLogger("legal_ai.web.access")
QUIET = ("/metrics", "/healthz")
HEADER = REQUEST_ID_HEADER.lower().encode()


def chosen(scope: Scope) -> str:
    """The request's id: its well-formed X-Request-ID, else a new one."""
    given = dict(scope.get("headers") or []).get(HEADER, b"")
    text = given.decode("latin-1").strip()
    return text if well_formed(text) else new_request_id()


class RequestContext:
    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        rid = chosen(scope)
        status = 0

        async def stamped(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = [h for h in message.get("headers", []) if h[0].lower() != HEADER]
                message["headers"] = [*headers, (HEADER, rid.encode())]
            await send(message)

        marks = REQUEST_ID.set(rid), CURRENT.set(self.metrics)
        started = time.perf_counter()
        try:
            await self.app(scope, receive, stamped)
        finally:
            self._log(scope, status, time.perf_counter() - started)
            REQUEST_ID.reset(marks[0])
            CURRENT.reset(marks[1])

    @staticmethod
    def _log(scope: Scope, status: int, seconds: float) -> None:
        path = scope.get("path", "")
        level = logging.DEBUG if path in QUIET else logging.INFO
        if not access.isEnabledFor(level):
            return
        fields = {
            "method": scope.get("method"),
            "path": path,
            "status": status or None,
            "duration_ms": round(seconds * 1000, 1),
        }
        access.log(
            level,
            "%s %s %s %.1f ms",
            fields["method"],
            path,
            status or "-",
            fields["duration_ms"],
            extra={"fields": fields},
        )
