"""Guards against drift: every setting is documented, the README names the two commands."""

import re
from pathlib import Path

from legal_ai.config import Settings

ROOT = Path(__file__).resolve().parents[1]


def test_every_setting_is_documented():
    doc = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    missing = [name for name in Settings.model_fields if f"`{name}`" not in doc]
    assert missing == []


def test_readme_starts_with_the_two_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first = readme.index("make demo")
    assert first < readme.index("make test") < readme.index("## Try a search")


def test_ci_calls_make_test():
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_the_source_points_to_docs_not_to_issue_numbers():
    """A docstring or comment says where to read more in docs/, never "issue N item M": the
    issues are not in the repository, so a reader cannot look them up."""
    said = re.compile(r"\bissues? \d+")
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for folder in ("src", "scripts")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if said.search(line)
    ]
    assert found == []
