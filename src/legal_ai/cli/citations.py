"""`legal-ai citations`: the citation graph's links to the library by one identity per ruling
(learning/library/links.py): the citations that fit several rulings, the chair's pick among
them, and the report of the re-key of migration 0029 (learning/arrival/rekey.py)."""

from __future__ import annotations

import typer

from ..learning.arrival import rekey
from ..learning.library import links as library_links
from .args import emit
from .common import JsonFlag, _app, _print_json

citations_app = typer.Typer(
    help="Citations of the library's rulings: ambiguous ones and the chair's pick.",
    no_args_is_help=True,
)


def _candidates(row: dict) -> str:
    return "; ".join(
        f"#{c['case_law_id']} {c['case_number']} ({c['court'] or '?'})" for c in row["candidates"]
    )


@citations_app.command("ambiguous")
def ambiguous(as_json: JsonFlag = False) -> None:
    """Citations several rulings of the library fit (none is guessed), with their candidates."""
    with _app() as legal:
        result = library_links.ambiguous(legal)
    emit(
        result,
        "ambiguous",
        lambda r: (
            f"{r['authority_id']}: {r['ref']} (first in {r['first_cited_in']}) -> " + _candidates(r)
        ),
        as_json,
    )


@citations_app.command("pick")
def pick(
    authority_id: int,
    case_law_id: int,
    as_json: JsonFlag = False,
) -> None:
    """The chair links citation AUTHORITY_ID to one of its candidates, CASE_LAW_ID
    (LEGAL_AI_CHAIR_TOKEN in the environment)."""
    with _app() as legal:
        result = library_links.pick(legal, authority_id, case_law_id)
    if as_json:
        _print_json(result)
        return
    typer.echo(f"{result['ref']} -> ruling #{result['case_law_id']} (the chair's pick)")


@citations_app.command("rekey-report")
def rekey_report(
    seen: bool = typer.Option(
        False, "--seen", help="Mark the report seen (health stops listing it)."
    ),
    as_json: JsonFlag = False,
) -> None:
    """What re-keying the library by one identity per ruling changed (migration 0029)."""
    with _app() as legal:
        reports = rekey.unseen(legal)
        marked = rekey.mark_seen(legal) if seen else 0
    if as_json:
        _print_json({"reports": reports, "marked_seen": marked})
        return
    if not reports:
        typer.echo("nothing to report: the re-key changed nothing, or its report was seen")
    for entry in reports:
        typer.echo(rekey.describe(entry["report"]))
    if marked:
        typer.echo(f"marked seen: {marked}")


def register(app: typer.Typer) -> None:
    app.add_typer(citations_app, name="citations")
