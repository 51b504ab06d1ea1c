"""The job queue every job kind uses (migration 0012), and the record of model calls.

The queue is one table, `jobs`, drained with `SELECT … FOR UPDATE SKIP LOCKED` (no other
server). A claim sets a lease; a job whose lease ended (its worker died) is claimable again; the
worker's completion is guarded by (id, status running, worker, attempts), so a stale worker
that wakes up after its job was taken over changes nothing. Every function takes the caller's
connection.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from psycopg import sql
from psycopg.types.json import Jsonb

from .rows import Conn, one

# A job is ready when it is queued and due, or running under a lease that has ended.
_READY = (
    "((status = 'queued' AND run_after <= now())"
    " OR (status = 'running' AND lease_until < now() AND attempts < max_attempts))"
)
# The running job of this worker's claim (id, worker, attempt): the guard of every update.
_MINE = "id = %(id)s AND status = 'running' AND worker = %(worker)s AND attempts = %(attempt)s"


# -- model calls --------------------------------------------------------------------------------


def insert_call(conn: Conn, call: dict[str, Any]) -> int:
    """Append one model call (append-only: the table refuses UPDATE and DELETE)."""
    return one(
        conn.execute(
            "INSERT INTO model_calls (stage, provider, model, base_url, case_number, job_id,"
            " prompt_hash, attempt, tokens_in, tokens_out, latency_ms, outcome, error)"
            " VALUES (%(stage)s, %(provider)s, %(model)s, %(base_url)s, %(case_number)s, %(job_id)s,"
            " %(prompt_hash)s, %(attempt)s, %(tokens_in)s, %(tokens_out)s, %(latency_ms)s,"
            " %(outcome)s, %(error)s) RETURNING id",
            call,
        )
    )["id"]


def call_totals(conn: Conn, job_ids: list[int], since: Any = None) -> dict:
    """Calls, failed calls and tokens of the given jobs (made at or after `since`, when given),
    overall and per stage."""
    rows = conn.execute(
        "SELECT stage, count(*) AS calls, count(*) FILTER (WHERE outcome <> 'ok') AS failed,"
        " coalesce(sum(tokens_in), 0) AS tokens_in, coalesce(sum(tokens_out), 0) AS tokens_out"
        " FROM model_calls WHERE job_id = ANY(%s) AND (%s::timestamptz IS NULL OR at >= %s)"
        " GROUP BY stage ORDER BY stage",
        (job_ids, since, since),
    ).fetchall()
    total = {
        key: sum(r[key] for r in rows) for key in ("calls", "failed", "tokens_in", "tokens_out")
    }
    return {**total, "stages": {r["stage"]: {k: r[k] for k in total} for r in rows}}


# -- the queue ----------------------------------------------------------------------------------


def enqueue(
    conn: Conn,
    kind: str,
    case_number: str | None,
    key: str,
    *,
    max_attempts: int = 3,
) -> dict | None:
    """Add a job unless one with this `key` exists (then None: the same work is queued once).
    A new job of a case supersedes the case's jobs that have not started (queued or waiting):
    they would read the case as it now is, so they are closed as done, pointing at this one."""
    job = conn.execute(
        "INSERT INTO jobs (kind, case_number, key, max_attempts) VALUES (%s, %s, %s, %s)"
        " ON CONFLICT (key) DO NOTHING RETURNING *",
        (kind, case_number, key, max_attempts),
    ).fetchone()
    if job is not None and case_number is not None:
        conn.execute(
            "UPDATE jobs SET status = 'done', finished_at = now(), waiting_for = NULL,"
            " result = jsonb_build_object('superseded_by', %s::bigint)"
            " WHERE kind = %s AND case_number = %s AND id <> %s"
            " AND status IN ('queued', 'waiting')",
            (job["id"], kind, case_number, job["id"]),
        )
    return job


def close_queued(conn: Conn, key: str, result: dict) -> int:
    """Close the job of `key` as done when it has not started (queued or waiting): its work was
    done another way (a direct run)."""
    return conn.execute(
        "UPDATE jobs SET status = 'done', finished_at = now(), waiting_for = NULL, result = %s"
        " WHERE key = %s AND status IN ('queued', 'waiting')",
        (Jsonb(result), key),
    ).rowcount


def claim(
    conn: Conn,
    worker: str,
    lease_s: int,
    *,
    case_number: str | None = None,
    kind: str = "learning",
) -> dict | None:
    """Take the next ready job of `kind` (oldest `run_after` first) for `worker`: status
    running, a lease of `lease_s` seconds, attempts + 1. Rows another transaction holds are
    skipped, so two workers never take the same job."""
    where: sql.Composable = sql.SQL("kind = %s AND " + _READY)
    params: list[Any] = [kind]
    if case_number is not None:
        where = sql.SQL("{} AND case_number = %s").format(where)
        params.append(case_number)
    query = sql.SQL(
        "UPDATE jobs SET status = 'running', worker = %s, attempts = attempts + 1,"
        " lease_until = now() + make_interval(secs => %s), started_at = now(), error = NULL"
        " WHERE id = (SELECT id FROM jobs WHERE {} ORDER BY run_after, id"
        " FOR UPDATE SKIP LOCKED LIMIT 1) RETURNING *"
    ).format(where)
    return conn.execute(query, [worker, lease_s, *params]).fetchone()


def fail_abandoned(
    conn: Conn, case_number: str | None = None, kind: str = "learning"
) -> list[dict]:
    """Jobs of `kind` whose lease ended on their last allowed attempt (their worker died every
    time): failed, with what happened. Returns them."""
    where = "kind = %s AND status = 'running' AND lease_until < now() AND attempts >= max_attempts"
    params: list[Any] = [kind]
    if case_number is not None:
        where += " AND case_number = %s"
        params.append(case_number)
    return conn.execute(
        sql.SQL(
            "UPDATE jobs SET status = 'failed', finished_at = now(), lease_until = NULL,"
            " error = coalesce(error, 'its worker stopped without finishing it ' || attempts"
            " || ' times (killed, or the lease ran out)')"
            " WHERE id IN (SELECT id FROM jobs WHERE {} FOR UPDATE SKIP LOCKED) RETURNING *"
        ).format(sql.SQL(where)),
        params,
    ).fetchall()


def _guarded(conn: Conn, assignments: str, values: dict[str, Any]) -> dict | None:
    query = sql.SQL("UPDATE jobs SET {} WHERE {} RETURNING *").format(
        sql.SQL(assignments), sql.SQL(_MINE)
    )
    return conn.execute(query, values).fetchone()


def save_progress(
    conn: Conn, job_id: int, worker: str, attempt: int, result: dict, lease_s: int
) -> bool:
    """Keep the stages done so far and renew the lease; False when the job is no longer this
    worker's (its lease ended and another worker took it)."""
    return (
        _guarded(
            conn,
            "result = %(result)s, lease_until = now() + make_interval(secs => %(lease)s)",
            {
                "id": job_id,
                "worker": worker,
                "attempt": attempt,
                "result": Jsonb(result),
                "lease": lease_s,
            },
        )
        is not None
    )


