"""`legal-ai demo`: start the embedded database, load the fictional demo corpus (shipped in
`demo_data/`) into every corpus in a database of its own (`legal_ai_demo`, rebuilt each run so
the chair's data is never touched), and print searches with their provenance.

Embeddings are cached in the main database, so a second run does not embed again.
"""

from __future__ import annotations

import importlib.util
import json
import shlex
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from . import accounts
from .app import App
from .auth import CHAIR
from .config import Settings
from .demo_enricher import scripted_enricher
from .display import format_hit
from .errors import AppError
from .knowledge.brief import WritingBrief, writing_brief
from .knowledge.exemplars import get_block_exemplars
from .knowledge.templates import get_templates
from .learning.arrival import enrichment
from .learning.engine import jobs
from .learning.lessons import lessons
from .learning.pairs import drafts, finals
from .learning.principles import jobs as principle_jobs
from .ops.health import report as health_report
from .ops.worker import STAGES

DEMO_DATABASE = "legal_ai_demo"
DEMO_CHAIR = 'עו"ד רותם לוי'  # fictional
# The demo's desk sign-in: fictional and printed, for the demo database only (never her own).
DEMO_DESK_PASSWORD = "demo-chair-password-1042"
DEMO_AGENT_TOKEN = "demo-agent-token-not-secret"


def _manifest() -> tuple[Path, dict]:
    root = Path(str(resources.files(__package__).joinpath("demo_data")))
    return root, json.loads((root / "manifest.json").read_text(encoding="utf-8"))


def _learning(legal: App, root: Path, echo: Callable[[str], None]) -> dict:
    """The learning loop on one fictional pair: our draft, the chair's final, the held-out
    style distance, citations, a curator finding the chair approves and promotes."""
    case = "ערר (מרכז) 7001/25"
    echo("\nlearning loop: our draft and the chair's signed final of " + case)
    draft = drafts.add_draft(
        legal,
        case,
        root / "learning-draft-7001.txt",
        appeal_type="permit",
        outcome="partially_accepted",
        practice_area="planning",
    )
    echo(f"  draft v{draft['draft_version']}: 12 blocks found, pair {draft['pair_status']}")
    final = finals.upload_final(legal, case, root / "learning-final-7001.txt")
    row = final["history_row"]
    if row is None:  # the demo's final always follows its draft
        raise AppError("the demo's final was not measured against its draft")
    metrics = row["metrics"]
    echo(f"  final uploaded: pair {final['pair_status']}; style corpus + internal decisions")
    echo(
        f"  held-out style distance: {row['change_percent']}% of words changed; anti-patterns "
        f"{row['anti_pattern_total']} in our draft ({', '.join(metrics['draft_anti_patterns'])})"
        f" vs {row['final_anti_pattern_total']} in hers; lesson pool {row['lesson_pool_size']}"
    )
    echo(
        f"  citations: {final['citations']['linked']} linked to the library, "
        f"{final['citations']['missing']} missing precedent(s) flagged"
    )
    _enriched(legal, final["metadata"], echo)
    stage = _learning_stage(legal, case, final["learning_job"], echo)
    promoted, brief = _curated(legal, case, echo)
    hits = legal.tool("search_internal_decisions", query="חלונות עמומים בהקלה בקו בניין", limit=1)[
        "hits"
    ]
    first = hits[0]["case_number"] if hits else "nothing"
    if first == case:
        echo(f"  search_internal_decisions finds it: {first}")
    else:  # its metadata not filled (the enricher skipped): not searchable, as the rule says
        echo(f"  search_internal_decisions: not yet, its metadata waits (first hit: {first})")
    return {
        "pair_status": promoted["pair_status"],
        "history_row": row,
        "citations": final["citations"],
        "brief_lessons": len(brief["lessons"]),
        "internal_hit": hits[0]["case_number"] if hits else None,
        "stage": stage,
    }


