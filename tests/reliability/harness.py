"""Helpers of the reliability suite (tests/reliability) and of bench/reliability.py: processes we
start and kill by their own id, databases of our own on the test server, and read-only checks of
what a killed writer left behind.

A module, not a conftest.py: bench/reliability.py imports it as well as the suite (importable
as `harness`: pyproject.toml puts tests/reliability on pytest's path; bench inserts it itself).
"""

from __future__ import annotations

import hashlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

# mcp.client.stdio binds sys.stderr as stdio_client's default errlog when first imported: import
# it at collection, not inside a test holding `capsys` (its buffer has no fileno for a child).
import mcp.client.stdio  # noqa: F401
import psycopg
from psycopg import sql
from psycopg.rows import dict_row

from legal_ai.ingest.pipeline import content_hash
from legal_ai.store import drop_database, ensure_database
from legal_ai.store.db import with_database
from legal_ai.text.chunking import chunk_text
from legal_ai.text.hebrew import get_analyzer

CLI = [sys.executable, "-m", "legal_ai.cli"]
CHAIR_NAME = 'עו"ד נועה בדיקה'  # the fictional chair of the suite's committee decisions
CHAIR_TOKEN = "rel-chair-token"
AGENT_TOKEN = "rel-agent-token"

# item table -> (chunk root, the chunks' item column)
ITEM_TABLES = {
    "documents": ("document_chunks", "document_id"),
    "case_law": ("case_law_chunks", "case_law_id"),
    "digests": ("digest_chunks", "digest_id"),
}


def wait_for(probe: Callable[[], Any], timeout: float, what: str, interval: float = 0.005) -> Any:
    """Call `probe` until it returns something truthy (returned) or `timeout` seconds pass."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(interval)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def environment(
    url: str | None, home: Path, tmpdir: Path, **extra: str | int | float
) -> dict[str, str]:
    """The environment of a legal-ai subprocess: ours without LEGAL_AI_*, its own HOME and
    TMPDIR (so what it leaves in a temp folder can be seen), a database URL unless None (the
    embedded server under HOME), and `extra` as LEGAL_AI_<NAME>."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEGAL_AI_")}
    for key in ("VOYAGE_API_KEY", "MULTIMODAL_ENABLED", "RRF_K", "MAX_PER_CASE_LAW"):
        env.pop(key, None)
    home.mkdir(parents=True, exist_ok=True)
    tmpdir.mkdir(parents=True, exist_ok=True)
    env.update(LEGAL_AI_HOME=str(home), TMPDIR=str(tmpdir), LEGAL_AI_COMMITTEE_CHAIR=CHAIR_NAME)
    if url:
        env["LEGAL_AI_DATABASE_URL"] = url
    env.update({f"LEGAL_AI_{k.upper()}": str(v) for k, v in extra.items()})
    return env


class Spawned:
    """A subprocess in its own session (process group), output to files, killed by its own id."""

    def __init__(self, args: list[str], env: dict[str, str], logs: Path, name: str) -> None:
        logs.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.out_path, self.err_path = logs / f"{name}.out", logs / f"{name}.err"
        with self.out_path.open("wb") as out, self.err_path.open("wb") as err:
            self.proc = subprocess.Popen(
                args,
                env=env,
                stdout=out,
                stderr=err,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        self.pid = self.proc.pid
        self.started = time.monotonic()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill9(self) -> None:
        """SIGKILL its process group (the group is ours: it was started as its own session)."""
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=10)

    def wait(self, timeout: float) -> int:
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill9()
            raise AssertionError(f"{self.name} did not finish in {timeout:.0f} s") from None

    def output(self) -> tuple[str, str]:
        return (
            self.out_path.read_text(errors="replace"),
            self.err_path.read_text(errors="replace"),
        )


# -- databases of our own ---------------------------------------------------------------------


@contextmanager
def own_database(server_url: str, purpose: str) -> Iterator[str]:
    """A fresh database `legal_ai_rel_<purpose>_<pid>` on the test server (dropped after)."""
    name = f"legal_ai_rel_{purpose}_{os.getpid()}"
    drop_database(server_url, name)
    url = ensure_database(server_url, name)
    try:
        yield url
    finally:
        drop_database(server_url, name)


