"""The review queue's SQL: the lessons and principles waiting for the chair with the panel's votes
on them, where each stands and how many wait, and a stored item's text and page images for the
reader view (the decisions already taken: decisions_log.py).
Reads only; every decision goes through the services (lessons, App.review_principle)."""

from __future__ import annotations

from psycopg import sql

from ..corpora import SEARCHABLE, Corpus
from .rows import Conn, one


def item_text(conn: Conn, corpus: Corpus, doc_id: str) -> dict | None:
    """The item's title, case number and stored text (with its page offsets), and what its
    citation names (its kind, date, a statute's law and section), within its corpus only (the
    scope predicate of the registry)."""
    columns = ["id", "doc_id", "title", "content", "page_starts"]
    extra = ("case_number", "court", "decided_on", "law_title", "section_num", "doc_type")
    columns += [c for c in extra if c in corpus.columns or c == "doc_type"]
    query = sql.SQL("SELECT {cols} FROM {t} i WHERE i.doc_id = %(doc_id)s AND {scope}").format(
        cols=sql.SQL(", ").join(sql.SQL("i.{}").format(sql.Identifier(c)) for c in columns),
        t=sql.Identifier(corpus.items),
        scope=corpus.scope("i"),
    )
    return conn.execute(query, {"doc_id": doc_id, **corpus.scope_params()}).fetchone()


def page_images(conn: Conn, corpus: Corpus, item_id: int) -> list[int]:
    """The pages of an item that have a row in the corpus's page-images table (the image leg,
    MULTIMODAL_ENABLED): only a hash and an embedding are stored there, never the image."""
    if corpus.image_table is None:
        return []
    query = sql.SQL("SELECT page FROM {t} WHERE {fk} = %s ORDER BY page").format(
        t=sql.Identifier(corpus.image_table), fk=sql.Identifier(corpus.parent_column)
    )
    return [r["page"] for r in conn.execute(query, (item_id,)).fetchall()]


def verdicts(conn: Conn, lesson_ids: list[int]) -> list[dict]:
    """The panel's votes (model, vote, reason) on these lessons, oldest first."""
    return conn.execute(
        "SELECT lesson_id, model, vote, reason, created_at FROM panel_verdicts"
        " WHERE lesson_id = ANY(%s) ORDER BY lesson_id, id",
        (lesson_ids,),
    ).fetchall()


def principle_votes(conn: Conn, principle_ids: list[int]) -> list[dict]:
    """The principle panel's votes on these principles (model, whether it proposed the
    principle, its score and its reason; migration 0048), by principle and model."""
    return conn.execute(
        "SELECT v.principle_id, v.model, v.voted, v.score, v.reason FROM principle_votes v"
        " JOIN case_law_principles p ON p.id = v.principle_id AND p.source_kind = v.source_kind"
        " WHERE v.principle_id = ANY(%s) ORDER BY v.principle_id, v.model",
        (principle_ids,),
    ).fetchall()


# What the chair decides or looks over (web/desk/review_queue.py, one queue): the same filters
# as WAITING's lanes below (proposed lessons, the panel's own approvals not yet folded; principles
# pending and the panel's approvals she has not confirmed), with the panel's record on each.
_QUEUE_LESSONS = (
    "SELECT l.id, l.case_number, l.category, c.kind, l.text, l.block, l.source,"
    " l.review_status, l.reviewed_by, l.review_reason, l.needs_chair, l.routed_reason,"
    " l.folded_into, l.evidence, l.created_at, coalesce(v.votes, 0) AS votes, coalesce(v.votes_for, 0)"
    " AS votes_for FROM decision_lessons l JOIN lesson_categories c USING (category)"
    " LEFT JOIN (SELECT lesson_id, count(*) AS votes,"
    " count(*) FILTER (WHERE vote = 'approve') AS votes_for FROM panel_verdicts"
    " GROUP BY lesson_id) v ON v.lesson_id = l.id"
)
_LESSONS_WAITING = (
    " WHERE (l.review_status = 'proposed' OR (l.review_status = 'approved'"
    " AND l.reviewed_by = 'panel' AND l.folded_into IS NULL)) ORDER BY l.id"
)
_QUEUE_PRINCIPLES = (
    "SELECT p.id, p.source_kind, p.rule_text, p.supporting_quote, p.page, p.char_start,"
    " p.char_end, p.review_status, p.reviewed_by, p.confirmed_by, p.review_reason, p.votes,"
    " p.score, p.returned_reason, c.doc_id,"
    " c.title, c.case_number, c.court, c.is_binding FROM case_law_principles p"
    " JOIN case_law c ON c.id = p.case_law_id"
)
_PRINCIPLES_WAITING = (
    " WHERE (p.review_status = 'proposed' OR (p.review_status = 'approved'"
    " AND p.reviewed_by = 'panel' AND p.confirmed_by IS NULL) OR p.returned_at IS NOT NULL)"
    " ORDER BY p.id"
)


def queue_lessons(conn: Conn, lesson_id: int | None = None) -> list[dict]:
    """The lessons waiting for the chair (proposed, or approved by the panel and not folded),
    by id, each with the panel's verdicts counted (`votes`, `votes_for`); only `lesson_id`'s
    when given (and then whatever its status: a decided one has left the queue)."""
    if lesson_id is None:
        return conn.execute(_QUEUE_LESSONS + _LESSONS_WAITING).fetchall()
    return conn.execute(_QUEUE_LESSONS + " WHERE l.id = %s", (lesson_id,)).fetchall()


