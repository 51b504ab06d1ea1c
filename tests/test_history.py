"""The commit-subject rule (docs/contributing.md#commits) is a check (scripts/check_history.py,
run by scripts/check): this repository keeps it, and the check finds a long subject after the
commit it starts from, and not one before it."""

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location(
    "check_history", ROOT / "scripts" / "check_history.py"
)
check_history = importlib.util.module_from_spec(_spec)
sys.modules["check_history"] = check_history
_spec.loader.exec_module(check_history)


def commit(repo: Path, subject: str, body: str = "") -> str:
    (repo / "f.txt").write_text(subject, encoding="utf-8")
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
        "PATH": "/usr/bin:/bin",
        "HOME": str(repo),
    }
    run = lambda *a: subprocess.run(["git", "-C", str(repo), *a], check=True, env=env)  # noqa: E731
    run("add", "f.txt")
    run("commit", "-q", "-m", subject, *(["-m", body] if body else []))
    return subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_this_repository_keeps_the_rule():
    assert check_history.findings(ROOT) == []


def test_a_long_subject_after_the_start_is_found_and_one_before_it_is_not(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    commit(tmp_path, "Before the rule: " + "a story of how it was done, " * 5)
    start = commit(tmp_path, "Start of the rule")
    assert check_history.findings(tmp_path, since=start) == []
    commit(tmp_path, "Search: exact identifiers first", "Measured: nDCG@10 0.80 -> 0.81.")
    long = "Desk: " + "the case page shows the final's citations and more " * 2
    sha = commit(tmp_path, long.strip())
    found = check_history.findings(tmp_path, since=start)
    assert len(found) == 1
    assert found[0].startswith(sha[:7]) and f"{len(long.strip())} characters" in found[0]
    # a start this history does not hold (a shallow clone): the whole history is checked
    assert len(check_history.findings(tmp_path, since="0" * 40)) == 2
    assert check_history.main([str(tmp_path)]) == 1


def test_outside_a_checkout_there_is_nothing_to_check(tmp_path):
    assert check_history.subjects(tmp_path) == []
