"""The Store owns the connection pool. Every other package receives a Store; only `store/`
writes SQL.

`open_store(settings)` resolves the URL (LEGAL_AI_DATABASE_URL, else the embedded server), creates
the `legal_ai` database if needed, migrates it, and returns a Store with pgvector registered on
every pooled connection. `open_store(settings, migrate=False)` (the MCP server: an agent-only
login may not migrate) writes nothing on opening: it creates no database and applies no
migration, and refuses in one line a database with migrations pending (store/migrations.check).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import psycopg
from pgvector.psycopg import register_vector
from psycopg import conninfo, sql
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from ..config import Settings
from ..errors import NotFound, StoreError
from ..logs import REQUEST_ID
from . import migrations
from .rows import Conn
from .server import start_embedded

logger = logging.getLogger(__name__)

DEFAULT_DATABASE = "legal_ai"
# The database roles a transaction runs as (migrations 0010, 0027; docs/security.md).
AGENT_ROLE = "legal_ai_agent"
CHAIR_ROLE = "legal_ai_chair"
WORKER_ROLE = "legal_ai_worker"
ROLES = (AGENT_ROLE, CHAIR_ROLE, WORKER_ROLE)
# The server went away (shut down, restarting, crashed) or refuses connections for now: 57P01-03.
_GONE = frozenset({"57P01", "57P02", "57P03"})
# How long `spare_connection` waits for a free one: a connection returned in the meantime, never
# a queue behind other callers.
SPARE_WAIT_S = 0.002


def connection_lost(exc: BaseException | None) -> bool:
    """Whether `exc` (or what caused it) is the database being out of reach rather than a
    statement's failure: a connection that failed or broke (libpq's own errors carry no
    SQLSTATE; class 08), a server shutting down or starting (57P01-03), or no connection to
    be had from the pool in time. The worker waits such an outage out (ops/worker.py)."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, PoolTimeout):
            return True
        if isinstance(exc, psycopg.OperationalError):
            state = exc.sqlstate
            if state is None or state.startswith("08") or state in _GONE:
                return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


# An HTTP request's lock_timeout and statement_timeout, in seconds, unless the settings say
# otherwise (LEGAL_AI_REQUEST_LOCK_TIMEOUT_S, LEGAL_AI_REQUEST_STATEMENT_TIMEOUT_S).
REQUEST_TIMEOUTS = (5.0, 30.0)


def bounded(conn: Conn, seconds: float) -> None:
    """This transaction's statements end after `seconds` (statement_timeout, SET LOCAL): a
    probe (/readyz, /metrics) answers in time even when the server is slow to."""
    conn.execute("SELECT set_config('statement_timeout', %s, true)", (f"{int(seconds * 1000)}ms",))


def server_url(settings: Settings) -> str:
    """URL of the server in use: the configured one, or the embedded server (started if needed)."""
    if settings.database_url:
        return settings.database_url
    return start_embedded(settings.pgdata)


def with_database(url: str, dbname: str) -> str:
    """The same server URL, pointing at another database."""
    params = conninfo.conninfo_to_dict(url)
    params["dbname"] = dbname
    return conninfo.make_conninfo("", **params)


def other_database(settings: Settings, dbname: str) -> str:
    """The URL of database `dbname` on the server in use (`legal-ai db url --database`);
    NotFound, naming it, when the server has none."""
    url = server_url(settings)
    with psycopg.connect(with_database(url, "postgres"), autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (dbname,)).fetchone()
    if not exists:
        raise NotFound(
            f"the server has no database {dbname!r} (`legal-ai demo` makes legal_ai_demo)"
        )
    return with_database(url, dbname)


def database_name(url: str) -> str | None:
    """The database a URL names (None: the login's default)."""
    name = conninfo.conninfo_to_dict(url).get("dbname")
    return None if name is None else str(name)


def ensure_database(url: str, dbname: str) -> str:
    """Create database `dbname` on the server of `url` if it does not exist; return its URL."""
    with psycopg.connect(with_database(url, "postgres"), autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (dbname,)).fetchone()
        if not exists:
            try:
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(dbname)))
            except psycopg.errors.DuplicateDatabase:
                pass  # another process created it first
    return with_database(url, dbname)


def drop_database(url: str, dbname: str, *, attempts: int = 5) -> None:
    """Drop `dbname`, ending its sessions. A login that is not a superuser may not end a session
    of another role (e.g. an autovacuum worker that just started on it): such a refusal is
    tried again, up to `attempts` times half a second apart, before it is raised."""
    statement = sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(dbname))
    for attempt in range(attempts):
        try:
            with psycopg.connect(with_database(url, "postgres"), autocommit=True) as conn:
                conn.execute(statement)
            return
        except psycopg.errors.InsufficientPrivilege:
            if attempt == attempts - 1:
                raise
            time.sleep(0.5)


