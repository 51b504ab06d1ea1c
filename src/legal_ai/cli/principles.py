"""`legal-ai principles ...`: legal principles (עקרונות משפטיים) — the panel's extraction, the
queue that extracts them on arrival, the cull, canonical synthesis and the chair's gate
(README "Legal principles")."""

from __future__ import annotations

from typing import Annotated

import typer

from ..learning.principles import canonical, synthesis
from ..learning.principles import cull as principle_cull
from ..learning.principles import extraction as principles
from ..learning.principles import jobs as principle_jobs
from ..learning.principles import review as principle_review
from .common import JsonFlag, _app, _print_json, _system_app, print_one

principles_app = typer.Typer(
    help="Legal principles of the case law and the chair's gate.", no_args_is_help=True
)
canonical_app = typer.Typer(
    help="Canonical principles: their statement and the chair's gate.", no_args_is_help=True
)
principles_app.add_typer(canonical_app, name="canonical")

Reason = Annotated[str | None, typer.Option(help="Why (kept in the audit).")]


def _counts(report: dict) -> str:
    return "  ".join(f"{k}: {len(v) if isinstance(v, list) else v}" for k, v in report.items())


@principles_app.command("extract")
def extract(
    corpus: Annotated[str | None, typer.Option(help="external | internal")] = None,
    doc_id: Annotated[str | None, typer.Option("--doc-id", help="One ruling or decision.")] = None,
    all_items: Annotated[bool, typer.Option("--all", help="Every ruling and decision.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Principles of rulings and decisions by the three-model panel (LEGAL_AI_PRINCIPLE_PANEL),
    now (the retroactive path; new items are queued on arrival: `principles run`)."""
    with _system_app() as legal:
        report = principles.extract(legal, corpus=corpus, doc_id=doc_id, all=all_items)
    print_one(report, _counts, as_json=as_json)
    for failure in [] if as_json else report["failed"]:
        typer.echo(f"  failed: {failure['doc_id']}: {failure['error']}")


@principles_app.command("run")
def run(as_json: JsonFlag = False) -> None:
    """Drain the extraction queue (rulings and decisions ingested since): what `legal-ai worker`
    does too. Without a complete panel the jobs wait, saying what to set."""
    with _system_app() as legal:
        report = principle_jobs.run(legal)
    if as_json:
        _print_json(report)
        return
    typer.echo(
        f"extracted {report['extracted']} item(s): approved {report['approved']}, "
        f"pending review {report['pending_review']}, rejected {report['rejected']}, "
        f"linked {report['linked']}, capped {report['capped']}, dropped quotes "
        f"{report['dropped_quotes']}"
    )
    for failure in report["failed"]:
        typer.echo(f"  failed: job {failure['job_id']}: {failure['error']}")
    if report["pending"]:
        typer.echo(f"{len(report['pending'])} job(s) open: {report['pending'][0]['reason']}")


@principles_app.command("list")
def list_(
    status: Annotated[
        str | None,
        typer.Option(help="pending_review | approved | rejected | vetoed | to_confirm | returned"),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Principles with their term (הלכה / כלל פרשני / עיקרון), votes, score, occurrences and
    corroboration (how many decisions cite the ruling)."""
    with _app() as legal:
        result = principle_review.list_principles(legal, status)
    if as_json:
        _print_json(result)
        return
    for p in result["principles"]:
        typer.echo(
            f"#{p['id']} [{p['review_status']}] {p['term']}: {p['rule_text']}  (votes "
            f"{p['votes']}, score {p['score']}, occurrences {p['occurrences']}, cited by "
            f"{p['corroboration']})"
        )
        typer.echo(f'    "{p["supporting_quote"]}" p. {p["page"]}')


@principles_app.command("votes")
def votes(principle_id: int, as_json: JsonFlag = False) -> None:
    """The panel's votes on one principle, each model's reason (in Hebrew) beside its vote."""
    with _app() as legal:
        result = principle_review.votes(legal, principle_id)
    if as_json:
        _print_json(result)
        return
    typer.echo(f"#{principle_id}: {result['rule_text']}")
    if not result["votes"]:
        typer.echo("    the panel has not voted on it")
    for vote in result["votes"]:
        verdict = "proposed it" if vote["voted"] else "did not propose it"
        typer.echo(
            f"    {vote['model']}: {verdict} (score {vote['score']}) — {vote['reason'] or '-'}"
        )


@principles_app.command("review")
def review(
    principle_id: int,
    decision: Annotated[
        str,
        typer.Argument(
            help="approve | reject | revert (withdraw an approved one from search) | reopen"
        ),
    ],
    reason: Reason = None,
    as_json: JsonFlag = False,
) -> None:
    """The chair's decision on a principle (needs LEGAL_AI_CHAIR_TOKEN in the environment)."""
    with _app() as legal:
        row = legal.review_principle(principle_id, decision, reason)
    _print_json(row) if as_json else typer.echo(f"principle #{row['id']}: {row['review_status']}")


@principles_app.command("cull")
def cull(
    apply: Annotated[
        bool, typer.Option("--apply", help="Do it (the chair's token); without it, only report.")
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Re-apply the panel's rule (today's HALACHA_PANEL_APPROVE_SCORE, HALACHA_PANEL_MAX_NEW) to
    what the panel decided; report what would be removed or reopened, and do it with --apply."""
    with _app() as legal:
        report = principle_cull.cull(legal, apply=apply)
    if as_json:
        _print_json(report)
        return
    verb = "" if report["applied"] else "would be "
    for p in report["remove"]:
        typer.echo(f"#{p['id']} [{p['status']}] {verb}removed: {p['reason']} — {p['rule_text']}")
    for p in report["reopen"]:
        typer.echo(f"#{p['id']} [{p['status']}] {verb}reopened: {p['reason']} — {p['rule_text']}")
    typer.echo(
        f"checked {report['checked']}: {len(report['remove'])} {verb}removed, "
        f"{len(report['reopen'])} {verb}reopened"
        + ("" if report["applied"] else "; run again with --apply (the chair's token)")
    )


@principles_app.command("synthesize")
def synthesize(as_json: JsonFlag = False) -> None:
    """Canonical statements of the canonical principles pending synthesis (LEGAL_AI_SYNTHESIZER):
    grounded in the quotes or abstained, drift-gated; never approves (-> pending_review)."""
    with _system_app() as legal:
        report = synthesis.synthesize(legal)
    print_one(report, _counts, as_json=as_json)


@canonical_app.command("list")
def canonical_list(
    status: Annotated[
        str | None, typer.Option(help="pending_synthesis | pending_review | approved | rejected")
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Canonical principles: statement, status, occurrences, corroboration."""
    with _app() as legal:
        result = canonical.list_canonicals(legal, status)
    if as_json:
        _print_json(result)
        return
    for k in result["canonical_principles"]:
        typer.echo(
            f"#{k['id']} [{k['status']}] ({k['corpus']}, v{k['version']} by "
            f"{k['statement_by'] or 'source'}) {k['statement']}  (occurrences "
            f"{k['occurrences']}, cited by {k['corroboration']})"
        )


@canonical_app.command("show")
def canonical_show(canonical_id: int, as_json: JsonFlag = False) -> None:
    """One canonical principle: its occurrences (quote, page, votes) and statement versions."""
    with _app() as legal:
        k = canonical.show(legal, canonical_id)
    if as_json:
        _print_json(k)
        return
    typer.echo(f"#{k['id']} [{k['status']}] {k['statement']}")
    for o in k["occurrences"]:
        typer.echo(
            f"  {o['term']} #{o['principle_id']} [{o['review_status']}] {o['case_number'] or o['doc_id']}"
            f' p. {o["page"]} (votes {o["votes"]}, score {o["score"]}): "{o["supporting_quote"]}"'
        )
    for v in k["versions"]:
        typer.echo(f"  v{v['version']} by {v['author']} ({v['at']}): {v['statement']}")


@canonical_app.command("review")
def canonical_review(
    canonical_id: int,
    decision: Annotated[str, typer.Argument(help="approve | reject")],
    reason: Reason = None,
    as_json: JsonFlag = False,
) -> None:
    """The chair approves or rejects a canonical principle (LEGAL_AI_CHAIR_TOKEN)."""
    with _app() as legal:
        k = canonical.review(legal, canonical_id, decision, reason)
    _print_json(k) if as_json else typer.echo(f"canonical principle #{k['id']}: {k['status']}")


@canonical_app.command("edit")
def canonical_edit(
    canonical_id: int,
    statement: Annotated[str, typer.Option(help="The chair's wording of the statement.")],
    reason: Reason = None,
    as_json: JsonFlag = False,
) -> None:
    """The chair writes the statement herself (a new version; LEGAL_AI_CHAIR_TOKEN)."""
    with _app() as legal:
        k = canonical.edit(legal, canonical_id, statement, reason)
    _print_json(k) if as_json else typer.echo(
        f"canonical principle #{k['id']}: version {k['version']}"
    )


@canonical_app.command("revert")
def canonical_revert(
    canonical_id: int,
    version: Annotated[
        int | None,
        typer.Option(
            help="The version to restore (default: the one "
            "before the current; 1 = the source wording)."
        ),
    ] = None,
    reason: Reason = None,
    as_json: JsonFlag = False,
) -> None:
    """The chair restores an earlier statement (as a new version; LEGAL_AI_CHAIR_TOKEN)."""
    with _app() as legal:
        k = canonical.revert(legal, canonical_id, version, reason)
    _print_json(k) if as_json else typer.echo(
        f"canonical principle #{k['id']}: version {k['version']}"
    )


def register(app: typer.Typer) -> None:
    app.add_typer(principles_app, name="principles")
