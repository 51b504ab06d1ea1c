"""What the web server counts in its own process for `GET /metrics` (docs/deployment.md
"Monitoring"): searches and uploads. What the worker does (jobs, model calls and their tokens) is
read from the database when Prometheus scrapes (web/metrics.py), so it is right whichever process
did the work and survives restarts.

Each web app owns one `Metrics` (its own `CollectorRegistry`, never the process-wide default:
two apps in one process, or the tests' many, count apart). The request in progress knows its
app's through `CURRENT` (set by web/request_ids.py), so the one place every search passes
(`App.search`) and the upload edge (web/uploads.py) record with `searched(...)` and
`uploaded(...)` without being handed it; outside a request (the CLI, the worker, the MCP server
over stdio) they record nothing.

Series (all prefixed `legal_ai_`):
- `search_seconds{corpus, mode, surface}`: a histogram of each search's latency;
- `search_hits{corpus, mode, surface}`: a histogram of the hits each returned (`le="0"`: none);
- `uploads_total{kind, outcome}`: drafts and finals received, by outcome (`stored`, or why
  refused: `too_large`, `unsupported_type`, `invalid`, `refused`, `error`).
"""

from __future__ import annotations

from contextvars import ContextVar

from prometheus_client import CollectorRegistry, Counter, Histogram

SEARCH_SECONDS_BUCKETS = (0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1, 2, 5, 10)
HIT_BUCKETS = (0, 1, 3, 5, 10, 20, 50, 100)
UPLOAD_OUTCOMES = ("stored", "too_large", "unsupported_type", "invalid", "refused", "error")


class Metrics:
    """One web app's registry and the series it counts in process."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=False)
        labels = ("corpus", "mode", "surface")
        self.search_seconds = Histogram(
            "legal_ai_search_seconds",
            "Latency of each search (embedding, legs and fusion), by corpus, mode and surface.",
            labels,
            buckets=SEARCH_SECONDS_BUCKETS,
            registry=self.registry,
        )
        self.search_hits = Histogram(
            "legal_ai_search_hits",
            "Hits each search returned, by corpus, mode and surface.",
            labels,
            buckets=HIT_BUCKETS,
            registry=self.registry,
        )
        self.uploads = Counter(
            "legal_ai_uploads",
            "Drafts and finals uploaded (HTTP API and desk), by kind and outcome.",
            ("kind", "outcome"),
            registry=self.registry,
        )

    def search(self, corpus: str, mode: str, surface: str, seconds: float, hits: int) -> None:
        self.search_seconds.labels(corpus, mode, surface).observe(max(0.0, seconds))
        self.search_hits.labels(corpus, mode, surface).observe(max(0, hits))

    def upload(self, kind: str, outcome: str) -> None:
        self.uploads.labels(kind, outcome if outcome in UPLOAD_OUTCOMES else "error").inc()


# The metrics of the web app serving the request in progress (None outside a request).
CURRENT: ContextVar[Metrics | None] = ContextVar("legal_ai_metrics", default=None)


def searched(corpus: str, mode: str, surface: str | None, seconds: float, hits: int) -> None:
    """A search finished (App.search): counted by the app serving the request, if any."""
    sink = CURRENT.get()
    if sink is not None:
        sink.search(corpus, mode, surface or "internal", seconds, hits)


def uploaded(kind: str, outcome: str) -> None:
    """An upload was stored or refused (web/uploads.py, web/errors.py's early 413)."""
    sink = CURRENT.get()
    if sink is not None:
        sink.upload(kind, outcome)