def database_url(settings: Settings, *, create: bool = True) -> str:
    """The URL of the application database (embedded: database `legal_ai` on the server,
    created when missing unless `create` is false)."""
    url = server_url(settings)
    if settings.database_url:
        return url
    if create:
        return ensure_database(url, DEFAULT_DATABASE)
    return with_database(url, DEFAULT_DATABASE)


class Store:
    """A migrated database and its connection pool.

    `migrate=True` (the CLI, `legal-ai serve`, the worker: the application's login) applies the
    pending migrations on opening; `migrate=False` (the MCP server, any agent-only login) only
    checks them, read-only, and refuses a database with migrations pending (StoreError naming
    `legal-ai db migrate`)."""

    def __init__(
        self,
        url: str,
        *,
        max_size: int = 4,
        timeout: float = 30.0,
        migrate: bool = True,
        request_timeouts: tuple[float, float] | None = REQUEST_TIMEOUTS,
    ) -> None:
        self.url = url
        # (lock_timeout, statement_timeout) in seconds of an HTTP request's transactions (None:
        # unbounded); the worker and the CLI, outside a request, are never bound by them.
        self.request_timeouts = request_timeouts
        try:
            if migrate:
                migrations.migrate(url)
            else:
                migrations.check(url)
        except psycopg.OperationalError as exc:
            raise StoreError(f"cannot reach PostgreSQL at {_redact(url)}: {exc}") from exc
        self.pool: ConnectionPool[Conn] = ConnectionPool(
            url,
            connection_class=Conn,
            min_size=1,
            max_size=max_size,
            kwargs={"row_factory": dict_row, "prepare_threshold": None},
            configure=register_vector,
            timeout=timeout,  # a caller waits this long for a free connection (PoolTimeout)
            open=True,
        )

    role: str | None = None  # the database role this view's transactions run as

    def _request_bounds(self) -> tuple[str, str] | None:
        """Inside an HTTP request: its lock_timeout and statement_timeout, as PostgreSQL takes
        them; None outside one (the worker, the CLI)."""
        if self.request_timeouts is None or REQUEST_ID.get() is None:
            return None
        lock, statement = self.request_timeouts
        return f"{int(lock * 1000)}ms", f"{int(statement * 1000)}ms"

    def _bound(self, conn: Conn, local: bool) -> None:
        bounds = self._request_bounds()
        if bounds is not None:
            conn.execute(
                "SELECT set_config('lock_timeout', %s, %s), set_config('statement_timeout', %s, %s)",
                (bounds[0], local, bounds[1], local),
            )

    @contextmanager
    def connection(self, timeout: float | None = None) -> Iterator[Conn]:
        """A pooled connection (reads), running as this view's role; `timeout`: seconds to
        wait for one (PoolTimeout after), instead of the pool's LEGAL_AI_POOL_TIMEOUT_S."""
        with self.pool.connection(timeout=timeout) as conn:
            if self.role is not None:
                conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(self.role)))
            self._bound(conn, local=True)  # the reads' own transaction, until it ends
            try:
                yield conn
            finally:
                if self.role is not None and not conn.closed:
                    try:  # back to the login's role before the pool lends it again
                        conn.rollback()
                        conn.execute("RESET ROLE")
                        conn.commit()
                    except psycopg.Error:
                        conn.close()  # a broken connection: the pool replaces it

    @contextmanager
    def spare_connection(self) -> Iterator[Conn | None]:
        """A second pooled connection for a caller that already holds one (a search's semantic
        leg, run beside its lexical leg), as `connection` gives it — or None, at once, when
        taking it could make anyone wait: another caller is queued for a connection, or none is
        free within SPARE_WAIT_S (a pool below its size grows meanwhile, for the next caller).
        Never waits on a busy pool, so a caller holding one connection cannot deadlock on it."""
        with ExitStack() as stack:
            conn = None
            if not self.pool.get_stats().get("requests_waiting", 0):
                try:
                    conn = stack.enter_context(self.connection(timeout=SPARE_WAIT_S))
                except PoolTimeout:
                    conn = None
            yield conn

    @contextmanager
    def transaction(
        self, timeout: float | None = None, *, statements: float | None = None
    ) -> Iterator[Conn]:
        """A pooled connection inside one transaction (committed on exit, rolled back on error),
        running as this view's role: `SET LOCAL ROLE` ends with the transaction. Inside an HTTP
        request, the transaction carries its id (`legal_ai.request_id`, logs.py): the audit,
        search log and model-call rows it writes record it (migration 0031). `timeout`: as
        for `connection`; `statements`: each of its statements ends after so many seconds
        (`bounded`: a probe — /readyz, /metrics — answers in time when the server is slow)."""
        with self.pool.connection(timeout=timeout) as conn, conn.transaction():
            if self.role is not None:
                conn.execute(sql.SQL("SET LOCAL ROLE {}").format(sql.Identifier(self.role)))
            self._bound(conn, local=True)
            if statements is not None:
                bounded(conn, statements)
            request = REQUEST_ID.get()
            if request is not None:
                conn.execute("SELECT set_config('legal_ai.request_id', %s, true)", (request,))
            yield conn

    @contextmanager
    def reading(self, timeout: float | None = None) -> Iterator[Conn]:
        """A pooled connection in autocommit, running as this view's role: each statement is a
        transaction of its own, so nothing is held between the reads of a computation — an
        upload's copy check and analysis read what they compare with here, before their write
        transaction (pg_stat_activity shows the session `idle` while Python computes, never
        `idle in transaction`, and no lock outlives its statement). Inside an HTTP request each
        statement is bounded like a transaction's (`request_timeouts`). Never for writes."""
        with self.pool.connection(timeout=timeout) as conn:
            conn.autocommit = True
            try:
                if self.role is not None:
                    conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(self.role)))
                self._bound(conn, local=False)
                yield conn
            finally:
                if not conn.closed:
                    try:  # as the pool lent it: the login's role, no bounds, transactions
                        conn.execute("RESET ROLE")
                        conn.execute("RESET lock_timeout")
                        conn.execute("RESET statement_timeout")
                        conn.autocommit = False
                    except psycopg.Error:
                        conn.close()  # a broken connection: the pool replaces it

    @contextmanager
    def as_login(self, conn: Conn) -> Iterator[Conn]:
        """Inside a transaction of this view, the statements of the block run as the login's own
        role (the schema's owner: `legal-ai serve`, the CLI), then as this view's role again:
        what the server derives itself from what a request sent (the case's bookkeeping, the
        pair, the copy report of an agent's draft) is written with the same locks and in the
        same transaction, while the request's role may not write it (migration 0033). A login
        that is an agent's own (the MCP server) gains nothing: its own role is the agent's."""
        if self.role is None:
            yield conn
            return
        conn.execute("SET LOCAL ROLE NONE")
        try:
            yield conn
        finally:
            if (
                not conn.closed
                and conn.info.transaction_status != psycopg.pq.TransactionStatus.INERROR
            ):
                conn.execute(sql.SQL("SET LOCAL ROLE {}").format(sql.Identifier(self.role)))

    def as_role(self, role: str | None) -> Store:
        """A view of this store (same pool) whose connections run as database role `role`,
        or as the login's own role when the database has no such role (it could not be
        created: `roles_enforced` is then false and health says so)."""
        view = object.__new__(type(self))
        view.__dict__.update(self.__dict__)
        view.role = role if role and role in self.roles else None
        return view

    @property
    def roles(self) -> frozenset[str]:
        """The legal-ai roles this server has (`legal_ai_agent`, `legal_ai_chair`,
        `legal_ai_worker`)."""
        if "_roles" not in self.__dict__:
            with self.pool.connection() as conn:
                rows = conn.execute(
                    "SELECT rolname FROM pg_catalog.pg_roles WHERE rolname = ANY(%s)",
                    (list(ROLES),),
                ).fetchall()
            self.__dict__["_roles"] = frozenset(r["rolname"] for r in rows)
        return self.__dict__["_roles"]

    @property
    def roles_enforced(self) -> bool:
        return len(self.roles) == len(ROLES)

    def reachable(self, timeout: float) -> bool:
        """Whether the server answers now, within about `timeout` seconds: the pool's idle
        connections are checked first (those a restart broke are replaced), then one answers
        `SELECT 1`. Used by the worker to know an outage is over."""
        try:
            self.pool.check()
            with self.pool.connection(timeout=timeout) as conn:
                bounded(conn, timeout)
                conn.execute("SELECT 1")
            return True
        except (psycopg.Error, PoolTimeout):
            return False

    def close(self) -> None:
        self.pool.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_store(settings: Settings, *, migrate: bool = True) -> Store:
    """The application database's Store; `migrate=False`: checked, never written (Store)."""
    return Store(
        database_url(settings, create=migrate),
        max_size=settings.pool_max_size,
        timeout=settings.pool_timeout_s,
        migrate=migrate,
        request_timeouts=(settings.request_lock_timeout_s, settings.request_statement_timeout_s),
    )


def _redact(url: str) -> str:
    params = conninfo.conninfo_to_dict(url)
    if params.get("password"):
        params["password"] = "***"
    return conninfo.make_conninfo("", **params)