def connect(url: str) -> psycopg.Connection:
    """A read-only connection (the checks never write)."""
    conn = psycopg.connect(url, row_factory=dict_row, autocommit=True)
    conn.execute("SET default_transaction_read_only = on")
    return conn


def rows(url: str, query: str, params: Any = None) -> list[dict]:
    with connect(url) as conn:
        return conn.execute(query, params).fetchall()


def scalar(url: str, query: str, params: Any = None) -> Any:
    try:
        found = rows(url, query, params)
    except psycopg.errors.UndefinedTable:
        return None
    return next(iter(found[0].values())) if found else None


def quiesce(url: str, timeout: float = 20.0) -> None:
    """Wait until no other session is connected to this database (a killed client's backend
    has noticed and rolled back)."""
    dbname = psycopg.conninfo.conninfo_to_dict(url)["dbname"]

    def alone() -> bool:
        return not scalar(
            with_database(url, "postgres"),
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            (dbname,),
        )

    wait_for(alone, timeout, f"the backends of {dbname} to end", interval=0.05)


def cached_hashes(url: str, embedder: str) -> set[str]:
    return {
        r["text_hash"]
        for r in rows(url, "SELECT text_hash FROM embedding_cache WHERE embedder = %s", (embedder,))
    }


def leftovers(*folders: Path) -> list[str]:
    """Every file or folder under `folders` (what a process left behind)."""
    found = []
    for folder in folders:
        if folder.exists():
            found += [str(p.relative_to(folder)) for p in sorted(folder.rglob("*"))]
    return found


# -- wholly old or wholly new -----------------------------------------------------------------


def check_items(
    url: str,
    *,
    count_tokens: Callable[[str], int],
    chunk_tokens: int,
    chunk_overlap_tokens: int,
    allowed: dict[str, set[str]] | None = None,
    complete: bool = True,
) -> dict:
    """Every item of every corpus is whole: its content hash is its content's, its chunks are
    exactly what chunking that content gives (count, spans, texts, text hashes), each chunk's
    analysis is what its recorded analyzer gives for its text, each embedded chunk records the
    text it embedded, the searchable flag is what the completeness rule says, and the item's
    current text is its latest recorded version. `allowed`: doc_id -> the contents it may have
    (an old or a new version). `complete`: every chunk must be fresh for the active embedder.
    Returns counts of what was checked. Reads only."""
    checked = {"items": 0, "chunks": 0}
    analyzers: dict[str, Any] = {}
    with connect(url) as conn:
        config = conn.execute("SELECT embedder FROM embedding_config").fetchone()
        active = config["embedder"] if config else None
        versions = conn.execute("SELECT to_regclass('item_versions') AS t").fetchone()["t"]
        for table, (chunk_root, fk) in ITEM_TABLES.items():
            items = conn.execute(
                sql.SQL(
                    "SELECT id, doc_id, content, content_hash, page_starts, searchable, missing"
                    " FROM {} ORDER BY id"
                ).format(sql.Identifier(table))
            ).fetchall()
            chunks: dict[int, list[dict]] = {}
            for row in conn.execute(
                sql.SQL(
                    "SELECT {fk} AS item_id, ordinal, page, char_start, char_end, text, text_hash,"
                    " analyzed, analyzer, embedding IS NOT NULL AS embedded, embedder,"
                    " embedded_hash FROM {chunks} ORDER BY {fk}, ordinal"
                ).format(fk=sql.Identifier(fk), chunks=sql.Identifier(chunk_root))
            ):
                chunks.setdefault(row["item_id"], []).append(row)
            for item in items:
                where = f"{table}/{item['doc_id']}"
                text, starts = item["content"], item["page_starts"]
                expected_hash = content_hash(SimpleNamespace(text=text, page_starts=starts))
                assert item["content_hash"] == expected_hash, f"{where}: content hash is stale"
                if allowed is not None and item["doc_id"] in allowed:
                    assert text in allowed[item["doc_id"]], f"{where}: a text never written"
                mine = chunks.get(item["id"], [])
                pieces = (
                    chunk_text(
                        text,
                        count_tokens,
                        page_starts=starts,
                        target_tokens=chunk_tokens,
                        overlap_tokens=chunk_overlap_tokens,
                    )
                    if text.strip()
                    else []
                )
                assert [
                    (c["ordinal"], c["char_start"], c["char_end"], c["page"]) for c in mine
                ] == [(p.ordinal, p.char_start, p.char_end, p.page) for p in pieces], (
                    f"{where}: its chunks are not its text's chunks"
                )
                fresh = False
                for chunk in mine:
                    assert chunk["text"] == text[chunk["char_start"] : chunk["char_end"]], where
                    assert chunk["text_hash"] == hashlib.sha256(chunk["text"].encode()).hexdigest()
                    analyzer = analyzers.setdefault(
                        chunk["analyzer"], get_analyzer(chunk["analyzer"])
                    )
                    assert chunk["analyzed"] == analyzer.analyze(chunk["text"]), (
                        f"{where}: chunk {chunk['ordinal']} analysis is not its analyzer's"
                    )
                    if chunk["embedded"]:
                        assert chunk["embedder"] and chunk["embedded_hash"], where
                    is_fresh = (
                        chunk["embedded"]
                        and chunk["embedder"] == active
                        and chunk["embedded_hash"] == chunk["text_hash"]
                    )
                    if complete:
                        assert is_fresh, f"{where}: chunk {chunk['ordinal']} is not embedded fresh"
                    fresh = fresh or is_fresh
                    checked["chunks"] += 1
                rule = not item["missing"] and fresh
                assert item["searchable"] == rule, f"{where}: searchable={item['searchable']}"
                if versions:
                    latest = conn.execute(
                        "SELECT content_hash FROM item_versions WHERE item_table = %s"
                        " AND item_id = %s ORDER BY id DESC LIMIT 1",
                        (table, item["id"]),
                    ).fetchone()
                    assert latest and latest["content_hash"] == item["content_hash"], (
                        f"{where}: its latest recorded version is not its current text"
                    )
                checked["items"] += 1
    return checked


