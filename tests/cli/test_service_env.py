"""The worker is the system (issue 32 items 1, 5 and 6): `legal-ai worker --once`, `jobs run`
and the stages it drains run by hand succeed under the servers' exact environment — the units'
file, deploy/env.example filled with the tokens and a database, read by systemd's rules — on an
empty database and on one with queued work; a misspelled setting is one warning naming the real
one; a malformed one is one line and exit code 2; the doctor reads the same file."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from helpers import ROOT, TEST_CHAIR, TEST_HOME, run, run_process
from legal_ai.config_env import parse_env_file
from scenarios import PANEL_RULING, ingest, ingest_decision

pytestmark = pytest.mark.db

CHAIR = "chair-" + "c" * 40
WRITER = "writer-" + "w" * 40
SCRAPER = "metrics-" + "m" * 40
# The system's own work, run by hand (docs/cli.md): each must act as the system, not as the
# chair or the agent whose tokens the units' shared file holds.
BY_HAND = [
    ["worker", "--once"],
    ["jobs", "run", "stale-case-reminder"],
    ["jobs", "run", "sync-case-status"],
    ["learning", "run"],
    ["principles", "run"],
    ["ocr", "run"],
    ["enrich", "run"],
    ["voice", "run"],
]


def units_file(tmp_path: Path, settings) -> Path:
    """deploy/env.example as docs/deployment.md has the engineer fill it: the database, the
    chair's and an agent's tokens, the scraper's; a Hebrew value written as systemd takes it."""
    filled = {
        "LEGAL_AI_HOME": str(TEST_HOME),
        "LEGAL_AI_DATABASE_URL": settings.database_url,
        "LEGAL_AI_CHAIR_TOKEN": CHAIR,
        "LEGAL_AI_AGENT_TOKEN": f"writer={WRITER}",
        "LEGAL_AI_METRICS_TOKEN": SCRAPER,
        "LEGAL_AI_COMMITTEE_CHAIR": TEST_CHAIR,  # עו"ד נועה בדיקה: a quote and blanks, unquoted
    }
    lines = []
    for line in (ROOT / "deploy" / "env.example").read_text(encoding="utf-8").splitlines():
        name = re.match(r"# ([A-Z_]+)=", line)
        if name and name[1] in filled:
            line = f"{name[1]}={filled.pop(name[1])}"
        lines.append(line)
    assert not filled, f"env.example lacks {sorted(filled)}"
    path = tmp_path / "env"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def bare() -> dict[str, str]:
    """A unit's environment before its file: PATH and HOME (and where this checkout's code is,
    when the suite runs from a worktree)."""
    kept = ("PATH", "HOME", "PYTHONPATH")
    return {k: os.environ[k] for k in kept if k in os.environ}


def service_env(path: Path) -> dict[str, str]:
    """What the unit runs under: the file's variables as systemd reads them."""
    parsed = parse_env_file(path.read_text(encoding="utf-8"))
    assert parsed.ignored == []
    return {**bare(), **parsed.values}


def test_the_system_runs_under_the_servers_environment(app, settings, tmp_path):
    # In a process of its own (run_process): its subject is what the unit's environment does.
    env = service_env(units_file(tmp_path, settings))
    assert env["LEGAL_AI_COMMITTEE_CHAIR"] == TEST_CHAIR
    for args in BY_HAND:  # an empty database
        out = run_process(env, *args, check=False)
        assert out.returncode == 0, (args, out.stderr)
        assert "system's own stage" not in out.stderr and "warning" not in out.stderr
    # Without its model, synthesis by hand says what to set (not that a caller may not).
    out = run_process(env, "principles", "synthesize", check=False)
    assert out.returncode == 2 and "set LEGAL_AI_SYNTHESIZER" in out.stderr
    ingest(app, tmp_path, "ruling-1", PANEL_RULING)  # a principles job, queued
    ingest_decision(app, tmp_path)  # an enrichment job, queued (no enricher: it waits)
    with app.store.connection() as conn:
        queued = conn.execute(
            "SELECT kind, count(*) AS n FROM jobs WHERE status IN ('queued', 'waiting') "
            "GROUP BY kind"
        ).fetchall()
    assert queued, "the scenario queues work"
    for args in (["principles", "run"], ["enrich", "run"], ["worker", "--once"]):
        out = run_process(env, *args, check=False)
        assert out.returncode == 0, (args, out.stderr)
    # The decision is still the chair's: a chair decision under the same file needs her
    # registered token (exit 6 until `legal-ai user set-token chair`), as before.
    out = run_process(env, "lessons", "review", "1", "approve", check=False)
    assert out.returncode == 6 and len(out.stderr.strip().splitlines()) == 1


