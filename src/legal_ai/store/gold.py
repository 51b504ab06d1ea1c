"""SQL of the office's own gold set (learning/pairs/gold_set.py): the chair's finals in the style
corpus, the citation graph's links of the authorities they cite, and the library items a set
judges or holds as distractors."""

from __future__ import annotations

from .rows import Conn

_ITEM = (
    "SELECT id, source_kind, doc_id, doc_type, title, content, law_title, eid, section_num"
    " FROM case_law"
)


def finals(conn: Conn) -> list[dict]:
    """The style corpus's finals, by case number: its text and the id of its copy among the
    internal decisions (None for a final stored without one)."""
    return conn.execute(
        "SELECT d.doc_id AS case_number, d.content,"
        " (SELECT c.id FROM case_law c WHERE c.source_kind = 'internal_committee'"
        "  AND c.doc_id = d.doc_id) AS case_law_id"
        " FROM documents d WHERE d.corpus = 'style' ORDER BY d.doc_id"
    ).fetchall()


def authority_links(conn: Conn, refs: list[str]) -> dict[str, dict]:
    """The citation graph's authorities of `refs`: ref -> {case_law_id, candidates} (the link
    the graph decided, the chair's pick included)."""
    rows = conn.execute(
        "SELECT ref, case_law_id, candidates FROM authorities WHERE ref = ANY(%s)", (refs,)
    ).fetchall()
    return {r["ref"]: r for r in rows}


def items(conn: Conn, ids: list[int]) -> list[dict]:
    """The library items `ids` with their text and what a statute section carries."""
    return conn.execute(_ITEM + " WHERE id = ANY(%s) ORDER BY id", (ids,)).fetchall()


def distractors(conn: Conn, exclude: list[int], n: int) -> list[dict]:
    """`n` searchable library items outside `exclude`, the same ones on every run while the
    library is the same (ordered by a hash of their identity)."""
    return conn.execute(
        _ITEM + " WHERE searchable AND NOT (id = ANY(%s))"
        " ORDER BY md5(source_kind || '/' || doc_id), id LIMIT %s",
        (exclude, n),
    ).fetchall()


def trend(conn: Conn, dataset: str, limit: int) -> list[dict]:
    """The standing evaluation's last `limit` days of one gold set, oldest first."""
    rows = conn.execute(
        "SELECT day, ndcg_at_10, recall_at_100, n_queries, n_docs, fingerprint"
        " FROM eval_history WHERE dataset = %s ORDER BY day DESC LIMIT %s",
        (dataset, limit),
    ).fetchall()
    return rows[::-1]
