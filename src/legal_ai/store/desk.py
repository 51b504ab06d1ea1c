"""SQL the chair's desk reads (web/desk): a stored item's text for the reader view, the panel's
votes on lessons, principles waiting for the chair, and the learning audit trail, newest first.
Reads only; every decision goes through the services (lessons, App.review_principle)."""

from __future__ import annotations

import psycopg
from psycopg import sql

from ..corpora import SEARCHABLE, Corpus


def item_text(conn: psycopg.Connection, corpus: Corpus, doc_id: str) -> dict | None:
    """The item's title, case number and stored text (with its page offsets), within its corpus
    only (the scope predicate of the registry)."""
    columns = ["id", "doc_id", "title", "content", "page_starts"]
    columns += [c for c in ("case_number", "court", "decided_on") if c in corpus.columns]
    query = sql.SQL("SELECT {cols} FROM {t} i WHERE i.doc_id = %(doc_id)s AND {scope}").format(
        cols=sql.SQL(", ").join(sql.SQL("i.{}").format(sql.Identifier(c)) for c in columns),
        t=sql.Identifier(corpus.item_table),
        scope=corpus.scope("i"),
    )
    return conn.execute(query, {"doc_id": doc_id, **corpus.scope_params()}).fetchone()


def page_images(conn: psycopg.Connection, corpus: Corpus, item_id: int) -> list[int]:
    """The pages of an item that have a row in the corpus's page-images table (the image leg,
    MULTIMODAL_ENABLED): only a hash and an embedding are stored there, never the image."""
    if corpus.image_table is None:
        return []
    query = sql.SQL("SELECT page FROM {t} WHERE {fk} = %s ORDER BY page").format(
        t=sql.Identifier(corpus.image_table), fk=sql.Identifier(corpus.parent_column)
    )
    return [r["page"] for r in conn.execute(query, (item_id,)).fetchall()]


def verdicts(conn: psycopg.Connection, lesson_ids: list[int]) -> list[dict]:
    """The panel's votes (model, vote, reason) on these lessons, oldest first."""
    return conn.execute(
        "SELECT lesson_id, model, vote, reason, created_at FROM panel_verdicts"
        " WHERE lesson_id = ANY(%s) ORDER BY lesson_id, id",
        (lesson_ids,),
    ).fetchall()


def pending_principles(conn: psycopg.Connection, limit: int = 200) -> list[dict]:
    """Principles proposed and not yet decided, with the ruling they belong to."""
    return conn.execute(
        "SELECT p.id, p.source_kind, p.rule_text, p.supporting_quote, p.page, p.char_start,"
        " p.char_end, p.review_status, p.reviewed_by, c.doc_id, c.title, c.case_number, c.court"
        " FROM case_law_principles p JOIN case_law c ON c.id = p.case_law_id"
        " WHERE p.review_status = 'proposed' ORDER BY p.id LIMIT %s",
        (limit,),
    ).fetchall()


def audit_page(conn: psycopg.Connection, limit: int, offset: int) -> tuple[list[dict], int]:
    """One page of learning_audit, newest first, and how many rows there are in all."""
    rows = conn.execute(
        "SELECT id, at, actor, action, lesson_id, case_number, from_status, to_status, reason,"
        " details FROM learning_audit ORDER BY id DESC LIMIT %s OFFSET %s",
        (limit, offset),
    ).fetchall()
    total = conn.execute("SELECT count(*) AS n FROM learning_audit").fetchone()["n"]
    return rows, total


def located(
    conn: psycopg.Connection, doc_ids: set[str], corpora: tuple[str, ...]
) -> dict[str, str]:
    """The corpus of each doc_id (the first of `corpora` that holds it), for the reader's link."""
    out: dict[str, str] = {}
    for key in corpora:
        wanted = sorted(doc_ids - set(out))
        if not wanted:
            break
        corpus = SEARCHABLE[key]
        query = sql.SQL(
            "SELECT DISTINCT i.doc_id FROM {t} i WHERE i.doc_id = ANY(%(ids)s) AND {scope}"
        ).format(t=sql.Identifier(corpus.item_table), scope=corpus.scope("i"))
        for row in conn.execute(query, {"ids": wanted, **corpus.scope_params()}):
            out.setdefault(row["doc_id"], key)
    return out
