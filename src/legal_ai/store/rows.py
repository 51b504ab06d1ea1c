"""What the store's connections hand out, typed: `Conn`, the pool's connection whose rows are
dicts keyed by column name, and `one`, the row of a statement that always returns one."""

from __future__ import annotations

from typing import TypeVar

import psycopg
from psycopg.rows import DictRow

from ..errors import StoreError

# What the Store's pool lends (store/db.py): a connection whose rows are dicts keyed by column
# name (`row["id"]`). Every function that takes a pooled connection says so with this type; a
# connection of psycopg.connect() without a row factory is a plain `psycopg.Connection` (tuples).
Conn = psycopg.Connection[DictRow]
R = TypeVar("R")


def one(cursor: psycopg.Cursor[R]) -> R:
    """The row of a statement that always returns one (an INSERT ... RETURNING, an aggregate,
    a row locked or checked just before): StoreError, naming none, if it returned none."""
    row = cursor.fetchone()
    if row is None:
        raise StoreError("the statement returned no row")
    return row