def test_doctor_reads_the_units_file_and_says_what_each_unit_needs(app, settings, tmp_path):
    path = units_file(tmp_path, settings)
    out = run(bare(), "doctor", "--offline", "--json", "--env-file", str(path), check=False)
    found = {f["check"]: f for f in json.loads(out.stdout)}
    assert found["settings"]["status"] == "ok" and str(path) in found["settings"]["message"]
    assert found["database"]["status"] == "ok"
    assert found["tokens"]["status"] == "ok"  # serve's: the chair's and one agent's
    assert found["worker"]["status"] == "info"
    assert "ignores LEGAL_AI_CHAIR_TOKEN, LEGAL_AI_AGENT_TOKEN" in found["worker"]["message"]

    # The worker's unit with a file of its own, without tokens: nothing missing for it.
    lean = tmp_path / "worker.env"
    lean.write_text(
        f"LEGAL_AI_HOME={TEST_HOME}\nLEGAL_AI_DATABASE_URL='{settings.database_url}'\n"
        "LEGAL_AI_BACKUP_KEPE=3\nexport LEGAL_AI_EMBEDDER=e5-local\n",
        encoding="utf-8",
    )
    out = run(
        bare(), "doctor", "--offline", "--json", "--unit", "worker", "--env-file", str(lean),
        check=False,
    )  # fmt: skip
    found = {f["check"]: f for f in json.loads(out.stdout)}
    assert "tokens" not in found and found["worker"]["status"] == "ok"
    assert found["settings"]["status"] == "warn"
    said = found["settings"]["message"]
    assert "LEGAL_AI_BACKUP_KEPE" in said and "did you mean LEGAL_AI_BACKUP_KEEP?" in said
    assert "line 4" in said and "export" in said
    # The process's own LEGAL_AI_* are not the unit's: this shell's bad value is not read.
    out = run(
        {**bare(), "LEGAL_AI_BACKUP_KEEP": "abc"},
        "doctor", "--offline", "--json", "--unit", "worker", "--env-file", str(lean),
        check=False,
    )  # fmt: skip
    assert {f["check"]: f for f in json.loads(out.stdout)}["settings"]["status"] == "warn"
    out = run(bare(), "doctor", "--env-file", str(tmp_path / "absent"), check=False)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "--env-file" in out.stderr


def test_a_misspelled_setting_warns_once_and_an_empty_one_is_unset(cli_env, tmp_path):
    env = {**cli_env, "LEGAL_AI_BACKUP_KEPE": "3", "LEGAL_AI_BACKUP_DIR": ""}
    out = run(env, "jobs", "run", "nightly-backup", check=False)
    assert out.returncode == 0, out.stderr
    warnings = [line for line in out.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [
        "warning: LEGAL_AI_BACKUP_KEPE is not a setting of legal-ai (did you mean "
        "LEGAL_AI_BACKUP_KEEP? docs/configuration.md lists them); ignored"
    ]
    # LEGAL_AI_BACKUP_DIR= is unset: the job is skipped, nothing written where it ran.
    assert "no backup folder set (LEGAL_AI_BACKUP_DIR)" in out.stdout
    assert not list(Path.cwd().glob("legal-ai-*.backup"))


@pytest.mark.parametrize(
    ("variable", "value", "expects"),
    [
        ("LEGAL_AI_BACKUP_KEEP", "abc", "expects a whole number"),
        ("RRF_K", "x", "expects a whole number"),
        ("LEGAL_AI_LOG_FORMAT", "xml", "expects 'json' or 'text'"),
        ("LEGAL_AI_BACKUP_KEEP", "0", "expects greater than or equal to 1"),
        ("LEGAL_AI_TRUSTED_PROXIES", "*", "is not an IP address or network"),
    ],
)
def test_a_malformed_setting_is_one_line_for_every_command(cli_env, variable, value, expects):
    env = {**cli_env, variable: value}
    for args in (["jobs", "list"], ["worker", "--once"], ["health"], ["mcp"]):
        out = run(env, *args, check=False)
        assert out.returncode == 2, (args, out.stderr)
        assert out.stderr.splitlines() == [out.stderr.strip()], out.stderr  # one line
        assert f"{variable}={value!r}" in out.stderr and expects in out.stderr
    out = run(env, "doctor", "--offline", "--json", check=False)  # reports it, runs the rest
    found = {f["check"]: f for f in json.loads(out.stdout)}
    assert out.returncode == 1 and found["settings"]["status"] == "error"
    assert f"{variable}={value!r}" in found["settings"]["message"]
    assert found["database"]["status"] == "ok"
