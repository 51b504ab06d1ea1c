"""`legal-ai case`: the chair's cases."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import JsonFlag, _app, _print_json

case_app = typer.Typer(help="The chair's cases.", no_args_is_help=True)


@case_app.command("attach-precedent")
def attach_precedent(
    case: Annotated[str, typer.Argument(help="The chair's case number, in full.")],
    citation: Annotated[str, typer.Argument(help='e.g. עע"מ 1234/05')],
    note: Annotated[str | None, typer.Option(help="Why it matters.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Attach a citation to one of the chair's cases (case_precedents)."""
    with _app() as legal:
        saved = legal.attach_precedent(case, citation, note)
    if as_json:
        _print_json(saved)
    else:
        linked = (
            f"linked to case_law {saved['case_law_id']}"
            if saved["case_law_id"]
            else "not in the library yet"
        )
        typer.echo(f"attached {saved['citation']} to {saved['case_number']} ({linked})")


def register(app: typer.Typer) -> None:
    app.add_typer(case_app, name="case")