def _lexicon(conn: psycopg.Connection) -> tuple:
    terms = conn.execute("SELECT source, term, df FROM lexicon WHERE df > 0 ORDER BY 1, 2")
    sizes = conn.execute("SELECT source, units, tokens FROM lexicon_size ORDER BY 1")
    return [tuple(r.values()) for r in terms.fetchall()], [tuple(r.values()) for r in sizes]


def check_lexicon(url: str) -> None:
    """The lexicon (document frequencies, unit and token counts) equals a rebuild from the
    chunks; the rebuild runs in a transaction that is rolled back, so nothing changes."""
    with psycopg.connect(url, row_factory=dict_row) as conn:
        kept = _lexicon(conn)
        conn.execute("SELECT lexicon_rebuild()")
        rebuilt = _lexicon(conn)
        conn.rollback()
    assert kept == rebuilt, "the lexicon statistics differ from a rebuild from the chunks"


def check_finals(url: str) -> dict:
    """Every final upload is whole: its pair points at an internal decision and a style document
    of the same case with the same text; the decision's citations are the ones its text makes;
    each authority's corroboration counts the decisions citing it. Reads only."""
    from legal_ai.text import citations

    checked = {"finals": 0, "citations": 0}
    with connect(url) as conn:
        finals = conn.execute(
            "SELECT p.case_number, p.status, p.case_law_id, p.style_document_id,"
            " c.content, c.case_number AS decision_case, d.content AS style_content"
            " FROM draft_final_pairs p LEFT JOIN case_law c ON c.id = p.case_law_id"
            " LEFT JOIN documents d ON d.id = p.style_document_id"
            " WHERE p.case_law_id IS NOT NULL OR p.style_document_id IS NOT NULL"
        ).fetchall()
        for final in finals:
            where = f"final of {final['case_number']}"
            assert final["status"] in ("final_received", "analyzed", "lessons_folded"), where
            assert final["content"] is not None and final["style_content"] is not None, where
            assert final["decision_case"] == final["case_number"], where
            assert final["content"] == final["style_content"], f"{where}: two different texts"
            stored = conn.execute(
                "SELECT a.ref FROM decision_citations dc JOIN authorities a"
                " ON a.id = dc.authority_id WHERE dc.citing_case_law_id = %s",
                (final["case_law_id"],),
            ).fetchall()
            made = {
                c.ref for c in citations.extract(final["content"]) if c.ref != final["case_number"]
            }
            assert {r["ref"] for r in stored} == made, f"{where}: citations are not its text's"
            checked["finals"] += 1
            checked["citations"] += len(stored)
        wrong = conn.execute(
            "SELECT a.ref, a.corroboration, count(DISTINCT dc.citing_case_law_id) AS citing"
            " FROM authorities a LEFT JOIN decision_citations dc ON dc.authority_id = a.id"
            " GROUP BY a.id HAVING a.corroboration <> count(DISTINCT dc.citing_case_law_id)"
        ).fetchall()
        assert not wrong, f"corroboration differs from the citing decisions: {wrong}"
    return checked


