"""`legal-ai db`: the PostgreSQL database (its URL, migrations, the embedded server, backup and
restore)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..app import App
from ..learning.arrival import describe
from ..ops import database as admin
from ..ops.backups import prove
from .common import JsonFlag, _app, _print_json, _settings
from .progress import RESUME_BACKUP, watch

db_app = typer.Typer(help="The PostgreSQL database.", no_args_is_help=True)


@db_app.command("url")
def db_url(
    database: Annotated[
        str | None,
        typer.Option(
            help="Another database of the same server, e.g. legal_ai_demo (what `legal-ai demo` "
            "loads): its URL, for LEGAL_AI_DATABASE_URL."
        ),
    ] = None,
) -> None:
    """Print the connection URL in use (starts the embedded server if needed)."""
    typer.echo(admin.url(_settings(), database))


@db_app.command("migrate")
def db_migrate(
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="List what would run (each pending migration, then the one-off steps) and "
            "change nothing.",
        ),
    ] = False,
) -> None:
    """Apply pending schema migrations (also done automatically on first use)."""
    if dry_run:
        for line in admin.dry_run(_settings()):
            typer.echo(line)
        return
    applied = admin.migrate(_settings())
    typer.echo("applied: " + ", ".join(applied) if applied else "schema is up to date")
    with App(_settings()) as legal:  # runs what a migration left to the application (a re-key)
        if legal.rekeyed:
            typer.echo(describe(legal.rekeyed))
        recorded = legal.record_deployment_settings(replace=True)
        typer.echo(f"recorded: HALACHA_PANEL_MAX_NEW={recorded['halacha_panel_max_new']}")
    enforced = admin.grant_roles(_settings())
    typer.echo(
        "roles legal_ai_chair / legal_ai_agent: "
        + (
            "granted"
            if enforced
            else "missing (the gate cannot tell the chair's role; docs/security.md)"
        )
    )


@db_app.command("area-indexes")
def db_area_indexes() -> None:
    """Give each practice area its own search index (run when a new practice area appears)."""
    made = admin.area_indexes(_settings())
    typer.echo(
        f"made {made} practice-area index(es)"
        if made
        else "every practice area that needs its own index has one"
    )


@db_app.command("stop")
def db_stop() -> None:
    """Stop the embedded PostgreSQL server."""
    settings = _settings()
    if settings.database_url:
        typer.echo("LEGAL_AI_DATABASE_URL is set: that server is not ours to stop")
        return
    stopped = admin.stop(settings)
    typer.echo("stopped" if stopped else "not running")


@db_app.command("backup")
def db_backup(
    file: Annotated[Path, typer.Argument(help="The backup file to write (pg_dump custom format).")],
    force: Annotated[bool, typer.Option("--force", help="Replace FILE if it exists.")] = False,
    json_out: JsonFlag = False,
) -> None:
    """Back up the whole database (every item, embedding, lesson, audit and history row)."""
    settings = _settings()
    with watch(settings, RESUME_BACKUP) as progress:
        result = admin.backup(settings, file, force=force, progress=progress)
    if json_out:
        _print_json(result)
    else:
        typer.echo(
            f"backed up {result['tables']} tables, {result['rows']} rows to {file} "
            f"({result['bytes']} bytes); its manifest: {Path(result['manifest']).name}"
        )


@db_app.command("restore")
def db_restore(
    file: Annotated[Path, typer.Argument(help="A file made by `legal-ai db backup`.")],
    force: Annotated[
        bool, typer.Option("--force", help="Replace a database that already holds data.")
    ] = False,
    check: Annotated[
        bool,
        typer.Option(
            "--check",
            help="Prove FILE instead, changing nothing: restore it into a scratch database, "
            "count its rows against the backup's manifest, run health on it, drop it; a line "
            "per step, exit code non-zero on failure.",
        ),
    ] = False,
    json_out: JsonFlag = False,
) -> None:
    """Restore a backup into the database: all of it or, on any error, nothing."""
    if check:
        with _app() as legal:
            proof = prove(legal, file, echo=None if json_out else typer.echo)
        if json_out:
            _print_json(proof)
        else:
            typer.echo(f"proven: {proof['file']} restores whole ({proof['seconds']} s)")
        return
    result = admin.restore(_settings(), file, force=force)
    if json_out:
        _print_json(result)
    else:
        typer.echo(f"restored {result['tables']} tables into database {result['database']}")
        for note in result["notes"]:
            typer.echo(f"note: {note}")


def register(app: typer.Typer) -> None:
    app.add_typer(db_app, name="db")
