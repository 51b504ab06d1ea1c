"""`legal-ai learning costs [--since DATE] [--json]`: what the language models spent, in tokens,
per role, per role and model, and per final, with each role's daily budget and its spending
today (learning/engine/costs.py; LEGAL_AI_MODEL_BUDGETS)."""

from __future__ import annotations

from typing import Annotated

import typer

from ..learning.engine import costs
from .common import JsonFlag, _app, _print_json


def _sums(row: costs.Sums) -> str:
    failed = f" ({row['failures']} failed)" if row["failures"] else ""
    return f"{row['calls']} call(s){failed}, tokens in {row['tokens_in']} / out {row['tokens_out']}"


def _budget(row: costs.RoleCosts) -> str:
    if row["budget"] is None:
        return f"; today {row['spent_today']}, no daily budget"
    state = "reached: its work waits" if row["spent_today"] >= row["budget"] else "within"
    return f"; today {row['spent_today']} of {row['budget']} a day ({state})"


def learning_costs(
    since: Annotated[
        str | None,
        typer.Option(help="From this day on (YYYY-MM-DD, in LEGAL_AI_SCHEDULE_TIMEZONE)."),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Tokens the language models spent per role, model and final, and the daily budgets.

    Per role, per role and model, per final (the case a call worked for): calls, failed calls,
    tokens in and out; each role's budget (LEGAL_AI_MODEL_BUDGETS) and its spending today."""
    with _app() as legal:
        result = costs.report(legal, since)
    if as_json:
        _print_json(result)
        return
    start = f"since {result['since']}" if result["since"] else "since the first call"
    typer.echo(f"model spending {start} ({result['zone']}): {_sums(result['total'])}")
    for row in result["by_role"]:
        typer.echo(f"  {row['role']}: {_sums(row)}{_budget(row)}")
    if result["by_model"]:
        typer.echo("by model:")
    for model in result["by_model"]:
        typer.echo(f"  {model['role']} {model['model']}: {_sums(model)}")
    if result["by_final"]:
        typer.echo("by final:")
    for final in result["by_final"]:
        typer.echo(f"  {final['case_number']}: {_sums(final)}")


def register(learning_app: typer.Typer) -> None:
    learning_app.command("costs")(learning_costs)
