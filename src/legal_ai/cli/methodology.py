"""`legal-ai lessons`, `legal-ai methodology` and `legal-ai feedback`: lessons and the chair's
gate, her methodology profiles and their versions, and her feedback on our drafts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ..errors import InvalidInput
from ..learning.lessons import lessons, list_feedback, list_lessons, record, review, weekly_summary
from ..learning.methodology import diff, edit, restore, show, undo
from ..learning.methodology import profiles as methodology
from .args import Case, emit
from .common import JsonFlag, _app, _print_json

lessons_app = typer.Typer(help="Lessons and the chair's gate.", no_args_is_help=True)
methodology_app = typer.Typer(help="The chair's methodology profiles.", no_args_is_help=True)
feedback_app = typer.Typer(help="The chair's feedback on our drafts.", no_args_is_help=True)


@lessons_app.command("list")
def lessons_list(
    status: Annotated[
        str | None, typer.Option(help="proposed | approved | rejected | vetoed")
    ] = None,
    case: Annotated[str | None, typer.Option()] = None,
    as_json: JsonFlag = False,
) -> None:
    """Lessons, optionally by status or case."""
    with _app() as legal:
        result = list_lessons(legal, status, case)
    emit(
        result,
        "lessons",
        lambda r: f"#{r['id']} [{r['review_status']}] {r['category']} ({r['kind']}): {r['text']}",
        as_json,
    )


@lessons_app.command("add")
def lessons_add(
    case: Case,
    category: str,
    text: str,
    block: Annotated[str | None, typer.Option()] = None,
    as_json: JsonFlag = False,
) -> None:
    """Add a lesson by hand (source: chair): approved when the chair adds it, else proposed."""
    with _app() as legal:
        row = lessons.propose(legal, case, category, text, source="chair", block=block)
    _print_json(row) if as_json else typer.echo(f"lesson #{row['id']} {row['review_status']}")


@lessons_app.command("review")
def lessons_review(
    lesson_id: int,
    decision: Annotated[str, typer.Argument(help="approve | reject | veto")],
    reason: Annotated[str | None, typer.Option()] = None,
    as_json: JsonFlag = False,
) -> None:
    """The chair's decision on a lesson."""
    with _app() as legal:
        row = review(legal, lesson_id, decision, reason=reason)
    _print_json(row) if as_json else typer.echo(f"lesson #{row['id']}: {row['review_status']}")


@methodology_app.command("show")
def methodology_show(appeal_type: Annotated[str, typer.Argument()] = "universal") -> None:
    """Print a methodology profile (JSON)."""
    with _app() as legal:
        _print_json(show(legal, appeal_type))


