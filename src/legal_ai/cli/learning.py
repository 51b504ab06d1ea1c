"""`legal-ai` commands of the learning loop: draft add/check, final upload, learning
history/pairs/run, promote, brief, contrastive (DESIGN §10); lessons, methodology and feedback
are cli/methodology.py, serve and worker cli/processes.py, registered from here in the order
`--help` lists them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

import typer

from ..errors import InvalidInput
from ..knowledge import curator
from ..knowledge.brief import writing_brief
from ..knowledge.contrastive import get_contrastive_examples
from ..learning.checks import check, citation_lines, get_report, summary
from ..learning.engine import configured, run
from ..learning.lessons import panel_stats, promote, rebuild
from ..learning.lessons import voice_proposals as fingerprint
from ..learning.pairs import add_draft, finals, pairs, scanned_decisions, upload_final
from ..learning.pairs import missing_precedents as missing
from ..ops.worker import STAGES
from .args import AppealType, Case, File, Outcome, PracticeArea, emit
from .common import JsonFlag, _app, _print_json, _system_app
from .costs import register as register_costs
from .methodology import register as register_methodology
from .processes import register as register_serve
from .processes import serve as serve
from .processes import worker as worker

draft_app = typer.Typer(help="Our drafts of the chair's decisions.", no_args_is_help=True)
final_app = typer.Typer(help="The chair's signed finals.", no_args_is_help=True)
learning_app = typer.Typer(help="The learning loop's ledger and history.", no_args_is_help=True)


@draft_app.command("add")
def draft_add(
    case: Case,
    file: File,
    appeal_type: AppealType = None,
    outcome: Outcome = None,
    practice_area: PracticeArea = None,
    as_json: JsonFlag = False,
) -> None:
    """Register our draft for a case (pair status draft_done); creates the case if new. A scan
    (a PDF without a text layer) is kept and queued for OCR: stored once `legal-ai ocr run` or
    the worker has read it."""
    labels = {"appeal_type": appeal_type, "outcome": outcome, "practice_area": practice_area}
    with _app() as legal:
        result = scanned_decisions.or_queue(
            legal,
            "draft",
            case,
            file,
            labels,
            file.name,
            lambda: add_draft(legal, case, file, **labels),
        )
    if as_json:
        _print_json(result)
        return
    if _queued(result):
        return
    state = "registered" if result["created"] else "unchanged (the same draft is stored)"
    typer.echo(
        f"{result['case_number']}: draft v{result['draft_version']} {state}; "
        f"pair {result['pair_status']}"
    )
    if result["missing_blocks"]:
        typer.echo("  blocks not found: " + ", ".join(result["missing_blocks"]))

    counts = summary(result["copy_check"])
    if counts:  # the copy check's report of this version (every stored draft has one)
        typer.echo(
            "  copy check: "
            + ", ".join(f"{n} {k}" for k, n in counts["passages"].items())
            + "; citations "
            + ", ".join(f"{n} {s}" for s, n in counts["citations"].items())
            + " (`legal-ai draft check` for the passages)"
        )


def _queued(result: Mapping[str, Any]) -> bool:
    """Say that a scanned draft or final waits for OCR (True), or nothing (False)."""
    if result.get("status") != "waiting_for_ocr":
        return False
    typer.echo(
        f"{result['case_number']}: the {result['kind']} is a scan: kept and queued for OCR "
        f"(scan {result['scan_id']}); it is stored when `legal-ai ocr run` or the worker has "
        "read it"
    )
    return True


@draft_app.command("check")
def draft_check(case: Case, file: File, as_json: JsonFlag = False) -> None:
    """The copy policy on a draft: passages copied from other cases (template / analysis /
    substance, with their source) and every citation checked against the library."""
    with _app() as legal:
        result = check(legal, case, file)
    if as_json:
        _print_json(result)
        return
    advice = {
        "template": "allowed",
        "analysis": "generalize and adapt it",
        "substance": "never copy it",
    }
    typer.echo(
        f"{result['case_number']}: {len(result['passages'])} copied passage(s), "
        f"{len(result['citations'])} citation(s)"
    )
    for p in result["passages"]:
        src = p["source"]
        typer.echo(
            f"  [{p['kind']}: {advice[p['kind']]}] from {src['case_number']} "
            f"({src['doc_id']} {src['char_start']}-{src['char_end']}): {p['text'][:120]}"
        )
    if not result["citations"]:
        typer.echo("  no citations found in the draft: nothing to check against the library")
    for c in result["citations"]:
        typer.echo(f"  citation {c['ref']}: {c['status']}")
        for line in citation_lines(c):
            typer.echo(f"    {line}")
    if result.get("citations_stopped"):
        typer.echo(f"  {result['citations_stopped']}")


@draft_app.command("report")
def draft_report(
    case: Case,
    version: Annotated[
        int | None, typer.Option(min=1, help="The draft version (default: the newest report)")
    ] = None,
    final: Annotated[bool, typer.Option("--final", help="The final's report")] = False,
    again: Annotated[
        bool,
        typer.Option(
            "--check",
            help="Check the stored text again against the library as it is now (a new report)",
        ),
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """The cite-check report of a draft version or the final: each authority, its state and
    problems, its support and treatment, kept with the library as it was (a new check: --check)."""
    with _app() as legal:
        result = get_report(
            legal, case, version=version, subject="final" if final else None, check=again
        )
    if as_json:
        _print_json(result)
        return
    library = result["library"]
    typer.echo(
        f"{result['case_number']}: cite-check report {result['report_id']} of the "
        f"{result['subject']} v{result['version']}, checked {result['checked_at']} against "
        f"{library['items']} library item(s) (last ingest {library['ingested_at'] or 'none'})"
    )
    if result["empty"]:
        typer.echo("  no citations in this text: nothing to check")
        return
    typer.echo(
        f"  {len(result['authorities'])} authority(ies), {result['problems']} with a problem, "
        f"{result['attention']} for attention"
    )
    for c in result["ordered"]:
        problems = "; ".join(_problem_line(p) for p in c.get("problems") or [])
        typer.echo(f"  {c['status']}: {c['text']}" + (f" ({problems})" if problems else ""))


def _problem_line(problem) -> str:
    if isinstance(problem, dict):
        return str(problem.get("kind") or problem.get("status") or problem.get("said") or problem)
    return str(problem)


@final_app.command("upload")
def final_upload(
    case: Case,
    file: File,
    practice_area: PracticeArea = None,
    decided_on: Annotated[
        str | None, typer.Option(help="YYYY-MM-DD (default: read from the signature or header)")
    ] = None,
    appeal_type: AppealType = None,
    outcome: Outcome = None,
    labels_from_draft: Annotated[
        bool,
        typer.Option(
            "--labels-from-draft",
            help="The final's appeal type, outcome and practice area not given here are the "
            "draft's, confirmed (without it they are taken marked unconfirmed, shown on her "
            "case page)",
        ),
    ] = False,
    accept_open_changes: Annotated[
        bool,
        typer.Option(
            "--accept-open-changes",
            help="Take a Word file that still has open tracked changes or comments as her "
            "signed final (its changes accepted, its comments left out); without it such a "
            "file is refused, nothing stored",
        ),
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Upload the chair's signed final: style corpus, internal decisions, citations, held-out
    style distance, pair analyzed. A scan is kept and queued for OCR, as a draft's is."""
    fields: dict[str, Any] = {
        "practice_area": practice_area,
        "decided_on": decided_on,
        "appeal_type": appeal_type,
        "outcome": outcome,
        "labels_from_draft": True if labels_from_draft else None,
    }
    with _app() as legal:
        result = scanned_decisions.or_queue(
            legal,
            "final",
            case,
            file,
            fields,
            file.name,
            lambda: upload_final(
                legal, case, file, accept_open_changes=accept_open_changes, **fields
            ),
        )
    if as_json:
        _print_json(result)
        return
    if _queued(result):
        return
    cites = result["citations"]
    typer.echo(
        f"{result['case_number']}: final v{result['version']}, pair "
        f"{result['pair_status']}; citations linked {cites['linked']}, missing precedents "
        f"{cites['missing']}"
        + (
            f", ambiguous {cites['ambiguous']} (several rulings fit: legal-ai citations ambiguous)"
            if cites.get("ambiguous")
            else ""
        )
    )
    row = result["history_row"]
    if row:
        typer.echo(
            f"  held-out: change {row['change_percent']}%, anti-patterns "
            f"{row['anti_pattern_total']}, ratio deviation {row['ratio_deviation']}, "
            f"lesson pool {row['lesson_pool_size']}, methodology rules and phrases "
            f"{row['methodology_size']}"
        )
    for note in result["notes"]:
        typer.echo(f"  note: {note}")
    meta = result.get("metadata") or {}
    if meta.get("awaiting_metadata"):
        typer.echo(
            f"  the internal decision awaits metadata ({', '.join(meta['missing'])}), not "
            f"searchable yet: {meta['state']}\n    to set: {meta['set']}"
        )


