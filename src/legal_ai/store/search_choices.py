"""What a search form offers and shows beside the hits (retrieval/choices.py reads it for the
desk's search page, web/desk/search*.py): the courts of the precedent library (the court
filter's choices), the case numbers of the chair's cases (the case-number field's completion,
and a partial number's cases), and the text around the hits shown (their passages and the
paragraph numbers before them, for the pinpoint). Reads only; every value a parameter, every
identifier through psycopg.sql."""

from __future__ import annotations

from psycopg import sql

from ..corpora import Corpus
from .rows import Conn

MAX_CHOICES = 500  # the most courts or case numbers a select or a completion list offers


def courts(conn: Conn, corpus: Corpus) -> list[str]:
    """The distinct courts of the corpus's searchable items, by name (at most MAX_CHOICES)."""
    if corpus.item_table is None or "court" not in corpus.columns:
        return []
    query = sql.SQL(
        "SELECT DISTINCT btrim(i.court) AS court FROM {t} i WHERE {scope} AND i.searchable"
        " AND coalesce(btrim(i.court), '') <> '' ORDER BY 1 LIMIT %(limit)s"
    ).format(t=sql.Identifier(corpus.items), scope=corpus.scope("i"))
    rows = conn.execute(query, {**corpus.scope_params(), "limit": MAX_CHOICES}).fetchall()
    return [r["court"] for r in rows]


def case_numbers(conn: Conn) -> list[str]:
    """The chair's cases' numbers, the newest first (at most MAX_CHOICES)."""
    rows = conn.execute(
        "SELECT case_number FROM cases ORDER BY created_at DESC, id DESC LIMIT %s",
        (MAX_CHOICES,),
    ).fetchall()
    return [r["case_number"] for r in rows]


def cases_ending(conn: Conn, number: str) -> list[str]:
    """The case numbers of cases whose number ends in `number` (a number/year such as 1157/23,
    given as a parameter; `%`, `_` and `\\` in it are matched as themselves), by number."""
    escaped = number.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    rows = conn.execute(
        "SELECT case_number FROM cases WHERE case_number LIKE %s ORDER BY case_number LIMIT %s",
        ("%" + escaped, MAX_CHOICES),
    ).fetchall()
    return [r["case_number"] for r in rows]


def passages(
    conn: Conn,
    corpus: Corpus,
    spans: list[tuple[str, int, int]],
    before: int,
) -> dict[tuple[str, int, int], tuple[str, int]]:
    """For each (doc_id, start, end) of the corpus: its item's text from up to `before`
    characters ahead of `start` to `end`, and where `start` falls in it — the passage with
    what leads to it (the paragraph number it belongs to). Spans outside their text are left
    out."""
    if corpus.item_table is None or not spans:
        return {}
    query = sql.SQL(
        "SELECT w.doc_id, w.a, w.b, w.a - greatest(w.a - %(before)s, 0) AS offset,"
        " substr(i.content, greatest(w.a - %(before)s, 0) + 1,"
        "        w.b - greatest(w.a - %(before)s, 0)) AS text"
        " FROM unnest(%(doc_ids)s::text[], %(starts)s::int[], %(ends)s::int[]) AS w(doc_id, a, b)"
        " JOIN {t} i ON i.doc_id = w.doc_id AND {scope}"
        " WHERE 0 <= w.a AND w.a < w.b AND w.b <= length(i.content)"
    ).format(t=sql.Identifier(corpus.items), scope=corpus.scope("i"))
    params = {
        **corpus.scope_params(),
        "before": before,
        "doc_ids": [s[0] for s in spans],
        "starts": [s[1] for s in spans],
        "ends": [s[2] for s in spans],
    }
    return {
        (r["doc_id"], r["a"], r["b"]): (r["text"], r["offset"])
        for r in conn.execute(query, params).fetchall()
    }
