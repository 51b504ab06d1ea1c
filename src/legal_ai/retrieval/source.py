"""One searchable item as its source page shows it: its text and the pages kept as images
(store/review_queue.item_text and page_images), read in one connection."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..store import review_queue as store

if TYPE_CHECKING:
    from ..context import Context
    from ..corpora import Corpus


def item_with_pages(ctx: Context, corpus: Corpus, doc_id: str) -> tuple[dict | None, list[int]]:
    """(the item with its text, or None when the corpus holds no such document; its page
    numbers kept as images)."""
    with ctx.store.connection() as conn:
        item = store.item_text(conn, corpus, doc_id)
        images = store.page_images(conn, corpus, item["id"]) if item else []
    return item, images
