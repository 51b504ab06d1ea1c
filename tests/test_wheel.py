"""The built wheel (issue 24 item 7): `scripts/wheel` (`make dist`) builds it; it holds the package
with every migration, the demo data and the desk's templates and assets, and nothing else (no
tests, no bytecode, no stray file); its metadata carries `legal_ai.__version__`. Installed into a
fresh venv with its own dependency list only (no extra, none of the test stack), it runs
`legal-ai demo` from outside the clone on an embedded server of its own, which is stopped
whatever happens."""

from __future__ import annotations

import email
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

import legal_ai
from helpers import DEMO_SEARCH_TOOLS

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "legal_ai"
DIST_INFO = {"METADATA", "WHEEL", "entry_points.txt", "top_level.txt", "RECORD"}
TEST_STACK = ("pytest", "playwright", "fpdf", "hypothesis", "axe_playwright_python", "ruff")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [str(ROOT / "scripts" / "wheel"), str(out)],
        env={**os.environ, "VENV": sys.prefix},
        check=True,
        capture_output=True,
        timeout=300,
    )
    (built,) = out.glob("legal_ai-*.whl")
    return built


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


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without anything that would point the fresh venv back at
    the clone or at another database: no LEGAL_AI_*, PYTHON*, VIRTUAL_ENV or PG*."""
    keep = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("LEGAL_AI_", "PYTHON", "VIRTUAL_ENV", "PG"))
    }
    path = [p for p in os.environ["PATH"].split(os.pathsep) if not p.startswith(sys.prefix)]
    return {**keep, "PATH": os.pathsep.join(path), **extra}


@pytest.mark.slow
def test_wheel_in_a_fresh_venv_runs_the_demo(wheel, tmp_path_factory):
    place = tmp_path_factory.mktemp("fresh")  # short: the server's socket lives under it
    venv, home = place / "venv", place / "home"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300
    )
    python, cli = venv / "bin" / "python", venv / "bin" / "legal-ai"
    # Its own dependency list only, at the tested versions, by this venv's pip (--python: into
    # the fresh venv; the pip that `venv` bundles is older and took 36 s here where this one
    # takes 10), without compiling every installed module ahead (the demo compiles what it
    # imports).
    installed = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "--python", python, "install", "--quiet"),
            *("--no-compile", "-c", ROOT / "requirements.lock", wheel),
        ],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert installed.returncode == 0, installed.stderr[-3000:]
    env = clean_env(LEGAL_AI_HOME=str(home))
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


# Run by the fresh venv's python outside the clone: where legal_ai comes from, its version as
# the installed metadata says, and which of the test stack's modules are absent.
PROBE = """
import importlib.metadata, importlib.util, sys
import legal_ai
print(legal_ai.__file__)
print(importlib.metadata.version("legal-ai"))
print(" ".join(n for n in sys.argv[1:] if importlib.util.find_spec(n) is None))
"""
