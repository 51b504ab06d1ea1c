"""The CI gate: hybrid nDCG@10 may not fall more than `tolerance` below the committed baseline."""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import InvalidInput

TOLERANCE = 0.01


def check(report: dict, baseline_path: Path, tolerance: float = TOLERANCE) -> tuple[bool, str]:
    """(passed, one-line verdict) comparing `report` with the baseline JSON of the same dataset."""
    try:
        baseline = json.loads(baseline_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InvalidInput(f"{baseline_path}: cannot read the baseline ({exc})") from exc
    if baseline.get("dataset") != report["dataset"]:
        raise InvalidInput(
            f"{baseline_path}: baseline is for {baseline.get('dataset')!r}, not {report['dataset']!r}"
        )
    was = baseline["modes"]["hybrid"]["ndcg@10"]
    now = report["modes"]["hybrid"]["ndcg@10"]
    verdict = f"{report['dataset']}: hybrid nDCG@10 {now:.4f} vs baseline {was:.4f} (tolerance {tolerance})"
    if now < was - tolerance:
        return False, "REGRESSION " + verdict
    return True, "ok " + verdict
