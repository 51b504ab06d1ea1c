"""`legal-ai eval gold from-finals`: the office's own gold set from the chair's citations
(learning/pairs/gold_set.py; docs/evaluation.md "The office's gold set from her citations")."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..learning.pairs import gold_set
from .common import JsonFlag, _app, _print_json

gold_app = typer.Typer(help="Gold sets for `legal-ai eval`.", no_args_is_help=True)


@gold_app.command("from-finals")
def from_finals(
    out: Annotated[Path, typer.Option("--out", help="The folder to write the set into.")],
    distractors: Annotated[
        int, typer.Option(help="Library items besides the judged ones (the same every run).")
    ] = gold_set.DISTRACTORS,
    as_json: JsonFlag = False,
) -> None:
    """Build a BEIR set from the chair's finals: the citing sentence is the query, the cited
    ruling or section (when the library holds it) the answer; two halves split by case."""
    with _app() as legal:
        result = gold_set.from_finals(legal, out, distractors)
    if as_json:
        _print_json(result)
        return
    if result.get("message"):
        typer.echo(f"{result['message']}; wrote the empty files under {out}")
    else:
        halves = result["halves"]
        typer.echo(
            f"wrote {result['queries']} queries of {result['cases']} case(s) "
            f"({result['judgments']} judgments, {result['documents']} documents) under {out}; "
            f"half a: {halves['a']['queries']} queries of {halves['a']['cases']} case(s), "
            f"half b: {halves['b']['queries']} of {halves['b']['cases']}"
        )
    left = result["left_out"]
    if left:
        said = ", ".join(f"{n} {reason.replace('_', ' ')}" for reason, n in sorted(left.items()))
        typer.echo(f"citations left out: {said} (each listed in {out / 'report.json'})")


def register(parent: typer.Typer) -> None:
    parent.add_typer(gold_app, name="gold")
