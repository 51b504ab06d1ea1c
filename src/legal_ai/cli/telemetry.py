"""`legal-ai telemetry export|stats|prune`: the search log (telemetry.py;
README "Search telemetry")."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Annotated

import typer

from ..errors import InvalidInput
from ..telemetry import export as run_export
from ..telemetry import prune as run_prune
from ..telemetry import stats as figures
from .common import JsonFlag, _app, _print_json

telemetry_app = typer.Typer(
    help="Search telemetry: what was searched, what the chair found useful.", no_args_is_help=True
)

Since = Annotated[
    str | None, typer.Option("--since", help="Only searches on or after this day (YYYY-MM-DD).")
]


def _day(value: str | None) -> dt.date | None:
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value.strip())
    except ValueError:
        raise InvalidInput(
            f"--since {value!r} is not a date; write it as YYYY-MM-DD", code="date.invalid"
        ) from None


@telemetry_app.command("export")
def export(
    qrels: Annotated[Path, typer.Option("--qrels", help="The qrels.tsv to write.")],
    queries: Annotated[
        Path | None,
        typer.Option("--queries", help="The queries.jsonl to write (default: beside --qrels)."),
    ] = None,
    corpus: Annotated[
        Path | None,
        typer.Option("--corpus", help="Also write the judged documents' text (corpus.jsonl)."),
    ] = None,
    since: Since = None,
    clicks: Annotated[
        bool, typer.Option("--clicks", help="Count opened hits too (useful 2, opened 1).")
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Turn the searches the chair marked useful into a BEIR gold set `legal-ai eval` reads."""
    queries = queries or qrels.with_name("queries.jsonl")
    if queries == qrels or (corpus is not None and corpus in (qrels, queries)):
        raise InvalidInput("--qrels, --queries and --corpus must be different files")
    with _app() as legal:
        result = run_export(legal, qrels, queries, since=_day(since), clicks=clicks, corpus=corpus)
    if as_json:
        _print_json(result)
        return
    if not result["queries"]:
        typer.echo(
            f"no marked searches{' since ' + since if since else ''}: wrote {queries} (empty) "
            f"and {qrels} (header only); mark hits useful (שימושי) on the desk's search page"
        )
        return
    typer.echo(
        f"wrote {result['queries']} queries ({result['searches']} searches) to {queries} and "
        f"{result['judgments']} judgments to {qrels}"
    )
    if corpus is not None:
        typer.echo(f"wrote {result['documents']} documents to {corpus}")
        if result["missing_documents"]:
            typer.echo(f"not in the library any more: {', '.join(result['missing_documents'])}")


@telemetry_app.command("stats")
def stats(since: Since = None, as_json: JsonFlag = False) -> None:
    """Searches per surface and corpus, the zero-hit rate, p50 latency, the chair's marks."""
    with _app() as legal:
        report = figures(legal, since=_day(since))
    if as_json:
        _print_json(report)
        return
    if not report["enabled"]:
        typer.echo("telemetry is off (LEGAL_AI_TELEMETRY=false): no new search is logged")
    rate = report["zero_hit_rate"]
    typer.echo(
        f"searches: {report['searches']}  zero-hit rate: "
        f"{'—' if rate is None else f'{rate:.1%}'}  p50: {report['latency_ms']['p50']} ms  "
        f"p95: {report['latency_ms']['p95']} ms"
    )
    for title, key in (("by surface", "by_surface"), ("by corpus", "by_corpus")):
        typer.echo(f"{title}:")
        for name, row in report[key].items():
            typer.echo(
                f"  {name:>16}: {row['searches']} searches, zero-hit "
                f"{row['zero_hit_rate']:.1%}, p50 {row['p50_ms']} ms"
            )
    typer.echo(
        f"clicks: {report['clicks']}  useful: {report['useful']}  "
        f"marked searches: {report['marked_searches']}  "
        f"(kept {report['retention_days']} days)"
    )


@telemetry_app.command("prune")
def prune(
    days: Annotated[
        int | None,
        typer.Option(
            "--days", help="Keep this many days (default LEGAL_AI_TELEMETRY_RETENTION_DAYS)."
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Delete the searches (and their marks) older than the retention."""
    with _app() as legal:
        result = run_prune(legal, days=days)
    if as_json:
        _print_json(result)
    else:
        typer.echo(f"deleted {result['deleted']} searches logged before {result['before']}")


def register(app: typer.Typer) -> None:
    app.add_typer(telemetry_app, name="telemetry")