def _enriched(legal: App, meta: dict, echo: Callable[[str], None]) -> None:
    """The final's internal copy awaits its headnote, summary and tags (not searchable yet);
    the enricher — here a SCRIPTED model on 127.0.0.1, through the real adapter — fills them."""
    if not meta.get("awaiting_metadata"):
        return
    echo(f"  internal decision awaits metadata ({', '.join(meta['missing'])}): {meta['state']}")
    if importlib.util.find_spec("openai") is None:  # a bare `pip install legal-ai`
        echo(
            "  enricher: skipped, the demo's scripted model is reached through the openai "
            "package, which is not installed (pip install 'legal-ai[models]'; `make install` "
            "has it): the decision waits for its metadata, unsearchable"
        )
        return
    settings = legal.settings
    with scripted_enricher() as spec:
        legal.settings = settings.model_copy(update={"enricher": spec})
        try:
            report = enrichment.run(legal)
        finally:
            legal.settings = settings
    for done in report["applied"]:
        echo(
            f"  enricher (SCRIPTED model, not a real one): grounded proposal #"
            f"{done['enrichment_id']} applied to {done['doc_id']}, marked as the model's; the "
            "chair may revert or edit it on the desk"
        )


def _curated(legal: App, case: str, echo: Callable[[str], None]) -> tuple[dict, WritingBrief]:
    """The curator's findings on the pair (scripted), one approved and promoted by the chair,
    and the writer's brief that now carries it: (what promote returned, the brief)."""
    chair = legal.acting_as(CHAIR)  # the demo plays the chair for her decisions
    # Scripted for the demo: findings written by hand, as a curator model would record them.
    found = lessons.record_curator_findings(
        legal,
        case,
        [
            "[סגנון] משפטים קצרים והצהרתיים; בלי 'יש לציין כי' ו'חשוב להדגיש'",
            "[מבנה] לדווח על הסיור במקום בבלוק הדיון בפנינו",
            "[לקסיקון משפטי] 'אין צו להוצאות' ולא 'כל צד יישא בהוצאותיו'",
        ],
    )
    chosen = found["lessons"][2]["id"]
    lessons.review(chair, chosen, "approve", reason="כך אני כותבת")
    promoted = lessons.promote(chair, case, [chosen], ["לכן"])
    brief = writing_brief(legal, "permit", "partially_accepted")
    echo(
        f"  curator (scripted findings, no model): {found['recorded']} proposed lessons; the "
        f"chair approved #{chosen} and "
        f"promoted it: permit methodology v{promoted['methodology_version']}, pair "
        f"{promoted['pair_status']}; the writer's brief now carries "
        f"{len(brief['lessons'])} approved lesson(s)"
    )
    return promoted, brief


def _learning_stage(legal: App, case: str, job_id: int | None, echo: Callable[[str], None]) -> dict:
    """The model-driven learning stage the upload queued: run it when models are configured;
    without them, show the pending queue and what to set."""
    report = jobs.run(legal, case, stages=STAGES)
    echo(f"  learning stage (distill -> style panel -> curator): job {job_id} queued by the upload")
    if report["cases"]:
        echo(
            f"    ran with the configured models: proposed {report['proposed']}, auto-approved "
            f"{report['auto_approved']}, to the chair {report['needs_chair']}, rejected "
            f"{report['rejected']}; {report['model_calls']} model call(s)"
        )
    for job in report["pending"]:
        echo(f"    pending: job {job['job_id']} ({job['status']})")
    if report["missing"]:
        echo(
            "    no model was called; to enable the stage:"
            if not report["model_calls"]
            else "    still to configure:"
        )
        for reason in report["missing"]:
            echo(f"      {reason}")
        echo(
            "      and each provider's key: ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY "
            "(a local server named by its URL needs none)"
        )
        echo(
            "    then `legal-ai learning run` (or keep `legal-ai worker` running); README: "
            "Language models"
        )
    return {
        "job": job_id,
        "cases": report["cases"],
        "pending": report["pending"],
        "missing": report["missing"],
    }


