"""SQL of the panels' record (learning/lessons/panel_audit.py): each decision the system's panels made,
with the votes, each model's reason (`vote_reasons`: "model: reason | …", the principle panel's
in Hebrew) and the model calls they rest on, read from the database."""

from __future__ import annotations

from .rows import Conn

_STYLE = (
    "SELECT l.id AS lesson_id, l.case_number, l.category, l.text,"
    " CASE WHEN l.reviewed_by = 'panel' THEN l.review_status"
    "      WHEN l.needs_chair THEN 'needs_chair' ELSE l.review_status END AS outcome,"
    " coalesce(l.reviewed_at, max(v.created_at)) AS at,"
    " string_agg(v.model || '=' || v.vote, ' ' ORDER BY v.id) AS votes,"
    " string_agg(v.model_call_id::text, ' ' ORDER BY v.id) AS model_calls,"
    " string_agg(v.model || ': ' || v.reason, ' | ' ORDER BY v.id)"
    "  FILTER (WHERE v.reason IS NOT NULL) AS vote_reasons,"
    " l.review_status AS status_now, l.reviewed_by AS decided_by"
    " FROM decision_lessons l JOIN panel_verdicts v ON v.lesson_id = l.id"
    " WHERE (%(lesson)s::bigint IS NULL OR l.id = %(lesson)s)"
    " GROUP BY l.id ORDER BY l.id"
)

_PRINCIPLE = (
    "SELECT p.id AS principle_id, c.doc_id, c.case_number, p.source_kind, p.rule_text,"
    " CASE WHEN p.reviewed_by = 'panel' THEN p.review_status ELSE 'pending_review' END"
    "  AS outcome, p.votes, p.score, p.models,"
    " coalesce(CASE WHEN p.reviewed_by = 'panel' THEN p.reviewed_at END, max(v.created_at))"
    "  AS at,"
    " string_agg(v.model_call_id::text, ' ' ORDER BY v.model) AS model_calls,"
    " string_agg(v.model || ': ' || v.reason, ' | ' ORDER BY v.model)"
    "  FILTER (WHERE v.reason IS NOT NULL) AS vote_reasons,"
    " p.review_reason AS reason, p.review_status AS status_now, p.reviewed_by AS decided_by,"
    " p.confirmed_by"
    " FROM case_law_principles p JOIN case_law c ON c.id = p.case_law_id"
    " JOIN principle_votes v ON v.principle_id = p.id AND v.source_kind = p.source_kind"
    " WHERE (%(principle)s::bigint IS NULL OR p.id = %(principle)s)"
    " GROUP BY p.id, p.source_kind, c.doc_id, c.case_number ORDER BY p.id"
)


def style_decisions(conn: Conn, lesson_id: int | None = None) -> list[dict]:
    """The style panel's decisions (every lesson it voted on), or one lesson's."""
    return [dict(r) for r in conn.execute(_STYLE, {"lesson": lesson_id}).fetchall()]


def principle_decisions(conn: Conn, principle_id: int | None = None) -> list[dict]:
    """The principle panel's decisions (every principle it voted on), or one principle's."""
    return [dict(r) for r in conn.execute(_PRINCIPLE, {"principle": principle_id}).fetchall()]
