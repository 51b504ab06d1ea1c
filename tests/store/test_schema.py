"""The migrations read as a whole: docs/schema.sql is the schema they make, and docs/gates.md
names every trigger in it.

A database of its own on the suite's server is migrated from nothing (a second or two) and
dumped as `scripts/schema --write` dumps it (legal_ai.store.schema_dump); the file must be that
dump. Every trigger of the schema (a partition's copy of its parent's counted once) must be named
in docs/gates.md as "`trigger` on `table`", each that can refuse (its function raises) in the
gates' table, and the page names no trigger the schema does not have.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator

import psycopg
import pytest

from helpers import ROOT, TEST_DB
from legal_ai.store import drop_database, ensure_database, migrations
from legal_ai.store.schema_dump import schema_sql

pytestmark = pytest.mark.db

SCHEMA = ROOT / "docs" / "schema.sql"
GATES = ROOT / "docs" / "gates.md"
REGENERATE = "`.venv/bin/python scripts/schema --write`"
NAMED = re.compile(r"`(\w+)` on `(\w+)`")
# Where the page's list of the triggers that refuse nothing begins.
BOOKKEEPING = "## Triggers that refuse nothing"

TRIGGERS = """
SELECT t.tgname AS name, c.relname AS table_name,
       p.prosrc ~* 'RAISE\\s+EXCEPTION' AS refuses
FROM pg_catalog.pg_trigger t
JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid
JOIN pg_catalog.pg_proc p ON p.oid = t.tgfoid
WHERE NOT t.tgisinternal AND t.tgparentid = 0
  AND c.relnamespace = current_schema()::regnamespace
ORDER BY 2, 1
"""


@pytest.fixture(scope="module")
def migrated(server_url) -> Iterator[str]:
    """A database migrated from nothing, for this module only."""
    name = f"{TEST_DB}_schema"
    drop_database(server_url, name)
    try:
        url = ensure_database(server_url, name)
        migrations.migrate(url)
        yield url
    finally:
        drop_database(server_url, name)


def test_schema_sql_is_what_the_migrations_make(migrated):
    have = schema_sql(migrated)
    assert "CREATE TABLE public.learning_audit" in have and "\\restrict" not in have
    want = SCHEMA.read_text(encoding="utf-8")
    if have != want:
        diff = list(
            difflib.unified_diff(
                want.splitlines(), have.splitlines(), "docs/schema.sql", "migrated", lineterm=""
            )
        )
        shown = "\n".join(diff[:80]) + (
            f"\n… {len(diff) - 80} more lines" if len(diff) > 80 else ""
        )
        raise AssertionError(
            f"docs/schema.sql differs from the schema the migrations make: regenerate it with "
            f"{REGENERATE} and commit the diff:\n{shown}"
        )


def named_in(text: str) -> set[tuple[str, str]]:
    return set(NAMED.findall(text))


def test_gates_md_names_every_trigger(migrated):
    with psycopg.connect(migrated) as conn:
        live = conn.execute(TRIGGERS).fetchall()
    page = GATES.read_text(encoding="utf-8")
    assert BOOKKEEPING in page
    gates_part, bookkeeping_part = page.split(BOOKKEEPING, 1)
    gates, bookkeeping = named_in(gates_part), named_in(bookkeeping_part)
    every = {(name, table) for name, table, _ in live}
    refusing = {(name, table) for name, table, refuses in live if refuses}
    assert len(refusing) > 40  # the query found the gates: the schema has ~50
    unnamed = sorted(every - gates - bookkeeping)
    assert not unnamed, (
        f"docs/gates.md does not name these triggers (add each as `trigger` on `table`: a gate "
        f"to the gates' table with its rule, migration and test): {unnamed}"
    )
    misplaced = sorted(refusing - gates)
    assert not misplaced, f"these triggers refuse: list them among the gates: {misplaced}"
    stale = sorted((gates | bookkeeping) - every)
    assert not stale, f"docs/gates.md names triggers the migrations do not make: {stale}"
