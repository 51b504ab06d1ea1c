"""`legal-ai item`: stored items and their versions."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import JsonFlag, _app, _print_json

item_app = typer.Typer(help="Stored items and their versions.", no_args_is_help=True)


@item_app.command("history")
def item_history(
    doc_id: Annotated[str, typer.Argument(help="The item's doc_id.")],
    corpus: Annotated[str | None, typer.Option(help="Only this corpus.")] = None,
    text: Annotated[bool, typer.Option("--text", help="Print each version's text too.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Every version of an item's text, oldest first (nothing stored is ever overwritten)."""
    with _app() as legal:
        result = legal.item_history(doc_id, corpus)
    if not text:
        for version in result["versions"]:
            version.pop("content")
    if as_json:
        _print_json(result)
        return
    for v in result["versions"]:
        typer.echo(
            f"{v['corpus']}/{v['doc_id']} v{v['version']}  {v['recorded_at']:%Y-%m-%d %H:%M}"
            f"  {v['chars']} chars  sha256 {v['content_hash'][:12]}  by {v['recorded_by']}"
        )
        if text:
            typer.echo(v["content"] + "\n")
    for o in result.get("ocr", []):
        pages = ", ".join(
            f"{n}: {c if c is not None else '-'}"
            for n, c in enumerate(o["page_confidence"] or [], start=1)
        )
        low = ", ".join(map(str, o["low_confidence_pages"] or [])) or "none"
        typer.echo(
            f"{o['corpus']}/{o['doc_id']}: read by OCR ({o['engine']}), confidence "
            f"{o['confidence']} (pages {pages}); low-confidence pages: {low}"
        )
        for r in o.get("low_confidence_reasons") or []:
            typer.echo(f"  page {r['page']}: {r['reason']}")
        for n in o.get("low_confidence_numbers") or []:
            typer.echo(
                f"  low-confidence number {n['text']!r} on page {n['page']} "
                f"(characters {n['start']}-{n['end']}, confidence {n['confidence']})"
            )


def register(app: typer.Typer) -> None:
    app.add_typer(item_app, name="item")
