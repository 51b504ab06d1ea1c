"""SQL of the scheduler (migration 0021): the schedules, their append-only runs, the cases'
reconciled status and the standing evaluation's history. Every function but `take_lease` takes
the caller's connection.

A run's lease (`take_lease`) is a session advisory lock on a connection of its own: never one of
the pool's, autocommit, so it is idle (never idle in a transaction) while the job runs, and the
job's own statements take pooled connections only as they need them. A process that dies
releases the lease with its connection; the job is then due again."""

from __future__ import annotations

import logging
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from .rows import Conn, one

logger = logging.getLogger(__name__)

# The advisory-lock namespace of scheduled-job runs (the second key: hashtext(job name)).
LEASE_CLASS = 0x5C4ED

# -- a run's lease ------------------------------------------------------------------------------


class RunLease:
    """One job's run lease, held until `release()` (or until its process ends)."""

    def __init__(self, conn: psycopg.Connection, name: str) -> None:
        self.conn, self.name = conn, name

    def release(self) -> None:
        try:
            self.conn.execute(
                "SELECT pg_advisory_unlock(%s, hashtext(%s))", (LEASE_CLASS, self.name)
            )
        except psycopg.Error:  # the connection went away: the server released the lock with it
            logger.warning("scheduled job %s: its lease's connection was lost", self.name)
        finally:
            self.conn.close()


def take_lease(url: str, name: str) -> RunLease | None:
    """The run lease of job `name` on the database at `url`, or None when another process
    holds it (the job is running there). Never waits."""
    conn = psycopg.connect(url, autocommit=True, application_name=f"legal-ai job {name}"[:63])
    try:
        got = one(
            conn.execute("SELECT pg_try_advisory_lock(%s, hashtext(%s))", (LEASE_CLASS, name))
        )[0]
    except BaseException:
        conn.close()
        raise
    if not got:
        conn.close()
        return None
    return RunLease(conn, name)


def leased(conn: Conn) -> set[str]:
    """The jobs whose run lease some process holds now (running), in this database."""
    return {
        r["name"]
        for r in conn.execute(
            "SELECT s.name FROM schedules s WHERE EXISTS (SELECT 1 FROM pg_catalog.pg_locks l"
            " WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2"
            " AND l.database = (SELECT oid FROM pg_catalog.pg_database"
            "                   WHERE datname = pg_catalog.current_database())"
            " AND l.classid = %s::oid AND l.objid = pg_catalog.hashtext(s.name)::oid)",
            (LEASE_CLASS,),
        )
    }


# -- schedules ----------------------------------------------------------------------------------


def ensure(conn: Conn, name: str, cron: str, timezone: str, next_run_at: Any) -> None:
    """Create the job's row when it has none (never waits on a row another process holds)."""
    conn.execute(
        "INSERT INTO schedules (name, cron, timezone, next_run_at) VALUES (%s, %s, %s, %s)"
        " ON CONFLICT (name) DO NOTHING",
        (name, cron, timezone, next_run_at),
    )


def lock(conn: Conn, name: str) -> dict | None:
    """The job's row, locked for this (short) transaction; None when another transaction holds
    it (or it does not exist). The run itself is guarded by its lease (`take_lease`)."""
    return conn.execute(
        "SELECT * FROM schedules WHERE name = %s FOR UPDATE SKIP LOCKED", (name,)
    ).fetchone()


def request_run(conn: Conn, name: str, key: str, request: dict) -> dict:
    """Mark the job's row as asked to run (`last_result[key]`, the other keys kept); a request
    already waiting stays as it was. Returns the request in force. The run's `finish` replaces
    last_result, which clears it."""
    return one(
        conn.execute(
            "UPDATE schedules SET last_result = coalesce(last_result, '{}'::jsonb)"
            " || jsonb_build_object(%(key)s::text, coalesce(last_result -> %(key)s::text, %(req)s)),"
            " updated_at = now() WHERE name = %(name)s RETURNING last_result -> %(key)s::text AS asked",
            {"key": key, "req": Jsonb(request), "name": name},
        )
    )["asked"]


def exists(conn: Conn, name: str) -> bool:
    return conn.execute("SELECT 1 FROM schedules WHERE name = %s", (name,)).fetchone() is not None


def reschedule(conn: Conn, name: str, cron: str, timezone: str, next_run_at: Any) -> dict:
    """A definition whose cron or time zone changed: its next run from the new schedule."""
    return one(
        conn.execute(
            "UPDATE schedules SET cron = %s, timezone = %s, next_run_at = %s, updated_at = now()"
            " WHERE name = %s RETURNING *",
            (cron, timezone, next_run_at, name),
        )
    )


def all_schedules(conn: Conn) -> dict[str, dict]:
    return {r["name"]: r for r in conn.execute("SELECT * FROM schedules ORDER BY name")}


