"""Pages of a list: the HTTP API's and the MCP server's list answers are read
a page at a time, never a whole table.

A `Page` is `limit` rows (1..MAX_LIMIT, default DEFAULT_LIMIT) after `offset` rows of the list's
own order (each list is ordered by a unique key, so pages neither repeat nor skip a row while
nothing is added). The store reads `limit + 1` rows (`Page.fetch`): the extra one only says
whether another page follows. `Page.cut(rows)` returns the page's rows and its `page` object,
which the answer carries beside its usual key (the contract of DESIGN.md §10: extend, never
rename):

    {"lessons": [...], "page": {"limit": 100, "offset": 0, "returned": 100, "next_offset": 100}}

`next_offset` is None on the last page. The service functions take `page=None` for the whole
list (the CLI and the desk's pages, which show what they always showed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypedDict, TypeVar

from .errors import InvalidInput

DEFAULT_LIMIT = 100
MAX_LIMIT = 500
MAX_OFFSET = 1_000_000_000  # within PostgreSQL's bigint, and far past any list here

T = TypeVar("T")


class PageInfo(TypedDict):
    """A paged answer's `page` object: the page asked for, how many rows it returned, and
    where the next page starts (None: this was the last)."""

    limit: int
    offset: int
    returned: int
    next_offset: int | None


# Rows of each list `legal-ai health` and the desk's health page show (the counts are whole).
HEALTH_ROWS = 200


class Listing(TypedDict, Generic[T]):
    """A health list (`legal-ai health`, the desk's health page): how many there are, and the
    first of them (at most HEALTH_ROWS of each list; `count` counts them all), each a row of
    its list's own type (`Listing[ChangedItem]`)."""

    count: int
    items: list[T]


@dataclass(frozen=True)
class Page:
    limit: int = DEFAULT_LIMIT
    offset: int = 0

    def __post_init__(self) -> None:
        if isinstance(self.limit, bool) or not isinstance(self.limit, int):
            raise InvalidInput(
                f"limit must be a whole number from 1 to {MAX_LIMIT}",
                code="number.out_of_range",
                field="limit",
            )
        if not 1 <= self.limit <= MAX_LIMIT:
            raise InvalidInput(
                f"limit must be from 1 to {MAX_LIMIT} (got {self.limit})",
                code="number.out_of_range",
                field="limit",
            )
        if isinstance(self.offset, bool) or not isinstance(self.offset, int):
            raise InvalidInput(
                "offset must be a whole number, 0 or more",
                code="number.out_of_range",
                field="offset",
            )
        if not 0 <= self.offset <= MAX_OFFSET:
            raise InvalidInput(
                f"offset must be from 0 to {MAX_OFFSET} (got {self.offset})",
                code="number.out_of_range",
                field="offset",
            )

    @property
    def fetch(self) -> int:
        """Rows to read: the page and one more (is there a next page?)."""
        return self.limit + 1

    def cut(self, rows: list[T]) -> tuple[list[T], PageInfo]:
        """The page's rows (of `fetch` read) and the `page` object of the answer."""
        shown = list(rows[: self.limit])
        more = len(rows) > self.limit
        return shown, {
            "limit": self.limit,
            "offset": self.offset,
            "returned": len(shown),
            "next_offset": self.offset + len(shown) if more else None,
        }


def window(page: Page | None) -> tuple[int | None, int]:
    """(limit, offset) for a store function's `LIMIT %s OFFSET %s`: (None, 0) reads it all
    (LIMIT NULL is no limit in PostgreSQL)."""
    return (None, 0) if page is None else (page.fetch, page.offset)


def listed(
    key: str, rows: list, page: Page | None, shape: Callable[[Any], Any] = lambda row: row
) -> dict[str, Any]:
    """A list answer: `{key: [shape(row), ...]}`, with its `page` object when paged (`rows`
    then as read with `window(page)`: one more than the page)."""
    if page is None:
        return {key: [shape(r) for r in rows]}
    shown, info = page.cut(rows)
    return {key: [shape(r) for r in shown], "page": info}


def cut(page: Page | None, rows: list[T]) -> tuple[list[T], dict[str, Any]]:
    """(the rows to show, `{"page": ...}` to add to the answer); all rows and `{}` unpaged."""
    if page is None:
        return list(rows), {}
    shown, info = page.cut(rows)
    return shown, {"page": info}
