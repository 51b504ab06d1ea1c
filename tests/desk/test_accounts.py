"""The chair's desk sign-in (issue 12): argon2 passwords, sessions by the hash of their token,
idle and absolute ends, sign-out, the rate limit, and the request roles kept out of the tables.
conftest.py's `desk_app` sets the chair's password (helpers.PASSWORD: Hebrew, a slash and
digits — any characters are allowed)."""

import hashlib
from datetime import UTC, datetime, timedelta

import psycopg
import pytest

from helpers import PASSWORD
from helpers import run as run_cli
from legal_ai import accounts
from legal_ai.auth import CHAIR, agent
from legal_ai.errors import Forbidden, InvalidInput, RateLimited, Unauthorized
from legal_ai.store.db import Store
from legal_ai.web.errors import status_of

pytestmark = pytest.mark.db

DESK_TABLES = ("desk_users", "desk_sessions", "desk_login_failures")


def rows(app, query, params=()):
    with app.store.connection() as conn:
        return conn.execute(query, params).fetchall()


def test_sign_in_opens_a_session_the_cookie_token_finds(desk_app):
    opened = accounts.sign_in(desk_app, "chair", PASSWORD, "10.0.0.7")
    assert opened.principal == CHAIR
    assert len(opened.token) >= 40 and len(opened.csrf) >= 40 and opened.token != opened.csrf
    now = datetime.now(UTC)
    assert timedelta(hours=23, minutes=59) < opened.expires_at - now <= timedelta(hours=24)
    found = accounts.session(desk_app, opened.token)
    assert found == opened
    assert accounts.session(desk_app, opened.token + "x") is None
    assert accounts.session(desk_app, None) is None
    # A second sign-in is a second session; both live.
    other = accounts.sign_in(desk_app, "Chair ", PASSWORD, "10.0.0.8")
    assert other.token != opened.token and accounts.session(desk_app, opened.token) is not None


def test_the_password_and_the_token_are_never_stored_in_clear(desk_app):
    opened = accounts.sign_in(desk_app, "chair", PASSWORD, "10.0.0.7")
    (user,) = rows(desk_app, "SELECT * FROM desk_users")
    assert user["password_hash"].startswith("$argon2id$")
    assert PASSWORD not in user["password_hash"]
    (stored,) = rows(desk_app, "SELECT * FROM desk_sessions")
    assert stored["token_hash"] == hashlib.sha256(opened.token.encode()).hexdigest()
    everything = " ".join(
        str(v) for r in rows(desk_app, "SELECT * FROM desk_sessions") for v in r.values()
    )
    everything += " ".join(str(v) for v in user.values())
    assert opened.token not in everything and PASSWORD not in everything


def test_a_wrong_password_or_name_is_refused_with_one_message(desk_app):
    with pytest.raises(Unauthorized) as wrong:
        accounts.sign_in(desk_app, "chair", PASSWORD + "!", "10.0.0.7")
    with pytest.raises(Unauthorized) as unknown:
        accounts.sign_in(desk_app, "admin", PASSWORD, "10.0.0.7")
    assert str(wrong.value) == str(unknown.value) == "wrong name or password; try again"
    with pytest.raises(Unauthorized):
        accounts.sign_in(desk_app, "chair", "", "10.0.0.7")
    assert rows(desk_app, "SELECT count(*) AS n FROM desk_sessions")[0]["n"] == 0


def test_five_failures_lock_that_name_and_client_for_fifteen_minutes(desk_app):
    for _ in range(accounts.MAX_FAILURES):
        with pytest.raises(Unauthorized):
            accounts.sign_in(desk_app, "chair", "wrong password", "10.0.0.7")
    # The sixth attempt is refused before the password is looked at, even the right one.
    with pytest.raises(RateLimited) as limited:
        accounts.sign_in(desk_app, "chair", PASSWORD, "10.0.0.7")
    assert "too many failed sign-ins: wait 15 minutes" in str(limited.value)
    assert 14 * 60 < limited.value.retry_after <= 15 * 60
    assert isinstance(limited.value, Forbidden) and status_of(limited.value) == 429
    assert rows(desk_app, "SELECT count(*) AS n FROM desk_sessions")[0]["n"] == 0
    # Another client is not locked out; its success clears nothing of the first client's.
    assert accounts.sign_in(desk_app, "chair", PASSWORD, "10.0.0.8").principal == CHAIR
    with pytest.raises(RateLimited):
        accounts.sign_in(desk_app, "chair", PASSWORD, "10.0.0.7")
    # Failures older than the window no longer count (moved back in time here).
    with desk_app.store.transaction() as conn:
        conn.execute("UPDATE desk_login_failures SET at = at - interval '14 minutes'")
    with pytest.raises(RateLimited, match="wait 1 minute and"):
        accounts.sign_in(desk_app, "chair", PASSWORD, "10.0.0.7")
    with desk_app.store.transaction() as conn:
        conn.execute("UPDATE desk_login_failures SET at = at - interval '61 seconds'")
    assert accounts.sign_in(desk_app, "chair", PASSWORD, "10.0.0.7").principal == CHAIR
    assert rows(desk_app, "SELECT count(*) AS n FROM desk_login_failures")[0]["n"] == 0


