"""`GET /metrics`: Prometheus' exposition of the web app's registry (docs/deployment.md
"Monitoring", docs/api.md).

- **Who may scrape.** `Authorization: Bearer <LEGAL_AI_METRICS_TOKEN>`, a token of its own (a
  scraper holding it can neither search nor act as anyone). Without it configured /metrics is
  off: 404 saying what to set. A missing or wrong token: 401 JSON naming what to send. The
  token must differ from the chair's and every agent's (the app is not built otherwise).
- **What it shows.** The series counted in process (metrics.py: searches, uploads) and, read
  from the database at each scrape (`DatabaseCollector`: jobqueue.counted, SQL in store/monitoring.py), what the
  worker did: the queues' depth and oldest age by kind, the queued jobs that finished and the
  scheduled jobs' runs by outcome, the model calls, their tokens and seconds by role (the stage
  that called) and model. When the database cannot be read the scrape still answers, with
  `legal_ai_database_up 0` and the process's own series, within about a second (the reads wait
  READ_WAIT_S for a connection and STATEMENT_S for each statement, not the pool's 10 s).
  The scheduled jobs' label is `job_name`: `job` is Prometheus' own target label.
- **Format.** Prometheus' text format (0.0.4), or OpenMetrics when the scraper asks for it
  (`prometheus_client`'s negotiation of the Accept header).
"""

from __future__ import annotations

import hmac
import logging
import time
from collections.abc import Iterator
from typing import Any

import psycopg
import psycopg_pool
from fastapi import FastAPI, Request, Response
from prometheus_client.exposition import choose_encoder
from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from .. import auth, jobqueue
from ..config import Settings
from ..metrics import Metrics
from .errors import error

logger = logging.getLogger(__name__)

PATH = "/metrics"
OFF = (
    "metrics are off: set LEGAL_AI_METRICS_TOKEN on the server and scrape /metrics with "
    "Authorization: Bearer <that token> (docs/deployment.md, Monitoring)"
)
READ_WAIT_S = 1.0  # seconds a scrape waits for a database connection
STATEMENT_S = 1.5  # seconds each of its reads may take
SEND = "send Authorization: Bearer <LEGAL_AI_METRICS_TOKEN> (the metrics token, no other)"


class DatabaseCollector(Collector):
    """The worker's work, read from the database at each scrape (jobqueue.counted)."""

    def __init__(self, legal: Any) -> None:
        self.legal = legal

    def collect(self) -> Iterator[Metric]:
        started = time.perf_counter()
        try:
            # Bounded: a connection within READ_WAIT_S, each statement within STATEMENT_S, so
            # a scrape with the database down answers in time (Prometheus' default timeout is
            # 10 s, the pool's own wait as long).
            counted = jobqueue.counted(self.legal, READ_WAIT_S, STATEMENT_S)
        except (psycopg.Error, psycopg_pool.PoolTimeout) as exc:
            logger.warning("metrics: the database could not be read: %s", type(exc).__name__)
            yield GaugeMetricFamily("legal_ai_database_up", "Whether the scrape read it.", 0)
            return
        yield GaugeMetricFamily("legal_ai_database_up", "Whether the scrape read it.", 1)
        jobs = counted["jobs"]
        yield from _queue_families(jobs)
        finished = CounterMetricFamily(
            "legal_ai_jobs_finished",
            "Queued jobs that ended, by kind and outcome (done, failed, superseded).",
            labels=("kind", "outcome"),
        )
        for row in jobs:
            if row["status"] not in jobqueue.OPEN:
                finished.add_metric((row["kind"], row["status"]), row["n"])
        yield finished
        scheduled = CounterMetricFamily(
            "legal_ai_scheduled_runs",
            "Runs of the scheduled jobs, by job and outcome (ok, failed, skipped).",
            labels=("job_name", "outcome"),
        )
        for row in counted["runs"]:
            scheduled.add_metric((row["name"], row["outcome"]), row["n"])
        yield scheduled
        yield from _model_families(counted["calls"])
        yield GaugeMetricFamily(
            "legal_ai_metrics_database_seconds",
            "Seconds this scrape's database reads took.",
            time.perf_counter() - started,
        )


def _queue_families(jobs: list[dict]) -> Iterator[Metric]:
    depth = GaugeMetricFamily(
        "legal_ai_queue_jobs",
        "Jobs in the queues now, by kind and status (queued, running, waiting).",
        labels=("kind", "status"),
    )
    oldest = GaugeMetricFamily(
        "legal_ai_queue_oldest_seconds",
        "Age of the oldest job in the queue now (since it was queued), by kind and status.",
        labels=("kind", "status"),
    )
    found = {(r["kind"], r["status"]): r for r in jobs}
    for kind in sorted({r["kind"] for r in jobs}):
        for status in jobqueue.OPEN:
            row = found.get((kind, status))
            depth.add_metric((kind, status), row["n"] if row else 0)
            if row:
                oldest.add_metric((kind, status), max(0.0, row["oldest_s"]))
    yield depth
    yield oldest


def _model_families(calls: list[dict]) -> Iterator[Metric]:
    count = CounterMetricFamily(
        "legal_ai_model_calls",
        "Language-model calls (each attempt), by role, model and outcome (ok, invalid, error, "
        "timeout, rate_limited, refused): every outcome but ok is a failure.",
        labels=("role", "model", "outcome"),
    )
    tokens = CounterMetricFamily(
        "legal_ai_model_tokens",
        "Tokens of the language-model calls, by role, model and direction (in, out).",
        labels=("role", "model", "direction"),
    )
    seconds = CounterMetricFamily(
        "legal_ai_model_call_seconds",
        "Seconds spent waiting for language-model answers, by role and model.",
        labels=("role", "model"),
    )
    spent: dict[tuple[str, str], list[float]] = {}
    for row in calls:
        key = (row["stage"], row["model"])
        count.add_metric((*key, row["outcome"]), row["calls"])
        total = spent.setdefault(key, [0, 0, 0.0])
        total[0] += row["tokens_in"]
        total[1] += row["tokens_out"]
        total[2] += row["seconds"]
    for key, (tokens_in, tokens_out, waited) in spent.items():
        tokens.add_metric((*key, "in"), tokens_in)
        tokens.add_metric((*key, "out"), tokens_out)
        seconds.add_metric(key, waited)
    yield count
    yield tokens
    yield seconds


def scrape(request: Request) -> Response:
    """GET /metrics (a sync route: the database reads run in a worker thread)."""
    token = auth.metrics_token(request.app.state.settings)
    if token is None:
        return error(404, OFF)
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    supplied = given.strip().encode() if scheme.lower() == "bearer" else b""
    if not supplied:
        return error(401, f"missing token: {SEND}", {"WWW-Authenticate": "Bearer"})
    if not hmac.compare_digest(supplied, token.encode()):
        return error(401, f"wrong token: {SEND}", {"WWW-Authenticate": "Bearer"})
    encode, content_type = choose_encoder(request.headers.get("accept", ""))
    body = encode(request.app.state.metrics.registry)
    return Response(body, headers={"Content-Type": content_type})


def mount(api: FastAPI, settings: Settings, legal: Any) -> Metrics:
    """The app's own registry (its searches and uploads, the database's figures) on
    `api.state.metrics`, and GET /metrics. Refuses a metrics token that is another's."""
    auth.metrics_token(settings)
    metrics = Metrics()
    metrics.registry.register(DatabaseCollector(legal))
    api.state.metrics = metrics
    api.add_api_route(PATH, scrape, methods=["GET"], include_in_schema=False)
    return metrics