@methodology_app.command("edit")
def methodology_edit(
    appeal_type: str,
    changes: Annotated[Path, typer.Argument(help="A JSON file of the top-level keys to replace.")],
    reason: Annotated[str, typer.Option()] = "edit",
) -> None:
    """Replace keys of a methodology profile (a new version)."""
    try:
        data = json.loads(changes.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InvalidInput(f"{changes}: not a readable JSON object ({exc})") from None
    if not isinstance(data, dict):
        raise InvalidInput(f"{changes}: expected a JSON object of profile keys")
    with _app() as legal:
        result = edit(legal, appeal_type, data, reason=reason)
    typer.echo(f"{result['appeal_type']}: version {result['version']}")


@methodology_app.command("history")
def methodology_history(appeal_type: str, as_json: JsonFlag = False) -> None:
    """List a profile's versions, newest first: version, who saved it, when, why."""
    with _app() as legal:
        result = methodology.history(legal, appeal_type)
    if as_json:
        _print_json(result)
        return
    for v in result["versions"]:
        typer.echo(
            f"v{v['version']}  {v['created_at'][:19]}  {v['updated_by']}: {v['reason'] or '-'}"
        )


@methodology_app.command("diff")
def methodology_diff(appeal_type: str, a: int, b: int, as_json: JsonFlag = False) -> None:
    """What changed from version A to version B: each top-level key, before and after."""
    with _app() as legal:
        result = diff(legal, appeal_type, a, b)
    if as_json:
        _print_json(result)
        return
    if not result["changes"]:
        typer.echo(f"{result['appeal_type']}: versions {a} and {b} are the same")
    for change in result["changes"]:
        typer.echo(f"{change['key']}:")
        for label, value in (("-", change["before"]), ("+", change["after"])):
            typer.echo(f"  {label} {json.dumps(value, ensure_ascii=False)}")


@methodology_app.command("restore")
def methodology_restore(
    appeal_type: str, version: int, reason: Annotated[str | None, typer.Option()] = None
) -> None:
    """Restore an earlier version as a NEW version (the chair only: LEGAL_AI_CHAIR_TOKEN)."""
    with _app() as legal:
        result = restore(legal, appeal_type, version, reason=reason)
    dropped = result["dropped_lessons"]
    typer.echo(
        f"{result['appeal_type']}: version {result['version']} restores version "
        f"{version}" + (f"; lessons no longer approved left out: {dropped}" if dropped else "")
    )


@methodology_app.command("steps")
def methodology_steps(appeal_type: str, as_json: JsonFlag = False) -> None:
    """The newest changes, each with what a step back from now would restore (`undo_to`)."""
    with _app() as legal:
        result = undo.steps(legal, appeal_type)
    if as_json:
        _print_json(result)
        return
    for step in result["steps"]:
        back = f" (undo: back to v{step['undid_to']})" if step["undid_to"] is not None else ""
        typer.echo(
            f"v{step['version']}  {str(step['created_at'])[:19]}  {step['updated_by']}: "
            f"{step['reason'] or '-'}{back}"
        )
    target = result["undo_to"]
    typer.echo(f"a step back restores version {target}" if target else "nothing to step back to")


@methodology_app.command("undo")
def methodology_undo(
    appeal_type: str,
    seen_version: Annotated[
        int, typer.Option("--version", help="The current version you saw (`methodology steps`).")
    ],
) -> None:
    """Step back one change (a NEW version; the chair only: LEGAL_AI_CHAIR_TOKEN). Refused when
    the profile was saved since the version you saw."""
    with _app() as legal:
        result = undo.undo(legal, appeal_type, seen_version)
    typer.echo(f"{result['appeal_type']}: version {result['version']} (one step back)")


@feedback_app.command("add")
def feedback_add(
    category: Annotated[
        str,
        typer.Argument(
            help="missing_content | wrong_tone | wrong_structure | factual_error | style | other"
        ),
    ],
    text: str,
    case: Annotated[str | None, typer.Option()] = None,
    block: Annotated[str | None, typer.Option()] = None,
    as_json: JsonFlag = False,
) -> None:
    """Record the chair's feedback on a draft."""
    with _app() as legal:
        row = record(legal, category, text, case=case, block=block)
    _print_json(row) if as_json else typer.echo(f"feedback #{row['id']} recorded")


@feedback_app.command("list")
def feedback_list(
    case: Annotated[str | None, typer.Option()] = None,
    category: Annotated[str | None, typer.Option()] = None,
    limit: int = 50,
    as_json: JsonFlag = False,
) -> None:
    """The chair's feedback, newest first."""
    with _app() as legal:
        result = list_feedback(legal, case=case, category=category, limit=limit)
    emit(
        result,
        "feedback",
        lambda r: (
            f"#{r['id']} {r['category']} {r['block'] or ''} {r['case_number'] or ''}: {r['text']}"
        ),
        as_json,
    )


@feedback_app.command("summary")
def feedback_summary(days: int = 7, as_json: JsonFlag = False) -> None:
    """The last week's feedback grouped by category and block."""
    with _app() as legal:
        result = weekly_summary(legal, days=days)
    if as_json:
        _print_json(result)
        return
    typer.echo(f"{result['total']} items since {result['since'][:10]}")
    for group in result["groups"]:
        typer.echo(f"  {group['category']} / {group['block'] or '-'}: {group['count']}")


def register(app: typer.Typer) -> None:
    app.add_typer(lessons_app, name="lessons")
    app.add_typer(methodology_app, name="methodology")
    app.add_typer(feedback_app, name="feedback")
