"""SQL of the learning engine's stages: the pair as distillation reads it, lessons
proposed with their evidence, near-duplicates and corroboration, the panel's bookkeeping, and
the figures of the curator and of the panel's reliability. Every function takes the caller's
connection, so a stage composes them into one transaction."""

from __future__ import annotations

from psycopg.types.json import Jsonb

from .rows import Conn, one


def pair_for_distillation(conn: Conn, case_number: str) -> dict | None:
    """The pair of a case with our draft's blocks, her final's blocks, the alignment, and the
    case's chair and appeal type."""
    return conn.execute(
        "SELECT p.id, p.case_number, p.status, p.analysis, p.final_blocks, p.draft_id,"
        " d.blocks AS draft_blocks, c.chair_name, c.appeal_type, c.outcome"
        " FROM draft_final_pairs p LEFT JOIN drafts d ON d.id = p.draft_id"
        " LEFT JOIN cases c ON c.case_number = p.case_number WHERE p.case_number = %s",
        (case_number,),
    ).fetchone()


def final_of(conn: Conn, case_number: str) -> dict | None:
    """Her final as the style corpus holds it, with the case's appeal type and outcome."""
    return conn.execute(
        "SELECT d.content, c.appeal_type, c.outcome, p.final_blocks, p.status"
        " FROM documents d LEFT JOIN cases c ON c.case_number = d.case_number"
        " LEFT JOIN draft_final_pairs p ON p.case_number = d.case_number"
        " WHERE d.corpus = 'style' AND d.case_number = %s AND d.extraction_issue IS NULL"
        " ORDER BY d.id DESC LIMIT 1",
        (case_number,),
    ).fetchone()


def duplicate_candidates(conn: Conn, categories: list[str], exclude_case: str | None) -> list[dict]:
    """Lessons a new proposal may corroborate: approved by the chair or by the panel, of these
    categories, learned on another case (a lesson of the same case is the same final read
    again, not corroboration). A lesson merely proposed (an agent's curator finding, another
    final's undecided lesson) absorbs nothing: the candidate stays a lesson of its own."""
    return conn.execute(
        "SELECT id, category, text, case_number, review_status, corroboration"
        " FROM decision_lessons WHERE category = ANY(%s)"
        " AND review_status = 'approved' AND reviewed_by IN ('chair', 'panel')"
        " AND case_number IS DISTINCT FROM %s ORDER BY id",
        (categories, exclude_case),
    ).fetchall()


def corroborated_by(conn: Conn, lesson_id: int, case_number: str) -> bool:
    return (
        conn.execute(
            "SELECT 1 FROM learning_audit WHERE action = 'corroborate' AND lesson_id = %s"
            " AND case_number = %s LIMIT 1",
            (lesson_id, case_number),
        ).fetchone()
        is not None
    )


def corroborate(
    conn: Conn, lesson_id: int, case_number: str, actor: str, details: dict
) -> int | None:
    """One more final supports the lesson: +1, once per case (retry-safe); audited. Returns the
    new count, or None when this case already corroborated it."""
    conn.execute("SELECT id FROM decision_lessons WHERE id = %s FOR UPDATE", (lesson_id,))
    if corroborated_by(conn, lesson_id, case_number):
        return None
    row = one(
        conn.execute(
            "UPDATE decision_lessons SET corroboration = corroboration + 1 WHERE id = %s"
            " RETURNING corroboration",
            (lesson_id,),
        )
    )
    audit_lesson(conn, actor, "corroborate", lesson_id, case_number, details)
    return row["corroboration"]


def audit_lesson(
    conn: Conn,
    actor: str,
    action: str,
    lesson_id: int,
    case_number: str | None,
    details: dict,
    reason: str | None = None,
) -> None:
    conn.execute(
        "INSERT INTO learning_audit (actor, action, lesson_id, case_number, reason, details)"
        " VALUES (%s, %s, %s, %s, %s, %s)",
        (actor, action, lesson_id, case_number, reason, Jsonb(details)),
    )


def has_verdicts(conn: Conn, lesson_id: int) -> bool:
    return (
        conn.execute(
            "SELECT 1 FROM panel_verdicts WHERE lesson_id = %s LIMIT 1", (lesson_id,)
        ).fetchone()
        is not None
    )


# -- the curator's figures ----------------------------------------------------------------------


def curator_findings(conn: Conn) -> list[dict]:
    """Every curator finding with its case and where the chair's decision stands."""
    return conn.execute(
        "SELECT id, case_number, category, review_status, reviewed_by"
        " FROM decision_lessons WHERE source = 'curator' ORDER BY case_number, id"
    ).fetchall()


# -- the panel's reliability --------------------------------------------------------------------


def panel_lessons(conn: Conn) -> list[dict]:
    """Lessons sent to the panel (votes recorded or a panel failure audited), with the votes, the
    panel's own outcome, and every decision the chair made on them afterwards, in order."""
    return conn.execute(
        "WITH sent AS ("
        "   SELECT lesson_id FROM panel_verdicts"
        "   UNION SELECT lesson_id FROM learning_audit"
        "   WHERE action = 'panel_failed' AND lesson_id IS NOT NULL)"
        " SELECT l.id, l.review_status, l.reviewed_by, l.needs_chair,"
        "  coalesce((SELECT jsonb_agg(jsonb_build_object('model', v.model, 'vote', v.vote)"
        "            ORDER BY v.id) FROM panel_verdicts v WHERE v.lesson_id = l.id),"
        "           '[]') AS votes,"
        "  (SELECT a.to_status FROM learning_audit a WHERE a.lesson_id = l.id"
        "   AND a.actor = 'panel' AND a.to_status IN ('approved', 'rejected')"
        "   ORDER BY a.id LIMIT 1) AS panel_decision,"
        "  coalesce((SELECT jsonb_agg(jsonb_build_object('action', a.action, 'to', a.to_status)"
        "            ORDER BY a.id) FROM learning_audit a"
        "   WHERE a.actor = 'chair' AND (a.lesson_id = l.id OR (a.action = 'promote'"
        "         AND a.details->'lessons' @> to_jsonb(l.id)))"
        "   AND a.action IN ('update_lesson', 'chair_confirm', 'promote')), '[]') AS chair"
        " FROM decision_lessons l JOIN sent s ON s.lesson_id = l.id ORDER BY l.id"
    ).fetchall()
