"""`legal-ai serve` and `legal-ai worker`: the HTTP API and the worker that drains the queues."""

from __future__ import annotations

import logging
from typing import Annotated

import typer

from .. import logs
from ..ops.worker import work
from ..web import app as web_app
from ..web.clients import uvicorn_options
from .common import _settings, _system_app

worker_log = logging.getLogger("legal_ai.worker")


def serve(
    host: Annotated[str, typer.Option(help="Bind address.")] = "127.0.0.1", port: int = 8765
) -> None:
    """Serve the HTTP API (LEGAL_AI_CHAIR_TOKEN and/or LEGAL_AI_AGENT_TOKEN; README: HTTP API)."""
    import uvicorn

    settings = _settings()
    # One line per record, JSON unless LEGAL_AI_LOG_FORMAT=text, uvicorn's too (logs.py): it
    # gets no logging configuration of its own, and its access log is web/request_ids.py's.
    logs.configure(settings)
    # Proxy headers follow LEGAL_AI_TRUSTED_PROXIES (off when empty; uvicorn's own default
    # would believe X-Forwarded-For from 127.0.0.1): web/clients.py.
    uvicorn.run(
        web_app.create_app(settings),
        host=host,
        port=port,
        log_level="info",
        log_config=None,
        access_log=False,
        **uvicorn_options(settings),
    )


def worker(
    once: Annotated[
        bool, typer.Option("--once", help="One pass over the ready jobs, then exit.")
    ] = False,
    poll: Annotated[float, typer.Option(help="Seconds between passes.", min=0.1)] = 5.0,
) -> None:
    """Drain the queues until stopped (SIGTERM/SIGINT settle the job in hand first): learning,
    OCR, principle extraction, enrichment, scheduled jobs, canonical synthesis, voice documents."""
    import signal

    stop: list[int] = []

    def request_stop(signum, frame) -> None:
        if stop:  # a second signal: stop now (the job's lease makes it claimable again)
            raise SystemExit(128 + signum)
        stop.append(signum)
        worker_log.info("stopping after the job in hand (signal again to stop now)")

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, request_stop)
    # Its lines are log records, JSON like the server's unless LEGAL_AI_LOG_FORMAT=text (logs.py).
    # The pool's own complaint at each failed reconnection is left out: the worker says once
    # that the database is lost and once that it is back (ops/worker.py).
    settings = _settings()
    logs.configure(settings)
    logging.getLogger("psycopg.pool").setLevel(logging.ERROR)
    # The system, never a caller: the tokens of the environment file it shares with `serve`
    # are not its own (cli/common.py: _system_app).
    with _system_app(settings) as legal:
        work(legal, once=once, poll=poll, echo=worker_log.info, should_stop=lambda: bool(stop))


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
    app.command("worker")(worker)
