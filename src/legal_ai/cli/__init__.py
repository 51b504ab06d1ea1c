"""The `legal-ai` command (the entry point `legal_ai.cli:main`). Thin: parse, call the
composition root (`app.App`), print; errors are mapped once in `main()` to one stderr line and
the error's exit code. The library's commands (ingest, search, health, eval, ...) are here, how
they print in cli/output.py; each other command group has its module in this package (db,
cases, items, users, learning, principles, scheduler, telemetry, voice, writer, ocr, enrich,
doctor), registered below in the order `--help` lists them."""

from __future__ import annotations

import errno
import logging
import os
import sys
from pathlib import Path
from typing import Annotated

import psycopg
import typer

from .. import __version__
from ..demo import run_demo
from ..errors import AppError, InvalidInput, Scrubber, StoreError, gate_code
from ..evaluation import evaluate as run_eval
from ..evaluation import load_dataset
from ..evaluation.baseline import check
from ..evaluation.harness import sample_corpus
from ..evaluation.harness import sample_queries as sample_q
from ..mcp_server import caveat as mcp_caveat
from ..mcp_server import serve
from ..ops.backups import health_line as backup_line
from ..ops.health import report as health_report
from ..paging import Listing
from ..retrieval.tools import corpus_tool
from .cases import register as register_cases
from .citations import register as register_citations
from .common import JsonFlag, _app, _print_json, _settings
from .db import register as register_db
from .doctor import register as register_doctor
from .enrich import register as register_arrival
from .gold import register as register_gold
from .items import register as register_items
from .learning import register
from .ocr import register as register_ocr
from .output import _echo_eval, _print_result
from .principles import register as register_principles
from .progress import RESUME_EVAL, RESUME_INGEST, RESUME_REINDEX, watch
from .scheduler import register as register_scheduler
from .telemetry import register as register_telemetry
from .tune import register as register_tune
from .users import register as register_users
from .voice import register as register_voice
from .writer import register as register_writer

app = typer.Typer(
    help="legal-ai: research aid for a planning-and-building appeals committee.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"legal-ai {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            "-V",
            help="Print legal-ai's version (CHANGELOG.md) and exit.",
            callback=_print_version,
            is_eager=True,
        ),
    ] = False,
) -> None:
    pass


register_db(app)
register_cases(app)
register_items(app)
register_citations(app)
register_users(app)


def _parse_meta(pairs: list[str]) -> dict[str, str]:
    meta = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InvalidInput(f"--meta {pair!r}: write it as key=value")
        meta[key.strip()] = value
    return meta


