"""Issue 19 item 7, against the real database and real local servers:

- the desk's sign-in is throttled per account as well as per client, and the client's address
  comes from a proxy header only when LEGAL_AI_TRUSTED_PROXIES names the proxy (the app's own
  reading, web/clients.py, and the uvicorn options `legal-ai serve` passes);
- the reminder webhook and the tracker follow no redirect, so their token goes nowhere else;
- the errors jobs store and return are scrubbed by the API's one scrubber (errors.Scrubber);
- the list routes of the HTTP API and the MCP list tools answer a page at a time."""

import asyncio
import datetime as dt
import json
import re
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler

import httpx
import pytest
import uvicorn
from fastapi.testclient import TestClient
from pydantic import ValidationError

from helpers import PASSWORD, local_server, run, serving
from legal_ai import accounts, jobqueue, paging
from legal_ai.app import App
from legal_ai.config import Settings
from legal_ai.errors import InvalidInput, ProviderError, RateLimited, Scrubber, Unauthorized
from legal_ai.learning.lessons import feedback, lessons
from legal_ai.ops import scheduler as schedule
from legal_ai.ops.scheduler import Job
from legal_ai.ops.tasks import post_json
from legal_ai.web import clients
from legal_ai.web.app import create_app

pytestmark = pytest.mark.db

AGENT, CHAIR = "hardening-agent-token", "hardening-chair-token"
LEAKY = (
    "could not open /work/x/.legal-ai/pgdata/postmaster.pid; tried "
    "postgresql://legal_ai_app:s3cret@db.internal:5432/legal_ai?sslmode=require: "
    'FATAL:  password authentication failed for user "legal_ai_app"'
)
LEAKS = ("/work/x", ".legal-ai", "postgresql://", "s3cret", "db.internal", "legal_ai_app")


def auth(token: str = AGENT) -> dict:
    return {"Authorization": f"Bearer {token}"}


def web_settings(app: App, **update) -> Settings:
    return app.settings.model_copy(
        update={"agent_token": f"writer={AGENT}", "chair_token": CHAIR, **update}
    )


def failures(app: App) -> list[str]:
    with app.store.connection() as conn:
        return [
            r["client"]
            for r in conn.execute("SELECT client FROM desk_login_failures ORDER BY at, client")
        ]


# -- the sign-in throttle: per client and per account ----------------------------------------


def test_wrong_passwords_from_many_clients_lock_the_account(desk_app):
    for n in range(accounts.ACCOUNT_MAX_FAILURES):
        with pytest.raises(Unauthorized):
            accounts.sign_in(desk_app, "chair", "wrong password", f"10.0.0.{n}")
    # Each address failed once only, yet the account is locked, for every address, even the
    # right password; the message says it is the account's limit and how long to wait.
    with pytest.raises(RateLimited) as limited:
        accounts.sign_in(desk_app, "chair", PASSWORD, "10.9.9.9")
    assert limited.value.account and "of this account, from every address" in str(limited.value)
    assert 14 * 60 < limited.value.retry_after <= 15 * 60
    assert len(failures(desk_app)) == accounts.ACCOUNT_MAX_FAILURES  # refused ones not counted
    # The window passes: the account opens again (failures moved back in time here).
    with desk_app.store.transaction() as conn:
        conn.execute("UPDATE desk_login_failures SET at = at - interval '16 minutes'")
    assert accounts.sign_in(desk_app, "chair", PASSWORD, "10.9.9.9").principal.kind == "chair"
    # A new password lifts a lock at once (the operator's remedy for a locked-out chair).
    for n in range(accounts.ACCOUNT_MAX_FAILURES):
        with pytest.raises(Unauthorized):
            accounts.sign_in(desk_app, "chair", "wrong password", f"10.1.0.{n}")
    with pytest.raises(RateLimited):
        accounts.sign_in(desk_app, "chair", PASSWORD, "10.9.9.9")
    accounts.set_password(desk_app, "chair", PASSWORD + "-new")
    assert failures(desk_app) == []
    assert accounts.sign_in(desk_app, "chair", PASSWORD + "-new", "10.9.9.9")


