"""Building legal-ai's wheel and installing it into a fresh venv, as an office would: shared by
tests/test_wheel.py (the wheel's contents, the demo from it, the upgrade from 0.1.0) and
tests/test_office_day.py (docs/deployment.md's day, run from the wheels)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


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


def build_wheel(tree: Path, out: Path) -> Path:
    """The wheel of the source `tree` (a checkout, or a copy holding pyproject.toml, README.md,
    src/ and scripts/wheel) built into `out` by that tree's own scripts/wheel, as `make dist`
    does, with this venv's setuptools (offline)."""
    subprocess.run(
        [str(tree / "scripts" / "wheel"), str(out)],
        env={**clean_env(), "VENV": sys.prefix},
        check=True,
        capture_output=True,
        timeout=300,
    )
    (built,) = out.glob("legal_ai-*.whl")
    return built


def next_version(version: str) -> str:
    """The release after `version`: its last number one higher (0.2.0 -> 0.2.1)."""
    *lead, last = version.split(".")
    return ".".join([*lead, str(int(last) + 1)])


def build_bumped_wheel(version: str, work: Path, out: Path) -> Path:
    """This tree's wheel rebuilt as release `version`: a copy of what scripts/wheel reads
    (pyproject.toml, README.md, src/, the script itself) with legal_ai.__version__ set to it.
    The code is this tree's; only the version differs."""
    tree = work / "tree"
    (tree / "scripts").mkdir(parents=True)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, tree / name)
    shutil.copy2(ROOT / "scripts" / "wheel", tree / "scripts" / "wheel")
    shutil.copytree(
        ROOT / "src", tree / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
    )
    init = tree / "src" / "legal_ai" / "__init__.py"
    lines = init.read_text(encoding="utf-8").splitlines(keepends=True)
    at = [i for i, line in enumerate(lines) if line.startswith("__version__ = ")]
    assert len(at) == 1, "legal_ai/__init__.py writes __version__ once"
    lines[at[0]] = f'__version__ = "{version}"\n'
    init.write_text("".join(lines), encoding="utf-8")
    built = build_wheel(tree, out)
    assert built.name == f"legal_ai-{version}-py3-none-any.whl", built.name
    return built


def fresh_venv(venv: Path) -> Path:
    """A new venv without pip (this venv's pip installs into it: pip_install); its python."""
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300
    )
    return venv / "bin" / "python"


def pip_install(python: Path, wheel: Path) -> subprocess.CompletedProcess:
    """`wheel` into the venv of `python` with its own dependency list only, at the tested
    versions, by this venv's pip (--python: into the fresh venv; the pip that `venv` bundles is
    older and took 36 s here where this one takes 10), without compiling every installed module
    ahead (what runs compiles what it imports). pip's own words on stdout (what it replaced)."""
    return subprocess.run(
        [
            *(sys.executable, "-m", "pip", "--python", python, "install"),
            *("--no-compile", "-c", ROOT / "requirements.lock", wheel),
        ],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=900,
    )
