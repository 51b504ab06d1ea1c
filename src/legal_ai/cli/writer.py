"""`legal-ai exemplars` and `legal-ai templates`: what the writer reads of the chair's finals,
channel B (README "Block exemplars and templates")."""

from __future__ import annotations

from typing import Annotated

import typer

from ..errors import InvalidInput
from ..knowledge import exemplars as exemplar_service
from ..knowledge import templates as template_service
from .common import JsonFlag, _app, _print_json


def _refresh(as_json: bool) -> None:
    """`legal-ai exemplars --refresh`: cut and embed the finals not cut yet, measure the
    templates again, and say what was done."""
    with _app() as legal:
        report = exemplar_service.refresh(legal)
    if as_json:
        _print_json(report)
        return
    typer.echo(
        f"cut {report['finals_cut']} final(s) into {report['paragraphs']} paragraphs; "
        f"embedded {report['reembedded']}; templates "
        f"{'measured again' if report['templates']['recomputed'] else 'unchanged'} "
        f"({report['templates']['templates']})"
    )
    for doc_id in report["not_decisions"]:
        typer.echo(f"  not a decision the block headings can read: {doc_id}")


def exemplars(
    block: Annotated[
        str | None,
        typer.Argument(help="One of the 12 blocks: header, opening, ..., discussion, signature."),
    ] = None,
    appeal_type: Annotated[
        str | None, typer.Option("--appeal-type", help="permit, change_of_use, plan, ...")
    ] = None,
    outcome: Annotated[
        str | None,
        typer.Option(help="accepted, rejected, partially_accepted or remanded."),
    ] = None,
    case: Annotated[
        str | None,
        typer.Option(
            "--case",
            help="The case being written: never one of its paragraphs; its "
            "documents make the query when --query is not given.",
        ),
    ] = None,
    query: Annotated[str | None, typer.Option("--query", help="What to look for.")] = None,
    limit: Annotated[int, typer.Option("--limit", help="How many paragraphs (1-50).")] = 5,
    per_final: Annotated[
        int, typer.Option("--per-final", help="Paragraphs of one final at most (1 or 2).")
    ] = 1,
    refresh: Annotated[
        bool,
        typer.Option(
            "--refresh",
            help="Cut the finals not cut yet (stored before this version) "
            "and embed what is missing; then measure the templates again.",
        ),
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """The chair's own paragraphs of BLOCK for a decision of --appeal-type, from her other
    finals, with their provenance."""
    if refresh:
        _refresh(as_json)
        return
    if block is None or appeal_type is None:
        raise InvalidInput("give a BLOCK and --appeal-type (or --refresh)")
    with _app() as legal:
        result = exemplar_service.get_block_exemplars(
            legal,
            block,
            appeal_type,
            outcome=outcome,
            case=case,
            query=query,
            limit=limit,
            per_final=per_final,
        )
    if as_json:
        _print_json(result)
        return
    _echo_exemplars(result)


def _echo_exemplars(result: exemplar_service.Exemplars) -> None:
    """The exemplars as text: the note of what was relaxed, then each paragraph with its
    provenance and score."""
    if result.get("note"):
        typer.echo(f"note: {result['note']}")
    for n, e in enumerate(result["exemplars"], start=1):
        typer.echo(
            f"{n}. {e['case_number']} ({e['decided_on']}) [{e['doc_id']} "
            f"{e['char_start']}-{e['char_end']}] score {e['score']}"
        )
        typer.echo(f"   {e['text']}")


def templates(
    block: Annotated[str | None, typer.Option("--block", help="Only this block.")] = None,
    appeal_type: Annotated[
        str | None, typer.Option("--appeal-type", help="Only templates of this appeal type.")
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Passages the chair repeats nearly verbatim across her finals, with their slots
    ({date}, {case_number}, {number}, {name}, {text}), support and examples."""
    with _app() as legal:
        result = template_service.get_templates(legal, block=block, appeal_type=appeal_type)
    if as_json:
        _print_json(result)
        return
    if result.get("note"):
        typer.echo(f"note: {result['note']}")
    for t in result["templates"]:
        typer.echo(f"[{t['block']}] support {t['support']} ({', '.join(t['examples'])})")
        typer.echo("   " + t["text"].replace("\n", "\n   "))


def register(app: typer.Typer) -> None:
    app.command("exemplars")(exemplars)
    app.command("templates")(templates)
