"""The schema the migrations make, as one readable file (docs/schema.sql, `scripts/schema`).

`schema_sql(url)` is `pg_dump --schema-only --no-owner --no-privileges` of a database (the
embedded package's PostgreSQL 18 client, store/pg_programs.py), made stable from run to run: the
lines that change with the dump and not with the schema — the random `\\restrict` key, the
server's and pg_dump's versions, the session's `SET`s — are left out, and runs of blank lines are
one. The grants are not in it (tests/store/data/grants.txt lists them); the triggers that refuse
are read one by one in docs/gates.md.
"""

from __future__ import annotations

import re

from ..errors import StoreError
from .pg_programs import one_line, run, split

HEADER = (
    "-- The schema of a database migrated from nothing (src/legal_ai/store/migrations/), as\n"
    "-- pg_dump --schema-only writes it. Generated, not edited: `scripts/schema --write`\n"
    "-- regenerates it; tests/store/test_schema.py fails when it differs from the migrations.\n"
)
# What varies with the run, the server or pg_dump, not with the schema.
_VARYING = re.compile(
    r"^(\\restrict .*|\\unrestrict .*|-- Dumped (from database|by pg_dump) version .*"
    r"|SET \w+ = .*;|SELECT pg_catalog\.set_config\(.*\);)$"
)


def normalize(dump: str) -> str:
    """`dump` without the lines that vary from run to run, blank runs as one blank line."""
    kept = [line.rstrip() for line in dump.splitlines() if not _VARYING.match(line)]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip("\n")
    return HEADER + "\n" + text + "\n"


def schema_sql(url: str) -> str:
    """The normalized schema-only dump of the database of `url`."""
    target, env = split(url)
    done = run("pg_dump", ["--schema-only", "--no-owner", "--no-privileges", target], env)
    if done.returncode != 0:
        raise StoreError(f"pg_dump failed: {one_line(done.stderr)}")
    return normalize(done.stdout)