def final_parts(url: str, case: str) -> dict:
    """What the database holds of one case's final: its style documents, internal decisions and
    citations, and its pair's pointers (all present, or none, after any crash)."""
    with connect(url) as conn:
        pair = conn.execute(
            "SELECT case_law_id, style_document_id FROM draft_final_pairs WHERE case_number = %s",
            (case,),
        ).fetchone()
        return {
            "style": conn.execute(
                "SELECT count(*) AS n FROM documents WHERE corpus = 'style' AND case_number = %s",
                (case,),
            ).fetchone()["n"],
            "internal": conn.execute(
                "SELECT count(*) AS n FROM case_law WHERE source_kind = 'internal_committee'"
                " AND case_number = %s",
                (case,),
            ).fetchone()["n"],
            "citations": conn.execute(
                "SELECT count(*) AS n FROM decision_citations dc JOIN case_law c"
                " ON c.id = dc.citing_case_law_id WHERE c.case_number = %s",
                (case,),
            ).fetchone()["n"],
            "pair": bool(pair and pair["case_law_id"] and pair["style_document_id"]),
        }


@contextmanager
def holding(url: str, tables: list[str], mode: str = "SHARE") -> Iterator[psycopg.Connection]:
    """Hold a table lock (`LOCK TABLE ... IN <mode> MODE`, no data changed) for the block: a
    writer that needs a conflicting lock waits inside its transaction, a deterministic point to
    kill it at. Rolled back at the end."""
    conn = psycopg.connect(url, row_factory=dict_row)
    try:
        conn.execute(
            sql.SQL("LOCK TABLE {} IN {} MODE").format(
                sql.SQL(", ").join(map(sql.Identifier, tables)), sql.SQL(mode)
            )
        )
        yield conn
    finally:
        try:
            conn.rollback()
            conn.close()
        except psycopg.Error:
            pass  # the server went away (the test killed it)


def lock_waiters(url: str, holder: psycopg.Connection) -> list[str]:
    """The statements of the sessions that wait for a lock `holder` (from `holding`) holds:
    empty while none waits. Only the holder's waiters count: a session that waits a moment for
    autovacuum (which takes a table's exclusive lock to truncate it) is not the writer stopped."""
    return [
        r["query"]
        for r in rows(
            with_database(url, "postgres"),
            "SELECT query FROM pg_stat_activity WHERE %s = ANY(pg_blocking_pids(pid))",
            (holder.info.backend_pid,),
        )
    ]


# -- texts ------------------------------------------------------------------------------------

