"""Releases tell themselves apart (issue 32 item 2): `legal_ai.__version__` is the one version
(the wheel's metadata carries it: tests/test_wheel.py, which also upgrades a wheel of the
previous release to this one), `legal-ai --version` and `-V` print it, and CHANGELOG.md has its
entry: the newest release there is this version, dated, with what changed. Pure: no database."""

from __future__ import annotations

import re
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

import legal_ai

ROOT = Path(__file__).resolve().parents[1]
CHANGELOG = ROOT / "CHANGELOG.md"
RELEASE = re.compile(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$")
KINDS = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}  # Keep a Changelog's


def releases() -> list[tuple[str, str, list[str]]]:
    """(version, date, body lines) of every release entry in CHANGELOG.md, newest first."""
    found: list[tuple[str, str, list[str]]] = []
    for line in CHANGELOG.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            match = RELEASE.match(line)
            assert match or line == "## [Unreleased]", f"not a release heading: {line}"
            found.append((match[1], match[2], []) if match else ("", "", []))
        elif found:
            found[-1][2].append(line)
    return [entry for entry in found if entry[0]]


def as_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def test_version_is_semantic():
    assert re.fullmatch(r"\d+\.\d+\.\d+", legal_ai.__version__)


def test_changelog_has_an_entry_for_this_version():
    entries = releases()
    version, day, body = entries[0]
    assert version == legal_ai.__version__, "bump __version__ with a CHANGELOG.md entry"
    date.fromisoformat(day)
    kinds = {line[4:] for line in body if line.startswith("### ")}
    assert kinds and kinds <= KINDS, kinds
    assert sum(line.startswith("- ") for line in body) >= 3, "a line per change users see"
    # Newest first, each version once, each later than the one below it.
    versions = [as_tuple(v) for v, _, _ in entries]
    assert versions == sorted(set(versions), reverse=True)


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_cli_prints_the_version(flag):
    result = subprocess.run(
        [sys.executable, "-m", "legal_ai.cli", flag],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        f"legal-ai {legal_ai.__version__}\n",
        "",
    )
