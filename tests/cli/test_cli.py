"""The command-line contract of DESIGN §10: names, JSON keys, exit codes and one-line errors."""

import json

import pytest

import factories
from helpers import register_chair_token, run, write
from legal_ai.ingest.pipeline import IngestAnswer
from legal_ai.learning.engine.job_report import LearningRun
from legal_ai.learning.pairs.drafts import DraftAdded
from legal_ai.learning.pairs.finals import FinalUploaded, History
from legal_ai.ops.health import Health
from legal_ai.ops.scheduler import JobList
from legal_ai.ops.upkeep import AppReindex
from legal_ai.retrieval.contract import ToolAnswer
from shapes import assert_shape

pytestmark = pytest.mark.db


def test_ingest_search_health_reindex_json(app, cli_env, tmp_path):
    path = write(tmp_path / "protocol.txt", "פרוטוקול דיון: הוחלט לערוך סיור במקום ביום 2.4.2025.")
    ingest = json.loads(
        run(
            cli_env,
            "ingest",
            str(path),
            "--corpus",
            "case",
            "--case-number",
            "ערר 11/25",
            "--practice-area",
            "planning",
            "--doc-id",
            "p-1",
            "--meta",
            "author=clerk",
            "--json",
        ).stdout
    )
    assert set(ingest) >= {"ingested", "unchanged", "unsearchable", "failed"}
    assert_shape(ingest, IngestAnswer)
    assert ingest["ingested"] == 1
    found = json.loads(
        run(
            cli_env,
            "search",
            "סיור במקום",
            "--corpus",
            "case",
            "--case-number",
            "ערר 11/25",
            "--json",
        ).stdout
    )
    assert_shape(found, ToolAnswer)  # the CLI answers as the search tools do
    hit = found["hits"][0]
    assert set(found) >= {"hits", "dropped_by_cap"} and found["tool"] == "search_case_documents"
    for key in (
        "corpus",
        "kind",
        "doc_id",
        "chunk_id",
        "case_number",
        "page",
        "char_start",
        "char_end",
        "snippet",
        "score",
        "explain",
    ):
        assert key in hit
    assert hit["doc_id"] == "p-1" and hit["corpus"] == "case"
    health = json.loads(run(cli_env, "health", "--json").stdout)
    for key in ("unsearchable", "stale_embeddings", "missing_embeddings", "isolation"):
        assert key in health
    assert health["isolation"]["leaks"] == 0
    # The answer is the type it is declared as (its parts are spread in from several lists):
    # every key the type names, none it does not, each value of its type (tests/shapes.py).
    assert_shape(health, Health)
    reindexed = json.loads(run(cli_env, "reindex", "--json").stdout)
    assert_shape(reindexed, AppReindex)
    assert reindexed == {
        "reembedded": 0,
        "reanalyzed": 0,
        "chunks": {"reembedded": 0, "reanalyzed": 0},
        "principles": {"reembedded": 0, "reanalyzed": 0},
        "precedents": {"reembedded": 0, "reanalyzed": 0},
        "exemplars": {"reembedded": 0, "reanalyzed": 0},
        "canonical_statements": {"reembedded": 0},
        "page_images": {"reembedded": 0, "skipped": 0, "reason": None},
        "repaired": [],  # nothing was changed outside ingest
        "principle_spans": {"moved": 0, "returned": []},  # no principle's span or rule changed
        "exemplars_recut": [],  # no final's paragraphs changed outside their cut
        "metadata_folded": 0,  # every decision's metadata already in its first chunk
    }


def test_errors_are_one_line_with_an_exit_code(app, cli_env, tmp_path):
    result = run(cli_env, "search", "x", "--corpus", "nowhere", check=False)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "error: unknown corpus 'nowhere'; choose one of: case, style, external, internal, digests,"
        " case_precedents"
    ]
    empty = run(
        cli_env,
        "ingest",
        str(write(tmp_path / "e.txt", "")),
        "--corpus",
        "case",
        "--json",
        check=False,
    )
    assert empty.returncode == 2
    assert "the file is empty" in json.loads(empty.stdout)["failed"][0]["error"]
    missing = run(cli_env, "case", "attach-precedent", "ערר 404/25", 'עע"מ 1/01', check=False)
    assert missing.returncode == 3 and "no case 'ערר 404/25'" in missing.stderr


def test_attach_precedent_links_a_ruling_in_the_library(app, cli_env, tmp_path):
    doc = write(tmp_path / "n.txt", "כתב ערר בעניין הקלה")
    run(
        cli_env,
        "ingest",
        str(doc),
        "--corpus",
        "case",
        "--case-number",
        "ערר 12/25",
        "--practice-area",
        "planning",
    )
    ruling = write(tmp_path / "r.txt", "פסק דין בדוי בעניין הקלה בקו בניין")
    run(
        cli_env,
        "ingest",
        str(ruling),
        "--corpus",
        "external",
        "--case-number",
        'עע"מ 9101/20',
        "--meta",
        "court=העליון",
        "--meta",
        "decided_on=2021-06-01",
    )
    saved = json.loads(
        run(
            cli_env,
            "case",
            "attach-precedent",
            "ערר 12/25",
            "עע״מ 9101/20",
            "--note",
            "הקלה",
            "--json",
        ).stdout
    )
    assert saved["case_law_id"] is not None and saved["note"] == "הקלה"


