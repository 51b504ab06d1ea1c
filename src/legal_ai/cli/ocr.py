"""`legal-ai ocr run|list`: scanned PDFs read by OCR in the background (ingest/ocr_jobs.py)."""

from __future__ import annotations

import typer

from ..ingest import ocr_jobs
from ..learning.pairs import scanned_decisions
from .common import JsonFlag, _app, _print_json, _system_app

ocr_app = typer.Typer(
    help="Scanned PDFs (no text layer): read by OCR (Tesseract, Hebrew) in the background.",
    no_args_is_help=True,
)


@ocr_app.command("run")
def run(as_json: JsonFlag = False) -> None:
    """Read the queued scans now (what `legal-ai worker` does too): each page rendered and read,
    the text written into the scan's items with page numbers. Without Tesseract and its Hebrew
    model the jobs wait, saying what to install."""
    with _system_app() as legal:
        report = ocr_jobs.run(legal)
        # Drafts and finals uploaded as scans, their scan now read: stored (scanned_decisions).
        report["decisions"] = scanned_decisions.run(legal)
    if as_json:
        _print_json(report)
        return
    for job in report["jobs"]:
        typer.echo(ocr_jobs.job_line(job))
    typer.echo(
        f"read {report['read']} scan(s), {report['pages']} page(s); "
        f"{sum(i['searchable'] for i in report['items'])} item(s) searchable"
    )
    for item in report["low_confidence"]:
        typer.echo(
            f"  low confidence: {item['corpus']}/{item['doc_id']} page(s) "
            f"{', '.join(map(str, item['pages']))}"
        )
    for item in report["items"]:
        if item.get("case_number_mismatch"):
            said = item["case_number_mismatch"]
            typer.echo(
                f"  check the case number: {item['corpus']}/{item['doc_id']} is filed under "
                f"{said['filed']}, its first page reads {', '.join(said['read'])}"
            )
    for failure in report["failed"]:
        typer.echo(f"  failed: job {failure['job_id']}: {failure['error']}")
    said = scanned_decisions.line(report["decisions"])
    if said:
        typer.echo(said)
    if report["pending"]:
        typer.echo(f"{len(report['pending'])} job(s) open: {report['pending'][0]['reason']}")


@ocr_app.command("list")
def list_(as_json: JsonFlag = False) -> None:
    """The OCR queue (with why a job waits) and the items read with low-confidence pages
    (below LEGAL_AI_OCR_MIN_CONFIDENCE) or with no text."""
    with _app() as legal:
        result = ocr_jobs.status(legal)
    if as_json:
        _print_json(result)
        return
    typer.echo(f"{result['queued']} queued, {result['waiting']} waiting, {result['failed']} failed")
    for job in result["jobs"]:
        typer.echo(f"  job {job['job_id']} {job['file_sha256'][:12]}: {job['reason']}")
    for item in result["low_confidence"]:
        pages = ", ".join(map(str, item["low_confidence_pages"] or [])) or "-"
        typer.echo(
            f"{item['corpus']}/{item['doc_id']}: confidence {item['confidence']}, "
            f"low-confidence page(s) {pages} (below {result['min_confidence']:g})"
            + (f"; {item['extraction_issue']}" if item["extraction_issue"] else "")
        )
        for r in item.get("low_confidence_reasons") or []:
            typer.echo(f"  page {r['page']}: {r['reason']}")


def register(app: typer.Typer) -> None:
    app.add_typer(ocr_app, name="ocr")