def test_a_session_ends_when_idle_and_after_24_hours(desk_app):
    idle = accounts.sign_in(desk_app, "chair", PASSWORD, "c")
    old = accounts.sign_in(desk_app, "chair", PASSWORD, "c")
    fresh = accounts.sign_in(desk_app, "chair", PASSWORD, "c")
    minutes = desk_app.settings.desk_session_idle_minutes
    assert minutes == 720
    with desk_app.store.transaction() as conn:
        conn.execute(
            "UPDATE desk_sessions SET last_seen = now() - make_interval(mins => %s + 1)"
            " WHERE token_hash = %s",
            (minutes, hashlib.sha256(idle.token.encode()).hexdigest()),
        )
        conn.execute(
            "UPDATE desk_sessions SET expires_at = now() - interval '1 second',"
            " created_at = now() - interval '24 hours' WHERE token_hash = %s",
            (hashlib.sha256(old.token.encode()).hexdigest(),),
        )
        conn.execute(
            "UPDATE desk_sessions SET last_seen = now() - make_interval(mins => %s - 1)"
            " WHERE token_hash = %s",
            (minutes, hashlib.sha256(fresh.token.encode()).hexdigest()),
        )
    assert accounts.session(desk_app, idle.token) is None
    assert accounts.session(desk_app, old.token) is None
    assert accounts.session(desk_app, fresh.token) is not None  # and its use moved last_seen
    (seen,) = rows(
        desk_app,
        "SELECT now() - last_seen AS ago FROM desk_sessions WHERE token_hash = %s",
        (hashlib.sha256(fresh.token.encode()).hexdigest(),),
    )
    assert seen["ago"] < timedelta(seconds=5)


def test_sign_out_and_a_new_password_end_sessions(desk_app):
    first = accounts.sign_in(desk_app, "chair", PASSWORD, "c")
    second = accounts.sign_in(desk_app, "chair", PASSWORD, "c")
    accounts.sign_out(desk_app, first.token)
    assert accounts.session(desk_app, first.token) is None
    assert accounts.session(desk_app, second.token) is not None
    accounts.sign_out(desk_app, first.token)  # twice, or unknown: nothing happens
    accounts.sign_out(desk_app, "no-such-token")
    accounts.set_password(desk_app, "chair", "another password 2025")
    assert accounts.session(desk_app, second.token) is None
    with pytest.raises(Unauthorized):
        accounts.sign_in(desk_app, "chair", PASSWORD, "c")
    assert accounts.sign_in(desk_app, "chair", "another password 2025", "c").principal == CHAIR


def test_set_password_refuses_short_passwords_unknown_users_and_agents(desk_app):
    with pytest.raises(InvalidInput, match="at least 10 characters"):
        accounts.set_password(desk_app, "chair", "short")
    with pytest.raises(InvalidInput, match="the desk has one user, `chair`"):
        accounts.set_password(desk_app, "root", PASSWORD)
    with pytest.raises(Forbidden, match="agent:drafter"):
        accounts.set_password(desk_app.acting_as(agent("drafter")), "chair", "agent's choice!!")
    # The chair acting may change her own password (it runs on the application's login).
    accounts.set_password(desk_app.acting_as(CHAIR), "chair", PASSWORD + "2")
    assert accounts.sign_in(desk_app.acting_as(CHAIR), "chair", PASSWORD + "2", "c")


def test_request_roles_cannot_read_or_write_the_desk_tables(desk_app, agent_db_url):
    """An agent (its request role, or its own login) cannot read a hash or a session, nor mint a
    chair session in SQL; nor can a chair-token API request's role. `legal-ai db migrate`
    re-applies the grants: the desk's tables stay out of reach."""
    with desk_app.store.transaction() as conn:
        conn.execute("SELECT apply_role_grants()")
    assert desk_app.store.roles_enforced
    token_hash = hashlib.sha256(b"minted").hexdigest()
    mint = (
        "INSERT INTO desk_sessions (token_hash, name, csrf, expires_at)"
        " VALUES (%s, 'chair', 'x', now() + interval '1 day')"
    )
    for principal in (agent("drafter"), CHAIR):
        store = desk_app.acting_as(principal).store
        for table in DESK_TABLES:
            with pytest.raises(psycopg.errors.InsufficientPrivilege), store.transaction() as conn:
                conn.execute(f"SELECT * FROM {table}")  # noqa: S608 - a constant name
        with pytest.raises(psycopg.errors.InsufficientPrivilege), store.transaction() as conn:
            conn.execute(mint, (token_hash,))
    with Store(agent_db_url, max_size=1) as store:
        for table in DESK_TABLES:
            with pytest.raises(psycopg.errors.InsufficientPrivilege), store.transaction() as conn:
                conn.execute(f"SELECT * FROM {table}")  # noqa: S608 - a constant name
        with pytest.raises(psycopg.errors.InsufficientPrivilege), store.transaction() as conn:
            conn.execute(mint, (token_hash,))
        with pytest.raises(psycopg.errors.InsufficientPrivilege), store.transaction() as conn:
            conn.execute("UPDATE desk_users SET password_hash = '$argon2id$mine'")
    assert rows(desk_app, "SELECT count(*) AS n FROM desk_sessions")[0]["n"] == 0


def test_cli_sets_the_password_from_stdin(desk_app, cli_env):
    def run(*args, stdin):
        return run_cli(cli_env, "user", "set-password", *args, input=stdin, check=False)

    opened = accounts.sign_in(desk_app, "chair", PASSWORD, "c")
    done = run("chair", "--password-stdin", stdin="סיסמה חדשה של היושבת ראש\n")
    assert done.returncode == 0, done.stderr
    assert "password of chair set" in done.stdout
    assert accounts.session(desk_app, opened.token) is None
    assert accounts.sign_in(desk_app, "chair", "סיסמה חדשה של היושבת ראש", "c").principal == CHAIR
    short = run("chair", "--password-stdin", stdin="short\n")
    assert short.returncode == 2
    assert short.stderr.strip() == ("error: the password is too short: use at least 10 characters")
