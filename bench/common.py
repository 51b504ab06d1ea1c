"""What the benchmarks share: the database a bench measures on (a PostgreSQL server given by
URL, else an embedded one in a temp folder, stopped whatever happens) and the percentiles they
print (nearest rank, so a p95 is a sample that was measured)."""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from legal_ai.store import Store, drop_database, ensure_database, start_embedded, stop_embedded

# The shared data beside the checkout (../shared/data), which the larger benches read.
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def shared_queries(dataset: str) -> list[str]:
    """The query texts of a labeled set of the shared data (`pbl-questions`, `heq`), in order."""
    lines = (SHARED / dataset / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["text"] for line in lines]


def server_option(parser: argparse.ArgumentParser) -> None:
    """`--server-url`: a PostgreSQL server (pgvector) to make the bench's database on."""
    parser.add_argument(
        "--server-url",
        help="A PostgreSQL server (pgvector) to make the bench's database on; default: an "
        "embedded one in a temp folder.",
    )


@contextmanager
def bench_store(server_url: str | None, database: str, prefix: str) -> Iterator[Store]:
    """A fresh database `database` (dropped first) on `server_url`, or on an embedded server in
    a temp folder (`prefix`) stopped on the way out; the store is closed on the way out."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        pgdata = Path(tmp) / "pgdata"
        server = server_url or start_embedded(pgdata)
        try:
            drop_database(server, database)
            store = Store(ensure_database(server, database), max_size=2)
            try:
                yield store
            finally:
                store.close()
        finally:
            if not server_url:
                stop_embedded(pgdata)


def nearest_rank(samples: list[float], q: float) -> float:
    """The q-quantile of `samples` by nearest rank (a sample that was measured)."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def percentiles(samples: list[float], *, scale: float = 1.0, unit: str = "s", digits: int = 3):
    """{"p50_<unit>", "p95_<unit>"} of `samples` (seconds) times `scale`, rounded."""
    return {
        f"p50_{unit}": round(statistics.median(samples) * scale, digits),
        f"p95_{unit}": round(nearest_rank(samples, 0.95) * scale, digits),
    }
