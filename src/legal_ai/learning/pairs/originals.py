"""A case's uploads as the chair sent them (migration 0046, store/originals.py): the list for
the case page, and one original file found by what it is (a draft's version, the final, a case
document)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...corpora import get_corpus
from ...store import originals as store

if TYPE_CHECKING:
    from ...context import Context
    from ...store.rows import Conn


def of_case(conn: Conn, case: str) -> list[dict]:
    """A case's uploads, read on the caller's connection (the case page's)."""
    return [dict(row) for row in store.of_case(conn, case)]


def found(ctx: Context, case: str, kind: str, version: str | None, doc: str | None) -> dict | None:
    """One upload's original (its bytes and name) — a draft by version, the final, a case
    document by its id — or None when the address names nothing kept."""
    with ctx.store.connection() as conn:
        if kind == "draft" and version and version.isdigit():
            return store.of_draft(conn, case, int(version))
        if kind == "final":
            return store.of_item(conn, get_corpus("internal"), case, doc or case)
        if kind == "document" and doc:
            return store.of_item(conn, get_corpus("case"), case, doc)
    return None
