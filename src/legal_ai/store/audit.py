"""Isolation audit (INV-RET1): for each corpus, every chunk in its partition must belong to an
item of that corpus, checked against the root tables independently of the partition routing."""

from __future__ import annotations

from typing import TypedDict

from psycopg import sql

from ..corpora import CORPORA, Corpus, Source
from .rows import Conn, one


class Checked(TypedDict):
    """How many units were checked, and how many of them belong to another corpus."""

    checked: int
    leaks: int


class ChunkAudit(Checked):
    """Every chunk partition's chunks checked against its corpus's items, per corpus."""

    corpora: dict[str, Checked]


def audit_isolation(conn: Conn) -> ChunkAudit:
    checked = leaks = 0
    per_corpus: dict[str, Checked] = {}
    for corpus in CORPORA.values():
        if corpus.scope_column is None:
            query = sql.SQL(
                "SELECT count(*) AS checked, count(*) FILTER (WHERE i.id IS NULL) AS leaks"
                " FROM {chunks} c LEFT JOIN {items} i ON i.id = c.{fk}"
            )
        else:
            query = sql.SQL(
                "SELECT count(*) AS checked,"
                " count(*) FILTER (WHERE i.{scope_col} IS DISTINCT FROM %(corpus_scope)s) AS leaks"
                " FROM {chunks} c LEFT JOIN {items} i ON i.id = c.{fk}"
            )
        row = one(
            conn.execute(
                query.format(
                    chunks=sql.Identifier(corpus.chunk_table),
                    items=sql.Identifier(corpus.items),
                    fk=sql.Identifier(corpus.parent_column),
                    scope_col=sql.Identifier(corpus.scope_column or "id"),
                ),
                corpus.scope_params(),
            )
        )
        per_corpus[corpus.key] = {"checked": row["checked"], "leaks": row["leaks"]}
        checked += row["checked"]
        leaks += row["leaks"]
    return {"checked": checked, "leaks": leaks, "corpora": per_corpus}


def foreign_units(conn: Conn, corpus: Corpus, source: Source, ids: list[int]) -> int:
    """How many of the unit ids a leg returned do NOT belong to `corpus`, judged from the root
    (unpartitioned) tables: a leak check independent of the leg's own SQL."""
    if not ids:
        return 0
    if corpus.item_table is None or source.parent_column is None:
        query = sql.SQL(
            "SELECT %(n)s - count(*) AS foreign FROM {root} u WHERE u.id = ANY(%(ids)s)"
        ).format(root=sql.Identifier(source.root))
        return one(conn.execute(query, {"ids": ids, "n": len(ids)}))["foreign"]
    query = sql.SQL(
        "SELECT %(n)s - count(*) AS foreign FROM {root} u JOIN {items} i ON i.id = u.{fk}"
        " WHERE u.id = ANY(%(ids)s) AND {scope}"
    ).format(
        root=sql.Identifier(source.root),
        items=sql.Identifier(corpus.items),
        fk=sql.Identifier(source.parent_column),
        scope=corpus.scope("i"),
    )
    return one(conn.execute(query, {"ids": ids, "n": len(set(ids)), **corpus.scope_params()}))[
        "foreign"
    ]
