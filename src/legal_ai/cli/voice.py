"""`legal-ai voice ...`: deep-read voice documents, the writer's channel C (README "What the writer
reads"): the chair marks a case as exemplary, a model writes the worked document (`run`), the chair
approves or rejects it; only approved ones reach the writer."""

from __future__ import annotations

from typing import Annotated

import typer

from ..knowledge import voice, voice_review
from .common import JsonFlag, _app, _print_json, _system_app, print_one, print_rows

voice_app = typer.Typer(
    help="Deep-read voice documents of exemplary finals (channel C).", no_args_is_help=True
)


def _line(d: dict) -> str:
    counts = ""
    if d["claims"] is not None:
        counts = (
            f", {d['claims']} claims (dropped {d['dropped_claims']} not in the final, "
            f"{d['substance_claims']} carrying substance)"
        )
    stale = " — the final changed since" if d["final_changed"] else ""
    refused = f", refused {d['refusals']}x: {d['last_refusal']}" if d["refusals"] else ""
    return (
        f"#{d['id']} [{d['status']}] {d['case_number']} ({d['appeal_type'] or '-'}, "
        f"{d['outcome'] or '-'}){counts}{refused}{stale}"
    )


@voice_app.command("mark")
def mark(
    case: Annotated[str, typer.Argument(help="The case whose final is exemplary.")],
    note: Annotated[str | None, typer.Option(help="Why it is exemplary (kept).")] = None,
    as_json: JsonFlag = False,
) -> None:
    """The chair marks a case as exemplary (LEGAL_AI_CHAIR_TOKEN): it joins the queue."""
    with _app() as legal:
        d = voice_review.mark(legal, case, note)
    print_one(d, _line, as_json=as_json)


@voice_app.command("list")
def list_(
    status: Annotated[
        str | None, typer.Option(help="queued | pending_review | approved | rejected")
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """The voice documents and the cases waiting for one."""
    with _app() as legal:
        result = voice_review.list_documents(legal, status)
    print_rows(result, "voice_documents", _line, as_json=as_json, none="no voice documents")


@voice_app.command("show")
def show(document_id: int, as_json: JsonFlag = False) -> None:
    """One voice document, block by block: each claim with her words it points at."""
    with _app() as legal:
        d = voice_review.show(legal, document_id)
    if as_json:
        _print_json(d)
        return
    typer.echo(_line(d))
    for block in d["blocks"]:
        typer.echo(f"## {block['label']} ({block['block']})")
        for claim in block["claims"]:
            typer.echo(f"- {claim['claim']}")
            typer.echo(f'    "{claim["span"]}" [{claim["char_start"]}-{claim["char_end"]}]')


@voice_app.command("review")
def review(
    document_id: int,
    decision: Annotated[str, typer.Argument(help="approve | reject")],
    reason: Annotated[str | None, typer.Option(help="Why (kept in the audit).")] = None,
    as_json: JsonFlag = False,
) -> None:
    """The chair approves (it reaches the writer) or rejects a voice document
    (LEGAL_AI_CHAIR_TOKEN)."""
    with _app() as legal:
        d = voice_review.review(legal, document_id, decision, reason)
    print_one(d, _line, as_json=as_json)


@voice_app.command("run")
def run(as_json: JsonFlag = False) -> None:
    """Write the documents of the marked cases (LEGAL_AI_VOICE_WRITER); without a model they
    wait in the queue and this says what to set."""
    with _system_app() as legal:
        report = voice.run(legal)
    if as_json:
        _print_json(report)
        return
    for d in report["written"]:
        typer.echo(
            f"written: #{d['id']} {d['case_number']}: {d['kept']} claims kept, "
            f"{d['dropped_claims']} not in the final, {d['substance_claims']} "
            "carrying substance (pending the chair's review)"
        )
    for d in report["refused"]:
        typer.echo(f"refused: #{d['id']} {d['case_number']}: {d['reason']}")
    for d in report["failed"]:
        typer.echo(f"failed: #{d['id']} {d['case_number']}: {d['error']}")
    if report["missing"] or report["deferred"]:
        why = report["missing"] or report["deferred"]
        typer.echo(f"{len(report['waiting'])} case(s) waiting: {why}")
    elif report["waiting"]:
        typer.echo(f"{len(report['waiting'])} case(s) still queued")


def register(app: typer.Typer) -> None:
    app.add_typer(voice_app, name="voice")
