"""The copy check's, the verification's, the embedding's and the reading child's benchmarks at
a tiny scale (the first two on the suite's server), so they cannot rot unseen (bench/copy_check.py once called a
function the copy check no longer had and nothing noticed). Their figures come from full runs
(docs/benchmarks.md)."""

import json
import os
import subprocess
import sys

import pytest

from helpers import ROOT
from legal_ai.providers.embedders import E5_SPIN_TURNS


def _bench(name: str, server_url: str, *args: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEGAL_AI_")}
    env["PYTHONPATH"] = str(ROOT / "src")
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / f"{name}.py"), *args, "--server-url", server_url],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout)


@pytest.mark.db
@pytest.mark.server_db("legal_ai_bench_copy")
def test_the_copy_check_bench_finds_what_its_peer_finds(server_url):
    figures = _bench("copy_check", server_url, "--decisions", "8", "--repeat", "1")
    assert figures["decisions"] == 8 and figures["reports_equal"]
    shared = figures["texts_sharing_an_8gram_with_the_draft"]
    assert shared == figures["peer_found"] and shared > 0
    assert figures["passages"] > 0


@pytest.mark.db
@pytest.mark.server_db("legal_ai_bench_verify")
def test_the_verification_bench_checks_every_citation_it_wrote(server_url):
    figures = _bench(
        "verify", server_url, "--rulings", "40", "--citations", "8", "--pages", "2", "--repeat", "2"
    )
    assert figures["rulings"] == 40 and figures["citations_checked"] >= 8
    assert sum(figures["statuses"].values()) == figures["citations_checked"]
    for key in ("check", "check_and_report", "extraction"):
        assert 0 < figures[key]["p50_s"] <= figures[key]["p95_s"]


@pytest.mark.slow
def test_the_embedding_bench_measures_each_setting_beside_ours():
    """bench/embedding.py at a tiny scale: each spin setting in processes of its own, legal-ai's
    own setting always among them, the others as ratios to it."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "embedding.py"), "--settings", "1000"]
        + ["--queries", "2", "--passages", "8"],
        env={k: v for k, v in os.environ.items() if k != "GOMP_SPINCOUNT"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    figures = json.loads(result.stdout)
    ours = figures["legal_ai_setting"]
    assert ours == E5_SPIN_TURNS and set(figures["settings"]) == {"1000", ours}
    for setting, measured in figures["settings"].items():
        assert set(measured["query"]) == {"back_to_back", "after_20ms", "after_200ms"}
        for figure in measured["query"].values():
            assert 0 < figure["p50_ms"] <= figure["p95_ms"]
        assert measured["passages_alone_s"] > 0
        assert len(measured["passages_two_at_once_s"]) == 2
        assert ("to_ours" in measured) is (setting != ours)
    assert figures["settings"]["1000"]["to_ours"]["passages_two_at_once"] > 0


@pytest.mark.slow
def test_the_isolation_bench_reads_each_file_each_way():
    """bench/isolation.py once per file and way: in this process (the peer), in a child started
    each of the three ways, and by the fork server of a process run as the console script."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "isolation.py"), "--repeat", "1"],
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    figures = json.loads(result.stdout)
    assert set(figures["files"]) == {"docx", "txt", "bomb"} and figures["forkserver_start_s"] > 0
    for name, row in figures["files"].items():
        for way in ("forkserver", "spawn", "fork", "as_console_script"):
            assert row[f"{way}_s"] > 0
            overhead = row[f"{way}_s"] - row["in_process_s"]  # each figure rounded to 0.1 ms
            assert row[f"{way}_overhead_s"] == pytest.approx(overhead, abs=2e-4)
        assert (row["refused"] is not None) is (name == "bomb")
