"""SQL of the learning loop (migration 0007): drafts, the pair ledger, methodology profiles,
lessons and panel verdicts, the analyzed pairs' texts. Every function takes the caller's
connection, so a service composes them into one transaction. The citation graph's SQL is in
store/citations.py, the chair feedback's in store/feedback.py, the held-out history's in
store/style_history.py and the copy check's reads in store/copy_check.py; their names are
importable from here too, as the learning loop has always read them."""

from __future__ import annotations

from typing import Any

from psycopg import sql
from psycopg.types.json import Jsonb

from .citations import citations_of as citations_of
from .citations import find_section as find_section
from .citations import lock_citations as lock_citations
from .citations import missing_precedent as missing_precedent
from .citations import missing_precedents as missing_precedents
from .citations import refresh_missing_and_corroboration as refresh_missing_and_corroboration
from .citations import replace_citations as replace_citations
from .copy_check import case_document_contents as case_document_contents
from .copy_check import case_law_text as case_law_text
from .copy_check import set_copy_report as set_copy_report
from .feedback import feedback_by_week as feedback_by_week
from .feedback import feedback_summary as feedback_summary
from .feedback import insert_feedback as insert_feedback
from .feedback import list_feedback as list_feedback
from .rows import Conn, one
from .style_history import HISTORY_COLUMNS as HISTORY_COLUMNS
from .style_history import append_history as append_history
from .style_history import history as history
from .style_history import latest_of_others as latest_of_others
from .withdrawn_finals import WITHDRAWN

# -- cases, drafts, pairs ----------------------------------------------------------------------


def lock_case(conn: Conn, case_number: str) -> None:
    """Serialise learning-loop writes of one case (draft add, final upload, promote)."""
    conn.execute("SELECT pg_advisory_xact_lock(hashtext('learning:' || %s))", (case_number,))


def upsert_case(conn: Conn, case_number: str, **fields: Any) -> dict:
    """Create the case or fill in what it lacks (given values win over NULLs, never over a
    value the chair set: the labels of a case whose final arrived, `labels_source`, stay; its
    final sets them with `set_final_labels`). `created_by`: who opens it (an agent's name)."""
    given = {k: v for k, v in fields.items() if v is not None}
    conn.execute(
        "INSERT INTO cases (case_number, practice_area, appeal_type, outcome, chair_name,"
        " created_by)"
        " VALUES (%(case)s, %(practice_area)s, %(appeal_type)s, %(outcome)s, %(chair_name)s,"
        " %(created_by)s)"
        " ON CONFLICT (case_number) DO UPDATE SET"
        " practice_area = CASE WHEN cases.labels_source IS NULL"
        " THEN coalesce(EXCLUDED.practice_area, cases.practice_area) ELSE cases.practice_area END,"
        " appeal_type = CASE WHEN cases.labels_source IS NULL"
        " THEN coalesce(EXCLUDED.appeal_type, cases.appeal_type) ELSE cases.appeal_type END,"
        " outcome = CASE WHEN cases.labels_source IS NULL"
        " THEN coalesce(EXCLUDED.outcome, cases.outcome) ELSE cases.outcome END,"
        " chair_name = coalesce(cases.chair_name, EXCLUDED.chair_name)",
        {
            "case": case_number,
            "practice_area": given.get("practice_area"),
            "appeal_type": given.get("appeal_type"),
            "outcome": given.get("outcome"),
            "chair_name": given.get("chair_name"),
            "created_by": given.get("created_by"),
        },
    )
    return one(conn.execute("SELECT * FROM cases WHERE case_number = %s", (case_number,)))


def set_final_labels(
    conn: Conn, case_number: str, labels: dict[str, str | None], source: str
) -> dict:
    """The case's appeal type, outcome and practice area as its final's (`source`: `final`,
    given with it or confirmed; `draft`, the draft's unconfirmed). Migration 0034 refuses it to
    an agent, and to any request role but the chair's over labels that are the final's."""
    return one(
        conn.execute(
            "UPDATE cases SET appeal_type = %s, outcome = %s, practice_area = %s, labels_source = %s"
            " WHERE case_number = %s RETURNING *",
            (
                labels.get("appeal_type"),
                labels.get("outcome"),
                labels.get("practice_area"),
                source,
                case_number,
            ),
        )
    )


def find_draft(conn: Conn, case_number: str, content_hash: str) -> dict | None:
    return conn.execute(
        "SELECT * FROM drafts WHERE case_number = %s AND content_hash = %s",
        (case_number, content_hash),
    ).fetchone()


