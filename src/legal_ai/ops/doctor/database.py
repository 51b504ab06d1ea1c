"""The doctor's database checks: reachable (and PostgreSQL new enough), pgvector's version, the
roles in force, TLS on a network URL, the chair's desk password, migrations pending. One
read-only connection (store/deployment.py); the doctor never migrates, creates or grants."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import psycopg
from psycopg import conninfo

from ...config import Settings
from ...errors import AppError
from ...store import database_url
from ...store import deployment as facts_of
from ...store.db import ROLES
from ...store.extension import missing_pgvector
from ...store.migrations import available
from .finding import Finding, error, ok, skip, warn

MIN_POSTGRES = 150000  # PostgreSQL 15 (docs/deployment.md)
# pgvector 0.8.0 brought hnsw.iterative_scan, which every filtered semantic search sets
# (retrieval/legs.py).
MIN_VECTOR = (0, 8, 0)
LOOPBACK = ("localhost", "::1")
ROLES_DOC = "docs/deployment.md, 'Roles and logins'"
MIGRATE = "run `legal-ai db migrate` with the application's login"
# What `checks` returns after "database", in its order.
NEEDS = ("pgvector", "roles", "tls", "desk_password", "migrations")


def checks(settings: Settings, environ: Mapping[str, str]) -> list[Finding]:
    """database, pgvector, roles, tls, desk_password, migrations — in that order."""
    embedded = is_embedded(settings)
    if not settings.database_url and not (settings.pgdata / "PG_VERSION").exists():
        fault = error(
            "database",
            f"no embedded database in {settings.pgdata} (LEGAL_AI_HOME) and no "
            "LEGAL_AI_DATABASE_URL",
            "run `legal-ai db migrate` (it creates the embedded database), or set "
            "LEGAL_AI_HOME / LEGAL_AI_DATABASE_URL as the service has them",
        )
        return _unreached(fault, tls("", None, environ))
    try:
        url = database_url(settings, create=False)  # the embedded server starts if it must
    except AppError as exc:
        fault = error("database", str(exc), "see the server's log, or set LEGAL_AI_DATABASE_URL")
        return _unreached(fault, tls(settings.database_url or "", None, environ))
    try:
        conn = facts_of.connect(url)
    except psycopg.Error as exc:
        fix = (
            "run `legal-ai db migrate` (it creates the database), or see HOME/pgdata/log"
            if embedded
            else "check LEGAL_AI_DATABASE_URL (host, port, database, login, password) and that "
            "the server lets this host in (pg_hba.conf)"
        )
        fault = error("database", f"{where(url, embedded)}: {_line(exc)}", fix)
        return _unreached(fault, tls(url, None, environ))
    with conn:
        server = facts_of.server(conn)
        return [
            reachable(server, url, embedded),
            guarded("pgvector", lambda: pgvector(server)),
            guarded("roles", lambda: roles(facts_of.roles(conn), server, embedded)),
            tls(url, server, environ),
            guarded("desk_password", lambda: desk_password(facts_of.desk_password(conn))),
            guarded("migrations", lambda: migrations(facts_of.recorded_migrations(conn))),
        ]


def is_embedded(settings: Settings) -> bool:
    """The embedded server of LEGAL_AI_HOME: no URL, or a URL to its own socket (what `legal-ai
    db url` prints, given as LEGAL_AI_DATABASE_URL)."""
    if not settings.database_url:
        return True
    host = str(conninfo.conninfo_to_dict(settings.database_url).get("host") or "")
    pgdata = settings.pgdata.expanduser().resolve()
    return host.startswith("/") and Path(host).expanduser().resolve() == pgdata


def _unreached(fault: Finding, tls_finding: Finding) -> list[Finding]:
    """The database's fault, the checks it leaves undone, and TLS (read from the URL alone)."""
    undone = {name: skip(name, "not checked: the database is not reachable") for name in NEEDS}
    undone["tls"] = tls_finding
    return [fault, *undone.values()]


