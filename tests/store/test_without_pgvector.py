"""A PostgreSQL server without pgvector (issue 32 item 3): Debian's own PostgreSQL 15, as an
office installs it from Debian 12, ships no pgvector. Against such a server every command says so
in one line naming the package to install, with exit code 4 (`db migrate`, its `--dry-run`,
`search`, `serve`), the doctor in its pgvector line, and nothing is written to the database. (And
on the test server, which offers pgvector: a database without it and a login that may not create
it are told that a superuser must.)

The server is real: a throwaway cluster of Debian's PostgreSQL 15 binaries (/usr/lib/postgresql/
15/bin), made with initdb in a temporary folder and reached only on a Unix socket there; as root
it runs as the system user `pgserver` (as scripts/second-postgres and the embedded server do).
Skipped where those binaries are not installed, or where they do offer pgvector."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import conninfo

from helpers import run
from legal_ai.errors import StoreError
from legal_ai.store import migrations
from legal_ai.store.db import drop_database, with_database

BIN = Path("/usr/lib/postgresql/15/bin")
SYSTEM_USER = "pgserver"
PACKAGE = "postgresql-15-pgvector"
AGENT_TOKEN = "an-agent-token-long-enough-for-the-doctor"


def _system_user() -> pwd.struct_passwd | None:
    """As root: the unprivileged user PostgreSQL runs as (made if missing); else None."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam(SYSTEM_USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "-s", "/usr/sbin/nologin", SYSTEM_USER], check=True)
        return pwd.getpwnam(SYSTEM_USER)


def _pg(program: str, *args: str, user: pwd.struct_passwd | None) -> None:
    kwargs = {} if user is None else {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
    done = subprocess.run(
        [str(BIN / program), *args], capture_output=True, text=True, cwd="/", timeout=120, **kwargs
    )
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.fixture(scope="module")
def server_without_pgvector() -> Iterator[str]:
    """The URL of database `legal_ai` on a fresh PostgreSQL 15 without pgvector."""
    if not (BIN / "initdb").exists():
        pytest.skip(f"Debian's PostgreSQL 15 is not installed ({BIN}: apt install postgresql-15)")
    if Path("/usr/share/postgresql/15/extension/vector.control").exists():
        pytest.skip(f"this machine's PostgreSQL 15 has pgvector ({PACKAGE} is installed)")
    user = _system_user()
    folder = Path(tempfile.mkdtemp(prefix="legal-ai-nopgv-"))  # short: the socket lives in it
    data, socket = folder / "data", folder / "socket"
    for path in (data, socket):
        path.mkdir(mode=0o700)
    if user is not None:
        for path in (folder, data, socket):
            os.chown(path, user.pw_uid, user.pw_gid)
    try:
        _pg("initdb", "-D", str(data), "-U", "postgres", "--auth=trust", "--no-sync",
            "--encoding=UTF8", "--locale=C.UTF-8", user=user)  # fmt: skip
        with (data / "postgresql.conf").open("a", encoding="utf-8") as conf:
            conf.write(
                f"listen_addresses = ''\nunix_socket_directories = '{socket}'\nfsync = off\n"
            )
        _pg("pg_ctl", "-D", str(data), "-l", str(folder / "log"), "-w", "start", user=user)
        admin = conninfo.make_conninfo(host=str(socket), user="postgres", dbname="postgres")
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute("CREATE DATABASE legal_ai")
        yield conninfo.make_conninfo(host=str(socket), user="postgres", dbname="legal_ai")
    finally:
        if (data / "postmaster.pid").exists():
            _pg("pg_ctl", "-D", str(data), "-m", "immediate", "-w", "stop", user=user)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def env(server_without_pgvector, tmp_path) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("LEGAL_AI_", "PG"))}
    return {
        **keep,
        "LEGAL_AI_HOME": str(tmp_path / "home"),
        "LEGAL_AI_DATABASE_URL": server_without_pgvector,
        "LEGAL_AI_AGENT_TOKEN": AGENT_TOKEN,
    }


def _schema_untouched(url: str) -> None:
    with psycopg.connect(url) as conn:
        tables = conn.execute(
            "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = 'public'"
        ).fetchone()[0]
    assert tables == 0, "nothing was created: no schema_migrations, no table"


@pytest.mark.parametrize(
    "command",
    [
        ["db", "migrate"],
        ["db", "migrate", "--dry-run"],
        ["search", "היתר בנייה", "--corpus", "external"],
        ["serve", "--port", "0"],
    ],
    ids=["migrate", "dry-run", "search", "serve"],
)
def test_every_command_says_what_to_install_in_one_line(env, command, server_without_pgvector):
    result = run(env, *command, check=False)
    lines = result.stderr.splitlines()
    assert (result.returncode, len(lines)) == (4, 1), result.stderr[-3000:]
    (line,) = lines
    assert line.startswith("error: the database server (PostgreSQL 15) has no pgvector"), line
    assert PACKAGE in line and "apt.postgresql.org" in line and "docs/deployment.md" in line
    assert "Traceback" not in result.stderr and "would apply" not in result.stdout
    _schema_untouched(server_without_pgvector)


def test_doctor_names_it_in_its_pgvector_line(env):
    result = run(env, "doctor", "--offline", check=False)
    assert result.returncode == 1, result.stderr[-3000:]
    (line,) = [row for row in result.stdout.splitlines() if row.split()[1:2] == ["pgvector"]]
    assert line.startswith("error") and "has no pgvector" in line and PACKAGE in line
    assert "Traceback" not in result.stderr


NO_VECTOR_DB = "legal_ai_novector_test"
NO_VECTOR_LOGIN = "legal_ai_novector_test"


@pytest.mark.db
def test_a_login_that_may_not_create_pgvector_is_told_who_may(server_url):
    """A server that offers pgvector, a database without it (made from template0) and its owner,
    a login that is not a superuser: migrate and plan (`db migrate`, its `--dry-run`) say in one
    line that a superuser must create it, instead of migration 0001's privilege error."""
    with psycopg.connect(server_url, autocommit=True) as conn:
        superuser = "SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user"
        if not conn.execute(superuser).fetchone()[0]:
            pytest.skip("needs a superuser on the test server to make the login and database")
        conn.execute(
            f"DO $$ BEGIN CREATE ROLE {NO_VECTOR_LOGIN} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE;"
            " EXCEPTION WHEN duplicate_object THEN NULL; END $$"
        )
    drop_database(server_url, NO_VECTOR_DB)
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {NO_VECTOR_DB} OWNER {NO_VECTOR_LOGIN} TEMPLATE template0")
    params = conninfo.conninfo_to_dict(with_database(server_url, NO_VECTOR_DB))
    url = conninfo.make_conninfo(**{**params, "user": NO_VECTOR_LOGIN})
    try:
        for attempt in (migrations.migrate, migrations.plan):
            with pytest.raises(StoreError) as caught:
                attempt(url)
            said = str(caught.value)
            assert said.startswith(
                f"pgvector is not created in database {NO_VECTOR_DB} and login "
                f"{NO_VECTOR_LOGIN} may not create it (only a superuser may)"
            ), said
            assert "CREATE EXTENSION vector in template1" in said and "\n" not in said
            assert caught.value.exit_code == 4
        _schema_untouched(url)
    finally:
        drop_database(server_url, NO_VECTOR_DB)