def test_one_client_is_still_limited_sooner_than_the_account(desk_app):
    for _ in range(accounts.MAX_FAILURES):
        with pytest.raises(Unauthorized):
            accounts.sign_in(desk_app, "chair", "wrong password", "10.0.0.7")
    with pytest.raises(RateLimited) as limited:
        accounts.sign_in(desk_app, "chair", PASSWORD, "10.0.0.7")
    assert not limited.value.account
    assert accounts.sign_in(desk_app, "chair", PASSWORD, "10.0.0.8")  # the account is open


# -- whose address: proxies trusted only when named ---------------------------------------------


def scope(peer: str, *forwarded: str) -> dict:
    return {
        "client": (peer, 40000),
        "headers": [(b"x-forwarded-for", v.encode()) for v in forwarded],
    }


def test_the_app_reads_a_forwarded_address_only_from_a_named_proxy():
    off = Settings(trusted_proxies="")
    assert clients.client_address(scope("127.0.0.1", "203.0.113.9"), off) == "127.0.0.1"
    assert clients.client_address(scope("198.51.100.4", "203.0.113.9"), off) == "198.51.100.4"
    assert clients.client_address({"headers": []}, off) == "unknown"
    proxy = Settings(trusted_proxies="127.0.0.1, 10.0.0.0/24")
    assert proxy.trusted_proxies == "127.0.0.1,10.0.0.0/24"
    # from the proxy: the rightmost address that is not a proxy (a client can only prepend)
    assert clients.client_address(scope("127.0.0.1", "203.0.113.9"), proxy) == "203.0.113.9"
    assert (
        clients.client_address(scope("127.0.0.1", "6.6.6.6, 203.0.113.9, 10.0.0.5"), proxy)
        == "203.0.113.9"
    )
    assert (
        clients.client_address(scope("10.0.0.3", "1.1.1.1", "203.0.113.9:5555"), proxy)
        == "203.0.113.9"
    )
    # not from the proxy: the header is anyone's claim and is ignored
    assert clients.client_address(scope("198.51.100.4", "203.0.113.9"), proxy) == "198.51.100.4"
    # a value no proxy writes: none of the header is believed
    assert clients.client_address(scope("127.0.0.1", "1.1.1.1, evil"), proxy) == "127.0.0.1"
    assert (
        clients.client_address(scope("::1", "203.0.113.9"), Settings(trusted_proxies="::1"))
        == "203.0.113.9"
    )
    for bad in ("*", "proxy.example", "10.0.0.0/99"):
        with pytest.raises(ValidationError, match="not an IP address or network"):
            Settings(trusted_proxies=bad)


def test_serve_passes_uvicorn_proxy_options_that_follow_the_setting(monkeypatch):
    from legal_ai.cli import learning as cli_learning
    from legal_ai.web import app as web_app

    seen: list[dict] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kwargs: seen.append(kwargs))
    monkeypatch.setattr(web_app, "create_app", lambda settings: object())
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "*")  # uvicorn's own variable is never used
    cli_learning.serve(host="127.0.0.1", port=1)
    monkeypatch.setenv("LEGAL_AI_TRUSTED_PROXIES", "10.0.0.2,10.1.0.0/16")
    cli_learning.serve(host="127.0.0.1", port=1)
    assert [(s["proxy_headers"], s["forwarded_allow_ips"]) for s in seen] == [
        (False, ""),
        (True, ["10.0.0.2/32", "10.1.0.0/16"]),
    ]
    # and uvicorn builds no proxy middleware from the first (it would from its own default)
    from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

    async def asgi(scope, receive, send) -> None:
        pass

    for options, wrapped in (
        (clients.uvicorn_options(Settings(trusted_proxies="")), False),
        ({}, True),
    ):
        config = uvicorn.Config(asgi, **options)
        config.load()
        assert isinstance(config.loaded_app, ProxyHeadersMiddleware) is wrapped