def _writer(legal: App, echo: Callable[[str], None]) -> dict:
    """What the writer reads (channel B) from the chair's finals loaded above: her recurring
    formulas and her own paragraphs of a block, never of the case being written."""
    found = get_templates(legal)["templates"]
    echo(f"\nwhat the writer reads: {len(found)} template(s) she repeats across her finals")
    for template in found[:2]:
        echo(f"  [{template['block']}, {template['support']} finals] {template['text'][:110]}")
    answer = get_block_exemplars(
        legal,
        "conclusion",
        "permit",
        case="ערר (מרכז) 7001/25",
        query="הערר נדחה ואין צו להוצאות",
        limit=2,
    )
    exemplars = answer["exemplars"]
    if answer.get("note"):
        echo(f"  exemplars of her conclusions for a permit appeal: {answer['note']}")
    for hit in exemplars:
        echo(
            f"  her conclusion in {hit['case_number']} (chars {hit['char_start']}-"
            f"{hit['char_end']}): {hit['text'][:110]}"
        )
    return {"templates": len(found), "exemplars": len(exemplars)}


def _principles(legal: App, echo: Callable[[str], None]) -> dict:
    """The principles the rulings and decisions queued on arrival: extracted by the configured
    panel (real models), or the queue waiting and what to set."""
    report = principle_jobs.run(legal)
    echo(
        "\nlegal principles (עקרונות משפטיים): every ruling and decision ingested above queued "
        "its extraction by the three-model panel"
    )
    if report["extracted"]:
        echo(
            f"  ran with the configured panel (real models): {report['extracted']} item(s), "
            f"approved {report['approved']}, to the chair {report['pending_review']}, rejected "
            f"{report['rejected']}, linked {report['linked']}"
        )
    waiting = [p for p in report["pending"] if p["status"] == "waiting"]
    if waiting:
        echo(f"  {len(waiting)} job(s) waiting, no model called: {report['waiting_for']}")
        echo(
            "    then `legal-ai principles run` (or keep `legal-ai worker` running); approved "
            "principles become search hits with their term (הלכה / כלל פרשני / עיקרון); README: "
            "Legal principles"
        )
    return {
        "extracted": report["extracted"],
        "waiting": len(waiting),
        "waiting_for": report["waiting_for"],
    }


def _load(
    legal: App, root: Path, manifest: dict, summary: dict, echo: Callable[[str], None]
) -> None:
    """Every item of the manifest ingested into its corpus, each one's state said."""
    for entry in manifest["items"]:
        report = legal.ingest(
            [root / entry["file"]], entry["corpus"], meta=entry["meta"], doc_id=entry["doc_id"]
        )
        state = "searchable"
        if report.unsearchable:
            state = "NOT searchable, missing: " + ", ".join(report.unsearchable[0]["missing"])
        if report.failed:
            state = "FAILED: " + report.failed[0]["error"]
        summary["ingest"][entry["doc_id"]] = state
        echo(f"  [{entry['corpus']:>8}] {entry['doc_id']}: {state}")


def _searches(legal: App, manifest: dict, summary: dict, echo: Callable[[str], None]) -> None:
    """The manifest's searches, each with its hits shown."""
    for spec in manifest["searches"]:
        result = legal.tool(spec["tool"], limit=3, **spec["args"])
        shown = spec["args"].get("query") or spec["args"].get("case_number")
        echo(f"\n{spec['tool']}: {shown}")
        for number, hit in enumerate(result["hits"], start=1):
            echo(format_hit(number, hit, indent="  ", snippet_chars=160))
        summary["searches"].append({"tool": spec["tool"], "hits": len(result["hits"])})


