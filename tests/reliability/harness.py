"""Helpers of the reliability suite (tests/reliability) and of bench/reliability.py: processes we
start and kill by their own id, databases of our own on the test server, and read-only checks of
what a killed writer left behind.

Not a conftest.py on purpose: a second conftest module would shadow tests/conftest.py for every
`from conftest import ...` in the suite.
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
                args, env=env, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                start_new_session=True,
            )  # fmt: skip
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
                pieces = chunk_text(
                    text, count_tokens, page_starts=starts, target_tokens=chunk_tokens,
                    overlap_tokens=chunk_overlap_tokens,
                ) if text.strip() else []  # fmt: skip
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


def lock_waiters(url: str) -> list[str]:
    """The statements of this database's sessions that wait for a lock (a writer stopped by
    `holding`): empty while none waits."""
    dbname = psycopg.conninfo.conninfo_to_dict(url)["dbname"]
    return [
        r["query"]
        for r in rows(
            with_database(url, "postgres"),
            "SELECT query FROM pg_stat_activity WHERE datname = %s AND wait_event_type = 'Lock'",
            (dbname,),
        )
    ]
