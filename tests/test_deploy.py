"""What deploy/ ships (issue 24 item 7): the two systemd units parse, run real `legal-ai`
sub-commands with real options, and pass `systemd-analyze verify`; the environment file's
example names only real settings and carries no secret; docs/deployment.md points at the files
rather than keeping copies of its own. Pure: no database, no server."""

from __future__ import annotations

import configparser
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from legal_ai.cli import app
from legal_ai.config import Settings
from legal_ai.providers.models.base import KEY_VARIABLES

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
UNITS = {"legal-ai-serve.service": "serve", "legal-ai-worker.service": "worker"}
VENV_BIN = "/srv/legal-ai/.venv/bin/"  # where docs/deployment.md installs it


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
    assert service["EnvironmentFile"] == "/etc/legal-ai/env"
    assert service["Restart"] == "on-failure"
    assert parsed["Install"]["WantedBy"] == "multi-user.target"
    argv = shlex.split(service["ExecStart"])
    assert argv[0] == VENV_BIN + "legal-ai"
    assert argv[1] == UNITS[name]
    group = typer.main.get_command(app)
    command = group.commands[argv[1]]
    # Parsed as the CLI parses them (typer's click): an unknown option or a bad value raises.
    context = command.make_context(argv[1], argv[2:])
    if argv[1] == "serve":
        assert (context.params["host"], context.params["port"]) == ("127.0.0.1", 8765)
    with pytest.raises(Exception, match="No such option: --no-such-option"):
        command.make_context(argv[1], [*argv[2:], "--no-such-option"])


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
