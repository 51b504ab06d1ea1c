"""Each HTTP request's id and its access line (logs.py says where the id goes).

`RequestContext` is the outermost middleware of the web app (pure ASGI, so the context variables
it sets are those of the request's own task, which FastAPI's worker threads and the MCP tools'
handlers inherit). For each request it:

- takes the caller's `X-Request-ID` only when it is well formed (logs.well_formed: 8-128 of a
  safe charset) and unseen — not used by an earlier request of this process (`SeenIds`, the
  newest 100,000) nor recorded by any row of the database (telemetry.request_id_recorded: the audit, the
  search log, the model calls; a database that cannot answer counts as seen) — else makes one,
  and returns the id actually used in the response's `X-Request-ID`, whatever the answer (an
  error, a desk page): an agent cannot file its rows under another's request;
- sets `logs.REQUEST_ID` (log lines, and the store's transactions: the audit, search-log and
  model-call rows) and `metrics.CURRENT` (the app's registry: searches and uploads counted);
- logs one access line when the answer has gone (`legal_ai.web.access`: method, path without
  its query, status, milliseconds); /metrics, /healthz and /readyz, polled by machines, at DEBUG.
  `legal-ai serve` turns uvicorn's own access log off (it would log the query string: the
  searches' text)."""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..logs import REQUEST_ID, REQUEST_ID_HEADER, new_request_id, well_formed
from ..metrics import CURRENT, Metrics
from ..telemetry import request_id_recorded

access = logging.getLogger("legal_ai.web.access")
logger = logging.getLogger(__name__)
QUIET = ("/metrics", "/healthz", "/readyz")
HEADER = REQUEST_ID_HEADER.lower().encode()
REMEMBERED = 100_000


class SeenIds:
    """The ids this process's requests used, newest `size` kept: `claim(id)` is True for an id
    not among them (and remembers it), False for one already used."""

    def __init__(self, size: int = REMEMBERED) -> None:
        self.size = size
        self._ids: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    def claim(self, rid: str) -> bool:
        with self._lock:
            if rid in self._ids:
                return False
            self._ids[rid] = None
            if len(self._ids) > self.size:
                self._ids.popitem(last=False)
            return True


def given_id(scope: Scope) -> str:
    raw = dict(scope.get("headers") or []).get(HEADER, b"")
    return raw.decode("latin-1").strip()


class RequestContext:
    def __init__(self, app: ASGIApp, metrics: Metrics, legal: Any = None) -> None:
        self.app = app
        self.metrics = metrics
        self.legal = legal  # its store answers whether an id is recorded (None: memory only)
        self.seen = SeenIds()

    async def chosen(self, scope: Scope) -> str:
        """The request's id: its X-Request-ID when well formed and unseen, else a new one."""
        text = given_id(scope)
        if not well_formed(text) or not self.seen.claim(text):
            return self._fresh()
        if self.legal is not None and await run_in_threadpool(self._recorded, text):
            return self._fresh()
        return text

    def _fresh(self) -> str:
        rid = new_request_id()
        self.seen.claim(rid)
        return rid

    def _recorded(self, rid: str) -> bool:
        try:
            return request_id_recorded(self.legal, rid)
        except Exception:  # no answer: the caller's id is not taken on trust
            logger.warning("could not look up a request id; a new one is used", exc_info=True)
            return True

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        rid = await self.chosen(scope)
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
