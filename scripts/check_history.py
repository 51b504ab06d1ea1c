"""Commit subjects that read as a list (docs/contributing.md#commits), checked.

Every commit after SINCE — the last commit before the rule was enforced — must have a subject
of one line of at most 72 characters. Earlier history is what it is and is not rewritten.

`python scripts/check_history.py [REPO]` prints each commit that breaks the rule (its short
hash, the subject's length and its first 72 characters) and exits 1 when there is one. Outside a
git checkout (an unpacked source archive), or in a shallow clone that does not reach SINCE,
it checks what history there is.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SINCE = "72f8bed8200aef78ca0daea6b0020a7751cef037"
LIMIT = 72


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=False
    )


def subjects(repo: Path, since: str = SINCE) -> list[tuple[str, str]]:
    """(short hash, subject) of every commit after `since` (of all history when `since` is not
    in it); empty outside a git checkout."""
    if _git(repo, "rev-parse", "--git-dir").returncode != 0:
        return []
    known = _git(repo, "cat-file", "-e", f"{since}^{{commit}}").returncode == 0
    span = [f"{since}..HEAD"] if known else ["HEAD"]
    log = _git(repo, "log", "--format=%h%x00%s", *span)
    if log.returncode != 0:  # a repository without a commit yet
        return []
    return [tuple(line.split("\0", 1)) for line in log.stdout.splitlines() if "\0" in line]


def findings(repo: Path, since: str = SINCE) -> list[str]:
    return [
        f"{sha}: subject of {len(subject)} characters (at most {LIMIT}): {subject[:LIMIT]}…"
        for sha, subject in subjects(repo, since)
        if len(subject) > LIMIT
    ]


def main(argv: list[str]) -> int:
    repo = Path(argv[0]) if argv else Path(__file__).resolve().parent.parent
    problems = findings(repo)
    for line in problems:
        print(line, file=sys.stderr)
    if problems:
        print(
            "commit subjects: one line of at most 72 characters saying what changed; the rest "
            "goes in the body (docs/contributing.md#commits). Reword before it lands: "
            "git rebase -i, then `reword`.",
            file=sys.stderr,
        )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