@learning_app.command("history")
def learning_history(as_json: JsonFlag = False) -> None:
    """The held-out style-distance history (append-only), oldest first."""
    with _app() as legal:
        result = finals.history(legal)
    if as_json:
        _print_json(result)
        return
    for row in result["rows"]:
        typer.echo(
            f"{row['captured_at'][:10]}  {row['case_number']}  change "
            f"{row['change_percent']}%  anti-patterns {row['anti_pattern_total']}  "
            f"ratio dev {row['ratio_deviation']}  delta {row['stylometric_delta']}  "
            f"pool {row['lesson_pool_size']}  methodology {row['methodology_size']}"
        )


@learning_app.command("pairs")
def learning_pairs(as_json: JsonFlag = False) -> None:
    """Every draft/final pair and its status."""
    with _app() as legal:
        result = pairs(legal)
    emit(result, "pairs", lambda r: f"{r['case_number']}: {r['status']}", as_json)


@learning_app.command("missing-precedents")
def missing_precedents(as_json: JsonFlag = False) -> None:
    """Rulings our finals cite that the library does not hold (open)."""
    with _app() as legal:
        result = missing(legal)
    emit(
        result,
        "missing_precedents",
        lambda r: f"{r['ref']}  (cited by {r['corroboration']}; first in {r['first_cited_in']})",
        as_json,
    )