def twenty_wrong_passwords(base: str) -> list[httpx.Response]:
    """20 wrong passwords for the chair, each claiming another X-Forwarded-For."""
    answers = []
    with httpx.Client(base_url=base, timeout=30) as client:
        for n in range(20):
            form = client.get("/login")
            csrf = re.search(r'name="csrf" value="([^"]+)"', form.text).group(1)
            answers.append(
                client.post(
                    "/login",
                    data={"name": "chair", "password": f"guess-{n}", "csrf": csrf},
                    headers={"X-Forwarded-For": f"203.0.113.{n + 1}"},
                    follow_redirects=False,
                )
            )
    return answers


@pytest.mark.parametrize(
    "proxies, uvicorn_default", [("", False), ("", True), ("127.0.0.1", False)]
)
def test_twenty_wrong_passwords_with_rotating_forwarded_for_get_429(
    desk_app, proxies, uvicorn_default
):
    """Through a real uvicorn: with the setting empty and `legal-ai serve`'s options, every
    attempt is 127.0.0.1's (the header is ignored) and the client's limit stops it at the 6th;
    under uvicorn's own defaults (which believe 127.0.0.1's header: a server not started by
    `legal-ai serve`) the addresses rotate, and the account's limit stops it at the 11th; with
    the setting naming the proxy the forwarded address is each attempt's client."""
    settings = web_settings(desk_app, trusted_proxies=proxies)
    options = {} if uvicorn_default else clients.uvicorn_options(settings)
    with serving(create_app(settings, legal=desk_app), **options) as base:
        answers = twenty_wrong_passwords(base)
    statuses = [a.status_code for a in answers]
    limit = (
        accounts.MAX_FAILURES
        if not proxies and not uvicorn_default
        else (accounts.ACCOUNT_MAX_FAILURES)
    )
    assert statuses == [401] * limit + [429] * (20 - limit)
    limited = answers[-1]
    assert "יותר מדי ניסיונות כניסה שגויים" in limited.text and "המתיני" in limited.text
    assert 14 * 60 < int(limited.headers["Retry-After"]) <= 15 * 60
    if limit == accounts.ACCOUNT_MAX_FAILURES:
        assert "לחשבון הזה, מכל הכתובות יחד" in limited.text
    recorded = failures(desk_app)
    if proxies or uvicorn_default:
        assert sorted(recorded) == sorted(f"203.0.113.{n + 1}" for n in range(limit))
    else:
        assert recorded == ["127.0.0.1"] * limit


def test_the_desk_reads_the_forwarded_address_itself_from_a_named_proxy(desk_app):
    """The app's own reading, with no server in front rewriting the address (TestClient: the
    connection comes from 127.0.0.1 here, or from 198.51.100.4, which is no proxy)."""
    for proxies, peer, expected in (
        ("", "127.0.0.1", "127.0.0.1"),
        ("127.0.0.1", "127.0.0.1", "203.0.113.7"),
        ("127.0.0.1", "198.51.100.4", "198.51.100.4"),
    ):
        with desk_app.store.transaction() as conn:
            conn.execute("TRUNCATE desk_login_failures")
        with TestClient(
            create_app(web_settings(desk_app, trusted_proxies=proxies), legal=desk_app),
            client=(peer, 50000),
        ) as client:
            form = client.get("/login")
            csrf = re.search(r'name="csrf" value="([^"]+)"', form.text).group(1)
            wrong = client.post(
                "/login",
                headers={"X-Forwarded-For": "203.0.113.7"},
                data={"name": "chair", "password": "x", "csrf": csrf},
            )
            assert wrong.status_code == 401
        assert failures(desk_app) == [expected]


# -- outbound calls follow no redirect --------------------------------------------------------


