"""SQL of the citation graph (migration 0007): the decisions' citations under their shared
authorities, the authorities' links to the library, corroboration and the missing precedents.
Every function takes the caller's connection, so a service composes them into one transaction."""

from __future__ import annotations

from typing import Any

from .rows import Conn, one


def lock_citations(conn: Conn) -> None:
    """Serialise the citation graph's writes (authorities, missing precedents, corroboration)
    across finals of different cases, until the transaction ends."""
    conn.execute("SELECT pg_advisory_xact_lock(hashtext('learning:citations'))")


def replace_citations(conn: Conn, case_law_id: int, citations: list[Any]) -> None:
    """The citing decision's citations, each under its (shared) authority."""
    conn.execute("DELETE FROM decision_citations WHERE citing_case_law_id = %s", (case_law_id,))
    for c in citations:
        authority = one(
            conn.execute(
                "INSERT INTO authorities (ref, kind) VALUES (%s, %s)"
                " ON CONFLICT (ref) DO UPDATE SET updated_at = now() RETURNING id",
                (c.ref, c.kind),
            )
        )["id"]
        conn.execute(
            "INSERT INTO decision_citations (citing_case_law_id, authority_id, text, char_start,"
            " char_end) VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
            (case_law_id, authority, c.text, c.start, c.end),
        )


def relinkable_authorities(conn: Conn, number: str | None = None) -> list[dict]:
    """Authorities whose link the citation graph decides again: unlinked (ambiguous ones
    included), or linked by anything but their whole identity or the chair's pick (a second
    district's decision arriving makes a citation without a district ambiguous). Each with the
    text of its first citation and the decisions citing it (`citing`: never its target); `number` (a ruling's number/year) keeps those whose ref ends in
    it."""
    return conn.execute(
        "SELECT a.id, a.ref, a.kind, a.case_law_id, a.link_basis, a.candidates,"
        " (SELECT dc.text FROM decision_citations dc"
        "   WHERE dc.authority_id = a.id ORDER BY dc.id LIMIT 1) AS text,"
        " ARRAY(SELECT DISTINCT dc.citing_case_law_id FROM decision_citations dc"
        "   WHERE dc.authority_id = a.id) AS citing"
        " FROM authorities a"
        " WHERE (a.case_law_id IS NULL OR a.link_basis IN ('without_district', 'alias'))"
        " AND (%(number)s::text IS NULL OR (a.kind = 'ruling'"
        "      AND right(a.ref, length(%(number)s) + 1) = ' ' || %(number)s))"
        " ORDER BY a.id",
        {"number": number},
    ).fetchall()


def rulings_numbered(conn: Conn, number: str) -> list[dict]:
    """The library's rulings and decisions of one number/year, each with its identity columns,
    in the order to prefer (an external ruling first, then by id)."""
    return conn.execute(
        "SELECT id, ruling_proceeding, ruling_district, ruling_number FROM case_law"
        " WHERE ruling_number = %s AND doc_type IN ('ruling', 'decision')"
        " ORDER BY source_kind, id",
        (number,),
    ).fetchall()


def rulings_aliased(conn: Conn, alias: str) -> list[int]:
    """Ids of the library's rulings cited by `alias` (a reporter citation's ref)."""
    return [
        r["id"]
        for r in conn.execute(
            "SELECT id FROM case_law WHERE aliases @> ARRAY[%s]::text[]"
            " AND doc_type IN ('ruling', 'decision') ORDER BY source_kind, id",
            (alias,),
        )
    ]


def find_section(conn: Conn, eid_pattern: str, law_pattern: str) -> int | None:
    row = conn.execute(
        "SELECT id FROM case_law WHERE doc_type = 'legislation' AND eid ~ %s"
        " AND coalesce(law_title, '') ~ %s ORDER BY id LIMIT 1",
        (eid_pattern, law_pattern),
    ).fetchone()
    return row["id"] if row else None


def set_link(
    conn: Conn,
    authority_id: int,
    case_law_id: int | None,
    basis: str | None,
    candidates: list[int],
) -> bool:
    """Link an authority (or unlink it, keeping the candidates of an ambiguous one); a link the
    chair picked is left as she set it. True when anything changed."""
    return bool(
        conn.execute(
            "UPDATE authorities SET case_law_id = %(t)s, link_basis = %(b)s,"
            " candidates = %(c)s, updated_at = now()"
            " WHERE id = %(id)s AND link_basis IS DISTINCT FROM 'chair'"
            " AND (case_law_id IS DISTINCT FROM %(t)s OR link_basis IS DISTINCT FROM %(b)s"
            "      OR candidates <> %(c)s::bigint[])",
            {"id": authority_id, "t": case_law_id, "b": basis, "c": candidates},
        ).rowcount
    )


def pick_link(conn: Conn, authority_id: int, case_law_id: int) -> dict | None:
    """The chair's pick of the ruling an ambiguous citation names (the database checks it is
    hers, and audits it)."""
    return conn.execute(
        "UPDATE authorities SET case_law_id = %s, link_basis = 'chair', updated_at = now()"
        " WHERE id = %s RETURNING id, ref, case_law_id, link_basis, candidates",
        (case_law_id, authority_id),
    ).fetchone()


def authority(conn: Conn, authority_id: int) -> dict | None:
    return conn.execute(
        "SELECT id, ref, kind, case_law_id, link_basis, candidates FROM authorities WHERE id = %s",
        (authority_id,),
    ).fetchone()


