"""Load items into a corpus under the completeness contract.

Per item: unchanged content (same sha256, same fields) is skipped without embedding; otherwise
the text is chunked and embedded (through the cache) *outside* the transaction, then one
transaction locks the (corpus, doc_id), re-checks, writes the item and replaces its chunks.
A failure rolls back that item only; the rest of the batch still loads. Whether the item is
searchable is decided by the database (see migrations/0001_init.sql) and reported back.
Staging (values, chunks, embeddings, page images, OCR's text) is ingest/staging.py.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NotRequired, TypedDict, get_args

import psycopg

from .. import upload_names
from ..config import Settings
from ..context import NO_HOOKS, ArrivalHooks, Context
from ..corpora import Corpus
from ..errors import AppError, InvalidInput, StoreError
from ..progress import QUIET, Progress
from ..providers.embedders import Embedder
from ..store import items as sql_items
from ..store import originals
from ..store.db import Store
from ..store.rows import Conn
from ..text.bounds import Limits
from ..text.hebrew import get_analyzer
from . import metadata_fold, ocr_jobs
from .sources import IngestItem, SourceError, iter_paths, read_source
from .staging import Staged, Stager
from .staging import content_hash as content_hash

logger = logging.getLogger(__name__)


class Unsearchable(TypedDict):
    """An item stored but not searchable: what it lacks, and the `--meta` that would set it."""

    doc_id: str
    missing: list[str]
    set: str


class Failed(TypedDict):
    """A file or item not stored: where, and why (one line)."""

    path: str
    error: str


class Resolved(TypedDict):
    """What the items' arrival settled (learning/arrival/upkeep.py): missing precedents resolved,
    digests linked to their rulings, internal decisions queued for enrichment."""

    missing_precedents: int
    digests: int
    enrichment_queued: int


ResolvedKey = Literal["missing_precedents", "digests", "enrichment_queued"]
RESOLVED: tuple[ResolvedKey, ...] = get_args(ResolvedKey)


class IngestAnswer(TypedDict):
    """`legal-ai ingest --json` (DESIGN §10), plus `updated` (metadata-only changes), `resolved`,
    and `returned_to_chair` when a re-ingested ruling sent principles back to her."""

    ingested: int
    unchanged: int
    updated: int
    unsearchable: list[Unsearchable]
    failed: list[Failed]
    resolved: Resolved
    returned_to_chair: NotRequired[list[dict]]


@dataclass
class IngestReport:
    """What one ingest did; `as_dict()` is its `--json` answer (IngestAnswer)."""

    ingested: int = 0
    unchanged: int = 0
    updated: int = 0
    unsearchable: list[Unsearchable] = field(default_factory=list)
    failed: list[Failed] = field(default_factory=list)
    doc_ids: list[str] = field(default_factory=list)
    resolved: Resolved = field(
        default_factory=lambda: Resolved(missing_precedents=0, digests=0, enrichment_queued=0)
    )
    # Principles of a re-ingested ruling whose quote its new text no longer holds: back to the
    # chair, with the reason (learning/principles/spans.py); in the JSON only when there are any.
    returned_to_chair: list[dict] = field(default_factory=list)

    def as_dict(self) -> IngestAnswer:
        out: IngestAnswer = {
            "ingested": self.ingested,
            "unchanged": self.unchanged,
            "updated": self.updated,
            "unsearchable": self.unsearchable,
            "failed": self.failed,
            "resolved": self.resolved,
        }
        if self.returned_to_chair:
            out["returned_to_chair"] = self.returned_to_chair
        return out


METADATA = ("headnote", "summary", "tags")  # an internal decision's, filled by the enricher


def to_set(item: IngestItem, missing: list[str]) -> str:
    """What to set for the item to become searchable."""
    fields = [f for f in missing if ":" not in f and " " not in f]
    if not fields:
        return "; ".join(missing)
    given = " ".join(f"--meta {f}=…" for f in fields)
    hint = f"ingest it again with {given} (JSONL: the same fields)"
    if item.doc_type == "decision" and set(fields) & set(METADATA):
        hint += (
            "; a decision's headnote, summary and tags are also filled on the desk "
            "(/training/metadata) or by the enricher (LEGAL_AI_ENRICHER, `legal-ai enrich run`)"
        )
    return hint


class FileRead:
    """The mark, among a batch's items, that the file before it has given all its items."""


class TextMovedOn(StoreError):
    """An item staged without chunks (its text was stored) finds another text stored."""

    code = "ingest.text_moved_on"


def _comparable(value: Any) -> Any:
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


