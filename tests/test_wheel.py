"""The built wheel (issue 24 item 7): `scripts/wheel` (`make dist`) builds it; it holds the package
with every migration, the demo data and the desk's templates and assets, and nothing else (no
tests, no bytecode, no stray file); its metadata carries `legal_ai.__version__`. Installed into a
fresh venv with its own dependency list only (no extra, none of the test stack), it runs
`legal-ai demo` from outside the clone on an embedded server of its own, which is stopped
whatever happens."""

from __future__ import annotations

import email
import subprocess
import tomllib
import zipfile
from pathlib import Path

import pytest

import legal_ai
from helpers import DEMO_SEARCH_TOOLS
from legal_ai.store.migrations import available
from wheels import ROOT, build_wheel, clean_env, fresh_venv, pip_install

PACKAGE = ROOT / "src" / "legal_ai"
DIST_INFO = {"METADATA", "WHEEL", "entry_points.txt", "top_level.txt", "RECORD"}
TEST_STACK = ("pytest", "playwright", "fpdf", "hypothesis", "axe_playwright_python", "ruff")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    return build_wheel(ROOT, tmp_path_factory.mktemp("dist"))


def source_files() -> set[str]:
    """Every file of the package in the source tree, as the wheel names it."""
    return {
        "legal_ai/" + path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


def test_wheel_holds_the_package_its_data_and_nothing_else(wheel):
    version = legal_ai.__version__
    assert wheel.name == f"legal_ai-{version}-py3-none-any.whl"
    names = set(zipfile.ZipFile(wheel).namelist())
    info = f"legal_ai-{version}.dist-info/"
    package = {name for name in names if not name.startswith(info)}
    assert {name.removeprefix(info) for name in names - package} == DIST_INFO
    # Every source file is in it, every migration, template, asset and demo file among them;
    # nothing else is (tests, bench, bytecode, a top-level module of another name).
    missing, extra = sorted(source_files() - package), sorted(package - source_files())
    assert (missing, extra) == ([], [])
    for folder, suffix in [
        ("store/migrations", ".sql"),
        ("web/desk/templates", ".html"),
        ("web/desk/static", ".css"),
        ("web/desk/static", ".js"),
        ("demo_data", ".md"),
    ]:
        shipped = {n for n in package if n.startswith(f"legal_ai/{folder}/") and n.endswith(suffix)}
        assert len(shipped) == len(list((PACKAGE / folder).glob(f"*{suffix}"))) > 0, folder
    assert "legal_ai/demo_data/manifest.json" in package


def test_wheel_metadata(wheel):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    with zipfile.ZipFile(wheel) as archive:
        info = f"legal_ai-{legal_ai.__version__}.dist-info/"
        meta = email.message_from_bytes(archive.read(info + "METADATA"))
        entry_points = archive.read(info + "entry_points.txt").decode()
    assert (meta["Name"], meta["Version"]) == ("legal-ai", legal_ai.__version__)
    assert meta["Requires-Python"] == project["requires-python"]
    required = [r for r in meta.get_all("Requires-Dist") if "extra ==" not in r]
    assert len(required) == len(project["dependencies"])
    assert sorted(meta.get_all("Provides-Extra")) == sorted(project["optional-dependencies"])
    assert "legal-ai = legal_ai.cli:main" in entry_points


@pytest.mark.slow
def test_wheel_in_a_fresh_venv_runs_the_demo(wheel, tmp_path_factory, embedding_folder):
    place = tmp_path_factory.mktemp("fresh")  # short: the server's socket lives under it
    venv, home = place / "venv", place / "home"
    python, cli = fresh_venv(venv), venv / "bin" / "legal-ai"
    installed = pip_install(python, wheel)
    assert installed.returncode == 0, installed.stderr[-3000:]
    # the run's shared embeddings (the README's demo embeds the same texts)
    env = clean_env(LEGAL_AI_HOME=str(home), LEGAL_AI_EMBEDDING_CACHE_DIR=str(embedding_folder))
    probe = subprocess.run(
        [python, "-c", PROBE, *TEST_STACK],
        cwd=place,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    where, version, absent = probe.stdout.splitlines()
    assert Path(where).is_relative_to(venv) and version == legal_ai.__version__
    assert absent == " ".join(TEST_STACK), "none of the test stack is installed"
    try:
        demo = subprocess.run(
            [cli, "demo"], cwd=place, env=env, capture_output=True, text=True, timeout=600
        )
    finally:
        stopped = subprocess.run(
            [cli, "db", "stop"], cwd=place, env=env, capture_output=True, text=True, timeout=120
        )
    assert demo.returncode == 0, demo.stderr[-3000:]
    lines = demo.stdout.splitlines()
    for tool in DEMO_SEARCH_TOOLS:  # each search printed its first hit under its tool's line
        at = next(i for i, line in enumerate(lines) if line.startswith(f"{tool}: "))
        assert lines[at + 1].startswith("  1. "), tool
    # The bare wheel has no model SDK: the scripted enricher's step says what to install.
    assert "enricher: skipped" in demo.stdout and "legal-ai[models]" in demo.stdout
    assert "isolation: 0 leaks" in demo.stdout and "done in" in demo.stdout
    assert stopped.returncode == 0, stopped.stderr


PREVIOUS = "707190d475c78f030e0abb9dfbaea2321211ecef"  # release 0.1.0's last commit
PREVIOUS_VERSION, PREVIOUS_HEAD = "0.1.0", "0032_precedent_search_text"
PASSWORD = "סיסמה-של-השדרוג-2026"  # the chair's desk password, set under the old release


@pytest.fixture(scope="module")
def previous_wheel(tmp_path_factory) -> Path:
    """Release 0.1.0's wheel, built from git (`git archive` of its commit) by its own
    scripts/wheel, as `make dist` built it then."""
    source, out = tmp_path_factory.mktemp("previous"), tmp_path_factory.mktemp("previous-dist")
    archive = subprocess.run(
        ["git", "-C", ROOT, "archive", "--format=tar", PREVIOUS],
        capture_output=True,
        timeout=120,
        check=False,
    )
    if archive.returncode != 0:  # a shallow clone, or an export without .git
        pytest.skip(f"release {PREVIOUS_VERSION}'s commit {PREVIOUS[:7]} is not in this clone")
    subprocess.run(["tar", "-x", "-C", source], input=archive.stdout, check=True, timeout=120)
    built = build_wheel(source, out)
    assert built.name == f"legal_ai-{PREVIOUS_VERSION}-py3-none-any.whl"
    return built


@pytest.mark.slow
def test_wheel_upgrades_the_previous_release(previous_wheel, wheel, tmp_path_factory):
    """The office's upgrade (docs/deployment.md, "Upgrading"): release 0.1.0 installed from its
    wheel into a fresh venv migrates its embedded database, sets the chair's desk password and
    backs up; this release's wheel installed over it replaces it (the versions differ, so pip
    does: "already installed with the same version" kept the old code when every wheel was
    0.1.0); `db migrate` applies this release's migrations only; the doctor finds no error."""
    assert legal_ai.__version__ != PREVIOUS_VERSION, "bump __version__ for a release"
    place = tmp_path_factory.mktemp("upgrade")  # short: the server's socket lives under it
    venv, home, backups = place / "venv", place / "home", place / "backups"
    backups.mkdir()
    python, cli = fresh_venv(venv), venv / "bin" / "legal-ai"
    # The operator's environment; the service's has the callers' tokens too (the doctor reads
    # the service's: a deployment without a token is an error).
    env = clean_env(LEGAL_AI_HOME=str(home), LEGAL_AI_BACKUP_DIR=str(backups))
    service = {**env, "LEGAL_AI_AGENT_TOKEN": "agent=an-agent-token-of-the-upgrade-test"}

    def legal_ai_cli(
        *args: str, stdin: str | None = None, environ: dict[str, str] = env
    ) -> subprocess.CompletedProcess:
        return subprocess.run(
            [cli, *args],
            cwd=place,
            env=environ,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=300,
        )

    def installed_version() -> str:
        probe = subprocess.run(
            [python, "-c", PROBE],
            cwd=place,
            env=env,
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        )
        return probe.stdout.splitlines()[1]

    old = pip_install(python, previous_wheel)
    assert old.returncode == 0, old.stderr[-3000:]
    assert installed_version() == PREVIOUS_VERSION
    try:
        migrated = legal_ai_cli("db", "migrate")
        assert migrated.returncode == 0, migrated.stderr[-3000:]
        assert migrated.stdout.splitlines()[0].endswith(f", {PREVIOUS_HEAD}")
        password = legal_ai_cli("user", "set-password", "chair", "--password-stdin", stdin=PASSWORD)
        assert password.returncode == 0, password.stderr[-3000:]
        backup = legal_ai_cli("db", "backup", str(backups / "legal-ai-before-upgrade.backup"))
        assert backup.returncode == 0, backup.stderr[-3000:]

        new = pip_install(python, wheel)
        assert new.returncode == 0, new.stderr[-3000:]
        assert f"Successfully uninstalled legal-ai-{PREVIOUS_VERSION}" in new.stdout
        assert f"Successfully installed legal-ai-{legal_ai.__version__}" in new.stdout
        assert installed_version() == legal_ai.__version__
        version = legal_ai_cli("--version")
        assert version.stdout == f"legal-ai {legal_ai.__version__}\n"

        dry = legal_ai_cli("db", "migrate", "--dry-run")
        assert dry.returncode == 0 and f"the database is at {PREVIOUS_HEAD}" in dry.stdout
        upgraded = legal_ai_cli("db", "migrate")
        assert upgraded.returncode == 0, upgraded.stderr[-3000:]
        since = int(PREVIOUS_HEAD[:4])
        newer = [f"{m.version:04d}_{m.name}" for m in available() if m.version > since]
        assert newer and upgraded.stdout.splitlines()[0] == "applied: " + ", ".join(newer)
        doctor = legal_ai_cli("doctor", "--offline", environ=service)
    finally:
        stopped = legal_ai_cli("db", "stop")
    errors = [line for line in doctor.stdout.splitlines() if line.startswith("error")]
    assert (doctor.returncode, errors) == (0, []), doctor.stdout[-3000:] + doctor.stderr[-3000:]
    for check in ("migrations", "desk_password", "backup", "pgvector"):
        line = next(row for row in doctor.stdout.splitlines() if row.split()[1:2] == [check])
        assert line.startswith("ok"), line
    assert stopped.returncode == 0, stopped.stderr


# Run by the fresh venv's python outside the clone: where legal_ai comes from, its version as
# the installed metadata says, and which of the test stack's modules are absent.
PROBE = """
import importlib.metadata, importlib.util, sys
import legal_ai
print(legal_ai.__file__)
print(importlib.metadata.version("legal-ai"))
print(" ".join(n for n in sys.argv[1:] if importlib.util.find_spec(n) is None))
"""