def queue_principles(conn: Conn, principle_id: int | None = None) -> list[dict]:
    """The principles waiting for the chair (proposed, or approved by the panel and not
    confirmed), by id, with their ruling and the panel's votes and score; only
    `principle_id`'s when given (whatever its status)."""
    if principle_id is None:
        return conn.execute(_QUEUE_PRINCIPLES + _PRINCIPLES_WAITING).fetchall()
    return conn.execute(_QUEUE_PRINCIPLES + " WHERE p.id = %s", (principle_id,)).fetchall()


def located(conn: Conn, doc_ids: set[str], corpora: tuple[str, ...]) -> dict[str, str]:
    """The corpus of each doc_id (the first of `corpora` that holds it), for the reader's link."""
    out: dict[str, str] = {}
    for key in corpora:
        wanted = sorted(doc_ids - set(out))
        if not wanted:
            break
        corpus = SEARCHABLE[key]
        query = sql.SQL(
            "SELECT DISTINCT i.doc_id FROM {t} i WHERE i.doc_id = ANY(%(ids)s) AND {scope}"
        ).format(t=sql.Identifier(corpus.items), scope=corpus.scope("i"))
        for row in conn.execute(query, {"ids": wanted, **corpus.scope_params()}):
            out.setdefault(row["doc_id"], key)
    return out


# What waits for the chair ("מה מחכה לי", web/desk/menu.py): one count each, with the filter of
# the list its page shows (the services named beside), never the rows themselves.
WAITING = {
    # The review queue's lanes (web/desk/review_queue.py over queue_lessons/queue_principles).
    "lessons": "SELECT count(*) AS n FROM decision_lessons WHERE review_status = 'proposed'"
    " AND NOT needs_chair AND source <> 'curator'",
    "escalations": "SELECT count(*) AS n FROM decision_lessons"
    " WHERE review_status = 'proposed' AND needs_chair",
    "curator": "SELECT count(*) AS n FROM decision_lessons WHERE review_status = 'proposed'"
    " AND NOT needs_chair AND source = 'curator'",
    # Style lessons the panel approved on its own (2/2), not yet folded by a promote.
    "panel_approved": "SELECT count(*) AS n FROM decision_lessons"
    " WHERE review_status = 'approved' AND reviewed_by = 'panel' AND folded_into IS NULL",
    # principle_review.list_principles("pending_review"), ("to_confirm") and ("returned").
    "principles": "SELECT count(*) AS n FROM case_law_principles WHERE review_status = 'proposed'"
    " AND returned_at IS NULL",
    "principles_to_confirm": "SELECT count(*) AS n FROM case_law_principles"
    " WHERE review_status = 'approved' AND reviewed_by = 'panel' AND confirmed_by IS NULL"
    " AND returned_at IS NULL",
    # Returned to her because their source changed (migration 0039): out of search until she
    # decides, whatever their status.
    "principles_returned": "SELECT count(*) AS n FROM case_law_principles"
    " WHERE returned_at IS NOT NULL",
    # voice_review.list_documents("pending_review"), enrichment_review.list_enrichments(...).
    "voice": "SELECT count(*) AS n FROM voice_documents WHERE status = 'pending_review'",
    "enrichment": "SELECT count(*) AS n FROM case_law_enrichments WHERE status = 'pending_review'",
    # finals.pairs: a pair still waiting for her final whose draft's copy report (copy_policy)
    # holds a passage of substance.
    "copy_substance": "SELECT count(*) AS n FROM draft_final_pairs p"
    " JOIN drafts d ON d.id = p.draft_id WHERE p.status = 'draft_done'"
    " AND d.copy_report -> 'passages' @> '[{\"kind\": \"substance\"}]'::jsonb",
    # finals.missing_precedents (open) and library_links.ambiguous.
    "missing_precedents": "SELECT count(*) AS n FROM missing_precedents m"
    " JOIN authorities a ON a.id = m.authority_id WHERE m.status = 'open'",
    "ambiguous": "SELECT count(*) AS n FROM authorities"
    " WHERE case_law_id IS NULL AND cardinality(candidates) > 0",
}


def waiting_all(conn: Conn) -> dict[str, int]:
    """Every count of WAITING at once: one statement, one round trip (the menu reads them on
    every page), each count the filter of its page's list."""
    query = sql.SQL("SELECT {}").format(
        sql.SQL(", ").join(
            sql.SQL("({}) AS {}").format(sql.SQL(count), sql.Identifier(key))
            for key, count in WAITING.items()
        )
    )
    return dict(one(conn.execute(query)))


def finals_waiting(conn: Conn) -> dict[str, int]:
    """Her finals waiting for their learning: received and not yet learned from
    (`final_received`), and learned with lessons no promote folded yet (`analyzed`)."""
    row = conn.execute(
        "SELECT count(*) FILTER (WHERE status = 'final_received') AS learning,"
        " count(*) FILTER (WHERE status = 'analyzed') AS promote FROM draft_final_pairs"
    ).fetchone()
    assert row is not None  # an aggregate answers one row
    return {"learning": row["learning"], "promote": row["promote"]}
