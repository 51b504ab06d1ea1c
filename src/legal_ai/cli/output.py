"""How the library's commands show their work (cli/__init__.py): a search's hits, the
evaluation report as text (the progress of long work: cli/progress.py)."""

from __future__ import annotations

import typer

from ..display import format_hit
from ..evaluation.harness import EvalReport
from .common import _print_json


def _print_result(result: dict, as_json: bool) -> None:
    if as_json:
        _print_json(result)
        return
    for named in result.get("identifiers", []):
        if not named["found"]:  # said before whatever else was found (docs/search.md)
            typer.echo(f"not found: {named['identifier']} (the hits below are not it)")
    for number, hit in enumerate(result["hits"], start=1):
        typer.echo(format_hit(number, hit))
    if not result["hits"]:
        typer.echo("no hits")
    if result["dropped_by_cap"]:
        typer.echo(f"({result['dropped_by_cap']} more from the same sources left out by the cap)")


def _echo_eval(report: EvalReport, verdict: str | None) -> None:
    """The evaluation report as text: each mode's and peer's figures, hybrid against the best
    single mode, the latencies, and the baseline's verdict."""
    typer.echo(f"{report['dataset']}: {report['n_queries']} queries, {report['n_docs']} docs")
    for mode, values in report["modes"].items():
        typer.echo(f"  {mode:>8}: " + "  ".join(f"{k} {v:.4f}" for k, v in values.items()))
    for peer, values in report.get("peers", {}).items():
        typer.echo(f"  {peer:>8}: " + "  ".join(f"{k} {v:.4f}" for k, v in values.items()))
    if diff := report.get("hybrid_minus_best_single"):
        typer.echo(
            f"  hybrid - {diff['best_single']}: {diff['ndcg@10']:+.4f} (95% CI {diff['ci95']})"
        )
    if gain := report.get("rerank_minus_hybrid"):
        typer.echo(
            f"  hybrid+rerank - hybrid ({gain['reranker']}): {gain['ndcg@10']:+.4f} "
            f"(95% CI {gain['ci95']})"
        )
    for mode, figures in report["latency_ms"].items():
        typer.echo(
            f"  latency {mode:>8}: "
            + "  ".join(
                f"k={f['k']} p50 {f['p50']:.1f} ms p95 {f['p95']:.1f} ms" for f in figures.values()
            )
        )
    if verdict:
        typer.echo(verdict)