def insert_draft(conn: Conn, values: dict[str, Any]) -> dict:
    return one(
        conn.execute(
            "INSERT INTO drafts (case_number, version, content, content_hash, blocks, missing_blocks,"
            " appeal_type, outcome, practice_area, source_path)"
            " SELECT %(case_number)s, coalesce(max(version), 0) + 1, %(content)s, %(content_hash)s,"
            " %(blocks)s, %(missing_blocks)s, %(appeal_type)s, %(outcome)s, %(practice_area)s,"
            " %(source_path)s FROM drafts WHERE case_number = %(case_number)s RETURNING *",
            {**values, "blocks": Jsonb(values["blocks"])},
        )
    )


def get_draft(conn: Conn, draft_id: int) -> dict | None:
    return conn.execute("SELECT * FROM drafts WHERE id = %s", (draft_id,)).fetchone()


_PAIR = "SELECT * FROM draft_final_pairs WHERE case_number = %s"
_PAIR_LOCKED = _PAIR + " FOR UPDATE"


def get_pair(conn: Conn, case_number: str, *, lock: bool = False) -> dict | None:
    return conn.execute(_PAIR_LOCKED if lock else _PAIR, (case_number,)).fetchone()


def insert_pair(conn: Conn, case_number: str, status: str, **fields: Any) -> dict:
    return one(
        conn.execute(
            "INSERT INTO draft_final_pairs (case_number, status, draft_id, style_document_id,"
            " case_law_id, final_version, final_blocks) VALUES (%s, %s, %s, %s, %s, %s, %s)"
            " RETURNING *",
            (
                case_number,
                status,
                fields.get("draft_id"),
                fields.get("style_document_id"),
                fields.get("case_law_id"),
                fields.get("final_version"),
                Jsonb(fields["final_blocks"]) if fields.get("final_blocks") is not None else None,
            ),
        )
    )


_PAIR_COLUMNS = (
    "status",
    "draft_id",
    "style_document_id",
    "case_law_id",
    "final_version",
    "final_blocks",
    "analysis",
)


def update_pair(conn: Conn, pair_id: int, **fields: Any) -> dict:
    """Set the given pair columns (names from a fixed list; values as parameters)."""
    names = [name for name in fields if name in _PAIR_COLUMNS]
    if len(names) != len(fields):
        raise ValueError(f"unknown pair columns: {sorted(set(fields) - set(names))}")
    values = [Jsonb(fields[n]) if n in ("final_blocks", "analysis") else fields[n] for n in names]
    statement = sql.SQL("UPDATE draft_final_pairs SET {} WHERE id = %s RETURNING *").format(
        sql.SQL(", ").join(sql.SQL("{} = %s").format(sql.Identifier(name)) for name in names)
    )
    return one(conn.execute(statement, (*values, pair_id)))


def list_pairs(conn: Conn, *, limit: int | None = None, offset: int = 0) -> list[dict]:
    """By id; `limit` rows after `offset` (None: all)."""
    return conn.execute(
        "SELECT p.case_number, p.status, p.final_version, p.status_changed_at, d.version AS"
        " draft_version, d.copy_report, d.copy_checked_at"
        " FROM draft_final_pairs p LEFT JOIN drafts d ON d.id = p.draft_id"
        " ORDER BY p.id LIMIT %s OFFSET %s",
        (limit, offset),
    ).fetchall()


def style_finals(conn: Conn, exclude_case: str | None = None) -> list[dict]:
    """The chair's finals in the style corpus (content and case number), oldest first."""
    return conn.execute(
        "SELECT case_number, content FROM documents WHERE corpus = 'style'"
        " AND extraction_issue IS NULL AND case_number IS DISTINCT FROM %s ORDER BY id",
        (exclude_case,),
    ).fetchall()


# -- methodology --------------------------------------------------------------------------------


_PROFILE = "SELECT * FROM methodology_profiles WHERE appeal_type = %s"
_PROFILE_LOCKED = _PROFILE + " FOR UPDATE"


def get_profile(conn: Conn, appeal_type: str, *, lock: bool = False) -> dict | None:
    return conn.execute(_PROFILE_LOCKED if lock else _PROFILE, (appeal_type,)).fetchone()


def profiles_with_lesson(conn: Conn, lesson_id: int) -> list[dict]:
    """Profiles holding a folded lesson, locked for update."""
    return conn.execute(
        "SELECT * FROM methodology_profiles WHERE profile->'lessons' @> %s"
        " ORDER BY appeal_type FOR UPDATE",
        (Jsonb([{"id": lesson_id}]),),
    ).fetchall()


