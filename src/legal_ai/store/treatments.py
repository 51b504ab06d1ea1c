"""SQL of treatments (migration 0037): what the later rulings of the library say of the rulings
they name — attacked (with the outcome read) or cited (with the sentence) — and the chair's
confirmation of a reading (the database's treatments_gate holds it to her role and audits it).
Every function takes the caller's connection."""

from __future__ import annotations

from .rows import Conn

_COLUMNS = (
    "t.id, t.by_case_law_id, t.cited_ref, t.cited_number, t.cited_text, t.case_law_id,"
    " t.relation, t.kind, t.read_by, t.sentence, t.char_start, t.char_end, t.review_status,"
    " t.reviewed_by, t.reviewed_at, t.review_reason, t.written_role, t.created_at, t.updated_at,"
    " b.doc_id AS by_doc_id, b.case_number AS by_case_number, b.decided_on AS by_decided_on,"
    " b.court AS by_court, b.source_kind AS by_corpus,"
    " c.doc_id, c.case_number, c.title, c.source_kind AS corpus"
)
_FROM = (
    " FROM treatments t JOIN case_law b ON b.id = t.by_case_law_id"
    " LEFT JOIN case_law c ON c.id = t.case_law_id"
)


def ruling(conn: Conn, case_law_id: int) -> dict | None:
    """A ruling or decision of the library with what its treatment is read from."""
    return conn.execute(
        "SELECT id, doc_id, case_number, content, doc_type, ruling_proceeding, ruling_number"
        " FROM case_law WHERE id = %s AND doc_type IN ('ruling', 'decision')",
        (case_law_id,),
    ).fetchone()


def ruling_by_doc_id(conn: Conn, doc_id: str) -> dict | None:
    """The library's ruling or decision of `doc_id` (an external ruling before a committee's
    decision of the same doc_id)."""
    return conn.execute(
        "SELECT id, doc_id, case_number, title, court, decided_on, source_kind AS corpus"
        " FROM case_law WHERE doc_id = %s AND doc_type IN ('ruling', 'decision')"
        " ORDER BY source_kind, id LIMIT 1",
        (doc_id,),
    ).fetchone()


def ruling_by_id(conn: Conn, case_law_id: int) -> dict | None:
    return conn.execute(
        "SELECT id, doc_id, case_number, title, court, decided_on, source_kind AS corpus"
        " FROM case_law WHERE id = %s AND doc_type IN ('ruling', 'decision')",
        (case_law_id,),
    ).fetchone()


def ruling_ids(conn: Conn) -> list[int]:
    return [
        r["id"]
        for r in conn.execute(
            "SELECT id FROM case_law WHERE doc_type IN ('ruling', 'decision') ORDER BY id"
        )
    ]


def save(conn: Conn, by_case_law_id: int, rows: list[dict]) -> int:
    """The readings of one later ruling, in place of what it was read to say before: each row
    upserted by (by_case_law_id, cited_ref) — the database sends a changed reading back to
    unconfirmed and leaves an unchanged one as she decided it — and the refs it no longer names
    deleted. Returns the rows inserted, changed or deleted."""
    changed = conn.execute(
        "DELETE FROM treatments WHERE by_case_law_id = %s AND NOT (cited_ref = ANY(%s))",
        (by_case_law_id, [r["cited_ref"] for r in rows]),
    ).rowcount
    for row in rows:
        changed += conn.execute(
            "INSERT INTO treatments (by_case_law_id, cited_ref, cited_number, cited_text,"
            " case_law_id, relation, kind, read_by, sentence, char_start, char_end)"
            " VALUES (%(by)s, %(cited_ref)s, %(cited_number)s, %(cited_text)s, %(case_law_id)s,"
            " %(relation)s, %(kind)s, %(read_by)s, %(sentence)s, %(char_start)s, %(char_end)s)"
            " ON CONFLICT (by_case_law_id, cited_ref) DO UPDATE SET"
            " cited_number = EXCLUDED.cited_number, cited_text = EXCLUDED.cited_text,"
            " case_law_id = EXCLUDED.case_law_id, relation = EXCLUDED.relation,"
            " kind = EXCLUDED.kind, read_by = EXCLUDED.read_by, sentence = EXCLUDED.sentence,"
            " char_start = EXCLUDED.char_start, char_end = EXCLUDED.char_end"
            " WHERE (treatments.cited_number, treatments.cited_text, treatments.case_law_id,"
            "        treatments.relation, treatments.kind, treatments.read_by, treatments.sentence,"
            "        treatments.char_start, treatments.char_end)"
            "   IS DISTINCT FROM (EXCLUDED.cited_number, EXCLUDED.cited_text,"
            "        EXCLUDED.case_law_id, EXCLUDED.relation, EXCLUDED.kind, EXCLUDED.read_by,"
            "        EXCLUDED.sentence, EXCLUDED.char_start, EXCLUDED.char_end)",
            {**row, "by": by_case_law_id},
        ).rowcount
    return changed


def naming_number(conn: Conn, number: str) -> list[dict]:
    """The rows whose cited ruling has this number/year (a ruling of it arriving may link them)."""
    return conn.execute(
        "SELECT id, by_case_law_id, cited_ref, cited_text, case_law_id FROM treatments"
        " WHERE cited_number = %s ORDER BY id",
        (number,),
    ).fetchall()


def set_link(conn: Conn, treatment_id: int, case_law_id: int | None) -> bool:
    return bool(
        conn.execute(
            "UPDATE treatments SET case_law_id = %s WHERE id = %s"
            " AND case_law_id IS DISTINCT FROM %s",
            (case_law_id, treatment_id, case_law_id),
        ).rowcount
    )


def of_ruling(conn: Conn, case_law_id: int, relation: str | None = None) -> list:
    """What the later rulings say of one ruling, the latest decided first."""
    return conn.execute(
        "SELECT " + _COLUMNS + _FROM + " WHERE t.case_law_id = %(id)s"
        " AND (%(relation)s::text IS NULL OR t.relation = %(relation)s)"
        " ORDER BY b.decided_on DESC NULLS LAST, t.id DESC",
        {"id": case_law_id, "relation": relation},
    ).fetchall()


def get(conn: Conn, treatment_id: int, *, lock: bool = False) -> dict | None:
    return conn.execute(
        "SELECT "
        + _COLUMNS
        + ", t.review_status AS status"
        + _FROM
        + " WHERE t.id = %s"
        + (" FOR UPDATE OF t" if lock else ""),
        (treatment_id,),
    ).fetchone()


def list_attacked(
    conn: Conn, status: str | None, *, limit: int | None, offset: int = 0
) -> list[dict]:
    """The readings she decides (a petition or appeal against a ruling of the library), by id."""
    return conn.execute(
        "SELECT "
        + _COLUMNS
        + ", t.review_status AS status"
        + _FROM
        + " WHERE t.relation = 'attacked' AND t.case_law_id IS NOT NULL"
        " AND (%(s)s::text IS NULL OR t.review_status = %(s)s)"
        " ORDER BY t.id LIMIT %(limit)s OFFSET %(offset)s",
        {"s": status, "limit": limit, "offset": offset},
    ).fetchall()


def decide(conn: Conn, treatment_id: int, status: str, reason: str | None) -> None:
    """Her decision on a reading (the database allows it under her role only, and audits it)."""
    conn.execute(
        "UPDATE treatments SET review_status = %s, review_reason = %s WHERE id = %s",
        (status, reason, treatment_id),
    )
