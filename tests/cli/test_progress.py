"""Progress of long work through the real command (issue 32 item 7): without a terminal a JSON
line every LEGAL_AI_PROGRESS_INTERVAL_S seconds on stderr; on a terminal (a pseudo-terminal
here) a bar with the total, the rate and the time left; Ctrl-C says where the ingest stopped,
exits 130, and the same command run again finishes the rest."""

import json
import os
import pty
import select
import shutil
import signal
import struct
import subprocess
import sys
import termios
import time
import uuid
from fcntl import ioctl
from pathlib import Path

import pytest

pytestmark = [pytest.mark.db, pytest.mark.slow]

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
COMMAND = [sys.executable, "-m", "legal_ai.cli"]
PARAGRAPH = (
    "הוועדה המקומית דנה בבקשה להקלה בקו בניין בחלקה {n}, ושמעה את טענות הצדדים בעניין התכנית "
    "והשימוש החורג, ובכלל זה את חוות דעת מהנדס הוועדה ואת התנגדויות השכנים. "
)


def decisions(folder: Path, count: int, paragraphs: int) -> Path:
    """`count` text files whose text no earlier run embedded (a fresh id in each), so every
    one of them goes through the model."""
    folder.mkdir()
    for n in range(count):
        text = [f"החלטה {n} ({uuid.uuid4()})"] + [
            PARAGRAPH.format(n=n * 100 + p) * 2 for p in range(paragraphs)
        ]
        (folder / f"decision-{n:02d}.txt").write_text("\n\n".join(text), encoding="utf-8")
    return folder


def progress_lines(stderr: str) -> list[dict]:
    return [json.loads(line) for line in stderr.splitlines() if line.startswith('{"progress"')]


def test_without_a_terminal_ingest_writes_json_progress_lines(app, cli_env, tmp_path):
    folder = decisions(tmp_path / "decisions", 3, 1)
    statute = folder / "990001" / "he@"
    statute.mkdir(parents=True)
    shutil.copy(FIXTURES / "mini-law.xml", statute / "main.xml")
    done = subprocess.run(
        [*COMMAND, "ingest", str(folder), "--corpus", "external"],
        env={**cli_env, "LEGAL_AI_PROGRESS_INTERVAL_S": "0.05"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    lines = progress_lines(done.stderr)
    assert len(lines) >= 2
    assert {tuple(line) for line in lines} == {
        ("progress", "done", "total", "unit", "rate", "eta_s", "elapsed_s", "current", "last")
    }
    assert all(line["progress"] == "ingest" and line["total"] == 4 for line in lines)
    assert all(line["unit"] == "files" for line in lines)
    last = lines[-1]  # the closing line: all of it done, nothing left
    assert last["done"] == 4 and last["eta_s"] == 0 and last["rate"] > 0
    # the statute by its path under the folder named and its title, never a bare "main.xml"
    named = {line["current"] for line in lines if line["current"]}
    assert 'decisions/990001/he@/main.xml (חוק לדוגמה לבדיקות, התשס"א–2001)' in named
    assert "decisions/decision-00.txt" in named
    assert any(line["last"] and line["last"].startswith("990001#") for line in lines)
    counts = [line["done"] for line in lines]
    assert counts == sorted(counts)  # done only grows
    assert "ingested 5" in done.stdout  # 3 files and the statute's 2 sections


def test_on_a_terminal_ingest_draws_a_bar_with_total_rate_and_eta(app, cli_env, tmp_path):
    folder = decisions(tmp_path / "decisions", 3, 2)
    leader, follower = pty.openpty()
    ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 200, 0, 0))
    child = subprocess.Popen(
        [*COMMAND, "ingest", str(folder), "--corpus", "external"],
        env={**cli_env, "TERM": "xterm-256color"},
        stdin=follower,
        stdout=follower,
        stderr=follower,
        close_fds=True,
    )
    os.close(follower)
    seen = b""
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 1)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the child closed its side
                break
            if not chunk:
                break
            seen += chunk
        elif child.poll() is not None:
            break
    os.close(leader)
    assert child.wait(timeout=60) == 0
    screen = seen.decode("utf-8", "replace")
    assert "ingest" in screen and "/3" in screen  # the phase, done of the total
    assert "files/s" in screen and "ETA" in screen  # the rate and the time left
    assert "decisions/decision-0" in screen  # the file being written
    assert "ingested 3" in screen
    assert '{"progress"' not in screen  # a terminal gets the bar, not the log lines


def test_ctrl_c_says_where_ingest_stopped_and_a_rerun_finishes(app, cli_env, tmp_path):
    # 24 files: Ctrl-C sent after the first is written lands well before the last (with 6, the
    # CI rehearsal's run finished before the signal arrived and exited 0).
    folder = decisions(tmp_path / "decisions", 24, 4)
    env = {**cli_env, "LEGAL_AI_PROGRESS_INTERVAL_S": "0.1"}
    child = subprocess.Popen(
        [*COMMAND, "ingest", str(folder), "--corpus", "external"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    err = []
    for line in child.stderr:  # wait until a file is written, then press Ctrl-C
        err.append(line)
        if line.startswith('{"progress"') and json.loads(line)["done"] >= 1:
            child.send_signal(signal.SIGINT)
            break
    out, rest = child.communicate(timeout=300)
    err.append(rest)
    assert child.returncode == 130
    said = "".join(err).strip().splitlines()[-1]
    assert said.startswith("interrupted: ingest: ")
    stopped = int(said.split("ingest: ")[1].split(" of ")[0])
    assert 1 <= stopped < 24 and " of 24 files done, the last written: decisions/decision-" in said
    assert said.endswith(
        "Run the same command again to resume: the items written are kept and skipped as unchanged."
    )
    assert "Traceback" not in "".join(err) and out == ""
    again = subprocess.run(
        [*COMMAND, "ingest", str(folder), "--corpus", "external", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert again.returncode == 0, again.stderr
    report = json.loads(again.stdout)
    assert report["unchanged"] >= stopped  # what was written before Ctrl-C is kept
    assert report["unchanged"] + report["ingested"] == 24 and report["ingested"] >= 1
    assert report["failed"] == []