class Sink(BaseHTTPRequestHandler):
    """The address a redirect points at: records whatever reaches it."""

    received: list[dict] = []

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        Sink.received.append(
            {
                "path": self.path,
                "auth": self.headers.get("Authorization"),
                "body": self.rfile.read(length),
            }
        )
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_PUT = do_POST

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def redirected() -> Iterator[tuple[str, str]]:
    """(a server that answers every POST 302 to the sink, the sink's address)."""
    Sink.received = []
    with local_server(Sink, path="") as sink:

        class Redirector(BaseHTTPRequestHandler):
            hits: list[str] = []
            status = 302

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                Redirector.hits.append(self.headers.get("Authorization") or "")
                self.send_response(Redirector.status)
                self.send_header("Location", f"{sink}/stolen")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        with local_server(Redirector, path="") as redirector:
            yield redirector, sink, Redirector
        assert Redirector.hits  # the redirect was reached (and answered 302)


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_post_json_follows_no_redirect(redirected, status):
    redirector, sink, handler = redirected
    handler.status = status
    with pytest.raises(ProviderError) as failed:
        post_json(
            f"{redirector}/hook?key=q", {"x": 1}, what="LEGAL_AI_TRACKER_URL", token="tr-secret"
        )
    message = str(failed.value)
    assert message.startswith(f"LEGAL_AI_TRACKER_URL ({redirector}) answered HTTP {status}")
    assert f"a redirect to {sink}" in message and "redirects are not followed" in message
    assert "tr-secret" not in message and "key=q" not in message
    assert Sink.received == []


def test_the_tracker_and_the_webhook_never_send_to_where_they_are_redirected(app, redirected):
    redirector, sink, _ = redirected
    factories_case = "ערר 7777/25"
    with app.store.transaction() as conn:
        conn.execute(
            "INSERT INTO cases (case_number, title, created_at) VALUES (%s, 'ת', now() - "
            "interval '90 days')",
            (factories_case,),
        )
    hooked = App(
        app.settings.model_copy(
            update={
                "tracker_url": f"{redirector}/tracker",
                "tracker_token": "tr-secret",
                "reminder_webhook": f"{redirector}/hook",
            }
        ),
        store=app.store,
        embedder=app._inner_embedder,
    )
    now = dt.datetime.now(dt.UTC)
    tracked = schedule.run_now(hooked, "sync-case-status", now=now)
    assert tracked["outcome"] == "failed" and "answered HTTP 302" in tracked["error"]
    assert tracked["result"]["unpushed"] == 1 and tracked["result"]["pushed"] == 0
    reminded = schedule.run_now(hooked, "stale-case-reminder", now=now)
    assert reminded["outcome"] == "failed" and "answered HTTP 302" in reminded["error"]
    assert reminded["result"]["webhook"] == {"sent": False}
    assert Sink.received == []  # neither the token nor the list went to the sink


# -- job errors are scrubbed like API errors --------------------------------------------------


def test_the_one_scrubber_takes_out_paths_urls_and_logins():
    scrub = Scrubber()
    text = scrub(LEAKY + " and host=db.internal user=legal_ai_app password=pw")
    for leak in (*LEAKS, "pw"):
        assert leak not in text, leak
    assert text.startswith("could not open <file>; tried <database>")
    assert 'for user "<hidden>"' in text
    # what a caller needs stays: routes, case numbers, ordinary URLs
    kept = "no route POST /api/jobs/x/run; ערר 1042/23; see https://example.org/a/b"
    assert scrub(kept) == kept
    home = Scrubber.of(Settings(home="/srv/committee/legal-ai-home"))
    assert home("read /srv/committee/legal-ai-home/uploads/a.pdf") == "read <file>"


def leaky(app: App, now: dt.datetime) -> dict:
    raise RuntimeError(LEAKY)


def leaky_result(app: App, now: dt.datetime) -> dict:
    return {"summary": "half done", "error": LEAKY, "steps": {"a": {"error": LEAKY}}}


