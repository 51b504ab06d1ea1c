"""SQL of the citation graph (migration 0007): the decisions' citations under their shared
authorities, the authorities' links to the library, corroboration and the missing precedents.
Every function takes the caller's connection, so a service composes them into one transaction."""

from __future__ import annotations

from typing import Any

import psycopg


def lock_citations(conn: psycopg.Connection) -> None:
    """Serialise the citation graph's writes (authorities, missing precedents, corroboration)
    across finals of different cases, until the transaction ends."""
    conn.execute("SELECT pg_advisory_xact_lock(hashtext('learning:citations'))")


def replace_citations(conn: psycopg.Connection, case_law_id: int, citations: list[Any]) -> None:
    """The citing decision's citations, each under its (shared) authority."""
    conn.execute("DELETE FROM decision_citations WHERE citing_case_law_id = %s", (case_law_id,))
    for c in citations:
        authority = conn.execute(
            "INSERT INTO authorities (ref, kind) VALUES (%s, %s)"
            " ON CONFLICT (ref) DO UPDATE SET updated_at = now() RETURNING id",
            (c.ref, c.kind),
        ).fetchone()["id"]
        conn.execute(
            "INSERT INTO decision_citations (citing_case_law_id, authority_id, text, char_start,"
            " char_end) VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
            (case_law_id, authority, c.text, c.start, c.end),
        )


def unlinked_authorities(conn: psycopg.Connection) -> list[dict]:
    """Authorities not linked to the library, each with the text of its first citation."""
    return conn.execute(
        "SELECT a.id, a.ref, a.kind, (SELECT dc.text FROM decision_citations dc"
        "   WHERE dc.authority_id = a.id ORDER BY dc.id LIMIT 1) AS text"
        " FROM authorities a WHERE a.case_law_id IS NULL ORDER BY a.id"
    ).fetchall()


def find_ruling_by_number(conn: psycopg.Connection, pattern: str) -> int | None:
    row = conn.execute(
        "SELECT id FROM case_law WHERE doc_type IN ('ruling', 'decision')"
        " AND regexp_replace(case_number, '\"', '', 'g') ~ %s ORDER BY source_kind, id LIMIT 1",
        (pattern,),
    ).fetchone()
    return row["id"] if row else None


def find_section(conn: psycopg.Connection, eid_pattern: str, law_pattern: str) -> int | None:
    row = conn.execute(
        "SELECT id FROM case_law WHERE doc_type = 'legislation' AND eid ~ %s"
        " AND coalesce(law_title, '') ~ %s ORDER BY id LIMIT 1",
        (eid_pattern, law_pattern),
    ).fetchone()
    return row["id"] if row else None


def link_authority(conn: psycopg.Connection, authority_id: int, case_law_id: int) -> None:
    conn.execute(
        "UPDATE authorities SET case_law_id = %s, updated_at = now() WHERE id = %s",
        (case_law_id, authority_id),
    )


def refresh_missing_and_corroboration(conn: psycopg.Connection) -> None:
    """Corroboration = distinct decisions citing each authority; a cited ruling not in the
    library is an open missing precedent, resolved once it is linked."""
    conn.execute(
        "UPDATE authorities a SET corroboration = c.n FROM (SELECT a2.id,"
        "   count(DISTINCT dc.citing_case_law_id) AS n FROM authorities a2"
        "   LEFT JOIN decision_citations dc ON dc.authority_id = a2.id GROUP BY a2.id) c"
        " WHERE a.id = c.id AND a.corroboration <> c.n"
    )
    conn.execute(
        "INSERT INTO missing_precedents (authority_id, first_cited_in)"
        " SELECT a.id, (SELECT cl.case_number FROM decision_citations dc"
        "               JOIN case_law cl ON cl.id = dc.citing_case_law_id"
        "               WHERE dc.authority_id = a.id ORDER BY dc.id LIMIT 1)"
        " FROM authorities a WHERE a.kind = 'ruling' AND a.case_law_id IS NULL"
        " AND a.corroboration > 0 ON CONFLICT (authority_id) DO NOTHING"
    )
    conn.execute(
        "UPDATE missing_precedents m SET status = 'resolved', resolved_at = now()"
        " FROM authorities a WHERE a.id = m.authority_id AND m.status = 'open'"
        " AND a.case_law_id IS NOT NULL"
    )


def citations_of(conn: psycopg.Connection, case_law_id: int) -> list[dict]:
    return conn.execute(
        "SELECT dc.text, a.ref, a.kind, a.case_law_id AS linked_case_law_id, a.corroboration,"
        " m.status AS missing_status FROM decision_citations dc"
        " JOIN authorities a ON a.id = dc.authority_id"
        " LEFT JOIN missing_precedents m ON m.authority_id = a.id"
        " WHERE dc.citing_case_law_id = %s ORDER BY dc.char_start",
        (case_law_id,),
    ).fetchall()


def missing_precedent(conn: psycopg.Connection, authority_id: int) -> dict | None:
    """One missing precedent with the text of its first citation (what the ruling is named)."""
    return conn.execute(
        "SELECT a.id AS authority_id, a.ref, a.case_law_id, m.status, m.first_cited_in,"
        " (SELECT dc.text FROM decision_citations dc WHERE dc.authority_id = a.id"
        "  ORDER BY dc.id LIMIT 1) AS text"
        " FROM missing_precedents m JOIN authorities a ON a.id = m.authority_id"
        " WHERE m.authority_id = %s",
        (authority_id,),
    ).fetchone()


def missing_precedents(conn: psycopg.Connection, status: str | None = "open") -> list[dict]:
    return conn.execute(
        "SELECT a.ref, m.status, m.first_cited_in, a.corroboration, m.created_at,"
        " a.id AS authority_id"
        " FROM missing_precedents m JOIN authorities a ON a.id = m.authority_id"
        " WHERE (%(s)s::text IS NULL OR m.status = %(s)s) ORDER BY a.corroboration DESC, a.ref",
        {"s": status},
    ).fetchall()
