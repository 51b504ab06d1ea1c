"""The server's log lines and the request id (docs/deployment.md "Monitoring").

- **Request id.** Every HTTP request has one (web/request_ids.py): the caller's `X-Request-ID`
  when it is well formed (8-128 of `A-Z a-z 0-9 . _ : = + / -`) and no earlier request used
  it, else a new one (32 hex digits). It lives in `REQUEST_ID` (a context variable) for the request's duration, so
  everything the request does sees it: each log line carries it, and each transaction of the
  store sets it in the database session (`legal_ai.request_id`, store/db.py), where the audit,
  the search log and the model calls record it (migration 0031).
- **Lines.** `configure(settings)` (`legal-ai serve` and `legal-ai worker`) sends every log
  record, uvicorn's included, to stderr as one line each: JSON (`LEGAL_AI_LOG_FORMAT=json`, the
  default) with `time` (UTC, ISO 8601), `level`, `logger`, `message`, `request_id` when there is
  one, the fields a record was given (`extra={"fields": {...}}`: the access line's method,
  path, status and duration) and `exception` (the traceback); or text (`text`: `LEVEL logger
  [request id] message`) for a terminal. The CLI's other commands keep their short warnings.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
import sys
import uuid
from contextvars import ContextVar
from typing import IO, Any

from .config import Settings

REQUEST_ID: ContextVar[str | None] = ContextVar("legal_ai_request_id", default=None)
REQUEST_ID_HEADER = "X-Request-ID"
_WELL_FORMED = re.compile(r"[A-Za-z0-9._:=+/-]{8,128}")
FORMATS = ("json", "text")
TEXT_FORMAT = "%(levelname)s %(name)s [%(request_id)s] %(message)s"


def well_formed(value: str | None) -> bool:
    """Whether a caller's request id may be kept as it is (else a new one is made)."""
    return value is not None and _WELL_FORMED.fullmatch(value) is not None


def new_request_id() -> str:
    return uuid.uuid4().hex


def request_id() -> str | None:
    """The id of the HTTP request in progress (None outside a request)."""
    return REQUEST_ID.get()


class RequestIdFilter(logging.Filter):
    """Stamps each record with the request id in force when it was logged (`-` outside a
    request): a record formatted later, or in another thread, keeps its request's."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = REQUEST_ID.get() or "-"
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line (no newline inside: the message's are escaped)."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        rid = getattr(record, "request_id", None) or REQUEST_ID.get()
        if rid and rid != "-":
            line["request_id"] = rid
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            line.update({k: v for k, v in fields.items() if k not in line})
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            line["exception"] = record.exc_text
        return json.dumps(line, ensure_ascii=False, default=str)


class _Stderr(logging.StreamHandler):
    """A stream handler that writes to whatever `sys.stderr` is when a record comes (not the
    one of the moment it was made), unless it was given its own stream."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        super().__init__(stream)
        self._own = stream

    @property
    def stream(self) -> IO[str]:
        return self._own if self._own is not None else sys.stderr

    @stream.setter
    def stream(self, value: IO[str]) -> None:
        self._own = value if value is not sys.stderr else None


def handler(log_format: str, stream: IO[str] | None = None) -> logging.Handler:
    """A handler writing `log_format` lines (json | text), each with its request id."""
    if log_format not in FORMATS:
        raise ValueError(f"log format {log_format!r}: one of {', '.join(FORMATS)}")
    out = _Stderr(stream)
    out.addFilter(RequestIdFilter())
    out.setFormatter(JsonFormatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT))
    out.name = "legal-ai"
    return out


def configure(settings: Settings, *, level: int = logging.INFO) -> logging.Handler:
    """The service's logging: the root logger writes LEGAL_AI_LOG_FORMAT lines to stderr at
    `level` (uvicorn's loggers too: `legal-ai serve` gives uvicorn no configuration of its
    own). Called again, it replaces its own handler, never another's."""
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.name == "legal-ai"]:
        root.removeHandler(old)
    new = handler(settings.log_format)
    root.addHandler(new)
    root.setLevel(level)
    return new
