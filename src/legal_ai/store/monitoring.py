"""What `GET /metrics` reads from the database when Prometheus scrapes (web/metrics.py): the
queues, the queued jobs that finished, the scheduled jobs' runs and the model calls. Read only,
three aggregate queries; every count but the open jobs' only grows (jobs are never deleted;
schedule_runs and model_calls are append-only), so they are exposed as counters."""

from __future__ import annotations

from .rows import Conn

OPEN = ("queued", "running", "waiting")


def jobs(conn: Conn) -> list[dict]:
    """Per job kind and status: how many jobs, and the oldest's age in seconds (by creation).
    Finished jobs (done, failed) split by whether another job superseded them before they ran
    (`superseded`: their result names it)."""
    return conn.execute(
        "SELECT kind, CASE WHEN status = 'done' AND result ? 'superseded_by' THEN 'superseded'"
        " ELSE status END AS status, count(*) AS n,"
        " extract(epoch FROM now() - min(created_at))::float8 AS oldest_s"
        " FROM jobs GROUP BY 1, 2 ORDER BY 1, 2"
    ).fetchall()


def schedule_runs(conn: Conn) -> list[dict]:
    """Per scheduled job and outcome (ok, failed, skipped): how many runs."""
    return conn.execute(
        "SELECT name, outcome, count(*) AS n FROM schedule_runs GROUP BY 1, 2 ORDER BY 1, 2"
    ).fetchall()


def model_calls(conn: Conn) -> list[dict]:
    """Per stage (the model's role), model (`provider:model`) and outcome: calls, tokens in and
    out, and seconds spent waiting for answers."""
    return conn.execute(
        "SELECT stage, provider || ':' || model AS model, outcome, count(*) AS calls,"
        " coalesce(sum(tokens_in), 0)::bigint AS tokens_in,"
        " coalesce(sum(tokens_out), 0)::bigint AS tokens_out,"
        " coalesce(sum(latency_ms), 0)::float8 / 1000 AS seconds"
        " FROM model_calls GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"
    ).fetchall()


def open_work(conn: Conn, failed_days: int = 7) -> list[dict]:
    """Per job kind, for the chair's health page: jobs queued or running, waiting (for a model
    or its budget), and failed within `failed_days` days (a later job of the same key that ran
    leaves its failure behind), with the oldest open one's creation."""
    return conn.execute(
        "SELECT kind, count(*) FILTER (WHERE status IN ('queued', 'running')) AS queued,"
        " count(*) FILTER (WHERE status = 'waiting') AS waiting,"
        " count(*) FILTER (WHERE status = 'failed' AND finished_at > now() - make_interval("
        "days => %s) AND NOT EXISTS (SELECT 1 FROM jobs l WHERE l.key = j.key AND l.kind = j.kind"
        " AND l.id > j.id AND l.status = 'done')) AS failed,"
        " min(created_at) FILTER (WHERE status IN ('queued', 'running', 'waiting')) AS oldest"
        " FROM jobs j GROUP BY kind ORDER BY kind",
        (failed_days,),
    ).fetchall()
