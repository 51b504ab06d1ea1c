"""What `legal-ai doctor` reads from the database server (ops/doctor.py judges it): the server's
version and pgvector's, the login and whether it is a superuser, whether the session is
encrypted, the legal-ai roles and the privileges they hold in this database, the chair's desk
password, and the migrations the database records. Read only: nothing here writes, creates or
grants (the doctor never changes what it examines)."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.rows import dict_row

from .db import AGENT_ROLE, CHAIR_ROLE, ROLES
from .rows import Conn, one

# An agent's request must read these (every table is granted it: apply_role_grants, 0010)...
AGENT_READS = ("documents", "case_law", "decision_lessons", "case_law_principles")
# ...and must not change these: what only the chair changes, and append-only tables
# (0010, 0027). A privilege found here means the grants of a later migration were undone.
AGENT_MAY_NOT = (
    ("methodology_profiles", "UPDATE"),
    ("methodology_profile_versions", "INSERT"),
    ("learning_audit", "DELETE"),
    ("item_versions", "UPDATE"),
    ("decision_lessons", "DELETE"),
)


def connect(url: str, timeout_s: int = 10) -> Conn:
    """A read-only autocommit connection, rows as dicts (OperationalError when unreachable)."""
    conn = psycopg.connect(url, autocommit=True, row_factory=dict_row, connect_timeout=timeout_s)
    conn.execute("SET default_transaction_read_only = on")
    return conn


def server(conn: Conn) -> dict:
    """{"version" (e.g. 180004), "version_text", "database", "login", "superuser", "ssl",
    "vector" (pgvector's installed version or None), "vector_available" (the server's)}."""
    row = one(
        conn.execute(
            "SELECT current_setting('server_version_num')::int AS version,"
            " current_setting('server_version') AS version_text,"
            " current_database() AS database, session_user AS login,"
            " (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = session_user) AS superuser,"
            " COALESCE((SELECT ssl FROM pg_catalog.pg_stat_ssl WHERE pid = pg_backend_pid()),"
            " false) AS ssl,"
            " (SELECT extversion FROM pg_catalog.pg_extension WHERE extname = 'vector') AS vector,"
            " (SELECT default_version FROM pg_catalog.pg_available_extensions"
            "  WHERE name = 'vector') AS vector_available"
        )
    )
    return dict(row)


def roles(conn: Conn) -> dict:
    """The legal-ai roles here: {"missing": [role...], "login_lacks": [roles the login may not
    SET ROLE to], "chair_is_agent": bool|None, "schema_usage": bool|None, "unreadable":
    [tables of AGENT_READS the agent may not read], "absent": [those not in the schema: not
    migrated], "too_broad": ["UPDATE on methodology_profiles", ...]}. Without the agent role the
    privilege fields are None or empty."""
    present = {
        r["rolname"]
        for r in conn.execute(
            "SELECT rolname FROM pg_catalog.pg_roles WHERE rolname = ANY(%s)", (list(ROLES),)
        )
    }
    out: dict = {
        "missing": [r for r in ROLES if r not in present],
        "login_lacks": [
            role
            for role in ROLES
            if role in present
            and not one(
                conn.execute("SELECT pg_has_role(session_user, %s, 'MEMBER') AS m", (role,))
            )["m"]
        ],
        "chair_is_agent": None,
        "schema_usage": None,
        "unreadable": [],
        "absent": [],
        "too_broad": [],
    }
    if AGENT_ROLE not in present:
        return out
    if CHAIR_ROLE in present:
        out["chair_is_agent"] = one(
            conn.execute("SELECT pg_has_role(%s, %s, 'MEMBER') AS m", (CHAIR_ROLE, AGENT_ROLE))
        )["m"]
    out["schema_usage"] = one(
        conn.execute(
            "SELECT has_schema_privilege(%s, current_schema(), 'USAGE') AS u", (AGENT_ROLE,)
        )
    )["u"]
    for table in AGENT_READS:
        if not _exists(conn, table):
            out["absent"].append(table)
        elif not _may(conn, table, "SELECT"):
            out["unreadable"].append(table)
    for table, privilege in AGENT_MAY_NOT:
        if _exists(conn, table) and _may(conn, table, privilege):
            out["too_broad"].append(f"{privilege} on {table}")
    return out


def login_is_agent(conn: psycopg.Connection[Any]) -> bool:
    """Whether the session's login is an agent's only (a member of legal_ai_agent that can
    become neither the chair nor the worker: `acting_as_agent()` of migration 0027, asked as the
    login itself). The application's login and a superuser are not."""
    row = one(conn.execute("SELECT session_user = current_user AND acting_as_agent() AS agent"))
    return bool(row["agent"] if isinstance(row, dict) else row[0])


def _exists(conn: Conn, table: str) -> bool:
    return one(conn.execute("SELECT to_regclass(%s) IS NOT NULL AS e", (table,)))["e"]


def _may(conn: Conn, table: str, privilege: str) -> bool:
    return one(
        conn.execute(
            "SELECT has_table_privilege(%s, to_regclass(%s), %s) AS p",
            (AGENT_ROLE, table, privilege),
        )
    )["p"]


def desk_password(conn: Conn, name: str = "chair") -> dict | None:
    """{"updated_at"} of the desk user `name` with a password, None when there is none (or the
    table is not there yet)."""
    if not _exists(conn, "desk_users"):
        return None
    return conn.execute("SELECT updated_at FROM desk_users WHERE name = %s", (name,)).fetchone()


def recorded_migrations(conn: Conn) -> dict[int, str]:
    """version -> name of every migration the database records ({} before the first)."""
    if not _exists(conn, "schema_migrations"):
        return {}
    rows = conn.execute("SELECT version, name FROM schema_migrations ORDER BY version")
    return {r["version"]: r["name"] for r in rows}