def guarded(check: str, judge: Callable[[], Finding]) -> Finding:
    """A check whose query failed is that check's error, never the doctor's crash."""
    try:
        return judge()
    except psycopg.Error as exc:
        return error(check, f"could not be read: {_line(exc)}", MIGRATE)


def _line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def where(url: str, embedded: bool) -> str:
    """The database as the engineer names it, never with its password."""
    params = conninfo.conninfo_to_dict(url)
    database = params.get("dbname", "?")
    if embedded:
        return f"database {database} on the embedded server"
    host = params.get("host") or params.get("hostaddr") or "the local socket"
    port = f":{params['port']}" if params.get("port") else ""
    return f"database {database} at {host}{port} as {params.get('user', 'the default login')}"


def reachable(server: dict, url: str, embedded: bool) -> Finding:
    text = f"PostgreSQL {server['version_text']}, {where(url, embedded)}"
    if server["version"] < MIN_POSTGRES:
        return error("database", f"{text}: older than 15", "upgrade the server to PostgreSQL 15+")
    return ok("database", f"reachable: {text}")


def _version(text: str | None) -> tuple[int, ...]:
    parts = []
    for part in (text or "").split("."):
        digits = "".join(c for c in part if c.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


def pgvector(server: dict) -> Finding:
    installed, offered = server["vector"], server["vector_available"]
    least = ".".join(map(str, MIN_VECTOR))
    missing = missing_pgvector(
        {
            "major": server["version"] // 10000,
            "database": server["database"],
            "login": server["login"],
            "superuser": server["superuser"],
            "created": installed is not None,
            "offered": offered is not None,
        }
    )
    if missing is not None:  # the words every migrating command says (store/extension.py)
        return error("pgvector", *missing)
    if installed is None:
        return error(
            "pgvector",
            f"not created in database {server['database']} (the server offers {offered or 'none'})",
            "as a superuser: CREATE EXTENSION vector in this database and in template1 "
            "(docs/deployment.md); install pgvector on the server if it offers none",
        )
    if _version(installed) < MIN_VECTOR:
        return error(
            "pgvector",
            f"{installed} is older than {least} (filtered searches set hnsw.iterative_scan)",
            "as a superuser: ALTER EXTENSION vector UPDATE"
            + ("" if _version(offered) >= MIN_VECTOR else f" after installing pgvector {least}+"),
        )
    return ok("pgvector", f"{installed} (at least {least})")


def roles(found: dict, server: dict, embedded: bool) -> Finding:
    """Roles in force: they exist, the login may act as each and is not a superuser (on the
    embedded server it is one: a caveat), the agent reads the library and may not change what
    the chair gates."""
    login = server["login"]
    faults: list[tuple[str, str]] = []
    if found["missing"]:
        fix = (
            f"{MIGRATE} (the embedded server's login creates them)"
            if embedded
            else f"as a superuser create them ({ROLES_DOC}), then {MIGRATE}"
        )
        faults.append((f"role(s) {', '.join(found['missing'])} do not exist", fix))
    if server["superuser"] and not embedded:
        faults.append(
            (
                f"the application's login {login} is a superuser: the gates do not bind it",
                f"connect as a login that is not a superuser (legal_ai_app, {ROLES_DOC})",
            )
        )
    if found["login_lacks"]:
        lacks = ", ".join(found["login_lacks"])
        faults.append(
            (f"login {login} may not act as {lacks}", f"as a superuser: GRANT {lacks} TO {login}")
        )
    if found["chair_is_agent"] is False:
        faults.append(
            (
                "legal_ai_chair is not a member of legal_ai_agent",
                "as a superuser: GRANT legal_ai_agent TO legal_ai_chair",
            )
        )
    faults += _grant_faults(found)
    if faults:
        fixes = list(dict.fromkeys(fix for _, fix in faults))
        return error("roles", "; ".join(m for m, _ in faults), "; ".join(fixes))
    names = ", ".join(ROLES)
    if server["superuser"]:
        return warn(
            "roles",
            f"{names} exist and every request runs as its role, but the embedded server's "
            f"login ({login}) is a superuser: whoever holds its URL can bypass the gates with SQL",
            "keep the embedded URL from agents; for gates enforced against SQL too, use a "
            "separate server with a login that is not a superuser (docs/security.md)",
        )
    return ok(
        "roles",
        f"{names} in force: login {login} is not a superuser and acts as each; the agent reads "
        "the library and may not change what the chair gates",
    )


def _grant_faults(found: dict) -> list[tuple[str, str]]:
    fix = f"{MIGRATE} (it grants the roles their privileges again)"
    faults = []
    if found["absent"]:
        faults.append(("the schema is not migrated: the roles' grants are not in force", MIGRATE))
    elif found["schema_usage"] is False or found["unreadable"]:
        what = ", ".join(found["unreadable"]) or "the schema"
        faults.append((f"legal_ai_agent may not read {what}: its grants are missing", fix))
    if found["too_broad"]:
        faults.append(
            (
                "legal_ai_agent holds what only the chair or no one may: "
                + ", ".join(found["too_broad"]),
                fix,
            )
        )
    return faults


def tls(url: str, server: dict | None, environ: Mapping[str, str]) -> Finding:
    """A network URL should encrypt (sslmode=require or verify-*); a socket or loopback needs
    nothing."""
    if not url:
        return ok("tls", "the embedded server's socket: TLS not needed")
    params = conninfo.conninfo_to_dict(url)
    hosts = str(params.get("host") or params.get("hostaddr") or environ.get("PGHOST") or "").split(
        ","
    )
    remote = [h for h in hosts if h and not h.startswith("/") and not _loopback(h)]
    if not remote:
        return ok("tls", "local connection (socket or loopback): TLS not needed")
    mode = params.get("sslmode") or environ.get("PGSSLMODE") or "prefer"
    session = ""
    if server is not None:
        session = f"; this session is {'encrypted' if server['ssl'] else 'NOT encrypted'}"
    if mode == "verify-full":
        return ok("tls", f"sslmode=verify-full to {', '.join(remote)}{session}")
    if mode in ("require", "verify-ca"):
        return ok(
            "tls",
            f"sslmode={mode} to {', '.join(remote)}{session} (verify-full also checks the "
            "server's name)",
        )
    return warn(
        "tls",
        f"sslmode={mode} to {', '.join(remote)}: the connection may go unencrypted{session}",
        "add sslmode=verify-full (with sslrootcert=...) or sslmode=require to "
        "LEGAL_AI_DATABASE_URL",
    )


def _loopback(host: str) -> bool:
    return host in LOOPBACK or host.startswith("127.")


def desk_password(found: dict | None) -> Finding:
    if found is None:
        return error(
            "desk_password",
            "the chair has no desk password: she cannot sign in to the desk",
            "legal-ai user set-password chair",
        )
    return ok("desk_password", f"set (last changed {found['updated_at']:%Y-%m-%d})")


def migrations(recorded: dict[int, str]) -> Finding:
    shipped = available()
    pending = [f"{m.version:04d}_{m.name}" for m in shipped if m.version not in recorded]
    known = {m.version for m in shipped}
    unknown = [f"{v:04d}_{name}" for v, name in recorded.items() if v not in known]
    if pending:
        return error(
            "migrations",
            f"{len(pending)} pending: {', '.join(pending)}",
            f"{MIGRATE} (until then `legal-ai mcp` refuses the database)",
        )
    if unknown:
        return warn(
            "migrations",
            f"the database has migrations this release does not ship: {', '.join(unknown)}",
            "run the legal-ai release that applied them (an older one runs against a newer schema)",
        )
    last = shipped[-1]
    return ok(
        "migrations", f"up to date: {len(shipped)} applied, the last {last.version:04d}_{last.name}"
    )