def renew(conn: Conn, job_id: int, worker: str, attempt: int, lease_s: int) -> bool:
    """Extend the lease (a heartbeat); False when the job is no longer this worker's."""
    return (
        _guarded(
            conn,
            "lease_until = greatest(lease_until, now() + make_interval(secs => %(lease)s))",
            {"id": job_id, "worker": worker, "attempt": attempt, "lease": lease_s},
        )
        is not None
    )


def complete(
    conn: Conn, job_id: int, worker: str, attempt: int, result: Mapping[str, Any]
) -> dict | None:
    """Mark the job done with its result, once: None when it is no longer this worker's."""
    return _guarded(
        conn,
        "status = 'done', result = %(result)s, finished_at = now(),"
        " lease_until = NULL, waiting_for = NULL, error = NULL",
        {"id": job_id, "worker": worker, "attempt": attempt, "result": Jsonb(result)},
    )


def wait(
    conn: Conn,
    job_id: int,
    worker: str,
    attempt: int,
    waiting_for: str,
    result: dict,
) -> dict | None:
    """Park the job until the configuration changes: status waiting with what to set. The
    claim does not count as an attempt (nothing failed)."""
    return _guarded(
        conn,
        "status = 'waiting', waiting_for = %(waiting_for)s, result = %(result)s,"
        " attempts = attempts - 1, lease_until = NULL, worker = NULL",
        {
            "id": job_id,
            "worker": worker,
            "attempt": attempt,
            "waiting_for": waiting_for,
            "result": Jsonb(result),
        },
    )


