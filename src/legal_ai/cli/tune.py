"""`legal-ai eval tune`: retrieval parameters chosen by cross-validation over query folds
(evaluation/tuning.py; docs/evaluation.md "Honest tuning")."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import InvalidInput
from ..evaluation import load_dataset
from ..evaluation.harness import sample_corpus, sample_queries
from ..evaluation.tuning import DEFAULT_GRID, FOLDS, parse_grid, tune
from .common import JsonFlag, _print_json, _settings
from .progress import RESUME_EVAL, watch


def tune_command(
    corpus: Annotated[Path, typer.Option(help="corpus.jsonl (BEIR layout)")],
    queries: Annotated[Path, typer.Option(help="queries.jsonl")],
    qrels: Annotated[Path, typer.Option(help="qrels.tsv (with a header line)")],
    fields: Annotated[
        str | None, typer.Option(help="Indexed corpus fields (default: title,text).")
    ] = None,
    sample_docs: Annotated[
        int | None, typer.Option(help="Judged docs + this many others (seeded).")
    ] = None,
    sample_queries_: Annotated[
        int | None, typer.Option("--sample-queries", help="Only this many queries (seeded).")
    ] = None,
    name: Annotated[str | None, typer.Option(help="Dataset name in the report.")] = None,
    grid: Annotated[
        str, typer.Option(help="Parameters and values to try: NAME=V1,V2;NAME=V3.")
    ] = DEFAULT_GRID,
    folds: Annotated[
        int, typer.Option(help="Query folds (queries sharing a document together).")
    ] = FOLDS,
    per_query: Annotated[
        bool, typer.Option("--per-query", help="Include the folds and per-query nDCG@10.")
    ] = False,
    mode: Annotated[
        str, typer.Option(help="hybrid, or hybrid+rerank (a reranker set).")
    ] = "hybrid",
    as_json: JsonFlag = False,
) -> None:
    """Choose parameters on training folds, score them on the held-out fold: per fold, mean
    and spread, beside the current settings and the dev-set figure."""
    if mode not in ("hybrid", "hybrid+rerank"):
        raise InvalidInput(f"--mode takes hybrid or hybrid+rerank, not {mode!r}")
    parsed = parse_grid(grid)
    wanted = tuple(f.strip() for f in fields.split(",") if f.strip()) if fields else None
    dataset = load_dataset(corpus, queries, qrels, fields=wanted, name=name)
    if sample_queries_ is not None:
        dataset = sample_queries(dataset, sample_queries_)
    if sample_docs is not None:
        dataset = sample_corpus(dataset, sample_docs)
    settings = _settings()
    with watch(settings, RESUME_EVAL) as progress:
        report = tune(settings, dataset, parsed, n_folds=folds, mode=mode, progress=progress)
    if not per_query:
        report.pop("folds")
        report.pop("per_query_ndcg@10")
    if as_json:
        _print_json(report)
        return
    cv = report["cross_validation"]
    typer.echo(
        f"{report['dataset']}: {report['n_queries']} queries, {report['n_docs']} docs, "
        f"folds of {report['fold_sizes']} queries"
    )
    for row in cv["folds"]:
        current = row.get("current_held_out_ndcg@10")
        beside = f" (current settings {current:.4f})" if current is not None else ""
        typer.echo(
            f"  fold {row['fold']}: chose {row['chosen']} on training "
            f"{row['train_ndcg@10']:.4f}; held out {row['held_out_ndcg@10']:.4f}{beside}"
        )
    held = cv["held_out"]
    typer.echo(
        f"held-out nDCG@10 {held['mean']:.4f} (sd {held['sd']:.4f}, "
        f"{held['min']:.4f}-{held['max']:.4f})"
    )
    if "current" in cv:
        now = cv["current"]
        typer.echo(
            f"current {now['config']}: held out {now['held_out']['mean']:.4f}, "
            f"dev {now['dev_ndcg@10']:.4f}"
        )
        verdict = "keep the current settings" if cv["keep_current"] else "the held-out folds gain"
        typer.echo(f"dev choice {cv['dev']['chosen']} {cv['dev']['ndcg@10']:.4f}: {verdict}")
    else:
        typer.echo(
            f"dev choice {cv['dev']['chosen']} {cv['dev']['ndcg@10']:.4f} "
            "(the current settings are not in the grid)"
        )


def register(parent: typer.Typer) -> None:
    parent.command("tune")(tune_command)
