"""The CI gate (INV-RET4): hybrid nDCG@10 and hybrid Recall@100 may each fall no more than its
own tolerance below the committed baseline (docs/evaluation.md, "The CI gate").

NDCG_TOLERANCE (0.01): the ranking of the first ten may wobble by a hundredth (a tie broken
another way on one query moves nDCG@10 by less). RECALL_TOLERANCE (0.015): Recall@100 asks only
whether the judged passages are retrieved at all, so it moves in whole queries' shares — one
query of the 50 of pbl-questions losing its only judged section is 0.02 and fails; on heq's 150
queries one is 0.0067 and two 0.013 pass, three fail."""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import InvalidInput
from .harness import EvalReport

NDCG_TOLERANCE = 0.01
RECALL_TOLERANCE = 0.015
GATED = (("ndcg@10", NDCG_TOLERANCE), ("recall@100", RECALL_TOLERANCE))


def check(
    report: EvalReport, baseline_path: Path, tolerances: dict[str, float] | None = None
) -> tuple[bool, str]:
    """(passed, one-line verdict) comparing `report`'s hybrid nDCG@10 and Recall@100 with the
    baseline JSON of the same dataset, each against its tolerance (`tolerances` overrides)."""
    try:
        baseline = json.loads(baseline_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InvalidInput(f"{baseline_path}: cannot read the baseline ({exc})") from exc
    if baseline.get("dataset") != report["dataset"]:
        raise InvalidInput(
            f"{baseline_path}: baseline is for {baseline.get('dataset')!r}, not {report['dataset']!r}"
        )
    if "hybrid" not in report["modes"]:
        raise InvalidInput(
            "--baseline gates hybrid's figures: run the evaluation with hybrid among --modes"
        )
    parts, failed = [], []
    for metric, default in GATED:
        tolerance = (tolerances or {}).get(metric, default)
        was = baseline.get("modes", {}).get("hybrid", {}).get(metric)
        if was is None:
            raise InvalidInput(
                f"{baseline_path}: the baseline has no hybrid {metric}; refresh it with "
                "scripts/eval-gate --write"
            )
        now = report["modes"]["hybrid"][metric]
        label = {"ndcg@10": "nDCG@10", "recall@100": "Recall@100"}[metric]
        parts.append(f"{label} {now:.4f} vs baseline {was:.4f} (tolerance {tolerance})")
        if now < was - tolerance:
            failed.append(label)
    verdict = f"{report['dataset']}: hybrid " + "; ".join(parts)
    if failed:
        return False, f"REGRESSION ({', '.join(failed)}) " + verdict
    return True, "ok " + verdict