def populate(legal: App, echo: Callable[[str], None] = print) -> dict:
    """The demo's corpus, its searches, its learning loop, principles and writer into `legal`'s
    database (run_demo's, or a benchmark's: bench/desk_pages.py); what it did, as run_demo
    reports it."""
    root, manifest = _manifest()
    summary: dict = {"ingest": {}, "searches": []}
    echo("loading the fictional demo corpus ...")
    _load(legal, root, manifest, summary, echo)
    saved = legal.attach_precedent("ערר (מרכז) 7001/25", 'עע"מ 9101/20', "הקלה ופרטיות")
    echo(
        f"  attached precedent {saved['citation']} to {saved['case_number']}"
        f" (library id {saved['case_law_id']})"
    )
    for principle in manifest["principles"]:
        # Demo only: the chair's gate is what approves substance in real use.
        legal.acting_as(CHAIR).add_principle(**principle, review_status="approved")
    echo("  added one approved principle, grounded in a verbatim quote")
    _searches(legal, manifest, summary, echo)
    summary["learning"] = _learning(legal, root, echo)
    summary["principles"] = _principles(legal, echo)
    summary["writer"] = _writer(legal, echo)
    return summary


def serve_line(url: str, chair: str | None) -> str:
    """The command that serves the desk over the demo's database, each value quoted for a POSIX
    shell: its URL, the agent's token (the API never runs without a credential) and the
    committee's chair (her finals are attributed to her, never to a default)."""
    env = {
        "LEGAL_AI_DATABASE_URL": url,
        "LEGAL_AI_AGENT_TOKEN": DEMO_AGENT_TOKEN,
        "LEGAL_AI_COMMITTEE_CHAIR": chair or DEMO_CHAIR,
    }
    return " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items()) + " legal-ai serve"


def run_demo(settings: Settings, echo: Callable[[str], None] = print) -> dict:
    started = time.perf_counter()
    if not settings.committee_chair:  # the demo's committee has a fictional chair of its own
        settings = settings.model_copy(update={"committee_chair": DEMO_CHAIR})
    echo("legal-ai demo: starting PostgreSQL + pgvector ...")
    # Pointed at the demo's own database (as its closing lines say), it is still rebuilt: the
    # embedding cache stays in the server's application database (App.rebuilt).
    with App.rebuilt(settings, DEMO_DATABASE) as legal:
        echo(f"  database: {DEMO_DATABASE} (rebuilt; your own data is untouched)")
        summary = populate(legal, echo)
        accounts.set_password(legal, "chair", DEMO_DESK_PASSWORD)
        health = health_report(legal)
        demo_url = legal.store.url
    echo(
        f"\nhealth: {health['unsearchable']} unsearchable (reported, never searched), "
        f"{health['stale_embeddings']} stale embeddings, isolation: "
        f"{health['isolation']['leaks']} leaks in {health['isolation']['checked']} checks"
    )
    echo(
        "\nthe chair's desk on the demo data:\n"
        f"  {serve_line(demo_url, settings.committee_chair)}\n"
        "  then open http://127.0.0.1:8765/login and sign in as `chair` with the demo password "
        f"{DEMO_DESK_PASSWORD} (fictional, set for the demo database only)"
    )
    echo(
        f"\nthe demo's data is in its own database, {DEMO_DATABASE} (rebuilt by each run; the "
        "commands use another, legal_ai, until told). Point them at the demo's, as README.md's "
        "examples expect:\n"
        f'  export LEGAL_AI_DATABASE_URL="$(legal-ai db url --database {DEMO_DATABASE})"\n'
        f"  export LEGAL_AI_COMMITTEE_CHAIR='{settings.committee_chair}'   # the chair of the "
        "committee's decisions (the demo's is fictional)"
    )
    echo(f"done in {time.perf_counter() - started:.1f}s. Stop the server with `legal-ai db stop`.")
    summary["health"] = {k: health[k] for k in ("unsearchable", "stale_embeddings", "isolation")}
    return summary
