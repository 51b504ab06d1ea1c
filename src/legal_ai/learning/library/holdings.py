"""What the library holds, by kind and year (the corpus view's one read, store/holdings.py):
rulings, statutes (as laws and as sections), the committee's decisions, her signed finals,
digests, and what the search does not reach yet."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...store import holdings as store

if TYPE_CHECKING:
    from ...context import Context


def holdings(ctx: Context) -> list[dict]:
    """Each kind's total row and its per-year rows (store/holdings.holdings)."""
    with ctx.store.connection() as conn:
        return [dict(row) for row in store.holdings(conn)]