def release(conn: Conn, job_id: int, worker: str, attempt: int, result: dict) -> dict | None:
    """Give the job back to the queue (a worker asked to stop): queued, due now, the stages
    done so far kept, the claim not counted as an attempt."""
    return _guarded(
        conn,
        "status = 'queued', result = %(result)s, attempts = attempts - 1,"
        " lease_until = NULL, worker = NULL, run_after = now()",
        {"id": job_id, "worker": worker, "attempt": attempt, "result": Jsonb(result)},
    )


def retry_or_fail(
    conn: Conn,
    job_id: int,
    worker: str,
    attempt: int,
    error: str,
    result: dict,
    backoff_s: float,
) -> dict | None:
    """A failed attempt: queued again after `backoff_s` seconds while attempts remain, else
    failed with the error. None when the job is no longer this worker's."""
    return _guarded(
        conn,
        "status = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'queued' END,"
        " finished_at = CASE WHEN attempts >= max_attempts THEN now() END,"
        " run_after = now() + make_interval(secs => %(backoff)s), error = %(error)s,"
        " result = %(result)s, lease_until = NULL, worker = NULL",
        {
            "id": job_id,
            "worker": worker,
            "attempt": attempt,
            "error": error,
            "result": Jsonb(result),
            "backoff": backoff_s,
        },
    )


def waiting_jobs(conn: Conn, case_number: str | None = None, kind: str = "learning") -> list[dict]:
    """Waiting jobs of `kind`, locked (skipping those another pass holds), to re-check."""
    where, params = "kind = %s AND status = 'waiting'", [kind]
    if case_number is not None:
        where, params = where + " AND case_number = %s", [kind, case_number]
    return conn.execute(
        sql.SQL("SELECT * FROM jobs WHERE {} ORDER BY id FOR UPDATE SKIP LOCKED").format(
            sql.SQL(where)
        ),
        params,
    ).fetchall()


def requeue(conn: Conn, job_ids: list[int]) -> int:
    """Waiting jobs back to the queue (the configuration they waited for changed)."""
    return conn.execute(
        "UPDATE jobs SET status = 'queued', waiting_for = NULL, run_after = now()"
        " WHERE id = ANY(%s) AND status = 'waiting'",
        (job_ids,),
    ).rowcount


def open_jobs(conn: Conn, case_number: str | None = None, kind: str = "learning") -> list[dict]:
    """Jobs of `kind` not finished (queued, running, waiting), oldest first."""
    where, params = "kind = %s AND status IN ('queued', 'running', 'waiting')", [kind]
    if case_number is not None:
        where, params = where + " AND case_number = %s", [kind, case_number]
    return conn.execute(
        sql.SQL("SELECT * FROM jobs WHERE {} ORDER BY run_after, id").format(sql.SQL(where)),
        params,
    ).fetchall()


def list_jobs(conn: Conn, case_number: str | None = None, kind: str = "learning") -> list[dict]:
    where, params = sql.SQL(""), [kind]
    if case_number is not None:
        where, params = sql.SQL(" AND case_number = %s"), [kind, case_number]
    return conn.execute(
        sql.SQL("SELECT * FROM jobs WHERE kind = %s{} ORDER BY id").format(where), params
    ).fetchall()


def clock(conn: Conn):
    """The database's clock now (clock_timestamp(): not the transaction's start)."""
    return one(conn.execute("SELECT clock_timestamp() AS t"))["t"]
