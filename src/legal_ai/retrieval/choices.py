"""What a search form offers and shows beside the hits, read for the interfaces (the desk's
search page): the courts of a corpus (the court filter's choices), the chair's case numbers (the
case-number field's completion, and a partial number's cases), and the text around the hits
shown. Reads only; the SQL is store/search_choices.py."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..store import search_choices as store
from ..store.rows import Conn

if TYPE_CHECKING:
    from ..corpora import Corpus


def courts(conn: Conn, corpus: Corpus) -> list[str]:
    """The distinct courts of the corpus's searchable items, by name."""
    return store.courts(conn, corpus)


def case_numbers(conn: Conn) -> list[str]:
    """The chair's cases' numbers, the newest first."""
    return store.case_numbers(conn)


def cases_ending(conn: Conn, number: str) -> list[str]:
    """The case numbers of cases whose number ends in `number` (a number/year), by number."""
    return store.cases_ending(conn, number)


def passages(
    conn: Conn, corpus: Corpus, spans: list[tuple[str, int, int]], before: int
) -> dict[tuple[str, int, int], tuple[str, int]]:
    """For each (doc_id, start, end): its text from up to `before` characters ahead of `start`,
    and where `start` falls in it (the paragraph number it belongs to)."""
    return store.passages(conn, corpus, spans, before)
