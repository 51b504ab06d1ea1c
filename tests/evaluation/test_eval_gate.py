"""The retrieval-quality gate (scripts/eval-gate) never passes CI without measuring: with its
data missing it fails under CI=true and, outside CI, skips saying it did not measure."""

import os
import subprocess
from pathlib import Path

GATE = Path(__file__).resolve().parents[2] / "scripts" / "eval-gate"


def gate(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["LEGAL_AI_SHARED"] = str(tmp_path / "no-shared-data")
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([str(GATE)], env=env, capture_output=True, text=True, check=False)


def test_missing_data_fails_the_gate_under_ci(tmp_path):
    run = gate(tmp_path, "true")
    assert run.returncode == 1
    assert "absent" in run.stderr and "cannot pass without measuring" in run.stderr


def test_missing_data_outside_ci_skips_and_says_so(tmp_path):
    run = gate(tmp_path, None)
    assert run.returncode == 0
    assert "skipped (not measured" in run.stdout
