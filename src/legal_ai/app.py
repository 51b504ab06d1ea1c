"""The composition root every interface calls (CLI, MCP, web, demo). It owns the wiring:
settings -> store -> cached embedder -> the use cases (ingest / search / health / reindex), and
hands the ingestor the upkeep of arrival from learning/ and knowledge/. Interfaces stay thin;
nothing below them imports this module (scripts/check_imports.py)."""

from __future__ import annotations

import time
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from .auth import require_chair
from .config import Settings
from .context import ArrivalHooks, Context
from .corpora import get_corpus
from .errors import Forbidden, InvalidInput, NotFound
from .ingest import Ingestor, IngestReport
from .knowledge import exemplars, templates
from .learning.arrival import rekey
from .learning.arrival import upkeep as arrival
from .learning.library import links as library_links
from .learning.principles import jobs as principle_jobs
from .learning.principles import review as principle_review
from .learning.principles import spans as principle_spans
from .learning.vocabulary import free_text
from .metrics import searched
from .ops import database_health, upkeep
from .ops.database_health import AppHealth
from .ops.upkeep import AppReindex
from .progress import QUIET, Progress
from .providers.embedders import text_hash
from .retrieval import audit, legs
from .retrieval.contract import ToolAnswer
from .retrieval.search import SearchResult, search
from .retrieval.tools import CHAIR_TOOLS, TOOLS
from .store import deployment, jsonable, migrations
from .store import items as sql_items
from .store import ocr as ocr_store
from .store.db import (
    DEFAULT_DATABASE,
    Store,
    database_name,
    database_url,
    drop_database,
    ensure_database,
    server_url,
)
from .telemetry import log_search
from .text.case_numbers import normalize_case_number
from .text.citations import extract as extract_citations
from .text.hebrew import normalize

# The tool call in progress (App.tool): its name goes into the search's telemetry row, and the
# row's id comes back in the tool's answer (`search_id`).
_TOOL_CALL: ContextVar[dict | None] = ContextVar("legal_ai_tool_call", default=None)


def arrival_hooks() -> ArrivalHooks:
    """The upkeep of an item's arrival that ingest/ hands to learning/ and knowledge/ (in the
    item's transaction): links and resolutions, principles queued, a final cut into block
    exemplars, the chair's templates measured again."""
    return ArrivalHooks(
        arrived=arrival.on_arrival,
        ruling_arrived=principle_jobs.enqueue,
        ruling_changed=principle_spans.reanchor,
        final_warm=exemplars.warm,
        final_arrived=exemplars.index_document,
        finals_changed=templates.recompute,
    )


