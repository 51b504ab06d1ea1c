"""Every privilege the legal-ai roles hold, against the reviewed list (issue 31 item 1).

A freshly migrated database's grants — per role × table × privilege (column grants with their
columns), per sequence, per function × EXECUTE grantee (PUBLIC included) and the default
privileges the schema's owner leaves to new objects — are listed one sorted line each and
compared with tests/store/data/grants.txt. A grant added, dropped or widened by a migration is a
reviewed diff of that file. After a deliberate change, regenerate it:

    .venv/bin/python tests/store/test_grants.py --write

(on the suite's embedded server, in a scratch database of its own, dropped after).
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

import psycopg

EXPECTED = Path(__file__).parent / "data" / "grants.txt"
ROLES = ("legal_ai_agent", "legal_ai_chair", "legal_ai_worker")

# One line per privilege of the three roles (and of PUBLIC on the schema's functions), the
# schema's own objects only (not an extension's).
GRANTS = """
WITH own_class AS (
    SELECT c.oid, c.relname, c.relkind, c.relacl FROM pg_catalog.pg_class c
    WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'S')
      AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend d
                      WHERE d.classid = 'pg_catalog.pg_class'::regclass AND d.objid = c.oid
                        AND d.deptype = 'e')
), own_proc AS (
    SELECT p.oid, p.oid::regprocedure::text AS signature, p.proacl, p.proowner
    FROM pg_catalog.pg_proc p
    WHERE p.pronamespace = current_schema()::regnamespace
      AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend d
                      WHERE d.classid = 'pg_catalog.pg_proc'::regclass AND d.objid = p.oid
                        AND d.deptype = 'e')
), grantee_name AS (
    SELECT oid, rolname FROM pg_catalog.pg_roles WHERE rolname = ANY (%(roles)s)
    UNION ALL SELECT 0, 'PUBLIC'
)
SELECT CASE c.relkind WHEN 'S' THEN 'sequence' ELSE 'table' END || ' ' || c.relname || ' '
       || g.rolname || ' ' || a.privilege_type AS line
FROM own_class c, aclexplode(c.relacl) a JOIN grantee_name g ON g.oid = a.grantee
UNION ALL
SELECT 'column ' || c.relname || '(' || string_agg(t.attname, ',' ORDER BY t.attname) || ') '
       || g.rolname || ' ' || a.privilege_type
FROM own_class c
JOIN pg_catalog.pg_attribute t ON t.attrelid = c.oid AND t.attnum > 0 AND NOT t.attisdropped
CROSS JOIN LATERAL aclexplode(t.attacl) a JOIN grantee_name g ON g.oid = a.grantee
GROUP BY c.relname, g.rolname, a.privilege_type
UNION ALL
SELECT 'function ' || p.signature || ' ' || g.rolname || ' ' || a.privilege_type
FROM own_proc p,
     aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
JOIN grantee_name g ON g.oid = a.grantee
UNION ALL
SELECT 'default ' || CASE d.defaclobjtype WHEN 'r' THEN 'tables' WHEN 'S' THEN 'sequences'
                      WHEN 'f' THEN 'functions' ELSE d.defaclobjtype::text END
       || CASE WHEN d.defaclnamespace = 0 THEN '' ELSE ' in-schema' END
       || ' ' || g.rolname || ' ' || a.privilege_type
FROM pg_catalog.pg_default_acl d, aclexplode(d.defaclacl) a
JOIN grantee_name g ON g.oid = a.grantee
WHERE d.defaclnamespace IN (0, current_schema()::regnamespace)
ORDER BY 1
"""


def live_grants(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        return [r[0] for r in conn.execute(GRANTS, {"roles": list(ROLES)})]


def test_the_grants_are_the_reviewed_list(app, db_url):
    have = live_grants(db_url)
    assert any(line.startswith("table ") for line in have), "no grant found: roles missing?"
    want = EXPECTED.read_text(encoding="utf-8").splitlines()
    if have != want:
        diff = "\n".join(
            difflib.unified_diff(want, have, "tests/store/data/grants.txt", "live", lineterm="")
        )
        raise AssertionError(
            "the roles' privileges differ from the reviewed list (a deliberate change: "
            "regenerate with `.venv/bin/python tests/store/test_grants.py --write` and review "
            f"the diff):\n{diff}"
        )


def test_the_agent_writes_only_its_proposals_telemetry_and_drafts(db_url, app):
    writes = {
        line.split()[1]
        for line in live_grants(db_url)
        if " legal_ai_agent " in line
        and line.split()[-1] in ("INSERT", "UPDATE", "DELETE")
        and line.startswith(("table ", "column "))
    }
    assert writes == {
        "chair_feedback",
        "decision_lessons",
        "drafts",
        "jobs",
        "learning_audit",
        "search_log",
    }
    agent_lines = [line for line in live_grants(db_url) if " legal_ai_agent " in line]
    assert not [line for line in agent_lines if line.endswith((" UPDATE", " DELETE", " TRUNCATE"))]
    assert not [
        line
        for line in live_grants(db_url)
        if "schema_migrations" in line and not line.endswith(" SELECT")
    ]


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(f"usage: {sys.argv[0]} --write   (records the grants of a fresh database)")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from helpers import TEST_HOME
    from legal_ai.store import migrations
    from legal_ai.store.db import drop_database, ensure_database
    from legal_ai.store.server import start_embedded

    server = start_embedded(TEST_HOME / "pgdata")
    scratch = "legal_ai_grants_snapshot"
    drop_database(server, scratch)
    try:
        url = ensure_database(server, scratch)
        migrations.migrate(url)
        lines = live_grants(url)
    finally:
        drop_database(server, scratch)
    EXPECTED.parent.mkdir(parents=True, exist_ok=True)
    EXPECTED.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(lines)} grants to {EXPECTED}")
