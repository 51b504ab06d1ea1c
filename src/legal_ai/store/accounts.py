"""SQL of the desk's accounts (migration 0014): password hashes, sessions (by the SHA-256 of
their token) and failed sign-ins. Run on the application's own login, never a request role
(those may not read these tables). Times are the database's `now()`."""

from __future__ import annotations

from .rows import Conn, one


def lock_sign_in(conn: Conn, name: str) -> None:
    """Serialise the sign-ins of one name (from every client: both rate limits count exactly)."""
    conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 14))", (name,))


def recent_failures(conn: Conn, name: str, client: str | None, window_s: int) -> tuple[int, float]:
    """How many sign-ins of `name` from `client` (None: from every client) failed in the last
    `window_s` seconds, and in how many seconds the oldest of them leaves the window (0 when
    none)."""
    row = one(
        conn.execute(
            "SELECT count(*) AS n, coalesce(extract(epoch FROM min(at) + make_interval(secs => %(w)s)"
            " - now()), 0) AS wait FROM desk_login_failures WHERE name = %(name)s"
            " AND (%(client)s::text IS NULL OR client = %(client)s)"
            " AND at > now() - make_interval(secs => %(w)s)",
            {"name": name, "client": client, "w": window_s},
        )
    )
    return int(row["n"]), float(row["wait"])


def record_failure(conn: Conn, name: str, client: str) -> None:
    conn.execute("INSERT INTO desk_login_failures (name, client) VALUES (%s, %s)", (name, client))


def clear_failures(conn: Conn, name: str, client: str, window_s: int) -> None:
    """After a sign-in succeeds: forget that name+client's failures, and everyone's older than
    the window."""
    conn.execute(
        "DELETE FROM desk_login_failures WHERE (name = %s AND client = %s)"
        " OR at < now() - make_interval(secs => %s)",
        (name, client, window_s),
    )


def forget_failures_of(conn: Conn, name: str) -> None:
    """Every failed sign-in of `name`, from every client (a new password was set)."""
    conn.execute("DELETE FROM desk_login_failures WHERE name = %s", (name,))


def get_user(conn: Conn, name: str) -> dict | None:
    return conn.execute(
        "SELECT name, password_hash, updated_at FROM desk_users WHERE name = %s", (name,)
    ).fetchone()


def set_password_hash(conn: Conn, name: str, password_hash: str) -> None:
    conn.execute(
        "INSERT INTO desk_users (name, password_hash) VALUES (%s, %s) ON CONFLICT (name)"
        " DO UPDATE SET password_hash = EXCLUDED.password_hash, updated_at = now()",
        (name, password_hash),
    )


def end_sessions_of(conn: Conn, name: str) -> int:
    """Sign `name` out everywhere (a new password ends every session); returns how many."""
    return conn.execute("DELETE FROM desk_sessions WHERE name = %s", (name,)).rowcount


def insert_session(conn: Conn, token_hash: str, name: str, csrf: str, lifetime_s: int) -> dict:
    conn.execute("DELETE FROM desk_sessions WHERE expires_at <= now()")
    return one(
        conn.execute(
            "INSERT INTO desk_sessions (token_hash, name, csrf, expires_at)"
            " VALUES (%s, %s, %s, now() + make_interval(secs => %s)) RETURNING *",
            (token_hash, name, csrf, lifetime_s),
        )
    )


def touch_session(conn: Conn, token_hash: str, idle_s: int) -> dict | None:
    """The live session with this token hash (before its absolute end, seen within `idle_s`
    seconds), its last_seen moved to now; None when unknown, idle too long or expired."""
    return conn.execute(
        "UPDATE desk_sessions SET last_seen = now() WHERE token_hash = %s AND expires_at > now()"
        " AND last_seen > now() - make_interval(secs => %s) RETURNING *",
        (token_hash, idle_s),
    ).fetchone()


def delete_session(conn: Conn, token_hash: str) -> None:
    conn.execute("DELETE FROM desk_sessions WHERE token_hash = %s", (token_hash,))


# The chair's token for the CLI is kept beside her desk password, as a row of its own that signs
# no one in to the desk (accounts.NAMES has no such user): the desk's accounts are the one table
# no request role may read or write (migrations 0014, 0033).
CHAIR_TOKEN_ROW = "chair-token"


def chair_token_hash(conn: Conn) -> str | None:
    """The registered chair's token hash, None before `legal-ai user set-token chair`."""
    row = get_user(conn, CHAIR_TOKEN_ROW)
    return row["password_hash"] if row else None


def set_chair_token_hash(conn: Conn, token_hash: str) -> None:
    set_password_hash(conn, CHAIR_TOKEN_ROW, token_hash)
