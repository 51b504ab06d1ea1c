"""SQL of the upkeep on arrival (migration 0023): the ruling authorities and missing precedents
an arriving ruling resolves, and the digests linked to the ruling they point at (their
`points_to_key`), read and written in the caller's transaction (learning/arrival.py)."""

from __future__ import annotations

import psycopg

# -- authorities and missing precedents ---------------------------------------------------------


def unlinked_ruling_authorities(conn: psycopg.Connection, pattern: str) -> list[int]:
    """Ids of the ruling authorities not linked to the library whose ref matches `pattern`."""
    return [
        r["id"]
        for r in conn.execute(
            "SELECT a.id FROM authorities a WHERE a.kind = 'ruling' AND a.case_law_id IS NULL"
            " AND a.ref ~ %s ORDER BY a.id",
            (pattern,),
        )
    ]


def cited_by(conn: psycopg.Connection, case_law_id: int, authority_ids: list[int]) -> set[int]:
    """Which of `authority_ids` the decision `case_law_id` itself cites."""
    return {
        r["authority_id"]
        for r in conn.execute(
            "SELECT authority_id FROM decision_citations WHERE citing_case_law_id = %s"
            " AND authority_id = ANY(%s)",
            (case_law_id, authority_ids),
        )
    }


def resolve_precedents(conn: psycopg.Connection, authority_ids: list[int]) -> int:
    """Mark the open missing precedents of `authority_ids` resolved; returns how many were."""
    return conn.execute(
        "UPDATE missing_precedents SET status = 'resolved', resolved_at = now()"
        " WHERE authority_id = ANY(%s) AND status = 'open'",
        (authority_ids,),
    ).rowcount


def reopen_precedents(conn: psycopg.Connection) -> int:
    """Reopen the resolved missing precedents whose authority is no longer linked; returns how
    many were."""
    return conn.execute(
        "UPDATE missing_precedents m SET status = 'open', resolved_at = NULL"
        " FROM authorities a WHERE a.id = m.authority_id AND m.status = 'resolved'"
        " AND a.case_law_id IS NULL"
    ).rowcount


def open_precedent_ids(conn: psycopg.Connection) -> set[int]:
    """The authority ids of the open missing precedents."""
    return {
        r["authority_id"]
        for r in conn.execute("SELECT authority_id FROM missing_precedents WHERE status = 'open'")
    }


# -- digests ------------------------------------------------------------------------------------


def digests_waiting(conn: psycopg.Connection, key: str) -> bool:
    """Whether an unlinked digest points at the ruling keyed `key`."""
    return conn.execute(
        "SELECT EXISTS (SELECT 1 FROM digests WHERE case_law_id IS NULL AND points_to_key = %s)",
        (key,),
    ).fetchone()["exists"]


def link_digests(conn: psycopg.Connection, case_law_id: int, key: str) -> int:
    """Link the unlinked digests pointing at `key` to `case_law_id`; returns how many were."""
    return conn.execute(
        "UPDATE digests SET case_law_id = %s WHERE case_law_id IS NULL AND points_to_key = %s",
        (case_law_id, key),
    ).rowcount


def set_digest_link(
    conn: psycopg.Connection, digest_id: int, key: str | None, case_law_id: int | None
) -> None:
    """Set a digest's pointer key and the ruling it is linked to (None: unlinked)."""
    conn.execute(
        "UPDATE digests SET points_to_key = %s, case_law_id = %s WHERE id = %s",
        (key, case_law_id, digest_id),
    )


def digest_pointers(conn: psycopg.Connection) -> list[dict]:
    """Every digest's {id, points_to, points_to_key, case_law_id}, by id."""
    return conn.execute(
        "SELECT id, points_to, points_to_key, case_law_id FROM digests ORDER BY id"
    ).fetchall()


def count_unresolved_digests(conn: psycopg.Connection) -> int:
    """How many digests are not linked to a ruling."""
    row = conn.execute("SELECT count(*) AS n FROM digests WHERE case_law_id IS NULL").fetchone()
    return row["n"]


def unresolved_digests(conn: psycopg.Connection, limit: int) -> list[dict]:
    """The first `limit` digests not linked to a ruling: {doc_id, title, points_to,
    points_to_key}, by id."""
    return conn.execute(
        "SELECT doc_id, title, points_to, points_to_key FROM digests WHERE case_law_id IS NULL"
        " ORDER BY id LIMIT %s",
        (limit,),
    ).fetchall()