def test_db_url_points_at_the_configured_server(cli_env, settings):
    assert run(cli_env, "db", "url").stdout.strip() == settings.database_url
    assert "up to date" in run(cli_env, "db", "migrate").stdout


def test_learning_loop_commands(app, cli_env, tmp_path):
    """draft add → final upload → learning history, with DESIGN §10's JSON keys."""
    record = factories.records()[2]  # the fictional levy pair
    case = record["case_number"]
    draft = write(tmp_path / "draft.txt", record["draft_text"])
    final = write(tmp_path / "final.txt", record["final_text"])
    added = json.loads(
        run(
            cli_env,
            "draft",
            "add",
            case,
            str(draft),
            "--appeal-type",
            record["appeal_type"],
            "--outcome",
            record["outcome"],
            "--practice-area",
            record["practice_area"],
            "--json",
        ).stdout
    )
    assert {"case_number", "pair_status", "blocks"} <= set(added)
    assert added["pair_status"] == "draft_done" and len(added["blocks"]) == 12
    assert_shape(added, DraftAdded)
    uploaded = json.loads(run(cli_env, "final", "upload", case, str(final), "--json").stdout)
    assert {"case_number", "pair_status", "case_law_id", "citations", "history_row"} <= set(
        uploaded
    )
    assert uploaded["pair_status"] == "analyzed"
    assert set(uploaded["citations"]) == {"linked", "missing", "ambiguous"}
    assert_shape(uploaded, FinalUploaded)
    history = json.loads(run(cli_env, "learning", "history", "--json").stdout)
    assert_shape(history, History)
    rows = history["rows"]
    assert {
        "case_number",
        "captured_at",
        "anti_pattern_total",
        "ratio_deviation",
        "change_percent",
        "lesson_pool_size",
    } <= set(rows[0])
    # the learning job the upload queued waits for its models (none is configured here)
    ran = json.loads(run(cli_env, "learning", "run", "--json").stdout)
    assert {"cases", "proposed", "auto_approved", "needs_chair", "rejected", "pending"} <= set(ran)
    assert "model_calls" in ran and ran["model_calls"] == 0
    assert_shape(ran, LearningRun)
    [pending] = ran["pending"]
    assert pending["case_number"] == case and "LEGAL_AI_DISTILLER" in pending["reason"]
    listed = json.loads(run(cli_env, "jobs", "list", "--json").stdout)
    assert_shape(listed, JobList)
    jobs = listed["jobs"]
    for job in jobs:  # DESIGN §10's names beside the fields' own
        assert {"name", "schedule", "next_run", "last_run", "last_outcome"} <= set(job)
        assert (job["schedule"], job["next_run"]) == (job["cron"], job["next_run_at"])
        assert job["last_run"] == job["last_started_at"]
    text = run(cli_env, "final", "upload", case, str(final)).stdout
    assert "nothing changed" in text
    bad = run(cli_env, "final", "upload", "1042/23", str(final), check=False)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert "malformed case number" in bad.stderr
    brief = json.loads(
        run(cli_env, "brief", record["appeal_type"], "--outcome", record["outcome"]).stdout
    )
    assert brief["anti_patterns"] and brief["lessons"] == []
    pairs = json.loads(run(cli_env, "learning", "pairs", "--json").stdout)["pairs"]
    assert [(p["case_number"], p["status"]) for p in pairs] == [(case, "analyzed")]
    missing = json.loads(run(cli_env, "learning", "missing-precedents", "--json").stdout)
    assert {m["ref"] for m in missing["missing_precedents"]} == {
        c["ref"] for c in record["citations"] if c["kind"] == "ruling"
    }
    run(cli_env, "lessons", "add", case, "style", "משפטים קצרים", "--block", "discussion")
    listed = run(cli_env, "lessons", "list", "--status", "proposed").stdout
    assert "#1 [proposed] style (style): משפטים קצרים" in listed
    denied = run(cli_env, "lessons", "review", "1", "approve", check=False)
    assert denied.returncode == 7 and "chair's decision" in denied.stderr
    # a script acting as the chair, with her token as `legal-ai user set-token chair` registered it
    cli_env = {**cli_env, "LEGAL_AI_CHAIR_TOKEN": register_chair_token(app, "her-token")}
    assert "approved" in run(cli_env, "lessons", "review", "1", "approve").stdout
    run(
        cli_env,
        "feedback",
        "add",
        "wrong_tone",
        "רטורי מדי",
        "--case",
        case,
        "--block",
        "discussion",
    )
    assert "wrong_tone discussion" in run(cli_env, "feedback", "list").stdout
    summary = json.loads(run(cli_env, "feedback", "summary", "--json").stdout)
    assert summary["by_category"] == {"wrong_tone": 1}
    promoted = json.loads(
        run(cli_env, "learning", "promote", case, "--lesson", "1", "--json").stdout
    )
    assert promoted["pair_status"] == "lessons_folded"
