"""Whether a request id was used already: the rows a request writes carry its
id (migration 0031: the audit, the search log, the model calls), so an id found there belongs to
a request that ran before — whoever sent it."""

from __future__ import annotations

from .rows import Conn, one


def recorded(conn: Conn, request_id: str) -> bool:
    row = one(
        conn.execute(
            "SELECT EXISTS (SELECT 1 FROM learning_audit WHERE request_id = %(r)s)"
            " OR EXISTS (SELECT 1 FROM search_log WHERE request_id = %(r)s)"
            " OR EXISTS (SELECT 1 FROM model_calls WHERE request_id = %(r)s) AS used",
            {"r": request_id},
        )
    )
    return bool(row["used"])
