"""SQL of the desk's decisions log (/audit, web/desk/audit.py): learning_audit newest first,
filtered by a span of moments, a kind of item, a case, who decided and a text found in the
reason, the lesson's or the principle's text or the case number; each row with what it is
about — the lesson's text and where it stands, the principle's rule and its ruling — and a
promote's folded lessons by their texts. Reads only; every value a parameter."""

from __future__ import annotations

from typing import Any

from psycopg import sql

from .rows import Conn, one

# The kinds of item a row is about (the log's "סוג" filter): which actions belong to each.
KINDS: dict[str, tuple[str, ...]] = {
    "lessons": (
        "insert_lesson",
        "update_lesson",
        "delete_lesson",
        "edit_lesson",
        "corroborate",
    ),
    "principles": (
        "insert_principle",
        "update_principle",
        "confirm_principle",
        "update_canonical",
        "edit_canonical_statement",
    ),
    "methodology": ("promote", "edit_methodology", "dismiss_fingerprint"),
    "enrichment": ("enrichment",),
    "citations": ("citation_linked", "citations_moved", "review_treatment"),
    "voice": ("voice_document",),
}
CHAIR = "chair"  # her actor in the audit (labels.ACTOR)

_SELECT = (
    "SELECT a.id, a.at, a.actor, a.action, a.lesson_id, a.principle_id, a.case_number,"
    " a.from_status, a.to_status, a.reason, a.details,"
    " l.text AS lesson_text, l.review_status AS lesson_status, l.reviewed_by AS lesson_by,"
    " l.folded_into AS lesson_folded, p.rule_text AS principle_text, p.source_kind,"
    " p.char_start, p.char_end, c.doc_id AS principle_doc"
    " FROM learning_audit a"
    " LEFT JOIN decision_lessons l ON l.id = a.lesson_id"
    " LEFT JOIN case_law_principles p ON p.id = a.principle_id"
    " LEFT JOIN case_law c ON c.id = p.case_law_id"
)


def _like(text: str) -> str:
    """`text` as an ILIKE pattern that finds it anywhere, its own % and _ taken literally."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _where(filters: dict[str, Any]) -> tuple[sql.Composable, dict[str, Any]]:
    """The WHERE of the chosen filters: since/until (aware datetimes, until excluded), kind,
    case, who ("chair" or "others") and q (a text)."""
    parts: list[sql.Composable] = []
    params: dict[str, Any] = {}
    if filters.get("since") is not None:
        parts.append(sql.SQL("a.at >= %(since)s"))
        params["since"] = filters["since"]
    if filters.get("until") is not None:
        parts.append(sql.SQL("a.at < %(until)s"))
        params["until"] = filters["until"]
    kind = filters.get("kind")
    if kind in KINDS:
        column = {"lessons": "a.lesson_id", "principles": "a.principle_id"}.get(kind)
        clause = "a.action = ANY(%(actions)s)"
        if column:
            clause = f"({clause} OR {column} IS NOT NULL)"
        parts.append(sql.SQL(clause))
        params["actions"] = list(KINDS[kind])
    if filters.get("case"):
        parts.append(sql.SQL("a.case_number = %(case)s"))
        params["case"] = filters["case"]
    if filters.get("who") == "chair":
        parts.append(sql.SQL("a.actor = %(chair)s"))
        params["chair"] = CHAIR
    elif filters.get("who") == "others":
        parts.append(sql.SQL("a.actor <> %(chair)s"))
        params["chair"] = CHAIR
    if filters.get("q"):
        parts.append(
            sql.SQL(
                "(a.reason ILIKE %(q)s OR l.text ILIKE %(q)s OR p.rule_text ILIKE %(q)s"
                " OR a.case_number ILIKE %(q)s)"
            )
        )
        params["q"] = _like(filters["q"])
    if not parts:
        return sql.SQL(""), params
    return sql.SQL(" WHERE ") + sql.SQL(" AND ").join(parts), params


def page(conn: Conn, filters: dict[str, Any], limit: int, offset: int) -> tuple[list[dict], int]:
    """One page of the log under `filters`, newest first, and how many rows match in all."""
    where, params = _where(filters)
    rows = conn.execute(
        sql.SQL(_SELECT) + where + sql.SQL(" ORDER BY a.id DESC LIMIT %(limit)s OFFSET %(offset)s"),
        {**params, "limit": limit, "offset": offset},
    ).fetchall()
    total = one(
        conn.execute(
            sql.SQL(
                "SELECT count(*) AS n FROM learning_audit a"
                " LEFT JOIN decision_lessons l ON l.id = a.lesson_id"
                " LEFT JOIN case_law_principles p ON p.id = a.principle_id"
            )
            + where,
            params,
        )
    )["n"]
    return rows, total


def lesson_texts(conn: Conn, ids: list[int]) -> dict[int, str]:
    """The texts of lessons by id (a promote's folded lessons)."""
    if not ids:
        return {}
    rows = conn.execute(
        "SELECT id, text FROM decision_lessons WHERE id = ANY(%s)", (sorted(set(ids)),)
    ).fetchall()
    return {r["id"]: r["text"] for r in rows}


def cases(conn: Conn) -> list[str]:
    """The case numbers the log names (the "תיק" filter's choices)."""
    rows = conn.execute(
        "SELECT DISTINCT case_number FROM learning_audit WHERE case_number IS NOT NULL"
        " ORDER BY case_number"
    ).fetchall()
    return [r["case_number"] for r in rows]