CHUNKS = {"chunk_tokens": 64, "chunk_overlap_tokens": 8}  # one chunk per paragraph below
PARAGRAPHS = (
    "העוררים טוענים כי הוועדה המקומית אישרה הקלה בקו בניין צדדי במגרש {n} ללא פרסום כדין,"
    " ובכך נפגעה זכותם להשמיע את התנגדותם.",
    "המשיבה השיבה כי ההקלה אינה עולה על עשרה אחוזים מקו הבניין שבתכנית {n}, וכי הפרסום נעשה"
    " לפי סעיף 149 לחוק התכנון והבנייה.",
    "לאחר שעיינו בטענות הצדדים החלטנו {verdict} את הערר: ההקלה במגרש {n} תאושר בכפוף להנמכת"
    " הגדר ולנטיעת עצים לאורך הגבול.",
)
VERDICTS = {1: "לקבל בחלקו", 2: "לדחות"}  # version 2 of an item changes its last paragraph


def item_text(n: int, version: int = 1) -> str:
    """A short fictional decision text (three one-chunk paragraphs) about plot `n`."""
    return "\n\n".join(p.format(n=n, verdict=VERDICTS[version]) for p in PARAGRAPHS) + "\n"


def final_text(
    number: int, verdict: str = "הערר מתקבל בחלקו", *, ruling: int = 9555, reverse: bool = False
) -> str:
    """The demo's fictional final (its citations: סעיף 149, סעיף 147(א), עע"מ 9101/20, בר"מ
    9555/21) under case number ערר (מרכז) N/25; `ruling` renumbers the בר"מ it cites;
    `reverse` opens it with a sentence citing the four authorities in the opposite order (so
    two such finals write their shared authorities in opposite orders)."""
    from importlib import resources

    text = (
        resources.files("legal_ai")
        .joinpath("demo_data/learning-final-7001.txt")
        .read_text(encoding="utf-8")
    )
    assert "7001/25" in text and "הערר מתקבל בחלקו" in text and "9555/21" in text
    text = text.replace("7001/25", f"{number}/25").replace("הערר מתקבל בחלקו", verdict)
    text = text.replace("9555/21", f"{ruling}/21")
    if reverse:
        opening = (
            f"0. ראו בר\"מ {ruling}/21 אלמוני נ' הוועדה המקומית; עע\"מ 9101/20 פלוני נ' הוועדה"
            " המקומית שרון הדרום; סעיף 147(א) לחוק וסעיף 149 לחוק.\n\n"
        )
        text = text.replace("1. לפנינו", opening + "1. לפנינו", 1)
    return text


def post_final(client: Any, case: str, text: str, token: str = CHAIR_TOKEN, **kwargs: Any) -> Any:
    """POST a final over HTTP (an httpx.Client on a live server, or a TestClient)."""
    from urllib.parse import quote

    return client.post(
        f"/api/cases/{quote(case, safe='')}/final/upload",
        headers={"Authorization": f"Bearer {token}"},
        files={"file": ("final.txt", text.encode("utf-8"), "text/plain")},
        data={"practice_area": "planning", "decided_on": "2025-04-20"},
        **kwargs,
    )


# -- load -------------------------------------------------------------------------------------

LOAD_CASE = "ערר 8100/25"  # the case whose documents are searched (and ingested into) under load
SEARCHES = (
    ("search_precedent_library", {"query": "הקלה בקו בניין צדדי ופרסום כדין"}),
    ("search_precedent_library", {"query": 'עע"מ 9101/20', "mode": "lexical"}),
    ("search_internal_decisions", {"query": "פרסום לפי סעיף 149 לחוק", "mode": "semantic"}),
    ("search_decisions", {"query": "הנמכת הגדר ונטיעת עצים", "practice_area": "planning"}),
    ("search_case_documents", {"query": "פגיעה בזכות להתנגד", "case_number": LOAD_CASE}),
    ("search_digests", {"query": "הקלה בקו בניין"}),
    ("precedent_search_library", {"query": "הקלה ופרטיות"}),
    (
        "find_similar_cases",
        {"text": "הקלה בקו בניין צדדי ופגיעה בשכנים", "practice_area": "planning"},
    ),
)


