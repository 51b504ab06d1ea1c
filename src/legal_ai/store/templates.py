"""SQL of the chair's templates (migration 0018): the passages measured as recurring across her
finals (table block_templates) and the fingerprint of the paragraphs they were measured on
(template_state), read from the block exemplars (knowledge/templates.py). Every function takes
the caller's connection."""

from __future__ import annotations

from psycopg import sql
from psycopg.types.json import Jsonb

from .rows import Conn, one
from .withdrawn_finals import PARAGRAPH_KEPT

_LOCK = 0x7E3A1A7E  # advisory lock: one recomputation at a time


def lock_recompute(conn: Conn) -> None:
    """Serialise the recomputation of the templates until the transaction ends."""
    conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK,))


def fingerprint(conn: Conn) -> str:
    """The fingerprint of the finals' current paragraphs (their text's hash, case number and
    appeal type); '' when there is none. A final she withdrew from what the writer reads is
    left out (store/withdrawn_finals.py): a withdrawal changes the fingerprint, so the templates
    are measured again without it, and again with it when she restores it."""
    return one(
        conn.execute(
            sql.SQL(
                "SELECT count(DISTINCT e.document_id) AS finals,"
                " coalesce(md5(string_agg(e.document_id::text"
                " || ':' || e.source_hash || ':' || coalesce(e.case_number, '') || ':'"
                " || coalesce(e.appeal_type, ''), ',' ORDER BY e.document_id, e.block,"
                " e.ordinal)), '') AS fingerprint FROM block_exemplars e JOIN documents d"
                " ON d.id = e.document_id AND d.corpus = 'style'"
                " WHERE e.source_hash = d.content_hash AND e.ordinal = 0 AND {}"
            ).format(PARAGRAPH_KEPT)
        )
    )["fingerprint"]


def paragraphs(conn: Conn) -> list[dict]:
    """Every current paragraph of the style finals with its final's doc_id, oldest final first."""
    return conn.execute(
        sql.SQL(
            "SELECT e.document_id, e.case_number, e.block, e.ordinal, e.char_start, e.char_end,"
            " e.text, e.appeal_type, e.decided_on, d.doc_id FROM block_exemplars e"
            " JOIN documents d ON d.id = e.document_id AND d.corpus = 'style'"
            " WHERE e.source_hash = d.content_hash AND {}"
            " ORDER BY e.decided_on NULLS LAST, e.document_id, e.block, e.ordinal"
        ).format(PARAGRAPH_KEPT)
    ).fetchall()


def delete_templates(conn: Conn) -> None:
    """Drop every stored template."""
    conn.execute("DELETE FROM block_templates")


def insert_template(
    conn: Conn,
    block: str,
    text: str,
    slots: list[str],
    support: int,
    examples: list[str],
    sources: list[dict],
    appeal_types: dict[str, int],
    words: int,
) -> None:
    """Store one measured template."""
    conn.execute(
        "INSERT INTO block_templates (block, text, slots, support, examples, sources,"
        " appeal_types, words) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
        (block, text, slots, support, Jsonb(examples), Jsonb(sources), Jsonb(appeal_types), words),
    )


def save_state(conn: Conn, fingerprint: str, finals: int, shares: dict[str, float]) -> None:
    """Record what the templates were measured on, how many finals, and each block's share."""
    conn.execute(
        "INSERT INTO template_state (singleton, fingerprint, finals, shares, computed_at)"
        " VALUES (true, %s, %s, %s, now()) ON CONFLICT (singleton) DO UPDATE SET"
        " fingerprint = EXCLUDED.fingerprint, finals = EXCLUDED.finals,"
        " shares = EXCLUDED.shares, computed_at = EXCLUDED.computed_at",
        (fingerprint, finals, Jsonb(shares)),
    )


def measured_fingerprint(conn: Conn) -> dict | None:
    """The state's {fingerprint}; None before the templates were ever measured."""
    return conn.execute("SELECT fingerprint FROM template_state").fetchone()


def state(conn: Conn) -> dict | None:
    """The whole state row (fingerprint, finals, shares, computed_at); None before any."""
    return conn.execute("SELECT * FROM template_state").fetchone()


def count(conn: Conn) -> int:
    """How many templates are stored."""
    return one(conn.execute("SELECT count(*) AS n FROM block_templates"))["n"]


def templates(conn: Conn, block: str | None, appeal_type: str | None) -> list[dict]:
    """The stored templates of `block` recurring in finals of `appeal_type` (None: any)."""
    return conn.execute(
        "SELECT * FROM block_templates WHERE (%(block)s::text IS NULL OR block = %(block)s)"
        " AND (%(type)s::text IS NULL OR appeal_types ? %(type)s)",
        {"block": block, "type": appeal_type},
    ).fetchall()


def finals_of_type(conn: Conn, appeal_type: str) -> int:
    """How many style finals of `appeal_type` have paragraphs of their current text."""
    return one(
        conn.execute(
            "SELECT count(DISTINCT e.document_id) AS n FROM block_exemplars e"
            " JOIN documents d ON d.id = e.document_id AND d.corpus = 'style'"
            " WHERE e.source_hash = d.content_hash AND e.appeal_type = %s",
            (appeal_type,),
        )
    )["n"]


def template_sources(conn: Conn) -> list[dict]:
    """The {sources} of every stored template (where it lies in the finals), unordered."""
    return conn.execute("SELECT sources FROM block_templates").fetchall()
