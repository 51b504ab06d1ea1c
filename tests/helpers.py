"""What tests of every part share (imported by name: `from helpers import write, serving`); the
fixtures are in conftest.py, the documents the suite makes in factories.py, the scripted model
servers in llm_servers.py, the scripts and small worlds tests of more than one part set up in
scenarios.py.

- Paths: `ROOT` (the clone), `SERVER_HOME` (the suite's embedded server), `TEST_HOME` and
  `TEST_DB` (the session's home and database: a worker's own under pytest-xdist, `WORKER`),
  `FIXTURES` (tests/fixtures), `TEST_CHAIR`, and `shared()` for ../shared/data.
- `health_of(app)`: App.health(), held to its type (ops/database_health.AppHealth) on the way.
- Files: `write(path, text)`; a database's every table, row for row: `table_fingerprints(url)`.
- Local servers on 127.0.0.1: `local_server(handler)` (an http.server in a thread, for a
  `ScriptedHandler` that stands in for an external API) and `serving(api)` (the web app under a
  real uvicorn in a thread, as `legal-ai serve` runs it).
- The CLI and MCP: `run(env, *args)` (`legal-ai`'s entry point in the test's process;
  `run_process` in a subprocess), `mcp_session(env, calls)`
  (`legal-ai mcp` over stdio, the official client), `remote_session(url, token, calls)` (/mcp
  over streamable HTTP) and `payload(result)` (a tool result's JSON).
- The desk: its credentials (`PASSWORD`, `AGENT`, `CHAIR_TOKEN`: those of conftest's
  `desk_app` and `client`), `set_chair_password(app, password)` (what the fixtures set),
  `sign_in(client)`, `csrf_of(html)`, `text_of(html)` (entities decoded) and
  `section(html, id)`.
"""

from __future__ import annotations

import html
import io
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import psycopg
import pytest
import uvicorn
from psycopg import sql

from legal_ai import accounts, cli
from legal_ai.ops.database_health import AppHealth
from legal_ai.store import accounts as account_rows
from shapes import assert_shape

ROOT = Path(__file__).resolve().parents[1]
# The larger data beside the clone (../shared/data); LEGAL_AI_SHARED_DATA points elsewhere
# (LEGAL_AI_SHARED_DATA=/nonexistent runs the suite as a clone without it would).
SHARED = Path(os.environ.get("LEGAL_AI_SHARED_DATA") or ROOT.parent / "shared" / "data")
SERVER_HOME = ROOT / ".legal-ai-test"  # the suite's embedded server: SERVER_HOME/pgdata
# Several test sessions may share the one test server (parallel work on one machine): each names
# its own database, and a session started with LEGAL_AI_TEST_KEEP_SERVER=1 leaves the server up.
# Under pytest-xdist (scripts/test runs three workers on two cores) each worker (gw0, gw1,
# ...) has a database and a home of its own (what the App writes there: uploads, audit files,
# proposals); its home's pgdata is a link to the one server's (conftest.py makes it).
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
TEST_HOME = SERVER_HOME / WORKER if WORKER else SERVER_HOME
TEST_DB = os.environ.get("LEGAL_AI_TEST_DB", "legal_ai_test") + (f"_{WORKER}" if WORKER else "")
FIXTURES = ROOT / "tests" / "fixtures"
TEST_CHAIR = 'עו"ד נועה בדיקה'  # fictional chair of the tests' committee decisions
# An internal decision is searchable only with its headnote, summary and tags (issue 21 item 6):
# the tests whose subject is something else give them (tags comma-separated, as --meta does).
DECISION_FIELDS = {"headnote": "החלטת ועדת הערר", "summary": "הוועדה הכריעה בערר.", "tags": "ערר"}


