"""`legal-ai enrich ...`: the headnote, summary and tags a model proposes for each internal
decision ingested (docs/ingest.md "Completeness"): `run` drains
the queue (LEGAL_AI_ENRICHER; a grounded proposal is applied at once, an ungrounded one waits),
`list` and `show` the proposals, `review` is the chair's (approve writes a pending proposal's
fields into the decision, reject writes nothing, revert puts back what an applied one replaced)."""

from __future__ import annotations

from typing import Annotated

import typer

from ..learning.arrival import enrichment, enrichment_review
from .common import JsonFlag, _app, _print_json, _system_app, print_one, print_rows

enrich_app = typer.Typer(
    help="Headnote, summary and tags of internal decisions, written by a model: a grounded "
    "proposal is applied at once (the chair may revert it), an ungrounded one waits for her.",
    no_args_is_help=True,
)


def _line(e: dict) -> str:
    stale = " — the decision's text changed since" if e["text_changed"] else ""
    tags = f" [{', '.join(e['tags'])}]" if e["tags"] else ""
    return (
        f"#{e['id']} [{e['status']}] {e['doc_id']} ({e['case_number'] or '-'}): "
        f"{e['headnote']}{tags}{stale}"
    )


@enrich_app.command("list")
def list_(
    status: Annotated[
        str | None,
        typer.Option(
            help="pending_review | applied | approved | rejected | reverted | edited | superseded"
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """The proposals, oldest first."""
    with _app() as legal:
        result = enrichment_review.list_enrichments(legal, status)
    print_rows(result, "enrichments", _line, as_json=as_json, none="no enrichments")


@enrich_app.command("show")
def show(enrichment_id: int, as_json: JsonFlag = False) -> None:
    """One proposal: the headnote, each summary sentence with the decision's words it rests on,
    the tags, and what the decision holds now."""
    with _app() as legal:
        e = enrichment_review.show(legal, enrichment_id)
    if as_json:
        _print_json(e)
        return
    typer.echo(_line(e))
    for s in e["sentences"]:
        typer.echo(f"- {s['text']}")
        typer.echo(f'    "{s["quote"]}" [{s["char_start"]}-{s["char_end"]}]')
    typer.echo(f"model {e['model']}, job {e['job_id']}, written by {e['written_by']}")


@enrich_app.command("review")
def review(
    enrichment_id: int,
    decision: Annotated[
        str,
        typer.Argument(help="approve | reject (a pending proposal) | revert (an applied one)"),
    ],
    reason: Annotated[str | None, typer.Option(help="Why (kept in the audit).")] = None,
    as_json: JsonFlag = False,
) -> None:
    """The chair approves or rejects a proposal pending review (approve writes its fields
    into the decision), or reverts one the system applied (LEGAL_AI_CHAIR_TOKEN)."""
    with _app() as legal:
        e = enrichment_review.review(legal, enrichment_id, decision, reason)
    print_one(e, _line, as_json=as_json)


@enrich_app.command("run")
def run(as_json: JsonFlag = False) -> None:
    """Enrich the internal decisions queued (LEGAL_AI_ENRICHER); without a model they wait and
    this says what to set."""
    with _system_app() as legal:
        report = enrichment.run(legal)
    if as_json:
        _print_json(report)
        return
    for p in report["applied"]:
        typer.echo(
            f"applied: #{p['enrichment_id']} {p['doc_id']} (the model's; the chair may revert it:"
            f" legal-ai enrich review {p['enrichment_id']} revert)"
        )
    for p in report["proposed"]:
        why = f"; not grounded: {p['ungrounded']}" if p["ungrounded"] else ""
        typer.echo(
            f"proposed: #{p['enrichment_id']} {p['doc_id']} (pending the chair's review{why})"
        )
    for r in report["refused"]:
        typer.echo(f"refused: {r['doc_id']}: {r['reason']} (job {r['status']})")
    for f in report["failed"]:
        typer.echo(f"failed: {f['doc_id'] or 'job ' + str(f['job_id'])}: {f['error']}")
    waiting = [p for p in report["pending"] if p["status"] == "waiting"]
    if waiting:
        typer.echo(f"{len(waiting)} decision(s) waiting: {report['waiting_for']}")
    elif report["pending"]:
        typer.echo(f"{len(report['pending'])} decision(s) still queued")
    if not (report["jobs"] or report["pending"]):
        typer.echo("nothing to enrich")


def register(app: typer.Typer) -> None:
    app.add_typer(enrich_app, name="enrich")