def seed_load_world(app: Any, folder: Path) -> None:
    """A small world in every corpus: case documents, style finals, external rulings (one of
    them the ruling the finals cite), internal decisions, a digest, an attached precedent."""
    folder.mkdir(parents=True, exist_ok=True)
    ruling = {"court": "העליון", "decided_on": "2021-03-01"}
    worlds = [
        ("case", 8100, {"case_number": LOAD_CASE, "practice_area": "planning"}),
        ("style", 8110, {"case_number": "ערר 8110/25", "practice_area": "planning"}),
        ("external", 8120, {**ruling, "case_number": 'עע"מ 9101/20', "title": "פלוני"}),
        ("external", 8121, {**ruling, "case_number": 'עע"מ 8121/19', "title": "אלמוני"}),
        (
            "internal",
            8130,
            {
                "case_number": "ערר 8130/24",
                "practice_area": "planning",
                "decided_on": "2024-05-05",
                "title": "החלטה",
                "headnote": "החלטת ועדת הערר",
                "summary": "הוועדה הכריעה בערר.",
                "tags": "ערר",
            },
        ),
        ("digests", 8140, {"points_to": 'עע"מ 9101/20', "title": "תקציר"}),
    ]
    for corpus, n, meta in worlds:
        path = folder / f"seed-{corpus}-{n}.txt"
        path.write_text(item_text(n), encoding="utf-8")
        report = app.ingest([path], corpus, meta=meta, doc_id=f"seed-{corpus}-{n}")
        assert report.ingested == 1 and not report.unsearchable, report.as_dict()
    app.attach_precedent(LOAD_CASE, 'עע"מ 9101/20', "הקלה ופרטיות")


class Recorder:
    """Latencies and outcomes of requests made from many threads."""

    def __init__(self) -> None:
        import threading

        self._lock = threading.Lock()
        self.samples: dict[str, list[float]] = {}
        self.errors: dict[str, list[str]] = {}

    def add(self, kind: str, seconds: float, error: str | None = None) -> None:
        with self._lock:
            self.samples.setdefault(kind, []).append(seconds)
            if error is not None:
                self.errors.setdefault(kind, []).append(error[:300])

    def figures(self) -> dict:
        import numpy as np

        out = {}
        for kind, values in self.samples.items():
            ms = np.asarray(values) * 1000
            out[kind] = {
                "served": len(values) - len(self.errors.get(kind, [])),
                "errors": len(self.errors.get(kind, [])),
                "p50_ms": round(float(np.percentile(ms, 50)), 1),
                "p95_ms": round(float(np.percentile(ms, 95)), 1),
                "max_ms": round(float(ms.max()), 1),
                "first_errors": self.errors.get(kind, [])[:3],
            }
        return out


async def _searchers(
    env: dict[str, str],
    servers: int,
    clients: int,
    record: Recorder,
    ready: Any,
    stop: Any,
    logs: Path,
    think: float,
) -> None:
    """`clients` concurrent loops of searches over `servers` MCP server processes (stdio), each
    pausing `think` seconds between its requests."""
    import asyncio
    from contextlib import AsyncExitStack

    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=CLI[0], args=[*CLI[1:], "mcp"], env=env)
    async with AsyncExitStack() as stack:
        sessions = []
        for index in range(servers):
            errlog = stack.enter_context((logs / f"mcp{index}.err").open("w"))
            transport = stdio_client(params, errlog=errlog)
            sessions.append(await stack.enter_async_context(Client(transport)))
        for session in sessions:  # open each server's App and model before the clock starts
            warm = await session.call_tool(*SEARCHES[0])
            assert not warm.is_error, warm.content
        ready.set()

        async def client(index: int) -> None:
            session, turn = sessions[index % servers], index
            while not stop.is_set():
                name, arguments = SEARCHES[turn % len(SEARCHES)]
                turn += 1
                started = time.perf_counter()
                try:
                    result = await session.call_tool(name, arguments)
                    error = result.content[0].text if result.is_error else None
                except Exception as exc:  # a transport failure is an error of the run
                    error = repr(exc)
                record.add("search", time.perf_counter() - started, error)
                if think:
                    await asyncio.sleep(think)

        await asyncio.gather(*(client(i) for i in range(clients)))