@learning_app.command("run")
def learning_run(
    case: Annotated[
        str | None, typer.Argument(help="Only this case's jobs (default: every ready job).")
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Run the queued learning stage (distill -> style panel -> curator) in this process."""
    with _system_app() as legal:
        result = run(legal, case, stages=STAGES)
    if as_json:
        _print_json(result)
        return
    typer.echo(
        f"ran {len(result['jobs'])} job(s) of {len(result['cases'])} case(s): proposed "
        f"{result['proposed']}, auto-approved {result['auto_approved']}, to the chair "
        f"{result['needs_chair']}, rejected {result['rejected']}; {result['model_calls']} "
        f"model call(s), tokens in {result['tokens']['in']} / out "
        f"{result['tokens']['out']}"
    )
    for job in result["failed"]:
        typer.echo(f"  failed: job {job['job_id']} {job['case_number']}: {job['error']}")
    for waiting in result["pending"]:
        typer.echo(
            f"  pending: job {waiting['job_id']} {waiting['case_number']}: {waiting['reason']}"
        )
    for reason in result["missing"]:
        typer.echo(f"  to enable: {reason}")
    for note in result["notes"]:
        typer.echo(f"  note: {note}")
    for budget in result["budgets"]:
        typer.echo(f"  budget: {budget_line(budget)}")


def budget_line(budget: dict) -> str:
    """A role's daily budget today, in one line (`learning run`)."""
    line = f"{budget['role']} spent {budget['spent']} of {budget['budget']} tokens today"
    if not budget["reached"]:
        return line
    waiting = f"{budget['deferred']} job(s)" if budget["deferred"] else "its work"
    return (
        f"{line}: reached — {waiting} deferred until {budget['resumes_at'][:16].replace('T', ' ')}"
        f" {budget['zone']} or until LEGAL_AI_MODEL_BUDGETS raises it"
    )


@learning_app.command("curator-stats")
def learning_curator_stats(as_json: JsonFlag = False) -> None:
    """The curator's findings per tag and per final, and the chair's acceptance rate."""
    with _app() as legal:
        result = curator.stats(legal)
    if as_json:
        _print_json(result)
        return
    typer.echo(
        f"{result['findings']} findings on {result['finals']} finals; the chair decided "
        f"{result['decided_by_chair']}, acceptance {_share(result['acceptance_rate'])}"
    )
    for row in result["by_tag"]:
        typer.echo(
            f"  [{row['tag']}] {row['findings']} findings, acceptance "
            f"{_share(row['acceptance_rate'])}"
        )


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.0f}%"


@learning_app.command("panel-stats")
def learning_panel_stats(as_json: JsonFlag = False) -> None:
    """The style panel against the chair: agreement, Cohen's kappa, Gwet's AC1, coverage,
    reversal rate."""
    with _app() as legal:
        result = panel_stats.stats(legal)
    if as_json:
        _print_json(result)
        return
    typer.echo(
        f"{result['items']} lessons decided by both the panel and the chair: agreement "
        f"{_share(result['agreement'])}, kappa {result['kappa']}, AC1 {result['ac1']}; "
        f"coverage {_share(result['coverage'])}, reversal rate "
        f"{_share(result['reversal_rate'])}"
    )


@learning_app.command("panel-audit")
def learning_panel_audit(as_json: JsonFlag = False) -> None:
    """Write the panels' decisions again from the database: $LEGAL_AI_HOME/audit/style-panel.csv
    and principle-panel.csv (each decision with its votes and the model calls it rests on)."""
    with _app() as legal:
        result = rebuild(legal)
    if as_json:
        _print_json(result)
        return
    typer.echo(
        f"wrote {result['style']} style-panel and {result['principle']} principle-panel "
        f"decision(s) to {result['folder']}"
    )


@learning_app.command("fingerprint")
def learning_fingerprint(as_json: JsonFlag = False) -> None:
    """Ask the distiller to describe the chair's prose from her finals; write a dated proposal
    under $LEGAL_AI_HOME/proposals/ (the methodology is never changed)."""
    with _app() as legal:
        models = configured(legal)
        if models.distiller is None:
            raise InvalidInput(
                "learning fingerprint needs a model: "
                + models.reasons.get("distiller", "set LEGAL_AI_DISTILLER")
            )
        result = fingerprint.propose(legal, models.distiller)
    if as_json:
        _print_json(result)
        return
    typer.echo(
        f"voice fingerprint proposal from {len(result['finals'])} finals written to "
        f"{result['markdown_path']} (and .json); adopt what you want with "
        "`legal-ai methodology edit`"
    )


@learning_app.command("promote")
def learning_promote(
    case: Case,
    lesson: Annotated[list[int] | None, typer.Option(help="A lesson id to fold (repeat).")] = None,
    phrase: Annotated[
        list[str] | None,
        typer.Option(help="A phrase to add to the transition phrases (repeat)."),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Fold the chosen lessons and phrases of an analyzed pair into the methodology."""
    if not lesson and not phrase:
        raise InvalidInput("choose at least one --lesson or --phrase to promote")
    with _app() as legal:
        result = promote(legal, case, lesson or [], phrase or [])
    if as_json:
        _print_json(result)
        return
    typer.echo(
        f"{result['case_number']}: folded {len(result['folded_lessons'])} lessons and "
        f"{len(result['phrases'])} phrases into {result['appeal_type']} "
        f"v{result['methodology_version']}; pair {result['pair_status']}"
    )


def brief(
    appeal_type: Annotated[str, typer.Argument(help="The appeal type.")],
    outcome: Outcome = None,
    case: Annotated[
        str | None, typer.Option(help="The case being written (never served its own paragraphs).")
    ] = None,
    max_chars: Annotated[
        int | None, typer.Option(help="Size budget in characters (default 40000).")
    ] = None,
) -> None:
    """The writer's brief (channels A, B, C and approved lessons, with provenance and a size
    budget) for an appeal type and outcome."""
    with _app() as legal:
        _print_json(writing_brief(legal, appeal_type, outcome, case=case, max_chars=max_chars))


def contrastive(
    block: Annotated[str, typer.Argument(help="One of the 12 blocks, e.g. discussion.")],
    appeal_type: AppealType = None,
    limit: Annotated[int, typer.Option(help="At most this many (1-50).")] = 5,
    as_json: JsonFlag = False,
) -> None:
    """Contrastive pairs: where the chair rewrote our drafts in BLOCK (our wording -> hers, style
    only): write like the right side, not the left."""
    with _app() as legal:
        result = get_contrastive_examples(legal, block, appeal_type, limit)
    if as_json:
        _print_json(result)
        return
    typer.echo(f"{result['block']}: {len(result['examples'])} example(s) — {result['instruction']}")
    for e in result["examples"]:
        typer.echo(f"  {e['case_number']} (changed {100 * e['share_changed']:.0f}%)")
        typer.echo(f"    ours: {e['left']}")
        typer.echo(f"    hers: {e['right']}")
    if result.get("note"):
        typer.echo(f"  note: {result['note']}")


def register(app: typer.Typer) -> None:
    app.add_typer(draft_app, name="draft")
    app.add_typer(final_app, name="final")
    register_costs(learning_app)  # learning costs
    app.add_typer(learning_app, name="learning")
    register_methodology(app)  # lessons, methodology, feedback
    app.command("brief")(brief)
    app.command("contrastive")(contrastive)
    register_serve(app)  # serve, worker