def finish(
    conn: Conn,
    name: str,
    *,
    started_at: Any,
    finished_at: Any,
    outcome: str,
    result: Any,
    error: str | None,
    failures: int,
    next_run_at: Any,
) -> dict:
    return one(
        conn.execute(
            "UPDATE schedules SET last_started_at = %s, last_finished_at = %s, last_outcome = %s,"
            " last_result = %s, last_error = %s, failures = %s, next_run_at = %s, updated_at = now()"
            " WHERE name = %s RETURNING *",
            (started_at, finished_at, outcome, Jsonb(result), error, failures, next_run_at, name),
        )
    )


def record_run(conn: Conn, run: dict[str, Any]) -> dict:
    """Append one run (the table refuses UPDATE and DELETE)."""
    return one(
        conn.execute(
            "INSERT INTO schedule_runs (name, trigger, scheduled_for, missed, started_at, finished_at,"
            " outcome, result, error, worker, requested_by) VALUES (%(name)s, %(trigger)s,"
            " %(scheduled_for)s, %(missed)s, %(started_at)s, %(finished_at)s, %(outcome)s,"
            " %(result)s, %(error)s, %(worker)s, %(requested_by)s) RETURNING *",
            {**run, "result": Jsonb(run.get("result"))},
        )
    )


def runs(
    conn: Conn, name: str | None = None, limit: int | None = 50, offset: int = 0
) -> list[dict]:
    return conn.execute(
        "SELECT * FROM schedule_runs WHERE (%(name)s::text IS NULL OR name = %(name)s)"
        " ORDER BY id DESC LIMIT %(limit)s OFFSET %(offset)s",
        {"name": name, "limit": limit, "offset": offset},
    ).fetchall()


# -- stale cases --------------------------------------------------------------------------------


def idle_cases(conn: Conn, before: Any) -> list[dict]:
    """Cases whose ledger has not moved since `before`: no pair (our draft not written) or a pair
    short of lessons_folded, whose last movement (the case's creation, its pair's last status
    change, its latest draft) is older. Longest idle first."""
    return conn.execute(
        "WITH moved AS ("
        " SELECT c.case_number, c.title, c.appeal_type, coalesce(p.status, 'open') AS status,"
        " greatest(c.created_at, p.status_changed_at,"
        " (SELECT max(d.created_at) FROM drafts d WHERE d.case_number = c.case_number))"
        " AS last_moved_at"
        " FROM cases c LEFT JOIN draft_final_pairs p ON p.case_number = c.case_number"
        " WHERE p.status IS DISTINCT FROM 'lessons_folded')"
        " SELECT * FROM moved WHERE last_moved_at < %s ORDER BY last_moved_at, case_number",
        (before,),
    ).fetchall()


# -- case status ----------------------------------------------------------------------------------


def ledger_statuses(conn: Conn) -> list[dict]:
    """Every case with the status its ledger gives it now and the status recorded last."""
    return conn.execute(
        "SELECT c.case_number, coalesce(p.status, 'open') AS ledger, s.status AS recorded"
        " FROM cases c LEFT JOIN draft_final_pairs p ON p.case_number = c.case_number"
        " LEFT JOIN case_status s ON s.case_number = c.case_number ORDER BY c.case_number"
    ).fetchall()


def set_status(conn: Conn, case_number: str, status: str, at: Any) -> None:
    conn.execute(
        "INSERT INTO case_status (case_number, status, previous, changed_at)"
        " VALUES (%s, %s, NULL, %s) ON CONFLICT (case_number) DO UPDATE"
        " SET previous = case_status.status, status = EXCLUDED.status,"
        " changed_at = EXCLUDED.changed_at WHERE case_status.status <> EXCLUDED.status",
        (case_number, status, at),
    )


def unpushed(conn: Conn) -> list[dict]:
    """The reconciled statuses the tracker has not been told (never pushed, or changed since)."""
    return conn.execute(
        "SELECT case_number, status, previous, pushed_status, changed_at FROM case_status"
        " WHERE pushed_status IS DISTINCT FROM status ORDER BY changed_at, case_number"
    ).fetchall()


def mark_pushed(conn: Conn, pushed: list[dict], at: Any) -> int:
    """Record what the tracker accepted (a status that changed again meanwhile stays unpushed)."""
    done = 0
    for row in pushed:
        done += conn.execute(
            "UPDATE case_status SET pushed_status = %s, pushed_at = %s"
            " WHERE case_number = %s AND status = %s",
            (row["status"], at, row["case_number"], row["status"]),
        ).rowcount
    return done


# -- the standing evaluation --------------------------------------------------------------------


