"""SQL of the search telemetry (migration 0022; legal_ai/telemetry.py): search_log rows, the
chair's marks on their hits, the marked searches an export reads, figures and pruning."""

from __future__ import annotations

import datetime as dt
from typing import Any

from psycopg import sql
from psycopg.types.json import Jsonb

from .rows import Conn, one


def insert(conn: Conn, row: dict[str, Any]) -> int:
    """One search; returns its id (one INSERT). The search does not wait for the row to reach
    the disk (a crash may lose the last rows logged, never a committed decision): 8 ms of WAL
    flush became ~0.5 ms. Called in a transaction of its own (the setting is LOCAL to it)."""
    conn.execute("SET LOCAL synchronous_commit = off")
    return one(
        conn.execute(
            "INSERT INTO search_log (surface, actor, actor_kind, corpus, tool, query, by_example,"
            " filters, mode, k, hits, n_hits, latency_ms)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
            (
                row["surface"],
                row["actor"],
                row["actor_kind"],
                row["corpus"],
                row["tool"],
                row["query"],
                row["by_example"],
                Jsonb(row["filters"]),
                row["mode"],
                row["k"],
                Jsonb(row["hits"]),
                len(row["hits"]),
                row["latency_ms"],
            ),
        )
    )["id"]


def get(conn: Conn, search_id: int) -> dict | None:
    return conn.execute("SELECT * FROM search_log WHERE id = %s", (search_id,)).fetchone()


def add_mark(conn: Conn, search_id: int, rank: int, kind: str, hit: dict, actor: str) -> bool:
    """Record a mark once (a second click on the same hit changes nothing); True when new."""
    cur = conn.execute(
        "INSERT INTO search_marks (search_id, rank, kind, doc_id, unit_kind, unit_id, actor)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (search_id, rank, kind) DO NOTHING",
        (search_id, rank, kind, hit["doc_id"], hit.get("unit_kind"), hit.get("unit_id"), actor),
    )
    return cur.rowcount == 1


def remove_mark(conn: Conn, search_id: int, rank: int, kind: str) -> bool:
    cur = conn.execute(
        "DELETE FROM search_marks WHERE search_id = %s AND rank = %s AND kind = %s",
        (search_id, rank, kind),
    )
    return cur.rowcount > 0


def marks_of(conn: Conn, search_id: int) -> list[dict]:
    return conn.execute(
        "SELECT rank, kind, doc_id, unit_kind, unit_id, actor, at FROM search_marks"
        " WHERE search_id = %s ORDER BY rank, kind",
        (search_id,),
    ).fetchall()


def marked(conn: Conn, kinds: list[str], since: dt.datetime | None) -> list[dict]:
    """Searches typed by a person (not a case's own text) with at least one mark of `kinds`,
    oldest first, each with its marks of those kinds."""
    return conn.execute(
        "SELECT l.id, l.at, l.corpus, l.query, l.filters, l.mode, l.surface,"
        " jsonb_agg(jsonb_build_object('rank', m.rank, 'kind', m.kind, 'doc_id', m.doc_id)"
        "           ORDER BY m.rank, m.kind) AS marks"
        " FROM search_log l JOIN search_marks m ON m.search_id = l.id"
        " WHERE NOT l.by_example AND m.kind = ANY(%s)"
        " AND (%s::timestamptz IS NULL OR l.at >= %s::timestamptz)"
        " GROUP BY l.id ORDER BY l.id",
        (kinds, since, since),
    ).fetchall()


def stats(conn: Conn, since: dt.datetime | None) -> dict:
    args = {"since": since}
    total = conn.execute(
        "SELECT count(*) AS searches, count(*) FILTER (WHERE n_hits = 0) AS zero_hit,"
        " percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms) AS p50,"
        " percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms) AS p95,"
        " min(at) AS first, max(at) AS last FROM search_log"
        " WHERE (%(since)s::timestamptz IS NULL OR at >= %(since)s::timestamptz)",
        args,
    ).fetchone()
    groups = {}
    for column in ("surface", "corpus"):
        name = sql.Identifier(column)
        groups[column] = conn.execute(
            sql.SQL(
                "SELECT {name} AS key, count(*) AS searches,"
                " count(*) FILTER (WHERE n_hits = 0) AS zero_hit,"
                " percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms) AS p50"
                " FROM search_log"
                " WHERE (%(since)s::timestamptz IS NULL OR at >= %(since)s::timestamptz)"
                " GROUP BY {name} ORDER BY count(*) DESC, {name}"
            ).format(name=name),
            args,
        ).fetchall()
    marks = conn.execute(
        "SELECT count(*) FILTER (WHERE m.kind = 'click') AS clicks,"
        " count(*) FILTER (WHERE m.kind = 'useful') AS useful,"
        " count(DISTINCT m.search_id) FILTER (WHERE m.kind = 'useful') AS marked_searches"
        " FROM search_marks m JOIN search_log l ON l.id = m.search_id"
        " WHERE (%(since)s::timestamptz IS NULL OR l.at >= %(since)s::timestamptz)",
        args,
    ).fetchone()
    return {"total": total, "groups": groups, "marks": marks}


def prune(conn: Conn, before: dt.datetime) -> int:
    """Delete the searches logged before `before` (their marks go with them)."""
    return conn.execute("DELETE FROM search_log WHERE at < %s", (before,)).rowcount