def save_profile(conn: Conn, appeal_type: str, profile: dict, actor: str, reason: str) -> dict:
    """Write a new version of a profile (the caller holds its row lock) and keep the version."""
    row = one(
        conn.execute(
            "UPDATE methodology_profiles SET profile = %s, version = version + 1, updated_by = %s,"
            " updated_at = now() WHERE appeal_type = %s RETURNING *",
            (Jsonb(profile), actor, appeal_type),
        )
    )
    conn.execute(
        "INSERT INTO methodology_profile_versions (appeal_type, version, profile, updated_by,"
        " reason) VALUES (%s, %s, %s, %s, %s)",
        (appeal_type, row["version"], Jsonb(profile), actor, reason),
    )
    return row


# -- lessons ------------------------------------------------------------------------------------


def category_kinds(conn: Conn) -> dict[str, str]:
    rows = conn.execute("SELECT category, kind FROM lesson_categories").fetchall()
    return {r["category"]: r["kind"] for r in rows}


_LESSON_DEFAULTS = {
    "appeal_type": None,
    "outcome": None,
    "review_status": "proposed",
    "reviewed_by": None,
    "review_reason": None,
    "routed_reason": None,
    "needs_chair": False,
    "evidence_verified": False,
    "job_id": None,
}


def insert_lesson(conn: Conn, values: dict[str, Any]) -> tuple[dict, bool]:
    """Insert a lesson unless its dedupe key exists; (row, created). Proposed, unless `values`
    carries a decision (`review_status`, `reviewed_by`, `review_reason`: a lesson the chair
    writes herself, which the gate admits only under her role)."""
    row = conn.execute(
        "INSERT INTO decision_lessons (pair_id, case_number, category, text, block, appeal_type,"
        " outcome, source, dedupe_key, proposed_by, review_status, reviewed_by, review_reason,"
        " evidence, routed_reason, needs_chair, evidence_verified, job_id)"
        " VALUES (%(pair_id)s, %(case_number)s, %(category)s, %(text)s, %(block)s,"
        " %(appeal_type)s, %(outcome)s, %(source)s, %(dedupe_key)s, %(proposed_by)s,"
        " %(review_status)s, %(reviewed_by)s, %(review_reason)s, %(evidence)s, %(routed_reason)s,"
        " %(needs_chair)s, %(evidence_verified)s, %(job_id)s)"
        " ON CONFLICT (dedupe_key) DO NOTHING RETURNING *",
        {
            **_LESSON_DEFAULTS,
            **values,
            "evidence": Jsonb(values["evidence"]) if values.get("evidence") is not None else None,
        },
    ).fetchone()
    if row:
        return row, True
    existing = one(
        conn.execute(
            "SELECT * FROM decision_lessons WHERE dedupe_key = %s", (values["dedupe_key"],)
        )
    )
    return existing, False


_LESSON = (
    "SELECT l.*, c.kind FROM decision_lessons l JOIN lesson_categories c USING (category)"
    " WHERE l.id = %s"
)
_LESSON_LOCKED = _LESSON + " FOR UPDATE OF l"


def get_lesson(conn: Conn, lesson_id: int, *, lock: bool = False) -> dict | None:
    return conn.execute(_LESSON_LOCKED if lock else _LESSON, (lesson_id,)).fetchone()


def set_review(
    conn: Conn,
    lesson_id: int,
    status: str,
    actor: str,
    reason: str | None,
    needs_chair: bool = False,
) -> dict:
    return one(
        conn.execute(
            "UPDATE decision_lessons SET review_status = %s, reviewed_by = %s, review_reason = %s,"
            " needs_chair = %s WHERE id = %s RETURNING *",
            (status, actor, reason, needs_chair, lesson_id),
        )
    )


def set_lesson_content(conn: Conn, lesson_id: int, text: str, category: str) -> None:
    """The chair's edit of a lesson's text and category (the gate freezes a decided lesson's;
    the agent's role has no UPDATE privilege on these columns)."""
    conn.execute(
        "UPDATE decision_lessons SET text = %s, category = %s WHERE id = %s",
        (text, category, lesson_id),
    )


def flag_for_chair(conn: Conn, lesson_id: int, reason: str) -> None:
    conn.execute(
        "UPDATE decision_lessons SET needs_chair = true, review_reason = %s WHERE id = %s",
        (reason, lesson_id),
    )


def insert_verdicts(conn: Conn, lesson_id: int, verdicts: list[dict]) -> None:
    """The panel's verdicts, each naming the model call it rests on (the database checks the
    call, and computes the lesson's `panel_models` from these rows when the panel decides)."""
    for verdict in verdicts:
        conn.execute(
            "INSERT INTO panel_verdicts (lesson_id, model, vote, reason, model_call_id)"
            " VALUES (%s, %s, %s, %s, %s)",
            (
                lesson_id,
                verdict["model"],
                verdict["vote"],
                verdict.get("reason"),
                verdict["model_call_id"],
            ),
        )