def test_a_failing_job_is_stored_and_returned_scrubbed(app, monkeypatch, cli_env):
    boom = Job("boom", "0 3 * * *", "fails with internal details", leaky)
    half = Job("half", "0 3 * * *", "reports internal details", leaky_result)
    monkeypatch.setattr(schedule, "JOBS", (*schedule.JOBS, boom, half))
    now = dt.datetime.now(dt.UTC)
    returned = [schedule.run_now(app, "boom", now=now), schedule.run_now(app, "half", now=now)]
    assert [r["outcome"] for r in returned] == ["failed", "failed"]
    assert "internal error in boom (RuntimeError: could not open <file>" in returned[0]["error"]
    with app.store.connection() as conn:
        stored = conn.execute("SELECT error, result FROM schedule_runs ORDER BY id").fetchall()
        last = conn.execute("SELECT last_error, last_result FROM schedules").fetchall()
    everything = json.dumps([returned, stored, last], ensure_ascii=False, default=str)
    for leak in LEAKS:
        assert leak not in everything, leak
    assert "<hidden>" in everything and "<database>" in everything and "<file>" in everything
    # a run recorded before scrubbing began is scrubbed as it is read
    with app.store.transaction() as conn:
        conn.execute(
            "INSERT INTO schedule_runs (name, trigger, started_at, finished_at, outcome, error,"
            " requested_by) VALUES ('boom', 'manual', now(), now(), 'failed', %s, 'old')",
            (LEAKY,),
        )
    with TestClient(create_app(web_settings(app), legal=app)) as client:
        listed = client.get("/api/jobs/runs", headers=auth(CHAIR))
        jobs_list = client.get("/api/jobs", headers=auth(CHAIR))
    assert listed.status_code == 200 and len(listed.json()["runs"]) == 3
    result = run(cli_env, "jobs", "runs", "--json", check=False)
    assert result.returncode == 0, result.stderr
    assert len(json.loads(result.stdout)["runs"]) == 3
    for shown in (listed.text, jobs_list.text, result.stdout):
        for leak in LEAKS:
            assert leak not in shown, leak


def test_a_queued_job_stores_its_error_scrubbed(app):
    with app.store.transaction() as conn:
        job = conn.execute(
            "INSERT INTO jobs (kind, key, case_number, status, worker, attempts, max_attempts,"
            " lease_until) VALUES ('learning', 'hardening-1', NULL, 'running', 'w', 1, 1,"
            " now() + interval '1 minute') RETURNING *"
        ).fetchone()
    status, error = jobqueue.retry_later(app, job, "w", ProviderError(LEAKY), "the test stage")
    assert status == "failed"
    with app.store.connection() as conn:
        stored = conn.execute("SELECT error FROM jobs WHERE id = %s", (job["id"],)).fetchone()
    for leak in LEAKS:
        assert leak not in error and leak not in stored["error"], leak


# -- lists are paged --------------------------------------------------------------------------

LISTS = (
    "/api/lessons",
    "/api/principles",
    "/api/canonical-principles",
    "/api/chair-feedback",
    "/api/voice-documents",
    "/api/enrichments",
    "/api/jobs/runs",
    "/api/learning/pairs",
    "/api/learning/style-distance-history",
    "/api/reminders",
)
KEYS = {
    "/api/lessons": "lessons",
    "/api/principles": "principles",
    "/api/canonical-principles": "canonical_principles",
    "/api/chair-feedback": "feedback",
    "/api/voice-documents": "voice_documents",
    "/api/enrichments": "enrichments",
    "/api/jobs/runs": "runs",
    "/api/learning/pairs": "pairs",
    "/api/learning/style-distance-history": "rows",
    "/api/reminders": "cases",
}


@pytest.fixture
def client(app):
    with TestClient(create_app(web_settings(app), legal=app)) as c:
        yield c


def test_every_list_route_answers_a_page_and_keeps_its_key(client):
    for path in LISTS:
        answer = client.get(path, headers=auth())
        assert answer.status_code == 200, (path, answer.text)
        body = answer.json()
        assert body[KEYS[path]] == [], path
        assert body["page"]["offset"] == 0 and body["page"]["next_offset"] is None, path
        assert body["page"]["returned"] == 0, path
    assert client.get("/api/lessons", headers=auth()).json()["page"]["limit"] == 100
    assert client.get("/api/chair-feedback", headers=auth()).json()["page"]["limit"] == 50
    assert client.get("/api/jobs/runs", headers=auth()).json()["page"]["limit"] == 20


@pytest.mark.parametrize(
    "query, field",
    [("limit=0", "limit"), ("limit=501", "limit"), ("limit=x", "limit"), ("offset=-1", "offset")],
)
def test_a_page_outside_its_bounds_is_400_naming_the_field(client, query, field):
    for path in LISTS:
        refused = client.get(f"{path}?{query}", headers=auth())
        assert refused.status_code == 400, (path, query)
        assert refused.json()["error"].startswith(f"{field}:"), (path, refused.json())


