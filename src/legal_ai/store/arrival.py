"""SQL of the upkeep on arrival (migration 0023): the ruling authorities and missing precedents
an arriving ruling resolves, and the digests linked to the ruling they point at (their
`points_to_key`), read and written in the caller's transaction (learning/arrival/upkeep.py)."""

from __future__ import annotations

from .rows import Conn, one

# -- authorities and missing precedents ---------------------------------------------------------


def reopen_precedents(conn: Conn) -> int:
    """Reopen the resolved missing precedents whose authority is no longer linked; returns how
    many were."""
    return conn.execute(
        "UPDATE missing_precedents m SET status = 'open', resolved_at = NULL"
        " FROM authorities a WHERE a.id = m.authority_id AND m.status = 'resolved'"
        " AND a.case_law_id IS NULL"
    ).rowcount


def open_precedent_ids(conn: Conn) -> set[int]:
    """The authority ids of the open missing precedents."""
    return {
        r["authority_id"]
        for r in conn.execute("SELECT authority_id FROM missing_precedents WHERE status = 'open'")
    }


# -- digests ------------------------------------------------------------------------------------


def set_digest_link(conn: Conn, digest_id: int, key: str | None, case_law_id: int | None) -> None:
    """Set a digest's pointer key and the ruling it is linked to (None: unlinked); a row that
    already says so is not written again (every ruling's arrival reads the digests of its number)."""
    conn.execute(
        "UPDATE digests SET points_to_key = %(k)s, case_law_id = %(c)s WHERE id = %(id)s"
        " AND (points_to_key, case_law_id) IS DISTINCT FROM (%(k)s::text, %(c)s::bigint)",
        {"k": key, "c": case_law_id, "id": digest_id},
    )


def digests_numbered(conn: Conn, number: str) -> list[dict]:
    """The digests whose pointer names a ruling of this number/year: {id, points_to,
    case_law_id}, by id (their key ends in it; a pointer never keyed is read again too)."""
    return conn.execute(
        "SELECT id, points_to, case_law_id FROM digests"
        " WHERE points_to_key IS NULL OR points_to_key = %(n)s"
        " OR right(points_to_key, length(%(n)s) + 1) = ' ' || %(n)s ORDER BY id",
        {"n": number},
    ).fetchall()


def digest_pointer(conn: Conn, digest_id: int) -> dict:
    """One digest's {points_to_key, case_law_id}."""
    return one(
        conn.execute("SELECT points_to_key, case_law_id FROM digests WHERE id = %s", (digest_id,))
    )


def digest_pointers(conn: Conn) -> list[dict]:
    """Every digest's {id, points_to, points_to_key, case_law_id}, by id."""
    return conn.execute(
        "SELECT id, points_to, points_to_key, case_law_id FROM digests ORDER BY id"
    ).fetchall()


def count_unresolved_digests(conn: Conn) -> int:
    """How many digests are not linked to a ruling."""
    row = one(conn.execute("SELECT count(*) AS n FROM digests WHERE case_law_id IS NULL"))
    return row["n"]


def unresolved_digests(conn: Conn, limit: int) -> list[dict]:
    """The first `limit` digests not linked to a ruling: {doc_id, title, points_to,
    points_to_key}, by id."""
    return conn.execute(
        "SELECT doc_id, title, points_to, points_to_key FROM digests WHERE case_law_id IS NULL"
        " ORDER BY id LIMIT %s",
        (limit,),
    ).fetchall()