def _json_tail(text: str) -> dict | None:
    """The JSON object a `--json` command printed last (None when there is none)."""
    import json

    try:
        return json.loads(text[text.index("{") :])
    except ValueError:
        return None


def run_load(
    url: str,
    work: Path,
    *,
    clients: int = 8,
    mcp_servers: int = 2,
    seconds: float = 5.0,
    final_pairs: int = 2,
    ingest_files: int = 6,
    think: float = 0.0,
    timeout: float = 180.0,
) -> dict:
    """Searches from `clients` concurrent MCP clients (over `mcp_servers` `legal-ai mcp`
    processes) for at least `seconds`, while `final_pairs` pairs of finals are uploaded over HTTP
    to `legal-ai serve` (the two of a pair at once, citing the same authorities in opposite
    orders) and `legal-ai ingest` loads `ingest_files` files; each client pauses `think` seconds
    between requests (0: flat out). Returns the figures."""
    import asyncio
    import threading

    import httpx

    record = Recorder()
    port = free_port()
    env = environment(
        url, work / "home", work / "tmp", chair_token=CHAIR_TOKEN, agent_token=AGENT_TOKEN, **CHUNKS
    )
    serve = Spawned([*CLI, "serve", "--port", str(port)], env, work, "serve")
    # The ingest is the operator's (no token: a case file is not an agent's to add, and the
    # chair's CLI token must be registered first).
    tokens = ("LEGAL_AI_CHAIR_TOKEN", "LEGAL_AI_AGENT_TOKEN")
    operator = {k: v for k, v in env.items() if k not in tokens}
    base = f"http://127.0.0.1:{port}"
    ready, stop = threading.Event(), threading.Event()
    failure: list[BaseException] = []

    def searching() -> None:
        try:
            asyncio.run(_searchers(env, mcp_servers, clients, record, ready, stop, work, think))
        except BaseException as exc:  # reported by the caller
            failure.append(exc)
            ready.set()

    def healthy() -> bool:
        assert serve.alive(), serve.output()
        try:
            return httpx.get(f"{base}/healthz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def upload(case: str, text: str, barrier: threading.Barrier) -> None:
        with httpx.Client(base_url=base, timeout=timeout) as client:
            barrier.wait(timeout)
            started = time.perf_counter()
            try:
                answer = post_final(client, case, text)
                error = None if answer.status_code == 200 else f"{answer.status_code} {answer.text}"
            except httpx.HTTPError as exc:
                error = repr(exc)
            record.add("final_upload", time.perf_counter() - started, error)

    cases = []
    searcher = threading.Thread(target=searching, daemon=True)
    try:
        wait_for(healthy, timeout, "serve to answer", interval=0.1)
        searcher.start()
        ready.wait(timeout)
        if failure:
            raise failure[0]
        began = time.perf_counter()
        folder = work / "ingest"
        folder.mkdir(parents=True, exist_ok=True)
        for n in range(ingest_files):
            (folder / f"load-{n}.txt").write_text(item_text(8200 + n), encoding="utf-8")
        ingest = Spawned(
            [
                *CLI,
                "ingest",
                str(folder),
                "--corpus",
                "case",
                "--case-number",
                LOAD_CASE,
                "--practice-area",
                "planning",
                "--json",
            ],
            operator,
            work,
            "ingest",
        )
        for pair in range(final_pairs):
            barrier = threading.Barrier(2)
            uploaders = []
            for member in range(2):
                case = f"ערר (מרכז) {8300 + 2 * pair + member}/25"
                cases.append(case)
                text = final_text(
                    8300 + 2 * pair + member, ruling=8400 + pair, reverse=bool(member)
                )
                thread = threading.Thread(target=upload, args=(case, text, barrier), daemon=True)
                thread.start()
                uploaders.append(thread)
            for thread in uploaders:
                thread.join(timeout)
        ingest_started = ingest.started
        ingest_code = ingest.wait(timeout)
        ingest_seconds = time.monotonic() - ingest_started
        while time.perf_counter() - began < seconds:
            time.sleep(0.05)
        stop.set()
        searcher.join(timeout)
        duration = time.perf_counter() - began
    finally:
        stop.set()
        serve.kill9()
    if failure:
        raise failure[0]
    figures = record.figures()
    served = figures.get("search", {}).get("served", 0)
    return {
        "clients": clients,
        "mcp_servers": mcp_servers,
        "think_s": think,
        "seconds": round(duration, 1),
        "searches_per_second": round(served / duration, 1),
        "search": figures.get("search"),
        "final_upload": figures.get("final_upload"),
        "ingest": {
            "files": ingest_files,
            "exit_code": ingest_code,
            "seconds": round(ingest_seconds, 1),
            "report": _json_tail(ingest.output()[0]),
        },
        "cases": cases,
    }


def healthy(base: str, serve: Spawned) -> bool:
    """Whether `legal-ai serve` at `base` answers /healthz (asserting it is still running)."""
    import httpx

    assert serve.alive(), serve.output()
    try:
        return httpx.get(f"{base}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def pool_exhaustion(url: str, work: Path, *, requests: int = 12, timeout: float = 120.0) -> dict:
    """`legal-ai serve` with a pool of one connection and a 0.5 s pool timeout; an agent's draft
    upload takes that connection and waits on a table lock the caller holds (no data changed);
    meanwhile `requests` concurrent GETs need a connection. Returns their statuses and bodies,
    how long they took, the draft's answer once the lock goes, and an answer after that."""
    import threading
    from importlib import resources
    from urllib.parse import quote

    import httpx

    port = free_port()
    agent = {"Authorization": f"Bearer {AGENT_TOKEN}"}
    env = environment(
        url,
        work / "home",
        work / "tmp",
        agent_token=AGENT_TOKEN,
        pool_max_size=1,
        pool_timeout_s=0.5,
        **CHUNKS,
    )
    serve = Spawned([*CLI, "serve", "--port", str(port)], env, work, "serve-pool")
    base = f"http://127.0.0.1:{port}"
    draft = resources.files("legal_ai").joinpath("demo_data/learning-draft-7001.txt")
    text = draft.read_text(encoding="utf-8").replace("7001/25", "8700/25")
    held: dict = {}

    def upload_draft() -> None:
        with httpx.Client(base_url=base, timeout=timeout, headers=agent) as client:
            held["response"] = client.post(
                f"/api/cases/{quote('ערר (מרכז) 8700/25', safe='')}/draft/upload",
                files={"file": ("draft.txt", text.encode(), "text/plain")},
                data={
                    "appeal_type": "permit",
                    "outcome": "partially_accepted",
                    "practice_area": "planning",
                },
            )

    replies: list = [None] * requests

    def ask(index: int) -> None:
        with httpx.Client(base_url=base, timeout=timeout, headers=agent) as client:
            replies[index] = client.get("/api/learning/pairs")

    try:
        wait_for(lambda: healthy(base, serve), timeout, "serve to answer", interval=0.1)
        with httpx.Client(base_url=base, timeout=timeout, headers=agent) as client:
            before = client.get("/api/learning/pairs").status_code
            with holding(url, ["cases"]) as holder:  # the draft's write of its case waits
                drafting = threading.Thread(target=upload_draft, daemon=True)
                drafting.start()
                wait_for(lambda: lock_waiters(url, holder), timeout, "the draft to hold the pool")
                started = time.perf_counter()
                askers = [threading.Thread(target=ask, args=(i,)) for i in range(requests)]
                for asker in askers:
                    asker.start()
                for asker in askers:
                    asker.join(timeout)
                waited = time.perf_counter() - started
                draft_waited = "response" not in held
            drafting.join(timeout)
            after = client.get("/api/learning/pairs")
    finally:
        serve.kill9()
    return {
        "before": before,
        "statuses": [r.status_code for r in replies],
        "bodies": [r.text for r in replies],
        "retry_after": [r.headers.get("Retry-After") for r in replies],
        "seconds": round(waited, 2),
        "draft_waited_for_the_lock": draft_waited,
        "draft": (held["response"].status_code, held["response"].text[:300]),
        "after": (after.status_code, after.json()),
    }
