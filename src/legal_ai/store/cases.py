"""The chair's cases as their pages read them (web/desk/cases.py): the list of cases with
their status, last activity and what waits on each, and one case's record for its page —
the case and its pair, its drafts (every version with its copy-check report), its final, the
held-out rows of its finals, the learning jobs of its finals, its lessons, the audit's promote
rows, the precedents she attached, and the latest held-out row of every other case (her usual,
for comparing). Reads only; every change goes through the services."""

from __future__ import annotations

from . import style_history
from .rows import Conn

# One row per case: its pair's status ('open' without one), its last movement (the case's
# creation, its pair's last status change, a draft, a lesson proposed or decided, an audit row,
# a precedent attached, a learning job) and the counts of what waits on it.
_LIST = """
SELECT c.case_number, c.title, c.appeal_type, c.practice_area, p.id AS pair_id, p.draft_id,
  p.case_law_id, coalesce(p.status, 'open') AS status, d.version AS draft_version, p.final_version,
  coalesce(d.blocks ->> 'header', p.final_blocks ->> 'header') AS header,
  (p.status = 'draft_done'
   AND coalesce(d.copy_report -> 'passages' @> '[{"kind": "substance"}]'::jsonb, false))
   AS copy_substance,
  greatest(c.created_at, p.status_changed_at,
    (SELECT max(x.created_at) FROM drafts x WHERE x.case_number = c.case_number),
    (SELECT max(coalesce(l.reviewed_at, l.created_at)) FROM decision_lessons l
      WHERE l.case_number = c.case_number),
    (SELECT max(a.at) FROM learning_audit a WHERE a.case_number = c.case_number),
    (SELECT max(cp.created_at) FROM case_precedents cp WHERE cp.case_number = c.case_number),
    (SELECT max(coalesce(j.finished_at, j.created_at)) FROM jobs j
      WHERE j.case_number = c.case_number)) AS last_activity,
  (SELECT count(*) FROM decision_lessons l WHERE l.case_number = c.case_number
    AND l.review_status = 'proposed') AS lessons_waiting,
  (SELECT count(DISTINCT m.authority_id) FROM missing_precedents m
    JOIN decision_citations dc ON dc.authority_id = m.authority_id
    WHERE m.status = 'open' AND dc.citing_case_law_id = p.case_law_id) AS missing,
  (SELECT count(DISTINCT a.id) FROM authorities a
    JOIN decision_citations dc ON dc.authority_id = a.id
    WHERE a.case_law_id IS NULL AND cardinality(a.candidates) > 0
    AND dc.citing_case_law_id = p.case_law_id) AS ambiguous,
  (SELECT j.status FROM jobs j WHERE j.case_number = c.case_number AND j.kind = 'learning'
    ORDER BY j.id DESC LIMIT 1) AS learning
FROM cases c
LEFT JOIN draft_final_pairs p ON p.case_number = c.case_number
LEFT JOIN drafts d ON d.id = p.draft_id
WHERE %(case)s::text IS NULL OR c.case_number = %(case)s
ORDER BY last_activity DESC, c.case_number
"""


def case_list(conn: Conn) -> list[dict]:
    """Every case, the most recently active first."""
    return conn.execute(_LIST, {"case": None}).fetchall()


def case_row(conn: Conn, case_number: str) -> dict | None:
    """One case as the list shows it, with its pair's ids (None when there is no such case)."""
    return conn.execute(_LIST, {"case": case_number}).fetchone()


def drafts_of(conn: Conn, case_number: str) -> list[dict]:
    """The case's drafts, oldest first, each with its copy-check report; the text of the latest
    only (the page shows it beside the final)."""
    return conn.execute(
        "SELECT id, version, created_at, missing_blocks, copy_report, copy_checked_at,"
        " CASE WHEN version = max(version) OVER () THEN content END AS content"
        " FROM drafts WHERE case_number = %s ORDER BY version",
        (case_number,),
    ).fetchall()


def final_of(conn: Conn, case_law_id: int) -> dict | None:
    """The final as the committee's decision: its text, version, date and when it arrived."""
    return conn.execute(
        "SELECT id, doc_id, content, version, decided_on, created_at, updated_at, metadata"
        " FROM case_law WHERE id = %s",
        (case_law_id,),
    ).fetchone()


def history_of(conn: Conn, case_number: str) -> list[dict]:
    """The held-out rows of the case's finals, oldest first."""
    return conn.execute(
        "SELECT * FROM style_distance_history WHERE case_number = %s ORDER BY id", (case_number,)
    ).fetchall()


def usual(conn: Conn, case_number: str, before_id: int | None = None) -> list[dict]:
    """The latest held-out row of every other case (as it stood before row `before_id`): her
    usual, to compare a final with."""
    return style_history.latest_of_others(conn, case_number, before_id)


def jobs_of(conn: Conn, case_number: str) -> list[dict]:
    """The learning jobs of the case's finals, oldest first."""
    return conn.execute(
        "SELECT id, status, waiting_for, error, attempts, created_at, started_at, finished_at"
        " FROM jobs WHERE case_number = %s AND kind = 'learning' ORDER BY id",
        (case_number,),
    ).fetchall()


def promotions_of(conn: Conn, case_number: str) -> list[dict]:
    """The audit's rows of the case's promotes (what was folded, into which version)."""
    return conn.execute(
        "SELECT at, actor, details FROM learning_audit WHERE case_number = %s"
        " AND action = 'promote' ORDER BY id",
        (case_number,),
    ).fetchall()


def precedents_of(conn: Conn, case_number: str) -> list[dict]:
    """The precedents she attached to the case, oldest first, with the ruling when linked."""
    return conn.execute(
        "SELECT cp.id, cp.citation, cp.note, cp.created_at, cp.case_law_id, cl.doc_id,"
        " cl.source_kind FROM case_precedents cp"
        " LEFT JOIN case_law cl ON cl.id = cp.case_law_id"
        " WHERE cp.case_number = %s ORDER BY cp.id",
        (case_number,),
    ).fetchall()


def linked_rulings(conn: Conn, ids: list[int]) -> dict[int, dict]:
    """The library's rulings by id: their doc_id and corpus (for the reader's link)."""
    rows = conn.execute(
        "SELECT id, doc_id, source_kind FROM case_law WHERE id = ANY(%s)", (ids,)
    ).fetchall()
    return {r["id"]: r for r in rows}


def labels_of(conn: Conn, case_number: str) -> dict | None:
    """The case's labels (its final's once `labels_source` is set) and its latest draft's."""
    return conn.execute(
        "SELECT c.appeal_type, c.outcome, c.practice_area, c.labels_source,"
        " d.appeal_type AS draft_appeal_type, d.outcome AS draft_outcome,"
        " d.practice_area AS draft_practice_area"
        " FROM cases c LEFT JOIN LATERAL (SELECT x.appeal_type, x.outcome, x.practice_area"
        "  FROM drafts x WHERE x.case_number = c.case_number ORDER BY x.version DESC LIMIT 1) d"
        "  ON true"
        " WHERE c.case_number = %s",
        (case_number,),
    ).fetchone()