def list_lessons(
    conn: Conn,
    *,
    status: str | None = None,
    case_number: str | None = None,
    limit: int | None = None,
    offset: int = 0,
) -> list[dict]:
    """By id; `limit` rows after `offset` (None: all)."""
    return conn.execute(
        "SELECT l.id, l.case_number, l.category, c.kind, l.text, l.block, l.appeal_type,"
        " l.outcome, l.source, l.review_status, l.reviewed_by, l.reviewed_at, l.review_reason,"
        " l.needs_chair, l.folded_into, l.created_at, l.evidence, l.panel_models,"
        " l.corroboration, l.routed_reason, l.job_id FROM decision_lessons l"
        " JOIN lesson_categories c USING (category)"
        " WHERE (%(status)s::text IS NULL OR l.review_status = %(status)s)"
        " AND (%(case)s::text IS NULL OR l.case_number = %(case)s) ORDER BY l.id"
        " LIMIT %(limit)s OFFSET %(offset)s",
        {"status": status, "case": case_number, "limit": limit, "offset": offset},
    ).fetchall()


def approved_lessons(conn: Conn, appeal_type: str | None, outcome: str | None) -> list[dict]:
    """Approved lessons that apply: general ones, and those of this appeal type / outcome."""
    return conn.execute(
        "SELECT l.id, l.category, c.kind, l.text, l.block, l.appeal_type, l.outcome, l.source,"
        " l.reviewed_by FROM decision_lessons l JOIN lesson_categories c USING (category)"
        " WHERE l.review_status = 'approved'"
        " AND (l.appeal_type IS NULL OR l.appeal_type = %s)"
        " AND (l.outcome IS NULL OR l.outcome = %s) ORDER BY l.id",
        (appeal_type, outcome),
    ).fetchall()


def approved_lessons_any_outcome(conn: Conn, appeal_type: str) -> list[dict]:
    """Approved lessons that reach the writer for this appeal type in any outcome (the general
    ones and the type's): the chair's style portrait lists them, each with its outcome."""
    return conn.execute(
        "SELECT l.id, l.category, c.kind, l.text, l.block, l.appeal_type, l.outcome, l.source,"
        " l.reviewed_by, l.folded_into, l.case_number FROM decision_lessons l"
        " JOIN lesson_categories c USING (category) WHERE l.review_status = 'approved'"
        " AND (l.appeal_type IS NULL OR l.appeal_type = %s) ORDER BY l.id",
        (appeal_type,),
    ).fetchall()


def lesson_pool_size(conn: Conn) -> int:
    return one(
        conn.execute("SELECT count(*) AS n FROM decision_lessons WHERE review_status = 'approved'")
    )["n"]


def mark_folded(conn: Conn, lesson_ids: list[int], version: int) -> None:
    conn.execute(
        "UPDATE decision_lessons SET folded_into = %s WHERE id = ANY(%s)", (version, lesson_ids)
    )


def audit(conn: Conn, actor: str, action: str, case_number: str | None, details: dict) -> None:
    conn.execute(
        "INSERT INTO learning_audit (actor, action, case_number, details) VALUES (%s, %s, %s, %s)",
        (actor, action, case_number, Jsonb(details)),
    )


# -- the analyzed pairs (knowledge/contrastive.py) ------------------------------------------------


def analyzed_pairs(conn: Conn, appeal_type: str | None) -> list[dict]:
    """The analyzed pairs (of `appeal_type`, or all) with both texts and blocks, by pair id;
    not a pair whose final she withdrew from what the writer reads (withdrawn_finals)."""
    return conn.execute(
        sql.SQL(
            "SELECT p.case_number, p.final_blocks, d.id AS draft_id, d.version AS draft_version,"
            " d.content AS draft_content, d.blocks AS draft_blocks, s.doc_id AS final_doc_id,"
            " s.content AS final_content, coalesce(c.appeal_type, d.appeal_type) AS appeal_type"
            " FROM draft_final_pairs p JOIN drafts d ON d.id = p.draft_id"
            " JOIN documents s ON s.id = p.style_document_id"
            " LEFT JOIN cases c ON c.case_number = p.case_number"
            " WHERE p.status IN ('analyzed', 'lessons_folded') AND p.final_blocks IS NOT NULL"
            " AND (%(type)s::text IS NULL OR coalesce(c.appeal_type, d.appeal_type) = %(type)s)"
            " AND p.case_number NOT IN {} ORDER BY p.id"  # not of a final she withdrew
        ).format(WITHDRAWN),
        {"type": appeal_type},
    ).fetchall()
