"""SQL of work a caller asks for instead of running it: extraction jobs queued
over HTTP, each marked with who asked (`jobs.result.requested_by` while it is open), so that an
agent's open requests can be counted and bounded. Every function takes the caller's connection.
"""

from __future__ import annotations

from psycopg.types.json import Jsonb

from ..errors import StoreError
from .rows import Conn, one


def extraction_targets(conn: Conn, source_kind: str, doc_id: str | None = None) -> list[dict]:
    """The rulings and decisions of one case-law corpus (or the one named `doc_id`) that have a
    text: their id, doc_id and text hash only (queueing reads no text)."""
    return conn.execute(
        "SELECT id, doc_id, content_hash FROM case_law WHERE source_kind = %(kind)s"
        " AND doc_type IN ('ruling', 'decision') AND content <> ''"
        " AND (%(doc_id)s::text IS NULL OR doc_id = %(doc_id)s) ORDER BY id",
        {"kind": source_kind, "doc_id": doc_id},
    ).fetchall()


def serialize(conn: Conn, requester: str) -> None:
    """One requester's requests, one at a time until this transaction ends (its count of open
    requests then holds when it queues)."""
    conn.execute(
        "SELECT pg_advisory_xact_lock(hashtext('work-requests'), hashtext(%s))", (requester,)
    )


def open_requests(conn: Conn, kind: str, requester: str) -> int:
    """How many jobs of `kind` that `requester` queued are not finished."""
    return one(
        conn.execute(
            "SELECT count(*) AS n FROM jobs WHERE kind = %s AND status IN ('queued', 'running',"
            " 'waiting') AND result ->> 'requested_by' = %s",
            (kind, requester),
        )
    )["n"]


def job_of(conn: Conn, key: str) -> dict | None:
    return conn.execute(
        "SELECT id, key, status, created_at, finished_at FROM jobs WHERE key = %s", (key,)
    ).fetchone()


def request(conn: Conn, kind: str, key: str, requester: str) -> tuple[dict, bool]:
    """The job of `key`: queued now for `requester` (True), or the one that exists (False), in
    whatever state it is. Two requests at once get the same job."""
    row = conn.execute(
        "INSERT INTO jobs (kind, case_number, key, result) VALUES (%s, NULL, %s, %s)"
        " ON CONFLICT (key) DO NOTHING RETURNING id, key, status, created_at, finished_at",
        (kind, key, Jsonb({"requested_by": requester})),
    ).fetchone()
    if row is not None:
        return row, True
    existing = job_of(conn, key)  # the insert met it (ON CONFLICT): it exists
    if existing is None:
        raise StoreError(f"the job {key!r} was removed while it was requested")
    return existing, False