# -- ingest -------------------------------------------------------------------------------------
@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders to load.")],
    corpus: Annotated[str, typer.Option(help="case | style | external | internal | digests")],
    doc_id: Annotated[str | None, typer.Option(help="Stable external id (one file only).")] = None,
    case_number: Annotated[str | None, typer.Option(help="Case number, in full.")] = None,
    practice_area: Annotated[
        str | None, typer.Option(help="e.g. planning, betterment_levy")
    ] = None,
    meta: Annotated[list[str], typer.Option(help="Extra metadata key=value (repeatable).")] = [],  # noqa: B006
    fields: Annotated[
        str, typer.Option(help="JSONL fields holding the text, comma-separated.")
    ] = "text",
    reassign: Annotated[
        bool, typer.Option("--reassign", help="Move an item stored under another case to this one.")
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Load documents into a corpus. Unchanged content is skipped; changed content becomes a new
    version (every earlier one is kept: `legal-ai item history`). Without --doc-id a file's id is
    its case number (when given) and its name with its folder."""
    values = _parse_meta(meta)
    if case_number:
        values["case_number"] = case_number
    if practice_area:
        values["practice_area"] = practice_area
    text_fields = tuple(f.strip() for f in fields.split(",") if f.strip())
    with _app() as legal, watch(legal.settings, RESUME_INGEST) as progress:
        report = legal.ingest(
            paths,
            corpus,
            meta=values,
            doc_id=doc_id,
            text_fields=text_fields,
            progress=progress,
            reassign=reassign,
        )
    result = report.as_dict()
    if as_json:
        _print_json(result)
    else:
        typer.echo(
            f"ingested {result['ingested']}, updated {result['updated']}, "
            f"unchanged {result['unchanged']}, unsearchable {len(result['unsearchable'])}, "
            f"failed {len(result['failed'])}"
        )
        for entry in result["unsearchable"]:
            typer.echo(
                f"  not searchable: {entry['doc_id']}: missing {', '.join(entry['missing'])}"
                f" — {entry['set']}"
            )
        settled = result["resolved"]
        if settled["missing_precedents"] or settled["digests"] or settled["enrichment_queued"]:
            typer.echo(
                f"  on arrival: {settled['missing_precedents']} missing precedent(s) "
                f"resolved, {settled['digests']} digest(s) linked to their ruling, "
                f"{settled['enrichment_queued']} decision(s) queued for enrichment"
            )
        for entry in result.get("returned_to_chair", []):  # its text changed
            typer.echo(
                f"  principle {entry['principle_id']} of {entry['doc_id']} returned to the chair:"
                f" {entry['reason']}"
            )
        for entry in result["failed"]:
            typer.echo(f"  failed: {entry['error']}", err=True)
    if result["failed"] and not (result["ingested"] or result["unchanged"] or result["updated"]):
        raise typer.Exit(2)


# -- search -------------------------------------------------------------------------------------
@app.command()
def search(
    query: Annotated[str, typer.Argument(help="What to look for (Hebrew or English).")],
    corpus: Annotated[
        str, typer.Option(help="case | style | external | internal | digests | case_precedents")
    ],
    practice_area: Annotated[str | None, typer.Option(help="Required for --corpus style.")] = None,
    case_number: Annotated[str | None, typer.Option(help="Required for --corpus case.")] = None,
    court: Annotated[str | None, typer.Option()] = None,
    date_from: Annotated[str | None, typer.Option(help="YYYY-MM-DD")] = None,
    date_to: Annotated[str | None, typer.Option(help="YYYY-MM-DD")] = None,
    limit: Annotated[int, typer.Option(help="How many hits.")] = 10,
    mode: Annotated[str, typer.Option(help="hybrid | semantic | lexical")] = "hybrid",
    doc_type: Annotated[
        str | None, typer.Option(help="--corpus external only: ruling | legislation.")
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Search one corpus through its tool; every hit carries its provenance."""
    given = {
        "practice_area": practice_area,
        "case_number": case_number,
        "court": court,
        "date_from": date_from,
        "date_to": date_to,
        "doc_type": doc_type,
    }
    # The same rules as GET /api/search: the corpus's tool, the filters it takes (one it does
    # not take is refused), a filter it requires passed on so the tool says it is missing.
    tool, arguments = corpus_tool(corpus, given, lambda name: f"--{name.replace('_', '-')}")
    with _app() as legal:
        result = legal.on_surface("cli").tool(
            tool, query=query, limit=limit, mode=mode, **arguments
        )
    _print_result(result, as_json)


@app.command()
def similar(
    case_number: Annotated[str | None, typer.Option(help="Find cases like this one.")] = None,
    text: Annotated[str | None, typer.Option(help="...or like this text.")] = None,
    practice_area: Annotated[
        str | None,
        typer.Option(help="Required with --text; a case's own practice area is taken from it."),
    ] = None,
    limit: Annotated[int, typer.Option(help="How many cases.")] = 5,
    as_json: JsonFlag = False,
) -> None:
    """Cases like a given case (by its documents) or a text: one hit per case, within one
    practice area (the case's own, or --practice-area with --text)."""
    with _app() as legal:
        result = legal.on_surface("cli").tool(
            "find_similar_cases",
            case_number=case_number,
            text=text,
            practice_area=practice_area,
            limit=limit,
        )
    _print_result(result, as_json)


# -- health, reindex, eval ----------------------------------------------------------------------
@app.command()
def health(as_json: JsonFlag = False) -> None:
    """Unsearchable items and why, stale/missing embeddings of every unit, isolation, jobs, OCR,
    unresolved digests, missing precedents, decisions awaiting enrichment."""
    with _app() as legal:
        report = health_report(legal)
    if as_json:
        _print_json(report)
        return
    for key in ("unsearchable", "stale_embeddings", "missing_embeddings", "dimension_mismatches"):
        typer.echo(f"{key}: {report[key]}")
    for job in report["scheduler"]["failed_jobs"]:  # schedule.py: the last run failed
        typer.echo(
            f"scheduled job {job['name']} failed at {job['last_finished_at']} "
            f"({job['failures']} in a row; retry {job['next_run_at']}): {job['last_error']}"
        )
    typer.echo(backup_line(report["backup"]))
    for drop in report["scheduler"]["eval_drops"]:
        typer.echo(
            f"standing eval {drop['dataset']}: nDCG@10 {drop['ndcg_at_10']:.4f} on "
            f"{drop['day']}, {drop['drop']:.4f} below {drop['reference']:.4f} of "
            f"{drop['reference_day']} (tolerance {drop['tolerance']})"
        )
    typer.echo(
        f"isolation: {report['isolation']['checked']} checked, {report['isolation']['leaks']} leaks"
    )
    if (stage := report["reranker"]) is not None:
        typer.echo(
            f"reranker {stage['by']}: "
            + (
                f"WARNING {stage['warning']}; searches keep the fused order"
                if stage["warning"]
                else "ok"
            )
        )
    for name, found in report["rechecked"].items():  # ops/rechecks.py
        typer.echo(f"{name}: {found['found']} found, {found['checked']} checked")
        for key, entries in found.items():
            for entry in entries if isinstance(entries, list) else []:
                typer.echo(f"  {key}: {entry}")
    for entry in report["unsearchable_items"]:
        typer.echo(f"  {entry['corpus']}/{entry['doc_id']}: missing {', '.join(entry['missing'])}")
    ocr = report["ocr"]
    typer.echo(
        f"ocr: {ocr['queued']} queued, {ocr['waiting']} waiting, {ocr['failed']} failed, "
        f"{len(ocr['low_confidence'])} with low-confidence pages"
        + (f" — {ocr['waiting_for']}" if ocr["waiting_for"] else "")
    )
    for item in ocr["low_confidence"]:
        typer.echo(
            f"  {item['corpus']}/{item['doc_id']}: low-confidence page(s) "
            f"{', '.join(map(str, item['low_confidence_pages'] or [])) or '-'}"
            f" (below {ocr['min_confidence']:g})"
        )
        for r in item.get("low_confidence_reasons") or []:
            typer.echo(f"    page {r['page']}: {r['reason']}")
    listings: tuple[tuple[str, Listing, str], ...] = (
        (
            "unresolved_digests",
            report["unresolved_digests"],
            "digests whose ruling is not in the library",
        ),
        ("missing_precedents", report["missing_precedents"], "open missing precedents"),
        (
            "awaiting_enrichment",
            report["awaiting_enrichment"],
            "internal decisions awaiting enrichment",
        ),
        (
            "awaiting_metadata",
            report["awaiting_metadata"],
            "internal decisions awaiting metadata, not searchable",
        ),
        (
            "changed_outside_ingest",
            report["changed_outside_ingest"],
            "items changed outside ingest",
        ),
        (
            "principles_changed",
            report["principles_changed"],
            "principles whose rule or span changed outside the gate",
        ),
        (
            "canonicals_changed",
            report["canonicals_changed"],
            "canonical statements changed outside the gate",
        ),
        (
            "returned_to_chair",
            report["returned_to_chair"],
            "principles returned to the chair, out of search",
        ),
        (
            "exemplars_changed",
            report["exemplars_changed"],
            "finals whose paragraphs changed outside their cut",
        ),
    )
    for key, listing, label in listings:
        typer.echo(f"{key}: {listing['count']} ({label})")
        for entry in listing["items"]:
            what = entry.get("doc_id") or entry.get("ref")
            typer.echo(f"  {what}: {entry.get('reason') or entry.get('state') or ''}".rstrip(": "))
            if entry.get("set"):
                typer.echo(f"    to set: {entry['set']}")


@app.command()
def reindex(as_json: JsonFlag = False) -> None:
    """Re-embed what its text or embedder outdated (chunks, principles, precedents, exemplars,
    canonical statements, page images); re-analyze what an older analyzer indexed."""
    with _app() as legal, watch(legal.settings, RESUME_REINDEX) as progress:
        result = legal.reindex(progress=progress)
    if as_json:
        _print_json(result)
    else:
        typer.echo(f"re-embedded {result['reembedded']}, re-analyzed {result['reanalyzed']}")
        for entry in result["repaired"]:
            done = "repaired" if entry["repaired"] else f"not repaired: {entry['reason']}"
            typer.echo(f"  {entry['corpus']}/{entry['doc_id']} changed outside ingest: {done}")
        principles = result["principle_spans"]
        if principles["moved"] or principles["returned"]:
            typer.echo(
                f"principles: {principles['moved']} span(s) found again, "
                f"{len(principles['returned'])} returned to the chair"
            )
        for entry in principles["returned"]:
            typer.echo(
                f"  principle {entry['principle_id']} of {entry['doc_id']}: {entry['reason']}"
            )
        for doc_id in result["exemplars_recut"]:
            typer.echo(f"  {doc_id}: her final's paragraphs cut again")


eval_app = typer.Typer()
app.add_typer(eval_app, name="eval")
register_gold(eval_app)
register_tune(eval_app)


@eval_app.callback(invoke_without_command=True)
def evaluate(
    ctx: typer.Context,
    corpus: Annotated[Path | None, typer.Option(help="corpus.jsonl (BEIR layout)")] = None,
    queries: Annotated[Path | None, typer.Option(help="queries.jsonl")] = None,
    qrels: Annotated[Path | None, typer.Option(help="qrels.tsv (with a header line)")] = None,
    fields: Annotated[
        str | None, typer.Option(help="Indexed corpus fields (default: title,text).")
    ] = None,
    peers: Annotated[
        bool, typer.Option("--peers", help="Also run bm25s + exact dense peers.")
    ] = False,
    baseline: Annotated[
        Path | None, typer.Option(help="Fail if hybrid nDCG@10 drops > 0.01 below this.")
    ] = None,
    sample_docs: Annotated[
        int | None, typer.Option(help="Judged docs + this many others (seeded).")
    ] = None,
    sample_queries: Annotated[
        int | None, typer.Option(help="Only this many queries (seeded).")
    ] = None,
    name: Annotated[str | None, typer.Option(help="Dataset name in the report.")] = None,
    per_query: Annotated[
        bool, typer.Option("--per-query", help="Include per-query nDCG@10.")
    ] = False,
    modes: Annotated[
        str, typer.Option(help="Modes to run, comma-separated.")
    ] = "hybrid,semantic,lexical",
    as_json: JsonFlag = False,
) -> None:
    """Evaluate retrieval on a labeled dataset in an isolated database (INV-RET4)."""
    if ctx.invoked_subcommand is not None:
        return
    if corpus is None or queries is None or qrels is None:
        raise InvalidInput("eval needs --corpus, --queries and --qrels (or a command: eval gold)")
    wanted = tuple(f.strip() for f in fields.split(",") if f.strip()) if fields else None
    dataset = load_dataset(corpus, queries, qrels, fields=wanted, name=name)
    if sample_queries is not None:
        dataset = sample_q(dataset, sample_queries)
    if sample_docs is not None:  # judged documents of the kept queries, plus this many others
        dataset = sample_corpus(dataset, sample_docs)
    chosen = tuple(m.strip() for m in modes.split(",") if m.strip())
    unknown = set(chosen) - {"hybrid", "semantic", "lexical", "hybrid+rerank"}
    if unknown or not chosen:
        raise InvalidInput(
            f"--modes takes hybrid, semantic, lexical and hybrid+rerank, not {sorted(unknown)}"
        )
    settings = _settings()
    with watch(settings, RESUME_EVAL) as progress:
        report = run_eval(settings, dataset, peers=peers, modes=chosen, progress=progress)
    if not per_query:
        report.pop("per_query_ndcg@10", None)
    verdict = None
    if baseline is not None:
        passed, verdict = check(report, baseline)
        report["baseline"] = {"path": str(baseline), "passed": passed, "verdict": verdict}
    if as_json:
        _print_json(report)
    else:
        _echo_eval(report, verdict)
    if baseline is not None and not report["baseline"]["passed"]:
        raise typer.Exit(1)


@app.command()
def mcp() -> None:
    """Serve the search tools over MCP (stdio) for the writing agents."""
    import logging

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    settings = _settings()
    said = mcp_caveat(settings)
    if said:
        typer.echo(said, err=True)  # stdout is the protocol's
    serve(settings)


@app.command()
def demo() -> None:
    """Start the embedded database, load the demo corpus into every corpus, show searches."""
    run_demo(_settings(), echo=typer.echo)


register(app)
register_principles(app)
register_scheduler(app)
register_telemetry(app)
register_voice(app)
register_writer(app)
register_ocr(app)
register_arrival(app)
register_doctor(app)


def lost_database(exc: psycopg.Error) -> str:
    """A connection that failed or was lost in one line: what the server said (its first line,
    without paths, addresses or logins) and what to check."""
    said = Scrubber()(str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__)
    return (
        f"the database connection failed: {said}; check that PostgreSQL is running and "
        "reachable (`legal-ai doctor`), then run the command again"
    )


# What the database refuses of a statement (the rest of psycopg's errors are a lost server, or
# a defect: a traceback).
REFUSALS = (
    psycopg.IntegrityError,  # a gate's check_violation, a unique or foreign key
    psycopg.DataError,
    psycopg.errors.InsufficientPrivilege,
    psycopg.errors.ConfigurationLimitExceeded,  # an agent's ceiling (migration 0034)
)


def refused_by_database(exc: psycopg.Error) -> str:
    """A statement the database refused, in one line: its own first line (no login, address or
    path) and the rule's code when a gate of ours named one."""
    first = (exc.diag.message_primary or str(exc) or type(exc).__name__).strip().splitlines()
    rule = f" [code: {gate_code(exc)}]" if isinstance(exc, psycopg.errors.CheckViolation) else ""
    return f"the database refused it: {Scrubber()(first[0] if first else '')}{rule}"


def file_error(exc: OSError) -> str:
    """A file that could not be read or written, in one line: which (as given) and why."""
    why = exc.strerror or type(exc).__name__
    where = f" {exc.filename}" if exc.filename else ""
    return f"cannot use{where}: {why}; check the path and its permissions"


def disk_full(said: str) -> str:
    """A full disk in one line: whose disk, what to free, and that a re-run resumes."""
    return (
        f"the disk is full ({said}): free space on it (`legal-ai doctor` shows what is free "
        "under LEGAL_AI_HOME), then run the command again: nothing half-written was kept, and a "
        "re-run carries on where this one stopped"
    )


def main() -> None:
    # The pool's own warnings (a lost server, with its socket path) are not for the user: the
    # error line below says what happened and what to do.
    logging.getLogger("psycopg.pool").setLevel(logging.CRITICAL)
    try:
        app()
    except AppError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except psycopg.errors.DiskFull:  # the database server could not extend a file (53100)
        typer.echo(f"error: {disk_full('the database server could not write')}", err=True)
        sys.exit(StoreError.exit_code)
    except REFUSALS as exc:  # a value, a gate, a privilege or a ceiling the database refused
        typer.echo(f"error: {refused_by_database(exc)}", err=True)
        sys.exit(InvalidInput.exit_code)
    except (psycopg.OperationalError, psycopg.InterfaceError) as exc:  # the server went away
        typer.echo(f"error: {lost_database(exc)}", err=True)
        sys.exit(StoreError.exit_code)
    except OSError as exc:
        if exc.errno != errno.ENOSPC:
            typer.echo(f"error: {file_error(exc)}", err=True)
            sys.exit(InvalidInput.exit_code)
        typer.echo(f"error: {disk_full('no space left on the device being written')}", err=True)
        # what stdout still holds cannot be written either: dropped, not a second traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(StoreError.exit_code)
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
