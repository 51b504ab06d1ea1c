"""SQL of the spans that must stay true (DESIGN INV-RET5, G6; migration 0039).

- `verified`: of the hits a search is about to return, those whose span still reads the text it
  was cut or drawn from (a chunk: its `text_hash`; a principle: its `span_hash`), re-hashed in
  the database at response time (retrieval/search.py).
- A principle's span found again when its item's text changes (`principles_of`, `move_span`), or
  the principle returned to the chair (`return_to_chair`; only her decision takes it back).
- What health re-checks of principles and canonical statements (`changed_principles`,
  `changed_canonicals`) and lists of what waits for her (`returned`).
"""

from __future__ import annotations

from psycopg import sql

from ..corpora import Corpus, Source
from .rows import Conn


def _sha(expr: str) -> str:
    return f"encode(sha256(convert_to({expr}, 'UTF8')), 'hex')"


_SPAN_TEXT = "substr(i.content, u.char_start + 1, u.char_end - u.char_start)"
# What each kind of unit must still read: a chunk its text's hash, a principle its span's.
_READS = {
    "chunk": f"{_sha(_SPAN_TEXT)} = u.text_hash",
    "principle": "u.returned_at IS NULL AND (u.char_start IS NULL OR "
    f"{_sha(_SPAN_TEXT)} = coalesce(u.span_hash, {_sha('u.supporting_quote')}))",
}


def verified(conn: Conn, corpus: Corpus, source: Source, ids: list[int]) -> set[int]:
    """The units among `ids` whose span still reads their text (only chunks and principles of
    a corpus with items carry a span; others are returned as given)."""
    if not ids or corpus.item_table is None or source.kind not in _READS:
        return set(ids)
    query = sql.SQL(
        "SELECT u.id FROM {units} u JOIN {items} i ON i.id = u.{fk}"
        " WHERE u.id = ANY(%(ids)s) AND {reads}"
    ).format(
        units=sql.Identifier(source.table),
        items=sql.Identifier(corpus.items),
        fk=sql.Identifier(source.parent),
        reads=sql.SQL(_READS[source.kind]),
    )
    return {r["id"] for r in conn.execute(query, {"ids": ids})}


# -- a principle's span, found again ------------------------------------------------------------


def item_text(conn: Conn, case_law_id: int) -> dict | None:
    return conn.execute(
        "SELECT id, doc_id, content, page_starts FROM case_law WHERE id = %s", (case_law_id,)
    ).fetchone()


def principles_of(
    conn: Conn, case_law_id: int | None = None, ids: list[int] | None = None
) -> list[dict]:
    """The live principles (approved, or awaiting her) not returned to her: of one item, or
    those of `ids`."""
    return conn.execute(
        "SELECT p.id, p.case_law_id, p.review_status, p.rule_text, p.supporting_quote, p.page,"
        " p.char_start, p.char_end, p.span_hash, c.doc_id FROM case_law_principles p"
        " JOIN case_law c ON c.id = p.case_law_id"
        " WHERE p.review_status IN ('approved', 'proposed') AND p.returned_at IS NULL"
        " AND (%(item)s::bigint IS NULL OR p.case_law_id = %(item)s)"
        " AND (%(ids)s::bigint[] IS NULL OR p.id = ANY(%(ids)s)) ORDER BY p.id",
        {"item": case_law_id, "ids": ids},
    ).fetchall()


def move_span(conn: Conn, principle_id: int, start: int, end: int, page, span_hash: str) -> None:
    conn.execute(
        "UPDATE case_law_principles SET char_start = %s, char_end = %s, page = %s, span_hash = %s"
        " WHERE id = %s",
        (start, end, page, span_hash, principle_id),
    )


def return_to_chair(conn: Conn, principle_id: int, reason: str) -> None:
    """The principle back in her queue with `reason` (out of search until she decides)."""
    conn.execute(
        "UPDATE case_law_principles SET returned_reason = %s, returned_at = now()"
        " WHERE id = %s AND returned_at IS NULL",
        (reason, principle_id),
    )


# -- what health re-checks ----------------------------------------------------------------------


def changed_principles(conn: Conn) -> list[dict]:
    """The live principles whose rule no longer hashes to its `text_hash` (`rule_changed`) or
    whose span no longer reads its `span_hash` (`span_changed`), not yet returned to her."""
    query = sql.SQL(
        "SELECT * FROM (SELECT u.id, u.source_kind, i.doc_id, u.review_status,"
        " u.text_hash <> {rule} AS rule_changed,"
        " (u.char_start IS NOT NULL AND {span} IS DISTINCT FROM"
        "  coalesce(u.span_hash, {quote})) AS span_changed"
        " FROM case_law_principles u JOIN case_law i ON i.id = u.case_law_id"
        " WHERE u.review_status IN ('approved', 'proposed') AND u.returned_at IS NULL) p"
        " WHERE p.rule_changed OR p.span_changed ORDER BY p.id"
    ).format(
        rule=sql.SQL(_sha("u.rule_text")),
        span=sql.SQL(_sha(_SPAN_TEXT)),
        quote=sql.SQL(_sha("u.supporting_quote")),
    )
    return conn.execute(query).fetchall()


def changed_canonicals(conn: Conn) -> list[dict]:
    """The canonical principles whose standing statement is not the one their gate hashed."""
    query = sql.SQL(
        "SELECT k.id, k.source_kind, k.status FROM canonical_principles k"
        " WHERE k.statement_hash IS DISTINCT FROM {statement} ORDER BY k.id"
    ).format(statement=sql.SQL(_sha("coalesce(k.canonical_statement, k.rule_text)")))
    return conn.execute(query).fetchall()


def returned(conn: Conn) -> list[dict]:
    """The principles returned to the chair, oldest first, with their item and reason."""
    return conn.execute(
        "SELECT p.id, p.source_kind, c.doc_id, p.review_status, p.returned_reason,"
        " p.returned_at FROM case_law_principles p JOIN case_law c ON c.id = p.case_law_id"
        " WHERE p.returned_at IS NOT NULL ORDER BY p.returned_at, p.id"
    ).fetchall()