class Ingestor(Stager):
    """Writes items into a corpus. `hooks`: the upkeep an item's arrival starts in its
    transaction (context.ArrivalHooks; the composition root passes learning/'s and knowledge/'s,
    which this package may not import); without them an item is written and nothing else."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        settings: Settings,
        images: Any = None,
        hooks: ArrivalHooks = NO_HOOKS,
    ) -> None:
        self.reassign = False  # ingest_paths(reassign=True) lets an item move to another case
        self.hooks = hooks
        self.store = store
        self.embedder = embedder
        self.images = images  # the multimodal embedder (MULTIMODAL_ENABLED) or None
        self.settings = settings
        self.analyzer = get_analyzer(settings.analyzer)

    @classmethod
    def of(cls, context: Context) -> Ingestor:
        """The ingestor of a context: its store (its principal's role), embedder, image
        embedder and arrival hooks."""
        return cls(
            context.store,
            context.embedder,
            context.settings,
            images=context.images,
            hooks=context.hooks,
        )

    def _arrived(
        self,
        conn: Conn,
        corpus: Corpus,
        item_id: int,
        values: dict,
        *,
        text_changed: bool,
    ) -> dict:
        """Upkeep on arrival, in the item's transaction (learning/arrival/upkeep.py, through the hook):
        a ruling resolves the missing precedents citing it and the digests pointing at it, a
        digest is linked to its ruling, an internal decision's enrichment is queued. Returned
        under the key `arrival`."""
        found = self.hooks.arrived(conn, corpus, item_id, values, text_changed=text_changed)
        return {"arrival": found} if found is not None else {}

    # -- entry points ---------------------------------------------------------------------------
    def ingest_paths(
        self,
        paths: list[Path],
        corpus: Corpus,
        meta: dict[str, Any] | None = None,
        *,
        doc_id: str | None = None,
        text_fields: tuple[str, ...] = ("text",),
        progress: Progress = QUIET,
        reassign: bool = False,
    ) -> IngestReport:
        """Ingest files and folders. An item whose doc_id is already stored under another case
        is refused unless `reassign` (the explicit --reassign of the CLI). `progress` hears the
        files done of all the files named, the file written (its name under the folder named;
        a statute's title beside it) and the last item written."""
        files = list(iter_paths(paths))
        if doc_id and len(files) > 1:
            raise InvalidInput("--doc-id names one document; give a single file with it")
        self.reassign = reassign
        limits = Limits.of(self.settings)
        progress.start("ingest", len(files), "files")
        names = {str(path): name for path, name in files}
        finished = 0

        def tally(where: str, done: IngestItem | FileRead | None) -> None:
            nonlocal finished
            finished += isinstance(done, FileRead)
            item = done if isinstance(done, IngestItem) else None
            title = item and (item.fields.get("law_title") or item.metadata.get("law_title"))
            name = names.get(where, where)
            progress.update(
                finished,
                current=f"{name} ({title})" if title else name,
                last=item.doc_id if item else None,
            )

        def entries() -> Iterable[tuple[IngestItem | SourceError | FileRead, str]]:
            for path, name in files:
                for entry in read_source(
                    path,
                    corpus,
                    meta or {},
                    doc_id=doc_id,
                    max_bytes=self.settings.max_file_mb * 2**20,
                    text_fields=text_fields,
                    name=name,
                    limits=limits,
                ):
                    yield entry, str(path)
                yield FileRead(), str(path)

        return self._ingest_all(entries(), corpus, tally)

    def ingest_items(
        self, items: Iterable[IngestItem], corpus: Corpus, *, progress: Progress = QUIET
    ) -> IngestReport:
        """Ingest items already read; `progress` hears how many are written (its phase and
        total are the caller's to start)."""
        written = 0

        def tally(where: str, item: IngestItem | FileRead | None) -> None:
            nonlocal written
            written += 1
            last = item.doc_id if isinstance(item, IngestItem) else None
            progress.update(written, current=where, last=last)

        return self._ingest_all(((item, item.source_path) for item in items), corpus, tally)

    def _ingest_all(
        self,
        entries: Iterable[tuple[IngestItem | SourceError | FileRead, str]],
        corpus: Corpus,
        tally: Callable[[str, IngestItem | FileRead | None], None] | None = None,
    ) -> IngestReport:
        """Stage the next item in a worker thread while this one is written. Staging (chunking,
        analysis, the embedder) is Python and the model; writing is the database; on two cores
        they overlap. Staging stays sequential, so an item's fresh embeddings are in the cache
        before the next item looks for them, and every write re-checks the stored item under
        its lock: an item staged before an earlier one with its doc_id was written is still
        written correctly (staged as unchanged but finding another text stored, it is staged
        again in full)."""
        report = IngestReport()
        pending: tuple[IngestItem | SourceError | FileRead, str, Future | None] | None = None
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="legal-ai-stage") as worker:
            for entry, where in entries:
                staging = (
                    worker.submit(self._stage_if_changed, entry, corpus)
                    if isinstance(entry, IngestItem)
                    else None
                )
                if pending:
                    self._finish(*pending, report, tally)
                pending = (entry, where, staging)
            if pending:
                self._finish(*pending, report, tally)
        if corpus.key == "style" and report.ingested:  # the chair's templates, once per batch
            with self.store.transaction() as conn:
                self.hooks.finals_changed(conn)
        return report

    # -- one item -------------------------------------------------------------------------------
    def _finish(
        self,
        entry: IngestItem | SourceError | FileRead,
        where: str,
        staging: Future | None,
        report: IngestReport,
        tally: Callable[[str, IngestItem | FileRead | None], None] | None,
    ) -> None:
        """Write an item (or record a source's error); `tally` is told the item once written,
        and a file once its every item was (a FileRead after them)."""
        written = len(report.doc_ids)
        if isinstance(entry, FileRead):
            if tally:
                tally(where, entry)
            return
        if isinstance(entry, SourceError):
            report.failed.append({"path": entry.path, "error": entry.error})
            if tally:  # told nothing was written
                tally(where, None)
            return
        if staging is None:  # an item comes with its staging (`_stage`)
            raise ValueError(f"{entry.doc_id} was not staged")
        self._write(entry, staging, report)
        if tally:  # told the item when it was written (not when it failed)
            tally(where, entry if len(report.doc_ids) > written else None)

    def _write(self, item: IngestItem, staging: Future, report: IngestReport) -> None:
        try:
            staged = staging.result()
            try:
                with self.store.transaction() as conn:
                    outcome, status = self.write_staged(conn, staged, measure_templates=False)
            except TextMovedOn:
                # staged as unchanged, but an earlier item of this run (same doc_id) has since
                # stored another text: stage it in full and write it once more
                with self.store.transaction() as conn:
                    outcome, status = self.write_staged(
                        conn, self.stage(item, staged.corpus), measure_templates=False
                    )
        except (
            AppError,
            psycopg.errors.DataError,
            psycopg.errors.IntegrityError,
            psycopg.errors.ProgramLimitExceeded,  # a value too large for its index
        ) as exc:
            message = str(exc).splitlines()[0]
            if isinstance(exc, psycopg.Error):
                message = (
                    f"{item.source_path}: rejected by the database ({message}); fix the metadata"
                )
            report.failed.append({"path": item.source_path, "error": message})
            return
        except psycopg.OperationalError as exc:  # the server went away: no later item can land
            if exc.sqlstate and not exc.sqlstate.startswith(("08", "57P")):
                raise  # the server answered (a deadlock, a cancelled statement): not a lost server
            raise StoreError(
                f"lost the connection to PostgreSQL while writing {item.source_path}; the items "
                "written before it are stored whole: run the same ingest again to finish"
            ) from exc
        setattr(report, outcome, getattr(report, outcome) + 1)
        report.doc_ids.append(item.doc_id)
        arrival = (status or {}).get("arrival") or {}
        for key in RESOLVED:
            report.resolved[key] += int(arrival.get(key) or 0)
        report.returned_to_chair += ((status or {}).get("principles") or {}).get("returned", [])
        if status and not status["searchable"]:
            missing = list(status["missing"]) or ["an embedded chunk (run `legal-ai reindex`)"]
            report.unsearchable.append(
                {"doc_id": item.doc_id, "missing": missing, "set": to_set(item, missing)}
            )

    def _same_fields(self, existing: dict, values: dict) -> bool:
        for key, value in values.items():
            if key in ("content", "metadata"):
                continue
            if _comparable(existing.get(key)) != _comparable(value):
                return False
        return existing.get("metadata") == values["metadata"].obj

    def write_staged(
        self, conn: Conn, staged: Staged, *, measure_templates: bool = True
    ) -> tuple[str, dict]:
        """Write a staged item inside the caller's transaction: `unchanged`, `updated` (same
        text, other fields) or `ingested` (new or changed text: chunks replaced). A style final
        written alone (`final upload`) re-measures the chair's templates in this transaction;
        a batch passes `measure_templates=False` and measures once, after its last item."""
        item, corpus, values = staged.item, staged.corpus, staged.values
        sql_items.lock_item(conn, corpus, item.doc_id)
        existing = sql_items.find_item(conn, corpus, item.doc_id)
        moved_from = (existing or {}).get("case_number")
        if moved_from and moved_from != values.get("case_number") and not self.reassign:
            raise InvalidInput(
                f"{item.doc_id}: this doc_id belongs to case {moved_from}, not "
                f"{values.get('case_number') or 'no case'}; give another --doc-id, or pass "
                "--reassign to move the item (its earlier versions are kept)"
            )
        self._prepare(conn, item, corpus, values)
        if staged.scan is not None and item.file_sha256:
            ocr_jobs.enqueue(conn, item.file_sha256, staged.scan)  # a scan: kept, queued for OCR
        if staged.original is not None:  # the file as she uploaded it (migration 0046)
            with self.store.as_login(conn):
                originals.keep(conn, staged.original, upload_names.file_name(item.source_path))
        if existing and existing["content_hash"] == values["content_hash"]:
            if self._same_fields(existing, values):
                return "unchanged", _status(conn, corpus, existing["id"])
            changed = {
                k: v
                for k, v in values.items()
                if k not in ("content", "content_hash", "page_starts", "doc_id")
            }
            sql_items.update_fields(conn, corpus, existing["id"], changed)
            self._fold_metadata(conn, corpus, existing["id"])
            found = self._arrived(conn, corpus, existing["id"], values, text_changed=False)
            return "updated", {**_status(conn, corpus, existing["id"]), **found}
        if staged.chunks is None:
            raise TextMovedOn(
                f"{item.source_path}: the stored text changed while this was written; run it again"
            )
        item_id = sql_items.upsert_item(conn, corpus, values)
        sql_items.replace_chunks(conn, corpus, item_id, staged.chunks, new_item=existing is None)
        self._fold_metadata(conn, corpus, item_id)
        if self.images is not None:
            sql_items.replace_page_images(conn, corpus, item_id, staged.pages or [], self.images.id)
        moved = {}
        if existing is not None and corpus.principle_table:  # its principles' spans, found again
            moved = {"principles": self.hooks.ruling_changed(conn, item_id)}
        if corpus.principle_table and values["doc_type"] in ("ruling", "decision") and item.text:
            self.hooks.ruling_arrived(conn, item_id, values["content_hash"])  # its principles
        if corpus.key == "style":  # cut into blocks and paragraphs (migration 0018), measured
            self.hooks.final_arrived(conn, item_id, self.analyzer, self.embedder)
            if measure_templates:
                self.hooks.finals_changed(conn)
        found = self._arrived(conn, corpus, item_id, values, text_changed=True)
        return "ingested", {**_status(conn, corpus, item_id), **found, **moved}

    def _fold_metadata(self, conn: Conn, corpus: Corpus, item_id: int) -> None:
        """A decision's headnote, summary and tags into its first chunk (metadata_fold)."""
        if corpus.item_table == "case_law":
            metadata_fold.fold(conn, self.analyzer, self.embedder, [item_id])

    def _prepare(self, conn: Conn, item: IngestItem, corpus: Corpus, values: dict) -> None:
        """Checks and defaults that need the database: duplicates, the case row, the chair."""
        if item.file_sha256:
            other = sql_items.find_by_file(conn, corpus, item.file_sha256, item.doc_id)
            if other:
                raise InvalidInput(
                    f"{item.source_path}: duplicate upload: the same file is already in corpus "
                    f"{corpus.key!r} as doc_id {other!r}; re-ingest it under that doc_id",
                    code="file.duplicate",
                )
        case_number = values.get("case_number")
        if corpus.item_table == "documents" and case_number:
            sql_items.ensure_case(conn, case_number, values.get("practice_area"))
        if corpus.key == "internal" and not values.get("chair_name"):
            case = sql_items.get_case(conn, case_number) if case_number else None
            values["chair_name"] = (case or {}).get("chair_name") or self.settings.committee_chair
            if not values["chair_name"]:
                raise InvalidInput(
                    f"{item.doc_id}: a committee decision needs its chair; pass --meta "
                    "chair_name=..., or set LEGAL_AI_COMMITTEE_CHAIR to the committee's chair"
                )


def _status(conn: Conn, corpus: Corpus, item_id: int) -> dict:
    """The status of the item just written in this transaction (it exists)."""
    status = sql_items.item_status(conn, corpus, item_id)
    if status is None:
        raise StoreError(f"item {item_id} of {corpus.key} vanished while it was written")
    return status
