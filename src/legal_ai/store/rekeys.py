"""SQL of the library's re-keying (migration 0029): the pending run the migration leaves, the
citations moved to the authority their text now names, and the report kept until seen."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from .rows import Conn, one


def pending(conn: Conn) -> dict | None:
    """The re-key the migration left pending, locked for this transaction (None: none). Read
    first without a lock: a login that may only read (an agent's) finds none and writes nothing."""
    if not conn.execute("SELECT 1 FROM library_rekeys WHERE status = 'pending'").fetchone():
        return None
    return conn.execute(
        "SELECT id FROM library_rekeys WHERE status = 'pending' ORDER BY id LIMIT 1"
        " FOR UPDATE SKIP LOCKED"
    ).fetchone()


def waiting(url: str) -> bool:
    """Whether the database at `url` holds a re-key not yet run, read without writing or
    locking anything (False before migration 0029 made the table)."""
    with psycopg.connect(url, autocommit=True) as conn:
        if one(conn.execute("SELECT to_regclass('library_rekeys') IS NULL"))[0]:
            return False
        return bool(
            conn.execute("SELECT 1 FROM library_rekeys WHERE status = 'pending'").fetchone()
        )


def finish(conn: Conn, rekey_id: int, report: dict[str, Any]) -> None:
    conn.execute(
        "UPDATE library_rekeys SET status = 'done', done_at = now(), report = %s,"
        " seen_at = CASE WHEN %s THEN now() END WHERE id = %s",
        (Jsonb(report), not report.get("changed"), rekey_id),
    )


def unseen(conn: Conn) -> list[dict]:
    """Re-keys that changed something and nobody has marked seen: {id, done_at, report}."""
    return conn.execute(
        "SELECT id, done_at, report FROM library_rekeys WHERE status = 'done'"
        " AND seen_at IS NULL ORDER BY id"
    ).fetchall()


def mark_seen(conn: Conn, actor: str) -> int:
    return conn.execute(
        "UPDATE library_rekeys SET seen_at = now(), seen_by = %s"
        " WHERE status = 'done' AND seen_at IS NULL",
        (actor,),
    ).rowcount


def rulings(conn: Conn) -> list[dict]:
    """Every library item with a case number: {id, case_number, ruling_proceeding,
    ruling_district, ruling_number}."""
    return conn.execute(
        "SELECT id, case_number, ruling_proceeding, ruling_district, ruling_number"
        " FROM case_law WHERE case_number IS NOT NULL ORDER BY id"
    ).fetchall()


def set_identity(conn: Conn, case_law_id: int, columns: dict) -> None:
    conn.execute(
        "UPDATE case_law SET ruling_proceeding = %(ruling_proceeding)s,"
        " ruling_district = %(ruling_district)s, ruling_number = %(ruling_number)s"
        " WHERE id = %(id)s",
        {**columns, "id": case_law_id},
    )


def links(conn: Conn) -> dict[int, dict]:
    """Every authority's {id, ref, kind, case_law_id, link_basis, candidates}, by id."""
    rows = conn.execute(
        "SELECT a.id, a.ref, a.kind, a.case_law_id, a.link_basis, a.candidates,"
        " c.case_number AS linked_case_number FROM authorities a"
        " LEFT JOIN case_law c ON c.id = a.case_law_id ORDER BY a.id"
    ).fetchall()
    return {r["id"]: r for r in rows}


def citation_rows(conn: Conn) -> list[dict]:
    """Every stored citation with its authority's ref and kind."""
    return conn.execute(
        "SELECT dc.id, dc.text, dc.authority_id, a.ref, a.kind FROM decision_citations dc"
        " JOIN authorities a ON a.id = dc.authority_id ORDER BY dc.id"
    ).fetchall()


def move_citation(conn: Conn, citation_id: int, ref: str, kind: str) -> int:
    """Move one stored citation under the authority of `ref` (made when missing); its id."""
    authority = one(
        conn.execute(
            "INSERT INTO authorities (ref, kind) VALUES (%s, %s)"
            " ON CONFLICT (ref) DO UPDATE SET updated_at = now() RETURNING id",
            (ref, kind),
        )
    )["id"]
    conn.execute(
        "UPDATE decision_citations SET authority_id = %s WHERE id = %s", (authority, citation_id)
    )
    return authority


def drop_emptied(conn: Conn, authority_ids: list[int]) -> int:
    """Of `authority_ids` (those citations were moved from), the ones no citation names any
    more, with their missing precedents."""
    conn.execute(
        "DELETE FROM missing_precedents m WHERE m.authority_id = ANY(%s) AND NOT EXISTS"
        " (SELECT 1 FROM decision_citations dc WHERE dc.authority_id = m.authority_id)",
        (authority_ids,),
    )
    return conn.execute(
        "DELETE FROM authorities a WHERE a.id = ANY(%s) AND NOT EXISTS"
        " (SELECT 1 FROM decision_citations dc WHERE dc.authority_id = a.id)",
        (authority_ids,),
    ).rowcount


def unlink_all(conn: Conn) -> None:
    """Every link but the chair's own picks, to be decided again by the whole identity."""
    conn.execute(
        "UPDATE authorities SET case_law_id = NULL, link_basis = NULL, candidates = '{}'"
        " WHERE link_basis IS DISTINCT FROM 'chair'"
        " AND (case_law_id IS NOT NULL OR cardinality(candidates) > 0)"
    )


# Tables whose rows are history, never rewritten (their case numbers stay as they were written).
APPEND_ONLY = (
    "learning_audit",
    "style_distance_history",
    "item_versions",
    "panel_verdicts",
    "model_calls",
    "principle_votes",
    "canonical_statement_versions",
    "synthesis_attempts",
)


def case_keys(conn: Conn) -> list[str]:
    return [r["case_number"] for r in conn.execute("SELECT case_number FROM cases ORDER BY id")]


def rename_case(conn: Conn, old: str, new: str) -> bool:
    """Rename a case key (every table referencing `cases` follows: ON UPDATE CASCADE). False,
    nothing changed, when `new` is already another case's key."""
    if conn.execute("SELECT 1 FROM cases WHERE case_number = %s", (new,)).fetchone():
        return False
    conn.execute("UPDATE cases SET case_number = %s WHERE case_number = %s", (new, old))
    return True


def loose_case_columns(conn: Conn) -> list[str]:
    """Tables with a `case_number` column that does not reference `cases` (so no cascade
    reaches it) and that are not history."""
    return [
        r["table_name"]
        for r in conn.execute(
            "SELECT c.table_name FROM information_schema.columns c"
            " JOIN information_schema.tables t USING (table_schema, table_name)"
            " WHERE c.table_schema = current_schema() AND c.column_name = 'case_number'"
            " AND t.table_type = 'BASE TABLE' AND c.table_name <> ALL(%s)"
            " AND c.table_name NOT IN (SELECT k.conrelid::regclass::text FROM pg_constraint k"
            "   WHERE k.contype = 'f' AND k.confrelid = 'cases'::regclass)"
            " AND c.table_name <> 'cases' ORDER BY c.table_name",
            (list(APPEND_ONLY),),
        )
    ]


def case_numbers_in(conn: Conn, table: str) -> list[str]:
    query = sql.SQL("SELECT DISTINCT case_number FROM {} WHERE case_number IS NOT NULL").format(
        sql.Identifier(table)
    )
    return [r["case_number"] for r in conn.execute(query)]


def respell(conn: Conn, table: str, old: str, new: str) -> int:
    query = sql.SQL("UPDATE {} SET case_number = %s WHERE case_number = %s").format(
        sql.Identifier(table)
    )
    return conn.execute(query, (new, old)).rowcount
