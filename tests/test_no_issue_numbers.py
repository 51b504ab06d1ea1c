"""The code points a reader to the docs, never to an issue number a reader of the repository
cannot look up (docs/contributing.md). Merged migrations are never edited, so the comments
they were merged with stay as written."""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "legal_ai"
ISSUE = re.compile(r"\bissues? #?\d+", re.IGNORECASE)
READ = (".py", ".html", ".js", ".css")


def test_no_source_file_cites_an_issue_number():
    cited = [
        f"{path.relative_to(SRC)}:{number}: {line.strip()[:80]}"
        for path in sorted(SRC.rglob("*"))
        if path.suffix in READ and "migrations" not in path.parts
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if ISSUE.search(line)
    ]
    assert cited == []


def test_the_check_finds_what_it_looks_for():
    for line in ("# see issue 23 item 4", "/* (Issue 37) */", "issues #12 and 13"):
        assert ISSUE.search(line), line
    assert not ISSUE.search("# an issuer of 3 permits")