def record_eval(conn: Conn, row: dict[str, Any]) -> dict:
    """One gold set's figures for one day (a second run that day replaces the first)."""
    return one(
        conn.execute(
            "INSERT INTO eval_history (dataset, day, fingerprint, ndcg_at_10, recall_at_100,"
            " n_queries, n_docs, config, recorded_at) VALUES (%(dataset)s, %(day)s, %(fingerprint)s,"
            " %(ndcg_at_10)s, %(recall_at_100)s, %(n_queries)s, %(n_docs)s, %(config)s,"
            " %(recorded_at)s) ON CONFLICT (dataset, day) DO UPDATE SET"
            " fingerprint = EXCLUDED.fingerprint, ndcg_at_10 = EXCLUDED.ndcg_at_10,"
            " recall_at_100 = EXCLUDED.recall_at_100, n_queries = EXCLUDED.n_queries,"
            " n_docs = EXCLUDED.n_docs, config = EXCLUDED.config, recorded_at = EXCLUDED.recorded_at"
            " RETURNING *",
            {**row, "config": Jsonb(row.get("config") or {})},
        )
    )


def failed_jobs(conn: Conn, names: list[str]) -> list[dict]:
    """The jobs among `names` whose last run failed, by name."""
    return conn.execute(
        "SELECT name, last_finished_at, last_error, failures, next_run_at FROM schedules"
        " WHERE last_outcome = 'failed' AND name = ANY(%s) ORDER BY name",
        (names,),
    ).fetchall()


def eval_drops(conn: Conn, tolerance: float, window_days: int) -> list[dict]:
    """Per gold set, its latest day against the best of the `window_days` days before it on the
    same data (fingerprint): the sets whose latest nDCG@10 fell more than `tolerance` below."""
    return conn.execute(
        "WITH latest AS (SELECT DISTINCT ON (dataset) * FROM eval_history"
        " ORDER BY dataset, day DESC)"
        " SELECT l.dataset, l.day, l.ndcg_at_10, r.best AS reference, r.best_day AS reference_day,"
        " r.best - l.ndcg_at_10 AS drop"
        " FROM latest l CROSS JOIN LATERAL ("
        "  SELECT max(h.ndcg_at_10) AS best,"
        "  (array_agg(h.day ORDER BY h.ndcg_at_10 DESC, h.day DESC))[1] AS best_day"
        "  FROM eval_history h WHERE h.dataset = l.dataset AND h.fingerprint = l.fingerprint"
        "  AND h.day < l.day AND h.day >= l.day - %s::integer) r"
        " WHERE r.best - l.ndcg_at_10 > %s ORDER BY l.dataset",
        (window_days, tolerance),
    ).fetchall()


def last_run(conn: Conn, name: str) -> dict | None:
    """When the job `name` last finished, how, its error and what it returned."""
    return conn.execute(
        "SELECT last_finished_at, last_outcome, last_error, last_result FROM schedules"
        " WHERE name = %s",
        (name,),
    ).fetchone()


def last_ok_run(conn: Conn, name: str) -> dict | None:
    """The newest run of job `name` that succeeded: when it finished and what it returned."""
    return conn.execute(
        "SELECT finished_at, result FROM schedule_runs WHERE name = %s AND outcome = 'ok'"
        " ORDER BY id DESC LIMIT 1",
        (name,),
    ).fetchone()


def alarms(conn: Conn, names: list[str], backup_job: str, overdue_after: Any) -> dict:
    """What the desk's banner needs, in one statement (every desk page runs it): the database's
    clock, when it was installed (its first migration), which of the jobs `names` have a row,
    which failed last, which are overdue by more than `overdue_after` (an interval) with no
    process holding their lease, and when `backup_job` last succeeded (its proven backup)."""
    return one(
        conn.execute(
            "SELECT now() AS now,"
            " (SELECT min(applied_at) FROM schema_migrations) AS installed_at,"
            " ARRAY(SELECT name FROM schedules WHERE name = ANY(%(names)s)) AS known,"
            " ARRAY(SELECT name FROM schedules WHERE name = ANY(%(names)s)"
            "       AND last_outcome = 'failed' ORDER BY name) AS failed,"
            " ARRAY(SELECT s.name FROM schedules s WHERE s.name = ANY(%(names)s)"
            "       AND s.next_run_at < now() - %(after)s::interval"
            "       AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_locks l"
            "         WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2"
            "         AND l.database = (SELECT oid FROM pg_catalog.pg_database"
            "                           WHERE datname = pg_catalog.current_database())"
            "         AND l.classid = %(lease)s::oid AND l.objid = pg_catalog.hashtext(s.name)::oid)"
            "       ORDER BY s.name) AS overdue,"
            " (SELECT finished_at FROM schedule_runs WHERE name = %(backup)s AND outcome = 'ok'"
            "  ORDER BY id DESC LIMIT 1) AS proven_at",
            {"names": names, "after": overdue_after, "lease": LEASE_CLASS, "backup": backup_job},
        )
    )
