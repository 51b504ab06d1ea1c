"""Storage adapter: the embedded server, migrations, the pool, and all SQL."""

from .db import Store, database_url, drop_database, ensure_database, open_store, server_url
from .server import start_embedded, stop_embedded


def jsonable(row: dict) -> dict:
    """A database row as JSON-ready values (dates and times as ISO strings)."""
    return {k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in row.items()}


__all__ = [
    "Store",
    "database_url",
    "drop_database",
    "jsonable",
    "ensure_database",
    "open_store",
    "server_url",
    "start_embedded",
    "stop_embedded",
]
