"""Storage adapter: the embedded server, migrations, the pool, and all SQL."""

from .db import Store, database_url, drop_database, ensure_database, open_store, server_url
from .server import start_embedded, stop_embedded

__all__ = [
    "Store",
    "database_url",
    "drop_database",
    "ensure_database",
    "open_store",
    "server_url",
    "start_embedded",
    "stop_embedded",
]