def shared(*parts: str) -> Path:
    """A path under the shared data, for the larger end-to-end runs (marked `shared`; every
    feature also has a test on the project's own fixtures, tests/factories.py). Absent, the test
    is skipped, except in CI (CI=true), where shared/ is laid beside the clone: there it fails."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        message = f"shared data not present: {path} (set LEGAL_AI_SHARED_DATA to its data folder)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI: {message}", pytrace=False)
        pytest.skip(message)
    return path


def health_of(app) -> AppHealth:
    """App.health() held to its type on the way (tests/shapes.py): each health list's rows,
    the audits, the totals."""
    found = app.health()
    assert_shape(found, AppHealth)
    return found


def write(path: Path, text: str, encoding: str = "utf-8") -> Path:
    path.write_bytes(text.encode(encoding))
    return path


# --- Local servers --------------------------------------------------------------------------


class ScriptedHandler(BaseHTTPRequestHandler):
    """Base of the scripted local HTTP servers that stand in for external APIs in adapter tests."""

    def read_json(self) -> dict:
        return json.loads(self.rfile.read(int(self.headers["Content-Length"])))

    def send_json(self, payload: dict, status: int = 200) -> None:
        raw = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *args) -> None:
        pass


@contextmanager
def local_server(handler: type[BaseHTTPRequestHandler], path: str = "/v1") -> Iterator[str]:
    """Serve `handler` on 127.0.0.1 (a free port) in a thread; yield its base URL (`path`
    appended: /v1, as the adapters' APIs)."""
    server = HTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}{path}"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def serving(api, *, lifespan: str = "off", **options) -> Iterator[str]:
    """`api` under a real uvicorn on 127.0.0.1 (a free port) in a thread, with uvicorn's
    `options`; `lifespan="on"` runs the app's lifespan (the MCP transport), as `legal-ai serve`
    does. Yields the base URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(api, log_level="warning", lifespan=lifespan, **options)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not server.started and thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert server.started, "uvicorn did not start"
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


# --- The CLI and MCP ------------------------------------------------------------------------


def run(env, *args, input="", check=True):
    """`legal-ai ARGS` with `env`, in the test's own process: the command's entry point
    (`legal_ai.cli.main`, what the installed `legal-ai` calls) with that argv, that environment,
    `input` on its stdin (empty by default) and its stdout and stderr captured; its exit code as the process would have
    it (an exception it lets out is a traceback on stderr and 1, as Python's). A subprocess
    costs ~1.5 s of imports and the model's load a call; `run_process` is for the tests whose
    subject is the process (a fresh interpreter, what a service's environment does to it).
    By default the exit code must be 0."""
    out, err = io.StringIO(), io.StringIO()
    saved_env, saved_argv, saved_stdin = dict(os.environ), sys.argv, sys.stdin
    os.environ.clear()
    os.environ.update(env)
    sys.argv, sys.stdin = ["legal-ai", *map(str, args)], io.StringIO(input)
    code = 0
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                cli.main()
            except SystemExit as exc:
                code = _exit_code(exc.code, err)
            except Exception:
                traceback.print_exc(file=err)
                code = 1
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
        sys.argv, sys.stdin = saved_argv, saved_stdin
    result = subprocess.CompletedProcess(["legal-ai", *args], code, out.getvalue(), err.getvalue())
    if check:
        assert result.returncode == 0, result.stderr
    return result


def _exit_code(code, err) -> int:
    """What the process would exit with for `sys.exit(code)` (a text: printed, and 1)."""
    if code is None or isinstance(code, int):
        return code or 0
    print(code, file=err)
    return 1


def run_process(env, *args, check=True):
    """`legal-ai ARGS` in a subprocess with `env`; by default its exit code must be 0."""
    result = subprocess.run(
        [sys.executable, "-m", "legal_ai.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    if check:
        assert result.returncode == 0, result.stderr
    return result


async def mcp_session(env, calls):
    """`legal-ai mcp` over stdio with `env`, driven by the official client: tools/list, then each
    (name, arguments) call. Returns the tool names, the tools by name and the results by
    (name, arguments as JSON)."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "legal_ai.cli", "mcp"], env=env
    )
    async with Client(params) as client:
        listed = await client.list_tools()
        results = {}
        for name, arguments in calls:
            results[(name, json.dumps(arguments, ensure_ascii=False))] = await client.call_tool(
                name, arguments
            )
        return [t.name for t in listed.tools], {t.name: t for t in listed.tools}, results


async def remote_session(
    url: str, token: str | None, calls: list[tuple[str, dict]], statuses: list[int] | None = None
):
    """The SDK's streamable HTTP client, with `Authorization: Bearer <token>`: tools/list, then
    each call in turn. `statuses` collects the HTTP status of every answer."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def seen(response) -> None:
        if statuses is not None:
            statuses.append(response.status_code)

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    hooks = {"response": [seen]}
    async with httpx2.AsyncClient(headers=headers, timeout=60, event_hooks=hooks) as http:
        async with Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client:
            listed = await client.list_tools()
            results = [await client.call_tool(name, arguments) for name, arguments in calls]
    return [t.name for t in listed.tools], results


def payload(result) -> dict:
    """An MCP tool result's JSON (structured content, or the JSON text of its first part)."""
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


# --- The desk -------------------------------------------------------------------------------

PASSWORD = "סיסמה-ארוכה-1042/23"  # the chair's desk password (Hebrew, a slash and digits)
AGENT = "s3cret-agent-token"
CHAIR_TOKEN = "s3cret-chair-token"


# Each password's argon2id hash, as accounts.set_password made it the first time in this session.
_HASHES: dict[str, str] = {}


def set_chair_password(app, password: str = PASSWORD) -> None:
    """accounts.set_password(app, "chair", password) for a fixture: the first time in the
    session for real (argon2id at production's parameters), after that the hash it made written
    back, her sessions ended and her failed sign-ins forgotten as it does, without hashing again
    (~0.15 s by design). Tests of setting a password call accounts.set_password themselves."""
    if password not in _HASHES:
        accounts.set_password(app, "chair", password)
        with app.store.as_role(None).transaction() as conn:
            _HASHES[password] = account_rows.get_user(conn, "chair")["password_hash"]
        return
    with app.store.as_role(None).transaction() as conn:
        account_rows.set_password_hash(conn, "chair", _HASHES[password])
        account_rows.end_sessions_of(conn, "chair")
        account_rows.forget_failures_of(conn, "chair")


# Each chair token's argon2id hash, as accounts.set_chair_token made it the first time.
_TOKEN_HASHES: dict[str, str] = {}


def register_chair_token(app, token: str = CHAIR_TOKEN) -> str:
    """`legal-ai user set-token chair` for a test (the CLI acts as the chair only with the
    registered token): the first time in the session through accounts.set_chair_token, then the
    hash it made written back. Returns the token."""
    if token not in _TOKEN_HASHES:
        accounts.set_chair_token(app, token)
        with app.store.as_role(None).connection() as conn:
            _TOKEN_HASHES[token] = account_rows.chair_token_hash(conn)
        return token
    with app.store.as_role(None).transaction() as conn:
        account_rows.set_chair_token_hash(conn, _TOKEN_HASHES[token])
    return token


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


def sign_in(client, password: str = PASSWORD, name: str = "chair"):
    """The chair signs in through /login (its form first, for the CSRF token); the answer (a
    redirect to today's page, /)."""
    form = client.get("/login")
    assert form.status_code == 200
    return client.post(
        "/login",
        data={"name": name, "password": password, "csrf": csrf_of(form.text)},
        follow_redirects=False,
    )


def final_landed(client, answer, timeout_s: float = 120.0):
    """A desk final's upload answers at once with its stages page (/uploads/final/<token>);
    asked again until it ends: the case's page (stored), the form with its refusal, or the
    confirm step of a Word file with open changes (the page then holds `confirm-open`)."""
    deadline = time.monotonic() + timeout_s
    while 'id="upload-stages"' in answer.text and "confirm-open" not in answer.text:
        assert time.monotonic() < deadline, "the final's upload never ended"
        time.sleep(0.1)
        answer = client.get(str(answer.url), follow_redirects=True)
    return answer


def text_of(page: str) -> str:
    """A page's HTML with its character references decoded (`&#34;` -> `"`) and its <bdi> and
    <kbd> marks dropped (numbers and Latin letters inside Hebrew are isolated in <bdi>)."""
    return html.unescape(re.sub(r"</?(?:bdi|kbd)\b[^>]*>", "", page))


def section(page: str, name: str) -> str:
    """The `<section id="NAME">` of a page."""
    return page.split(f'<section id="{name}"')[1].split("</section>")[0]


# The demo's seven searches, one per search tool (tests/cli/test_demo.py; tests/test_wheel.py
# reads each one's first hit from the printed demo of an installed wheel).
DEMO_SEARCH_TOOLS = (
    "search_precedent_library",
    "search_decisions",
    "search_case_documents",
    "find_similar_cases",
    "search_internal_decisions",
    "precedent_search_library",
    "search_digests",
)


def table_fingerprints(url: str) -> dict[str, tuple[int, str]]:
    """Every user table: its row count and an md5 of all its rows (in a fixed order)."""
    with psycopg.connect(url) as conn:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                " WHERE c.relkind = 'r' AND n.nspname = current_schema() ORDER BY 1"
            )
        ]
        found = {}
        for table in tables:
            query = sql.SQL(
                "SELECT count(*), md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), ''))"
                " FROM {} t"
            ).format(sql.Identifier(table))
            found[table] = tuple(conn.execute(query).fetchone())
    return found


# The lines of `legal-ai db restore --check`, a step each, in order (a proven archive).
PROOF_STEPS = ["archive", "manifest", "contents", "restore", "rows", "health", "drop", "proven"]


def until(predicate, timeout: float, what: str):
    """The first true value of `predicate()`, asked every 0.2 s; an AssertionError naming `what`
    after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")
