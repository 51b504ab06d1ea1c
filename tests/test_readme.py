"""README.md's examples run as written (issue 32 item 8): in a fresh LEGAL_AI_HOME, after one
`legal-ai demo`, every `sh`/`bash` block of the README without a `<!-- not run: ... -->` line
before it runs in order in bash (`set -e`; what a block exports is there for the next, as in one
terminal), from a folder laid out as the checkout is (`.venv`, `../shared`), and exits 0."""

import os
import re
import subprocess
from pathlib import Path

import pytest

pytestmark = [pytest.mark.db, pytest.mark.slow, pytest.mark.shared]

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
FENCE = re.compile(r"(?P<before>[^\n]*)\n+```(?:sh|bash)\n(?P<body>.*?)```", re.S)
NOT_RUN = re.compile(r"<!-- not run: .+ -->")


def blocks() -> list[tuple[str, bool]]:
    """Every shell block of the README with whether it is marked not to run."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return [(m["body"], bool(NOT_RUN.fullmatch(m["before"].strip()))) for m in FENCE.finditer(text)]


def test_the_readme_marks_what_it_does_not_run():
    found = blocks()
    assert len(found) >= 6
    run = [body for body, skipped in found if not skipped]
    assert any("legal-ai search" in body for body in run)
    assert any("final upload" in body for body in run)
    assert any("db restore --check" in body for body in run)
    skipped = [body for body, skipped in found if skipped]
    assert any("make demo" in body for body in skipped)
    assert any("systemctl" in body for body in skipped)


def test_every_readme_example_runs_after_the_demo(tmp_path, embedding_folder):
    if not SHARED.is_dir():
        pytest.skip(f"the README's examples read {SHARED}")
    checkout = tmp_path / "work" / "legal-ai"  # writes (backups/) land here, not in the repo
    checkout.mkdir(parents=True)
    (checkout / ".venv").symlink_to(ROOT / ".venv")
    (checkout.parent / "shared").symlink_to(SHARED)
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEGAL_AI_")}
    env["LEGAL_AI_HOME"] = str(tmp_path / "home")
    env["LEGAL_AI_EMBEDDING_CACHE_DIR"] = str(embedding_folder)  # the run's other fresh homes'
    try:
        demo = subprocess.run(
            [".venv/bin/legal-ai", "demo"],
            cwd=checkout,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert demo.returncode == 0, demo.stderr[-2000:]
        # it says which database it loaded and how to point the commands at it
        assert "its own database, legal_ai_demo" in demo.stdout
        assert 'LEGAL_AI_DATABASE_URL="$(legal-ai db url --database legal_ai_demo)"' in demo.stdout
        state = tmp_path / "exported.sh"
        state.write_text("", encoding="utf-8")
        ran = 0
        for body, skipped in blocks():
            if skipped:
                continue
            script = f"set -e\nsource {state}\n{body}\nexport -p > {state}\n"
            done = subprocess.run(
                ["bash", "-c", script],
                cwd=checkout,
                env=env,
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert done.returncode == 0, f"{body}\nexit {done.returncode}: {done.stderr[-2000:]}"
            assert "no hits" not in done.stdout, body  # the searches find the demo's data
            ran += 1
        assert ran >= 3
    finally:
        subprocess.run(
            [".venv/bin/legal-ai", "db", "stop"], cwd=checkout, env=env, capture_output=True
        )