def test_pages_walk_a_list_without_repeating_or_skipping(app, client):
    for n in range(7):
        feedback.record(app, "style", f"הערה מספר {n}")
        lessons.propose(app, None, "style", f"לקח סגנון מספר {n} על ניסוח הפסקה", source="curator")
    seen, offset = [], 0
    while offset is not None:
        page = client.get(f"/api/lessons?limit=3&offset={offset}", headers=auth()).json()
        assert len(page["lessons"]) <= 3
        seen += [lesson["id"] for lesson in page["lessons"]]
        offset = page["page"]["next_offset"]
    assert seen == sorted(seen) and len(seen) == len(set(seen)) == 7
    newest = client.get("/api/chair-feedback?limit=5", headers=auth()).json()
    rest = client.get("/api/chair-feedback?limit=5&offset=5", headers=auth()).json()
    assert newest["page"] == {"limit": 5, "offset": 0, "returned": 5, "next_offset": 5}
    assert rest["page"] == {"limit": 5, "offset": 5, "returned": 2, "next_offset": None}
    ids = [f["id"] for f in newest["feedback"] + rest["feedback"]]
    assert ids == sorted(ids, reverse=True) and len(set(ids)) == 7
    # unpaged callers (the CLI, the desk) still read the whole list, their answer unchanged
    assert len(lessons.list_lessons(app)["lessons"]) == 7
    assert "page" not in lessons.list_lessons(app)


def test_a_page_refuses_what_is_out_of_bounds():
    for bad in ({"limit": 0}, {"limit": paging.MAX_LIMIT + 1}, {"offset": -1}, {"limit": True}):
        with pytest.raises(InvalidInput):
            paging.Page(**bad)
    page = paging.Page(2, 4)
    assert page.fetch == 3 and page.cut([1, 2, 3]) == (
        [1, 2],
        {"limit": 2, "offset": 4, "returned": 2, "next_offset": 6},
    )


def test_the_mcp_list_tools_are_paged(app):
    from legal_ai.mcp_server import build_server

    for n in range(3):
        feedback.record(app, "style", f"הערה מספר {n}")
    server = build_server(app.settings, app_for_call=lambda: app)

    def call(tool: str, **arguments) -> dict:
        result = asyncio.run(server.call_tool(tool, arguments))
        assert not result.is_error, result
        return json.loads(result.content[0].text)

    tools = {t.name: t for t in asyncio.run(server.list_tools())}
    for name in ("list_principles", "list_canonical_principles", "list_chair_feedback"):
        schema = tools[name].input_schema["properties"]
        assert schema["limit"]["maximum"] == 500 and schema["offset"]["minimum"] == 0, name
    first = call("list_chair_feedback", limit=2)
    assert len(first["feedback"]) == 2 and first["page"]["next_offset"] == 2
    assert len(call("list_chair_feedback", limit=2, offset=2)["feedback"]) == 1
    assert call("list_principles")["page"] == {
        "limit": 100,
        "offset": 0,
        "returned": 0,
        "next_offset": None,
    }
    assert call("list_canonical_principles", limit=1)["page"]["limit"] == 1


def test_an_mcp_error_names_no_login_database_address_or_path(settings, tmp_path):
    """The stdio MCP server's errors go through the one Scrubber, as the HTTP API's: with its
    database unreachable, the agent reads what failed and its code, not the login, the
    database's name, its address or the data folder."""
    from mcp.server.mcpserver.exceptions import ToolError

    from legal_ai.mcp_server import build_server

    home = tmp_path / "mcp-home"
    broken = settings.model_copy(
        update={
            "home": home,
            "database_url": "postgresql://leaky_login:pw@127.0.0.1:9/secret_db",
        }
    )
    with pytest.raises(ToolError) as refused:
        asyncio.run(build_server(broken).call_tool("list_chair_feedback", {}))
    said = str(refused.value)
    assert "[code: " in said and "PostgreSQL" in said
    for leak in ("leaky_login", "secret_db", "127.0.0.1", ":9", str(tmp_path), "pw"):
        assert leak not in said, (leak, said)