class App(Context):
    """The composition root (DESIGN.md §2): a `Context` built from the settings — store,
    embedder, analyzer, models — with the ingestor's arrival hooks from learning/ and knowledge/,
    and the services every interface calls (ingest, search, tools, principles, health,
    re-index). Only the interfaces (cli/, web/, mcp_server.py, demo.py) import it; the use
    cases receive it as the `Context` they are given."""

    def __init__(self, settings: Settings, **options: Any) -> None:
        options.setdefault("hooks", arrival_hooks())
        super().__init__(settings, **options)
        # The library's re-key a migration left pending (learning/arrival/rekey.py), by the login that
        # migrates; a process that may not migrate (the MCP server) leaves it to one that does.
        migrating = options.get("migrate", True)
        self.rekeyed = rekey.run_pending(self.store.as_role(None)) if migrating else None
        if migrating:  # the deployment's settings the database holds, recorded once (0040)
            self.record_deployment_settings()

    _also_owned: tuple[Store, ...] = ()  # stores it opened beside its own, closed with it

    @classmethod
    def rebuilt(cls, settings: Settings, database: str) -> App:
        """An App over the database `database` of the configured server (the embedded one when
        none is), dropped and made again from empty: the demo's own, the application's data
        untouched. Its embedding cache stays in the application's database, so a rebuild embeds
        nothing embedded before; with the settings pointed at `database` itself, the cache is in
        the server's default database. The App closes both stores."""
        if settings.database_url and database_name(settings.database_url) == database:
            url = ensure_database(settings.database_url, DEFAULT_DATABASE)
            settings = settings.model_copy(update={"database_url": url})
        server = server_url(settings)
        opened: list[Store] = [Store(database_url(settings), max_size=2)]
        try:
            drop_database(server, database)
            opened.append(Store(ensure_database(server, database), max_size=2))
            app = cls(settings, store=opened[1], cache_store=opened[0])
        except BaseException:
            for store in opened:
                store.close()
            raise
        app._owns_store = True
        app._also_owned = (opened[0],)
        return app

    def close(self) -> None:
        if self._owns_store:  # a view (acting_as) shares the stores and closes none of them
            for store in self._also_owned:
                store.close()
        super().close()

    def record_deployment_settings(self, *, replace: bool = False) -> dict[str, int]:
        """Record the deployment's values the database enforces (HALACHA_PANEL_MAX_NEW, the
        cap of new principles per decision) by the login's own role: on first use when absent,
        anew by `legal-ai db migrate` (`replace`). Never from a request's role."""
        with self.store.as_role(None).transaction() as conn:
            cap = sql_items.record_principle_cap(
                conn, self.settings.halacha_panel_max_new, replace=replace
            )
        return {"halacha_panel_max_new": cap}

    # -- ingestion ------------------------------------------------------------------------------
    def ingestor(self) -> Ingestor:
        return Ingestor.of(self)

    def ingest(
        self,
        paths: list[Path],
        corpus: str,
        *,
        meta: dict[str, Any] | None = None,
        doc_id: str | None = None,
        text_fields: tuple[str, ...] = ("text",),
        progress: Progress = QUIET,
        reassign: bool = False,
    ) -> IngestReport:
        target = get_corpus(corpus)
        if corpus == "case_precedents":
            raise InvalidInput("attach citations with `legal-ai case attach-precedent`")
        if corpus == "case":
            self._may_add_case_files()
        return self.ingestor().ingest_paths(
            paths,
            target,
            meta,
            doc_id=doc_id,
            text_fields=text_fields,
            progress=progress,
            reassign=reassign,
        )

    def _may_add_case_files(self) -> None:
        """A case file's documents (protocols, appeal notices, pleadings) are the operator's or
        the chair's to add: Forbidden for an agent, and for a process on an agent's own
        database login (the database refuses them too: migration 0036)."""
        if self.principal.kind == "agent":
            raise Forbidden(
                f"adding documents to a case file is the operator's or the chair's, not "
                f"{self.principal.actor}'s; nothing was ingested",
                code="case_file.not_agent",
            )
        with self.store.as_role(None).connection() as conn:
            if deployment.login_is_agent(conn):
                raise Forbidden(
                    "adding documents to a case file is the operator's or the chair's: this "
                    "database login is an agent's; nothing was ingested",
                    code="case_file.not_agent",
                )

    # -- search ---------------------------------------------------------------------------------
    def search(
        self,
        corpus: str,
        query: str,
        *,
        filters: legs.Filters | None = None,
        limit: int = 10,
        mode: str = "hybrid",
        **options: Any,
    ) -> SearchResult:
        """Search one corpus (used by the tools; `options`: vector, group_by, cap). Every search
        passes here: an App with a surface logs it (telemetry.log_search; never fails it), and
        the web app serving the request counts it (metrics.searched: latency and hits)."""
        started = time.perf_counter()
        result = search(
            self.store,
            self.embedder,
            self.settings,
            corpus,
            query,
            filters=filters,
            limit=limit,
            mode=mode,
            image_embedder=self.images,
            reranker=self.reranker,
            **options,
        )
        searched(corpus, mode, self.surface, time.perf_counter() - started, len(result.hits))
        if self.surface is not None and self.settings.telemetry:
            call = _TOOL_CALL.get()
            search_id = log_search(
                self,
                corpus=corpus,
                query=query,
                filters=filters,
                mode=mode,
                limit=limit,
                result=result,
                latency_ms=(time.perf_counter() - started) * 1000,
                tool=call["tool"] if call else None,
                by_example=options.get("vector") is not None,
            )
            if call is not None and search_id is not None:
                call["search_id"] = search_id
        return result

    def tool(self, name: str, **arguments: Any) -> ToolAnswer:
        """Call a search tool by name (the MCP server and `legal-ai search` go through here).
        A logged search's answer carries its telemetry row's id (`search_id`)."""
        tool = TOOLS.get(name) or (CHAIR_TOOLS.get(name) if self.principal.is_chair else None)
        if tool is None:
            raise InvalidInput(
                f"unknown tool {name!r}; tools: {', '.join(TOOLS)}", code="tool.unknown"
            )
        call: dict[str, Any] = {"tool": name}
        token = _TOOL_CALL.set(call)
        try:
            answer = tool(self, **arguments)
        finally:
            _TOOL_CALL.reset(token)
        if "search_id" in call:
            answer["search_id"] = call["search_id"]
        return answer

    def case_profile(self, case_number: str) -> tuple[str, Any]:
        with self.store.connection() as conn:
            return sql_items.case_profile(conn, case_number, self.embedder.id)

    def case_practice_area(self, case_number: str) -> str | None:
        with self.store.connection() as conn:
            return sql_items.case_practice_area(conn, case_number)

    def _unit(self, text: str, *, page: int | None = None, start: int = 0) -> sql_items.ChunkRow:
        """Analyze and embed one searchable unit (a principle, an attached precedent)."""
        return sql_items.ChunkRow(
            ordinal=0,
            page=page,
            char_start=start,
            char_end=start + len(text),
            section=None,
            text=text,
            text_hash=text_hash(text),
            analyzed=self.analyzer.analyze(text),
            analyzer=self.analyzer.id,
            embedding=self.embedder.embed_passages([text])[0],
            embedder=self.embedder.id,
        )

    def add_principle(
        self,
        corpus: str,
        doc_id: str,
        rule_text: str,
        supporting_quote: str,
        *,
        review_status: str = "proposed",
    ) -> int:
        """Attach a principle to a ruling, grounded in a verbatim quote of its text (refused
        when the quote is not there). A principle is substance: only the chair may add one as
        anything but `proposed` (the database refuses it too)."""
        if self.principal.kind == "agent":
            raise Forbidden(
                "an agent does not add principles: the system's panel draws them from a ruling "
                "(queue its extraction), or the chair adds one",
                code="principle.not_agent",
            )
        if review_status != "proposed":
            require_chair(self.principal, f"a principle added as {review_status}")
        target = get_corpus(corpus)
        if target.principle_table is None:
            raise InvalidInput(
                f"corpus {corpus!r} has no principles; use external or internal",
                code="corpus.no_principles",
                field="corpus",
            )
        rule_text = free_text(rule_text, "principle's rule text", max_chars=4000)
        quote = free_text(supporting_quote, "supporting quote", max_chars=8000)
        with self.store.connection() as conn:
            item = sql_items.find_item(conn, target, doc_id)
        if item is None:
            raise NotFound(f"no {corpus} item with doc_id {doc_id!r}")
        start = item["content"].find(quote)
        if start < 0:
            raise InvalidInput(
                "the supporting quote is not in the ruling's text; quote it verbatim",
                code="principle.quote_not_found",
                field="quote",
            )
        page = None
        if item["page_starts"]:
            page = sum(1 for offset in item["page_starts"] if offset <= start)
        unit = self._unit(rule_text, page=page)
        unit = sql_items.ChunkRow(
            **{**unit.__dict__, "char_start": start, "char_end": start + len(quote)}
        )
        with self.store.transaction() as conn:
            return sql_items.insert_principle(
                conn,
                target,
                item["id"],
                unit,
                quote,
                review_status,
                None if review_status == "proposed" else self.principal.actor,
            )

    def review_principle(
        self,
        principle_id: int,
        decision: str,
        reason: str | None = None,
        expected_status: str | None = None,
    ) -> dict:
        """The chair's decision on a principle (learning/principles/review.review), its row's
        dates as ISO text (the API's answer, the CLI's --json)."""
        return jsonable(
            principle_review.review(self, principle_id, decision, reason, expected_status)
        )

    def item_history(self, doc_id: str, corpus: str | None = None) -> dict:
        """Every version of an item's text, oldest first (`legal-ai item history`)."""
        if corpus is not None:
            get_corpus(corpus)

        with self.store.connection() as conn:
            rows = sql_items.item_history(conn, doc_id, corpus)
            # An item read from a scan: its OCR engine and confidences (ingest/ocr_jobs.py).
            scanned = ocr_store.read_items(conn, doc_id=doc_id, corpus_key=corpus)
        if not rows:
            raise NotFound(f"no item with doc_id {doc_id!r}" + (f" in {corpus}" if corpus else ""))
        return {
            "doc_id": doc_id,
            "versions": [dict(r) for r in rows],
            "ocr": [dict(r) for r in scanned],
        }

    # -- cases ----------------------------------------------------------------------------------
    def attach_precedent(self, case_number: str, citation: str, note: str | None = None) -> dict:
        """Record that the chair relies on `citation` in her case (table case_precedents)."""
        case_number = normalize_case_number(case_number)
        citation = " ".join(free_text(citation, "citation", max_chars=500).split())
        note = free_text(note, "note", required=False, max_chars=4000)
        key = " ".join(normalize(citation).replace('"', "").split())
        with self.store.transaction() as conn:
            if not sql_items.get_case(conn, case_number):
                raise NotFound(
                    f"no case {case_number!r}; ingest one of its documents first"
                    " (legal-ai ingest FILE --corpus case --case-number ...)"
                )
            saved = sql_items.save_precedent(
                conn, case_number, citation, key, self._cited_ruling(conn, citation), note
            )
            title = sql_items.ruling_title(conn, saved["case_law_id"])
            text = " — ".join(p for p in (saved["citation"], saved["note"], title) if p)
            sql_items.index_precedent(conn, saved["id"], self._unit(text))
        return dict(saved)

    @staticmethod
    def _cited_ruling(conn: Any, citation: str) -> int | None:
        """The library's ruling an attached citation names, by its whole identity (or its
        reporter alias); None when none, or several, fit (library_links.match)."""
        named = [c for c in extract_citations(citation) if c.kind in ("ruling", "reporter")]
        if named:
            return library_links.match(conn, named[0]).target
        ruling = sql_items.find_ruling(conn, normalize_case_number(citation))
        return ruling["id"] if ruling else None

    # -- health and re-index --------------------------------------------------------------------
    def pending_migrations(self, within_s: float) -> list[str]:
        """The shipped migrations this database lacks (`0054_item_area_index`, ...), read within
        `within_s` seconds: the connection and the read each bounded, so a probe (/readyz)
        answers in time; psycopg's error or the pool's PoolTimeout when the database does not."""
        with self.store.transaction(timeout=within_s, statements=within_s) as conn:
            return migrations.pending_on(conn)

    def health(self) -> AppHealth:
        """What cannot be searched and why, stale or missing embeddings and stale analysis, the
        isolation audit and the roles, and what changed outside ingest (ops/database_health.py)."""
        return database_health.found(self)

    def isolation_audit(self, probe: str = audit.PROBE) -> audit.IsolationReport:
        """INV-RET1, checked two ways (retrieval/audit.py)."""
        return audit.isolation(self, probe)

    def reindex(self, batch: int = 64, *, progress: Progress = QUIET) -> AppReindex:
        """What changed re-embedded and re-analyzed, her finals cut again, the principles' spans
        repaired (ops/upkeep.reindex)."""
        return upkeep.reindex(self, batch, progress=progress)