def ambiguous_authorities(conn: Conn) -> list[dict]:
    """Citations that fit several rulings of the library (unlinked, candidates kept), each with
    its first citation as written, who cites it, and its candidates' identity and title."""
    return conn.execute(
        "SELECT a.id AS authority_id, a.ref, a.corroboration,"
        " (SELECT dc.text FROM decision_citations dc WHERE dc.authority_id = a.id"
        "  ORDER BY dc.id LIMIT 1) AS text,"
        " (SELECT cl.case_number FROM decision_citations dc JOIN case_law cl"
        "  ON cl.id = dc.citing_case_law_id WHERE dc.authority_id = a.id"
        "  ORDER BY dc.id LIMIT 1) AS first_cited_in,"
        " (SELECT coalesce(jsonb_agg(jsonb_build_object('case_law_id', c.id, 'doc_id', c.doc_id,"
        "   'case_number', c.case_number, 'title', c.title, 'court', c.court,"
        "   'decided_on', c.decided_on, 'corpus', c.source_kind) ORDER BY c.id), '[]')"
        "  FROM case_law c WHERE c.id = ANY(a.candidates)) AS candidates"
        " FROM authorities a WHERE a.case_law_id IS NULL AND cardinality(a.candidates) > 0"
        " ORDER BY a.corroboration DESC, a.ref"
    ).fetchall()


def refresh_missing_and_corroboration(conn: Conn) -> None:
    """Corroboration = distinct decisions citing each authority; a cited ruling not in the
    library is an open missing precedent, resolved once it is linked."""
    conn.execute(
        "UPDATE authorities a SET corroboration = c.n FROM (SELECT a2.id,"
        "   count(DISTINCT dc.citing_case_law_id) AS n FROM authorities a2"
        "   LEFT JOIN decision_citations dc ON dc.authority_id = a2.id GROUP BY a2.id) c"
        " WHERE a.id = c.id AND a.corroboration <> c.n"
    )
    # An ambiguous citation (its library candidates kept) is not missing: the chair picks.
    conn.execute(
        "UPDATE missing_precedents m SET status = CASE WHEN cardinality(a.candidates) > 0"
        "   THEN 'ambiguous' ELSE 'open' END"
        " FROM authorities a WHERE a.id = m.authority_id AND a.case_law_id IS NULL"
        " AND (m.status IN ('open', 'ambiguous') OR cardinality(a.candidates) > 0)"
        " AND m.status <> CASE WHEN cardinality(a.candidates) > 0 THEN 'ambiguous' ELSE 'open' END"
    )
    conn.execute(
        "INSERT INTO missing_precedents (authority_id, first_cited_in, status)"
        " SELECT a.id, (SELECT cl.case_number FROM decision_citations dc"
        "               JOIN case_law cl ON cl.id = dc.citing_case_law_id"
        "               WHERE dc.authority_id = a.id ORDER BY dc.id LIMIT 1)"
        " , CASE WHEN cardinality(a.candidates) > 0 THEN 'ambiguous' ELSE 'open' END"
        " FROM authorities a WHERE a.kind IN ('ruling', 'reporter') AND a.case_law_id IS NULL"
        " AND a.corroboration > 0 ON CONFLICT (authority_id) DO NOTHING"
    )
    conn.execute(
        "UPDATE missing_precedents m SET status = 'resolved', resolved_at = now()"
        " FROM authorities a WHERE a.id = m.authority_id AND m.status <> 'resolved'"
        " AND a.case_law_id IS NOT NULL"
    )


def citations_of(conn: Conn, case_law_id: int) -> list[dict]:
    return conn.execute(
        "SELECT dc.text, a.ref, a.kind, a.case_law_id AS linked_case_law_id, a.corroboration,"
        " a.link_basis, a.candidates, a.id AS authority_id,"
        " m.status AS missing_status FROM decision_citations dc"
        " JOIN authorities a ON a.id = dc.authority_id"
        " LEFT JOIN missing_precedents m ON m.authority_id = a.id"
        " WHERE dc.citing_case_law_id = %s ORDER BY dc.char_start",
        (case_law_id,),
    ).fetchall()


def missing_precedent(conn: Conn, authority_id: int) -> dict | None:
    """One missing precedent with the text of its first citation (what the ruling is named)."""
    return conn.execute(
        "SELECT a.id AS authority_id, a.ref, a.kind, a.case_law_id, m.status, m.first_cited_in,"
        " (SELECT dc.text FROM decision_citations dc WHERE dc.authority_id = a.id"
        "  ORDER BY dc.id LIMIT 1) AS text"
        " FROM missing_precedents m JOIN authorities a ON a.id = m.authority_id"
        " WHERE m.authority_id = %s",
        (authority_id,),
    ).fetchone()


def missing_precedents(conn: Conn, status: str | None = "open") -> list[dict]:
    return conn.execute(
        "SELECT a.ref, a.kind, m.status, m.first_cited_in, a.corroboration, m.created_at,"
        " a.id AS authority_id"
        " FROM missing_precedents m JOIN authorities a ON a.id = m.authority_id"
        " WHERE (%(s)s::text IS NULL OR m.status = %(s)s) ORDER BY a.corroboration DESC, a.ref",
        {"s": status},
    ).fetchall()
