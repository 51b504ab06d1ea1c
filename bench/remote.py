"""Load test: searches over the network while a final uploads (issue 15 item 6).

Serves the database bench/search.py built (`bench_search` under --home: chunks in every corpus)
with `legal-ai serve` on 127.0.0.1 (a subprocess, a free port, an agent token and the chair's),
then runs a bounded number of clients for a bounded time: half call `search_precedent_library`
and `search_internal_decisions` through the MCP SDK's streamable HTTP client at /mcp, half call
GET /api/search; real queries (pbl-questions), each search embedding its query (the LRU is
defeated by a counter appended to the query). After a few seconds the chair uploads our draft
and her final of the demo's learning pair over HTTP (the final is extracted, segmented, embedded
and written to the style and internal corpora in the server while the searches go on).

    .venv/bin/python bench/remote.py --home DIR [--clients 8] [--seconds 20]

Prints one JSON object: per surface the count, errors, p50/p95 (and during the upload), the
upload's seconds and answer. Run bench/search.py --home DIR first (it builds the database).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path
from urllib.parse import quote

import httpx

from common import shared_queries
from legal_ai.store import start_embedded, stop_embedded
from legal_ai.store.db import with_database

AGENT, CHAIR = "bench-agent-token", "bench-chair-token"
CASE = "ערר (מרכז) {}/25"  # the demo's fictional pair, under a new number each run


def percentiles(samples: list[float]) -> dict:
    if not samples:
        return {"n": 0}
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return {
        "n": len(ordered),
        "p50_ms": round(statistics.median(ordered) * 1000, 1),
        "p95_ms": round(p95 * 1000, 1),
    }


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Run:
    def __init__(self, base: str, queries: list[str], seconds: float) -> None:
        self.base, self.queries, self.seconds = base, queries, seconds
        self.samples: list[dict] = []  # surface, seconds, ok, error, during_upload
        self.searching = 0.0  # from the first search to the last search's answer
        self.cpu: dict[str, float] = {}  # CPU seconds while the clients searched, by process
        self.uploading = False
        self.counter = 0

    def query(self) -> str:
        self.counter += 1
        return f"{self.queries[self.counter % len(self.queries)]} {self.counter}"

    def record(self, surface: str, started: float, error: str | None) -> None:
        self.samples.append(
            {
                "surface": surface,
                "seconds": time.perf_counter() - started,
                "ended": time.perf_counter(),
                "error": error,
                "during_upload": self.uploading,
            }
        )

    async def api_client(self, deadline: float) -> None:
        headers = {"Authorization": f"Bearer {AGENT}"}
        async with httpx.AsyncClient(base_url=self.base, headers=headers, timeout=60) as http:
            while time.perf_counter() < deadline:
                started = time.perf_counter()
                try:
                    response = await http.get(
                        "/api/search",
                        params={"query": self.query(), "corpus": "external", "limit": 10},
                    )
                    error = None if response.status_code == 200 else str(response.status_code)
                    if error is None and "hits" not in response.json():
                        error = "no hits field"
                except httpx.HTTPError as exc:
                    error = type(exc).__name__
                self.record("api", started, error)

    async def mcp_client(self, deadline: float) -> None:
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        headers = {"Authorization": f"Bearer {AGENT}"}
        tools = ("search_precedent_library", "search_internal_decisions")
        # The SDK's own timeouts: 30 s, and 300 s to read, since the session's event stream may
        # stay quiet for minutes (a 60 s read timeout ended the session with a ReadTimeout).
        timeout = httpx2.Timeout(30, read=300)
        async with httpx2.AsyncClient(headers=headers, timeout=timeout) as http:
            transport = streamable_http_client(f"{self.base}/mcp", http_client=http)
            async with Client(transport) as client:
                n = 0
                while time.perf_counter() < deadline:
                    n += 1
                    started = time.perf_counter()
                    try:
                        result = await client.call_tool(
                            tools[n % 2], {"query": self.query(), "limit": 10}
                        )
                        error = "tool error" if result.is_error else None
                    except Exception as exc:  # the SDK's error tree: count it, keep going
                        error = type(exc).__name__
                    self.record("mcp", started, error)

    async def upload(self, after: float) -> dict:
        await asyncio.sleep(after)
        root = Path(str(resources.files("legal_ai").joinpath("demo_data")))
        case = quote(CASE.format(7100 + time.time_ns() // 10**9 % 2800))
        # A final of new text each run: every long paragraph carries the run's mark, so none
        # of its chunks is in the embedding cache and the upload embeds them all.
        mark = f"(עותק {time.time_ns() // 1000 % 10**9})"
        lines = (root / "learning-final-7001.txt").read_text(encoding="utf-8").splitlines()
        final_text = "\n".join(f"{line} {mark}" if len(line) > 60 else line for line in lines)
        async with httpx.AsyncClient(base_url=self.base, timeout=300) as http:
            draft = await http.post(
                f"/api/cases/{case}/draft/upload",
                headers={"Authorization": f"Bearer {AGENT}"},
                files={"file": ("draft.txt", (root / "learning-draft-7001.txt").read_bytes())},
                data={
                    "appeal_type": "permit",
                    "outcome": "partially_accepted",
                    "practice_area": "planning",
                },
            )
            self.uploading = True
            started = time.perf_counter()
            final = await http.post(
                f"/api/cases/{case}/final/upload",
                headers={"Authorization": f"Bearer {CHAIR}"},
                files={"file": ("final.txt", final_text.encode())},
                data={"appeal_type": "permit", "outcome": "partially_accepted"},  # hers
            )
            seconds = time.perf_counter() - started
            self.uploading = False
        body = final.json()
        return {
            "draft_status": draft.status_code,
            "draft_error": draft.json().get("error"),
            "final_status": final.status_code,
            "final_seconds": round(seconds, 2),
            "pair_status": body.get("pair_status"),
            "error": body.get("error"),
        }

    async def main(self, clients: int, upload_after: float, server_pid: int) -> dict:
        started = time.perf_counter()
        deadline = started + self.seconds
        workers = [
            self.mcp_client(deadline) if i % 2 else self.api_client(deadline)
            for i in range(clients)
        ]
        before = cpu_seconds(server_pid)

        async def searches() -> None:
            await asyncio.gather(*workers)
            self.cpu = {k: v - before[k] for k, v in cpu_seconds(server_pid).items()}

        upload, _ = await asyncio.gather(self.upload(upload_after), searches())
        self.searching = max(s["ended"] for s in self.samples) - started
        return upload


def cpu_seconds(server_pid: int) -> dict[str, float]:
    """CPU seconds (user + system) used so far by the server, by every postgres process of the
    machine (the bench's server: nothing else runs during a run) and by these clients."""
    tick = os.sysconf("SC_CLK_TCK")

    def used(pid: int | str) -> float:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            return 0.0
        return (int(fields[11]) + int(fields[12])) / tick  # utime, stime

    postgres = 0.0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() == "postgres":
                postgres += used(pid)
        except (FileNotFoundError, ProcessLookupError):
            continue
    clients = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "server": used(server_pid),
        "postgres": postgres,
        "clients": clients.ru_utime + clients.ru_stime,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="bench/search.py's --home")
    parser.add_argument("--clients", type=int, default=8, help="concurrent clients (half MCP)")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--upload-after", type=float, default=5.0)
    parser.add_argument(
        "--database",
        default="bench_search",
        help="bench/search.py's database (bench_search_distinct: built with --set distinct)",
    )
    args = parser.parse_args()
    queries = shared_queries("pbl-questions")
    pgdata = args.home / "pgdata"
    server = start_embedded(pgdata)
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="legal-ai-remote-") as home:
        env = {k: v for k, v in os.environ.items() if not k.startswith("LEGAL_AI_")}
        env.update(
            LEGAL_AI_HOME=home,
            LEGAL_AI_DATABASE_URL=with_database(server, args.database),
            LEGAL_AI_AGENT_TOKEN=f"load={AGENT}",
            LEGAL_AI_CHAIR_TOKEN=CHAIR,
            LEGAL_AI_COMMITTEE_CHAIR='עו"ד רותם לוי',
        )
        # The server logs a JSON line per request to stderr: into a file, never an unread pipe
        # (a full pipe blocks the server's event loop at its next log line).
        log = open(Path(home) / "serve.log", "w")
        serve = subprocess.Popen(
            [sys.executable, "-m", "legal_ai.cli", "serve", "--port", str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(600):
                try:
                    if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.1)
            warm = httpx.get(
                f"{base}/api/search",
                headers={"Authorization": f"Bearer {AGENT}"},
                params={"query": queries[0], "corpus": "external"},
                timeout=120,
            )
            assert warm.status_code == 200, warm.text
            run = Run(base, queries, args.seconds)
            started = time.perf_counter()
            upload = asyncio.run(run.main(args.clients, args.upload_after, serve.pid))
            wall = time.perf_counter() - started
        finally:
            serve.terminate()
            try:
                serve.wait(30)
            except subprocess.TimeoutExpired:
                serve.kill()
            log.close()
            exhausted = pool_timeouts(Path(home) / "serve.log")
            stop_embedded(pgdata)
    report: dict = {
        "benchmark": "remote",
        "clients": args.clients,
        "seconds": round(wall, 1),
        "searching_seconds": round(run.searching, 1),
        "searches_per_second": round(
            sum(s["error"] is None for s in run.samples) / run.searching, 1
        ),
        # Where the two cores went while the clients searched, per search answered (the
        # upload's share too when it ran meanwhile): the server (the model's threads included),
        # PostgreSQL, and the clients themselves (they share the machine).
        "cpu_ms_per_search": {
            name: round(1000 * seconds / max(1, len(run.samples)), 1)
            for name, seconds in {**run.cpu, "total": sum(run.cpu.values())}.items()
        },
        "cores_busy": round(sum(run.cpu.values()) / run.searching, 2),
        "upload": upload,
        # The pool ran dry when a request waited LEGAL_AI_POOL_TIMEOUT_S for a connection in
        # vain (PoolTimeout, answered 503): the server's log names each (issue 39 item 2).
        "pool_exhausted": exhausted,
        "surfaces": {},
    }
    for surface in ("mcp", "api"):
        mine = [s for s in run.samples if s["surface"] == surface]
        ok = [s["seconds"] for s in mine if s["error"] is None]
        errors: dict[str, int] = {}
        for s in mine:
            if s["error"]:
                errors[s["error"]] = errors.get(s["error"], 0) + 1
        report["surfaces"][surface] = {
            **percentiles(ok),
            "errors": errors,
            "during_upload": percentiles(
                [s["seconds"] for s in mine if s["error"] is None and s["during_upload"]]
            ),
            # over the time the clients searched (the run's wall time also waits for the upload)
            "searches_per_second": round(len(ok) / run.searching, 1),
        }
    print(json.dumps(report, indent=2, ensure_ascii=False))


def pool_timeouts(log: Path) -> int:
    """How many times the server's log says a request found no pooled connection in time."""
    text = log.read_text(encoding="utf-8", errors="replace")
    return text.count("PoolTimeout") + text.count("couldn't get a connection")


if __name__ == "__main__":
    main()
