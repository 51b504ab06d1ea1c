"""What the learning loop's command modules share (cli/learning.py, cli/methodology.py): the
arguments they take alike, and a listing printed as JSON or one line per row."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .common import _print_json

Case = Annotated[str, typer.Argument(help="The full case number, e.g. 'ערר (מרכז) 1042/23'.")]
File = Annotated[
    Path,
    typer.Argument(help="The decision: PDF, DOCX, TXT or MD; DOC, RTF or ODT with LibreOffice."),
]
AppealType = Annotated[
    str | None,
    typer.Option(
        help="permit | change_of_use | plan | betterment_levy | compensation_197 | procedural"
    ),
]
Outcome = Annotated[
    str | None, typer.Option(help="accepted | rejected | partially_accepted | remanded")
]
PracticeArea = Annotated[str | None, typer.Option(help="planning | betterment_levy | compensation")]


def emit(result: dict, key: str, line, as_json: bool) -> None:
    """Print a listing: the JSON object, or one line per row of `result[key]`."""
    if as_json:
        _print_json(result)
        return
    for row in result[key]:
        typer.echo(line(row))
